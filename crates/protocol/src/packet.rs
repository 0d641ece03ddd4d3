//! Packet framing over an async byte stream.
//!
//! A packet is a 4-byte header — payload length (3 bytes LE) and sequence id
//! (1 byte) — followed by the payload. A logical payload of 16 MiB - 1 bytes
//! ([`MAX_PACKET_CHUNK`]) or more is sent as several physical packets of exactly that
//! size followed by a shorter one (possibly empty); the reader joins them.
//!
//! Invariants kept by [`PacketConn`]:
//! - Sequence ids: every packet read must carry the expected id (else
//!   [`ProtoError::OutOfOrder`]); every packet read or written advances it by one
//!   (mod 256). A command starts a new sequence at 0: [`PacketConn::read_command`]
//!   resets it before reading.
//! - `max_allowed_packet` is checked against the running total of the logical packet
//!   from each header, before the payload buffer grows: a client announcing a bigger
//!   packet gets [`ProtoError::PacketTooLarge`] (errno 1153) and never makes the
//!   server allocate for it. The stream is out of sync afterwards: send the ERR and
//!   close.
//! - Output is staged in one reusable buffer and reaches the socket only in
//!   [`PacketConn::flush`] (one `write_all` per response), or in
//!   [`PacketConn::flush_if_large`] for result sets too big to stage whole.
//! - Input is read ahead into a fixed buffer, so a small command costs one read
//!   syscall; large payloads are read straight into the caller's buffer.
//!
//! Not cancel-safe: if a read or flush future is dropped half-way (e.g. a timeout),
//! the connection must be closed.

use crate::consts::MAX_PACKET_CHUNK;
use crate::error::ProtoError;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Default `max_allowed_packet` (MariaDB's default, 16 MiB).
pub const DEFAULT_MAX_ALLOWED_PACKET: usize = 16 << 20;

const READ_AHEAD: usize = 16 << 10;
/// Staged output beyond which [`PacketConn::flush_if_large`] writes: MariaDB's
/// `net_buffer_length` default, so a streamed result reaches the client in chunks
/// of this size while a small response still leaves in one write.
const FLUSH_THRESHOLD: usize = 16 << 10;
/// Buffers grown beyond this by a large packet are shrunk back afterwards, so an idle
/// connection does not keep a one-off 16 MiB allocation.
const SHRINK_ABOVE: usize = 1 << 20;
const SHRINK_TO: usize = 64 << 10;

/// A MySQL protocol connection: framing, sequence ids, buffers and the negotiated
/// client capabilities that response encoders consult.
pub struct PacketConn<S> {
    stream: S,
    rbuf: Box<[u8]>,
    rpos: usize,
    rend: usize,
    pub(crate) wbuf: Vec<u8>,
    seq: u8,
    max_allowed_packet: usize,
    capabilities: u32,
}

impl<S> PacketConn<S> {
    pub fn new(stream: S) -> Self {
        PacketConn {
            stream,
            rbuf: vec![0u8; READ_AHEAD].into_boxed_slice(),
            rpos: 0,
            rend: 0,
            wbuf: Vec::with_capacity(16 << 10),
            seq: 0,
            max_allowed_packet: DEFAULT_MAX_ALLOWED_PACKET,
            capabilities: 0,
        }
    }

    pub fn max_allowed_packet(&self) -> usize {
        self.max_allowed_packet
    }

    /// Sets the limit on incoming logical packets (`@@max_allowed_packet`).
    pub fn set_max_allowed_packet(&mut self, max: usize) {
        self.max_allowed_packet = max;
    }

    /// Capabilities both sides agreed on (set by the handshake).
    pub fn capabilities(&self) -> u32 {
        self.capabilities
    }

    pub fn set_capabilities(&mut self, caps: u32) {
        self.capabilities = caps;
    }

    pub fn has_capability(&self, flag: u32) -> bool {
        self.capabilities & flag != 0
    }

    /// The sequence id the next packet (read or written) will carry.
    pub fn sequence_id(&self) -> u8 {
        self.seq
    }

    /// Starts a new packet sequence (at the beginning of every command).
    pub fn reset_sequence(&mut self) {
        self.seq = 0;
    }

    pub fn get_ref(&self) -> &S {
        &self.stream
    }

    pub fn get_mut(&mut self) -> &mut S {
        &mut self.stream
    }

    /// Takes the stream back with the sequence id, the negotiated capabilities
    /// and the input read ahead but not consumed: after an SSLRequest, the start
    /// of the client's TLS handshake (clients send it without waiting), which the
    /// TLS layer must be given first; then `PacketConn::new(tls)` +
    /// [`PacketConn::set_sequence_id`] + [`PacketConn::set_capabilities`]. Fails
    /// (returning the connection) if unsent output is staged.
    pub fn into_parts(self) -> Result<(S, u8, u32, Vec<u8>), Self> {
        if !self.wbuf.is_empty() {
            return Err(self);
        }
        let input = self.rbuf[self.rpos..self.rend].to_vec();
        Ok((self.stream, self.seq, self.capabilities, input))
    }

    /// Whether input was read ahead and not consumed yet (a pipelined command).
    pub fn has_buffered_input(&self) -> bool {
        self.rpos < self.rend
    }

    /// Frees the read-ahead and output buffers while the connection is idle with
    /// nothing buffered either way (false, and nothing freed, otherwise); the
    /// next read or [`PacketConn::restore_buffers`] allocates them again.
    pub fn release_buffers(&mut self) -> bool {
        if self.has_buffered_input() || !self.wbuf.is_empty() {
            return false;
        }
        self.rbuf = Box::default();
        self.rpos = 0;
        self.rend = 0;
        self.wbuf = Vec::new();
        true
    }

    /// Gives a connection whose buffers were released its buffers back.
    pub fn restore_buffers(&mut self) {
        if self.rbuf.is_empty() {
            self.rbuf = vec![0u8; READ_AHEAD].into_boxed_slice();
        }
        if self.wbuf.capacity() == 0 {
            self.wbuf.reserve(FLUSH_THRESHOLD);
        }
    }

    /// Bytes staged for the next flush.
    pub fn pending_output(&self) -> usize {
        self.wbuf.len()
    }

    /// Whether enough output is staged that a result set being streamed should be
    /// flushed now (what [`PacketConn::flush_if_large`] checks).
    #[inline]
    pub fn should_flush(&self) -> bool {
        self.wbuf.len() >= FLUSH_THRESHOLD
    }

    /// Appends one packet whose payload `f` writes straight into the output buffer
    /// (no intermediate copy). Payloads of 16 MiB - 1 or more are split.
    #[inline]
    pub fn push_packet(&mut self, f: impl FnOnce(&mut Vec<u8>)) {
        let start = self.wbuf.len();
        self.wbuf.extend_from_slice(&[0, 0, 0, 0]);
        f(&mut self.wbuf);
        let len = self.wbuf.len() - start - 4;
        if len < MAX_PACKET_CHUNK {
            let h = (len as u32).to_le_bytes();
            self.wbuf[start..start + 4].copy_from_slice(&[h[0], h[1], h[2], self.seq]);
            self.seq = self.seq.wrapping_add(1);
        } else {
            self.split_large(start);
        }
    }

    /// Appends one packet with the given payload.
    pub fn push_payload(&mut self, payload: &[u8]) {
        self.push_packet(|out| out.extend_from_slice(payload));
    }

    /// Re-frames the payload staged at `start + 4..` as a sequence of full chunks.
    fn split_large(&mut self, start: usize) {
        let payload = self.wbuf.split_off(start + 4);
        self.wbuf.truncate(start);
        let mut chunks = payload.chunks(MAX_PACKET_CHUNK);
        loop {
            let chunk = chunks.next().unwrap_or(&[]);
            let h = (chunk.len() as u32).to_le_bytes();
            self.wbuf.extend_from_slice(&[h[0], h[1], h[2], self.seq]);
            self.wbuf.extend_from_slice(chunk);
            self.seq = self.seq.wrapping_add(1);
            if chunk.len() < MAX_PACKET_CHUNK {
                break;
            }
        }
    }

    /// Drops staged output (e.g. a half-written result set replaced by an ERR packet;
    /// the caller then also rewinds the sequence id with [`PacketConn::set_sequence_id`]).
    pub fn discard_output(&mut self) {
        self.wbuf.clear();
    }

    pub fn set_sequence_id(&mut self, seq: u8) {
        self.seq = seq;
    }
}

impl<S: AsyncWrite + Unpin> PacketConn<S> {
    /// Writes all staged packets with one `write_all` and flushes the stream.
    pub async fn flush(&mut self) -> Result<(), ProtoError> {
        if !self.wbuf.is_empty() {
            self.stream.write_all(&self.wbuf).await?;
            self.wbuf.clear();
            if self.wbuf.capacity() > SHRINK_ABOVE {
                self.wbuf.shrink_to(SHRINK_TO);
            }
        }
        self.stream.flush().await?;
        Ok(())
    }

    /// Flushes only when enough output is staged; call between rows of a large
    /// result set to bound memory.
    pub async fn flush_if_large(&mut self) -> Result<(), ProtoError> {
        if self.should_flush() {
            self.flush().await?;
        }
        Ok(())
    }

    /// Shuts the write side down (after a fatal error's ERR packet was flushed).
    pub async fn shutdown(&mut self) -> Result<(), ProtoError> {
        self.stream.shutdown().await?;
        Ok(())
    }
}

impl<S: AsyncRead + Unpin> PacketConn<S> {
    /// Reads the first packet of a command: resets the sequence to 0, then
    /// [`PacketConn::read_packet`].
    pub async fn read_command(&mut self, out: &mut Vec<u8>) -> Result<(), ProtoError> {
        self.reset_sequence();
        self.read_packet(out).await
    }

    /// Reads one logical packet into `out` (cleared first; its allocation is reused).
    /// Returns [`ProtoError::Closed`] if the peer closed before the first header byte.
    pub async fn read_packet(&mut self, out: &mut Vec<u8>) -> Result<(), ProtoError> {
        out.clear();
        if out.capacity() > SHRINK_ABOVE {
            out.shrink_to(SHRINK_TO);
        }
        let mut first = true;
        loop {
            let header = self.read_header(first).await?;
            first = false;
            let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
            if header[3] != self.seq {
                return Err(ProtoError::OutOfOrder {
                    expected: self.seq,
                    got: header[3],
                });
            }
            self.seq = self.seq.wrapping_add(1);
            let total = out.len() + len;
            if total > self.max_allowed_packet {
                return Err(ProtoError::PacketTooLarge {
                    size: total as u64,
                    max: self.max_allowed_packet,
                });
            }
            self.read_payload(len, out).await?;
            if len < MAX_PACKET_CHUNK {
                return Ok(());
            }
        }
    }

    async fn read_header(&mut self, first: bool) -> Result<[u8; 4], ProtoError> {
        while self.rend - self.rpos < 4 {
            let had = self.rend - self.rpos;
            if self.fill().await? == 0 {
                return Err(if first && had == 0 {
                    ProtoError::Closed
                } else {
                    ProtoError::UnexpectedEof
                });
            }
        }
        let mut h = [0u8; 4];
        h.copy_from_slice(&self.rbuf[self.rpos..self.rpos + 4]);
        self.rpos += 4;
        Ok(h)
    }

    /// Appends `len` payload bytes to `out`: first what is buffered, then the rest
    /// straight from the socket.
    async fn read_payload(&mut self, len: usize, out: &mut Vec<u8>) -> Result<(), ProtoError> {
        let buffered = (self.rend - self.rpos).min(len);
        out.extend_from_slice(&self.rbuf[self.rpos..self.rpos + buffered]);
        self.rpos += buffered;
        let missing = len - buffered;
        if missing == 0 {
            return Ok(());
        }
        if missing < READ_AHEAD / 2 {
            while self.rend - self.rpos < missing {
                if self.fill().await? == 0 {
                    return Err(ProtoError::UnexpectedEof);
                }
            }
            out.extend_from_slice(&self.rbuf[self.rpos..self.rpos + missing]);
            self.rpos += missing;
            return Ok(());
        }
        let at = out.len();
        out.resize(at + missing, 0);
        match self.stream.read_exact(&mut out[at..]).await {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                Err(ProtoError::UnexpectedEof)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Reads more bytes into the read-ahead buffer, compacting it first.
    async fn fill(&mut self) -> Result<usize, ProtoError> {
        if self.rbuf.is_empty() {
            self.restore_buffers();
        }
        if self.rpos > 0 {
            self.rbuf.copy_within(self.rpos..self.rend, 0);
            self.rend -= self.rpos;
            self.rpos = 0;
        }
        let n = self.stream.read(&mut self.rbuf[self.rend..]).await?;
        self.rend += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(payload: &[u8], seq: u8) -> Vec<u8> {
        let mut v = (payload.len() as u32).to_le_bytes()[..3].to_vec();
        v.push(seq);
        v.extend_from_slice(payload);
        v
    }

    async fn read_all(input: Vec<u8>, max: usize) -> (Vec<Result<Vec<u8>, String>>, u8) {
        let mut conn = PacketConn::new(&input[..]);
        conn.set_max_allowed_packet(max);
        let mut res = Vec::new();
        loop {
            let mut buf = Vec::new();
            match conn.read_packet(&mut buf).await {
                Ok(()) => res.push(Ok(buf)),
                Err(ProtoError::Closed) => break,
                Err(e) => {
                    res.push(Err(e.to_string()));
                    break;
                }
            }
        }
        (res, conn.sequence_id())
    }

    #[tokio::test]
    async fn reads_small_packets_in_sequence() {
        let mut input = framed(b"\x03select 1", 0);
        input.extend(framed(b"", 1));
        let (res, seq) = read_all(input, 1024).await;
        assert_eq!(res, vec![Ok(b"\x03select 1".to_vec()), Ok(Vec::new())]);
        assert_eq!(seq, 2);
    }

    #[tokio::test]
    async fn buffers_are_released_only_when_empty_and_come_back() {
        let mut input = framed(b"\x03select 1", 0);
        input.extend(framed(b"\x03select 2", 0));
        let mut conn = PacketConn::new(&input[..]);
        let mut buf = Vec::new();
        conn.read_command(&mut buf).await.expect("first");
        assert!(
            conn.has_buffered_input(),
            "the second command was read ahead"
        );
        assert!(
            !conn.release_buffers(),
            "nothing is freed while input waits"
        );
        conn.read_command(&mut buf).await.expect("second");
        assert_eq!(buf, b"\x03select 2");
        conn.push_payload(b"ok");
        assert!(
            !conn.release_buffers(),
            "nothing is freed while output waits"
        );
        conn.discard_output();
        assert!(conn.release_buffers());
        assert_eq!(conn.wbuf.capacity(), 0);
        conn.restore_buffers();
        assert!(conn.wbuf.capacity() >= FLUSH_THRESHOLD);
        let ping = framed(b"\x0e", 0);
        let mut conn = PacketConn::new(&ping[..]);
        assert!(conn.release_buffers());
        conn.read_command(&mut buf)
            .await
            .expect("a read after release");
        assert_eq!(buf, b"\x0e");
    }

    #[tokio::test]
    async fn rejects_out_of_order() {
        let input = framed(b"\x0e", 3);
        let (res, _) = read_all(input, 1024).await;
        assert!(res[0].as_ref().is_err_and(|e| e.contains("out of order")));
    }

    #[tokio::test]
    async fn rejects_oversized_before_reading_payload() {
        // Header announces 1000 bytes but only the header is present: the limit check
        // must fire before trying to read (or allocate) the payload.
        let input = vec![0xe8, 0x03, 0x00, 0x00];
        let (res, _) = read_all(input, 999).await;
        assert!(res[0]
            .as_ref()
            .is_err_and(|e| e.contains("max_allowed_packet")));
        let mut conn = PacketConn::new(&[0xffu8, 0xff, 0xff, 0x00][..]);
        conn.set_max_allowed_packet(1024);
        let mut buf = Vec::new();
        match conn.read_packet(&mut buf).await {
            Err(ProtoError::PacketTooLarge { size, max }) => {
                assert_eq!((size, max), (0xff_ffff, 1024));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(buf.capacity(), 0, "nothing allocated for the payload");
    }

    #[tokio::test]
    async fn truncated_packet_is_unexpected_eof() {
        let (res, _) = read_all(vec![0x05, 0x00, 0x00, 0x00, b'a'], 1024).await;
        assert!(res[0].as_ref().is_err_and(|e| e.contains("middle")));
        let (res, _) = read_all(vec![0x05, 0x00], 1024).await;
        assert!(res[0].as_ref().is_err_and(|e| e.contains("middle")));
    }

    #[tokio::test]
    async fn large_packets_split_and_join() {
        for len in [
            MAX_PACKET_CHUNK - 1,
            MAX_PACKET_CHUNK,
            MAX_PACKET_CHUNK + 10,
        ] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut w = PacketConn::new(Vec::new());
            w.push_payload(&payload);
            w.push_payload(b"next");
            let pieces = len / MAX_PACKET_CHUNK + 1;
            assert_eq!(w.sequence_id() as usize, pieces + 1);
            w.flush().await.expect("flush to vec");
            let wire = w.get_ref().clone();
            assert_eq!(wire.len(), len + 4 * pieces + 8);
            let (res, _) = read_all(wire, 32 << 20).await;
            assert_eq!(res.len(), 2);
            assert!(res[0].as_ref().is_ok_and(|p| *p == payload));
            assert!(res[1].as_ref().is_ok_and(|p| p == b"next"));
        }
    }

    #[tokio::test]
    async fn joined_size_counts_against_limit() {
        let mut w = PacketConn::new(Vec::new());
        w.push_payload(&vec![1u8; MAX_PACKET_CHUNK + 5]);
        w.flush().await.expect("flush");
        let (res, _) = read_all(w.get_ref().clone(), MAX_PACKET_CHUNK + 4).await;
        assert!(res[0]
            .as_ref()
            .is_err_and(|e| e.contains("max_allowed_packet")));
    }

    #[tokio::test]
    async fn into_parts_hands_over_the_input_read_ahead() {
        let mut input = framed(b"ssl", 1);
        input.extend_from_slice(b"tls bytes");
        let mut conn = PacketConn::new(&input[..]);
        conn.set_sequence_id(1);
        conn.set_capabilities(7);
        let mut buf = Vec::new();
        conn.read_packet(&mut buf).await.expect("packet");
        let Ok((_, seq, caps, early)) = conn.into_parts() else {
            panic!("no output staged");
        };
        assert_eq!((seq, caps, &early[..]), (2, 7, &b"tls bytes"[..]));
        let mut conn = PacketConn::new(&input[..0]);
        conn.push_payload(b"unsent");
        assert!(conn.into_parts().is_err(), "output is staged");
    }

    #[tokio::test]
    async fn read_command_resets_sequence() {
        let mut input = framed(b"\x0e", 0);
        input.extend(framed(b"\x0e", 0));
        let mut conn = PacketConn::new(&input[..]);
        let mut buf = Vec::new();
        conn.read_command(&mut buf).await.expect("first");
        conn.push_payload(b"\x00\x00\x00\x02\x00\x00\x00");
        assert_eq!(conn.sequence_id(), 2);
        conn.read_command(&mut buf).await.expect("second");
        assert_eq!(buf, b"\x0e");
    }
}
