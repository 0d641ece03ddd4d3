//! Property: any sequence of records, with any commit points, reads back exactly,
//! before and after a crash, whatever sizes make frames land on segment boundaries.

use basalt_storage::io::sim::SimFileSystem;
use basalt_storage::io::FileSystem;
use basalt_storage::wal::{Wal, WalConfig};
use proptest::prelude::*;
use std::path::Path;
use std::sync::Arc;

const SEGMENT: u64 = 16 * 1024;
const DATA: usize = SEGMENT as usize - 4096;

fn open(fs: &SimFileSystem) -> Wal {
    let fs: Arc<dyn FileSystem> = Arc::new(fs.clone());
    let config = WalConfig {
        segment_size: SEGMENT,
        ..WalConfig::default()
    };
    Wal::open(fs, Path::new("/log"), config).expect("open").0
}

/// Payload sizes biased towards the ones that fill a segment exactly or leave
/// 0, 8, ..., 48 bytes in it.
fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        0usize..64,
        64usize..2000,
        (0usize..8).prop_map(|k| DATA / 2 - 32 - 8 * k),
        (0usize..8).prop_map(|k| DATA - 80 - 8 * k),
        (0usize..8).prop_map(|k| DATA / 3 - 32 - 8 * k + 3),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn records_read_back_exactly(sizes in prop::collection::vec((size(), any::<bool>()), 1..40), seed in any::<u64>()) {
        let fs = SimFileSystem::new(seed);
        let wal = open(&fs);
        let max = wal.max_record_len();
        let mut expect = Vec::new();
        let mut acked = 0;
        for (i, &(len, commit)) in sizes.iter().enumerate() {
            let payload: Vec<u8> = (0..len.min(max)).map(|j| (i * 31 + j) as u8).collect();
            let lsn = wal.append(1 + (i % 200) as u8, &payload).expect("append");
            expect.push(payload);
            if commit {
                wal.commit_durable(lsn).expect("commit");
                acked = expect.len();
            }
        }
        let live: Vec<Vec<u8>> = {
            wal.flush().expect("flush");
            wal.read_from(0).map(|r| r.expect("read").payload).collect()
        };
        prop_assert_eq!(&live, &expect);
        drop(wal);
        fs.crash_torn();
        let wal = open(&fs);
        let got: Vec<Vec<u8>> = wal.read_from(0).map(|r| r.expect("read").payload).collect();
        // Everything was flushed before the crash, so everything survives.
        prop_assert!(got.len() >= acked);
        prop_assert_eq!(got, expect);
    }
}
