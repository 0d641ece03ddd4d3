//! Primitive wire encodings: fixed-width little-endian integers, length-encoded
//! integers and strings, NUL-terminated strings.
//!
//! Decoding goes through [`Reader`], a cursor over a borrowed payload whose every
//! accessor checks the remaining length first and returns [`ProtoError::Malformed`]
//! when the payload is too short, so no decoder can index out of bounds or panic.
//! Encoding appends to a `Vec<u8>`; encoders never fail.
//!
//! Length-encoded integer (`int<lenenc>`):
//!
//! | value            | bytes                  |
//! |------------------|------------------------|
//! | `< 251`          | 1 byte                 |
//! | `< 2^16`         | `0xFC` + 2 bytes LE     |
//! | `< 2^24`         | `0xFD` + 3 bytes LE     |
//! | otherwise        | `0xFE` + 8 bytes LE     |
//!
//! `0xFB` is NULL in text rows and `0xFF` is the ERR packet header; a decoder meeting
//! either where an integer is expected reports a malformed packet.

use crate::error::ProtoError;

/// A bounds-checked cursor over a packet payload.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes not consumed yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// Offset of the next byte from the start of the payload.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ProtoError> {
        if n > self.remaining() {
            return Err(ProtoError::Malformed(what));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Everything left (`string<EOF>`).
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }

    pub fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8, ProtoError> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &'static str) -> Result<u16, ProtoError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub fn u24(&mut self, what: &'static str) -> Result<u32, ProtoError> {
        let b = self.take(3, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32, ProtoError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub fn u64(&mut self, what: &'static str) -> Result<u64, ProtoError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ProtoError> {
        let b = self.take(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// `int<lenenc>`.
    pub fn lenenc_int(&mut self, what: &'static str) -> Result<u64, ProtoError> {
        match self.u8(what)? {
            n @ 0..=0xfa => Ok(n as u64),
            0xfc => Ok(self.u16(what)? as u64),
            0xfd => Ok(self.u24(what)? as u64),
            0xfe => self.u64(what),
            _ => Err(ProtoError::Malformed(what)),
        }
    }

    /// `string<lenenc>`.
    pub fn lenenc_bytes(&mut self, what: &'static str) -> Result<&'a [u8], ProtoError> {
        let len = self.lenenc_int(what)?;
        let len = usize::try_from(len).map_err(|_| ProtoError::Malformed(what))?;
        self.take(len, what)
    }

    /// `string<NUL>`: bytes up to (not including) the next 0x00, which is consumed.
    pub fn nul_bytes(&mut self, what: &'static str) -> Result<&'a [u8], ProtoError> {
        let rest = &self.buf[self.pos..];
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or(ProtoError::Malformed(what))?;
        self.pos += end + 1;
        Ok(&rest[..end])
    }

    /// Like [`Reader::nul_bytes`], but a missing terminator takes the rest of the
    /// payload (clients differ on whether the last string of a packet is terminated).
    pub fn nul_or_eof_bytes(&mut self) -> &'a [u8] {
        let rest = &self.buf[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(end) => {
                self.pos += end + 1;
                &rest[..end]
            }
            None => self.rest(),
        }
    }
}

/// Appends `int<lenenc>`.
#[inline]
pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v < 1 << 16 {
        out.push(0xfc);
        out.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v < 1 << 24 {
        out.push(0xfd);
        out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xfe);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Appends `string<lenenc>`.
#[inline]
pub fn put_lenenc_bytes(out: &mut Vec<u8>, s: &[u8]) {
    put_lenenc_int(out, s.len() as u64);
    out.extend_from_slice(s);
}

/// Appends `string<NUL>`. The caller guarantees `s` holds no 0x00 byte.
#[inline]
pub fn put_nul_bytes(out: &mut Vec<u8>, s: &[u8]) {
    out.extend_from_slice(s);
    out.push(0);
}

#[inline]
pub fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

#[inline]
pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Runs `f` to append text of unknown length, then prefixes it with its length as
/// `int<lenenc>`. The one-byte length placeholder is patched in place when the text
/// is shorter than 251 bytes (every number and date is), otherwise the text is moved.
#[inline]
pub fn put_lenenc_with(out: &mut Vec<u8>, f: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    out.push(0);
    f(out);
    let len = out.len() - at - 1;
    if len < 251 {
        out[at] = len as u8;
    } else {
        let text = out.split_off(at + 1);
        out.truncate(at);
        put_lenenc_bytes(out, &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lenenc(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_lenenc_int(&mut out, v);
        out
    }

    #[test]
    fn lenenc_int_boundaries() {
        assert_eq!(lenenc(0), [0x00]);
        assert_eq!(lenenc(250), [0xfa]);
        assert_eq!(lenenc(251), [0xfc, 0xfb, 0x00]);
        assert_eq!(lenenc(0xffff), [0xfc, 0xff, 0xff]);
        assert_eq!(lenenc(0x1_0000), [0xfd, 0x00, 0x00, 0x01]);
        assert_eq!(lenenc(0xff_ffff), [0xfd, 0xff, 0xff, 0xff]);
        assert_eq!(
            lenenc(0x100_0000),
            [0xfe, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00]
        );
        for v in [0, 1, 250, 251, 252, 65535, 65536, 1 << 24, u64::MAX] {
            let b = lenenc(v);
            let mut r = Reader::new(&b);
            assert_eq!(r.lenenc_int("t").expect("round trip"), v);
            assert!(r.is_empty());
        }
    }

    #[test]
    fn lenenc_rejects_null_and_err_markers() {
        assert!(Reader::new(&[0xfb]).lenenc_int("t").is_err());
        assert!(Reader::new(&[0xff]).lenenc_int("t").is_err());
        assert!(Reader::new(&[0xfc, 0x01]).lenenc_int("t").is_err());
        assert!(Reader::new(&[]).lenenc_int("t").is_err());
    }

    #[test]
    fn strings() {
        let mut r = Reader::new(b"abc\0\x03xyzrest");
        assert_eq!(r.nul_bytes("n").expect("nul"), b"abc");
        assert_eq!(r.lenenc_bytes("l").expect("lenenc"), b"xyz");
        assert_eq!(r.nul_or_eof_bytes(), b"rest");
        assert!(r.is_empty());
        assert!(Reader::new(b"abc").nul_bytes("n").is_err());
        assert!(Reader::new(&[0x05, b'a']).lenenc_bytes("l").is_err());
        // A length that does not fit usize on 32-bit or the payload is an error.
        let huge = [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
        assert!(Reader::new(&huge).lenenc_bytes("l").is_err());
    }

    #[test]
    fn lenenc_with_patches_or_moves() {
        let mut out = vec![9];
        put_lenenc_with(&mut out, |o| o.extend_from_slice(b"12345"));
        assert_eq!(out, b"\x09\x0512345");
        let long = vec![b'x'; 300];
        let mut out = Vec::new();
        put_lenenc_with(&mut out, |o| o.extend_from_slice(&long));
        assert_eq!(&out[..3], &[0xfc, 0x2c, 0x01]);
        assert_eq!(&out[3..], &long[..]);
    }
}
