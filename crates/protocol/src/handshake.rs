//! Connection phase packets: the server greeting (Protocol::HandshakeV10) and the
//! client's HandshakeResponse41.
//!
//! Greeting:
//!
//! ```text
//! u8      protocol version (10)
//! NUL str server version
//! u32     connection id
//! [8]     scramble, first part
//! u8      0x00 filler
//! u16     capabilities, low half
//! u8      default collation id
//! u16     status flags
//! u16     capabilities, high half
//! u8      scramble length + 1 (21) with CLIENT_PLUGIN_AUTH, else 0
//! [10]    reserved zeros (MariaDB puts extended capabilities in the last 4 when it
//!         clears CLIENT_LONG_PASSWORD; Basalt sets that bit, so they stay zero)
//! [13]    scramble, second part (12 bytes) + NUL
//! NUL str auth plugin name (with CLIENT_PLUGIN_AUTH)
//! ```
//!
//! HandshakeResponse41:
//!
//! ```text
//! u32     client capabilities
//! u32     max packet size
//! u8      collation id
//! [23]    filler (MariaDB: extended capabilities in the last 4)
//! NUL str user
//!         auth response: string<lenenc> with PLUGIN_AUTH_LENENC_CLIENT_DATA,
//!         u8 length + bytes with SECURE_CONNECTION, else string<NUL>
//! NUL str database (with CONNECT_WITH_DB)
//! NUL str client auth plugin (with PLUGIN_AUTH)
//! lenenc  total length of attributes, then key/value string<lenenc> pairs
//!         (with CONNECT_ATTRS)
//! ```
//!
//! A 32-byte response with CLIENT_SSL set is an SSLRequest: the client expects a TLS
//! handshake next and sends the full response over TLS.

use crate::codec::{put_nul_bytes, put_u16, put_u32, Reader};
use crate::command::lossy;
use crate::consts::capability;
use crate::error::ProtoError;

/// Scramble (auth-plugin-data) length.
pub const SCRAMBLE_LEN: usize = 20;

/// Everything the greeting carries.
#[derive(Clone, Debug)]
pub struct Greeting<'a> {
    pub server_version: &'a str,
    pub connection_id: u32,
    pub scramble: &'a [u8; SCRAMBLE_LEN],
    pub capabilities: u32,
    pub collation: u8,
    pub status: u16,
    pub auth_plugin: &'a str,
}

/// Appends the HandshakeV10 payload.
pub fn encode_greeting(out: &mut Vec<u8>, g: &Greeting<'_>) {
    out.push(10);
    // A NUL inside the configured version would end it early on the client side.
    let version: Vec<u8> = g.server_version.bytes().filter(|&b| b != 0).collect();
    put_nul_bytes(out, &version);
    put_u32(out, g.connection_id);
    out.extend_from_slice(&g.scramble[..8]);
    out.push(0);
    put_u16(out, g.capabilities as u16);
    out.push(g.collation);
    put_u16(out, g.status);
    put_u16(out, (g.capabilities >> 16) as u16);
    let plugin = g.capabilities & capability::CLIENT_PLUGIN_AUTH != 0;
    out.push(if plugin { SCRAMBLE_LEN as u8 + 1 } else { 0 });
    out.extend_from_slice(&[0; 10]);
    out.extend_from_slice(&g.scramble[8..]);
    out.push(0);
    if plugin {
        put_nul_bytes(out, g.auth_plugin.as_bytes());
    }
}

/// A parsed HandshakeResponse41.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HandshakeResponse {
    pub capabilities: u32,
    pub max_packet_size: u32,
    pub collation: u8,
    pub user: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    pub auth_plugin: Option<String>,
    pub attributes: Vec<(String, String)>,
}

/// Result of reading the client's first packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientHello {
    /// The client wants TLS before sending its credentials.
    SslRequest {
        capabilities: u32,
        collation: u8,
    },
    Response(HandshakeResponse),
}

/// Parses the client's answer to the greeting. Clients without CLIENT_PROTOCOL_41
/// (pre-4.1) are refused with [`ProtoError::Handshake`].
pub fn parse_handshake_response(payload: &[u8]) -> Result<ClientHello, ProtoError> {
    let mut r = Reader::new(payload);
    let capabilities = r.u32("handshake capabilities")?;
    if capabilities & capability::CLIENT_PROTOCOL_41 == 0 {
        return Err(ProtoError::Handshake("client lacks CLIENT_PROTOCOL_41"));
    }
    let max_packet_size = r.u32("handshake max packet")?;
    let collation = r.u8("handshake collation")?;
    r.take(23, "handshake filler")?;
    if r.is_empty() && capabilities & capability::CLIENT_SSL != 0 {
        return Ok(ClientHello::SslRequest {
            capabilities,
            collation,
        });
    }
    let user = lossy(r.nul_bytes("handshake user")?);
    let auth_response = if capabilities & capability::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        r.lenenc_bytes("handshake auth response")?
    } else if capabilities & capability::CLIENT_SECURE_CONNECTION != 0 {
        let n = r.u8("handshake auth length")? as usize;
        r.take(n, "handshake auth response")?
    } else {
        r.nul_bytes("handshake auth response")?
    }
    .to_vec();
    let mut resp = HandshakeResponse {
        capabilities,
        max_packet_size,
        collation,
        user,
        auth_response,
        ..Default::default()
    };
    if capabilities & capability::CLIENT_CONNECT_WITH_DB != 0 && !r.is_empty() {
        let db = r.nul_or_eof_bytes();
        resp.database = (!db.is_empty()).then(|| lossy(db));
    }
    if capabilities & capability::CLIENT_PLUGIN_AUTH != 0 && !r.is_empty() {
        resp.auth_plugin = Some(lossy(r.nul_or_eof_bytes()));
    }
    if capabilities & capability::CLIENT_CONNECT_ATTRS != 0 && !r.is_empty() {
        resp.attributes = parse_connect_attrs(&mut r)?;
    }
    Ok(ClientHello::Response(resp))
}

/// Connection attributes: a `lenenc` byte count, then key/value `string<lenenc>`
/// pairs filling exactly that many bytes.
pub(crate) fn parse_connect_attrs(r: &mut Reader<'_>) -> Result<Vec<(String, String)>, ProtoError> {
    let block = r.lenenc_bytes("connect attributes")?;
    let mut a = Reader::new(block);
    let mut attrs = Vec::new();
    while !a.is_empty() {
        let k = a.lenenc_bytes("connect attribute key")?;
        let v = a.lenenc_bytes("connect attribute value")?;
        attrs.push((lossy(k), lossy(v)));
    }
    Ok(attrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).expect("hex"))
            .collect()
    }

    #[test]
    fn greeting_matches_protocol_doc() {
        // MySQL docs, Protocol::HandshakeV10 example (5.6.4-m7-log).
        let expect = hex(
            "0a 35 2e 36 2e 34 2d 6d 37 2d 6c 6f 67 00 56 0a 00 00 52 42 33 76 7a 26 47 72 00 ff \
             ff 08 02 00 0f c0 15 00 00 00 00 00 00 00 00 00 00 2b 79 44 26 2f 5a 5a 33 30 35 5a \
             47 00 6d 79 73 71 6c 5f 6e 61 74 69 76 65 5f 70 61 73 73 77 6f 72 64 00",
        );
        let mut scramble = [0u8; 20];
        scramble[..8].copy_from_slice(b"RB3vz&Gr");
        scramble[8..].copy_from_slice(b"+yD&/ZZ305ZG");
        let g = Greeting {
            server_version: "5.6.4-m7-log",
            connection_id: 0x0a56,
            scramble: &scramble,
            capabilities: 0xc00f_ffff,
            collation: 8,
            status: 2,
            auth_plugin: "mysql_native_password",
        };
        let mut out = Vec::new();
        encode_greeting(&mut out, &g);
        assert_eq!(out, expect);
    }

    #[test]
    fn handshake_response_matches_protocol_doc() {
        // MySQL docs, Protocol::HandshakeResponse41 example (user "pam", db "test").
        let payload = hex(
            "8d a6 0f 00 00 00 00 01 08 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 \
             00 00 00 00 00 70 61 6d 00 14 ab 09 ee f6 bc b1 32 3e 61 14 38 65 c0 99 1d 95 7d 75 \
             d4 47 74 65 73 74 00 6d 79 73 71 6c 5f 6e 61 74 69 76 65 5f 70 61 73 73 77 6f 72 64 \
             00",
        );
        let ClientHello::Response(r) = parse_handshake_response(&payload).expect("parse") else {
            panic!("not a response");
        };
        assert_eq!(r.capabilities, 0x000f_a68d);
        assert_eq!(r.max_packet_size, 16 << 20);
        assert_eq!(r.collation, 8);
        assert_eq!(r.user, "pam");
        assert_eq!(r.auth_response.len(), 20);
        assert_eq!(r.auth_response[0], 0xab);
        assert_eq!(r.database.as_deref(), Some("test"));
        assert_eq!(r.auth_plugin.as_deref(), Some("mysql_native_password"));
    }

    #[test]
    fn ssl_request_and_attrs() {
        let caps = capability::CLIENT_PROTOCOL_41 | capability::CLIENT_SSL;
        let mut p = caps.to_le_bytes().to_vec();
        p.extend_from_slice(&[0, 0, 0, 1, 45]);
        p.extend_from_slice(&[0; 23]);
        assert_eq!(
            parse_handshake_response(&p).expect("ssl"),
            ClientHello::SslRequest {
                capabilities: caps,
                collation: 45
            }
        );
        let caps = capability::CLIENT_PROTOCOL_41
            | capability::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | capability::CLIENT_PLUGIN_AUTH
            | capability::CLIENT_CONNECT_ATTRS;
        let mut p = caps.to_le_bytes().to_vec();
        p.extend_from_slice(&[0, 0, 0, 1, 45]);
        p.extend_from_slice(&[0; 23]);
        p.extend_from_slice(b"root\0\0caching_sha2_password\0\x08\x03_os\x03lnx");
        let ClientHello::Response(r) = parse_handshake_response(&p).expect("resp") else {
            panic!("not a response");
        };
        assert_eq!(r.user, "root");
        assert!(r.auth_response.is_empty());
        assert_eq!(r.database, None);
        assert_eq!(r.auth_plugin.as_deref(), Some("caching_sha2_password"));
        assert_eq!(r.attributes, vec![("_os".into(), "lnx".into())]);
    }

    #[test]
    fn refuses_old_clients_and_truncation() {
        assert!(matches!(
            parse_handshake_response(&[0; 32]),
            Err(ProtoError::Handshake(_))
        ));
        let caps = capability::CLIENT_PROTOCOL_41 | capability::CLIENT_SECURE_CONNECTION;
        let mut p = caps.to_le_bytes().to_vec();
        p.extend_from_slice(&[0; 28]);
        p.extend_from_slice(b"root\0\x14abc");
        assert!(matches!(
            parse_handshake_response(&p),
            Err(ProtoError::Malformed(_))
        ));
    }
}
