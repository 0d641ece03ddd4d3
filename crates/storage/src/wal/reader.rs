//! Reading the log back: the record iterator used by recovery, and the scan past
//! the end of the log that tells a torn tail from corruption.

use super::format::{self, BadFrame, BLOCK, FRAME_HEADER, KIND_JUMP};
use super::segments::Geometry;
use super::Lsn;
use crate::api::Result;
use crate::io::{AlignedBuf, File};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One record read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Where the record starts (its frame's LSN).
    pub lsn: Lsn,
    /// Where the next record may start; the log is durable past this record once
    /// it is durable up to `end_lsn`.
    pub end_lsn: Lsn,
    pub kind: u8,
    pub payload: Vec<u8>,
}

/// Why a reader stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// It reached the end of what had been written when it was created.
    Limit,
    /// The next frame was never written: the log ends here.
    Unwritten,
    /// The frame here was written but is damaged (torn write, or corruption).
    Damaged(String),
    /// The segment that would hold this position does not exist.
    MissingSegment(u64),
}

/// Where and why a reader stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadStop {
    pub lsn: Lsn,
    pub reason: StopReason,
}

/// What lies past the end of the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beyond {
    /// The first valid frame found past the end.
    pub first_valid: Option<Lsn>,
    /// The highest "durable when appended" LSN among those frames.
    pub max_synced: Lsn,
    /// Valid records (frames other than jumps) found past the end.
    pub records: u64,
    /// Where the last valid frame found past the end ends.
    pub last_end: Lsn,
}

const CHUNK: usize = 256 * 1024;

/// Reads records in LSN order from a start LSN. Yields `Err` only for I/O errors;
/// a frame that is not valid ends the iteration, and [`WalReader::stop`] says why.
pub struct WalReader {
    geo: Geometry,
    files: BTreeMap<u64, Arc<dyn File>>,
    pos: Lsn,
    limit: Lsn,
    stop: Option<ReadStop>,
    visited: Vec<u64>,
    win_seq: u64,
    win_start: u64,
    win_len: usize,
    win: AlignedBuf,
}

impl WalReader {
    pub(crate) fn new(
        geo: Geometry,
        files: BTreeMap<u64, Arc<dyn File>>,
        from: Lsn,
        limit: Lsn,
    ) -> Self {
        WalReader {
            geo,
            files,
            pos: from,
            limit,
            stop: None,
            visited: Vec::new(),
            win_seq: u64::MAX,
            win_start: 0,
            win_len: 0,
            win: AlignedBuf::zeroed(BLOCK),
        }
    }

    /// Why iteration ended (`None` while it has not).
    pub fn stop(&self) -> Option<&ReadStop> {
        self.stop.as_ref()
    }

    /// Segments the reader went through.
    pub(crate) fn visited(&self) -> &[u64] {
        &self.visited
    }

    /// Makes the window cover data offsets `[off, off + len)` of segment `seq`.
    fn load(&mut self, seq: u64, off: u64, len: usize) -> std::io::Result<()> {
        let covered = self.win_seq == seq
            && off >= self.win_start
            && off + len as u64 <= self.win_start + self.win_len as u64;
        if covered {
            return Ok(());
        }
        let file = self
            .files
            .get(&seq)
            .expect("caller checked the segment exists");
        let start = off / BLOCK as u64 * BLOCK as u64;
        let need = (off + len as u64 - start).div_ceil(BLOCK as u64) * BLOCK as u64;
        let size = need.max(CHUNK as u64).min(self.geo.data - start) as usize;
        if self.win.len() < size {
            self.win = AlignedBuf::zeroed(size);
        }
        self.win_seq = u64::MAX;
        file.read_at(&mut self.win[..size], BLOCK as u64 + start)?;
        (self.win_seq, self.win_start, self.win_len) = (seq, start, size);
        Ok(())
    }

    fn bytes(&self, off: u64, len: usize) -> &[u8] {
        let at = (off - self.win_start) as usize;
        &self.win[at..at + len]
    }

    fn halt(&mut self, reason: StopReason) -> Option<Record> {
        self.stop = Some(ReadStop {
            lsn: self.pos,
            reason,
        });
        None
    }

    /// The frame at `lsn` of segment `seq`, if valid: header and payload range.
    fn frame_at(
        &mut self,
        seq: u64,
        lsn: Lsn,
    ) -> std::io::Result<std::result::Result<format::FrameHeader, BadFrame>> {
        let off = self.geo.offset(lsn);
        self.load(seq, off, FRAME_HEADER)?;
        let header: [u8; FRAME_HEADER] = self
            .bytes(off, FRAME_HEADER)
            .try_into()
            .expect("header length");
        let fh = match format::decode_header(&header, lsn, self.geo.data - off) {
            Ok(fh) => fh,
            Err(bad) => return Ok(Err(bad)),
        };
        let body = off + FRAME_HEADER as u64;
        self.load(seq, body, fh.len as usize)?;
        Ok(format::check_crc(&header, &fh, self.bytes(body, fh.len as usize)).map(|()| fh))
    }

    fn next_record(&mut self) -> std::io::Result<Option<Record>> {
        loop {
            if self.stop.is_some() {
                return Ok(None);
            }
            if self.pos >= self.limit {
                return Ok(self.halt(StopReason::Limit));
            }
            let seq = self.geo.seq(self.pos);
            if !self.files.contains_key(&seq) {
                return Ok(self.halt(StopReason::MissingSegment(seq)));
            }
            if self.visited.last() != Some(&seq) {
                self.visited.push(seq);
            }
            let fh = match self.frame_at(seq, self.pos)? {
                Ok(fh) => fh,
                Err(BadFrame::Unwritten) => return Ok(self.halt(StopReason::Unwritten)),
                Err(BadFrame::Damaged(d)) => return Ok(self.halt(StopReason::Damaged(d))),
            };
            let body = self.geo.offset(self.pos) + FRAME_HEADER as u64;
            let payload = self.bytes(body, fh.len as usize).to_vec();
            let end = self.pos + format::frame_len(payload.len());
            if fh.kind == KIND_JUMP {
                match jump_target(&payload, self.pos, &self.geo) {
                    Some(target) => self.pos = target,
                    None => return Ok(self.halt(StopReason::Damaged("invalid jump".into()))),
                }
                continue;
            }
            let rec = Record {
                lsn: self.pos,
                end_lsn: end,
                kind: fh.kind,
                payload,
            };
            self.pos = end;
            return Ok(Some(rec));
        }
    }

    /// Where the damaged frame the reader stopped at ends, judged from its header:
    /// `None` when the stop is not a damaged frame. A position whose LSN field does
    /// not match (normally "never written") counts as damaged when it lies inside a
    /// block the log wrote up to there: every write covers whole blocks, zero-padded
    /// after the last frame, so anything but zeros there is a frame whose header was
    /// damaged.
    pub(crate) fn damaged_stop(&mut self) -> std::io::Result<Option<Lsn>> {
        let Some(stop) = self.stop.clone() else {
            return Ok(None);
        };
        let lsn = stop.lsn;
        let seq = self.geo.seq(lsn);
        if !self.files.contains_key(&seq) {
            return Ok(None);
        }
        let off = self.geo.offset(lsn);
        let room = self.geo.data - off;
        if room < FRAME_HEADER as u64 {
            return Ok(None);
        }
        self.load(seq, off, FRAME_HEADER)?;
        let header = self.bytes(off, FRAME_HEADER);
        let len_end = |len: u32| {
            let n = format::frame_len(len as usize);
            lsn + if n <= room { n } else { FRAME_HEADER as u64 }
        };
        Ok(match stop.reason {
            StopReason::Damaged(_) => Some(len_end(format::read_u32(header, 4))),
            StopReason::Unwritten => {
                let in_written_block = lsn % BLOCK as u64 != 0;
                let block_left = (BLOCK as u64 - lsn % BLOCK as u64) as usize;
                let head = &header[..FRAME_HEADER.min(block_left)];
                (in_written_block && head.iter().any(|&b| b != 0))
                    .then(|| len_end(format::read_u32(header, 4)))
            }
            StopReason::Limit | StopReason::MissingSegment(_) => None,
        })
    }

    /// Whether a valid frame starts at `lsn`.
    pub(crate) fn frame_starts_at(&mut self, lsn: Lsn) -> std::io::Result<bool> {
        let seq = self.geo.seq(lsn);
        if !self.files.contains_key(&seq) {
            return Ok(false);
        }
        Ok(self.frame_at(seq, lsn)?.is_ok())
    }

    /// Looks for valid frames after `from` (the end of the log): in the rest of its
    /// segment and in every existing segment with a higher sequence number.
    pub(crate) fn scan_beyond(&mut self, from: Lsn) -> std::io::Result<Beyond> {
        let mut beyond = Beyond::default();
        let first_seq = self.geo.seq(from);
        let seqs: Vec<u64> = self.files.range(first_seq..).map(|(&s, _)| s).collect();
        for seq in seqs {
            let mut off = if seq == first_seq {
                self.geo.offset(from) + 8
            } else {
                0
            };
            while off + FRAME_HEADER as u64 <= self.geo.data {
                let lsn = self.geo.start(seq) + off;
                self.load(seq, off, FRAME_HEADER)?;
                if format::frame_lsn(self.bytes(off, FRAME_HEADER)) == lsn {
                    if let Ok(fh) = self.frame_at(seq, lsn)? {
                        beyond.first_valid.get_or_insert(lsn);
                        beyond.max_synced = beyond.max_synced.max(fh.synced);
                        beyond.records += u64::from(fh.kind != KIND_JUMP);
                        beyond.last_end = lsn + format::frame_len(fh.len as usize);
                    }
                }
                off += 8;
            }
        }
        Ok(beyond)
    }
}

/// A jump must go forward, to the start of a segment.
fn jump_target(payload: &[u8], pos: Lsn, geo: &Geometry) -> Option<Lsn> {
    let target = u64::from_le_bytes(payload.try_into().ok()?);
    (target > pos && geo.offset(target) == 0).then_some(target)
}

impl Iterator for WalReader {
    type Item = Result<Record>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_record() {
            Ok(rec) => rec.map(Ok),
            Err(e) => {
                let detail = format!("read error: {e}");
                self.halt(StopReason::Damaged(detail));
                Some(Err(e.into()))
            }
        }
    }
}
