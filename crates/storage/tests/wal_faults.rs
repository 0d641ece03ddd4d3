//! WAL under I/O faults and concurrency: failed writes and fsyncs poison the log,
//! ENOSPC is recoverable, group commit batches.

use basalt_storage::io::sim::SimFileSystem;
use basalt_storage::io::FileSystem;
use basalt_storage::wal::{Lsn, Wal, WalConfig};
use basalt_storage::StorageError;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Duration;

const DIR: &str = "/data/log";

fn open(fs: &SimFileSystem, config: WalConfig) -> Wal {
    let fs: Arc<dyn FileSystem> = Arc::new(fs.clone());
    Wal::open(fs, Path::new(DIR), config).expect("open log").0
}

fn small() -> WalConfig {
    WalConfig {
        segment_size: 64 * 1024,
        ..WalConfig::default()
    }
}

fn read_all(wal: &Wal) -> Vec<Vec<u8>> {
    wal.read_from(0).map(|r| r.expect("read").payload).collect()
}

fn commit(wal: &Wal, p: &[u8]) -> Result<Lsn, StorageError> {
    let lsn = wal.append(1, p)?;
    wal.commit_durable(lsn)?;
    Ok(lsn)
}

fn hook_counter(wal: &Wal) -> Arc<AtomicUsize> {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    wal.set_fatal_hook(Arc::new(move |_msg: &str| {
        c.fetch_add(1, Ordering::SeqCst);
    }));
    calls
}

#[test]
fn a_failed_fsync_poisons_the_log() {
    let fs = SimFileSystem::new(1);
    let wal = open(&fs, small());
    let calls = hook_counter(&wal);
    commit(&wal, b"before").unwrap();
    fs.fail_nth_sync(1);
    let err = commit(&wal, b"lost").unwrap_err();
    assert!(matches!(err, StorageError::Halted(_)), "{err:?}");
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the fatal hook ran once");
    assert!(matches!(
        commit(&wal, b"after"),
        Err(StorageError::Halted(_))
    ));
    assert!(matches!(wal.wait_durable(0), Err(StorageError::Halted(_))));
    assert!(wal.shutdown().is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    drop(wal);
    fs.crash();
    let wal = open(&fs, small());
    assert_eq!(
        read_all(&wal),
        vec![b"before".to_vec()],
        "the failed commit was not acknowledged and is gone"
    );
}

#[test]
fn a_failed_write_poisons_the_log() {
    let fs = SimFileSystem::new(2);
    let wal = open(&fs, small());
    let calls = hook_counter(&wal);
    commit(&wal, b"before").unwrap();
    fs.fail_nth_write(1);
    assert!(matches!(
        commit(&wal, b"lost"),
        Err(StorageError::Halted(_))
    ));
    assert!(matches!(wal.append(1, b"x"), Err(StorageError::Halted(_))));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    drop(wal);
    fs.crash();
    assert_eq!(read_all(&open(&fs, small())), vec![b"before".to_vec()]);
}

#[test]
fn followers_of_a_failed_group_are_not_acknowledged() {
    let fs = SimFileSystem::new(3);
    fs.set_sync_latency(Duration::from_millis(5));
    let wal = Arc::new(open(&fs, small()));
    commit(&wal, b"warm-up").unwrap();
    fs.fail_nth_sync(2);
    let acked = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (wal, acked) = (wal.clone(), acked.clone());
            std::thread::spawn(move || {
                for i in 0..20 {
                    let p = format!("{t}-{i}").into_bytes();
                    match commit(&wal, &p) {
                        Ok(_) => acked.lock().push(p),
                        Err(e) => {
                            assert!(matches!(e, StorageError::Halted(_)), "{e:?}");
                            return;
                        }
                    }
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    drop(wal);
    fs.crash();
    let got = read_all(&open(&fs, small()));
    for p in acked.lock().iter() {
        assert!(
            got.contains(p),
            "acknowledged commit {:?} lost",
            String::from_utf8_lossy(p)
        );
    }
}

#[test]
fn disk_full_then_service_resumes() {
    let fs = SimFileSystem::new(4);
    let config = WalConfig {
        segments_ahead: 0,
        ..small()
    };
    let wal = open(&fs, config.clone());
    // Room for the control file and three segments.
    fs.set_space_limit(Some(fs.used_bytes() + 2 * 64 * 1024 + 100));
    let record = vec![7u8; 1000];
    let mut durable = Vec::new();
    let err = loop {
        match commit(&wal, &record) {
            Ok(_) => durable.push(record.clone()),
            Err(e) => break e,
        }
    };
    assert!(matches!(err, StorageError::DiskFull(_)), "{err:?}");
    assert!(
        durable.len() > 150,
        "three segments hold ~180 records, got {}",
        durable.len()
    );
    // The log keeps working for what fits, and fails cleanly otherwise.
    assert!(matches!(
        wal.append(1, &record),
        Err(StorageError::DiskFull(_))
    ));
    wal.flush().unwrap();

    fs.set_space_limit(None);
    for _ in 0..100 {
        commit(&wal, &record).unwrap();
        durable.push(record.clone());
    }
    drop(wal);
    fs.crash();
    assert_eq!(read_all(&open(&fs, config)), durable);
}

#[test]
fn group_commit_batches_with_one_fsync_per_batch() {
    let fs = SimFileSystem::new(5);
    fs.set_sync_latency(Duration::from_millis(2));
    let config = WalConfig {
        segment_size: 4 << 20,
        ..WalConfig::default()
    };
    let wal = Arc::new(open(&fs, config));
    let before = wal.stats();
    let barrier = Arc::new(Barrier::new(16));
    let threads: Vec<_> = (0..16)
        .map(|t| {
            let (wal, barrier) = (wal.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                for i in 0..50 {
                    commit(&wal, format!("{t}-{i}").as_bytes()).unwrap();
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let s = wal.stats();
    let commits = s.commits - before.commits;
    let batches = s.batches - before.batches;
    let fsyncs = s.flush_fsyncs - before.flush_fsyncs;
    assert_eq!(commits, 800);
    assert_eq!(fsyncs, batches, "exactly one fsync per batch");
    assert!(
        batches * 4 < commits,
        "{batches} batches for {commits} commits"
    );
    assert_eq!(read_all(&wal).len(), 800);
}

#[test]
fn dedicated_writer_thread_also_batches() {
    let fs = SimFileSystem::new(6);
    fs.set_sync_latency(Duration::from_millis(2));
    let config = WalConfig {
        segment_size: 4 << 20,
        writer_thread: true,
        ..WalConfig::default()
    };
    let wal = Arc::new(open(&fs, config.clone()));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let wal = wal.clone();
            std::thread::spawn(move || {
                for i in 0..40 {
                    commit(&wal, format!("{t}-{i}").as_bytes()).unwrap();
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let s = wal.stats();
    assert!(s.batches * 3 < s.commits, "{s:?}");
    wal.shutdown().unwrap();
    drop(wal);
    fs.crash();
    assert_eq!(read_all(&open(&fs, config)).len(), 320);
}

#[test]
fn appends_after_shutdown_fail() {
    let fs = SimFileSystem::new(7);
    let wal = open(&fs, small());
    commit(&wal, b"a").unwrap();
    wal.shutdown().unwrap();
    assert!(matches!(wal.append(1, b"b"), Err(StorageError::Halted(_))));
}
