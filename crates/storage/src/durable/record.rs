//! Payloads of the durable engine's WAL records (the WAL frames them; see `wal`).
//!
//! All integers little-endian.
//! ```text
//! CHANGE      txn u64 | table u64 | tree u32 | key_len u32 | key
//!             | old_tag u8 (0 = absent, 1 = present) | [old_len u32 | old]
//!             | new_tag u8                           | [new_len u32 | new]
//! COMMIT      txn u64
//! ABORT       txn u64   (written after the rollback's own changes were logged)
//! CHECKPOINT  next transaction id u64
//! CLEAN       (empty) the last record of a clean shutdown that finished purge: no
//!             entry delete-marked by an earlier transaction is left in any tree
//! COMMIT_BINLOG  txn u64 | binlog event group (opaque; see `crate::binlog`): a commit
//! BINLOG      binlog event group of its own (DDL, a rotation, MEMORY-only changes)
//! ```
//! A CHANGE carries both images: the after-image to redo it, the before-image to undo
//! it when its transaction never committed.

pub const KIND_CHANGE: u8 = 1;
pub const KIND_COMMIT: u8 = 2;
pub const KIND_ABORT: u8 = 3;
pub const KIND_CHECKPOINT: u8 = 4;
pub const KIND_CLEAN: u8 = 5;
pub const KIND_COMMIT_BINLOG: u8 = 6;
pub const KIND_BINLOG: u8 = 7;

/// A decoded CHANGE record.
#[derive(Debug, PartialEq, Eq)]
pub struct ChangeRec {
    pub txn: u64,
    pub table: u64,
    pub tree: u32,
    pub key: Vec<u8>,
    pub old: Option<Vec<u8>>,
    pub new: Option<Vec<u8>>,
}

/// The fixed header of a CHANGE record; key and images follow as separate parts.
pub fn change_header(txn: u64, table: u64, tree: u32, key_len: usize) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..8].copy_from_slice(&txn.to_le_bytes());
    h[8..16].copy_from_slice(&table.to_le_bytes());
    h[16..20].copy_from_slice(&tree.to_le_bytes());
    h[20..24].copy_from_slice(&(key_len as u32).to_le_bytes());
    h
}

/// The tag and length prefix of an image.
pub fn image_prefix(image: Option<&[u8]>) -> Vec<u8> {
    match image {
        None => vec![0],
        Some(b) => {
            let mut v = vec![1];
            v.extend_from_slice(&(b.len() as u32).to_le_bytes());
            v
        }
    }
}

fn take<'a>(b: &'a [u8], pos: &mut usize, n: usize) -> Option<&'a [u8]> {
    let s = b.get(*pos..pos.checked_add(n)?)?;
    *pos += n;
    Some(s)
}

fn u32_at(b: &[u8], pos: &mut usize) -> Option<u32> {
    Some(u32::from_le_bytes(take(b, pos, 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], pos: &mut usize) -> Option<u64> {
    Some(u64::from_le_bytes(take(b, pos, 8)?.try_into().ok()?))
}

fn image(b: &[u8], pos: &mut usize) -> Option<Option<Vec<u8>>> {
    match take(b, pos, 1)?[0] {
        0 => Some(None),
        1 => {
            let n = u32_at(b, pos)? as usize;
            Some(Some(take(b, pos, n)?.to_vec()))
        }
        _ => None,
    }
}

pub fn decode_change(b: &[u8]) -> Option<ChangeRec> {
    let mut pos = 0;
    let txn = u64_at(b, &mut pos)?;
    let table = u64_at(b, &mut pos)?;
    let tree = u32_at(b, &mut pos)?;
    let key_len = u32_at(b, &mut pos)? as usize;
    let key = take(b, &mut pos, key_len)?.to_vec();
    let old = image(b, &mut pos)?;
    let new = image(b, &mut pos)?;
    (pos == b.len()).then_some(ChangeRec {
        txn,
        table,
        tree,
        key,
        old,
        new,
    })
}

/// Decodes the single u64 of COMMIT, ABORT and CHECKPOINT records.
pub fn decode_u64(b: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_round_trip() {
        let key = b"k1".to_vec();
        let old = None;
        let new = Some(b"value".to_vec());
        let mut payload = change_header(7, 3, 2, key.len()).to_vec();
        payload.extend_from_slice(&key);
        payload.extend(image_prefix(old.as_deref()));
        payload.extend(image_prefix(new.as_deref()));
        payload.extend_from_slice(new.as_deref().unwrap_or_default());
        let rec = decode_change(&payload).expect("decodes");
        assert_eq!(
            rec,
            ChangeRec {
                txn: 7,
                table: 3,
                tree: 2,
                key,
                old,
                new
            }
        );
        assert!(decode_change(&payload[..payload.len() - 1]).is_none());
    }
}
