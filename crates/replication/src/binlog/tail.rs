//! The tail of the binary log in memory: the chunks of the latest groups, in log
//! order, each numbered by a sequence number.
//!
//! Commits push their chunks here under the binlog's ordering lock (a copy into an
//! `Arc`, no I/O); whoever acknowledges a group writes every chunk not yet in the
//! files with one `pwrite` per run of adjacent chunks ([`super::Binlog`]), so a
//! group commit of many transactions costs one write, outside the ordering lock.
//! Dumps read recent events from here instead of the files, so a caught-up replica
//! costs no file reads.
//!
//! # Invariants
//! 1. Chunks are in log order: sequence numbers `first_seq..next_seq` without gaps,
//!    and (file, offset) grows with them.
//! 2. Every chunk numbered below `written_seq` is in the files (page cache at
//!    least); chunks at or above it are only here, never trimmed.
//! 3. Written chunks are kept while they fit in [`TAIL_BYTES`] (the newest first).

use std::collections::VecDeque;
use std::sync::Arc;

/// How many bytes of written chunks stay in memory for dumps.
pub const TAIL_BYTES: usize = 8 << 20;

/// Bytes of the log at `offset` of file `file`: whole events.
#[derive(Clone, Debug)]
pub struct TailChunk {
    pub file: u32,
    pub offset: u64,
    pub bytes: Arc<[u8]>,
}

impl TailChunk {
    fn end(&self) -> u64 {
        self.offset + self.bytes.len() as u64
    }
}

#[derive(Debug, Default)]
pub struct Tail {
    chunks: VecDeque<TailChunk>,
    /// Sequence number of `chunks[0]`.
    first_seq: u64,
    /// Chunks numbered below this are in the files.
    written_seq: u64,
    /// Bytes in written chunks still held.
    written_bytes: usize,
}

impl Tail {
    /// The sequence number the next chunk gets.
    pub fn next_seq(&self) -> u64 {
        self.first_seq + self.chunks.len() as u64
    }

    pub fn written_seq(&self) -> u64 {
        self.written_seq
    }

    /// Appends a chunk; returns the sequence number after it.
    pub fn push(&mut self, chunk: TailChunk) -> u64 {
        self.chunks.push_back(chunk);
        self.next_seq()
    }

    /// The chunks not yet in the files, oldest first, with the sequence number
    /// after the last of them.
    pub fn unwritten(&self) -> (Vec<TailChunk>, u64) {
        let skip = (self.written_seq - self.first_seq) as usize;
        (
            self.chunks.iter().skip(skip).cloned().collect(),
            self.next_seq(),
        )
    }

    /// Records that the chunks below `seq` are in the files, then drops the oldest
    /// written chunks beyond [`TAIL_BYTES`].
    pub fn mark_written(&mut self, seq: u64) {
        if seq <= self.written_seq {
            return;
        }
        let from = (self.written_seq - self.first_seq) as usize;
        let to = (seq - self.first_seq) as usize;
        self.written_bytes += self
            .chunks
            .range(from..to)
            .map(|c| c.bytes.len())
            .sum::<usize>();
        self.written_seq = seq;
        while self.written_bytes > TAIL_BYTES && self.first_seq < self.written_seq {
            if let Some(c) = self.chunks.pop_front() {
                self.written_bytes -= c.bytes.len();
                self.first_seq += 1;
            }
        }
    }

    /// Forgets every chunk (RESET MASTER removed the files they belong to).
    pub fn clear(&mut self) {
        let next = self.next_seq();
        self.chunks.clear();
        self.first_seq = next;
        self.written_seq = next;
        self.written_bytes = 0;
    }

    /// The written chunk of file `file` holding the byte at `pos`: its offset and
    /// bytes. Unwritten chunks are not returned: a dump serves only what the files
    /// hold too.
    pub fn find(&self, file: u32, pos: u64) -> Option<(u64, Arc<[u8]>)> {
        let written = (self.written_seq - self.first_seq) as usize;
        let i = self
            .chunks
            .partition_point(|c| (c.file, c.end()) <= (file, pos));
        let c = self.chunks.get(i)?;
        (i < written && c.file == file && c.offset <= pos && pos < c.end())
            .then(|| (c.offset, c.bytes.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(file: u32, offset: u64, len: usize) -> TailChunk {
        TailChunk {
            file,
            offset,
            bytes: vec![file as u8; len].into(),
        }
    }

    #[test]
    fn finds_written_chunks_only() {
        let mut t = Tail::default();
        t.push(chunk(1, 4, 100));
        t.push(chunk(1, 104, 50));
        let after = t.push(chunk(2, 0, 30));
        assert_eq!(after, 3);
        assert!(t.find(1, 4).is_none(), "nothing written yet");
        let (pending, upto) = t.unwritten();
        assert_eq!((pending.len(), upto), (3, 3));
        t.mark_written(2);
        assert_eq!(t.find(1, 4).map(|(o, b)| (o, b.len())), Some((4, 100)));
        assert_eq!(t.find(1, 120).map(|(o, _)| o), Some(104));
        assert!(t.find(1, 154).is_none(), "past the file's chunks");
        assert!(t.find(2, 0).is_none(), "not written");
        assert_eq!(t.unwritten().0.len(), 1);
        t.mark_written(3);
        assert_eq!(t.find(2, 10).map(|(o, _)| o), Some(0));
        assert!(t.unwritten().0.is_empty());
    }

    #[test]
    fn keeps_unwritten_and_trims_written_beyond_budget() {
        let mut t = Tail::default();
        let big = TAIL_BYTES / 2 + 1;
        t.push(chunk(1, 4, big));
        t.push(chunk(1, 4 + big as u64, big));
        t.push(chunk(1, 4 + 2 * big as u64, 10));
        t.mark_written(2);
        assert!(t.find(1, 4).is_none(), "the oldest went over budget");
        assert!(t.find(1, 4 + big as u64).is_some());
        assert_eq!(t.unwritten().0.len(), 1, "unwritten chunks stay");
        t.clear();
        assert_eq!(t.next_seq(), 3);
        assert!(t.unwritten().0.is_empty());
    }
}
