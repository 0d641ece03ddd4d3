//! Durable commit throughput of the WAL on the real disk, and the cost of an fsync
//! after overwriting blocks versus after growing a file.
//!
//! `cargo bench -p basalt-storage --bench wal_commit` (harness = false). The files go
//! to a temporary directory under `$WAL_BENCH_DIR` (default `/tmp`); the output
//! names the filesystem. `WAL_BENCH_SECS` sets seconds per run (default 3).

use basalt_storage::io::os::OsFileSystem;
use basalt_storage::io::{AlignedBuf, File, FileSystem, OpenOptions};
use basalt_storage::wal::{Wal, WalConfig};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BLOCK: usize = 4096;

fn filesystem_of(path: &Path) -> String {
    let out = std::process::Command::new("df")
        .arg("-T")
        .arg(path)
        .output();
    out.ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| {
            s.lines()
                .nth(1)
                .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Mean time of `write 4 KiB at offset i * 4 KiB` + `fdatasync`, over `n` rounds.
fn fsync_cost(file: &Arc<dyn File>, n: usize) -> Duration {
    let mut block = AlignedBuf::zeroed(BLOCK);
    block.fill(0x5A);
    let start = Instant::now();
    for i in 0..n {
        file.write_at(&block, (i * BLOCK) as u64).expect("write");
        file.sync_data().expect("fdatasync");
    }
    start.elapsed() / n as u32
}

fn open_file(fs: &OsFileSystem, path: &Path) -> Arc<dyn File> {
    fs.open(
        path,
        OpenOptions {
            create: true,
            direct: true,
        },
    )
    .expect("open")
}

fn fsync_costs(dir: &Path) {
    let fs = OsFileSystem;
    let n = 300;
    let extend = open_file(&fs, &dir.join("extend"));
    let t_extend = fsync_cost(&extend, n);

    let falloc = open_file(&fs, &dir.join("fallocated"));
    falloc.set_len((n * BLOCK) as u64).expect("fallocate");
    falloc.sync_data().expect("sync");
    let t_falloc = fsync_cost(&falloc, n);

    let zeroed = open_file(&fs, &dir.join("zero-filled"));
    zeroed.set_len((n * BLOCK) as u64).expect("fallocate");
    let zeros = AlignedBuf::zeroed(n * BLOCK);
    zeroed.write_at(&zeros, 0).expect("zero fill");
    zeroed.sync_data().expect("sync");
    let t_over = fsync_cost(&zeroed, n);
    println!(
        "fsync after a 4 KiB write (O_DIRECT: {}), mean of {n}:\n  \
         extending the file      {:>8.3} ms\n  \
         into fallocated blocks  {:>8.3} ms  (unwritten extents: converting them is a metadata change)\n  \
         overwriting written     {:>8.3} ms",
        zeroed.is_direct(),
        t_extend.as_secs_f64() * 1e3,
        t_falloc.as_secs_f64() * 1e3,
        t_over.as_secs_f64() * 1e3,
    );
}

struct RunResult {
    commits: u64,
    secs: f64,
    fsyncs: u64,
    batches: u64,
}

fn run(dir: &Path, threads: usize, secs: f64, writer_thread: bool) -> RunResult {
    let fs: Arc<dyn FileSystem> = Arc::new(OsFileSystem);
    let config = WalConfig {
        writer_thread,
        ..WalConfig::default()
    };
    let (wal, _) = Wal::open(fs, dir, config).expect("open log");
    let wal = Arc::new(wal);
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let before = wal.stats();
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (wal, stop, done) = (wal.clone(), stop.clone(), done.clone());
            std::thread::spawn(move || {
                let payload = vec![t as u8; 200];
                while !stop.load(Ordering::Relaxed) {
                    let lsn = wal.append(1, &payload).expect("append");
                    wal.commit_durable(lsn).expect("commit");
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs_f64(secs));
    stop.store(true, Ordering::Relaxed);
    handles
        .into_iter()
        .for_each(|h| h.join().expect("committer"));
    let elapsed = start.elapsed().as_secs_f64();
    let after = wal.stats();
    let cp = wal.end_lsn();
    wal.checkpoint_done(cp).expect("checkpoint");
    wal.shutdown().expect("shutdown");
    RunResult {
        commits: done.load(Ordering::Relaxed),
        secs: elapsed,
        fsyncs: after.flush_fsyncs - before.flush_fsyncs,
        batches: after.batches - before.batches,
    }
}

fn main() {
    let base = std::env::var("WAL_BENCH_DIR").unwrap_or_else(|_| "/tmp".into());
    let secs: f64 = std::env::var("WAL_BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3.0);
    let tmp = tempfile::tempdir_in(&base).expect("tempdir");
    println!(
        "directory {} on {}",
        tmp.path().display(),
        filesystem_of(tmp.path())
    );
    fsync_costs(tmp.path());

    let log = tmp.path().join("log");
    // Warm-up: creates (and zero-fills) the first segments.
    run(&log, 4, 0.5, false);
    println!("durable commits (flush_log_at_trx_commit = 1, 200-byte records, {secs} s per run):");
    for writer_thread in [false, true] {
        let mode = if writer_thread {
            "writer thread  "
        } else {
            "leader/follower"
        };
        for threads in [1, 16, 64] {
            let r = run(&log, threads, secs, writer_thread);
            println!(
                "  {mode} {threads:>3} threads: {:>9.0} commits/s  {:.3} fsyncs/commit  {:.1} commits/batch",
                r.commits as f64 / r.secs,
                r.fsyncs as f64 / r.commits.max(1) as f64,
                r.commits as f64 / r.batches.max(1) as f64,
            );
        }
    }
}
