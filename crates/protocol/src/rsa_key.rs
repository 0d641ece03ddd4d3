//! The RSA key pair used by `caching_sha2_password` full authentication over
//! connections without TLS.
//!
//! The client asks for the public key (a 0x02 request), receives it as a PEM
//! (SubjectPublicKeyInfo, `-----BEGIN PUBLIC KEY-----`, as MySQL sends), XORs its
//! NUL-terminated password with the 20-byte scramble (repeating the scramble) and
//! encrypts the result with RSA-OAEP (SHA-1, MGF1-SHA-1 — OpenSSL's
//! `RSA_PKCS1_OAEP_PADDING`, which MySQL 8.0.5+ and its clients use).
//!
//! Keys are PEM files in the data directory with MySQL's names:
//! `private_key.pem` (PKCS#8, or PKCS#1 `BEGIN RSA PRIVATE KEY` as MySQL writes
//! them) and `public_key.pem`. The server decides whether to load or generate.

use crate::error::ProtoError;
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey, LineEnding};
use rsa::traits::PublicKeyParts;
use rsa::{Oaep, RsaPrivateKey, RsaPublicKey};
use std::path::Path;

/// Key size MySQL uses by default (`caching_sha2_password_auto_generate_rsa_keys`).
pub const DEFAULT_RSA_BITS: usize = 2048;

pub const PRIVATE_KEY_FILE: &str = "private_key.pem";
pub const PUBLIC_KEY_FILE: &str = "public_key.pem";

/// A private key and its public half pre-encoded as the PEM sent to clients.
pub struct RsaKeyPair {
    private: RsaPrivateKey,
    public_pem: String,
}

impl std::fmt::Debug for RsaKeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RsaKeyPair")
            .field("bits", &(self.private.size() * 8))
            .finish_non_exhaustive()
    }
}

fn rsa_err(e: impl std::fmt::Display) -> ProtoError {
    ProtoError::Rsa(e.to_string())
}

impl RsaKeyPair {
    /// Generates a fresh key pair (2048 bits takes a fraction of a second in release
    /// builds, a few seconds unoptimised).
    pub fn generate(bits: usize) -> Result<Self, ProtoError> {
        let private = RsaPrivateKey::new(&mut rand::thread_rng(), bits).map_err(rsa_err)?;
        Self::from_private(private)
    }

    /// Parses a private key PEM (PKCS#8 or PKCS#1).
    pub fn from_pem(pem: &str) -> Result<Self, ProtoError> {
        let private = RsaPrivateKey::from_pkcs8_pem(pem)
            .or_else(|_| RsaPrivateKey::from_pkcs1_pem(pem))
            .map_err(rsa_err)?;
        Self::from_private(private)
    }

    fn from_private(private: RsaPrivateKey) -> Result<Self, ProtoError> {
        let public_pem = RsaPublicKey::from(&private)
            .to_public_key_pem(LineEnding::LF)
            .map_err(rsa_err)?;
        Ok(RsaKeyPair {
            private,
            public_pem,
        })
    }

    /// Loads `private_key.pem` from `dir`, or generates a key pair and writes
    /// `private_key.pem` (mode 0600) and `public_key.pem` there.
    pub fn load_or_generate(dir: &Path, bits: usize) -> Result<Self, ProtoError> {
        let path = dir.join(PRIVATE_KEY_FILE);
        match std::fs::read_to_string(&path) {
            Ok(pem) => return Self::from_pem(&pem),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
            Err(_) => {}
        }
        let pair = Self::generate(bits)?;
        pair.write_to(dir)?;
        Ok(pair)
    }

    /// Writes both PEM files into `dir` (the private one readable by the owner only).
    pub fn write_to(&self, dir: &Path) -> Result<(), ProtoError> {
        let pem = self.private.to_pkcs8_pem(LineEnding::LF).map_err(rsa_err)?;
        write_private(&dir.join(PRIVATE_KEY_FILE), pem.as_bytes())?;
        std::fs::write(dir.join(PUBLIC_KEY_FILE), self.public_pem.as_bytes())?;
        Ok(())
    }

    /// The public key as sent to clients.
    pub fn public_pem(&self) -> &str {
        &self.public_pem
    }

    /// Modulus size in bytes (= ciphertext length).
    pub fn size(&self) -> usize {
        self.private.size()
    }

    /// Recovers the password from a client's encrypted reply: RSA-OAEP decrypt, XOR
    /// with the scramble, drop the trailing NUL. `None` if decryption fails.
    pub fn decrypt_password(&self, ciphertext: &[u8], scramble: &[u8]) -> Option<Vec<u8>> {
        let mut plain = self
            .private
            .decrypt(Oaep::new::<sha1::Sha1>(), ciphertext)
            .ok()?;
        if scramble.is_empty() {
            return None;
        }
        for (i, b) in plain.iter_mut().enumerate() {
            *b ^= scramble[i % scramble.len()];
        }
        if plain.last() == Some(&0) {
            plain.pop();
        }
        Some(plain)
    }

    /// Encrypts as a client would (for tests and tools).
    pub fn encrypt_password(
        &self,
        password: &[u8],
        scramble: &[u8],
    ) -> Result<Vec<u8>, ProtoError> {
        let mut plain = password.to_vec();
        plain.push(0);
        for (i, b) in plain.iter_mut().enumerate() {
            *b ^= scramble[i % scramble.len().max(1)];
        }
        RsaPublicKey::from(&self.private)
            .encrypt(&mut rand::thread_rng(), Oaep::new::<sha1::Sha1>(), &plain)
            .map_err(rsa_err)
    }
}

#[cfg(unix)]
fn write_private(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(data)?;
    f.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, data: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_files() {
        // 1024 bits keeps the unoptimised test fast; the code path is the same.
        let dir = std::env::temp_dir().join(format!("basalt-rsa-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp dir");
        let pair = RsaKeyPair::load_or_generate(&dir, 1024).expect("generate");
        assert!(pair.public_pem().starts_with("-----BEGIN PUBLIC KEY-----"));
        assert_eq!(pair.size(), 128);
        let scramble = [7u8; 20];
        let ct = pair
            .encrypt_password(b"secret", &scramble)
            .expect("encrypt");
        assert_eq!(ct.len(), 128);
        assert_eq!(
            pair.decrypt_password(&ct, &scramble).as_deref(),
            Some(&b"secret"[..])
        );
        assert_eq!(pair.decrypt_password(&[1, 2, 3], &scramble), None);
        let again = RsaKeyPair::load_or_generate(&dir, 1024).expect("load");
        assert_eq!(again.public_pem(), pair.public_pem());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
