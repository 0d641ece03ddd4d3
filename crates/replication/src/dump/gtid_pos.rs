//! Where a MariaDB GTID replica starts (`@slave_connect_state`), as sql_repl.cc
//! decides it:
//!
//! 1. Check the requested state against the binlog state (every (domain, server)
//!    pair's last GTID in the whole log): a GTID the log does not have is an error,
//!    unless its domain is unknown here (then it is checked when that domain first
//!    appears) or `@slave_gtid_ignore_duplicates` is set and the replica is ahead.
//! 2. Pick the newest file whose GTID_LIST (the binlog state when the file began)
//!    is at or before every requested GTID; a requested GTID that is exactly the
//!    last of its domain in that list needs no skipping and is dropped.
//! 3. Stream from offset 4 of that file, skipping whole event groups up to and
//!    including each requested GTID ([`GtidFilter`]).
//!
//! Invariant: the [`ConnectState`] holds at most one GTID per domain; an entry is
//! removed once its position is reached, so nothing is skipped after that.

use super::event::{self, ChecksumAlg};
use super::reader::LogReader;
use super::DumpError;
use crate::{DumpSource, Gtid};

/// The binlog state: per domain, the last GTID of each server, the one logged last
/// at the end of its domain's run (as MariaDB's `rpl_binlog_state` keeps them).
#[derive(Clone, Debug, Default)]
pub struct BinlogState {
    entries: Vec<Gtid>,
}

impl BinlogState {
    /// Records `g` as its pair's last GTID and its domain's most recent one.
    pub fn update(&mut self, g: Gtid) {
        self.entries
            .retain(|e| !(e.domain == g.domain && e.server == g.server));
        let at = self
            .entries
            .iter()
            .rposition(|e| e.domain <= g.domain)
            .map_or(0, |i| i + 1);
        self.entries.insert(at, g);
    }

    pub fn load(&mut self, list: &[Gtid]) {
        self.entries.clear();
        for g in list {
            self.update(*g);
        }
    }

    pub fn find(&self, domain: u32, server: u32) -> Option<Gtid> {
        self.entries
            .iter()
            .find(|e| e.domain == domain && e.server == server)
            .copied()
    }

    /// The most recently logged GTID of `domain`.
    pub fn last_in_domain(&self, domain: u32) -> Option<Gtid> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.domain == domain)
            .copied()
    }

    pub fn gtids(&self) -> &[Gtid] {
        &self.entries
    }
}

/// A GTID the replica asked to start after, and what is known about it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    gtid: Gtid,
    /// The domain had no GTIDs when the dump started (`START_ON_EMPTY_DOMAIN`).
    empty_domain: bool,
}

/// The replica's requested position: one GTID per domain.
#[derive(Clone, Debug, Default)]
pub struct ConnectState {
    entries: Vec<Entry>,
}

impl ConnectState {
    /// Parses `@slave_connect_state`; two GTIDs of one domain are malformed.
    pub fn parse(text: &str) -> Option<ConnectState> {
        let mut st = ConnectState::default();
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            let gtid = Gtid::parse(part)?;
            if st.find(gtid.domain).is_some() {
                return None;
            }
            st.entries.push(Entry {
                gtid,
                empty_domain: false,
            });
        }
        Some(st)
    }

    fn find(&self, domain: u32) -> Option<&Entry> {
        self.entries.iter().find(|e| e.gtid.domain == domain)
    }

    fn remove(&mut self, domain: u32) {
        self.entries.retain(|e| e.gtid.domain != domain);
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// MariaDB's two texts for a requested GTID the log does not have.
pub fn missing_gtid(state: &BinlogState, g: Gtid) -> DumpError {
    let diverged = state
        .last_in_domain(g.domain)
        .is_some_and(|d| d.seq >= g.seq);
    DumpError::Fatal(if diverged {
        format!(
            "Error: connecting slave requested to start from GTID {g}, which is not in the \
             master's binlog. Since the master's binlog contains GTIDs with higher sequence \
             numbers, it probably means that the slave has diverged due to executing extra \
             erroneous transactions"
        )
    } else {
        format!(
            "Error: connecting slave requested to start from GTID {g}, which is not in the \
             master's binlog"
        )
    })
}

/// Step 1: checks the requested state against the binlog state.
pub fn check_start(
    st: &mut ConnectState,
    binlog: &BinlogState,
    ignore_duplicates: bool,
) -> Result<(), DumpError> {
    for e in &mut st.entries {
        let g = e.gtid;
        if binlog
            .find(g.domain, g.server)
            .is_some_and(|m| m.seq >= g.seq)
        {
            continue;
        }
        match binlog.last_in_domain(g.domain) {
            None => e.empty_domain = true,
            Some(d) if ignore_duplicates && d.seq < g.seq => {}
            Some(_) => return Err(missing_gtid(binlog, g)),
        }
    }
    Ok(())
}

/// MariaDB's `contains_all_slave_gtid`: whether every GTID the replica asked for is
/// in this file or a later one, given the file's GTID_LIST.
fn contains_all(st: &ConnectState, list: &[Gtid]) -> bool {
    for (i, l) in list.iter().enumerate() {
        let Some(e) = st.find(l.domain) else {
            return false;
        };
        if e.gtid.server == l.server && e.gtid.seq <= l.seq {
            if e.gtid.seq < l.seq {
                return false;
            }
            if list.get(i + 1).is_some_and(|n| n.domain == l.domain) {
                return false;
            }
        }
    }
    true
}

/// Step 2: the file to start in (oldest-to-newest `files`, searched newest first).
pub fn find_file(src: &dyn DumpSource, st: &mut ConnectState) -> Result<String, DumpError> {
    let dir = src.dir();
    for f in src.files().iter().rev() {
        let list = read_gtid_list(&dir.join(&f.name), f.size)?;
        let Some(list) = list else {
            return Ok(f.name.clone());
        };
        if contains_all(st, &list) {
            for l in &list {
                if st.find(l.domain).is_some_and(|e| e.gtid == *l) {
                    st.remove(l.domain);
                }
            }
            return Ok(f.name.clone());
        }
    }
    Err(DumpError::Fatal(
        "Could not find GTID state requested by slave in any binlog files. Probably the slave \
         state is too old and required binlog files have been purged."
            .into(),
    ))
}

/// The GTID_LIST right after a file's FD (`None` when the file has none: an old
/// binlog without GTIDs, which any state may start in).
fn read_gtid_list(path: &std::path::Path, size: u64) -> Result<Option<Vec<Gtid>>, DumpError> {
    let cannot = |m: &str| DumpError::Fatal(m.to_string());
    let r = LogReader::open(path).map_err(cannot)?;
    let fd = r
        .read_at(event::FIRST_EVENT, size, None)
        .map_err(|f| cannot(&f.error.to_string()))?;
    let alg = event::fd_checksum_alg(&fd);
    let next = event::FIRST_EVENT + fd.len() as u64;
    if next >= size {
        return Ok(None);
    }
    let ev = r
        .read_at(next, size, Some(alg))
        .map_err(|f| cannot(&f.error.to_string()))?;
    if event::event_type(&ev) != event::types::GTID_LIST {
        return Ok(None);
    }
    event::gtid_list_of(&ev, alg)
        .map(Some)
        .ok_or_else(|| cannot("Failed to read Gtid_list_log_event: corrupt binlog"))
}

/// The whole log's binlog state: the last file's GTID_LIST plus every GTID in it
/// up to its durable end.
pub fn binlog_state(src: &dyn DumpSource) -> Result<BinlogState, DumpError> {
    let mut state = BinlogState::default();
    let end = src.end();
    let path = src.dir().join(&end.file);
    let r = LogReader::open(&path).map_err(|m| DumpError::Fatal(m.into()))?;
    let fd = r
        .read_at(event::FIRST_EVENT, end.offset, None)
        .map_err(|f| DumpError::Fatal(f.error.to_string()))?;
    let alg = event::fd_checksum_alg(&fd);
    let mut pos = event::FIRST_EVENT + fd.len() as u64;
    while pos < end.offset {
        let ev = r
            .read_at(pos, end.offset, Some(alg))
            .map_err(|f| DumpError::Fatal(f.error.to_string()))?;
        record(&mut state, &ev, alg);
        pos += ev.len() as u64;
    }
    Ok(state)
}

fn record(state: &mut BinlogState, ev: &[u8], alg: ChecksumAlg) {
    match event::event_type(ev) {
        event::types::GTID_LIST => {
            if let Some(list) = event::gtid_list_of(ev, alg) {
                state.load(&list);
            }
        }
        event::types::GTID => {
            if let Some((g, _)) = event::gtid_of(ev) {
                state.update(g);
            }
        }
        _ => {}
    }
}

/// Which events of the current group are being skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Skip {
    Not,
    /// A standalone group (DDL): up to the first event that is not part of a group.
    Standalone,
    /// A transaction: up to its XID, COMMIT or ROLLBACK.
    Transaction,
}

/// Step 3: skips event groups until each domain's requested GTID is passed.
pub struct GtidFilter {
    state: ConnectState,
    strict: bool,
    skip: Skip,
    /// GTIDs seen in the stream (what the fake GTID_LIST reports).
    seen: BinlogState,
    fake_list_due: bool,
}

impl GtidFilter {
    pub fn new(state: ConnectState, strict: bool) -> GtidFilter {
        GtidFilter {
            state,
            strict,
            skip: Skip::Not,
            seen: BinlogState::default(),
            fake_list_due: false,
        }
    }

    /// Whether the replica's position is reached in every domain it asked for
    /// that the log has (MariaDB's `is_pos_reached`: domains empty at the start
    /// do not count).
    pub fn pos_reached(&self) -> bool {
        self.state.entries.iter().all(|e| e.empty_domain)
    }

    /// Decides whether `ev` is sent (`Ok(true)`) or skipped. `src` is consulted
    /// when a domain that was empty at the start shows up.
    pub fn admit(
        &mut self,
        ev: &[u8],
        alg: ChecksumAlg,
        src: &dyn DumpSource,
    ) -> Result<bool, DumpError> {
        let ty = event::event_type(ev);
        if ty == event::types::GTID && !self.state.is_empty() {
            self.on_gtid(ev, src)?;
        }
        match self.skip {
            Skip::Not => Ok(true),
            Skip::Standalone => {
                if !event::is_part_of_group(ty) {
                    self.skip = Skip::Not;
                }
                Ok(false)
            }
            Skip::Transaction => {
                if ty == event::types::XID
                    || (ty == event::types::QUERY && event::is_commit_or_rollback(ev, alg))
                {
                    self.skip = Skip::Not;
                }
                Ok(false)
            }
        }
    }

    fn on_gtid(&mut self, ev: &[u8], src: &dyn DumpSource) -> Result<(), DumpError> {
        let (g, flags2) = event::gtid_of(ev).ok_or_else(|| {
            DumpError::Fatal("Failed to read Gtid_log_event: corrupt binlog".into())
        })?;
        self.seen.update(g);
        let Some(entry) = self.state.find(g.domain).copied() else {
            return Ok(());
        };
        let want = entry.gtid;
        if entry.empty_domain {
            let now = binlog_state(src)?;
            if now
                .find(want.domain, want.server)
                .is_none_or(|m| m.seq < want.seq)
            {
                return Err(missing_gtid(&now, want));
            }
            if let Some(e) = self
                .state
                .entries
                .iter_mut()
                .find(|e| e.gtid.domain == g.domain)
            {
                e.empty_domain = false;
            }
        }
        if g.server != want.server || g.seq <= want.seq {
            self.skip = if flags2 & event::GTID_FL_STANDALONE != 0 {
                Skip::Standalone
            } else {
                Skip::Transaction
            };
        }
        if g.server == want.server && g.seq >= want.seq {
            if self.strict && g.seq > want.seq {
                return Err(DumpError::Fatal(format!(
                    "The binlog on the master is missing the GTID {want} requested by the slave \
                     (even though both a prior and a subsequent sequence number does exist), and \
                     GTID strict mode is enabled"
                )));
            }
            self.fake_list_due = true;
            self.state.remove(g.domain);
        }
        Ok(())
    }

    /// After an event: the GTIDs for a fake GTID_LIST when one is due (once the
    /// group that reached the position has been passed).
    pub fn take_fake_list(&mut self) -> Option<Vec<Gtid>> {
        if self.fake_list_due && self.skip == Skip::Not {
            self.fake_list_due = false;
            return Some(self.seen.gtids().to_vec());
        }
        None
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
    fn binlog_state_keeps_last_logged_at_domain_end() {
        let mut s = BinlogState::default();
        s.update(g(0, 2, 5));
        s.update(g(0, 1, 6));
        s.update(g(1, 1, 1));
        s.update(g(0, 2, 7));
        assert_eq!(s.last_in_domain(0), Some(g(0, 2, 7)));
        assert_eq!(s.find(0, 1), Some(g(0, 1, 6)));
        assert_eq!(s.gtids(), &[g(0, 1, 6), g(0, 2, 7), g(1, 1, 1)]);
    }

    #[test]
    fn contains_all_follows_mariadb() {
        let st = ConnectState::parse("0-1-4").expect("valid");
        assert!(contains_all(&st, &[g(0, 1, 4)]));
        assert!(!contains_all(&st, &[g(0, 1, 5)]));
        assert!(contains_all(&st, &[g(0, 1, 3)]));
        assert!(!contains_all(&st, &[g(0, 1, 4), g(0, 2, 4)]));
        assert!(!contains_all(&st, &[g(1, 1, 1)]));
        assert!(ConnectState::parse("0-1-4,0-2-5").is_none());
    }
}
