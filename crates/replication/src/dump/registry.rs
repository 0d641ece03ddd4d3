//! Replicas that announced themselves with COM_REGISTER_SLAVE, for SHOW SLAVE HOSTS.
//!
//! COM_REGISTER_SLAVE's argument (little-endian):
//!
//! | field            | format                         |
//! |------------------|--------------------------------|
//! | server_id        | u32                            |
//! | report_host      | u8 length + bytes              |
//! | report_user      | u8 length + bytes              |
//! | report_password  | u8 length + bytes (at most 32) |
//! | report_port      | u16                            |
//! | rpl_recovery_rank| u32 (ignored, as MariaDB does) |
//! | master_id        | u32 (0: this server's id)      |
//!
//! Invariant: at most one entry per server id (a new registration replaces the old
//! one, whichever connection made it); an entry goes when the connection that made
//! it ends ([`ReplicaRegistry::unregister`]).

use super::{DumpError, ER_UNKNOWN_ERROR};
use parking_lot::Mutex;

/// MariaDB's MAX_PASSWORD_LENGTH.
const MAX_PASSWORD_LEN: usize = 32;

/// One registered replica (a row of SHOW SLAVE HOSTS: Server_id, Host, Port,
/// Master_id; User and Password only with `--show-slave-auth-info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaInfo {
    pub server_id: u32,
    pub host: String,
    pub user: String,
    pub password: String,
    pub port: u16,
    pub master_id: u32,
    /// The connection that registered it.
    pub connection_id: u64,
}

/// The replicas registered with this server, and which connection is dumping the
/// binlog to which replica server id; shared by every connection.
#[derive(Default)]
pub struct ReplicaRegistry {
    replicas: Mutex<Vec<ReplicaInfo>>,
    /// (replica server id, connection id) of running dumps with a server id.
    dumps: Mutex<Vec<(u32, u64)>>,
}

impl ReplicaRegistry {
    pub fn new() -> ReplicaRegistry {
        ReplicaRegistry::default()
    }

    /// Handles COM_REGISTER_SLAVE's argument from `connection_id`; `own_server_id`
    /// fills in a master_id of 0. Errors are 1105 with MariaDB's texts.
    pub fn register(
        &self,
        connection_id: u64,
        body: &[u8],
        own_server_id: u32,
    ) -> Result<ReplicaInfo, DumpError> {
        let mut info = parse_register(body)?;
        info.connection_id = connection_id;
        if info.master_id == 0 {
            info.master_id = own_server_id;
        }
        let mut list = self.replicas.lock();
        list.retain(|r| r.server_id != info.server_id);
        list.push(info.clone());
        Ok(info)
    }

    /// Forgets what `connection_id` registered and its dump (it ended).
    pub fn unregister(&self, connection_id: u64) {
        self.replicas
            .lock()
            .retain(|r| r.connection_id != connection_id);
        self.end_dump(connection_id);
    }

    /// Notes that `connection_id` dumps to replica `server_id`, and returns the
    /// connection that was dumping to the same server id: the replica reconnected,
    /// so that one is a zombie the caller kills (MariaDB's
    /// `kill_zombie_dump_threads`). Server id 0 (`mariadb-binlog`) is not tracked.
    pub fn start_dump(&self, server_id: u32, connection_id: u64) -> Option<u64> {
        if server_id == 0 {
            return None;
        }
        let mut dumps = self.dumps.lock();
        let old = dumps
            .iter()
            .position(|d| d.0 == server_id)
            .map(|i| dumps.swap_remove(i).1);
        dumps.push((server_id, connection_id));
        old.filter(|&c| c != connection_id)
    }

    /// The dump of `connection_id` ended.
    pub fn end_dump(&self, connection_id: u64) {
        self.dumps.lock().retain(|d| d.1 != connection_id);
    }

    /// The registered replicas, by server id.
    pub fn replicas(&self) -> Vec<ReplicaInfo> {
        let mut v = self.replicas.lock().clone();
        v.sort_by_key(|r| r.server_id);
        v
    }
}

fn parse_register(body: &[u8]) -> Result<ReplicaInfo, DumpError> {
    let wrong = || DumpError::Unknown("Wrong parameters to function register_slave".into());
    let mut p = Parser { b: body, at: 0 };
    let server_id = p.u32().ok_or_else(wrong)?;
    let host = p.string(
        usize::MAX,
        "Failed to register slave: too long 'report-host'",
    )?;
    let user = p.string(
        usize::MAX,
        "Failed to register slave: too long 'report-user'",
    )?;
    let password = p.string(
        MAX_PASSWORD_LEN,
        "Failed to register slave; too long 'report-password'",
    )?;
    if p.b.len() < p.at + 10 {
        return Err(wrong());
    }
    let port = p.u16().ok_or_else(wrong)?;
    let _rank = p.u32().ok_or_else(wrong)?;
    let master_id = p.u32().ok_or_else(wrong)?;
    Ok(ReplicaInfo {
        server_id,
        host,
        user,
        password,
        port,
        master_id,
        connection_id: 0,
    })
}

struct Parser<'a> {
    b: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|s| u16::from_le_bytes([s[0], s[1]]))
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// A u8-length string; MariaDB's `get_object`: too long for the field or for
    /// the packet is the same error.
    fn string(&mut self, max: usize, too_long: &str) -> Result<String, DumpError> {
        let err = || DumpError::Unknown(too_long.into());
        let n = *self.take(1).ok_or_else(err)?.first().ok_or_else(err)? as usize;
        if n > max {
            return Err(err());
        }
        let s = self.take(n).ok_or_else(err)?;
        Ok(String::from_utf8_lossy(s).into_owned())
    }
}

/// The errno [`ReplicaRegistry::register`] errors carry.
pub const REGISTER_ERRNO: u16 = ER_UNKNOWN_ERROR;

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(server_id: u32, host: &[u8], port: u16, master_id: u32) -> Vec<u8> {
        let mut p = server_id.to_le_bytes().to_vec();
        p.push(host.len() as u8);
        p.extend_from_slice(host);
        p.extend_from_slice(b"\x02ru\x02rp");
        p.extend_from_slice(&port.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&master_id.to_le_bytes());
        p
    }

    #[test]
    fn register_replace_and_unregister() {
        let r = ReplicaRegistry::new();
        let a = r
            .register(7, &packet(55, b"rhost", 3307, 0), 1)
            .expect("valid");
        assert_eq!(
            (a.server_id, a.host.as_str(), a.port, a.master_id),
            (55, "rhost", 3307, 1)
        );
        r.register(8, &packet(56, b"h2", 3308, 9), 1)
            .expect("valid");
        r.register(9, &packet(55, b"again", 3309, 0), 1)
            .expect("valid");
        let ids: Vec<_> = r
            .replicas()
            .iter()
            .map(|x| (x.server_id, x.connection_id))
            .collect();
        assert_eq!(ids, vec![(55, 9), (56, 8)]);
        r.unregister(7);
        assert_eq!(r.replicas().len(), 2);
        r.unregister(9);
        assert_eq!(r.replicas().len(), 1);
        assert_eq!(r.start_dump(55, 20), None);
        assert_eq!(r.start_dump(0, 21), None);
        assert_eq!(r.start_dump(55, 22), Some(20));
        r.end_dump(22);
        assert_eq!(r.start_dump(55, 23), None);
    }

    #[test]
    fn malformed_registrations_use_mariadb_texts() {
        let r = ReplicaRegistry::new();
        // Captured from MariaDB 10.11: a host length past the packet's end.
        let mut bad = 55u32.to_le_bytes().to_vec();
        bad.extend_from_slice(b"\x32ab");
        let e = r.register(1, &bad, 1).expect_err("host too long");
        assert_eq!(
            e.to_string(),
            "Failed to register slave: too long 'report-host'"
        );
        let mut short = packet(55, b"h", 1, 0);
        short.truncate(short.len() - 2);
        let e = r.register(1, &short, 1).expect_err("truncated");
        assert_eq!(e.to_string(), "Wrong parameters to function register_slave");
        assert!(r.register(1, b"\x01", 1).is_err());
        assert_eq!(e.client_error().map(|m| m.code), Some(REGISTER_ERRNO));
    }
}
