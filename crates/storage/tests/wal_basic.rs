//! WAL behaviour on the simulated file system: round trips across segments and
//! recycling, runs after restarts, torn tails, corruption, flush policies.

use basalt_storage::io::sim::SimFileSystem;
use basalt_storage::io::FileSystem;
use basalt_storage::wal::{LogEnd, Lsn, Recovery, StopReason, Wal, WalConfig};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const DIR: &str = "/data/log";

fn cfg(segment_size: u64) -> WalConfig {
    WalConfig {
        segment_size,
        ..WalConfig::default()
    }
}

fn open(fs: &SimFileSystem, config: WalConfig) -> (Wal, Recovery) {
    let fs: Arc<dyn FileSystem> = Arc::new(fs.clone());
    Wal::open(fs, Path::new(DIR), config).expect("open log")
}

/// Waits (bounded) for the background flusher to make `lsn` durable.
fn await_durable(wal: &Wal, lsn: Lsn) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while wal.durable_lsn() < lsn {
        assert!(
            std::time::Instant::now() < deadline,
            "the background thread never synced"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn payload(i: usize) -> Vec<u8> {
    let len = (i * 7919) % 3000;
    let mut p = format!("record-{i}:").into_bytes();
    p.extend((0..len).map(|j| (i + j) as u8));
    p
}

fn read_all(wal: &Wal, from: Lsn) -> Vec<Vec<u8>> {
    wal.read_from(from)
        .map(|r| r.expect("read").payload)
        .collect()
}

#[test]
fn records_round_trip_across_segments() {
    let fs = SimFileSystem::new(1);
    let (wal, rec) = open(&fs, cfg(16 * 1024));
    assert!(rec.created && rec.records == 0 && rec.end == LogEnd::Clean);
    let written: Vec<Vec<u8>> = (0..200).map(payload).collect();
    for (i, p) in written.iter().enumerate() {
        let lsn = wal.append(1 + (i % 3) as u8, p).unwrap();
        if i % 10 == 9 {
            wal.commit_durable(lsn).unwrap();
        }
    }
    wal.flush().unwrap();
    let back: Vec<_> = wal
        .read_from(rec.checkpoint_lsn)
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(back.len(), 200);
    for (i, r) in back.iter().enumerate() {
        assert_eq!(r.payload, written[i]);
        assert_eq!(r.kind, 1 + (i % 3) as u8);
    }
    assert!(
        wal.stats().segments_in_use > 10,
        "200 records of ~1.5 KiB span many 12 KiB segments"
    );
    wal.shutdown().unwrap();

    let (wal, rec) = open(&fs, cfg(16 * 1024));
    assert_eq!(rec.records, 200);
    assert_eq!(rec.end, LogEnd::Clean);
    assert_eq!(read_all(&wal, rec.checkpoint_lsn), written);
}

#[test]
fn segments_are_recycled_after_checkpoints() {
    let fs = SimFileSystem::new(2);
    let (wal, _) = open(&fs, cfg(16 * 1024));
    let mut checkpoint = 0;
    for round in 0..20 {
        let mut last = 0;
        for i in 0..20 {
            last = wal.append(1, &payload(round * 100 + i)).unwrap();
        }
        wal.commit_durable(last).unwrap();
        checkpoint = wal.end_lsn();
        wal.checkpoint_done(checkpoint).unwrap();
    }
    let files = fs.list_dir(Path::new(DIR)).unwrap().len();
    assert!(
        files <= 8,
        "recycling keeps the slot count small, got {files}"
    );
    assert!(wal.bytes_since_checkpoint() == 0);
    let tail: Vec<Vec<u8>> = (0..5).map(|i| payload(5000 + i)).collect();
    for p in &tail {
        wal.append(2, p).unwrap();
    }
    wal.shutdown().unwrap();
    let (wal, rec) = open(&fs, cfg(16 * 1024));
    assert_eq!(rec.checkpoint_lsn, checkpoint);
    assert_eq!(
        rec.records, 5,
        "stale frames of recycled segments are not read"
    );
    assert_eq!(read_all(&wal, checkpoint), tail);
}

#[test]
fn each_run_continues_after_the_last() {
    let fs = SimFileSystem::new(3);
    let mut all = Vec::new();
    for run in 0..4 {
        let (wal, rec) = open(&fs, cfg(16 * 1024));
        assert_eq!(read_all(&wal, rec.checkpoint_lsn), all, "run {run}");
        assert!(rec.start_lsn >= rec.end_lsn);
        for i in 0..7 {
            let p = payload(run * 10 + i);
            let lsn = wal.append(1, &p).unwrap();
            wal.commit_durable(lsn).unwrap();
            all.push(p);
        }
        drop(wal); // no shutdown: a crash after durable commits
        fs.crash();
    }
}

#[test]
fn unsynced_tail_is_cut_and_never_resurrected() {
    let mut saw_torn_tail = false;
    for seed in 0..40 {
        let fs = SimFileSystem::new(seed);
        let (wal, _) = open(&fs, cfg(64 * 1024));
        let durable: Vec<Vec<u8>> = (0..5).map(payload).collect();
        for p in &durable {
            wal.append(1, p).unwrap();
        }
        wal.flush().unwrap();
        // Written to the OS but never fsynced, then torn by the crash.
        wal.set_flush_policy(2).unwrap();
        for i in 5..40 {
            let lsn = wal.append(1, &payload(i)).unwrap();
            wal.commit_durable(lsn).unwrap();
        }
        drop(wal);
        fs.crash_torn();

        // Sectors kept out of order can leave valid frames after a damaged one: open
        // refuses (they could be acknowledged commits), changing nothing, until the
        // loss is accepted.
        let fs_dyn: Arc<dyn FileSystem> = Arc::new(fs.clone());
        let refused = Wal::open(fs_dyn.clone(), Path::new(DIR), cfg(64 * 1024)).err();
        if let Some(e) = &refused {
            assert!(e.to_string().contains("valid records follow"), "{e}");
            let again = Wal::open(fs_dyn, Path::new(DIR), cfg(64 * 1024)).err();
            assert_eq!(again.map(|e| e.to_string()), Some(e.to_string()));
        }
        let accept = WalConfig {
            allow_corrupt_tail: true,
            ..cfg(64 * 1024)
        };
        let (wal, rec) = open(&fs, accept);
        let got = read_all(&wal, 0);
        assert!(got.len() >= 5, "durable records survive");
        let expect: Vec<Vec<u8>> = (0..got.len()).map(payload).collect();
        assert_eq!(got, expect, "recovery returns a prefix");
        assert!(
            !matches!(rec.end, LogEnd::Corrupt { .. }),
            "a torn tail is not proven corruption"
        );
        assert_eq!(
            refused.is_some(),
            matches!(rec.end, LogEnd::TornTail { .. }),
            "{rec:?}"
        );
        saw_torn_tail |= matches!(rec.end, LogEnd::TornTail { .. });

        // A new run after the cut, then another crash: frames the first run left
        // past the cut must not come back, and the log opens without help.
        let extra = b"second run".to_vec();
        let lsn = wal.append(1, &extra).unwrap();
        wal.commit_durable(lsn).unwrap();
        drop(wal);
        fs.crash_torn();
        let (wal, _) = open(&fs, cfg(64 * 1024));
        let mut expect = got.clone();
        expect.push(extra);
        assert_eq!(read_all(&wal, 0), expect, "seed {seed}");
    }
    assert!(saw_torn_tail, "some seed keeps frames past the cut");
}

#[test]
fn a_flipped_bit_in_durable_log_stops_recovery_and_is_reported() {
    let fs = SimFileSystem::new(4);
    let (wal, _) = open(&fs, cfg(1 << 20));
    let mut lsns = Vec::new();
    for i in 0..50 {
        let start = wal.end_lsn();
        let lsn = wal.append(1, &payload(i)).unwrap();
        wal.commit_durable(lsn).unwrap();
        lsns.push(start);
    }
    drop(wal);
    fs.crash();
    // Record 20 is in segment 0 (file wal-000000.seg); flip a bit of its payload.
    let victim = lsns[20];
    let file = Path::new(DIR).join("wal-000000.seg");
    fs.flip_bit(&file, 4096 + victim + 40, 3).unwrap();
    let fs_dyn: Arc<dyn FileSystem> = Arc::new(fs.clone());
    let err = Wal::open(fs_dyn.clone(), Path::new(DIR), cfg(1 << 20))
        .err()
        .expect("refuses");
    assert!(matches!(err, basalt_storage::StorageError::Corrupt { page, .. } if page == victim));
    let err = Wal::open(fs_dyn, Path::new(DIR), cfg(1 << 20))
        .err()
        .expect("changed nothing");
    assert!(err.to_string().contains("damaged"), "{err}");
    let (wal, rec) = open(
        &fs,
        WalConfig {
            allow_corrupt_tail: true,
            ..cfg(1 << 20)
        },
    );
    assert_eq!(rec.end_lsn, victim);
    assert_eq!(rec.records, 20);
    assert!(matches!(rec.stop, StopReason::Damaged(_)), "{:?}", rec.stop);
    match rec.end {
        LogEnd::Corrupt {
            next_valid,
            durable_at_least,
            records,
            ..
        } => {
            assert_eq!(records, 29, "the 29 records after the damaged one");
            assert_eq!(next_valid, lsns[21]);
            assert!(durable_at_least > victim);
        }
        other => panic!("expected corruption to be reported, got {other:?}"),
    }
    assert_eq!(read_all(&wal, 0).len(), 20);
}

#[test]
fn flush_policies_two_and_zero() {
    let fs = SimFileSystem::new(5);
    let config = WalConfig {
        flush_log_at_trx_commit: 2,
        flush_interval: Duration::from_millis(30),
        ..cfg(1 << 20)
    };
    let (wal, _) = open(&fs, config.clone());
    let before = wal.stats().flush_fsyncs;
    let lsn = wal.append(1, b"two").unwrap();
    wal.commit_durable(lsn).unwrap();
    assert!(wal.stats().writes >= 1);
    assert_eq!(
        wal.stats().flush_fsyncs,
        before,
        "policy 2 does not fsync at commit"
    );
    await_durable(&wal, lsn);

    wal.set_flush_policy(0).unwrap();
    let writes = wal.stats().writes;
    let lsn = wal.append(1, b"zero").unwrap();
    wal.commit_durable(lsn).unwrap();
    assert_eq!(
        wal.stats().writes,
        writes,
        "policy 0 does not even write at commit"
    );
    await_durable(&wal, lsn);
    drop(wal);
    fs.crash();
    let (wal, _) = open(&fs, config);
    assert_eq!(read_all(&wal, 0), vec![b"two".to_vec(), b"zero".to_vec()]);
}

#[test]
fn large_records_and_limits() {
    let fs = SimFileSystem::new(6);
    let (wal, _) = open(&fs, cfg(64 * 1024));
    let max = wal.max_record_len();
    let big = vec![0xAB; max];
    let lsn = wal.append(1, &big).unwrap();
    wal.append(1, &big[..max / 2]).unwrap();
    wal.commit_durable(lsn).unwrap();
    assert!(wal.append(1, &vec![0; max + 1]).is_err());
    assert!(wal.append(0xFF, b"reserved kind").is_err());
    let parts: [&[u8]; 3] = [b"ab", b"", b"cd"];
    wal.append_parts(7, &parts).unwrap();
    wal.flush().unwrap();
    let got: Vec<_> = wal.read_from(0).map(|r| r.unwrap()).collect();
    assert_eq!(got.len(), 3);
    assert_eq!(got[0].payload, big);
    assert_eq!(got[1].payload.len(), max / 2);
    assert_eq!((got[2].kind, got[2].payload.as_slice()), (7, &b"abcd"[..]));
}

#[test]
fn buffered_fallback_when_direct_is_refused() {
    let fs = SimFileSystem::new(7);
    fs.set_direct_supported(false);
    let (wal, rec) = open(&fs, cfg(64 * 1024));
    assert!(!rec.direct_io && !wal.is_direct());
    let lsn = wal.append(1, b"buffered").unwrap();
    wal.commit_durable(lsn).unwrap();
    drop(wal);
    fs.crash();
    let (wal, _) = open(&fs, cfg(64 * 1024));
    assert_eq!(read_all(&wal, 0), vec![b"buffered".to_vec()]);
}

#[test]
fn checkpoints_must_start_at_a_record_and_lsns_must_exist() {
    let fs = SimFileSystem::new(8);
    let (wal, _) = open(&fs, cfg(64 * 1024));
    let first = wal.append(1, b"first record").unwrap();
    let second = wal.append(1, b"second record").unwrap();
    wal.flush().unwrap();
    assert!(
        wal.checkpoint_done(first + 8).is_err(),
        "not a record boundary"
    );
    assert!(
        wal.wait_durable(second + 4096).is_err(),
        "past the end of the log"
    );
    wal.checkpoint_done(first).unwrap();
    wal.checkpoint_done(second).unwrap();
    assert_eq!(wal.checkpoint_lsn(), second);
    wal.shutdown().unwrap();
    let (_, rec) = open(&fs, cfg(64 * 1024));
    assert_eq!((rec.checkpoint_lsn, rec.records), (second, 0));
}

#[test]
fn free_segments_beyond_the_limit_are_deleted() {
    let fs = SimFileSystem::new(9);
    let config = WalConfig {
        max_free_segments: 2,
        ..cfg(16 * 1024)
    };
    let (wal, _) = open(&fs, config.clone());
    // A burst without checkpoints: the log grows to many segment files.
    for i in 0..150 {
        wal.append(1, &payload(i)).unwrap();
    }
    wal.flush().unwrap();
    let segments = |fs: &SimFileSystem| {
        let files = fs.list_dir(Path::new(DIR)).unwrap();
        files
            .iter()
            .filter(|p| p.to_string_lossy().ends_with(".seg"))
            .count()
    };
    let burst = segments(&fs);
    assert!(burst > 15, "{burst}");
    let tail = b"after the checkpoint".to_vec();
    let cp = wal.end_lsn();
    wal.checkpoint_done(cp).unwrap();
    let s = wal.stats();
    assert_eq!(s.segments_free, 2);
    assert_eq!(segments(&fs), s.segments_in_use + 2);
    let lsn = wal.append(1, &tail).unwrap();
    wal.commit_durable(lsn).unwrap();
    drop(wal);
    fs.crash();
    let (wal, rec) = open(&fs, config);
    assert_eq!(rec.checkpoint_lsn, cp);
    assert_eq!(read_all(&wal, cp), vec![tail]);
}

#[test]
fn a_zeroed_sector_in_durable_log_is_reported_as_corruption() {
    let fs = SimFileSystem::new(10);
    let (wal, _) = open(&fs, cfg(1 << 20));
    let mut starts = Vec::new();
    for i in 0..40 {
        starts.push(wal.end_lsn());
        let lsn = wal.append(1, &payload(i)).unwrap();
        wal.commit_durable(lsn).unwrap();
    }
    drop(wal);
    fs.crash();
    // Zero the 512-byte sector holding the header of record 10.
    let sector = (4096 + starts[10]) / 512 * 512;
    let file = Path::new(DIR).join("wal-000000.seg");
    fs.zero_range(&file, sector, 512).unwrap();
    let config = WalConfig {
        allow_corrupt_tail: true,
        ..cfg(1 << 20)
    };
    let (wal, rec) = open(&fs, config);
    assert!(
        rec.end_lsn <= starts[10] && rec.end_lsn >= starts[9],
        "{rec:?}"
    );
    assert!(matches!(rec.end, LogEnd::Corrupt { .. }), "{rec:?}");
    let got = read_all(&wal, 0);
    assert_eq!(got, (0..got.len()).map(payload).collect::<Vec<_>>());
}
