//! The replica's connection settings and positions (`CHANGE MASTER TO`), kept in
//! `master.info` in the data directory.
//!
//! The file is rewritten whole (temporary file, fsync, rename, directory fsync) on
//! CHANGE MASTER, RESET SLAVE and when the threads stop; while they run, the
//! positions in it may lag behind what was applied. That is safe: the applied GTID
//! position commits with the rows (`mysql.gtid_slave_pos`, see
//! [`super::gtid_pos`]), and the file records the GTID position its file/offset
//! pair belongs to, so a start that finds the table ahead of the file resumes by
//! GTID (see [`MasterInfo::exec_pos_is_current`]).
//!
//! Format: one `key=value` line per setting, values with `\`, newline escaped.

use crate::front::native::replica::{MasterOpt, UseGtid};
use basalt_common::MySqlError;
use basalt_replication::gtid::GtidList;
use basalt_storage::io::{FileSystem, OpenOptions};
use std::path::Path;

pub const FILE: &str = "master.info";
const TMP: &str = "master.info.tmp";

/// 1210 `ER_WRONG_ARGUMENTS`.
const ER_WRONG_ARGUMENTS: u16 = 1210;
/// 1624 `ER_SLAVE_HEARTBEAT_VALUE_OUT_OF_RANGE`.
const ER_HEARTBEAT_RANGE: u16 = 1624;
/// 1729 `ER_MASTER_DELAY_VALUE_OUT_OF_RANGE`.
const ER_DELAY_RANGE: u16 = 1729;
/// 4190 `WARN_OPTION_CHANGING`.
pub const WARN_OPTION_CHANGING: u16 = 4190;
const MAX_DELAY: u64 = 2_147_483_647;
const MAX_HEARTBEAT: f64 = 4_294_967.0;

#[derive(Clone, Debug, PartialEq)]
pub struct MasterInfo {
    pub host: String,
    pub port: u64,
    pub user: String,
    pub password: String,
    pub connect_retry: u64,
    /// Seconds; 0 turns heartbeats off.
    pub heartbeat_period: f64,
    pub use_gtid: UseGtid,
    pub delay: u64,
    pub ignore_server_ids: Vec<u64>,
    /// Where the I/O thread starts (and the SQL thread's executed position) when
    /// not using GTIDs.
    pub log_file: String,
    pub log_pos: u64,
    /// `@@gtid_slave_pos` when `log_file` / `log_pos` were recorded.
    pub pos_gtid: String,
}

impl MasterInfo {
    /// A fresh configuration (MariaDB's defaults: port 3306, retry 60 s, heartbeat
    /// half of `slave_net_timeout`, GTID `Slave_Pos`).
    pub fn new(slave_net_timeout: u64) -> MasterInfo {
        MasterInfo {
            host: String::new(),
            port: 3306,
            user: String::new(),
            password: String::new(),
            connect_retry: 60,
            heartbeat_period: slave_net_timeout as f64 / 2.0,
            use_gtid: UseGtid::SlavePos,
            delay: 0,
            ignore_server_ids: Vec::new(),
            log_file: String::new(),
            log_pos: 4,
            pos_gtid: String::new(),
        }
    }

    /// Applies CHANGE MASTER's options; the notes (4190) to give, or MariaDB's
    /// error with nothing changed.
    pub fn change(&mut self, opts: &[MasterOpt]) -> Result<Vec<MySqlError>, MySqlError> {
        let mut next = self.clone();
        let mut notes = Vec::new();
        let mut gtid_named = false;
        let mut pos_named = false;
        let mut server_changed = false;
        for opt in opts {
            match opt {
                MasterOpt::Host(h) => {
                    if h.is_empty() {
                        return Err(MySqlError::new(
                            ER_WRONG_ARGUMENTS,
                            "HY000",
                            "Incorrect arguments to MASTER_HOST",
                        ));
                    }
                    next.host = h.clone();
                    server_changed = true;
                }
                MasterOpt::Port(p) => {
                    next.port = *p;
                    server_changed = true;
                }
                MasterOpt::User(u) => next.user = u.clone(),
                MasterOpt::Password(p) => next.password = p.clone(),
                MasterOpt::ConnectRetry(r) => next.connect_retry = (*r).max(1),
                MasterOpt::HeartbeatPeriod(s) => {
                    if *s > MAX_HEARTBEAT {
                        return Err(MySqlError::new(
                            ER_HEARTBEAT_RANGE,
                            "HY000",
                            "The requested value for the heartbeat period is either negative or \
                             exceeds the maximum allowed (4294967 seconds)",
                        ));
                    }
                    next.heartbeat_period = *s;
                }
                MasterOpt::Delay(d) => {
                    if *d > MAX_DELAY {
                        return Err(MySqlError::new(
                            ER_DELAY_RANGE,
                            "HY000",
                            format!(
                                "The requested value {d} for the master delay exceeds the \
                                 maximum {MAX_DELAY}"
                            ),
                        ));
                    }
                    next.delay = *d;
                }
                MasterOpt::UseGtid(g) => {
                    next.use_gtid = *g;
                    gtid_named = true;
                }
                MasterOpt::LogFile(f) => {
                    next.log_file = f.clone();
                    pos_named = true;
                }
                MasterOpt::LogPos(p) => {
                    next.log_pos = (*p).max(4);
                    pos_named = true;
                }
                MasterOpt::IgnoreServerIds(ids) => {
                    let mut ids = ids.clone();
                    ids.sort_unstable();
                    ids.dedup();
                    next.ignore_server_ids = ids;
                }
                MasterOpt::Ssl(_) | MasterOpt::Unsupported(_) => {}
            }
        }
        if pos_named {
            next.pos_gtid.clear();
            if !gtid_named && next.use_gtid != UseGtid::No {
                notes.push(MySqlError::new(
                    WARN_OPTION_CHANGING,
                    "HY000",
                    format!(
                        "CHANGE MASTER TO is implicitly changing the value of 'Using_Gtid' from \
                         '{}' to 'No'",
                        next.use_gtid.name()
                    ),
                ));
                next.use_gtid = UseGtid::No;
            }
        } else if server_changed {
            // A new primary: its file names mean nothing here (MariaDB resets them).
            next.log_file.clear();
            next.log_pos = 4;
            next.pos_gtid.clear();
        }
        *self = next;
        Ok(notes)
    }

    /// Whether the recorded file/offset belong to `slave_pos`, the applied GTID
    /// position: false when transactions committed after the file was written
    /// (then the replica resumes by GTID).
    pub fn exec_pos_is_current(&self, slave_pos: &GtidList) -> bool {
        let now = basalt_replication::gtid::format_list(&slave_pos.positions());
        self.pos_gtid == now
    }

    fn encode(&self) -> String {
        let ids: Vec<String> = self.ignore_server_ids.iter().map(u64::to_string).collect();
        let fields: [(&str, String); 12] = [
            ("host", self.host.clone()),
            ("port", self.port.to_string()),
            ("user", self.user.clone()),
            ("password", self.password.clone()),
            ("connect_retry", self.connect_retry.to_string()),
            ("heartbeat_period", self.heartbeat_period.to_string()),
            ("use_gtid", self.use_gtid.name().to_string()),
            ("delay", self.delay.to_string()),
            ("ignore_server_ids", ids.join(",")),
            ("log_file", self.log_file.clone()),
            ("log_pos", self.log_pos.to_string()),
            ("pos_gtid", self.pos_gtid.clone()),
        ];
        let mut out = String::from("basalt-master-info 1\n");
        for (k, v) in fields {
            out.push_str(k);
            out.push('=');
            out.push_str(&v.replace('\\', "\\\\").replace('\n', "\\n"));
            out.push('\n');
        }
        out
    }

    fn decode(text: &str, slave_net_timeout: u64) -> Option<MasterInfo> {
        let mut lines = text.lines();
        if lines.next()? != "basalt-master-info 1" {
            return None;
        }
        let mut m = MasterInfo::new(slave_net_timeout);
        for line in lines {
            let (k, v) = line.split_once('=')?;
            let v = unescape(v);
            match k {
                "host" => m.host = v,
                "port" => m.port = v.parse().ok()?,
                "user" => m.user = v,
                "password" => m.password = v,
                "connect_retry" => m.connect_retry = v.parse().ok()?,
                "heartbeat_period" => m.heartbeat_period = v.parse().ok()?,
                "use_gtid" => {
                    m.use_gtid = match v.as_str() {
                        "No" => UseGtid::No,
                        "Current_Pos" => UseGtid::CurrentPos,
                        _ => UseGtid::SlavePos,
                    }
                }
                "delay" => m.delay = v.parse().ok()?,
                "ignore_server_ids" => {
                    m.ignore_server_ids = v
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::parse)
                        .collect::<Result<_, _>>()
                        .ok()?
                }
                "log_file" => m.log_file = v,
                "log_pos" => m.log_pos = v.parse().ok()?,
                "pos_gtid" => m.pos_gtid = v,
                _ => {}
            }
        }
        Some(m)
    }

    /// Reads `dir/master.info`: `Ok(None)` when there is none (never configured, or
    /// RESET SLAVE ALL).
    pub fn load(
        fs: &dyn FileSystem,
        dir: &Path,
        slave_net_timeout: u64,
    ) -> std::io::Result<Option<MasterInfo>> {
        let path = dir.join(FILE);
        if !fs.exists(&path) {
            return Ok(None);
        }
        let file = fs.open(
            &path,
            OpenOptions {
                create: false,
                direct: false,
            },
        )?;
        let mut buf = vec![0; file.len()? as usize];
        file.read_at(&mut buf, 0)?;
        let text = String::from_utf8_lossy(&buf);
        MasterInfo::decode(&text, slave_net_timeout)
            .map(Some)
            .ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{} is not a Basalt master info file", path.display()),
                )
            })
    }

    /// Writes `dir/master.info` durably.
    pub fn store(&self, fs: &dyn FileSystem, dir: &Path) -> std::io::Result<()> {
        basalt_storage::io::replace_file(fs, dir, FILE, TMP, self.encode().as_bytes())
    }

    /// Removes `dir/master.info` (RESET SLAVE ALL).
    pub fn remove(fs: &dyn FileSystem, dir: &Path) -> std::io::Result<()> {
        let path = dir.join(FILE);
        if fs.exists(&path) {
            fs.remove(&path)?;
            fs.sync_dir(dir)?;
        }
        Ok(())
    }
}

fn unescape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_field() {
        let mut m = MasterInfo::new(60);
        m.change(&[
            MasterOpt::Host("h\nx\\y".into()),
            MasterOpt::Port(3307),
            MasterOpt::User("repl".into()),
            MasterOpt::Password("p=w".into()),
            MasterOpt::HeartbeatPeriod(0.5),
            MasterOpt::IgnoreServerIds(vec![7, 3, 7]),
            MasterOpt::LogFile("mariadb-bin.000002".into()),
            MasterOpt::LogPos(1234),
        ])
        .expect("valid options");
        let back = MasterInfo::decode(&m.encode(), 60).expect("decodes");
        assert_eq!(back, m);
        assert_eq!(back.ignore_server_ids, vec![3, 7]);
        assert_eq!(back.use_gtid, UseGtid::No);
    }

    #[test]
    fn positions_switch_gtid_off_with_a_note_unless_named() {
        let mut m = MasterInfo::new(60);
        let notes = m.change(&[MasterOpt::LogPos(2)]).expect("valid");
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].code, WARN_OPTION_CHANGING);
        assert_eq!(m.log_pos, 4);
        let mut m = MasterInfo::new(60);
        let notes = m
            .change(&[
                MasterOpt::LogFile("x".into()),
                MasterOpt::UseGtid(UseGtid::SlavePos),
            ])
            .expect("valid");
        assert!(notes.is_empty());
        assert_eq!(m.use_gtid, UseGtid::SlavePos);
    }

    #[test]
    fn bad_values_change_nothing() {
        let mut m = MasterInfo::new(60);
        let before = m.clone();
        let e = m
            .change(&[MasterOpt::Port(1), MasterOpt::Host(String::new())])
            .expect_err("empty host");
        assert_eq!(e.code, ER_WRONG_ARGUMENTS);
        let e = m
            .change(&[MasterOpt::Delay(MAX_DELAY + 1)])
            .expect_err("delay");
        assert_eq!(e.code, ER_DELAY_RANGE);
        let e = m
            .change(&[MasterOpt::HeartbeatPeriod(5_000_000.0)])
            .expect_err("heartbeat");
        assert_eq!(e.code, ER_HEARTBEAT_RANGE);
        assert_eq!(m, before);
    }
}
