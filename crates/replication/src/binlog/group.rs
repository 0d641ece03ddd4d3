//! The binlog part of a WAL record: where each piece of the event stream goes.
//!
//! ```text
//! group   version u8 (1) | flags u8 | chunk count u16 | chunk*
//! chunk   file number u32 | offset u64 | length u32 | bytes
//! ```
//! All integers little-endian. `flags` bit 0 ([`RESET`]): every binlog file is removed
//! before the chunks are written (RESET MASTER). A chunk's bytes go to `offset` of
//! file number `file` (`basename.NNNNNN`); a group usually has one chunk (a
//! transaction's events), two around a rotation (the ROTATE event, then the new
//! file's header events at offset 0).

/// Group format version.
const VERSION: u8 = 1;
/// Flag: remove all binlog files first.
pub const RESET: u8 = 1;

/// Bytes for one file, at an offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub file: u32,
    pub offset: u64,
    pub bytes: Vec<u8>,
}

/// A decoded group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub flags: u8,
    pub chunks: Vec<Chunk>,
}

impl Group {
    pub fn encode(&self) -> Vec<u8> {
        let len: usize = self.chunks.iter().map(|c| 16 + c.bytes.len()).sum();
        let mut out = Vec::with_capacity(4 + len);
        out.push(VERSION);
        out.push(self.flags);
        out.extend_from_slice(&(self.chunks.len() as u16).to_le_bytes());
        for c in &self.chunks {
            out.extend_from_slice(&c.file.to_le_bytes());
            out.extend_from_slice(&c.offset.to_le_bytes());
            out.extend_from_slice(&(c.bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(&c.bytes);
        }
        out
    }

    /// `None` when the bytes are not a group of this version. An empty slice is an
    /// empty group (a commit made while the binary log was off).
    pub fn decode(b: &[u8]) -> Option<Group> {
        if b.is_empty() {
            return Some(Group::default());
        }
        let mut r = Reader { b, at: 0 };
        if r.take(1)?[0] != VERSION {
            return None;
        }
        let flags = r.take(1)?[0];
        let n = u16::from_le_bytes(r.take(2)?.try_into().ok()?);
        let mut chunks = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let file = u32::from_le_bytes(r.take(4)?.try_into().ok()?);
            let offset = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
            let len = u32::from_le_bytes(r.take(4)?.try_into().ok()?) as usize;
            let bytes = r.take(len)?.to_vec();
            chunks.push(Chunk {
                file,
                offset,
                bytes,
            });
        }
        (r.at == b.len()).then_some(Group { flags, chunks })
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let g = Group {
            flags: RESET,
            chunks: vec![
                Chunk {
                    file: 1,
                    offset: 4000,
                    bytes: b"rotate".to_vec(),
                },
                Chunk {
                    file: 2,
                    offset: 0,
                    bytes: vec![0xfe, b'b', b'i', b'n'],
                },
            ],
        };
        let bytes = g.encode();
        assert_eq!(Group::decode(&bytes), Some(g));
        assert_eq!(Group::decode(&bytes[..bytes.len() - 1]), None);
        assert_eq!(Group::decode(&[]), Some(Group::default()));
    }
}
