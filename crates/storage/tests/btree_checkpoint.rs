//! Checkpoints: a cut taken while a writer runs, flushed while it keeps writing, must
//! reopen to exactly the changes made before the cut; repeated checkpoints reuse the
//! space of superseded images; dropped trees stay dropped.

use basalt_storage::btree::{TableFile, Tree};
use basalt_storage::io::os::OsFileSystem;
use basalt_storage::pool::{BufferPool, CutStats};
use basalt_storage::store::Modify;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Clone, Debug)]
enum Op {
    Put(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
}

fn ops(seed: u64, n: usize) -> Vec<Op> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let k = format!("key{:05}", rng.gen_range(0..4000)).into_bytes();
            if rng.gen_range(0..4) == 0 {
                Op::Delete(k)
            } else {
                let len = if rng.gen_range(0..40) == 0 {
                    30_000
                } else {
                    rng.gen_range(10..500)
                };
                Op::Put(k, vec![(i % 251) as u8; len])
            }
        })
        .collect()
}

fn apply(m: &mut BTreeMap<Vec<u8>, Vec<u8>>, op: &Op) {
    match op {
        Op::Put(k, v) => {
            m.insert(k.clone(), v.clone());
        }
        Op::Delete(k) => {
            m.remove(k);
        }
    }
}

/// Applies `op`, counting it in `done` from inside the closure: the closure runs under
/// the checkpoint gate, so a cut sees exactly the ops counted before it.
fn run_op(tree: &Tree, op: &Op, done: &AtomicUsize) {
    let (k, decision) = match op {
        Op::Put(k, v) => (k, Modify::Put(v.clone())),
        Op::Delete(k) => (k, Modify::Delete),
    };
    let mut d = Some(decision);
    tree.modify(
        k,
        |_| {
            done.fetch_add(1, Ordering::SeqCst);
            d.take().expect("called once")
        },
        |_| Ok(()),
    )
    .unwrap();
}

fn contents(tree: &Tree) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    tree.scan(
        Bound::Unbounded,
        Bound::Unbounded,
        false,
        usize::MAX,
        &mut out,
    )
    .unwrap();
    out
}

fn cut_while_writing(seed: u64, frames: usize) -> CutStats {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cp.bdb");
    let pool = BufferPool::with_frames(frames);
    let list = ops(seed, 12_000);
    let file = TableFile::create(&pool, &OsFileSystem, &path).unwrap();
    let tree = file.create_tree(5).unwrap();
    let done = Arc::new(AtomicUsize::new(0));
    // A first checkpoint part-way, so the cut has a previous image to differ from.
    for op in &list[..3000] {
        run_op(&tree, op, &done);
    }
    file.checkpoint(|| 1).unwrap();
    let writing = Arc::new(AtomicBool::new(true));
    let writer = {
        let (tree, done, list, writing) =
            (tree.clone(), done.clone(), list.clone(), writing.clone());
        std::thread::spawn(move || {
            for op in &list[3000..] {
                run_op(&tree, op, &done);
            }
            writing.store(false, Ordering::SeqCst);
        })
    };
    while done.load(Ordering::SeqCst) < 6000 {
        std::thread::yield_now();
    }
    let mut at_cut = 0;
    let cut = file
        .begin_cut(|| {
            at_cut = done.load(Ordering::SeqCst);
            at_cut as u64
        })
        .unwrap();
    let stats = file.flush_cut(cut).unwrap();
    let still_writing = writing.load(Ordering::SeqCst);
    writer.join().unwrap();
    if !still_writing {
        eprintln!("seed {seed}: the writer finished before the flush did");
    }
    let mut model = BTreeMap::new();
    list[..at_cut].iter().for_each(|op| apply(&mut model, op));
    // "Crash": drop everything without another checkpoint; the later writes (some of
    // them evicted to disk) must not show.
    drop(tree);
    drop(file);
    let file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
    assert_eq!(file.checkpoint_lsn(), at_cut as u64);
    let tree = file.tree(5).unwrap();
    assert_eq!(contents(&tree), model.into_iter().collect::<Vec<_>>());
    tree.check().unwrap();
    stats
}

#[test]
fn reopen_gives_exactly_the_cut() {
    let mut total = CutStats::default();
    for (seed, frames) in [(1, 48), (2, 64), (3, 512), (4, 32)] {
        let s = cut_while_writing(seed, frames);
        eprintln!("seed {seed}, {frames} frames: {s:?}");
        total.from_frames += s.from_frames;
        total.from_copies += s.from_copies;
        total.by_eviction += s.by_eviction;
    }
    // The paths where the writer got there first were taken at least once.
    assert!(total.from_copies + total.by_eviction > 0, "{total:?}");
}

#[test]
fn repeated_checkpoints_reuse_space() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.bdb");
    let pool = BufferPool::with_frames(256);
    let file = TableFile::create(&pool, &OsFileSystem, &path).unwrap();
    let tree = file.create_tree(1).unwrap();
    let mut sizes = Vec::new();
    for round in 0..30u32 {
        for i in 0..2000u32 {
            tree.put(format!("{i:05}").as_bytes(), &[round as u8; 300])
                .unwrap();
        }
        file.checkpoint(|| round as u64).unwrap();
        sizes.push(file.size_bytes());
    }
    // ~2000 * 320 bytes = 40 leaves; the file holds the checkpoint, its predecessor
    // while it is written, and growth slack: it must not grow with the rounds.
    let last = *sizes.last().unwrap();
    assert!(last <= sizes[3] * 2, "{sizes:?}");
    assert!(last < 4 * 1024 * 1024, "{sizes:?}");
    drop(tree);
    drop(file);
    let file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
    let tree = file.tree(1).unwrap();
    assert_eq!(tree.get(b"01234").unwrap().unwrap(), vec![29u8; 300]);
    // Deleting everything and checkpointing twice gives the space back.
    for i in 0..2000u32 {
        tree.delete(format!("{i:05}").as_bytes()).unwrap();
    }
    // (the second checkpoint frees the first one's predecessor; pages that lived in
    // the tail were moved down by `relocate_tail`, so the third can truncate.)
    for lsn in 100..103 {
        file.checkpoint(|| lsn).unwrap();
    }
    assert!(
        file.size_bytes() <= 24 * 16384,
        "{} vs {last}",
        file.size_bytes()
    );
}

#[test]
fn dropped_tree_stays_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.bdb");
    let pool = BufferPool::with_frames(64);
    let file = TableFile::create(&pool, &OsFileSystem, &path).unwrap();
    let a = file.create_tree(1).unwrap();
    let b = file.create_tree(2).unwrap();
    for i in 0..3000u32 {
        a.put(&i.to_be_bytes(), &[1; 100]).unwrap();
        b.put(&i.to_be_bytes(), &[2; 100]).unwrap();
    }
    file.checkpoint(|| 1).unwrap();
    let cut = file.begin_cut(|| 2).unwrap();
    // Dropped after the cut: the cut still has it.
    file.drop_tree(2).unwrap();
    file.flush_cut(cut).unwrap();
    drop((a, b));
    drop(file);
    let file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
    assert_eq!(file.tree_ids(), vec![1, 2]);
    assert_eq!(file.tree(2).unwrap().check().unwrap().entries, 3000);
    file.drop_tree(2).unwrap();
    file.checkpoint(|| 3).unwrap();
    drop(file);
    let file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
    assert_eq!(file.tree_ids(), vec![1]);
    assert_eq!(file.tree(1).unwrap().check().unwrap().entries, 3000);
    let (_, free_lpns) = file.pages().free_counts();
    assert!(free_lpns > 20, "{free_lpns}");
}

#[test]
fn only_one_cut_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let pool = BufferPool::with_frames(32);
    let file = TableFile::create(&pool, &OsFileSystem, &dir.path().join("o.bdb")).unwrap();
    let cut = file.begin_cut(|| 1).unwrap();
    assert!(file.begin_cut(|| 2).is_err());
    file.flush_cut(cut).unwrap();
    let cut = file.begin_cut(|| 3).unwrap();
    file.flush_cut(cut).unwrap();
    assert_eq!(file.checkpoint_lsn(), 3);
}
