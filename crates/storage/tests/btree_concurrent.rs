//! Concurrency: writer threads on disjoint and shared keys, readers scanning and
//! checking invariants, a checkpointer cutting and flushing meanwhile, all over a pool
//! much smaller than the data. At the end the tree must match every writer's model,
//! shared counters must show no lost update, and a reopen must give the final state.

use basalt_storage::btree::{TableFile, Tree};
use basalt_storage::io::os::OsFileSystem;
use basalt_storage::pool::BufferPool;
use basalt_storage::store::Modify;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

const WRITERS: u32 = 4;
const OPS: u32 = 4000;
const COUNTERS: u32 = 8;

fn key(thread: u32, i: u32) -> Vec<u8> {
    format!("w{thread}/{i:06}").into_bytes()
}

/// A value that names its key, so readers can check what they see.
fn value(k: &[u8], len: usize) -> Vec<u8> {
    let mut v = k.to_vec();
    v.push(b'=');
    v.resize(k.len() + 1 + len, b'x');
    v
}

fn check_value(k: &[u8], v: &[u8]) {
    assert!(
        v.len() > k.len() && &v[..k.len()] == k && v[k.len()] == b'=',
        "value of {:?} does not name it",
        String::from_utf8_lossy(k)
    );
}

fn writer(tree: Tree, t: u32) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(t as u64);
    let mut model = BTreeMap::new();
    for _ in 0..OPS {
        let k = key(t, rng.gen_range(0..1500));
        match rng.gen_range(0..10) {
            0..=5 => {
                let len = if rng.gen_range(0..50) == 0 {
                    20_000
                } else {
                    rng.gen_range(0..600)
                };
                let v = value(&k, len);
                tree.put(&k, &v).unwrap();
                model.insert(k, v);
            }
            6..=8 => {
                assert_eq!(tree.delete(&k).unwrap(), model.remove(&k).is_some());
            }
            _ => {
                let c = format!("counter{}", rng.gen_range(0..COUNTERS)).into_bytes();
                tree.modify(
                    &c,
                    |old| {
                        let n = old.map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap()));
                        Modify::Put((n + 1).to_le_bytes().to_vec())
                    },
                    |_| Ok(()),
                )
                .unwrap();
            }
        }
    }
    model
}

fn reader(tree: Tree, stop: Arc<AtomicBool>, seed: u64) -> u64 {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut scans = 0;
    while !stop.load(Ordering::Relaxed) {
        let t = rng.gen_range(0..WRITERS);
        let lo = key(t, rng.gen_range(0..1500));
        let reverse = rng.gen_bool(0.5);
        let mut out = Vec::new();
        let (l, u) = if reverse {
            (Bound::Unbounded, Bound::Included(&lo[..]))
        } else {
            (Bound::Included(&lo[..]), Bound::Unbounded)
        };
        tree.scan(l, u, reverse, 200, &mut out).unwrap();
        for w in out.windows(2) {
            assert!(if reverse {
                w[0].0 > w[1].0
            } else {
                w[0].0 < w[1].0
            });
        }
        for (k, v) in &out {
            if !k.starts_with(b"counter") {
                check_value(k, v);
            }
        }
        if let Some(v) = tree.get(&lo).unwrap() {
            check_value(&lo, &v);
        }
        scans += 1;
    }
    scans
}

#[test]
fn writers_readers_and_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.bdb");
    let pool = BufferPool::with_frames(96);
    let file = TableFile::create(&pool, &OsFileSystem, &path).unwrap();
    let tree = file.create_tree(1).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let checkpoints = Arc::new(AtomicU64::new(0));
    let readers: Vec<_> = (0..2)
        .map(|i| {
            let (tree, stop) = (tree.clone(), stop.clone());
            thread::spawn(move || reader(tree, stop, 100 + i))
        })
        .collect();
    let cp = {
        let (file, stop, n) = (file.clone(), stop.clone(), checkpoints.clone());
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let cut = file.begin_cut(|| n.load(Ordering::Relaxed)).unwrap();
                thread::sleep(std::time::Duration::from_millis(5));
                file.flush_cut(cut).unwrap();
                n.fetch_add(1, Ordering::Relaxed);
                thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let writers: Vec<_> = (0..WRITERS)
        .map(|t| {
            let tree = tree.clone();
            thread::spawn(move || writer(tree, t))
        })
        .collect();
    let models: Vec<_> = writers.into_iter().map(|h| h.join().unwrap()).collect();
    stop.store(true, Ordering::Relaxed);
    let scans: u64 = readers.into_iter().map(|h| h.join().unwrap()).sum();
    cp.join().unwrap();
    assert!(scans > 0 && checkpoints.load(Ordering::Relaxed) > 0);

    let mut expected: BTreeMap<Vec<u8>, Vec<u8>> = models.into_iter().flatten().collect();
    let mut total = 0;
    for c in 0..COUNTERS {
        let k = format!("counter{c}").into_bytes();
        if let Some(v) = tree.get(&k).unwrap() {
            total += u64::from_le_bytes(v.as_slice().try_into().unwrap());
            expected.insert(k, v);
        }
    }
    let mut all = Vec::new();
    tree.scan(
        Bound::Unbounded,
        Bound::Unbounded,
        false,
        usize::MAX,
        &mut all,
    )
    .unwrap();
    assert_eq!(all, expected.clone().into_iter().collect::<Vec<_>>());
    assert_eq!(tree.check().unwrap().entries, expected.len() as u64);
    assert!(total > 0);
    eprintln!(
        "scans {scans}, checkpoints {}, counter increments {total}, pool {:?}",
        checkpoints.load(Ordering::Relaxed),
        pool.stats()
    );

    file.checkpoint(|| 999).unwrap();
    drop(tree);
    drop(file);
    let file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
    let tree = file.tree(1).unwrap();
    let mut all = Vec::new();
    tree.scan(
        Bound::Unbounded,
        Bound::Unbounded,
        false,
        usize::MAX,
        &mut all,
    )
    .unwrap();
    assert_eq!(all, expected.into_iter().collect::<Vec<_>>());
}

/// Every increment of shared counters survives: `modify` is atomic per key.
#[test]
fn no_lost_updates() {
    let dir = tempfile::tempdir().unwrap();
    let pool = BufferPool::with_frames(64);
    let file = TableFile::create(&pool, &OsFileSystem, &dir.path().join("n.bdb")).unwrap();
    let tree = file.create_tree(1).unwrap();
    // Padding entries so the counters live in different leaves that split meanwhile.
    let handles: Vec<_> = (0..4u32)
        .map(|t| {
            let tree = tree.clone();
            thread::spawn(move || {
                for i in 0..2000u32 {
                    let c = format!("c{}", i % 4).into_bytes();
                    tree.modify(
                        &c,
                        |old| {
                            let n = old.map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap()));
                            Modify::Put((n + 1).to_le_bytes().to_vec())
                        },
                        |_| Ok(()),
                    )
                    .unwrap();
                    tree.put(format!("c{}-pad{t}-{i}", i % 4).as_bytes(), &[0; 300])
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let total: u64 = (0..4)
        .map(|c| {
            let v = tree.get(format!("c{c}").as_bytes()).unwrap().unwrap();
            u64::from_le_bytes(v.as_slice().try_into().unwrap())
        })
        .sum();
    assert_eq!(total, 8000);
    assert_eq!(tree.check().unwrap().entries, 4 + 8000);
}

/// Scans never skip or repeat a key that exists for the whole scan, while other
/// threads churn the keys around it (splitting and merging the same leaves).
#[test]
fn scans_see_every_stable_key_during_churn() {
    let dir = tempfile::tempdir().unwrap();
    let pool = BufferPool::with_frames(128);
    let file = TableFile::create(&pool, &OsFileSystem, &dir.path().join("s.bdb")).unwrap();
    let tree = file.create_tree(1).unwrap();
    let stable: Vec<Vec<u8>> = (0..200u32)
        .map(|i| format!("k{:05}", i * 50).into_bytes())
        .collect();
    for k in &stable {
        tree.put(k, &value(k, 10)).unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let churners: Vec<_> = (0..3u64)
        .map(|t| {
            let (tree, stop) = (tree.clone(), stop.clone());
            thread::spawn(move || {
                let mut rng = rand::rngs::StdRng::seed_from_u64(t);
                while !stop.load(Ordering::Relaxed) {
                    // Churn keys between the stable ones, in bursts that fill and
                    // empty whole leaves.
                    let base = rng.gen_range(0..200u32) * 50;
                    let keys: Vec<Vec<u8>> = (1..50)
                        .map(|j| format!("k{:05}", base + j).into_bytes())
                        .collect();
                    for k in &keys {
                        tree.put(k, &value(k, rng.gen_range(100..900))).unwrap();
                    }
                    for k in &keys {
                        tree.delete(k).unwrap();
                    }
                }
            })
        })
        .collect();
    let mut scans = 0;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while std::time::Instant::now() < deadline {
        let reverse = scans % 2 == 1;
        let mut out = Vec::new();
        tree.scan(
            Bound::Unbounded,
            Bound::Unbounded,
            reverse,
            usize::MAX,
            &mut out,
        )
        .unwrap();
        for w in out.windows(2) {
            assert!(if reverse {
                w[0].0 > w[1].0
            } else {
                w[0].0 < w[1].0
            });
        }
        let seen: Vec<&Vec<u8>> = out
            .iter()
            .map(|(k, _)| k)
            .filter(|k| stable.contains(k))
            .collect();
        assert_eq!(
            seen.len(),
            stable.len(),
            "scan {scans} (reverse {reverse}) missed stable keys"
        );
        for (k, v) in &out {
            check_value(k, v);
        }
        scans += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for h in churners {
        h.join().unwrap();
    }
    let c = tree.check().unwrap();
    eprintln!("{scans} full scans during churn; final {c:?}");
    assert!(scans > 5);
    assert_eq!(c.entries, stable.len() as u64);
}
