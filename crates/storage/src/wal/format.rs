//! Byte layouts of the log: frames, segment headers, the control block.
//! All integers are little-endian. See the module docs of [`crate::wal`] for how
//! they fit together.

use super::Lsn;

/// Version of every structure in this file; bumped on any incompatible change.
pub const FORMAT_VERSION: u32 = 1;

/// O_DIRECT block; every write covers whole blocks.
pub const BLOCK: usize = 4096;

// ---- Frame (one record) ------------------------------------------------------
//  0  u32  crc32c of the payload, continued over header bytes 4..32
//  4  u32  payload length
//  8  u64  LSN of this frame (its position in the log stream)
// 16  u64  durable LSN when the frame was appended (see `Recovery::end`)
// 24  u8   kind
// 25  [u8; 7] zero
// 32  payload, then zero padding to a multiple of 8
pub const FRAME_HEADER: usize = 32;
const F_CRC: usize = 0;
const F_LEN: usize = 4;
const F_LSN: usize = 8;
const F_SYNCED: usize = 16;
const F_KIND: usize = 24;

/// Internal kind: "the log continues at LSN <u64 payload>" (end of a segment, or the
/// start of a new run after recovery).
pub const KIND_JUMP: u8 = 0xFF;
/// Kinds at or above this are reserved for the log itself.
pub const FIRST_RESERVED_KIND: u8 = 0xF0;
/// Size of a jump frame; a segment never has between 1 and JUMP_FRAME-1 bytes left
/// after a frame, so there is always room for a jump.
pub const JUMP_FRAME: u64 = (FRAME_HEADER + 8) as u64;

/// Bytes a frame with `payload_len` bytes of payload occupies.
pub fn frame_len(payload_len: usize) -> u64 {
    ((FRAME_HEADER + payload_len) as u64).div_ceil(8) * 8
}

/// Writes a frame into `out` (exactly `frame_len(payload.len())` bytes).
/// `payload_crc` is `crc32c(payload)`, computed by the caller outside any lock.
pub fn encode_frame(
    out: &mut [u8],
    lsn: Lsn,
    synced: Lsn,
    kind: u8,
    payload: &[&[u8]],
    payload_crc: u32,
) {
    let total: usize = payload.iter().map(|p| p.len()).sum();
    out[F_LEN..F_LEN + 4].copy_from_slice(&(total as u32).to_le_bytes());
    out[F_LSN..F_LSN + 8].copy_from_slice(&lsn.to_le_bytes());
    out[F_SYNCED..F_SYNCED + 8].copy_from_slice(&synced.to_le_bytes());
    out[F_KIND] = kind;
    out[F_KIND + 1..FRAME_HEADER].fill(0);
    let crc = crc32c::crc32c_append(payload_crc, &out[4..FRAME_HEADER]);
    out[F_CRC..F_CRC + 4].copy_from_slice(&crc.to_le_bytes());
    let mut at = FRAME_HEADER;
    for part in payload {
        out[at..at + part.len()].copy_from_slice(part);
        at += part.len();
    }
    out[at..].fill(0);
}

/// A frame header that claims to be at the position it was read from.
#[derive(Clone, Copy, Debug)]
pub struct FrameHeader {
    pub crc: u32,
    pub len: u32,
    pub synced: Lsn,
    pub kind: u8,
}

/// Why the bytes at a position are not a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadFrame {
    /// The LSN field is not this position: never written in this segment's current
    /// life (zeros, or a stale frame of a recycled segment).
    Unwritten,
    /// The LSN matches but the frame is damaged (torn write or corruption).
    Damaged(String),
}

pub fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4-byte slice"))
}

pub fn read_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8-byte slice"))
}

/// The LSN field of a frame header (cheap pre-check when scanning).
pub fn frame_lsn(header: &[u8]) -> Lsn {
    read_u64(header, F_LSN)
}

/// Decodes a header read at `lsn` with `room` bytes left in the segment.
pub fn decode_header(h: &[u8], lsn: Lsn, room: u64) -> Result<FrameHeader, BadFrame> {
    if frame_lsn(h) != lsn {
        return Err(BadFrame::Unwritten);
    }
    let len = read_u32(h, F_LEN);
    if frame_len(len as usize) > room {
        return Err(BadFrame::Damaged(format!(
            "length {len} overruns the segment"
        )));
    }
    Ok(FrameHeader {
        crc: read_u32(h, F_CRC),
        len,
        synced: read_u64(h, F_SYNCED),
        kind: h[F_KIND],
    })
}

/// Checks the CRC of a frame whose header decoded.
pub fn check_crc(h: &[u8], fh: &FrameHeader, payload: &[u8]) -> Result<(), BadFrame> {
    let crc = crc32c::crc32c_append(crc32c::crc32c(payload), &h[4..FRAME_HEADER]);
    if crc != fh.crc {
        return Err(BadFrame::Damaged("checksum mismatch".into()));
    }
    Ok(())
}

// ---- Segment header (first block of each segment file) -----------------------
//  0  [u8; 8] magic "BSLTWALS"
//  8  u32  format version
// 12  u32  zero
// 16  u64  segment sequence number (segment `seq` holds LSNs [seq*D, (seq+1)*D))
// 24  u64  segment file size in bytes
// 32  u32  crc32c of bytes 0..32
// The rest of the block is zero. The header fits in one 512-byte sector.
const SEG_MAGIC: &[u8; 8] = b"BSLTWALS";

pub fn encode_segment_header(out: &mut [u8], seq: u64, segment_size: u64) {
    out.fill(0);
    out[0..8].copy_from_slice(SEG_MAGIC);
    out[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    out[16..24].copy_from_slice(&seq.to_le_bytes());
    out[24..32].copy_from_slice(&segment_size.to_le_bytes());
    let crc = crc32c::crc32c(&out[0..32]);
    out[32..36].copy_from_slice(&crc.to_le_bytes());
}

/// `(seq, segment_size)` of a valid header.
pub fn decode_segment_header(b: &[u8]) -> Option<(u64, u64)> {
    let valid = &b[0..8] == SEG_MAGIC
        && read_u32(b, 8) == FORMAT_VERSION
        && read_u32(b, 32) == crc32c::crc32c(&b[0..32]);
    valid.then(|| (read_u64(b, 16), read_u64(b, 24)))
}

// ---- Control block (file `control`: two copies, blocks 0 and 1) --------------
//  0  [u8; 8] magic "BSLTWALC"
//  8  u32  format version
// 12  u32  zero
// 16  u64  generation (the copy with the higher valid generation is current;
//          generation g is written to block g % 2)
// 24  u64  segment file size in bytes
// 32  u64  checkpoint LSN: recovery starts here; older segments are free
// 40  u32  crc32c of bytes 0..40
const CTL_MAGIC: &[u8; 8] = b"BSLTWALC";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Control {
    pub generation: u64,
    pub segment_size: u64,
    pub checkpoint: Lsn,
}

pub fn encode_control(out: &mut [u8], c: &Control) {
    out.fill(0);
    out[0..8].copy_from_slice(CTL_MAGIC);
    out[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    out[16..24].copy_from_slice(&c.generation.to_le_bytes());
    out[24..32].copy_from_slice(&c.segment_size.to_le_bytes());
    out[32..40].copy_from_slice(&c.checkpoint.to_le_bytes());
    let crc = crc32c::crc32c(&out[0..40]);
    out[40..44].copy_from_slice(&crc.to_le_bytes());
}

pub fn decode_control(b: &[u8]) -> Option<Control> {
    let valid = &b[0..8] == CTL_MAGIC
        && read_u32(b, 8) == FORMAT_VERSION
        && read_u32(b, 40) == crc32c::crc32c(&b[0..40]);
    valid.then(|| Control {
        generation: read_u64(b, 16),
        segment_size: read_u64(b, 24),
        checkpoint: read_u64(b, 32),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_round_trip_and_damage() {
        let payload = b"hello world";
        let n = frame_len(payload.len()) as usize;
        assert_eq!(n, 48);
        let mut buf = vec![0xAA; n];
        encode_frame(
            &mut buf,
            4096,
            100,
            7,
            &[&payload[..5], &payload[5..]],
            crc32c::crc32c(payload),
        );
        let fh = decode_header(&buf, 4096, 1 << 20).expect("the frame was just encoded");
        assert_eq!((fh.len, fh.synced, fh.kind), (11, 100, 7));
        let body = &buf[FRAME_HEADER..FRAME_HEADER + 11];
        assert_eq!(body, payload);
        check_crc(&buf, &fh, body).expect("the frame was just encoded");
        assert!(
            buf[FRAME_HEADER + 11..].iter().all(|&b| b == 0),
            "padding zeroed"
        );
        assert_eq!(
            decode_header(&buf, 4104, 1 << 20).unwrap_err(),
            BadFrame::Unwritten
        );
        assert!(matches!(
            decode_header(&buf, 4096, 40),
            Err(BadFrame::Damaged(_))
        ));
        buf[FRAME_HEADER + 3] ^= 4;
        let body = &buf[FRAME_HEADER..FRAME_HEADER + 11];
        assert!(check_crc(&buf, &fh, body).is_err());
    }

    #[test]
    fn headers_round_trip() {
        let mut b = vec![0; BLOCK];
        encode_segment_header(&mut b, 42, 1 << 20);
        assert_eq!(decode_segment_header(&b), Some((42, 1 << 20)));
        b[17] ^= 1;
        assert_eq!(decode_segment_header(&b), None);
        let c = Control {
            generation: 3,
            segment_size: 1 << 20,
            checkpoint: 777,
        };
        encode_control(&mut b, &c);
        assert_eq!(decode_control(&b), Some(c));
        b[33] ^= 1;
        assert_eq!(decode_control(&b), None);
    }
}
