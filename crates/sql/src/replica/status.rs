//! What the replica threads share with each other and with SHOW SLAVE STATUS:
//! run states, positions, errors and counters, and the stop flags.

use super::filter::{Filters, Rule};
use super::gtid_pos::SlavePos;
use super::master_info::MasterInfo;
use super::relay::Relay;
use basalt_common::Value;
use basalt_replication::gtid::GtidList;
use parking_lot::{Condvar, Mutex, RwLock};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// `Slave_IO_Running`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IoRun {
    #[default]
    No,
    Connecting,
    Yes,
}

impl IoRun {
    fn name(self) -> &'static str {
        match self {
            IoRun::No => "No",
            IoRun::Connecting => "Connecting",
            IoRun::Yes => "Yes",
        }
    }
}

pub const SQL_WAITING: &str = "Slave has read all relay log; waiting for more updates";
pub const SQL_READING: &str = "Reading event from the relay log";
pub const SQL_DELAYING: &str = "Waiting until MASTER_DELAY seconds after master executed event";
pub const IO_CONNECTING: &str = "Connecting to master";
pub const IO_WAITING: &str = "Waiting for master to send event";
pub const IO_QUEUE_FULL: &str = "Waiting for the slave SQL thread to free enough relay log space";
pub const IO_RECONNECTING: &str = "Reconnecting after a failed master event read";

/// Where an I/O thread restarted while the SQL thread runs continues: after the
/// last transaction it received whole.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Received {
    pub file: String,
    pub pos: u64,
    pub gtids: GtidList,
}

#[derive(Debug, Default)]
pub struct State {
    pub io: IoRun,
    pub io_state: &'static str,
    pub sql_running: bool,
    pub sql_state: &'static str,
    /// The I/O thread's position in the primary's log.
    pub read_file: String,
    pub read_pos: u64,
    /// After the last event applied (or passed over) outside a transaction.
    pub exec_file: String,
    pub exec_pos: u64,
    /// The last transaction received whole, per domain (`Gtid_IO_Pos`).
    pub gtid_io_pos: GtidList,
    /// Set while an I/O thread runs, kept after it stops while the SQL thread
    /// still has its events queued.
    pub received: Option<Received>,
    pub last_io: Option<(u16, String)>,
    pub last_sql: Option<(u16, String)>,
    pub master_server_id: u32,
    /// Primary clock minus local clock, seconds.
    pub clock_diff: i64,
    /// The primary's timestamp of the transaction being applied.
    pub applying_since: Option<u32>,
    /// Unix time at which a MASTER_DELAY wait ends.
    pub delay_until: Option<u64>,
    pub ddl_groups: u64,
    pub non_transactional_groups: u64,
    pub transactional_groups: u64,
    pub executed_entries: u64,
    pub heartbeats: u64,
    /// START SLAVE UNTIL's condition as shown (Until_Condition, _Log_File,
    /// _Log_Pos), kept after the SQL thread stopped at it.
    pub until: Option<(&'static str, String, u64)>,
}

/// Shared by the controller and both threads.
#[derive(Default)]
pub struct Shared {
    pub state: Mutex<State>,
    pub slave_pos: Mutex<SlavePos>,
    pub relay: Relay,
    pub io_stop: AtomicBool,
    pub sql_stop: AtomicBool,
    /// The SQL thread failed: the I/O thread reconnects at once from the applied
    /// position (what it had queued was dropped).
    pub io_resync: AtomicBool,
    /// The I/O thread's socket while connected, shut down by STOP SLAVE.
    pub io_socket: Mutex<Option<TcpStream>>,
    /// The replication filters; the SQL thread takes them at each transaction's
    /// start.
    pub filters: RwLock<Arc<Filters>>,
    /// Signalled whenever `slave_pos` changes (MASTER_GTID_WAIT waits on it).
    pub pos_changed: Condvar,
}

impl Shared {
    pub fn io_stopping(&self) -> bool {
        self.io_stop.load(Ordering::Relaxed)
    }

    pub fn sql_stopping(&self) -> bool {
        self.sql_stop.load(Ordering::Relaxed)
    }

    /// After an SQL thread error: drops the queue (the failed transaction's
    /// events are gone from it) and has the I/O thread fetch again from the
    /// applied position, so a restarted SQL thread sees the transaction whole.
    pub fn resync_from_applied(&self, use_gtid: bool) {
        let applied = self.slave_pos.lock().list();
        let mut st = self.state.lock();
        self.relay.resync();
        if st.received.is_some() {
            let (file, pos) = (st.exec_file.clone(), st.exec_pos);
            st.received = Some(Received {
                file,
                pos,
                gtids: if use_gtid {
                    applied.clone()
                } else {
                    GtidList::default()
                },
            });
            st.gtid_io_pos = applied;
        }
        drop(st);
        self.io_resync.store(true, Ordering::Relaxed);
        if let Some(s) = self.io_socket.lock().as_ref() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// SHOW SLAVE STATUS's columns (MariaDB 10.11), and SHOW ALL SLAVES STATUS's
/// extra ones.
pub const COLUMNS: &[&str] = &[
    "Slave_IO_State",
    "Master_Host",
    "Master_User",
    "Master_Port",
    "Connect_Retry",
    "Master_Log_File",
    "Read_Master_Log_Pos",
    "Relay_Log_File",
    "Relay_Log_Pos",
    "Relay_Master_Log_File",
    "Slave_IO_Running",
    "Slave_SQL_Running",
    "Replicate_Do_DB",
    "Replicate_Ignore_DB",
    "Replicate_Do_Table",
    "Replicate_Ignore_Table",
    "Replicate_Wild_Do_Table",
    "Replicate_Wild_Ignore_Table",
    "Last_Errno",
    "Last_Error",
    "Skip_Counter",
    "Exec_Master_Log_Pos",
    "Relay_Log_Space",
    "Until_Condition",
    "Until_Log_File",
    "Until_Log_Pos",
    "Master_SSL_Allowed",
    "Master_SSL_CA_File",
    "Master_SSL_CA_Path",
    "Master_SSL_Cert",
    "Master_SSL_Cipher",
    "Master_SSL_Key",
    "Seconds_Behind_Master",
    "Master_SSL_Verify_Server_Cert",
    "Last_IO_Errno",
    "Last_IO_Error",
    "Last_SQL_Errno",
    "Last_SQL_Error",
    "Replicate_Ignore_Server_Ids",
    "Master_Server_Id",
    "Master_SSL_Crl",
    "Master_SSL_Crlpath",
    "Using_Gtid",
    "Gtid_IO_Pos",
    "Replicate_Do_Domain_Ids",
    "Replicate_Ignore_Domain_Ids",
    "Parallel_Mode",
    "SQL_Delay",
    "SQL_Remaining_Delay",
    "Slave_SQL_Running_State",
    "Slave_DDL_Groups",
    "Slave_Non_Transactional_Groups",
    "Slave_Transactional_Groups",
    "Replicate_Rewrite_DB",
];

pub const ALL_LEADING: &[&str] = &["Connection_name", "Slave_SQL_State"];
pub const ALL_TRAILING: &[&str] = &[
    "Retried_transactions",
    "Max_relay_log_size",
    "Executed_log_entries",
    "Slave_received_heartbeats",
    "Slave_heartbeat_period",
    "Gtid_Slave_Pos",
];

/// The columns' numeric ones (sent as integers, NULL where MariaDB has NULL).
fn u(v: u64) -> Value {
    Value::UInt(v)
}

fn s(v: &str) -> Value {
    Value::str(v)
}

impl State {
    /// `Seconds_Behind_Master`: NULL unless both threads run; else how long ago
    /// the primary ran the transaction being applied (0 between transactions).
    fn seconds_behind(&self) -> Value {
        if self.io != IoRun::Yes || !self.sql_running {
            return Value::Null;
        }
        match self.applying_since {
            Some(ts) => {
                let master_now = now_secs() as i64 + self.clock_diff;
                u((master_now - ts as i64).max(0) as u64)
            }
            None => u(0),
        }
    }
}

/// One SHOW [ALL] SLAVE[S] STATUS row.
pub fn row(info: &MasterInfo, shared: &Shared, all: bool) -> Vec<Value> {
    let st = shared.state.lock();
    let queued = shared.relay.bytes() as u64;
    let err = |e: &Option<(u16, String)>| match e {
        Some((c, m)) => (u(*c as u64), s(m)),
        None => (u(0), s("")),
    };
    let (io_errno, io_error) = err(&st.last_io);
    let (sql_errno, sql_error) = err(&st.last_sql);
    let remaining = match st.delay_until {
        Some(t) if st.sql_running => u(t.saturating_sub(now_secs())),
        _ => Value::Null,
    };
    let ids: Vec<String> = info.ignore_server_ids.iter().map(u64::to_string).collect();
    let sql_state = if st.sql_running { st.sql_state } else { "" };
    let gtid_io = basalt_replication::gtid::format_list(&st.gtid_io_pos.positions());
    let filters = shared.filters.read().clone();
    let rule = |r: Rule| s(&filters.show(r));
    let until = st.until.clone().unwrap_or(("None", String::new(), 0));
    let mut row = vec![
        s(st.io_state),
        s(&info.host),
        s(&info.user),
        u(info.port),
        u(info.connect_retry),
        s(&st.read_file),
        u(st.read_pos),
        s(""),
        u(4),
        s(&st.exec_file),
        s(st.io.name()),
        s(if st.sql_running { "Yes" } else { "No" }),
        rule(Rule::DoDb),
        rule(Rule::IgnoreDb),
        rule(Rule::DoTable),
        rule(Rule::IgnoreTable),
        rule(Rule::WildDoTable),
        rule(Rule::WildIgnoreTable),
        sql_errno.clone(),
        sql_error.clone(),
        u(0),
        u(st.exec_pos),
        u(queued),
        s(until.0),
        s(&until.1),
        u(until.2),
        s("No"),
        s(""),
        s(""),
        s(""),
        s(""),
        s(""),
        st.seconds_behind(),
        s("No"),
        io_errno,
        io_error,
        sql_errno,
        sql_error,
        s(&ids.join(",")),
        u(st.master_server_id as u64),
        s(""),
        s(""),
        s(info.use_gtid.name()),
        s(&gtid_io),
        s(""),
        s(""),
        s("optimistic"),
        u(info.delay),
        remaining,
        s(sql_state),
        u(st.ddl_groups),
        u(st.non_transactional_groups),
        u(st.transactional_groups),
        rule(Rule::RewriteDb),
    ];
    if all {
        let mut full = vec![s(""), s(sql_state)];
        full.append(&mut row);
        full.extend([
            u(0),
            u(1 << 30),
            u(st.executed_entries),
            u(st.heartbeats),
            s(&format!("{:.3}", info.heartbeat_period)),
            s(&shared.slave_pos.lock().text()),
        ]);
        return full;
    }
    row
}

/// Columns sent as integers.
const NUMERIC: &[&str] = &[
    "Master_Port",
    "Connect_Retry",
    "Read_Master_Log_Pos",
    "Relay_Log_Pos",
    "Last_Errno",
    "Skip_Counter",
    "Exec_Master_Log_Pos",
    "Relay_Log_Space",
    "Until_Log_Pos",
    "Seconds_Behind_Master",
    "Last_IO_Errno",
    "Last_SQL_Errno",
    "Master_Server_Id",
    "SQL_Delay",
    "SQL_Remaining_Delay",
    "Slave_DDL_Groups",
    "Slave_Non_Transactional_Groups",
    "Slave_Transactional_Groups",
    "Retried_transactions",
    "Max_relay_log_size",
    "Executed_log_entries",
    "Slave_received_heartbeats",
];

/// SHOW [ALL] SLAVE[S] STATUS's columns, each with whether it is numeric.
pub fn columns(all: bool) -> Vec<(&'static str, bool)> {
    let mut names: Vec<&'static str> = Vec::new();
    if all {
        names.extend(ALL_LEADING);
    }
    names.extend(COLUMNS);
    if all {
        names.extend(ALL_TRAILING);
    }
    names
        .into_iter()
        .map(|n| (n, NUMERIC.contains(&n)))
        .collect()
}
