//! MariaDB global transaction ids: `domain-server-sequence`.
//!
//! A [`GtidList`] holds at most one GTID per replication domain (the last one), as
//! `@@gtid_binlog_pos` prints it; MariaDB's `gtid_binlog_state` holds the last GTID
//! per (domain, server) pair, which [`GtidList::state`] keeps too.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gtid {
    pub domain: u32,
    pub server: u32,
    pub seq: u64,
}

impl fmt::Display for Gtid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.domain, self.server, self.seq)
    }
}

impl Gtid {
    /// Parses `domain-server-seq` (surrounding spaces allowed).
    pub fn parse(text: &str) -> Option<Gtid> {
        let mut parts = text.trim().splitn(3, '-');
        let domain = parts.next()?.trim().parse().ok()?;
        let server = parts.next()?.trim().parse().ok()?;
        let seq = parts.next()?.trim().parse().ok()?;
        Some(Gtid {
            domain,
            server,
            seq,
        })
    }
}

/// The last GTID of each (domain, server) pair, ordered by domain then server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GtidList {
    entries: Vec<Gtid>,
}

impl GtidList {
    /// Parses a comma-separated list (`''` is empty). `None` on a malformed entry.
    pub fn parse(text: &str) -> Option<GtidList> {
        let mut list = GtidList::default();
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            list.record(Gtid::parse(part)?);
        }
        Some(list)
    }

    /// Records `gtid` as the last one of its (domain, server) pair.
    pub fn record(&mut self, gtid: Gtid) {
        let key = (gtid.domain, gtid.server);
        match self
            .entries
            .binary_search_by_key(&key, |g| (g.domain, g.server))
        {
            Ok(i) => self.entries[i] = gtid,
            Err(i) => self.entries.insert(i, gtid),
        }
    }

    /// Every (domain, server) pair's last GTID (`@@gtid_binlog_state`).
    pub fn state(&self) -> &[Gtid] {
        &self.entries
    }

    /// The highest sequence number used in `domain` by any server.
    pub fn last_seq(&self, domain: u32) -> u64 {
        self.entries
            .iter()
            .filter(|g| g.domain == domain)
            .map(|g| g.seq)
            .max()
            .unwrap_or(0)
    }

    /// The last GTID of each domain (`@@gtid_binlog_pos`): the one with the highest
    /// sequence number.
    pub fn positions(&self) -> Vec<Gtid> {
        let mut out: Vec<Gtid> = Vec::new();
        for g in &self.entries {
            match out.last_mut() {
                Some(last) if last.domain == g.domain => {
                    if g.seq > last.seq {
                        *last = *g;
                    }
                }
                _ => out.push(*g),
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// `a,b,c` as MariaDB prints GTID lists.
pub fn format_list(gtids: &[Gtid]) -> String {
    gtids
        .iter()
        .map(|g| g.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_record_and_positions() {
        let mut l = GtidList::parse("0-1-5, 0-2-7,1-1-3").expect("valid list");
        assert_eq!(format_list(l.state()), "0-1-5,0-2-7,1-1-3");
        assert_eq!(format_list(&l.positions()), "0-2-7,1-1-3");
        l.record(Gtid {
            domain: 0,
            server: 1,
            seq: 8,
        });
        assert_eq!(format_list(&l.positions()), "0-1-8,1-1-3");
        assert_eq!(l.last_seq(0), 8);
        assert!(GtidList::parse("0-1").is_none());
        assert!(GtidList::parse("").is_some_and(|l| l.is_empty()));
    }
}
