//! Connection phase and authentication, server side.
//!
//! Flow of [`server_handshake`]:
//!
//! 1. Send the greeting with a fresh 20-byte scramble and the default plugin.
//! 2. Read HandshakeResponse41; refuse pre-4.1 clients and (while Basalt has no TLS)
//!    SSLRequests.
//! 3. Look the account up through [`AccountStore`]. Unknown account: access denied.
//! 4. If the client answered with another plugin than the account's, or with
//!    another plugin than the greeting named (then it had no scramble for it and sent
//!    a placeholder), send an AuthSwitchRequest (`0xFE`, plugin name, scramble + NUL)
//!    and read the new response.
//!    An `ed25519` account always gets the switch, with a 32-byte nonce of its
//!    own ([`crate::ed25519`]), and skips the next steps.
//! 5. An account with an empty password accepts an empty auth response (or a single
//!    NUL byte) from either plugin, without further exchange.
//! 6. Verify:
//!    - `mysql_native_password`: response = SHA1(pw) XOR SHA1(scramble ‖ SHA1(SHA1(pw))).
//!      The stored hash is SHA1(SHA1(pw)); the server recovers SHA1(pw) and checks
//!      that hashing it gives the stored value.
//!    - `caching_sha2_password`: response = SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) ‖
//!      scramble). The stored hash is SHA256(SHA256(pw)). Fast path (when
//!      [`AccountStore::sha2_fast_auth_allowed`]): verify like native and send
//!      AuthMoreData `01 03`. Full path: send `01 04`; the client either sends its
//!      password in clear (only accepted on a secure transport), or asks for the RSA
//!      public key (`02`, answered with `01` + PEM) and sends the RSA-OAEP-encrypted,
//!      scramble-XORed password. Success is reported to
//!      [`AccountStore::sha2_full_auth_succeeded`] (MySQL caches the account then,
//!      so the next login takes the fast path).
//!
//! The final OK (or ERR, e.g. unknown database) is the caller's: after
//! `server_handshake` returns `Ok`, the client waits for it. On `Err`, send
//! `err.client_error()` if any, flush and close.

use crate::consts::capability;
use crate::error::ProtoError;
use crate::handshake::{
    encode_greeting, parse_handshake_response, ClientHello, Greeting, HandshakeResponse,
    SCRAMBLE_LEN,
};
use crate::packet::PacketConn;
use crate::rsa_key::RsaKeyPair;
use crate::ChangeUser;
use rand::Rng;
use sha1::Sha1;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};

/// Authentication plugins Basalt implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AuthPlugin {
    MysqlNativePassword,
    CachingSha2Password,
    /// MariaDB's `ed25519` (see [`crate::ed25519`]).
    Ed25519,
}

impl AuthPlugin {
    /// The server plugin's name (`mysql.user.plugin`).
    pub fn name(self) -> &'static str {
        match self {
            AuthPlugin::MysqlNativePassword => "mysql_native_password",
            AuthPlugin::CachingSha2Password => "caching_sha2_password",
            AuthPlugin::Ed25519 => "ed25519",
        }
    }

    /// The client plugin's name, as the wire carries it.
    pub fn client_name(self) -> &'static str {
        match self {
            AuthPlugin::Ed25519 => crate::ed25519::CLIENT_PLUGIN,
            p => p.name(),
        }
    }

    pub fn from_name(name: &str) -> Option<AuthPlugin> {
        match name {
            "mysql_native_password" => Some(AuthPlugin::MysqlNativePassword),
            "caching_sha2_password" => Some(AuthPlugin::CachingSha2Password),
            "ed25519" => Some(AuthPlugin::Ed25519),
            _ => None,
        }
    }

    /// The stored hash of `password` for this plugin (empty for an empty password).
    pub fn hash_password(self, password: &[u8]) -> Vec<u8> {
        if password.is_empty() {
            return Vec::new();
        }
        match self {
            AuthPlugin::MysqlNativePassword => native_password_hash(password).to_vec(),
            AuthPlugin::CachingSha2Password => caching_sha2_hash(password).to_vec(),
            AuthPlugin::Ed25519 => crate::ed25519::public_key(password).to_vec(),
        }
    }
}

/// What the server knows about an account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub plugin: AuthPlugin,
    /// `mysql_native_password`: SHA1(SHA1(password)), 20 bytes.
    /// `caching_sha2_password`: SHA256(SHA256(password)), 32 bytes.
    /// `ed25519`: the public key, 32 bytes.
    /// Empty: the account has no password (`ed25519`: admits nobody).
    pub auth_string: Vec<u8>,
}

impl Account {
    pub fn with_password(plugin: AuthPlugin, password: &[u8]) -> Account {
        Account {
            plugin,
            auth_string: plugin.hash_password(password),
        }
    }
}

/// Account lookup, implemented by the server (mysql.user or its equivalent).
/// Called on the connection's task; must not block for long.
pub trait AccountStore: Send + Sync {
    /// The account matching `user` connecting from `host`, if any.
    fn lookup(&self, user: &str, host: &str) -> Option<Account>;

    /// Whether a `caching_sha2_password` login to `account` (what [`Self::lookup`]
    /// returned) may use the fast (scramble) path. MySQL allows it only once the
    /// account authenticated fully since server start or its last password change.
    fn sha2_fast_auth_allowed(&self, _user: &str, _host: &str, _account: &Account) -> bool {
        true
    }

    /// Called after a successful full `caching_sha2_password` authentication.
    fn sha2_full_auth_succeeded(&self, _user: &str, _host: &str, _account: &Account) {}
}

/// Server-wide handshake settings (shared by all connections).
#[derive(Clone, Debug)]
pub struct HandshakeConfig {
    /// Sent in the greeting; see [`crate::consts::DEFAULT_SERVER_VERSION`].
    pub server_version: String,
    /// Capabilities offered; [`capability::SERVER_DEFAULT`] unless changed.
    pub capabilities: u32,
    /// Default collation id announced in the greeting.
    pub collation: u8,
    /// Plugin named in the greeting (the one clients try first).
    pub default_auth_plugin: AuthPlugin,
    /// Needed for `caching_sha2_password` full authentication without TLS.
    pub rsa_key: Option<Arc<RsaKeyPair>>,
}

impl Default for HandshakeConfig {
    fn default() -> Self {
        HandshakeConfig {
            server_version: crate::consts::DEFAULT_SERVER_VERSION.to_string(),
            capabilities: capability::SERVER_DEFAULT,
            collation: 45, // utf8mb4_general_ci
            default_auth_plugin: AuthPlugin::MysqlNativePassword,
            rsa_key: None,
        }
    }
}

/// Per-connection facts the handshake needs.
#[derive(Clone, Debug)]
pub struct ConnInfo<'a> {
    pub connection_id: u32,
    /// Host part matched against accounts and shown in "Access denied" messages.
    pub client_host: &'a str,
    /// TLS or a local socket: cleartext passwords are acceptable.
    pub secure_transport: bool,
    /// Status flags for the greeting (normally SERVER_STATUS_AUTOCOMMIT).
    pub status: u16,
}

/// Outcome of a successful handshake.
#[derive(Clone, Debug)]
pub struct Login {
    pub user: String,
    pub database: Option<String>,
    /// Negotiated capabilities (also set on the [`PacketConn`]).
    pub capabilities: u32,
    pub collation: u8,
    pub max_packet_size: u32,
    pub attributes: Vec<(String, String)>,
    /// The plugin that authenticated the account.
    pub auth_plugin: AuthPlugin,
    /// Keep it: COM_CHANGE_USER responses are computed against it.
    pub scramble: [u8; SCRAMBLE_LEN],
}

/// SHA1(SHA1(password)): what `mysql_native_password` stores.
pub fn native_password_hash(password: &[u8]) -> [u8; 20] {
    Sha1::digest(Sha1::digest(password)).into()
}

/// SHA256(SHA256(password)): what Basalt stores for `caching_sha2_password`.
pub fn caching_sha2_hash(password: &[u8]) -> [u8; 32] {
    Sha256::digest(Sha256::digest(password)).into()
}

/// Parses MySQL's `*` + 40 hex digits form of a native password hash.
pub fn native_hash_from_hex(s: &str) -> Option<[u8; 20]> {
    let hex = s.strip_prefix('*')?;
    if hex.len() != 40 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 20];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks a `mysql_native_password` response against the stored SHA1(SHA1(pw)).
pub fn verify_native(stored: &[u8], scramble: &[u8], response: &[u8]) -> bool {
    if stored.is_empty() || response.is_empty() {
        return stored.is_empty() && response.is_empty();
    }
    if stored.len() != 20 || response.len() != 20 {
        return false;
    }
    let mut h = Sha1::new();
    h.update(scramble);
    h.update(stored);
    let mask = h.finalize();
    let stage1: Vec<u8> = response
        .iter()
        .zip(mask.iter())
        .map(|(a, b)| a ^ b)
        .collect();
    ct_eq(&Sha1::digest(&stage1), stored)
}

/// Checks a `caching_sha2_password` fast-path response against SHA256(SHA256(pw)).
pub fn verify_sha2_fast(stored: &[u8], scramble: &[u8], response: &[u8]) -> bool {
    if stored.is_empty() || response.is_empty() {
        return stored.is_empty() && response.is_empty();
    }
    if stored.len() != 32 || response.len() != 32 {
        return false;
    }
    let mut h = Sha256::new();
    h.update(stored);
    h.update(scramble);
    let mask = h.finalize();
    let stage1: Vec<u8> = response
        .iter()
        .zip(mask.iter())
        .map(|(a, b)| a ^ b)
        .collect();
    ct_eq(&Sha256::digest(&stage1), stored)
}

/// A scramble of printable-range bytes without NUL or `$` (as MySQL generates them:
/// the second part is NUL-terminated on the wire).
pub fn new_scramble() -> [u8; SCRAMBLE_LEN] {
    let mut rng = rand::thread_rng();
    let mut s = [0u8; SCRAMBLE_LEN];
    for b in &mut s {
        *b = loop {
            let c = rng.gen_range(1..=127u8);
            if c != b'$' {
                break c;
            }
        };
    }
    s
}

/// Runs the connection phase up to (not including) the final OK packet:
/// [`send_greeting`], [`read_client_hello`], [`authenticate_client`]. A server with
/// TLS calls the three steps itself and upgrades the stream when the hello is an
/// SSLRequest; here an SSLRequest is refused (no TLS configured).
pub async fn server_handshake<S: AsyncRead + AsyncWrite + Unpin>(
    conn: &mut PacketConn<S>,
    cfg: &HandshakeConfig,
    info: &ConnInfo<'_>,
    accounts: &dyn AccountStore,
) -> Result<Login, ProtoError> {
    let scramble = send_greeting(conn, cfg, info).await?;
    match read_client_hello(conn).await? {
        ClientHello::SslRequest { .. } => Err(ProtoError::Handshake("TLS is not configured")),
        ClientHello::Response(resp) => {
            authenticate_client(conn, cfg, info, accounts, resp, scramble).await
        }
    }
}

/// Sends the greeting (sequence 0) with a fresh scramble, which it returns.
pub async fn send_greeting<S: AsyncWrite + Unpin>(
    conn: &mut PacketConn<S>,
    cfg: &HandshakeConfig,
    info: &ConnInfo<'_>,
) -> Result<[u8; SCRAMBLE_LEN], ProtoError> {
    let scramble = new_scramble();
    let greeting = Greeting {
        server_version: &cfg.server_version,
        connection_id: info.connection_id,
        scramble: &scramble,
        capabilities: cfg.capabilities,
        collation: cfg.collation,
        status: info.status,
        auth_plugin: cfg.default_auth_plugin.client_name(),
    };
    conn.reset_sequence();
    conn.push_packet(|out| encode_greeting(out, &greeting));
    conn.flush().await?;
    Ok(scramble)
}

/// Reads the client's answer to the greeting: an SSLRequest (after which the
/// caller performs the TLS handshake on the raw stream — see
/// [`PacketConn::into_parts`], which hands over the TLS bytes already read — and calls this again on the TLS connection, whose
/// sequence id continues at 2) or the HandshakeResponse41.
pub async fn read_client_hello<S: AsyncRead + Unpin>(
    conn: &mut PacketConn<S>,
) -> Result<ClientHello, ProtoError> {
    let saved = limit_for_handshake(conn);
    let mut buf = Vec::new();
    let read = conn.read_packet(&mut buf).await;
    conn.set_max_allowed_packet(saved);
    read?;
    parse_handshake_response(&buf)
}

/// Largest packet accepted before a client is authenticated (a HandshakeResponse41
/// with attributes, an RSA-encrypted password): an unauthenticated peer cannot make
/// the server allocate `max_allowed_packet` bytes.
pub const HANDSHAKE_MAX_PACKET: usize = 64 << 10;

/// Lowers the packet limit for the connection phase; returns the previous limit.
fn limit_for_handshake<S>(conn: &mut PacketConn<S>) -> usize {
    let saved = conn.max_allowed_packet();
    conn.set_max_allowed_packet(saved.min(HANDSHAKE_MAX_PACKET));
    saved
}

/// Negotiates capabilities (setting them on `conn`) and authenticates the
/// HandshakeResponse41 against `scramble` (the one [`send_greeting`] returned).
pub async fn authenticate_client<S: AsyncRead + AsyncWrite + Unpin>(
    conn: &mut PacketConn<S>,
    cfg: &HandshakeConfig,
    info: &ConnInfo<'_>,
    accounts: &dyn AccountStore,
    resp: HandshakeResponse,
    scramble: [u8; SCRAMBLE_LEN],
) -> Result<Login, ProtoError> {
    let caps = resp.capabilities & cfg.capabilities;
    conn.set_capabilities(caps);
    let attempt = AuthAttempt {
        user: &resp.user,
        client_plugin: resp.auth_plugin.as_deref(),
        response: resp.auth_response,
        scramble: &scramble,
        announced: Some(cfg.default_auth_plugin),
    };
    let saved = limit_for_handshake(conn);
    let auth_plugin = authenticate(conn, cfg, info, accounts, attempt).await;
    conn.set_max_allowed_packet(saved);
    let auth_plugin = auth_plugin?;
    Ok(Login {
        user: resp.user,
        database: resp.database,
        capabilities: caps,
        collation: resp.collation,
        max_packet_size: resp.max_packet_size,
        attributes: resp.attributes,
        auth_plugin,
        scramble,
    })
}

/// Authenticates a COM_CHANGE_USER request against the connection's original
/// scramble. On `Ok` the caller resets the session and sends OK; on `Err` it sends
/// the error (MySQL then closes the connection).
pub async fn change_user<S: AsyncRead + AsyncWrite + Unpin>(
    conn: &mut PacketConn<S>,
    cfg: &HandshakeConfig,
    info: &ConnInfo<'_>,
    accounts: &dyn AccountStore,
    request: &ChangeUser,
    scramble: &[u8; SCRAMBLE_LEN],
) -> Result<AuthPlugin, ProtoError> {
    let attempt = AuthAttempt {
        user: &request.user,
        client_plugin: request.auth_plugin.as_deref(),
        response: request.auth_response.clone(),
        scramble,
        announced: None,
    };
    let saved = limit_for_handshake(conn);
    let result = authenticate(conn, cfg, info, accounts, attempt).await;
    conn.set_max_allowed_packet(saved);
    result
}

struct AuthAttempt<'a> {
    user: &'a str,
    client_plugin: Option<&'a str>,
    response: Vec<u8>,
    scramble: &'a [u8; SCRAMBLE_LEN],
    /// The plugin the greeting named (handshake) or `None` (COM_CHANGE_USER, where
    /// the client answers with the original scramble for its own plugin).
    announced: Option<AuthPlugin>,
}

async fn authenticate<S: AsyncRead + AsyncWrite + Unpin>(
    conn: &mut PacketConn<S>,
    cfg: &HandshakeConfig,
    info: &ConnInfo<'_>,
    accounts: &dyn AccountStore,
    mut a: AuthAttempt<'_>,
) -> Result<AuthPlugin, ProtoError> {
    let denied = |using_password: bool| ProtoError::AccessDenied {
        user: a.user.to_string(),
        host: info.client_host.to_string(),
        using_password,
    };
    let Some(account) = accounts.lookup(a.user, info.client_host) else {
        return Err(denied(!a.response.is_empty()));
    };
    if account.plugin == AuthPlugin::Ed25519 {
        if !conn.has_capability(capability::CLIENT_PLUGIN_AUTH)
            || !crate::ed25519::authenticate(conn, &account.auth_string).await?
        {
            return Err(denied(true));
        }
        return Ok(account.plugin);
    }
    normalize_empty(&mut a.response);
    // Clients without CLIENT_PLUGIN_AUTH speak mysql_native_password.
    let client_plugin = a
        .client_plugin
        .unwrap_or(AuthPlugin::MysqlNativePassword.name());
    // A client that picked another plugin than the greeting named was given no
    // scramble for it (libmysqlclient, libmariadb): it sent an empty placeholder and
    // waits for an AuthSwitchRequest, even if its plugin is the account's.
    let had_scramble = a.announced.is_none_or(|p| p.client_name() == client_plugin);
    if had_scramble && account.auth_string.is_empty() && a.response.is_empty() {
        return Ok(account.plugin);
    }
    if client_plugin != account.plugin.client_name() || !had_scramble {
        if !conn.has_capability(capability::CLIENT_PLUGIN_AUTH) {
            return Err(denied(!a.response.is_empty()));
        }
        a.response = auth_switch(conn, account.plugin, a.scramble).await?;
        normalize_empty(&mut a.response);
    }
    let ok = match account.plugin {
        AuthPlugin::MysqlNativePassword => {
            verify_native(&account.auth_string, a.scramble, &a.response)
        }
        AuthPlugin::CachingSha2Password => {
            sha2_auth(conn, cfg, info, accounts, &account, &a).await?
        }
        // Authenticated above, before the shortcuts other plugins take.
        AuthPlugin::Ed25519 => false,
    };
    if ok {
        Ok(account.plugin)
    } else {
        Err(denied(!a.response.is_empty()))
    }
}

/// Some clients answer an empty password with a single NUL byte.
fn normalize_empty(response: &mut Vec<u8>) {
    if response.as_slice() == [0] {
        response.clear();
    }
}

async fn auth_switch<S: AsyncRead + AsyncWrite + Unpin>(
    conn: &mut PacketConn<S>,
    plugin: AuthPlugin,
    scramble: &[u8; SCRAMBLE_LEN],
) -> Result<Vec<u8>, ProtoError> {
    conn.push_packet(|out| {
        out.push(0xfe);
        out.extend_from_slice(plugin.client_name().as_bytes());
        out.push(0);
        out.extend_from_slice(scramble);
        out.push(0);
    });
    conn.flush().await?;
    let mut resp = Vec::new();
    conn.read_packet(&mut resp).await?;
    Ok(resp)
}

/// `caching_sha2_password` after the first response: fast path or full
/// authentication. Returns whether the password matched.
async fn sha2_auth<S: AsyncRead + AsyncWrite + Unpin>(
    conn: &mut PacketConn<S>,
    cfg: &HandshakeConfig,
    info: &ConnInfo<'_>,
    accounts: &dyn AccountStore,
    account: &Account,
    a: &AuthAttempt<'_>,
) -> Result<bool, ProtoError> {
    if a.response.is_empty() || account.auth_string.is_empty() {
        return Ok(false);
    }
    if accounts.sha2_fast_auth_allowed(a.user, info.client_host, account) {
        let ok = verify_sha2_fast(&account.auth_string, a.scramble, &a.response);
        if ok {
            conn.push_payload(&[0x01, 0x03]);
        }
        return Ok(ok);
    }
    conn.push_payload(&[0x01, 0x04]);
    conn.flush().await?;
    let mut reply = Vec::new();
    conn.read_packet(&mut reply).await?;
    let password = if reply == [0x02] {
        let key = cfg.rsa_key.as_ref().ok_or(ProtoError::NoRsaKey)?;
        let pem = key.public_pem().as_bytes();
        conn.push_packet(|out| {
            out.push(0x01);
            out.extend_from_slice(pem);
        });
        conn.flush().await?;
        conn.read_packet(&mut reply).await?;
        key.decrypt_password(&reply, a.scramble)
    } else if let Some(key) = cfg.rsa_key.as_ref().filter(|k| reply.len() == k.size()) {
        // The client already had the public key.
        key.decrypt_password(&reply, a.scramble)
    } else if info.secure_transport {
        if reply.last() == Some(&0) {
            reply.pop();
        }
        Some(reply)
    } else {
        None
    };
    let ok = password.is_some_and(|pw| ct_eq(&caching_sha2_hash(&pw), &account.auth_string));
    if ok {
        accounts.sha2_full_auth_succeeded(a.user, info.client_host, account);
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native_scramble(pw: &[u8], nonce: &[u8]) -> Vec<u8> {
        let s1 = Sha1::digest(pw);
        let s2 = Sha1::digest(s1);
        let mut h = Sha1::new();
        h.update(nonce);
        h.update(s2);
        s1.iter()
            .zip(h.finalize().iter())
            .map(|(a, b)| a ^ b)
            .collect()
    }

    fn sha2_scramble(pw: &[u8], nonce: &[u8]) -> Vec<u8> {
        let s1 = Sha256::digest(pw);
        let s2 = Sha256::digest(s1);
        let mut h = Sha256::new();
        h.update(s2);
        h.update(nonce);
        s1.iter()
            .zip(h.finalize().iter())
            .map(|(a, b)| a ^ b)
            .collect()
    }

    #[test]
    fn native_verification() {
        let nonce = new_scramble();
        let stored = native_password_hash(b"secret");
        assert!(verify_native(
            &stored,
            &nonce,
            &native_scramble(b"secret", &nonce)
        ));
        assert!(!verify_native(
            &stored,
            &nonce,
            &native_scramble(b"wrong", &nonce)
        ));
        assert!(!verify_native(&stored, &nonce, &[]));
        assert!(verify_native(&[], &nonce, &[]));
        assert!(!verify_native(&[], &nonce, &native_scramble(b"x", &nonce)));
        assert!(!verify_native(&stored, &nonce, &[1, 2, 3]));
    }

    #[test]
    fn native_hash_hex_form() {
        // mysql> SELECT PASSWORD('password') -> *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19
        let h = native_hash_from_hex("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19").expect("hex");
        assert_eq!(h, native_password_hash(b"password"));
        assert_eq!(native_hash_from_hex("2470C0"), None);
        assert_eq!(
            native_hash_from_hex("*ZZ70C0C06DEE42FD1618BB99005ADCA2EC9D1E19"),
            None
        );
    }

    #[test]
    fn sha2_verification() {
        let nonce = new_scramble();
        let stored = caching_sha2_hash(b"pw");
        assert!(verify_sha2_fast(
            &stored,
            &nonce,
            &sha2_scramble(b"pw", &nonce)
        ));
        assert!(!verify_sha2_fast(
            &stored,
            &nonce,
            &sha2_scramble(b"pW", &nonce)
        ));
        assert!(!verify_sha2_fast(&stored, &nonce, &[0; 20]));
    }

    #[test]
    fn scramble_has_no_nul_or_dollar() {
        for _ in 0..100 {
            let s = new_scramble();
            assert!(s.iter().all(|&b| b != 0 && b != b'$' && b < 128));
        }
    }
}
