//! Model-based property test: random operation sequences on a B+tree and on a
//! `BTreeMap` must agree, and the tree must pass its invariant check after each
//! sequence. Keys are short (many collisions) or long (up to MAX_KEY); values range from
//! empty to overflow chains. A small pool keeps evicting, and some sequences
//! checkpoint and reopen the file mid-way.

use basalt_storage::btree::{TableFile, Tree, MAX_KEY};
use basalt_storage::io::os::OsFileSystem;
use basalt_storage::pool::BufferPool;
use basalt_storage::store::Modify;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::ops::Bound;

#[derive(Clone, Debug)]
enum Op {
    Put(Vec<u8>, usize, u8),
    Delete(Vec<u8>),
    /// Deletes the keys of a range (exercises merges).
    DeleteRange(Vec<u8>, Vec<u8>),
    Get(Vec<u8>),
    Scan(
        Option<(Vec<u8>, bool)>,
        Option<(Vec<u8>, bool)>,
        bool,
        usize,
    ),
    Reopen,
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => prop::collection::vec(0u8..6, 0..7),
        1 => (0u8..6, 100usize..MAX_KEY).prop_map(|(b, n)| {
            let mut k = vec![b; n];
            k[n - 1] = (n % 251) as u8;
            k
        }),
    ]
}

fn value_len() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..64,
        4 => 200usize..2500,
        1 => 3000usize..40_000,
    ]
}

fn bound() -> impl Strategy<Value = Option<(Vec<u8>, bool)>> {
    prop::option::of((key(), any::<bool>()))
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (key(), value_len(), any::<u8>()).prop_map(|(k, n, s)| Op::Put(k, n, s)),
        4 => key().prop_map(Op::Delete),
        1 => (key(), key()).prop_map(|(a, b)| Op::DeleteRange(a, b)),
        2 => key().prop_map(Op::Get),
        2 => (bound(), bound(), any::<bool>(), 0usize..40).prop_map(|(l, u, r, m)| Op::Scan(l, u, r, m)),
        1 => Just(Op::Reopen),
    ]
}

fn value(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn to_bound(b: &Option<(Vec<u8>, bool)>) -> Bound<&[u8]> {
    match b {
        None => Bound::Unbounded,
        Some((k, true)) => Bound::Included(k),
        Some((k, false)) => Bound::Excluded(k),
    }
}

fn model_scan(
    m: &BTreeMap<Vec<u8>, Vec<u8>>,
    lo: Bound<&[u8]>,
    hi: Bound<&[u8]>,
    reverse: bool,
    max: usize,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let valid = match (lo, hi) {
        (Bound::Included(a), Bound::Included(b)) => a <= b,
        (Bound::Included(a) | Bound::Excluded(a), Bound::Excluded(b) | Bound::Included(b)) => a < b,
        _ => true,
    };
    if !valid {
        return Vec::new();
    }
    let it = m
        .range::<[u8], _>((lo, hi))
        .map(|(k, v)| (k.clone(), v.clone()));
    if reverse {
        it.rev().take(max).collect()
    } else {
        it.take(max).collect()
    }
}

fn delete_range(tree: &Tree, m: &mut BTreeMap<Vec<u8>, Vec<u8>>, a: &[u8], b: &[u8]) {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    let keys: Vec<Vec<u8>> = m
        .range::<[u8], _>((Bound::Included(lo), Bound::Included(hi)))
        .map(|(k, _)| k.clone())
        .collect();
    for k in keys {
        assert!(tree.delete(&k).unwrap());
        m.remove(&k);
    }
}

fn run(ops: Vec<Op>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.bdb");
    let pool = BufferPool::with_frames(24);
    let mut file = TableFile::create(&pool, &OsFileSystem, &path).unwrap();
    let mut tree = file.create_tree(9).unwrap();
    let mut m: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for op in ops {
        match op {
            Op::Put(k, n, s) => {
                let v = value(n, s);
                let prev = m.insert(k.clone(), v.clone());
                let mut seen = None;
                tree.modify(
                    &k,
                    |old| {
                        seen = Some(old.map(<[u8]>::to_vec));
                        Modify::Put(v.clone())
                    },
                    |_| Ok(()),
                )
                .unwrap();
                assert_eq!(seen, Some(prev));
            }
            Op::Delete(k) => assert_eq!(tree.delete(&k).unwrap(), m.remove(&k).is_some()),
            Op::DeleteRange(a, b) => delete_range(&tree, &mut m, &a, &b),
            Op::Get(k) => assert_eq!(tree.get(&k).unwrap(), m.get(&k).cloned()),
            Op::Scan(l, u, r, max) => {
                let mut out = Vec::new();
                tree.scan(to_bound(&l), to_bound(&u), r, max, &mut out)
                    .unwrap();
                assert_eq!(out, model_scan(&m, to_bound(&l), to_bound(&u), r, max));
            }
            Op::Reopen => {
                file.checkpoint(|| 1).unwrap();
                drop(tree);
                drop(file);
                file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
                tree = file.tree(9).unwrap();
            }
        }
    }
    let check = tree.check().unwrap();
    if std::env::var("BTREE_MODEL_VERBOSE").is_ok() {
        eprintln!("{check:?} reads={}", pool.stats().reads);
    }
    assert_eq!(check.entries, m.len() as u64);
    assert_eq!(tree.len_estimate(), m.len() as u64);
    let mut out = Vec::new();
    tree.scan(
        Bound::Unbounded,
        Bound::Unbounded,
        false,
        usize::MAX,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, m.into_iter().collect::<Vec<_>>());
}

/// Long keys sharing long prefixes: separators stay long, inner nodes hold few of
/// them, and trees get deep quickly (inner splits and inner merges).
fn long_key() -> impl Strategy<Value = Vec<u8>> {
    (
        0u8..3,
        1000usize..2500,
        prop::collection::vec(0u8..10, 0..4),
    )
        .prop_map(|(b, n, tail)| {
            let mut k = vec![b; n];
            k.extend(tail);
            k
        })
}

fn long_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (long_key(), 0usize..300, any::<u8>()).prop_map(|(k, n, s)| Op::Put(k, n, s)),
        6 => long_key().prop_map(Op::Delete),
        1 => (long_key(), long_key()).prop_map(|(a, b)| Op::DeleteRange(a, b)),
        2 => long_key().prop_map(Op::Get),
        2 => (prop::option::of((long_key(), any::<bool>())), prop::option::of((long_key(), any::<bool>())), any::<bool>(), 0usize..40)
            .prop_map(|(l, u, r, m)| Op::Scan(l, u, r, m)),
        1 => Just(Op::Reopen),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn btree_matches_btreemap(ops in prop::collection::vec(op(), 1..400)) {
        run(ops);
    }

    #[test]
    fn deep_trees_match_btreemap(ops in prop::collection::vec(long_op(), 1..400)) {
        run(ops);
    }
}

/// A fixed long sequence that grows the tree to several levels and shrinks it again.
#[test]
fn grow_and_shrink_against_model() {
    let mut ops = Vec::new();
    for i in 0..3000u32 {
        let k = (i.wrapping_mul(2_654_435_761) % 100_000)
            .to_be_bytes()
            .to_vec();
        ops.push(Op::Put(k, (i as usize * 37) % 700, i as u8));
    }
    ops.push(Op::Reopen);
    for i in 0..3000u32 {
        if i % 4 != 0 {
            let k = (i.wrapping_mul(2_654_435_761) % 100_000)
                .to_be_bytes()
                .to_vec();
            ops.push(Op::Delete(k));
        }
        if i % 500 == 0 {
            ops.push(Op::Scan(None, None, i % 1000 == 0, 5000));
        }
    }
    run(ops);
}
