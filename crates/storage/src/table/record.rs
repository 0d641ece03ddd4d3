//! Entry formats of the table layer.
//!
//! Clustered index entry value (a record version):
//! ```text
//! 0..8    trx id that wrote this version (u64 LE)
//! 8..16   undo pointer to the version it replaced, 0 = none (u64 LE)
//! 16      flags: bit 0 = delete-marked
//! 17..    row payload (rowcodec)
//! ```
//! Secondary index entry: key = index key parts ++ clustered key; value:
//! ```text
//! 0..8    trx id that created the entry (u64 LE)
//! 8..16   trx id that delete-marked it, 0 = live (u64 LE)
//! 16      flags: bit 0 = MULTI (the entry stands for several lifetimes of the same
//!         key; readers must confirm it against the clustered record)
//! 17..    the index's covered column values (rowcodec payload over
//!         `IndexLayout::covered`), so covering scans need no clustered lookup
//! ```

pub const HEADER: usize = 17;
pub const FLAG_DELETED: u8 = 1;
pub const FLAG_MULTI: u8 = 1;

/// A parsed clustered record header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecHeader {
    pub trx: u64,
    pub undo: u64,
    pub deleted: bool,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8-byte slice"))
}

/// Parses a clustered record header; `None` if the entry is too short (corrupt).
pub fn parse_rec(b: &[u8]) -> Option<RecHeader> {
    (b.len() >= HEADER).then(|| RecHeader {
        trx: u64_at(b, 0),
        undo: u64_at(b, 8),
        deleted: b[16] & FLAG_DELETED != 0,
    })
}

pub fn build_rec(trx: u64, undo: u64, deleted: bool, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER + payload.len());
    v.extend_from_slice(&trx.to_le_bytes());
    v.extend_from_slice(&undo.to_le_bytes());
    v.push(if deleted { FLAG_DELETED } else { 0 });
    v.extend_from_slice(payload);
    v
}

/// A parsed secondary entry header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SecHeader {
    pub created: u64,
    pub deleted: u64,
    pub multi: bool,
}

pub fn parse_sec(b: &[u8]) -> Option<SecHeader> {
    (b.len() >= HEADER).then(|| SecHeader {
        created: u64_at(b, 0),
        deleted: u64_at(b, 8),
        multi: b[16] & FLAG_MULTI != 0,
    })
}

pub fn build_sec(h: SecHeader, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER + payload.len());
    v.extend_from_slice(&h.created.to_le_bytes());
    v.extend_from_slice(&h.deleted.to_le_bytes());
    v.push(if h.multi { FLAG_MULTI } else { 0 });
    v.extend_from_slice(payload);
    v
}
