//! The in-memory log buffer that `append` copies into.
//!
//! The buffer is a list of *pieces*, each a run of consecutive log bytes inside one
//! segment that starts on a block boundary. A flush takes every piece and leaves
//! behind a copy of the last, partly filled block, so the next flush rewrites that
//! block with the records already in it plus the new ones.
//!
//! Invariants:
//! - The last piece, if any, ends exactly at `next`, except right after a jump
//!   (then `next` is the jump target, a segment start).
//! - Every piece starts at a [`BLOCK`]-aligned LSN and holds every byte from there;
//!   so writing a piece never clobbers records written earlier in the same block.
//! - After any frame, the bytes left in its segment are 0 or at least
//!   [`JUMP_FRAME`], so a jump always fits.

use super::format::{self, BLOCK, FRAME_HEADER, JUMP_FRAME, KIND_JUMP};
use super::segments::Geometry;
use super::Lsn;
use crate::io::AlignedBuf;

/// A growable buffer aligned for O_DIRECT.
pub struct AlignedVec {
    buf: AlignedBuf,
    len: usize,
}

impl AlignedVec {
    pub fn with_capacity(cap: usize) -> Self {
        AlignedVec {
            buf: AlignedBuf::zeroed(cap.max(BLOCK)),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    fn reserve(&mut self, more: usize) {
        let need = self.len + more;
        if need <= self.buf.len() {
            return;
        }
        let mut bigger = AlignedBuf::zeroed(need.max(2 * self.buf.len()));
        bigger[..self.len].copy_from_slice(&self.buf[..self.len]);
        self.buf = bigger;
    }

    /// Appends `n` bytes that `fill` writes.
    pub fn extend_with(&mut self, n: usize, fill: impl FnOnce(&mut [u8])) {
        self.reserve(n);
        fill(&mut self.buf[self.len..self.len + n]);
        self.len += n;
    }

    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.extend_with(bytes.len(), |dst| dst.copy_from_slice(bytes));
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The content zero-padded to whole blocks, ready for an O_DIRECT write.
    pub fn padded(&mut self) -> &[u8] {
        let end = self.len.div_ceil(BLOCK) * BLOCK;
        if end > self.buf.len() {
            self.reserve(end - self.len);
        }
        self.buf[self.len..end].fill(0);
        &self.buf[..end]
    }
}

/// Consecutive log bytes of one segment, starting at a block boundary.
pub struct Piece {
    pub seq: u64,
    pub base: Lsn,
    pub data: AlignedVec,
}

impl Piece {
    pub fn end(&self) -> Lsn {
        self.base + self.data.len() as u64
    }
}

/// What an append needs before it can go on.
#[derive(Debug)]
pub enum Appended {
    /// The frame is in; the log now ends at `end`. `new_segment` when it started a
    /// segment (time to prepare the one after).
    Done { end: Lsn, new_segment: bool },
    /// Segment `seq` must be prepared first.
    NeedSegment(u64),
}

/// A frame to add: kind, payload parts and the payload's crc32c.
pub struct FrameSpec<'a> {
    pub kind: u8,
    pub parts: &'a [&'a [u8]],
    pub len: usize,
    pub crc: u32,
}

pub struct LogBuffer {
    pieces: Vec<Piece>,
    /// Where the next frame goes.
    pub next: Lsn,
    /// Everything below this was handed to a flush.
    pub taken: Lsn,
    /// End of the last prepared segment: frames must end at or below it.
    pub capacity_end: Lsn,
    spare: Vec<AlignedVec>,
    /// Set by shutdown: appends fail.
    pub closed: bool,
}

const SPARE_CAP: usize = 64 * 1024;
const MAX_SPARES: usize = 4;

impl LogBuffer {
    /// A buffer continuing the log at `next`, whose block holds `tail` before it.
    pub fn new(geo: &Geometry, next: Lsn, tail: &[u8], capacity_end: Lsn) -> Self {
        let mut buf = LogBuffer {
            pieces: Vec::new(),
            next,
            taken: next,
            capacity_end,
            spare: Vec::new(),
            closed: false,
        };
        if !tail.is_empty() {
            let mut data = AlignedVec::with_capacity(SPARE_CAP);
            data.extend_from_slice(tail);
            let base = next - tail.len() as u64;
            buf.pieces.push(Piece {
                seq: geo.seq(base),
                base,
                data,
            });
        }
        buf
    }

    fn fresh_vec(&mut self) -> AlignedVec {
        self.spare
            .pop()
            .unwrap_or_else(|| AlignedVec::with_capacity(SPARE_CAP))
    }

    /// The piece to add bytes at `at` to (a new one if `at` starts a new run).
    fn piece_at(&mut self, geo: &Geometry, at: Lsn) -> &mut Piece {
        let continues = self
            .pieces
            .last()
            .is_some_and(|p| p.end() == at && p.seq == geo.seq(at));
        if !continues {
            debug_assert_eq!(at % BLOCK as u64, 0, "a new piece starts on a block");
            let data = self.fresh_vec();
            self.pieces.push(Piece {
                seq: geo.seq(at),
                base: at,
                data,
            });
        }
        self.pieces.last_mut().expect("pushed above")
    }

    fn put(&mut self, geo: &Geometry, at: Lsn, synced: Lsn, f: &FrameSpec<'_>) {
        let n = format::frame_len(f.len) as usize;
        let piece = self.piece_at(geo, at);
        piece.data.extend_with(n, |dst| {
            format::encode_frame(dst, at, synced, f.kind, f.parts, f.crc);
        });
        self.next = at + n as u64;
    }

    /// Adds a jump frame at `next` to `target` (a segment start).
    pub fn put_jump(&mut self, geo: &Geometry, target: Lsn, synced: Lsn) {
        let bytes = target.to_le_bytes();
        let parts: [&[u8]; 1] = [&bytes];
        let spec = FrameSpec {
            kind: KIND_JUMP,
            parts: &parts,
            len: 8,
            crc: crc32c::crc32c(&bytes),
        };
        let at = self.next;
        self.put(geo, at, synced, &spec);
        self.next = target;
    }

    /// Adds a frame, jumping to the next segment when it does not fit in this one.
    pub fn append(&mut self, geo: &Geometry, synced: Lsn, f: &FrameSpec<'_>) -> Appended {
        let n = format::frame_len(f.len);
        let pos = self.next;
        let seg_end = geo.start(geo.seq(pos) + 1);
        let fits = pos + n == seg_end || pos + n + JUMP_FRAME <= seg_end;
        let at = if fits { pos } else { seg_end };
        if at + n > self.capacity_end {
            return Appended::NeedSegment(geo.seq(at));
        }
        if !fits {
            self.put_jump(geo, seg_end, synced);
        }
        let new_segment = geo.offset(at) == 0;
        self.put(geo, at, synced, f);
        Appended::Done {
            end: self.next,
            new_segment,
        }
    }

    /// Bytes appended but not yet handed to a flush.
    pub fn pending(&self) -> u64 {
        self.next - self.taken
    }

    /// Hands everything appended to a flush: the pieces and the LSN they end at.
    /// Keeps a copy of the last partial block for the next flush to rewrite.
    pub fn take(&mut self) -> Option<(Vec<Piece>, Lsn)> {
        if self.next == self.taken {
            return None;
        }
        let pieces = std::mem::take(&mut self.pieces);
        // After a jump the last piece ends before `next`, and nothing more will be
        // written to its block.
        let Some(last) = pieces.last().filter(|p| p.end() == self.next) else {
            self.taken = self.next;
            return Some((pieces, self.next));
        };
        let tail_base = self.next / BLOCK as u64 * BLOCK as u64;
        if tail_base != self.next {
            let from = (tail_base - last.base) as usize;
            let tail = &last.data.as_slice()[from..];
            let mut data = self
                .spare
                .pop()
                .unwrap_or_else(|| AlignedVec::with_capacity(SPARE_CAP));
            data.extend_from_slice(tail);
            let seq = last.seq;
            self.pieces.push(Piece {
                seq,
                base: tail_base,
                data,
            });
        }
        self.taken = self.next;
        Some((pieces, self.next))
    }

    /// Gives a flush's buffers back for reuse.
    pub fn recycle(&mut self, pieces: Vec<Piece>) {
        for mut p in pieces {
            if self.spare.len() < MAX_SPARES && p.data.buf.len() <= 16 * SPARE_CAP {
                p.data.clear();
                self.spare.push(p.data);
            }
        }
    }
}

/// Largest payload a record may have in a log with this geometry.
pub fn max_payload(geo: &Geometry) -> usize {
    (geo.data - JUMP_FRAME) as usize - FRAME_HEADER - 8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec<'a>(parts: &'a [&'a [u8]]) -> FrameSpec<'a> {
        let len = parts.iter().map(|p| p.len()).sum();
        let crc = parts.iter().fold(0, |c, p| crc32c::crc32c_append(c, p));
        FrameSpec {
            kind: 1,
            parts,
            len,
            crc,
        }
    }

    #[test]
    fn take_keeps_the_partial_block() {
        let geo = Geometry::new(64 * 1024);
        let mut b = LogBuffer::new(&geo, 0, &[], geo.start(1));
        let p: &[u8] = &[7; 100];
        assert!(matches!(
            b.append(&geo, 0, &spec(&[p])),
            Appended::Done {
                end: 136,
                new_segment: true
            }
        ));
        let (pieces, end) = b.take().expect("records were appended");
        assert_eq!((pieces.len(), end), (1, 136));
        assert!(b.take().is_none());
        b.append(&geo, 0, &spec(&[p]));
        let (pieces, end) = b.take().expect("records were appended");
        assert_eq!((pieces[0].base, pieces[0].data.len(), end), (0, 272, 272));
        assert_eq!(&pieces[0].data.as_slice()[32..132], p);
    }

    #[test]
    fn a_frame_that_does_not_fit_jumps_to_the_next_segment() {
        let geo = Geometry::new(3 * 4096); // 8 KiB of data per segment
        let mut b = LogBuffer::new(&geo, 0, &[], geo.start(1));
        let big = vec![1u8; 8000];
        assert!(matches!(
            b.append(&geo, 0, &spec(&[&big])),
            Appended::Done { .. }
        ));
        let next = b.next;
        assert!(matches!(
            b.append(&geo, 0, &spec(&[&big])),
            Appended::NeedSegment(1)
        ));
        assert_eq!(b.next, next, "nothing added");
        b.capacity_end = geo.start(2);
        assert!(matches!(
            b.append(&geo, 0, &spec(&[&big])),
            Appended::Done {
                new_segment: true,
                ..
            }
        ));
        let (pieces, _) = b.take().expect("records were appended");
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[1].base, geo.start(1));
        assert!(max_payload(&geo) < geo.data as usize);
    }
}
