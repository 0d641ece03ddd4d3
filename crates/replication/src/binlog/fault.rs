//! Fault injection for the binlog file writes (tests only), and the disk-full test.
//!
//! [`fail_next_write`] arms a fault for the calling thread: the next chunk it writes
//! into a binlog file gets only its first `n` bytes written, then fails with ENOSPC,
//! as a write on a full disk does. The hook exists only under `cfg(test)`; the
//! write path outside tests is the plain write.
//!
//! The test proves what the module docs of `basalt_storage::binlog` promise for a
//! failed file write: the committed group is still in the log (the WAL copy), the
//! log marks itself broken so later logging commits fail and append nothing, and
//! recovery from the log ([`super::recover`]) rewrites the file exactly as the
//! groups say, after which the log opens and goes on from the GTIDs it holds.

use std::cell::Cell;

thread_local! {
    static WRITE_FAULT: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The next chunk this thread writes gets `n` bytes written, then fails.
pub(super) fn fail_next_write(n: usize) {
    WRITE_FAULT.with(|f| f.set(Some(n)));
}

/// The armed fault, disarmed by taking it.
pub(super) fn take_write_fault() -> Option<usize> {
    WRITE_FAULT.with(|f| f.take())
}

#[cfg(test)]
mod tests {
    use super::super::group::Group;
    use super::super::tests::MemLog;
    use super::super::{recover, Binlog, BinlogConfig, Files};
    use super::fail_next_write;
    use basalt_common::{
        Charset, Collation, ColumnDef, DataType, EngineKind, IndexColumn, IndexDef, IndexKind,
        IntKind, TableDef, Value,
    };
    use basalt_storage::binlog::{BinlogSession, BinlogSink, Capture, Captured};
    use basalt_storage::StorageError;
    use std::sync::Arc;

    fn config(dir: &std::path::Path) -> BinlogConfig {
        BinlogConfig {
            dir: dir.to_path_buf(),
            basename: "b".into(),
            server_id: 1,
            max_size: 1 << 20,
            checksum: true,
            expire_seconds: 0,
            server_version: "10.11.99-MariaDB-Basalt".into(),
        }
    }

    fn session() -> BinlogSession {
        BinlogSession {
            server_id: 1,
            annotate: true,
            ..BinlogSession::default()
        }
    }

    fn table() -> Arc<TableDef> {
        let mut id = ColumnDef::new("id", DataType::int(IntKind::Int, false));
        id.nullable = false;
        let v = ColumnDef::new("v", DataType::int(IntKind::Int, false));
        Arc::new(TableDef {
            id: 7,
            schema: "d".into(),
            name: "t".into(),
            columns: vec![id, v],
            indexes: vec![IndexDef {
                id: 0,
                name: "PRIMARY".into(),
                kind: IndexKind::Primary,
                columns: vec![IndexColumn {
                    column: 0,
                    prefix_len: None,
                    descending: false,
                }],
                comment: String::new(),
            }],
            engine: EngineKind::Basalt,
            charset: Charset::Latin1,
            collation: Collation::Latin1SwedishCi,
            comment: String::new(),
            auto_increment_start: 1,
            next_index_id: 1,
            checks: vec![],
            options: vec![],
            foreign_keys: vec![],
            partitioning: None,
        })
    }

    /// A transaction inserting row (`id`, `id * 10`) into `d.t`.
    fn insert(id: i64) -> Capture {
        let mut c = Capture::new(session());
        c.entries.push(Captured::Statement {
            sql: format!("INSERT INTO t VALUES ({id}, {})", id * 10).into(),
            db: "d".into(),
            when: 1_700_000_000,
        });
        c.entries.push(Captured::Row {
            table: table(),
            before: None,
            after: Some(vec![Value::Int(id), Value::Int(id * 10)]),
            written: None,
        });
        c.durable = true;
        c
    }

    fn commit(b: &Binlog, log: &MemLog, id: i64) -> Result<u64, StorageError> {
        let lsn = b.commit(&insert(id), &mut |g| Ok(log.push(g)))?;
        b.acknowledged(lsn);
        Ok(lsn)
    }

    /// What file `n` holds when every group's chunks are written in log order.
    fn expected_file(groups: &[(u64, Vec<u8>)], n: u32) -> Vec<u8> {
        let mut out = Vec::new();
        for (_, bytes) in groups {
            let g = Group::decode(bytes).expect("a group the log wrote");
            for c in g.chunks.iter().filter(|c| c.file == n) {
                let end = c.offset as usize + c.bytes.len();
                if out.len() < end {
                    out.resize(end, 0);
                }
                out[c.offset as usize..end].copy_from_slice(&c.bytes);
            }
        }
        out
    }

    #[test]
    fn a_failed_file_write_keeps_the_wal_copy_stops_commits_and_recovers_exactly() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = Arc::new(MemLog::default());
        let b = Binlog::open(config(dir.path()), log.clone(), true).expect("open");
        commit(&b, &log, 1).expect("a first commit");
        // The checkpoint: the files are durable up to here.
        b.sync(log.end()).expect("sync");
        let files = Files::new(dir.path(), "b");
        let synced_len = files.size(1);

        // The disk fills while the second commit's events are written.
        let before = log.len();
        fail_next_write(10);
        let lsn = commit(&b, &log, 2).expect("the commit is in the WAL: it stands");
        assert_eq!(log.len(), before + 1, "the group went to the WAL");
        assert_eq!(log.end(), lsn);
        let wal = log.all();
        let (_, group) = wal.last().expect("the second commit's group");
        let group = Group::decode(group).expect("decodes");
        let chunk = &group.chunks[0];
        assert_eq!((chunk.file, chunk.offset), (1, synced_len));
        assert_eq!(
            files.size(1),
            synced_len + 10,
            "the file got only the first bytes of the group"
        );

        // Broken: later commits and statements fail, and append nothing.
        let err = commit(&b, &log, 3).expect_err("a commit after the failure");
        assert!(err.to_string().contains("binary log write failed"), "{err}");
        let err = b
            .log_statement(
                &session(),
                "d",
                "CREATE TABLE u (a INT)",
                1_700_000_001,
                None,
            )
            .expect_err("DDL after the failure");
        assert!(err.to_string().contains("binary log write failed"), "{err}");
        assert_eq!(log.len(), before + 1, "nothing more went to the WAL");
        drop(b);

        // Restart: recovery rewrites the groups past the sync point from the WAL.
        recover(&files, &log.all()).expect("recovery");
        let want = expected_file(&log.all(), 1);
        let got = std::fs::read(files.path(1)).expect("read the file");
        assert_eq!(
            got.len(),
            want.len(),
            "the file ends where the last group does"
        );
        assert!(got == want, "the file holds exactly the logged groups");
        let p = files.read_sync().expect("sync point").expect("written");
        assert_eq!((p.file, p.end, p.lsn), (1, want.len() as u64, lsn));

        // The log opens on the recovered files and numbers on from the second commit.
        let b = Binlog::open(config(dir.path()), log.clone(), true).expect("reopen");
        commit(&b, &log, 3).expect("a commit after the restart");
        let last = log.all();
        let (_, g) = last.last().expect("the new group");
        let g = Group::decode(g).expect("decodes");
        // The group opens with its GTID event (length at bytes 9..13 of the header).
        let bytes = &g.chunks[0].bytes;
        let len = u32::from_le_bytes(bytes[9..13].try_into().expect("a header")) as usize;
        let (gtid, _) = crate::event::reader::decode_gtid(&bytes[..len]).expect("a GTID");
        assert_eq!((gtid.domain, gtid.server, gtid.seq), (0, 1, 3));
    }
}
