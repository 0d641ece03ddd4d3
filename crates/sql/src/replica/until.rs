//! START SLAVE UNTIL, as MariaDB 10.11 applies it:
//! - `MASTER_LOG_FILE = 'f', MASTER_LOG_POS = n`: the SQL thread stops before the
//!   first event outside a transaction that starts at or past (f, n) in the
//!   primary's binary log (a transaction begun before it is finished). The I/O
//!   thread keeps running.
//! - `MASTER_GTID_POS = 'list'` (GTID mode only): a transaction of a domain the
//!   list does not name, or names and has already reached, is passed over; the
//!   one with the list's server id and a sequence number at or past the list's
//!   reaches its domain (passed over too when past it); once every domain is
//!   reached, both threads stop after that transaction. MariaDB's primary does
//!   the passing over when the replica sends the list with its dump request;
//!   here the SQL thread does it, so it works with every primary.
//!
//! Passed-over transactions are not recorded in `@@gtid_slave_pos`; the queue is
//! dropped at the stop and fetched again from the applied position at the next
//! START SLAVE.

use crate::front::native::replica::{Threads, Until};
use basalt_common::MySqlError;
use basalt_replication::gtid::{Gtid, GtidList};

/// The condition START SLAVE sets, and its notes (MariaDB's checks and texts):
/// 1279 when the SQL thread is not started (the condition is ignored), 1949 for a
/// GTID condition outside GTID mode, 1277 for one without the I/O thread, 1941
/// for a list that does not parse, and note 1278 unless `skip_slave_start`.
pub fn from_statement(
    until: Option<&Until>,
    threads: Threads,
    use_gtid: bool,
    skip_slave_start: bool,
) -> Result<(Option<UntilState>, Vec<MySqlError>), MySqlError> {
    let Some(until) = until else {
        return Ok((None, Vec::new()));
    };
    if !threads.sql {
        let note = MySqlError::new(
            1279,
            "HY000",
            "SQL thread is not to be started so UNTIL options are ignored",
        );
        return Ok((None, vec![note]));
    }
    let state = match until {
        Until::Master { file, pos } => UntilState::Master {
            file: file.clone(),
            pos: *pos,
        },
        Until::Relay => {
            return Err(MySqlError::not_supported(
                "START SLAVE UNTIL RELAY_LOG_FILE (Basalt has no relay log)",
            ))
        }
        Until::Gtid(text) => {
            if !use_gtid {
                return Err(MySqlError::new(
                    1949,
                    "HY000",
                    "START SLAVE UNTIL master_gtid_pos requires that slave is using GTID",
                ));
            }
            if !threads.io {
                return Err(MySqlError::new(
                    1277,
                    "HY000",
                    "Incorrect parameter or combination of parameters for START SLAVE UNTIL",
                ));
            }
            let list = GtidList::parse(text)
                .ok_or_else(|| MySqlError::new(1941, "HY000", "Could not parse GTID list"))?;
            UntilState::gtid(&list)
        }
    };
    let notes = if skip_slave_start {
        Vec::new()
    } else {
        vec![MySqlError::new(
            1278,
            "HY000",
            "It is recommended to use --skip-slave-start when doing step-by-step replication \
             with START SLAVE UNTIL; otherwise, you will get problems if you get an unexpected \
             slave's mariadbd restart",
        )]
    };
    Ok((Some(state), notes))
}

#[derive(Clone, Debug, PartialEq)]
pub enum UntilState {
    Master { file: String, pos: u64 },
    Gtid { remaining: Vec<Gtid> },
}

/// What a transaction's GTID means under a GTID condition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GtidStep {
    /// Do not apply this transaction.
    pub skip: bool,
    /// Stop once it is done with.
    pub stop_after: bool,
}

impl UntilState {
    pub fn gtid(list: &GtidList) -> UntilState {
        UntilState::Gtid {
            remaining: list.positions(),
        }
    }

    /// SHOW SLAVE STATUS's Until_Condition, Until_Log_File, Until_Log_Pos.
    pub fn shown(&self) -> (&'static str, String, u64) {
        match self {
            UntilState::Master { file, pos } => ("Master", file.clone(), *pos),
            UntilState::Gtid { .. } => ("Gtid", String::new(), 0),
        }
    }

    /// Whether an event beginning at `start` of the primary's `file`, outside any
    /// transaction, is at or past the position (also when the two files are not
    /// of one binary log, as MariaDB, which then logs that the condition is bad).
    pub fn master_reached(&self, file: &str, start: u64) -> bool {
        let UntilState::Master {
            file: until,
            pos: until_pos,
        } = self
        else {
            return false;
        };
        let split = |f: &str| -> Option<(String, u64)> {
            let (base, ext) = f.rsplit_once('.')?;
            Some((base.to_string(), ext.parse().ok()?))
        };
        match (split(file), split(until)) {
            (Some((b, n)), Some((ub, un))) if b == ub => n > un || (n == un && start >= *until_pos),
            _ if file.is_empty() => false,
            _ => {
                tracing::error!(
                    "Slave SQL thread is stopped because UNTIL condition is bad \
                     (log '{file}' against '{until}')"
                );
                true
            }
        }
    }

    /// The step for a transaction with `gtid` (GTID condition only).
    pub fn at_gtid(&mut self, gtid: Gtid) -> GtidStep {
        let UntilState::Gtid { remaining } = self else {
            return GtidStep::default();
        };
        let Some(at) = remaining.iter().position(|g| g.domain == gtid.domain) else {
            return GtidStep {
                skip: true,
                stop_after: false,
            };
        };
        let until = remaining[at];
        if gtid.server != until.server || gtid.seq < until.seq {
            return GtidStep::default();
        }
        remaining.remove(at);
        GtidStep {
            skip: gtid.seq > until.seq,
            stop_after: remaining.is_empty(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(domain: u32, server: u32, seq: u64) -> Gtid {
        Gtid {
            domain,
            server,
            seq,
        }
    }

    #[test]
    fn master_position() {
        let u = UntilState::Master {
            file: "b-bin.000002".into(),
            pos: 500,
        };
        assert!(!u.master_reached("b-bin.000001", 9000));
        assert!(!u.master_reached("b-bin.000002", 499));
        assert!(u.master_reached("b-bin.000002", 500));
        assert!(u.master_reached("b-bin.000003", 4));
        assert!(!u.master_reached("", 4));
        assert!(u.master_reached("other.000001", 4), "a bad condition stops");
    }

    #[test]
    fn gtid_position() {
        let mut u = UntilState::gtid(&GtidList::parse("0-1-5,1-1-2").expect("valid GTID list"));
        let step = |skip, stop_after| GtidStep { skip, stop_after };
        assert_eq!(u.at_gtid(g(2, 1, 1)), step(true, false), "domain not named");
        assert_eq!(u.at_gtid(g(0, 1, 4)), step(false, false));
        assert_eq!(u.at_gtid(g(0, 2, 9)), step(false, false), "another server");
        assert_eq!(
            u.at_gtid(g(0, 1, 5)),
            step(false, false),
            "domain 0 reached"
        );
        assert_eq!(u.at_gtid(g(0, 1, 6)), step(true, false), "domain 0 done");
        assert_eq!(u.at_gtid(g(1, 1, 3)), step(true, true), "past: passed over");
        assert_eq!(u.shown(), ("Gtid", String::new(), 0));
    }
}
