//! A pool much smaller than the data: 64 frames (1 MiB) for 50,000 entries (~15 MiB).
//! Every operation faults pages in and evicts others (dirty ones written back to fresh
//! slots); readers running concurrently must never see a frame reused under them.

use basalt_storage::btree::TableFile;
use basalt_storage::io::os::OsFileSystem;
use basalt_storage::pool::BufferPool;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const N: u32 = 50_000;

fn key(i: u32) -> Vec<u8> {
    format!("k{:09}", i.wrapping_mul(2_654_435_761) % 1_000_000_007).into_bytes()
}

fn value(i: u32) -> Vec<u8> {
    let mut v = i.to_le_bytes().to_vec();
    v.resize(200 + (i % 200) as usize, (i % 251) as u8);
    v
}

#[test]
fn data_many_times_larger_than_pool() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.bdb");
    let pool = BufferPool::with_frames(64);
    let file = TableFile::create(&pool, &OsFileSystem, &path).unwrap();
    let tree = file.create_tree(1).unwrap();
    let mut order: Vec<u32> = (0..N).collect();
    order.shuffle(&mut rand::rngs::StdRng::seed_from_u64(1));

    // Readers look up keys that are already inserted (below `done`) meanwhile.
    let done = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2u64)
        .map(|s| {
            let (tree, done, stop, order) =
                (tree.clone(), done.clone(), stop.clone(), order.clone());
            std::thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(s);
                let mut hits = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let upto = done.load(Ordering::Acquire);
                    if upto == 0 {
                        std::thread::yield_now();
                        continue;
                    }
                    let i = order[rng.gen_range(0..upto) as usize];
                    assert_eq!(tree.get(&key(i)).unwrap(), Some(value(i)), "entry {i}");
                    hits += 1;
                }
                hits
            })
        })
        .collect();
    for (n, &i) in order.iter().enumerate() {
        tree.put(&key(i), &value(i)).unwrap();
        done.store(n as u32 + 1, Ordering::Release);
    }
    stop.store(true, Ordering::Relaxed);
    let hits: u64 = readers.into_iter().map(|h| h.join().unwrap()).sum();
    let stats = pool.stats();
    eprintln!(
        "reader hits {hits}, {stats:?}, file {} bytes",
        file.size_bytes()
    );
    assert!(stats.evictions > 1000 && stats.writes > 500, "{stats:?}");
    assert!(file.size_bytes() > 64 * 16384 * 10);

    for i in 0..N {
        assert_eq!(tree.get(&key(i)).unwrap(), Some(value(i)));
    }
    let mut all = Vec::new();
    tree.scan(
        Bound::Unbounded,
        Bound::Unbounded,
        true,
        usize::MAX,
        &mut all,
    )
    .unwrap();
    assert_eq!(all.len(), N as usize);
    assert!(all.windows(2).all(|w| w[0].0 > w[1].0));
    for i in (0..N).step_by(2) {
        assert!(tree.delete(&key(i)).unwrap());
    }
    file.checkpoint(|| 7).unwrap();
    drop(tree);
    drop(file);

    let file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
    let tree = file.tree(1).unwrap();
    for i in 0..N {
        let expect = (i % 2 == 1).then(|| value(i));
        assert_eq!(tree.get(&key(i)).unwrap(), expect);
    }
    let check = tree.check().unwrap();
    assert_eq!(check.entries, (N / 2) as u64);
    // Background flushing writes dirty frames without evicting them.
    for i in 0..2000 {
        tree.put(&key(i * 2), &value(i * 2)).unwrap();
    }
    let flushed = pool.flush_dirty(usize::MAX).unwrap();
    assert!(flushed > 0);
    assert_eq!(pool.stats().dirty_frames, 0);
}
