//! Encryption, password hashing and compression functions: AES_ENCRYPT(),
//! AES_DECRYPT(), ENCODE(), DECODE(), PASSWORD(), OLD_PASSWORD(), COMPRESS(),
//! UNCOMPRESS(), UNCOMPRESSED_LENGTH().
//!
//! AES follows MariaDB 10.11 (two arguments only): the key string is folded into
//! 16 bytes by XOR-ing byte `i` into position `i % 16` of a zeroed key, the data is
//! encrypted with AES-128 in ECB mode and PKCS#7 padding (so the result is the
//! input length rounded up to the next multiple of 16, a full block for an exact
//! multiple). A ciphertext whose length is no multiple of 16 or whose padding
//! does not check out decrypts to NULL without a warning.
//!
//! ENCODE / DECODE are MariaDB's old byte-substitution cipher (`SQL_CRYPT`): the
//! password's OLD_PASSWORD hash seeds MariaDB's `my_rnd` generator, which
//! shuffles a 256-byte substitution table and then yields one shift byte per
//! input byte. OLD_PASSWORD is the pre-4.1 hash with 64-bit intermediate
//! arithmetic, each half kept to 31 bits; PASSWORD is `*` and the upper-case hex
//! of SHA1(SHA1(x)), empty for an empty or NULL argument.
//!
//! COMPRESS writes the input length (4 bytes, little-endian, top two bits clear)
//! and a zlib stream at the default level, plus a `.` when the stream ends in a
//! space (MariaDB's guard for CHAR columns); an empty string stays empty.
//! UNCOMPRESS checks the stored length against `max_allowed_packet` (1256) and
//! reports zlib's failures as warnings 1258 (output buffer: a wrong length or a
//! truncated stream) and 1259 (corrupt data), returning NULL.

use crate::expr::{EvalCtx, R};
use crate::ty::{Class, ExprType};
use crate::value::to_bytes;
use aes::cipher::{generic_array::GenericArray, BlockDecrypt, BlockEncrypt, KeyInit};
use basalt_common::{Collation, ColumnType, Value};
use sha1::{Digest, Sha1};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CryptFn {
    AesEncrypt,
    AesDecrypt,
    Encode,
    Decode,
    Password,
    OldPassword,
    Compress,
    Uncompress,
    UncompressedLength,
}

/// (function, min args, max args) for a lower-case name of this family.
pub fn lookup(name: &str) -> Option<(CryptFn, usize, usize)> {
    use CryptFn::*;
    Some(match name {
        "aes_encrypt" => (AesEncrypt, 2, 2),
        "aes_decrypt" => (AesDecrypt, 2, 2),
        "encode" => (Encode, 2, 2),
        "decode" => (Decode, 2, 2),
        "password" => (Password, 1, 1),
        "old_password" => (OldPassword, 1, 1),
        "compress" => (Compress, 1, 1),
        "uncompress" => (Uncompress, 1, 1),
        "uncompressed_length" => (UncompressedLength, 1, 1),
        _ => return None,
    })
}

/// The most bytes a value of type `t` takes as a string (MariaDB's `max_length`).
pub fn byte_len(t: &ExprType) -> u32 {
    match t.class {
        Class::String => t.len.saturating_mul(t.collation.charset().max_len()),
        _ => t.len,
    }
}

fn binary(len: u32) -> ExprType {
    ExprType::string(len, Collation::Binary).nullable(true)
}

pub fn result_type(f: CryptFn, args: &[ExprType]) -> ExprType {
    use CryptFn::*;
    let bytes = args.first().map_or(0, byte_len);
    match f {
        AesEncrypt => binary((bytes / 16 + 1).saturating_mul(16)),
        AesDecrypt | Encode | Decode => binary(bytes),
        Password => ExprType::string(41, Collation::Utf8mb3GeneralCi).nullable(true),
        OldPassword => ExprType::string(16, Collation::Utf8mb3GeneralCi).nullable(true),
        Compress => binary(bytes.saturating_mul(120) / 100 + 12),
        Uncompress => {
            let mut t = binary(16_777_216);
            t.column_type = Some(ColumnType::LongBlob);
            t
        }
        UncompressedLength => ExprType::long(10).nullable(true),
    }
}

pub fn eval(f: CryptFn, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    use CryptFn::*;
    match f {
        Password => return Ok(Value::str(&password(&to_bytes(&vals[0])))),
        _ if vals.iter().any(Value::is_null) => return Ok(Value::Null),
        _ => {}
    }
    let data = to_bytes(&vals[0]);
    Ok(match f {
        AesEncrypt => Value::Bytes(aes_encrypt(&data, &to_bytes(&vals[1]))),
        AesDecrypt => aes_decrypt(&data, &to_bytes(&vals[1])).map_or(Value::Null, Value::Bytes),
        Encode | Decode => {
            let mut c = SqlCrypt::new(&to_bytes(&vals[1]));
            Value::Bytes(if f == Encode {
                c.encode(&data)
            } else {
                c.decode(&data)
            })
        }
        OldPassword if data.is_empty() => Value::str(""),
        OldPassword => {
            let [a, b] = old_hash(&data);
            Value::str(&format!("{a:08x}{b:08x}"))
        }
        Compress => Value::Bytes(compress(&data)),
        Uncompress => uncompress(&data, ctx),
        UncompressedLength => uncompressed_length(&data, ctx),
        Password => Value::Null,
    })
}

/// MariaDB's AES key: the key string XOR-folded into 16 bytes.
fn aes_key(key: &[u8]) -> aes::Aes128 {
    let mut k = [0u8; 16];
    for (i, b) in key.iter().enumerate() {
        k[i % 16] ^= b;
    }
    aes::Aes128::new(&GenericArray::from(k))
}

pub fn aes_encrypt(data: &[u8], key: &[u8]) -> Vec<u8> {
    let cipher = aes_key(key);
    let pad = 16 - data.len() % 16;
    let mut out = Vec::with_capacity(data.len() + pad);
    out.extend_from_slice(data);
    out.resize(data.len() + pad, pad as u8);
    for block in out.chunks_exact_mut(16) {
        cipher.encrypt_block(GenericArray::from_mut_slice(block));
    }
    out
}

/// None for a ciphertext that is not whole blocks or whose padding is wrong.
pub fn aes_decrypt(data: &[u8], key: &[u8]) -> Option<Vec<u8>> {
    if data.is_empty() || !data.len().is_multiple_of(16) {
        return None;
    }
    let cipher = aes_key(key);
    let mut out = data.to_vec();
    for block in out.chunks_exact_mut(16) {
        cipher.decrypt_block(GenericArray::from_mut_slice(block));
    }
    let pad = *out.last()? as usize;
    if pad == 0 || pad > 16 || out[out.len() - pad..].iter().any(|&b| b as usize != pad) {
        return None;
    }
    out.truncate(out.len() - pad);
    Some(out)
}

/// PASSWORD('text'): `*` and the upper-case hex of SHA1(SHA1(text)); '' for ''.
pub(crate) fn password(p: &[u8]) -> String {
    if p.is_empty() {
        return String::new();
    }
    let twice = Sha1::digest(Sha1::digest(p));
    let mut s = String::with_capacity(41);
    s.push('*');
    for b in twice {
        s.push_str(&format!("{b:02X}"));
    }
    s
}

/// The pre-4.1 password hash (MariaDB's `hash_password`): spaces and tabs are
/// skipped; arithmetic wraps at 64 bits (`ulong`), each half keeps 31 bits.
fn old_hash(p: &[u8]) -> [u64; 2] {
    let (mut nr, mut add, mut nr2) = (1_345_345_333u64, 7u64, 0x1234_5671u64);
    for &c in p.iter().filter(|&&c| c != b' ' && c != b'\t') {
        let tmp = c as u64;
        nr ^= ((nr & 63).wrapping_add(add))
            .wrapping_mul(tmp)
            .wrapping_add(nr << 8);
        nr2 = nr2.wrapping_add((nr2 << 8) ^ nr);
        add = add.wrapping_add(tmp);
    }
    let mask = (1u64 << 31) - 1;
    [nr & mask, nr2 & mask]
}

/// MariaDB's `my_rnd` generator.
struct Rnd {
    s1: u64,
    s2: u64,
}

impl Rnd {
    const MAX: u64 = 0x3FFF_FFFF;

    fn new(s1: u64, s2: u64) -> Rnd {
        Rnd {
            s1: s1 % Self::MAX,
            s2: s2 % Self::MAX,
        }
    }

    fn next(&mut self) -> f64 {
        self.s1 = (self.s1 * 3 + self.s2) % Self::MAX;
        self.s2 = (self.s1 + self.s2 + 33) % Self::MAX;
        self.s1 as f64 / Self::MAX as f64
    }

    /// `(uint) (my_rnd() * 255.0)`.
    fn byte(&mut self) -> usize {
        (self.next() * 255.0) as usize
    }
}

/// ENCODE / DECODE's cipher state (MariaDB's `SQL_CRYPT`).
struct SqlCrypt {
    rnd: Rnd,
    decode: [u8; 256],
    encode: [u8; 256],
    shift: usize,
}

impl SqlCrypt {
    fn new(password: &[u8]) -> SqlCrypt {
        let [a, b] = old_hash(password);
        let mut rnd = Rnd::new(a, b);
        let mut decode = [0u8; 256];
        for (i, d) in decode.iter_mut().enumerate() {
            *d = i as u8;
        }
        for i in 0..256 {
            let idx = rnd.byte();
            decode.swap(idx, i);
        }
        let mut encode = [0u8; 256];
        for (i, &d) in decode.iter().enumerate() {
            encode[d as usize] = i as u8;
        }
        SqlCrypt {
            rnd,
            decode,
            encode,
            shift: 0,
        }
    }

    fn encode(&mut self, data: &[u8]) -> Vec<u8> {
        data.iter()
            .map(|&b| {
                self.shift ^= self.rnd.byte();
                let out = self.encode[b as usize] ^ self.shift as u8;
                self.shift ^= b as usize;
                out
            })
            .collect()
    }

    fn decode(&mut self, data: &[u8]) -> Vec<u8> {
        data.iter()
            .map(|&b| {
                self.shift ^= self.rnd.byte();
                let out = self.decode[(b as usize ^ self.shift) & 255];
                self.shift ^= out as usize;
                out
            })
            .collect()
    }
}

fn compress(data: &[u8]) -> Vec<u8> {
    if data.is_empty() {
        return Vec::new();
    }
    let mut z = flate2::Compress::new(flate2::Compression::default(), true);
    let mut out = Vec::with_capacity(data.len() + data.len() / 5 + 16);
    out.extend_from_slice(&((data.len() as u32) & 0x3FFF_FFFF).to_le_bytes());
    let mut body = Vec::with_capacity(data.len() + data.len() / 5 + 12);
    // A buffer this large always holds the whole stream (zlib's compressBound).
    let _ = z.compress_vec(data, &mut body, flate2::FlushCompress::Finish);
    out.extend_from_slice(&body);
    if out.last() == Some(&b' ') {
        out.push(b'.');
    }
    out
}

fn zlib_warning(ctx: &mut EvalCtx, buffer: bool) -> Value {
    if buffer {
        ctx.warn(
            1258,
            "ZLIB: Not enough room in the output buffer (probably, length of uncompressed data was corrupted)",
        );
    } else {
        ctx.warn(1259, "ZLIB: Input data corrupted");
    }
    Value::Null
}

fn uncompress(data: &[u8], ctx: &mut EvalCtx) -> Value {
    if data.is_empty() {
        return Value::Bytes(Vec::new());
    }
    if data.len() <= 4 {
        return zlib_warning(ctx, false);
    }
    let size = (u32::from_le_bytes([data[0], data[1], data[2], data[3]]) & 0x3FFF_FFFF) as u64;
    let max = ctx.cx.var_u64("max_allowed_packet");
    if size > max {
        ctx.warn(1256, format!("Uncompressed data size too large; the maximum size is {max} (probably, length of uncompressed data was corrupted)"));
        return Value::Null;
    }
    let mut z = flate2::Decompress::new(true);
    let mut out = Vec::with_capacity(size as usize);
    match z.decompress_vec(&data[4..], &mut out, flate2::FlushDecompress::Finish) {
        Ok(flate2::Status::StreamEnd) => Value::Bytes(out),
        Ok(_) => zlib_warning(ctx, true),
        Err(_) => zlib_warning(ctx, false),
    }
}

fn uncompressed_length(data: &[u8], ctx: &mut EvalCtx) -> Value {
    if data.is_empty() {
        return Value::Int(0);
    }
    if data.len() <= 4 {
        return zlib_warning(ctx, false);
    }
    let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) & 0x3FFF_FFFF;
    Value::Int(n as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02X}")).collect()
    }

    #[test]
    fn aes_matches_mariadb() {
        assert_eq!(
            hex(&aes_encrypt(b"text", b"key")),
            "15E36637363712FC2E699B9C95B75393"
        );
        assert_eq!(
            aes_decrypt(&aes_encrypt(b"text", b"key"), b"key").as_deref(),
            Some(&b"text"[..])
        );
        assert_eq!(aes_decrypt(b"abc", b"key"), None);
        // A key longer than 16 bytes folds onto itself.
        assert_eq!(
            hex(&aes_encrypt(b"text", &[b'k'; 40])),
            "5D2C2EFCC6005DF40FC7AD16EED99DBE"
        );
    }

    #[test]
    fn old_password_and_encode_match_mariadb() {
        let [a, b] = old_hash(b"abc");
        assert_eq!(format!("{a:08x}{b:08x}"), "7cd2b5942be28759");
        assert_eq!(hex(&SqlCrypt::new(b"pw").encode(b"hello")), "997D699DC7");
        assert_eq!(
            SqlCrypt::new(b"pw").decode(&SqlCrypt::new(b"pw").encode(b"hello")),
            b"hello"
        );
        assert_eq!(
            password(b"abc"),
            "*0D3CED9BEC10A777AEC23CCC353A8C08A633045E"
        );
    }

    #[test]
    fn compress_matches_zlib() {
        assert_eq!(
            hex(&compress(b"hello")),
            "05000000789CCB48CDC9C90700062C0215"
        );
        assert_eq!(hex(&compress(b" ")), "01000000789C53000000210021");
    }
}
