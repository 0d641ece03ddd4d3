//! The I/O thread: connects to the primary, asks for its binary log from the
//! replica's position (by GTID, or by file and offset), decodes each event and
//! queues it for the SQL thread.
//!
//! A network failure, or the primary going away, is retried every
//! `MASTER_CONNECT_RETRY` seconds from the end of the last transaction received
//! whole (a transaction received in part is dropped from the queue); the primary
//! refusing the request (1236, equal server ids) stops the thread with the error
//! in `Last_IO_Error`, as MariaDB's does.

use super::relay::Item;
use super::status::{
    now_secs, IoRun, Received, Shared, IO_CONNECTING, IO_QUEUE_FULL, IO_RECONNECTING, IO_WAITING,
};
use basalt_replication::gtid::{Gtid, GtidList};
use basalt_replication::replica::decode::Event;
use basalt_replication::replica::{ClientError, ConnectOptions, Decoder, DumpRequest, PrimaryConn};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// MariaDB's `master_retry_count` default.
const MAX_RETRIES: u64 = 100_000;
/// 1593 `ER_SLAVE_FATAL_ERROR` (equal server ids).
const ER_SLAVE_FATAL: u16 = 1593;
/// 1595 `ER_SLAVE_RELAY_LOG_WRITE_FAILURE`.
const ER_RELAY_WRITE: u16 = 1595;
/// 1236 `ER_MASTER_FATAL_ERROR_READING_BINLOG`.
const ER_MASTER_FATAL_READING: u16 = 1236;

/// Where the dump starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Start {
    /// `@slave_connect_state` (a GTID list, possibly empty).
    Gtid(GtidList),
    File(String, u64),
}

/// What the thread needs to know, fixed at START SLAVE.
#[derive(Clone, Debug)]
pub struct IoConfig {
    pub connect: ConnectOptions,
    pub server_id: u32,
    pub heartbeat: Duration,
    pub connect_retry: Duration,
    pub use_gtid: bool,
    pub report_port: u16,
    pub start: Start,
}

/// A failure, and whether reconnecting may cure it.
struct Failure {
    code: u16,
    message: String,
    retry: bool,
}

fn client_failure(e: &ClientError, cfg: &IoConfig, connecting: bool) -> Failure {
    let (code, msg) = match e {
        ClientError::Server { code, message, .. } => (*code, message.clone()),
        ClientError::Io(io) => (
            2003,
            format!(
                "Can't connect to server on '{}' ({} \"{}\")",
                cfg.connect.host,
                io.raw_os_error().unwrap_or(0),
                io.kind()
            ),
        ),
        other => (2013, other.to_string()),
    };
    if code == ER_MASTER_FATAL_READING {
        return Failure {
            code,
            message: format!(
                "Got fatal error 1236 from master when reading data from binary log: '{msg}'"
            ),
            retry: false,
        };
    }
    let verb = if connecting {
        "connecting to"
    } else {
        "reconnecting to"
    };
    Failure {
        code,
        message: format!(
            "error {verb} master '{}@{}:{}' - retry-time: {}  maximum-retries: {MAX_RETRIES}  \
             message: {msg}",
            cfg.connect.user,
            cfg.connect.host,
            cfg.connect.port,
            cfg.connect_retry.as_secs()
        ),
        retry: e.is_retriable(),
    }
}

/// The thread's body; returns when stopped or on a fatal error.
pub fn run(shared: Arc<Shared>, cfg: IoConfig) {
    let mut start = cfg.start.clone();
    let mut attempts = 0u64;
    let mut connected_once = false;
    let mut resynced = false;
    while !shared.io_stopping() {
        if !resynced {
            set_run(&shared, IoRun::Connecting, IO_CONNECTING);
        }
        resynced = false;
        match session(&shared, &cfg, &start, &mut connected_once) {
            Ok(()) => break,
            Err(_) if shared.io_resync.swap(false, Ordering::Relaxed) => {
                // The SQL thread failed and dropped the queue: fetch again from
                // what it applied, at once.
                start = resume_point(&shared, &cfg, &start, true);
                resynced = true;
            }
            Err(f) => {
                let stop = !f.retry || attempts >= MAX_RETRIES || shared.io_stopping();
                {
                    // The error and the stopped state are seen together.
                    let mut st = shared.state.lock();
                    st.last_io = Some((f.code, f.message));
                    if stop {
                        st.io = IoRun::No;
                        st.io_state = "";
                    }
                }
                restart_marker(&shared);
                if stop {
                    break;
                }
                attempts += 1;
                set_run(&shared, IoRun::Connecting, IO_RECONNECTING);
                sleep_unless_stopped(&shared, cfg.connect_retry);
                start = resume_point(&shared, &cfg, &start, false);
            }
        }
    }
    restart_marker(&shared);
    *shared.io_socket.lock() = None;
    set_run(&shared, IoRun::No, "");
}

/// Tells the SQL thread that a transaction received in part will not be completed.
fn restart_marker(shared: &Shared) {
    shared
        .relay
        .push(Item::Restart, shared.relay.epoch(), &|| false);
}

fn set_run(shared: &Shared, run: IoRun, state: &'static str) {
    let mut st = shared.state.lock();
    st.io = run;
    st.io_state = state;
}

fn sleep_unless_stopped(shared: &Shared, d: Duration) {
    let until = std::time::Instant::now() + d;
    while !shared.io_stopping() && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// After the last transaction received whole (after a resync: what was applied,
/// which the SQL thread put there).
fn resume_point(shared: &Shared, cfg: &IoConfig, start: &Start, resync: bool) -> Start {
    let applied = shared.slave_pos.lock().list();
    let st = shared.state.lock();
    let Some(r) = &st.received else {
        return start.clone();
    };
    if cfg.use_gtid {
        let mut list = match start {
            _ if resync => applied,
            Start::Gtid(l) => l.clone(),
            Start::File(..) => GtidList::default(),
        };
        for g in r.gtids.positions() {
            list.record(g);
        }
        Start::Gtid(list)
    } else {
        Start::File(r.file.clone(), r.pos)
    }
}

/// One connection: set-up, dump request, then events until stopped or failed.
fn session(
    shared: &Arc<Shared>,
    cfg: &IoConfig,
    start: &Start,
    connected_once: &mut bool,
) -> Result<(), Failure> {
    let connecting = !*connected_once;
    let epoch = shared.relay.epoch();
    let fail = |e: ClientError| client_failure(&e, cfg, connecting);
    let mut conn = PrimaryConn::connect(&cfg.connect).map_err(fail)?;
    let facts = conn.prepare_replica(cfg.heartbeat).map_err(fail)?;
    if facts.server_id == Some(cfg.server_id) {
        return Err(Failure {
            code: ER_SLAVE_FATAL,
            message: "Fatal error: The slave I/O thread stops because master and slave have \
                      equal MariaDB server ids; these ids must be different for replication \
                      to work (or the --replicate-same-server-id option must be used on slave \
                      but this does not always make sense; please check the manual before \
                      using it)."
                .into(),
            retry: false,
        });
    }
    {
        let mut st = shared.state.lock();
        st.master_server_id = facts.server_id.unwrap_or(0);
        st.clock_diff = facts.unix_time.map_or(0, |t| t as i64 - now_secs() as i64);
    }
    conn.register_slave(cfg.server_id, "", cfg.report_port)
        .map_err(fail)?;
    let mut stream = match start {
        Start::Gtid(list) => {
            let text = basalt_replication::gtid::format_list(&list.positions());
            conn.dump_gtid(cfg.server_id, &text, false, 0)
        }
        Start::File(file, pos) => conn.dump(&DumpRequest {
            server_id: cfg.server_id,
            file: file.clone(),
            pos: (*pos).min(u32::MAX as u64) as u32,
            flags: 0,
        }),
    }
    .map_err(fail)?;
    *shared.io_socket.lock() = stream.try_clone_socket().ok();
    if shared.io_stopping() {
        return Ok(());
    }
    *connected_once = true;
    {
        let mut st = shared.state.lock();
        st.io = IoRun::Yes;
        st.io_state = IO_WAITING;
        st.last_io = None;
        if st.received.is_none() {
            let (file, pos) = match start {
                Start::File(f, p) => (f.clone(), *p),
                Start::Gtid(_) => (String::new(), 4),
            };
            st.received = Some(Received {
                file,
                pos,
                gtids: GtidList::default(),
            });
        }
    }
    Reader::new(shared.clone(), start, epoch).read(&mut stream, cfg)
}

/// The state of one dump stream: the primary's file, the open transaction.
struct Reader {
    shared: Arc<Shared>,
    decoder: Decoder,
    file: Arc<str>,
    /// The transaction being received: its GTID, and whether it is one DDL
    /// statement without BEGIN / COMMIT.
    group: Option<(Gtid, bool)>,
    /// The relay epoch this connection began in.
    epoch: u64,
}

impl Reader {
    fn new(shared: Arc<Shared>, start: &Start, epoch: u64) -> Reader {
        let file: Arc<str> = match start {
            Start::File(f, _) => f.as_str().into(),
            Start::Gtid(_) => "".into(),
        };
        Reader {
            shared,
            decoder: Decoder::new(),
            file,
            group: None,
            epoch,
        }
    }

    fn read(
        &mut self,
        stream: &mut basalt_replication::replica::EventStream,
        cfg: &IoConfig,
    ) -> Result<(), Failure> {
        let fail = |e: ClientError| client_failure(&e, cfg, false);
        loop {
            if self.shared.io_stopping() {
                return Ok(());
            }
            let bytes = match stream.next_event() {
                Ok(Some(b)) => b,
                Ok(None) => return Err(fail(ClientError::Closed)),
                Err(_) if self.shared.io_stopping() => return Ok(()),
                Err(e) => return Err(fail(e)),
            };
            let (header, event) = self.decoder.decode(&bytes).map_err(|e| Failure {
                code: ER_RELAY_WRITE,
                message: format!(
                    "Relay log write failure: could not queue event from master ({e})"
                ),
                retry: false,
            })?;
            if !self.track(&header, &event) {
                continue;
            }
            let item = Item::Event {
                header,
                event: Box::new(event),
                file: self.file.clone(),
                len: bytes.len(),
            };
            if !self.queue(item) {
                return Ok(());
            }
        }
    }

    fn queue(&self, item: Item) -> bool {
        let shared = self.shared.clone();
        if self.shared.relay.bytes() >= super::relay::CAPACITY {
            self.shared.state.lock().io_state = IO_QUEUE_FULL;
        }
        let ok = self
            .shared
            .relay
            .push(item, self.epoch, &move || shared.io_stopping());
        let mut st = self.shared.state.lock();
        if st.io_state == IO_QUEUE_FULL {
            st.io_state = IO_WAITING;
        }
        ok
    }

    /// Updates the read position and the transaction state; false for events the
    /// SQL thread does not need (heartbeats, FORMAT_DESCRIPTION).
    fn track(&mut self, header: &basalt_replication::event::EventHeader, event: &Event) -> bool {
        let mut st = self.shared.state.lock();
        if self.shared.relay.epoch() != self.epoch {
            // The SQL thread resynced: this connection's events are dropped, and
            // the position it would record is no longer where to resume.
            return false;
        }
        let queue = match event {
            Event::Rotate { file, pos } => {
                self.file = file.as_str().into();
                st.read_file = file.clone();
                st.read_pos = *pos;
                if self.group.is_none() {
                    let received = st.received.get_or_insert_with(Default::default);
                    received.file = file.clone();
                    received.pos = *pos;
                }
                return true;
            }
            Event::Heartbeat { file } => {
                st.heartbeats += 1;
                if self.group.is_none() {
                    self.file = file.as_str().into();
                    st.read_file = file.clone();
                    if header.log_pos != 0 {
                        st.read_pos = header.log_pos as u64;
                    }
                }
                return false;
            }
            Event::FormatDescription(_) => false,
            _ => true,
        };
        if header.log_pos != 0 {
            st.read_pos = header.log_pos as u64;
            st.read_file = self.file.to_string();
        }
        let ends = match event {
            Event::Gtid(g) => {
                self.group = Some((g.gtid, g.flags.standalone));
                false
            }
            Event::Xid(_) => true,
            Event::Query(q) => {
                let sql = q.sql.trim_ascii();
                self.group.is_some_and(|(_, standalone)| standalone)
                    || sql.eq_ignore_ascii_case(b"COMMIT")
                    || sql.eq_ignore_ascii_case(b"ROLLBACK")
            }
            _ => false,
        };
        if ends {
            if let Some((gtid, _)) = self.group.take() {
                st.gtid_io_pos.record(gtid);
                let received = st.received.get_or_insert_with(Default::default);
                received.gtids.record(gtid);
                received.file = self.file.to_string();
                received.pos = header.log_pos as u64;
            }
        } else if self.group.is_none() && header.log_pos != 0 {
            let (file, pos) = (self.file.to_string(), header.log_pos as u64);
            let received = st.received.get_or_insert_with(Default::default);
            received.file = file;
            received.pos = pos;
        }
        queue
    }
}

/// Stops a running I/O thread: sets the flag and shuts its socket so a blocked
/// read returns at once.
pub fn request_stop(shared: &Shared) {
    shared.io_stop.store(true, Ordering::Relaxed);
    if let Some(s) = shared.io_socket.lock().take() {
        let _ = s.shutdown(std::net::Shutdown::Both);
    }
}
