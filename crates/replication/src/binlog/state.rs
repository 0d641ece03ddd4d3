//! The GTID state at start: the last file's GTID_LIST (the state when it was
//! opened) plus every GTID event in it.

use super::files::Files;
use crate::event::{decode_gtid, decode_gtid_list, parse_header, EventReader};
use crate::gtid::GtidList;
use basalt_storage::StorageError;

/// Event type codes this scan looks for.
const GTID_EVENT: u8 = 162;
const GTID_LIST_EVENT: u8 = 163;

pub fn scan(files: &Files, index: &[u32], checksum: bool) -> Result<GtidList, StorageError> {
    let mut list = GtidList::default();
    let Some(last) = index.last() else {
        return Ok(list);
    };
    let bytes = std::fs::read(files.path(*last))
        .map_err(|e| StorageError::Invalid(format!("binary log {}: {e}", files.name(*last))))?;
    let Some(body) = bytes.get(4..) else {
        return Ok(list);
    };
    for event in EventReader::new(body, 4) {
        let (offset, ev) = event
            .map_err(|e| StorageError::Invalid(format!("binary log {}: {e}", files.name(*last))))?;
        let Some(h) = parse_header(ev) else {
            return Err(StorageError::Invalid(format!(
                "binary log {}: bad event at {offset}",
                files.name(*last)
            )));
        };
        match h.type_code {
            GTID_LIST_EVENT => {
                for g in decode_gtid_list(ev, checksum).unwrap_or_default() {
                    list.record(g);
                }
            }
            GTID_EVENT => {
                if let Some((g, _)) = decode_gtid(ev) {
                    list.record(g);
                }
            }
            _ => {}
        }
    }
    Ok(list)
}
