//! Protocol constants: capability flags, server status flags, command codes.
//!
//! Names and values follow `mysql_com.h` (and MariaDB's `mysql_com.h`, which agrees
//! for every flag used here).

/// `CLIENT_*` capability flags, negotiated in the handshake.
pub mod capability {
    pub const CLIENT_LONG_PASSWORD: u32 = 1;
    pub const CLIENT_FOUND_ROWS: u32 = 1 << 1;
    pub const CLIENT_LONG_FLAG: u32 = 1 << 2;
    pub const CLIENT_CONNECT_WITH_DB: u32 = 1 << 3;
    pub const CLIENT_NO_SCHEMA: u32 = 1 << 4;
    pub const CLIENT_COMPRESS: u32 = 1 << 5;
    pub const CLIENT_ODBC: u32 = 1 << 6;
    pub const CLIENT_LOCAL_FILES: u32 = 1 << 7;
    pub const CLIENT_IGNORE_SPACE: u32 = 1 << 8;
    pub const CLIENT_PROTOCOL_41: u32 = 1 << 9;
    pub const CLIENT_INTERACTIVE: u32 = 1 << 10;
    pub const CLIENT_SSL: u32 = 1 << 11;
    pub const CLIENT_IGNORE_SIGPIPE: u32 = 1 << 12;
    pub const CLIENT_TRANSACTIONS: u32 = 1 << 13;
    pub const CLIENT_RESERVED: u32 = 1 << 14;
    pub const CLIENT_SECURE_CONNECTION: u32 = 1 << 15;
    pub const CLIENT_MULTI_STATEMENTS: u32 = 1 << 16;
    pub const CLIENT_MULTI_RESULTS: u32 = 1 << 17;
    pub const CLIENT_PS_MULTI_RESULTS: u32 = 1 << 18;
    pub const CLIENT_PLUGIN_AUTH: u32 = 1 << 19;
    pub const CLIENT_CONNECT_ATTRS: u32 = 1 << 20;
    pub const CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    pub const CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS: u32 = 1 << 22;
    pub const CLIENT_SESSION_TRACK: u32 = 1 << 23;
    pub const CLIENT_DEPRECATE_EOF: u32 = 1 << 24;
    pub const CLIENT_OPTIONAL_RESULTSET_METADATA: u32 = 1 << 25;
    pub const CLIENT_ZSTD_COMPRESSION_ALGORITHM: u32 = 1 << 26;
    pub const CLIENT_QUERY_ATTRIBUTES: u32 = 1 << 27;

    /// What Basalt advertises (without TLS; [`crate::HandshakeConfig`] adds
    /// `CLIENT_SSL` when TLS is configured). Deliberately absent: `CLIENT_COMPRESS`,
    /// `CLIENT_QUERY_ATTRIBUTES`,
    /// `CLIENT_OPTIONAL_RESULTSET_METADATA`, `CLIENT_ZSTD_COMPRESSION_ALGORITHM`.
    /// `CLIENT_LONG_PASSWORD` is set, which also tells MariaDB clients not to look for
    /// MariaDB extended capabilities in the greeting's filler.
    pub const SERVER_DEFAULT: u32 = CLIENT_LONG_PASSWORD
        | CLIENT_FOUND_ROWS
        | CLIENT_LONG_FLAG
        | CLIENT_CONNECT_WITH_DB
        | CLIENT_NO_SCHEMA
        | CLIENT_ODBC
        | CLIENT_LOCAL_FILES
        | CLIENT_IGNORE_SPACE
        | CLIENT_PROTOCOL_41
        | CLIENT_INTERACTIVE
        | CLIENT_IGNORE_SIGPIPE
        | CLIENT_TRANSACTIONS
        | CLIENT_RESERVED
        | CLIENT_SECURE_CONNECTION
        | CLIENT_MULTI_STATEMENTS
        | CLIENT_MULTI_RESULTS
        | CLIENT_PS_MULTI_RESULTS
        | CLIENT_PLUGIN_AUTH
        | CLIENT_CONNECT_ATTRS
        | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        | CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS
        | CLIENT_SESSION_TRACK
        | CLIENT_DEPRECATE_EOF;
}

/// `SERVER_*` status flags, sent in OK and EOF packets.
pub mod status {
    pub const SERVER_STATUS_IN_TRANS: u16 = 0x0001;
    pub const SERVER_STATUS_AUTOCOMMIT: u16 = 0x0002;
    pub const SERVER_MORE_RESULTS_EXISTS: u16 = 0x0008;
    pub const SERVER_STATUS_NO_GOOD_INDEX_USED: u16 = 0x0010;
    pub const SERVER_STATUS_NO_INDEX_USED: u16 = 0x0020;
    pub const SERVER_STATUS_CURSOR_EXISTS: u16 = 0x0040;
    pub const SERVER_STATUS_LAST_ROW_SENT: u16 = 0x0080;
    pub const SERVER_STATUS_DB_DROPPED: u16 = 0x0100;
    pub const SERVER_STATUS_NO_BACKSLASH_ESCAPES: u16 = 0x0200;
    pub const SERVER_STATUS_METADATA_CHANGED: u16 = 0x0400;
    pub const SERVER_QUERY_WAS_SLOW: u16 = 0x0800;
    pub const SERVER_PS_OUT_PARAMS: u16 = 0x1000;
    pub const SERVER_STATUS_IN_TRANS_READONLY: u16 = 0x2000;
    pub const SERVER_SESSION_STATE_CHANGED: u16 = 0x4000;
}

/// `COM_*` command bytes (first byte of a command-phase packet).
pub mod command {
    pub const COM_SLEEP: u8 = 0x00;
    pub const COM_QUIT: u8 = 0x01;
    pub const COM_INIT_DB: u8 = 0x02;
    pub const COM_QUERY: u8 = 0x03;
    pub const COM_FIELD_LIST: u8 = 0x04;
    pub const COM_CREATE_DB: u8 = 0x05;
    pub const COM_DROP_DB: u8 = 0x06;
    pub const COM_REFRESH: u8 = 0x07;
    pub const COM_SHUTDOWN: u8 = 0x08;
    pub const COM_STATISTICS: u8 = 0x09;
    pub const COM_PROCESS_INFO: u8 = 0x0a;
    pub const COM_CONNECT: u8 = 0x0b;
    pub const COM_PROCESS_KILL: u8 = 0x0c;
    pub const COM_DEBUG: u8 = 0x0d;
    pub const COM_PING: u8 = 0x0e;
    pub const COM_TIME: u8 = 0x0f;
    pub const COM_DELAYED_INSERT: u8 = 0x10;
    pub const COM_CHANGE_USER: u8 = 0x11;
    pub const COM_BINLOG_DUMP: u8 = 0x12;
    pub const COM_TABLE_DUMP: u8 = 0x13;
    pub const COM_CONNECT_OUT: u8 = 0x14;
    pub const COM_REGISTER_SLAVE: u8 = 0x15;
    pub const COM_STMT_PREPARE: u8 = 0x16;
    pub const COM_STMT_EXECUTE: u8 = 0x17;
    pub const COM_STMT_SEND_LONG_DATA: u8 = 0x18;
    pub const COM_STMT_CLOSE: u8 = 0x19;
    pub const COM_STMT_RESET: u8 = 0x1a;
    pub const COM_SET_OPTION: u8 = 0x1b;
    pub const COM_STMT_FETCH: u8 = 0x1c;
    pub const COM_DAEMON: u8 = 0x1d;
    pub const COM_BINLOG_DUMP_GTID: u8 = 0x1e;
    pub const COM_RESET_CONNECTION: u8 = 0x1f;
}

/// Cursor flags of COM_STMT_EXECUTE (`enum_cursor_type`).
pub mod cursor {
    pub const CURSOR_TYPE_NO_CURSOR: u8 = 0;
    pub const CURSOR_TYPE_READ_ONLY: u8 = 1;
    pub const CURSOR_TYPE_FOR_UPDATE: u8 = 2;
    pub const CURSOR_TYPE_SCROLLABLE: u8 = 4;
}

/// Largest payload of one physical packet; a logical packet of this size or more is
/// split, and a piece of exactly this size means "more follows".
pub const MAX_PACKET_CHUNK: usize = 0xff_ffff;

/// The version string Basalt sends in the greeting unless configured otherwise.
///
/// Basalt behaves like MariaDB 10.11 (error texts, the differential-test oracle), so
/// it presents itself as MariaDB does on the wire: the `5.5.5-` prefix followed by a
/// MariaDB version and the word `MariaDB`. libmariadb strips the prefix and reports
/// 10.11.99; mysql_common/mysql_async match `^(5.5.5-)?X.Y.Z-MariaDB` and treat the
/// server as MariaDB 10.11; MySQL's own clients see 5.5.5, exactly as with a real
/// MariaDB server. `SELECT VERSION()` should answer without the prefix
/// (`10.11.99-MariaDB-Basalt`); that is the server's business.
pub const DEFAULT_SERVER_VERSION: &str = "5.5.5-10.11.99-MariaDB-Basalt";
