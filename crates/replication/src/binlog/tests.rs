//! The commit path against an in-memory WAL: file writes wait for the
//! acknowledgement, one write serves a whole group, dumps read the tail, and
//! recovery writes what was logged but never reached the files.

use super::*;
use crate::dump::{self, DumpRequest, DumpSink, DumpVars, BINLOG_DUMP_NON_BLOCK};
use basalt_storage::binlog::RowImageMode;
use std::sync::atomic::AtomicBool;

/// A WAL that keeps every appended group with its end LSN; everything is durable
/// at once. Shared with the fault-injection test (`fault.rs`).
#[derive(Default)]
pub(super) struct MemLog {
    groups: Mutex<Vec<(u64, Vec<u8>)>>,
}

impl MemLog {
    pub(super) fn push(&self, group: &[u8]) -> u64 {
        let mut g = self.groups.lock();
        let lsn = g.last().map_or(0, |(l, _)| *l) + group.len() as u64 + 1;
        g.push((lsn, group.to_vec()));
        lsn
    }

    pub(super) fn end(&self) -> u64 {
        self.groups.lock().last().map_or(0, |(l, _)| *l)
    }

    pub(super) fn len(&self) -> usize {
        self.groups.lock().len()
    }

    pub(super) fn all(&self) -> Vec<(u64, Vec<u8>)> {
        self.groups.lock().clone()
    }
}

impl LogAppend for MemLog {
    fn append(&self, group: &[u8]) -> Result<u64, StorageError> {
        Ok(self.push(group))
    }
    fn wait_durable(&self, _lsn: u64) -> Result<(), StorageError> {
        Ok(())
    }
    fn durable_lsn(&self) -> u64 {
        self.end()
    }
}

fn session() -> BinlogSession {
    BinlogSession {
        thread_id: 7,
        server_id: 1,
        domain_id: 0,
        row_image: RowImageMode::Full,
        annotate: true,
        charset_client: 33,
        collation_connection: 33,
        collation_server: 8,
        gtid_seq_no: 0,
    }
}

fn open(dir: &std::path::Path, log: Arc<MemLog>) -> Arc<Binlog> {
    let config = BinlogConfig {
        dir: dir.to_path_buf(),
        basename: "basalt-bin".into(),
        server_id: 1,
        max_size: 1 << 30,
        checksum: true,
        expire_seconds: 0,
        server_version: "10.11.6-MariaDB-Basalt".into(),
    };
    Binlog::open(config, log, true).expect("binlog opens")
}

/// Logs a DDL group without acknowledging it; returns its end LSN.
fn log_unacked(b: &Binlog, sql: &str) -> u64 {
    let mut g = b.inner.lock();
    let gtid = next_gtid(&g, &session());
    let mut w = b.writer(g.pos);
    w.gtid(1, gtid, GtidFlags::ddl());
    w.query(1, &encode::query(&session(), "test", sql));
    let appender = b.appender.clone();
    b.write_group(&mut g, w, gtid, &mut |bytes| appender.append(bytes))
        .expect("logged")
}

#[derive(Default)]
struct Collect(Vec<Vec<u8>>);

impl DumpSink for Collect {
    fn event(&mut self, event: &[u8]) -> std::io::Result<()> {
        self.0.push(event.to_vec());
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn files_are_written_at_acknowledgement_one_write_per_group() {
    let dir = tempfile::tempdir().expect("temp dir");
    let b = open(dir.path(), Arc::new(MemLog::default()));
    let start = b.status().expect("a file").offset;
    let name = b.files.name(1);
    let a = log_unacked(&b, "create table t1 (a int)");
    let c = log_unacked(&b, "create table t2 (a int)");
    assert_eq!(b.files.size(1), start, "nothing written before the ack");
    assert_eq!(b.end().offset, start, "nothing visible before the ack");
    b.acknowledged(c);
    let end = b.inner.lock().pos;
    assert_eq!(b.files.size(1), end, "both groups written by the later ack");
    assert_eq!(
        b.end(),
        BinlogPos {
            file: name,
            offset: end
        }
    );
    b.acknowledged(a);
    assert_eq!(
        b.end().offset,
        end,
        "an earlier ack does not move the end back"
    );
    assert!(b.acks.lock().unacked.is_empty());
}

#[test]
fn dumps_read_the_tail_and_see_what_the_files_hold() {
    let dir = tempfile::tempdir().expect("temp dir");
    let b = open(dir.path(), Arc::new(MemLog::default()));
    let lsn = log_unacked(&b, "create table t1 (a int)");
    b.acknowledged(lsn);
    let name = b.files.name(1);
    let end = b.end().offset;
    let (start, bytes) = b
        .cached(&name, end - 1)
        .expect("recent bytes are in memory");
    let file = std::fs::read(b.files.path(1)).expect("file");
    assert_eq!(&file[start as usize..end as usize], &bytes[..]);
    let req = DumpRequest {
        pos: 4,
        flags: BINLOG_DUMP_NON_BLOCK,
        server_id: 2,
        file: name,
    };
    let vars = DumpVars {
        master_binlog_checksum: Some("CRC32".into()),
        mariadb_slave_capability: 4,
        ..DumpVars::default()
    };
    let mut sink = Collect::default();
    dump::dump(&*b, &req, &vars, &mut sink, &AtomicBool::new(false)).expect("dumped");
    let queries = sink
        .0
        .iter()
        .filter(|e| e[4] == crate::event::types::QUERY)
        .count();
    assert_eq!(queries, 1, "the DDL's QUERY event was served");
}

#[test]
fn recovery_writes_groups_that_never_reached_the_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = Arc::new(MemLog::default());
    let b = open(dir.path(), log.clone());
    log_unacked(&b, "create table t1 (a int)");
    let logged_end = b.inner.lock().pos;
    let written = b.files.size(1);
    assert!(written < logged_end, "the group is only in the WAL");
    drop(b);
    let groups = log.all();
    recover(&Files::new(dir.path(), "basalt-bin"), &groups).expect("recovered");
    assert_eq!(
        std::fs::metadata(dir.path().join("basalt-bin.000001"))
            .map(|m| m.len())
            .ok(),
        Some(logged_end)
    );
}
