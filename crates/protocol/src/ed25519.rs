//! Server side of MariaDB's `ed25519` authentication plugin (client plugin
//! `client_ed25519`).
//!
//! The account stores an Ed25519 public key. MariaDB derives it from the
//! password as ref10 derives a key from a seed, the whole password standing for
//! the seed: a = clamp(SHA512(pw)[0..32]), key = a·B, and the nonce part of the
//! signature from SHA512(pw)[32..64].
//!
//! Exchange (always through an AuthSwitchRequest: the greeting announces
//! `mysql_native_password`, and MariaDB restarts authentication with a fresh
//! nonce even when a client names `client_ed25519` itself):
//!
//! 1. Server: `0xFE "client_ed25519" 0x00` and 32 random bytes (no NUL after
//!    them, unlike the 20-byte scrambles).
//! 2. Client: the 64-byte signature of those 32 bytes.
//! 3. Server: verifies it with the stored key (ref10's `crypto_sign_open`; the
//!    signature's S must be reduced, which every real client's is).
//!
//! MariaDB reports every failure as "using password: YES", even for an empty
//! password (the client still signs), and an account with an empty
//! authentication string admits nobody.

use crate::error::ProtoError;
use crate::packet::PacketConn;
use ed25519_dalek::hazmat::ExpandedSecretKey;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use rand::RngCore;
use sha2::{Digest, Sha512};
use tokio::io::{AsyncRead, AsyncWrite};

/// The client plugin the server switches to.
pub const CLIENT_PLUGIN: &str = "client_ed25519";

/// Length of the nonce the client signs.
pub const NONCE_LEN: usize = 32;

/// The public key MariaDB stores for `password` (base64 of it, unpadded, in
/// `mysql.global_priv`).
pub fn public_key(password: &[u8]) -> [u8; 32] {
    let expanded: [u8; 64] = Sha512::digest(password).into();
    VerifyingKey::from(&ExpandedSecretKey::from_bytes(&expanded)).to_bytes()
}

/// Whether `signature` is `public_key`'s signature of `nonce`.
pub fn verify(public_key: &[u8], nonce: &[u8], signature: &[u8]) -> bool {
    let (Ok(key), Ok(sig)) = (
        <&[u8; 32]>::try_from(public_key),
        <&[u8; 64]>::try_from(signature),
    ) else {
        return false;
    };
    let Ok(key) = VerifyingKey::from_bytes(key) else {
        return false;
    };
    key.verify(nonce, &Signature::from_bytes(sig)).is_ok()
}

/// Runs the exchange against the stored key; returns whether the client proved
/// the password.
pub(crate) async fn authenticate<S: AsyncRead + AsyncWrite + Unpin>(
    conn: &mut PacketConn<S>,
    public_key: &[u8],
) -> Result<bool, ProtoError> {
    let mut nonce = [0u8; NONCE_LEN];
    rand::thread_rng().fill_bytes(&mut nonce);
    // Clients read an auth switch's data as a NUL-terminated scramble and drop
    // a final NUL (mysql_async does on COM_CHANGE_USER): a nonce ending in 0
    // would be signed one byte short.
    while nonce[NONCE_LEN - 1] == 0 {
        nonce[NONCE_LEN - 1] = rand::random();
    }
    conn.push_packet(|out| {
        out.push(0xfe);
        out.extend_from_slice(CLIENT_PLUGIN.as_bytes());
        out.push(0);
        out.extend_from_slice(&nonce);
    });
    conn.flush().await?;
    let mut signature = Vec::new();
    conn.read_packet(&mut signature).await?;
    Ok(verify(public_key, &nonce, &signature))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::hazmat::raw_sign;

    /// What `client_ed25519` sends: the nonce signed with the password's key.
    fn sign(password: &[u8], nonce: &[u8]) -> [u8; 64] {
        let expanded: [u8; 64] = Sha512::digest(password).into();
        let esk = ExpandedSecretKey::from_bytes(&expanded);
        raw_sign::<Sha512>(&esk, nonce, &VerifyingKey::from(&esk)).to_bytes()
    }

    #[test]
    fn key_matches_mariadb() {
        // MariaDB 10.11: IDENTIFIED VIA ed25519 USING PASSWORD('secret') stores
        // 'ZIgUREUg5PVgQ6LskhXmO+eZLS0nC8be6HPjYWR4YJY'.
        let expected = [
            0x64, 0x88, 0x14, 0x44, 0x45, 0x20, 0xe4, 0xf5, 0x60, 0x43, 0xa2, 0xec, 0x92, 0x15,
            0xe6, 0x3b, 0xe7, 0x99, 0x2d, 0x2d, 0x27, 0x0b, 0xc6, 0xde, 0xe8, 0x73, 0xe3, 0x61,
            0x64, 0x78, 0x60, 0x96,
        ];
        assert_eq!(public_key(b"secret"), expected);
    }

    #[test]
    fn signatures_verify_only_with_the_password() {
        let key = public_key(b"secret");
        let nonce = [7u8; NONCE_LEN];
        assert!(verify(&key, &nonce, &sign(b"secret", &nonce)));
        assert!(!verify(&key, &nonce, &sign(b"Secret", &nonce)));
        assert!(!verify(&key, &[8u8; NONCE_LEN], &sign(b"secret", &nonce)));
        assert!(!verify(&key, &nonce, &[0u8; 64]));
        assert!(!verify(&key, &nonce, &sign(b"secret", &nonce)[..63]));
        assert!(!verify(&[], &nonce, &sign(b"", &nonce)));
        // A long password is hashed, not truncated.
        let long = [b'x'; 300];
        assert!(verify(&public_key(&long), &nonce, &sign(&long, &nonce)));
    }
}
