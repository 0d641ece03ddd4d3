//! The dump loop: fake ROTATE, FORMAT_DESCRIPTION, events, next file; waiting and
//! heartbeats at the durable end (see the module docs of [`super`]).
//!
//! Invariants: the position (`pos`) is always an event boundary of `file` at or
//! below its durable size; an event is sent only after [`LogReader::read_at`]
//! checked it; nothing past [`DumpSource::end`] is ever read.

use super::event::{self, ChecksumAlg};
use super::gtid_pos::{self, ConnectState, GtidFilter};
use super::reader::{LogReader, ReadError, ReadFailure};
use super::{
    DumpError, DumpRequest, DumpVars, BINLOG_DUMP_NON_BLOCK, BINLOG_SEND_ANNOTATE_ROWS_EVENT,
};
use crate::semisync::{Coord, DumpSession, FLAG_REPLY, SYNC_MAGIC};
use crate::{BinlogPos, DumpSource};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// MariaDB's replica capability levels (`MARIA_SLAVE_CAPABILITY_*`).
const CAP_ANNOTATE: i64 = 1;
const CAP_TOLERATE_HOLES: i64 = 2;
const CAP_BINLOG_CHECKPOINT: i64 = 3;
const CAP_GTID: i64 = 4;

/// How often a dump without heartbeats looks at its stop flag while waiting.
const IDLE_POLL: Duration = Duration::from_millis(500);

/// Where the packets go: the connection's output.
pub trait DumpSink {
    /// Stages one packet whose payload is `0x00` followed by `event`; may send
    /// staged packets when enough are waiting.
    fn event(&mut self, event: &[u8]) -> io::Result<()>;
    /// Sends everything staged.
    fn flush(&mut self) -> io::Result<()>;
    /// Semi-sync: stages `0x00 0xEF flag` followed by `event`, flag
    /// [`FLAG_REPLY`] when `reply`; after such a packet, sends everything staged
    /// and [`DumpSink::restart_sequence`]s.
    fn semisync_event(&mut self, reply: bool, event: &[u8]) -> io::Result<()> {
        let mut framed = Vec::with_capacity(event.len() + 2);
        framed.extend_from_slice(&[SYNC_MAGIC, if reply { FLAG_REPLY } else { 0 }]);
        framed.extend_from_slice(event);
        self.event(&framed)?;
        if reply {
            self.flush()?;
            self.restart_sequence();
        }
        Ok(())
    }
    /// After a packet that asked for a reply the next packet has sequence id 1
    /// (the replica's ACK started a sequence of its own), as MariaDB's `flush_net`.
    fn restart_sequence(&mut self) {}
}

/// Serves one COM_BINLOG_DUMP. `Ok(())` when the end of the log was reached under
/// NON_BLOCK (the caller then sends EOF); otherwise an error saying whether an
/// ERR packet can still be sent ([`DumpError::client_error`]). `stop` is checked
/// between events and while waiting.
pub fn dump(
    src: &dyn DumpSource,
    req: &DumpRequest,
    vars: &DumpVars,
    sink: &mut dyn DumpSink,
    stop: &AtomicBool,
) -> Result<(), DumpError> {
    dump_with(src, req, vars, sink, stop, None)
}

/// [`dump`] to a replica that set `@rpl_semi_sync_slave` when `semi` is given:
/// every packet carries the semi-sync header, and the events that end a waited-for
/// transaction ask for a reply (see [`crate::semisync`]).
pub fn dump_with(
    src: &dyn DumpSource,
    req: &DumpRequest,
    vars: &DumpVars,
    sink: &mut dyn DumpSink,
    stop: &AtomicBool,
    semi: Option<&DumpSession>,
) -> Result<(), DumpError> {
    let mut d = Dumper::new(src, req, vars, sink, stop)?;
    if let Some(s) = semi {
        s.start(&Coord::new(&d.file, d.pos));
    }
    d.semi = semi;
    d.run()
}

/// What happened at the end of a file.
enum FileEnd {
    Next,
    Stop,
}

struct Dumper<'a> {
    src: &'a dyn DumpSource,
    sink: &'a mut dyn DumpSink,
    stop: &'a AtomicBool,
    req: &'a DumpRequest,
    server_id: u32,
    /// The algorithm invented events use: the replica's at first, then the
    /// current file's.
    alg: ChecksumAlg,
    checksum_aware: bool,
    capability: i64,
    heartbeat: Option<Duration>,
    gtid: Option<GtidFilter>,
    file: String,
    pos: u64,
    /// Start of the last event read, and the offset past the last byte read (for
    /// error messages).
    last_pos: u64,
    read_end: u64,
    file_open: bool,
    clear_initial_log_pos: bool,
    semi: Option<&'a DumpSession>,
}

impl<'a> Dumper<'a> {
    fn new(
        src: &'a dyn DumpSource,
        req: &'a DumpRequest,
        vars: &DumpVars,
        sink: &'a mut dyn DumpSink,
        stop: &'a AtomicBool,
    ) -> Result<Dumper<'a>, DumpError> {
        let mut d = Dumper {
            src,
            sink,
            stop,
            req,
            server_id: src.server_id(),
            alg: connect_alg(vars.master_binlog_checksum.as_deref()),
            checksum_aware: vars.master_binlog_checksum.is_some(),
            capability: vars.mariadb_slave_capability,
            heartbeat: (vars.heartbeat_period_ns > 0)
                .then(|| Duration::from_nanos(vars.heartbeat_period_ns)),
            gtid: None,
            file: String::new(),
            pos: req.pos,
            last_pos: req.pos,
            read_end: req.pos,
            file_open: false,
            clear_initial_log_pos: false,
            semi: None,
        };
        d.start_position(vars)?;
        Ok(d)
    }

    /// MariaDB's `init_binlog_sender`: the file and offset to start at.
    fn start_position(&mut self, vars: &DumpVars) -> Result<(), DumpError> {
        let files = self.src.files();
        if let Some(text) = &vars.slave_connect_state {
            if vars.slave_until_gtid.is_some() {
                return Err(DumpError::Unknown(
                    "START SLAVE UNTIL master_gtid_pos is not supported by this master".into(),
                ));
            }
            let mut st = ConnectState::parse(text).ok_or_else(|| {
                DumpError::Unknown(
                    "Out of memory or malformed slave request when obtaining start position \
                     from GTID state"
                        .into(),
                )
            })?;
            if files.is_empty() {
                return Err(no_first_file());
            }
            let state = gtid_pos::binlog_state(self.src)?;
            gtid_pos::check_start(&mut st, &state, vars.slave_gtid_ignore_duplicates)?;
            self.file = gtid_pos::find_file(self.src, &mut st)?;
            self.pos = event::FIRST_EVENT;
            self.gtid = Some(GtidFilter::new(st, vars.slave_gtid_strict_mode));
        } else if self.req.file.is_empty() {
            self.file = files.first().ok_or_else(no_first_file)?.name.clone();
        } else if files.iter().any(|f| f.name == self.req.file) {
            self.file = self.req.file.clone();
        } else {
            return Err(no_first_file());
        }
        let size = self.size_of(&self.file);
        if self.pos < event::FIRST_EVENT || self.pos > size {
            let f = &self.req.file;
            return Err(DumpError::Fatal(format!(
                "Client requested master to start replication from impossible position; the \
                 first event '{f}' at {}, the last event read from '{f}' at 4, the last byte \
                 read from '{f}' at 4.",
                self.pos
            )));
        }
        self.clear_initial_log_pos = self.pos > event::FIRST_EVENT;
        Ok(())
    }

    fn run(&mut self) -> Result<(), DumpError> {
        loop {
            let rotate = event::fake_rotate(self.server_id, &self.file, self.pos, self.alg);
            self.send(&rotate)?;
            let src = self.src;
            let reader =
                LogReader::open_in(src, &self.file).map_err(|m| DumpError::Fatal(m.into()))?;
            self.file_open = true;
            let after_fd = self.send_fd(&reader)?;
            if self.pos == event::FIRST_EVENT {
                self.pos = after_fd;
            }
            match self.send_file(&reader)? {
                FileEnd::Stop => return self.sink.flush().map_err(DumpError::Disconnected),
                FileEnd::Next => {}
            }
            self.file = self.next_file()?;
            self.pos = event::FIRST_EVENT;
        }
    }

    /// Sends the file's FORMAT_DESCRIPTION; returns the offset after it.
    fn send_fd(&mut self, r: &LogReader) -> Result<u64, DumpError> {
        let size = self.size_of(&self.file);
        self.last_pos = event::FIRST_EVENT;
        let mut fd = r
            .read_at(event::FIRST_EVENT, size, None)
            .map_err(|f| self.read_failed(f))?;
        self.read_end = event::FIRST_EVENT + fd.len() as u64;
        if event::event_type(&fd) != event::types::FORMAT_DESCRIPTION {
            return Err(self.fatal("Failed to find format descriptor event in start of binlog"));
        }
        self.alg = event::fd_checksum_alg(&fd);
        if !self.checksum_aware && self.alg.has_crc() {
            return Err(self.fatal(
                "Slave can not handle replication events with the checksum that master is \
                 configured to log",
            ));
        }
        let clear_pos = std::mem::take(&mut self.clear_initial_log_pos);
        let clear_created = self.gtid.as_ref().is_some_and(|g| !g.pos_reached());
        event::prepare_fd(&mut fd, self.alg, clear_pos, clear_created);
        self.send(&fd)?;
        Ok(self.read_end)
    }

    /// Sends the events of the current file from `self.pos`, waiting at the
    /// durable end of the last file.
    fn send_file(&mut self, r: &LogReader) -> Result<FileEnd, DumpError> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(DumpError::Killed);
            }
            let end = self.src.end();
            let active = end.file == self.file;
            let size = if active {
                end.offset
            } else {
                self.size_of(&self.file)
            };
            if self.pos < size {
                self.send_events(r, size)?;
            } else if !active {
                return Ok(FileEnd::Next);
            } else if self.req.flags & BINLOG_DUMP_NON_BLOCK != 0 || self.req.server_id == 0 {
                return Ok(FileEnd::Stop);
            } else {
                self.wait()?;
            }
        }
    }

    fn send_events(&mut self, r: &LogReader, end: u64) -> Result<(), DumpError> {
        while self.pos < end {
            if self.stop.load(Ordering::SeqCst) {
                return Err(DumpError::Killed);
            }
            self.last_pos = self.pos;
            let mut ev = r
                .read_at(self.pos, end, Some(self.alg))
                .map_err(|f| self.read_failed(f))?;
            self.pos += ev.len() as u64;
            self.read_end = self.pos;
            if event::event_type(&ev) == event::types::START_ENCRYPTION {
                return Err(self.fatal("Could not decrypt binlog: encryption key error"));
            }
            let admitted = match self.gtid.as_mut() {
                Some(g) => g.admit(&ev, self.alg, self.src)?,
                None => true,
            };
            if admitted && self.compatible(&mut ev)? {
                self.send_logged(&ev)?;
            }
            let fake = self.gtid.as_mut().and_then(GtidFilter::take_fake_list);
            if let Some(list) = fake {
                let ev = event::fake_gtid_list(self.server_id, &list, self.pos as u32, self.alg);
                self.send(&ev)?;
            }
        }
        Ok(())
    }

    /// Rewrites `ev` for what the replica understands; false when it is dropped.
    fn compatible(&self, ev: &mut [u8]) -> Result<bool, DumpError> {
        let ty = event::event_type(ev);
        let cap = self.capability;
        let dummy = |ev: &mut [u8], what: &str| {
            event::make_dummy(ev, self.alg)
                .map(|()| true)
                .ok_or_else(|| DumpError::Fatal(what.into()))
        };
        if ty == event::types::ANNOTATE_ROWS
            && self.req.flags & BINLOG_SEND_ANNOTATE_ROWS_EVENT == 0
        {
            if cap >= CAP_TOLERATE_HOLES {
                return Ok(false);
            }
            if cap < CAP_ANNOTATE {
                return dummy(
                    ev,
                    "Failed to replace row annotate event with dummy: too small event.",
                );
            }
        }
        if ty == event::types::GTID && cap < CAP_GTID {
            let standalone = ev.get(event::HEADER_LEN + 12).copied().unwrap_or(0)
                & event::GTID_FL_STANDALONE
                != 0;
            let failed = || {
                DumpError::Fatal(
                    "Failed to replace GTID event with backwards-compatible event: corrupt event."
                        .into(),
                )
            };
            if !standalone {
                return event::make_begin(ev, self.alg)
                    .map(|()| true)
                    .ok_or_else(failed);
            }
            if cap >= CAP_TOLERATE_HOLES {
                return Ok(false);
            }
            return event::make_dummy(ev, self.alg)
                .map(|()| true)
                .ok_or_else(failed);
        }
        if (ty == event::types::BINLOG_CHECKPOINT && cap < CAP_BINLOG_CHECKPOINT)
            || (ty == event::types::GTID_LIST && cap < CAP_GTID)
        {
            if cap >= CAP_TOLERATE_HOLES {
                return Ok(false);
            }
            return dummy(
                ev,
                "Failed to replace binlog checkpoint or gtid list event with dummy: too small event.",
            );
        }
        Ok(true)
    }

    /// Waits at the durable end for more, sending heartbeats when asked to.
    fn wait(&mut self) -> Result<(), DumpError> {
        self.sink.flush().map_err(DumpError::Disconnected)?;
        let seen = BinlogPos {
            file: self.file.clone(),
            offset: self.pos,
        };
        let period = self.heartbeat.unwrap_or(IDLE_POLL);
        let started = Instant::now();
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(DumpError::Killed);
            }
            let left = period.saturating_sub(started.elapsed());
            let now = self.src.wait_past(&seen, left.min(IDLE_POLL));
            if now != seen {
                return Ok(());
            }
            if started.elapsed() >= period {
                if self.heartbeat.is_some() {
                    let hb = event::heartbeat(self.server_id, &self.file, self.pos, self.alg);
                    self.send(&hb)?;
                    self.sink.flush().map_err(DumpError::Disconnected)?;
                }
                return Ok(());
            }
        }
    }

    /// The file after the current one in the index.
    fn next_file(&self) -> Result<String, DumpError> {
        let files = self.src.files();
        files
            .iter()
            .position(|f| f.name == self.file)
            .and_then(|i| files.get(i + 1))
            .map(|f| f.name.clone())
            .ok_or_else(|| self.fatal("could not find next log"))
    }

    /// The durable size of `name` (0 if it is no longer listed).
    fn size_of(&self, name: &str) -> u64 {
        let end = self.src.end();
        if end.file == name {
            return end.offset;
        }
        self.src
            .files()
            .iter()
            .find(|f| f.name == name)
            .map_or(0, |f| f.size)
    }

    fn send(&mut self, ev: &[u8]) -> Result<(), DumpError> {
        let sent = match self.semi {
            Some(_) => self.sink.semisync_event(false, ev),
            None => self.sink.event(ev),
        };
        sent.map_err(DumpError::Disconnected)
    }

    /// Sends an event read from the log, which ends at `self.pos`; under semi-sync
    /// it may ask for a reply.
    fn send_logged(&mut self, ev: &[u8]) -> Result<(), DumpError> {
        let Some(semi) = self.semi else {
            return self.send(ev);
        };
        let reply = semi.need_reply(&self.file, self.pos);
        if reply {
            semi.asked(Coord::new(&self.file, self.pos));
        }
        self.sink
            .semisync_event(reply, ev)
            .map_err(DumpError::Disconnected)
    }

    fn read_failed(&self, f: ReadFailure) -> DumpError {
        if let ReadError::Io(e) = &f.error {
            tracing::warn!("binlog dump: reading {}: {e}", self.file);
        }
        self.fatal_with(&f.error.to_string(), f.read_end)
    }

    /// A 1236 with MariaDB's coordinates suffix.
    fn fatal(&self, msg: &str) -> DumpError {
        self.fatal_with(msg, self.read_end)
    }

    fn fatal_with(&self, msg: &str, read_end: u64) -> DumpError {
        if !self.file_open {
            return DumpError::Fatal(msg.into());
        }
        DumpError::Fatal(format!(
            "{msg}; the first event '{}' at {}, the last event read from '{}' at {}, the last \
             byte read from '{}' at {}.",
            self.req.file, self.req.pos, self.file, self.last_pos, self.file, read_end
        ))
    }
}

fn no_first_file() -> DumpError {
    DumpError::Fatal("Could not find first log file name in binary log index file".into())
}

/// The algorithm the first fake ROTATE uses, from `@master_binlog_checksum`: unset,
/// none; `NONE`, none; any other value (even `ALL` or NULL, which MariaDB's
/// `find_type` does not know and turns into an algorithm that is neither off nor
/// undefined), a CRC.
fn connect_alg(v: Option<&str>) -> ChecksumAlg {
    match v {
        None => ChecksumAlg::Undef,
        Some(v) if v.eq_ignore_ascii_case("NONE") => ChecksumAlg::Off,
        Some(_) => ChecksumAlg::Crc32,
    }
}
