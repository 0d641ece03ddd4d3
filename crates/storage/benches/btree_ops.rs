//! B+tree point lookups and inserts through the buffer pool.
//!
//! `cargo bench -p basalt-storage --bench btree_ops`. Lookups run on a tree of
//! 200,000 entries (16-byte keys, 100-byte values, like sysbench's `sbtest`), with a
//! pool that holds it all (the hot path: optimistic descent, no latch) and with a pool
//! of 1/8 of the data (misses read from the file); with one thread and with two
//! threads (throughput is reported per lookup, so 2 threads on 2 free cores show about
//! half the time per lookup). Inserts go in ascending and in random key order.
//! The pool's memory overhead per frame is printed first. `BTREE_BENCH_POOL=in_memory`
//! (or `pool_1_8th`) runs only that lookup group; `BTREE_BENCH_CPU_TIME=1` measures
//! lookups in thread CPU time instead of wall time (for a machine busy with other work).

use basalt_storage::btree::{TableFile, Tree};
use basalt_storage::io::os::OsFileSystem;
use basalt_storage::pool::BufferPool;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ENTRIES: u64 = 200_000;

fn key(i: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_be_bytes());
    k[8..].copy_from_slice(&i.to_be_bytes());
    k
}

fn build(frames: usize) -> (tempfile::TempDir, Arc<BufferPool>, TableFile, Tree) {
    let dir = tempfile::tempdir().expect("temp dir");
    let pool = BufferPool::with_frames(frames);
    let file = TableFile::create(&pool, &OsFileSystem, &dir.path().join("b.bdb")).expect("create");
    let tree = file.create_tree(1).expect("tree");
    for i in 0..ENTRIES {
        tree.put(&key(i), &[7u8; 100]).expect("put");
    }
    file.checkpoint(|| 1).expect("checkpoint");
    (dir, pool, file, tree)
}

/// xorshift64*: a few instructions per key, so the bench measures the tree.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// CPU time the calling thread has used.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Runs `iters` lookups split over `threads` threads. Returns the wall time, or with
/// `BTREE_BENCH_CPU_TIME` set the threads' mean CPU time (what the run would take with
/// a core per thread: meaningful on a machine busy with other work).
fn lookups(tree: &Tree, threads: u64, iters: u64) -> Duration {
    let cpu_mode = std::env::var_os("BTREE_BENCH_CPU_TIME").is_some();
    let start = Instant::now();
    let cpu: Duration = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let tree = tree.clone();
                s.spawn(move || {
                    let t0 = thread_cpu_time();
                    let mut rng = Rng::new(t + 1);
                    for _ in 0..iters / threads {
                        let k = key(rng.next() % ENTRIES);
                        assert!(tree.get(&k).expect("get").is_some());
                    }
                    thread_cpu_time() - t0
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("lookup thread"))
            .sum()
    });
    if cpu_mode {
        cpu / threads as u32
    } else {
        start.elapsed()
    }
}

fn bench_lookups(c: &mut Criterion) {
    let overhead = BufferPool::with_frames(65536);
    eprintln!(
        "buffer pool overhead: {:.1} bytes per 16 KiB frame ({} frames, {} bytes)",
        overhead.overhead_bytes() as f64 / overhead.frames() as f64,
        overhead.frames(),
        overhead.overhead_bytes()
    );
    drop(overhead);
    let only = std::env::var("BTREE_BENCH_POOL").ok();
    for (name, frames) in [("in_memory", 8192), ("pool_1_8th", 256)] {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let (_dir, pool, file, tree) = build(frames);
        eprintln!(
            "{name}: {} leaves+inner pages, file {} bytes, pool {:?}",
            tree.check().map(|c| c.leaves + c.inner_nodes).unwrap_or(0),
            file.size_bytes(),
            pool.stats()
        );
        let mut g = c.benchmark_group(format!("btree_get_{name}"));
        g.throughput(Throughput::Elements(1));
        for threads in [1u64, 2] {
            g.bench_function(format!("{threads}_thread"), |b| {
                b.iter_custom(|iters| lookups(&tree, threads, iters.max(threads)))
            });
        }
        g.finish();
    }
}

fn bench_inserts(c: &mut Criterion) {
    let mut g = c.benchmark_group("btree_put");
    g.throughput(Throughput::Elements(1000));
    for random in [false, true] {
        let name = if random {
            "random_1000"
        } else {
            "ascending_1000"
        };
        g.bench_function(name, |b| {
            let dir = tempfile::tempdir().expect("temp dir");
            let pool = BufferPool::with_frames(16384);
            let file =
                TableFile::create(&pool, &OsFileSystem, &dir.path().join("i.bdb")).expect("create");
            let tree = file.create_tree(1).expect("tree");
            let mut next = 0u64;
            let mut rng = Rng::new(9);
            b.iter_batched(
                || {
                    (0..1000)
                        .map(|_| {
                            next += 1;
                            if random {
                                key(rng.next())
                            } else {
                                let mut k = [0u8; 16];
                                k[8..].copy_from_slice(&next.to_be_bytes());
                                k
                            }
                        })
                        .collect::<Vec<_>>()
                },
                |keys| {
                    for k in keys {
                        tree.put(&k, &[1u8; 100]).expect("put");
                    }
                },
                BatchSize::SmallInput,
            );
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_lookups, bench_inserts
}
criterion_main!(benches);
