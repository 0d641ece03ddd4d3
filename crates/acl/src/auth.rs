//! Authentication strings: what an account stores for each plugin Basalt
//! authenticates with, how a password becomes one, and which strings a statement
//! may give (`IDENTIFIED VIA plugin USING '...'`, `SET PASSWORD = '...'`).
//!
//! - `mysql_native_password`: `*` and 40 uppercase hex digits of SHA1(SHA1(pw)).
//! - `ed25519` (MariaDB's auth_ed25519): the account's Ed25519 public key in
//!   base64 without the padding `=` (43 characters). The password of any length
//!   stands for ref10's 32-byte seed: a = clamp(SHA512(pw)[0..32]), key = a·B. A
//!   client proves the password by signing a nonce with that key.
//! - `caching_sha2_password`: 64 uppercase hex digits of SHA256(SHA256(pw)), the
//!   value the fast path checks a scramble against (MariaDB has no server side of
//!   this plugin; Basalt offers it for MySQL 8 clients). MySQL stores a salted
//!   SHA256-crypt (`$A$005$...`) instead, which cannot give that value: such
//!   strings are refused.
//!
//! Invariants: a stored string is empty (no password; for ed25519 an account
//! nobody can log in to, as in MariaDB) or one the server's decoders
//! ([`native_hash`], [`ed25519_key`], [`sha2_hash`]) accept.

use basalt_common::MySqlError;
use ed25519_dalek::hazmat::ExpandedSecretKey;
use ed25519_dalek::VerifyingKey;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

pub const NATIVE: &str = "mysql_native_password";
pub const ED25519: &str = "ed25519";
pub const CACHING_SHA2: &str = "caching_sha2_password";

/// The plugins accounts can be created with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plugin {
    Native,
    Ed25519,
    CachingSha2,
}

impl Plugin {
    /// The plugin of a name as statements give it (any case); `None`: one
    /// Basalt does not have (1524 "not loaded").
    pub fn from_name(name: &str) -> Option<Plugin> {
        [Plugin::Native, Plugin::Ed25519, Plugin::CachingSha2]
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
    }

    pub fn name(self) -> &'static str {
        match self {
            Plugin::Native => NATIVE,
            Plugin::Ed25519 => ED25519,
            Plugin::CachingSha2 => CACHING_SHA2,
        }
    }

    /// The stored string for `password` (`PASSWORD('...')` in `USING` and
    /// `SET PASSWORD`); empty for an empty password.
    pub fn from_password(self, password: &[u8]) -> String {
        if password.is_empty() {
            return String::new();
        }
        match self {
            Plugin::Native => format!("*{}", hex(&Sha1::digest(Sha1::digest(password)))),
            Plugin::Ed25519 => base64_43(&ed25519_public_key(password)),
            Plugin::CachingSha2 => hex(&Sha256::digest(Sha256::digest(password))),
        }
    }

    /// A string a statement gives as is, checked (1372 with MariaDB's messages
    /// when malformed) and normalized as stored.
    pub fn check_string(self, s: &str) -> Result<String, MySqlError> {
        if s.is_empty() {
            return Ok(String::new());
        }
        match self {
            Plugin::Native => match native_hash(s) {
                Some(_) => Ok(s.to_ascii_uppercase()),
                None => Err(malformed(
                    "Password hash should be a 41-digit hexadecimal number",
                )),
            },
            Plugin::Ed25519 => check_ed25519(s).map(|_| s.to_string()),
            Plugin::CachingSha2 => check_sha2(s),
        }
    }
}

fn malformed(message: &str) -> MySqlError {
    MySqlError::new(1372, "HY000", message)
}

/// MariaDB's checks, in its order: the length, then the alphabet.
fn check_ed25519(s: &str) -> Result<[u8; 32], MySqlError> {
    if s.len() != 43 {
        return Err(malformed("Password hash should be 43 characters long"));
    }
    ed25519_key(s).ok_or_else(|| malformed("Password hash should be base64 encoded"))
}

fn check_sha2(s: &str) -> Result<String, MySqlError> {
    if s.starts_with("$A$") {
        return Err(malformed(
            "MySQL's salted caching_sha2_password hashes ('$A$...') cannot be verified by Basalt; give the password instead: IDENTIFIED WITH caching_sha2_password BY '...'",
        ));
    }
    match sha2_hash(s) {
        Some(_) => Ok(s.to_ascii_uppercase()),
        None => Err(malformed(
            "Password hash should be a 64-digit hexadecimal number",
        )),
    }
}

/// The Ed25519 public key of `password` as MariaDB's `crypto_sign_keypair`
/// computes it: SHA512(password) expanded as ref10 expands a seed (the scalar is
/// the clamped first half), times the base point.
pub fn ed25519_public_key(password: &[u8]) -> [u8; 32] {
    let expanded: [u8; 64] = Sha512::digest(password).into();
    VerifyingKey::from(&ExpandedSecretKey::from_bytes(&expanded)).to_bytes()
}

/// SHA1(SHA1(pw)) from `*` and 40 hex digits.
pub fn native_hash(s: &str) -> Option<[u8; 20]> {
    unhex(s.strip_prefix('*')?)
}

/// SHA256(SHA256(pw)) from 64 hex digits.
pub fn sha2_hash(s: &str) -> Option<[u8; 32]> {
    unhex(s)
}

/// The public key from its 43-character base64. As MariaDB's decoder, the two
/// bits the last character carries past the 256 are ignored.
pub fn ed25519_key(s: &str) -> Option<[u8; 32]> {
    let b = s.as_bytes();
    if b.len() != 43 {
        return None;
    }
    let mut out = [0u8; 32];
    let (mut acc, mut bits, mut n) = (0u32, 0, 0);
    for &c in b {
        acc = (acc << 6) | u32::from(sextet(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out[n] = (acc >> bits) as u8;
            n += 1;
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn sextet(c: u8) -> Option<u8> {
    BASE64.iter().position(|&x| x == c).map(|i| i as u8)
}

/// Base64 of 32 bytes without the padding `=`.
fn base64_43(bytes: &[u8; 32]) -> String {
    let mut out = String::with_capacity(43);
    let (mut acc, mut bits) = (0u32, 0);
    for &b in bytes {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 6 {
            bits -= 6;
            out.push(BASE64[(acc >> bits) as usize & 63] as char);
        }
        acc &= (1 << bits) - 1;
    }
    out.push(BASE64[(acc << (6 - bits)) as usize & 63] as char);
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

fn unhex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let b = s.as_bytes();
    if b.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        let digit = |c: u8| (c as char).to_digit(16);
        *o = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Computed by MariaDB 10.11.19 with auth_ed25519: CREATE USER ... IDENTIFIED
    // VIA ed25519 USING PASSWORD('secret'), then mysql.user.authentication_string.
    const SECRET: &str = "ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJY";
    const SECRET2: &str = "RR9ODdG76W375aQ1IzhzQn1OIp0LmDvqXlinhTcpEPY";

    #[test]
    fn ed25519_keys_as_mariadb_derives_them() {
        assert_eq!(Plugin::Ed25519.from_password(b"secret"), SECRET);
        assert_eq!(Plugin::Ed25519.from_password(b"secret2"), SECRET2);
        assert_eq!(Plugin::Ed25519.from_password(b""), "");
        let key = ed25519_key(SECRET).expect("valid");
        assert_eq!(key, ed25519_public_key(b"secret"));
        assert_eq!(base64_43(&key), SECRET);
        // The last character's two spare bits are ignored.
        let spare = SECRET.replace("YJY", "YJZ");
        assert_eq!(ed25519_key(&spare), Some(key));
    }

    #[test]
    fn ed25519_strings_checked_as_mariadb() {
        let err = |s: &str| Plugin::Ed25519.check_string(s).expect_err(s).message;
        let long = "Password hash should be 43 characters long";
        let b64 = "Password hash should be base64 encoded";
        assert_eq!(err("abc"), long);
        assert_eq!(err(&format!("{SECRET}A")), long);
        assert_eq!(err(&"/".repeat(44)), long);
        assert_eq!(err(&SECRET.replace("YJY", "YJ=")), b64);
        assert_eq!(err(&SECRET.replace("YJY", "Y Y")), b64);
        assert_eq!(err(&SECRET.replace('+', "-")), b64);
        assert_eq!(Plugin::Ed25519.check_string(SECRET).as_deref(), Ok(SECRET));
        assert_eq!(Plugin::Ed25519.check_string("").as_deref(), Ok(""));
        assert!(Plugin::Ed25519.check_string(&"/".repeat(43)).is_ok());
    }

    #[test]
    fn native_and_sha2_strings() {
        let native = Plugin::Native.from_password(b"password");
        assert_eq!(native, "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
        assert_eq!(
            Plugin::Native.check_string(&native.to_ascii_lowercase()),
            Ok(native.clone())
        );
        assert_eq!(Plugin::Native.check_string("*12").unwrap_err().code, 1372);
        let sha2 = Plugin::CachingSha2.from_password(b"pw");
        assert_eq!(sha2.len(), 64);
        assert_eq!(
            sha2_hash(&sha2),
            Some(Sha256::digest(Sha256::digest(b"pw")).into())
        );
        assert_eq!(Plugin::CachingSha2.check_string(&sha2), Ok(sha2.clone()));
        let mysql = "$A$005$0123456789012345678901234567890123456789012";
        let e = Plugin::CachingSha2.check_string(mysql).unwrap_err();
        assert!(e.code == 1372 && e.message.contains("$A$"), "{e:?}");
        assert_eq!(
            Plugin::CachingSha2.check_string("00").unwrap_err().code,
            1372
        );
    }

    #[test]
    fn plugin_names() {
        assert_eq!(Plugin::from_name("ED25519"), Some(Plugin::Ed25519));
        assert_eq!(Plugin::from_name("pam"), None);
        assert_eq!(Plugin::CachingSha2.name(), "caching_sha2_password");
    }
}
