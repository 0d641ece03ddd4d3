//! The MySQL client/server wire protocol, server side: everything about bytes on the
//! wire. The command loop itself belongs to the server crate; this crate gives it a
//! framed connection, the connection phase (greeting, authentication), command
//! decoding and response encoding.
//!
//! # Using it
//!
//! ```text
//! let mut conn = PacketConn::new(tcp_stream);            // any AsyncRead + AsyncWrite + Unpin
//! conn.set_max_allowed_packet(max);
//! let login = match server_handshake(&mut conn, &cfg, &info, &accounts).await {
//!     Ok(login) => login,
//!     Err(e) => { if let Some(m) = e.client_error() { conn.write_err(&m); conn.flush().await.ok(); } return; }
//! };
//! // check login.database, then:
//! conn.write_ok(&OkPacket::with_status(SERVER_STATUS_AUTOCOMMIT));
//! conn.flush().await?;
//! let mut buf = Vec::new();
//! loop {
//!     conn.read_command(&mut buf).await?;                // resets the sequence id
//!     match parse_command(&buf, conn.capabilities()) {
//!         Ok(Command::Query(sql)) => { /* ... */ conn.write_result_set(&rs, RowFormat::Text) }
//!         Ok(Command::StmtExecute { stmt_id, payload }) => {
//!             let exec = decode_stmt_execute(payload, n, &mut types, &mut long_data);
//!             /* ... */ conn.write_result_set(&rs, RowFormat::Binary)
//!         }
//!         Ok(Command::Unknown(_)) => conn.write_err(&MySqlError::unknown_command()),
//!         Err(e) => conn.write_err(&e.client_error().expect("malformed is visible")), // not fatal
//!         ...
//!     }
//!     conn.flush().await?;                               // one write per response
//! }
//! ```
//!
//! Every `write_*` method appends packets to one output buffer with the right
//! sequence ids; [`PacketConn::flush`] sends them with a single `write_all`. For
//! streaming large results, write rows one by one and call
//! [`PacketConn::flush_if_large`] between them.
//!
//! # Errors
//!
//! [`ProtoError`] is the one error type. [`ProtoError::client_error`] gives the ERR
//! packet contents (errno + SQLSTATE) for client-visible failures and
//! [`ProtoError::is_fatal`] whether the connection must be closed afterwards:
//! framing errors (1153 packet too large, 1156 out of order), handshake and
//! authentication failures are fatal; a malformed command payload (1835) or
//! COM_STMT_EXECUTE (1210) is not. Decoders never panic on any input (checked by
//! property tests over arbitrary bytes).
//!
//! # What the server is told / must know
//!
//! - Capabilities offered: [`consts::capability::SERVER_DEFAULT`] (PROTOCOL_41,
//!   SECURE_CONNECTION, PLUGIN_AUTH, PLUGIN_AUTH_LENENC_CLIENT_DATA, CONNECT_WITH_DB,
//!   CONNECT_ATTRS, MULTI_STATEMENTS, MULTI_RESULTS, PS_MULTI_RESULTS, DEPRECATE_EOF,
//!   SESSION_TRACK, TRANSACTIONS, LOCAL_FILES, ...; no COMPRESS, no SSL until TLS
//!   is configured). The negotiated set is on the connection
//!   ([`PacketConn::capabilities`]) and shapes OK/EOF encoding automatically.
//! - Version string: [`consts::DEFAULT_SERVER_VERSION`] (`5.5.5-10.11.99-MariaDB-Basalt`),
//!   configurable in [`HandshakeConfig`].
//! - Accounts come from the server through [`AccountStore`]; stored hashes are
//!   SHA1(SHA1(pw)) for `mysql_native_password` and SHA256(SHA256(pw)) for
//!   `caching_sha2_password` ([`AuthPlugin::hash_password`]), the Ed25519 public
//!   key for MariaDB's `ed25519` ([`ed25519`]).
//! - TLS: call [`send_greeting`], [`read_client_hello`] and, after upgrading the
//!   stream on an SSLRequest ([`PacketConn::into_parts`], which hands over the TLS
//!   bytes already read), [`read_client_hello`] again and [`authenticate_client`];
//!   set `CLIENT_SSL` in
//!   [`HandshakeConfig::capabilities`] and `ConnInfo::secure_transport`.
//! - `caching_sha2_password` full authentication over plain TCP needs an
//!   [`RsaKeyPair`] in [`HandshakeConfig::rsa_key`]
//!   ([`RsaKeyPair::load_or_generate`] on the data dir).
//! - Packet limits: [`PacketConn::set_max_allowed_packet`] applies to commands;
//!   during the connection phase (and COM_CHANGE_USER's exchange) the limit is
//!   lowered to [`auth::HANDSHAKE_MAX_PACKET`] (64 KiB). After a 1153 the peer's
//!   oversized payload is still unread; closing then makes the kernel send RST, which
//!   some clients report as "lost connection" instead of the ERR packet.
//! - Statement bookkeeping (ids, parameter counts, bound types, long data) is the
//!   server's; [`decode_stmt_execute`] takes it as arguments. Statement id
//!   0xFFFFFFFF means "the last prepared statement" for MariaDB clients.
//! - No response at all for COM_QUIT, COM_STMT_CLOSE, COM_STMT_SEND_LONG_DATA.
//!   COM_SET_OPTION and COM_DEBUG are answered with [`PacketConn::write_end_marker`]
//!   (EOF, or OK-with-0xFE under DEPRECATE_EOF); COM_STATISTICS with
//!   [`PacketConn::write_statistics`]; COM_FIELD_LIST with
//!   [`PacketConn::write_field_list`].

pub mod auth;
pub mod codec;
pub mod command;
pub mod consts;
pub mod ed25519;
pub mod error;
pub mod execute;
pub mod handshake;
pub mod packet;
pub mod response;
pub mod row;
pub mod rsa_key;
pub mod value;

pub use auth::{
    authenticate_client, caching_sha2_hash, change_user, native_hash_from_hex,
    native_password_hash, read_client_hello, send_greeting, server_handshake, Account,
    AccountStore, AuthPlugin, ConnInfo, HandshakeConfig, Login,
};
pub use command::{parse_command, ChangeUser, Command};
pub use consts::{capability, command as com, status, DEFAULT_SERVER_VERSION};
pub use error::ProtoError;
pub use execute::{decode_stmt_execute, ParamType, StmtExecute};
pub use handshake::{ClientHello, HandshakeResponse, SCRAMBLE_LEN};
pub use packet::{PacketConn, DEFAULT_MAX_ALLOWED_PACKET};
pub use response::{OkPacket, StateChange, Statistics};
pub use row::{encode_binary_row, encode_text_row, Response, ResultSet, RowFormat};
pub use rsa_key::RsaKeyPair;
