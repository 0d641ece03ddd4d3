//! Checkpoint model test: random operations interleaved with `begin_cut`, `flush_cut`
//! and crashes (everything dropped without a checkpoint, then the file reopened). After
//! a crash the file must hold exactly the contents at the last flushed cut, whatever
//! happened in between: writes to pages pending for the cut (copied aside), evictions
//! of pending pages (a 16-frame pool), trees created and dropped, overflow values.

use basalt_storage::btree::TableFile;
use basalt_storage::io::os::OsFileSystem;
use basalt_storage::pool::{BufferPool, Cut};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::ops::Bound;

#[derive(Clone, Debug)]
enum Op {
    Put(u8, u16, usize),
    Delete(u8, u16),
    CreateTree(u8),
    DropTree(u8),
    BeginCut,
    FlushCut,
    Crash,
}

type Model = BTreeMap<u8, BTreeMap<Vec<u8>, Vec<u8>>>;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        30 => (0u8..3, 0u16..600, prop_oneof![8 => 0usize..400, 1 => 5000usize..30_000])
            .prop_map(|(t, k, n)| Op::Put(t, k, n)),
        12 => (0u8..3, 0u16..600).prop_map(|(t, k)| Op::Delete(t, k)),
        1 => (0u8..3).prop_map(Op::CreateTree),
        1 => (0u8..3).prop_map(Op::DropTree),
        3 => Just(Op::BeginCut),
        3 => Just(Op::FlushCut),
        2 => Just(Op::Crash),
    ]
}

fn key(k: u16) -> Vec<u8> {
    format!("key-{k:05}").into_bytes()
}

fn value(k: u16, n: usize, salt: usize) -> Vec<u8> {
    (0..n).map(|i| (i + k as usize + salt) as u8).collect()
}

fn contents(file: &TableFile) -> Model {
    let mut m = Model::new();
    for id in file.tree_ids() {
        let mut out = Vec::new();
        file.tree(id)
            .unwrap()
            .scan(
                Bound::Unbounded,
                Bound::Unbounded,
                false,
                usize::MAX,
                &mut out,
            )
            .unwrap();
        m.insert(id as u8, out.into_iter().collect());
    }
    m
}

fn run(ops: Vec<Op>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crash.bdb");
    let pool = BufferPool::with_frames(16);
    let mut file = TableFile::create(&pool, &OsFileSystem, &path).unwrap();
    file.create_tree(0).unwrap();
    file.checkpoint(|| 0).unwrap();
    let mut model: Model = BTreeMap::from([(0, BTreeMap::new())]);
    let mut durable = model.clone();
    let mut cut: Option<(Cut, Model)> = None;
    for (n, op) in ops.into_iter().enumerate() {
        match op {
            Op::Put(t, k, len) => {
                if let (Some(tree), Some(m)) = (file.tree(t as u32), model.get_mut(&t)) {
                    let v = value(k, len, n);
                    tree.put(&key(k), &v).unwrap();
                    m.insert(key(k), v);
                }
            }
            Op::Delete(t, k) => {
                if let (Some(tree), Some(m)) = (file.tree(t as u32), model.get_mut(&t)) {
                    assert_eq!(tree.delete(&key(k)).unwrap(), m.remove(&key(k)).is_some());
                }
            }
            Op::CreateTree(t) => {
                if let std::collections::btree_map::Entry::Vacant(e) = model.entry(t) {
                    file.create_tree(t as u32).unwrap();
                    e.insert(BTreeMap::new());
                }
            }
            Op::DropTree(t) => {
                if model.remove(&t).is_some() {
                    file.drop_tree(t as u32).unwrap();
                }
            }
            Op::BeginCut => {
                if cut.is_none() {
                    cut = Some((file.begin_cut(|| n as u64).unwrap(), model.clone()));
                }
            }
            Op::FlushCut => {
                if let Some((c, m)) = cut.take() {
                    file.flush_cut(c).unwrap();
                    durable = m;
                }
            }
            Op::Crash => {
                cut = None;
                drop(file);
                file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
                assert_eq!(contents(&file), durable, "after crash at op {n}");
                for id in file.tree_ids() {
                    file.tree(id).unwrap().check().unwrap();
                }
                model = durable.clone();
            }
        }
    }
    assert_eq!(contents(&file), model);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn crash_reopens_at_last_flushed_cut(ops in prop::collection::vec(op(), 1..300)) {
        run(ops);
    }
}
