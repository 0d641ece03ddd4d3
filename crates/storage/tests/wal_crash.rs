//! Crash at every write/fsync point of a workload, then check recovery: it returns
//! exactly a prefix of the appended records (in LSN order), and that prefix holds
//! every record whose commit was acknowledged.

use basalt_storage::io::sim::SimFileSystem;
use basalt_storage::io::FileSystem;
use basalt_storage::wal::{LogEnd, Lsn, Wal, WalConfig};
use basalt_storage::StorageError;
use parking_lot::Mutex;
use std::path::Path;
use std::sync::Arc;

const DIR: &str = "/data/log";

fn config() -> WalConfig {
    // Small segments, so the workload crosses segments and prepares new ones.
    WalConfig {
        segment_size: 16 * 1024,
        ..WalConfig::default()
    }
}

fn open(fs: &SimFileSystem) -> Wal {
    let fs: Arc<dyn FileSystem> = Arc::new(fs.clone());
    Wal::open(fs, Path::new(DIR), config()).expect("open log").0
}

/// Opens the log after a crash that may have torn unsynced writes. Sectors of an
/// unsynced write can survive out of order, leaving valid frames after a damaged one;
/// `open` then refuses (valid records after damage may be acknowledged commits, and
/// the log cannot tell), changing nothing, until the operator accepts the loss. Such a
/// refusal is never *proven* corruption, and accepting it loses nothing acknowledged
/// (`check_recovery` checks that).
fn open_after_torn_crash(fs: &SimFileSystem) -> Wal {
    let fs: Arc<dyn FileSystem> = Arc::new(fs.clone());
    match Wal::open(fs.clone(), Path::new(DIR), config()) {
        Ok((wal, rec)) => {
            assert!(!matches!(rec.end, LogEnd::Corrupt { .. }), "{rec:?}");
            wal
        }
        Err(StorageError::Corrupt { detail, .. }) => {
            assert!(detail.contains("--discard-damaged-log-tail"), "{detail}");
            let accept = WalConfig {
                allow_corrupt_tail: true,
                ..config()
            };
            let (wal, rec) = Wal::open(fs, Path::new(DIR), accept).expect("open accepting");
            assert!(matches!(rec.end, LogEnd::TornTail { .. }), "{rec:?}");
            wal
        }
        Err(e) => panic!("open log: {e}"),
    }
}

#[derive(Default)]
struct Outcome {
    /// (end LSN, payload) of every successful append.
    appended: Vec<(Lsn, Vec<u8>)>,
    acked: Vec<Vec<u8>>,
    /// LSNs passed to `checkpoint_done` (a failed call may still have taken effect).
    checkpoints: Vec<Lsn>,
}

fn payload(tag: usize, t: usize, i: usize) -> Vec<u8> {
    let mut p = format!("t{t}-r{i}-{tag}|").into_bytes();
    p.resize(p.len() + (t * 131 + i * 977) % 1500, b'a' + (i % 26) as u8);
    p
}

/// `threads` committers, each appending two records per transaction (a change and
/// a commit) until `per_thread` commits are done or the log fails.
fn workload(wal: &Arc<Wal>, tag: usize, threads: usize, per_thread: usize) -> Outcome {
    let out = Arc::new(Mutex::new(Outcome::default()));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (wal, out) = (wal.clone(), out.clone());
            std::thread::spawn(move || {
                for i in 0..per_thread {
                    for part in 0..2 {
                        let p = payload(tag, t, 2 * i + part);
                        let Ok(lsn) = wal.append(1 + part as u8, &p) else {
                            return;
                        };
                        out.lock().appended.push((lsn, p.clone()));
                        if part == 1 {
                            if wal.commit_durable(lsn).is_err() {
                                return;
                            }
                            out.lock().acked.push(p);
                        }
                    }
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().expect("worker"));
    Arc::try_unwrap(out)
        .ok()
        .expect("workers done")
        .into_inner()
}

fn check_recovery(fs: &SimFileSystem, mut out: Outcome, torn: bool, case: &str) {
    let wal = if torn {
        open_after_torn_crash(fs)
    } else {
        open(fs)
    };
    let cp = wal.checkpoint_lsn();
    assert!(
        cp == 0 || out.checkpoints.contains(&cp),
        "{case}: checkpoint {cp} never requested"
    );
    let got: Vec<Vec<u8>> = wal
        .read_from(cp)
        .map(|r| r.expect("read").payload)
        .collect();
    // Records before the checkpoint are not expected back.
    out.appended.retain(|(lsn, _)| *lsn > cp);
    let kept: Vec<Vec<u8>> = out.appended.iter().map(|(_, p)| p.clone()).collect();
    out.acked.retain(|p| kept.contains(p));
    out.appended.sort_by_key(|(lsn, _)| *lsn);
    let prefix: Vec<&Vec<u8>> = out
        .appended
        .iter()
        .take(got.len())
        .map(|(_, p)| p)
        .collect();
    assert_eq!(
        got.len(),
        prefix.len(),
        "{case}: recovered more than was appended"
    );
    assert!(
        got.iter().zip(&prefix).all(|(a, b)| a == *b),
        "{case}: not a prefix"
    );
    for p in &out.acked {
        assert!(
            got.contains(p),
            "{case}: acknowledged {:?} lost",
            String::from_utf8_lossy(&p[..12])
        );
    }
    // The recovered log accepts new commits and keeps them across another crash.
    let lsn = wal
        .append(9, b"after recovery")
        .expect("append after recovery");
    wal.commit_durable(lsn).expect("commit after recovery");
    drop(wal);
    fs.crash();
    let wal = open(fs);
    let again: Vec<Vec<u8>> = wal
        .read_from(wal.checkpoint_lsn())
        .map(|r| r.expect("read").payload)
        .collect();
    assert_eq!(again.len(), got.len() + 1, "{case}: second recovery");
    assert_eq!(
        again.last().map(Vec::as_slice),
        Some(&b"after recovery"[..]),
        "{case}"
    );
}

/// Mutating I/O operations a full run of the workload performs after open.
fn ops_of_full_run(threads: usize, per_thread: usize) -> u64 {
    let fs = SimFileSystem::new(0);
    let wal = Arc::new(open(&fs));
    let before = fs.counters().ops;
    let out = workload(&wal, 0, threads, per_thread);
    assert_eq!(out.acked.len(), threads * per_thread);
    fs.counters().ops - before
}

fn crash_everywhere(threads: usize, per_thread: usize) {
    let total = ops_of_full_run(threads, per_thread);
    assert!(total > 20, "workload too small: {total} ops");
    for n in 0..=total + 2 {
        let fs = SimFileSystem::new(n);
        let wal = Arc::new(open(&fs));
        fs.halt_after_ops(Some(n));
        let out = workload(&wal, 0, threads, per_thread);
        drop(wal);
        let torn = n % 2 == 1;
        if torn {
            fs.crash_torn();
        } else {
            fs.crash();
        }
        check_recovery(
            &fs,
            out,
            torn,
            &format!("{threads} threads, crash after {n} of {total} ops"),
        );
    }
}

#[test]
fn crash_at_every_io_point_single_committer() {
    crash_everywhere(1, 40);
}

#[test]
fn crash_at_every_io_point_concurrent_committers() {
    crash_everywhere(4, 12);
}

#[test]
fn crash_at_every_io_point_with_checkpoints_and_recycling() {
    let run = |halt: Option<u64>, seed: u64| -> (SimFileSystem, Outcome, u64) {
        let fs = SimFileSystem::new(seed);
        let wal = Arc::new(open(&fs));
        let before = fs.counters().ops;
        fs.halt_after_ops(halt);
        let mut all = Outcome::default();
        for round in 0..6 {
            let out = workload(&wal, round, 2, 6);
            let failed = out.acked.len() < 12;
            all.appended.extend(out.appended);
            all.acked.extend(out.acked);
            if failed {
                break;
            }
            let cp = wal.durable_lsn();
            all.checkpoints.push(cp);
            if wal.checkpoint_done(cp).is_err() {
                break;
            }
        }
        let ops = fs.counters().ops - before;
        drop(wal);
        (fs, all, ops)
    };
    let (_, _, total) = run(None, 0);
    for n in 0..=total {
        let (fs, out, _) = run(Some(n), n);
        let torn = n % 2 == 1;
        if torn {
            fs.crash_torn();
        } else {
            fs.crash();
        }
        check_recovery(
            &fs,
            out,
            torn,
            &format!("checkpointing, crash after {n} of {total} ops"),
        );
    }
}

#[test]
fn torn_crashes_never_report_proven_corruption() {
    for seed in 0..30 {
        let fs = SimFileSystem::new(seed);
        let wal = Arc::new(open(&fs));
        wal.set_flush_policy(2).expect("policy");
        let out = workload(&wal, 0, 3, 10);
        drop(wal);
        fs.crash_torn();
        check_recovery(
            &fs,
            Outcome {
                acked: Vec::new(),
                ..out
            },
            true,
            &format!("seed {seed}"),
        );
    }
}
