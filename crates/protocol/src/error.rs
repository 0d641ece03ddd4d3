//! Protocol errors and how they reach the client.
//!
//! Every failure of this crate is a [`ProtoError`]. Some are client-visible: the
//! server turns them into an ERR packet with [`ProtoError::client_error`], writes it,
//! and, when [`ProtoError::is_fatal`] says so, closes the connection (after a framing
//! error such as an oversized packet the byte stream cannot be resynchronised).

use basalt_common::MySqlError;

/// MySQL errno values this crate produces that `basalt_common` has no constructor for.
pub mod code {
    /// `ER_NET_PACKETS_OUT_OF_ORDER`.
    pub const ER_NET_PACKETS_OUT_OF_ORDER: u16 = 1156;
    /// `ER_MALFORMED_PACKET`.
    pub const ER_MALFORMED_PACKET: u16 = 1835;
}

#[derive(Debug, thiserror::Error)]
pub enum ProtoError {
    /// The socket failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// The peer closed the connection cleanly between packets.
    #[error("connection closed by peer")]
    Closed,
    /// The peer closed the connection in the middle of a packet.
    #[error("connection closed in the middle of a packet")]
    UnexpectedEof,
    /// A packet (after joining 16 MiB pieces) would exceed `max_allowed_packet`;
    /// detected from the header, before any buffer is allocated for it.
    #[error("packet of {size} bytes exceeds max_allowed_packet ({max})")]
    PacketTooLarge { size: u64, max: usize },
    /// A packet carried an unexpected sequence id.
    #[error("packets out of order: expected sequence id {expected}, got {got}")]
    OutOfOrder { expected: u8, got: u8 },
    /// A payload was shorter than its format requires or held an impossible value.
    #[error("malformed packet: {0}")]
    Malformed(&'static str),
    /// A COM_STMT_EXECUTE payload did not match the statement (types missing,
    /// unknown type code, truncated value).
    #[error("malformed COM_STMT_EXECUTE: {0}")]
    BadExecute(&'static str),
    /// The connection phase went wrong (no CLIENT_PROTOCOL_41, TLS requested but not
    /// configured, unexpected packet).
    #[error("bad handshake: {0}")]
    Handshake(&'static str),
    /// Authentication failed (unknown account or wrong password).
    #[error("access denied for '{user}'@'{host}'")]
    AccessDenied {
        user: String,
        host: String,
        using_password: bool,
    },
    /// The account's authentication needs an RSA key pair and the server has none.
    #[error("caching_sha2_password full authentication needs an RSA key pair")]
    NoRsaKey,
    /// Generating, encoding or parsing an RSA key failed.
    #[error("rsa key: {0}")]
    Rsa(String),
}

impl ProtoError {
    /// The ERR packet the client should receive, or `None` when the connection is
    /// already unusable (socket error, peer gone) and nothing can be sent.
    pub fn client_error(&self) -> Option<MySqlError> {
        Some(match self {
            ProtoError::Io(_) | ProtoError::Closed | ProtoError::UnexpectedEof => return None,
            ProtoError::PacketTooLarge { .. } => MySqlError::packet_too_large(),
            ProtoError::OutOfOrder { .. } => MySqlError::new(
                code::ER_NET_PACKETS_OUT_OF_ORDER,
                "08S01",
                "Got packets out of order",
            ),
            ProtoError::Malformed(_) => MySqlError::new(
                code::ER_MALFORMED_PACKET,
                "HY000",
                "Malformed communication packet.",
            ),
            ProtoError::BadExecute(_) => MySqlError::wrong_arguments("mysqld_stmt_execute"),
            ProtoError::Handshake(_) => MySqlError::new(
                basalt_common::error::code::ER_HANDSHAKE_ERROR,
                "08S01",
                "Bad handshake",
            ),
            ProtoError::AccessDenied {
                user,
                host,
                using_password,
            } => MySqlError::access_denied(user, host, *using_password),
            ProtoError::NoRsaKey | ProtoError::Rsa(_) => MySqlError::new(
                basalt_common::error::code::ER_ACCESS_DENIED_ERROR,
                "28000",
                "Authentication requires secure connection.",
            ),
        })
    }

    /// True when the connection must be closed after reporting this error. Only a
    /// malformed command payload leaves the stream in sync (the whole packet was read).
    pub fn is_fatal(&self) -> bool {
        !matches!(self, ProtoError::Malformed(_) | ProtoError::BadExecute(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_errors_carry_mysql_codes() {
        let e = ProtoError::PacketTooLarge { size: 10, max: 5 };
        let m = e.client_error().expect("visible");
        assert_eq!((m.code, m.state), (1153, "08S01"));
        assert!(e.is_fatal());
        let e = ProtoError::BadExecute("x");
        let m = e.client_error().expect("visible");
        assert_eq!(m.code, 1210);
        assert!(!e.is_fatal());
        assert!(ProtoError::Closed.client_error().is_none());
        let e = ProtoError::AccessDenied {
            user: "u".into(),
            host: "h".into(),
            using_password: true,
        };
        assert_eq!(
            e.client_error().expect("visible").message,
            "Access denied for user 'u'@'h' (using password: YES)"
        );
    }
}
