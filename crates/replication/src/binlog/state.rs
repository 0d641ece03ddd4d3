//! The GTID state of the log: at start, the last file's GTID_LIST (the state when
//! it was opened) plus every GTID event in it; for BINLOG_GTID_POS, the same up to
//! an offset.

use super::files::Files;
use crate::event::{decode_gtid, decode_gtid_list, parse_header, types, EventReader};
use crate::gtid::GtidList;
use basalt_storage::StorageError;

/// The state after the last file of `index`.
pub fn scan(files: &Files, index: &[u32]) -> Result<GtidList, StorageError> {
    let Some(last) = index.last() else {
        return Ok(GtidList::default());
    };
    Ok(scan_file(files, *last, None)?.unwrap_or_default())
}

/// The state at offset `until` of file `n` (its end when `None`): its GTID_LIST and
/// the GTIDs of the groups before `until`. `Ok(None)` when `until` is not where an
/// event starts (or the end of the file). Whether events carry checksums is the
/// file's own FORMAT_DESCRIPTION's say (`binlog_checksum` may have changed since).
pub fn scan_file(
    files: &Files,
    n: u32,
    until: Option<u64>,
) -> Result<Option<GtidList>, StorageError> {
    let bad = |what: String| StorageError::Invalid(format!("binary log {}: {what}", files.name(n)));
    let bytes = std::fs::read(files.path(n)).map_err(|e| bad(e.to_string()))?;
    let mut list = GtidList::default();
    let Some(body) = bytes.get(4..) else {
        return Ok(until.is_none().then_some(list));
    };
    let mut at = 4;
    let mut events = EventReader::new(body, 4);
    while let Some(event) = events.next() {
        if until.is_some_and(|u| at >= u) {
            break;
        }
        let (offset, ev) = event.map_err(|e| bad(e.to_string()))?;
        let checksum = events.checksum().unwrap_or(true);
        let h = parse_header(ev).ok_or_else(|| bad(format!("bad event at {offset}")))?;
        match h.type_code {
            types::GTID_LIST => {
                for g in decode_gtid_list(ev, checksum).unwrap_or_default() {
                    list.record(g);
                }
            }
            types::GTID => {
                if let Some((g, _)) = decode_gtid(ev) {
                    list.record(g);
                }
            }
            _ => {}
        }
        at = offset + ev.len() as u64;
    }
    Ok(until.is_none_or(|u| u == at).then_some(list))
}
