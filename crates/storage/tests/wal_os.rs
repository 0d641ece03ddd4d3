//! The WAL on the real file system (O_DIRECT where the filesystem allows it).

use basalt_storage::io::os::OsFileSystem;
use basalt_storage::io::FileSystem;
use basalt_storage::wal::{LogEnd, Wal, WalConfig};
use std::sync::Arc;

fn config() -> WalConfig {
    WalConfig {
        segment_size: 1 << 20,
        ..WalConfig::default()
    }
}

#[test]
fn real_disk_round_trip_with_concurrent_commits_and_restart() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("log");
    let fs: Arc<dyn FileSystem> = Arc::new(OsFileSystem);
    let (wal, rec) = Wal::open(fs.clone(), &dir, config()).expect("open");
    assert!(rec.created);
    eprintln!("O_DIRECT in effect: {}", wal.is_direct());
    let wal = Arc::new(wal);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let wal = wal.clone();
            std::thread::spawn(move || {
                for i in 0..100 {
                    let p = vec![t as u8; 100 + (i * 37) % 9000];
                    let lsn = wal.append(1, &p).expect("append");
                    wal.commit_durable(lsn).expect("commit");
                }
            })
        })
        .collect();
    threads
        .into_iter()
        .for_each(|t| t.join().expect("committer"));
    let stats = wal.stats();
    assert_eq!(stats.commits, 800);
    assert!(stats.batches <= 800 && stats.flush_fsyncs >= stats.batches);
    assert!(
        stats.segments_in_use > 1,
        "800 records of up to 9 KiB span segments"
    );
    let lsn = wal.end_lsn();
    wal.checkpoint_done(lsn).expect("checkpoint");
    let tail = b"after the checkpoint".to_vec();
    let end = wal.append(2, &tail).expect("append");
    wal.commit_durable(end).expect("commit");
    drop(wal); // no clean shutdown

    let (wal, rec) = Wal::open(fs.clone(), &dir, config()).expect("reopen");
    assert_eq!(rec.checkpoint_lsn, lsn);
    assert_eq!(rec.records, 1);
    assert_eq!(rec.end, LogEnd::Clean);
    let got: Vec<_> = wal.read_from(lsn).map(|r| r.expect("read")).collect();
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].kind, &got[0].payload), (2, &tail));
    wal.shutdown().expect("shutdown");
}
