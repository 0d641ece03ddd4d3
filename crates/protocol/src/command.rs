//! Command-phase requests: the first byte of each packet names the command, the
//! rest is its argument.
//!
//! | command                  | argument                                              |
//! |--------------------------|-------------------------------------------------------|
//! | COM_QUERY 0x03           | SQL text `string<EOF>`                                |
//! | COM_INIT_DB 0x02         | schema name `string<EOF>`                             |
//! | COM_FIELD_LIST 0x04      | table `string<NUL>`, wildcard `string<EOF>`           |
//! | COM_PROCESS_KILL 0x0c    | connection id `u32`                                   |
//! | COM_REFRESH 0x07         | `u8`: `REFRESH_*` bits of what to flush                 |
//! | COM_CHANGE_USER 0x11     | see [`ChangeUser`]                                    |
//! | COM_STMT_PREPARE 0x16    | SQL text `string<EOF>`                                |
//! | COM_STMT_EXECUTE 0x17    | decoded later by [`crate::decode_stmt_execute`]       |
//! | COM_STMT_SEND_LONG_DATA 0x18 | statement id `u32`, parameter `u16`, data `string<EOF>` |
//! | COM_STMT_CLOSE 0x19 / RESET 0x1a | statement id `u32`                            |
//! | COM_SET_OPTION 0x1b      | `u16`: 0 = multi-statements on, 1 = off               |
//! | COM_STMT_FETCH 0x1c      | statement id `u32`, row count `u32`                   |
//! | COM_BINLOG_DUMP 0x12     | position `u32`, flags `u16`, server id `u32`, file `string<EOF>` (decoded by the replication crate) |
//! | COM_REGISTER_SLAVE 0x15  | server id `u32`, host/user/password (`u8` length + bytes), port `u16`, rank `u32`, master id `u32` (decoded by the replication crate) |
//! | COM_BINLOG_DUMP_GTID 0x1e| MySQL 5.6+'s GTID dump; MariaDB has no such command and answers 1047 |
//! | QUIT, STATISTICS, DEBUG, PING, RESET_CONNECTION | none                         |
//!
//! Which commands get no response at all: COM_QUIT (close), COM_STMT_CLOSE and
//! COM_STMT_SEND_LONG_DATA. Everything else gets OK/ERR or a result.
//!
//! Commands are borrowed views of the caller's payload buffer; nothing is copied.
//! Arguments after the ones a command needs are ignored (as MySQL does).

use crate::codec::Reader;
use crate::consts::{capability, command as com};
use crate::error::ProtoError;
use crate::handshake::parse_connect_attrs;

/// A decoded command packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command<'a> {
    Quit,
    InitDb(&'a [u8]),
    Query(&'a [u8]),
    FieldList {
        table: &'a [u8],
        wildcard: &'a [u8],
    },
    Statistics,
    ProcessKill(u32),
    /// COM_REFRESH: the `REFRESH_*` bits (`mariadb-admin refresh`, `flush-threads`).
    Refresh(u8),
    Debug,
    Ping,
    ChangeUser(ChangeUser),
    StmtPrepare(&'a [u8]),
    /// The whole payload stays available for [`crate::decode_stmt_execute`], which
    /// needs the statement's parameter count from the server's statement table.
    StmtExecute {
        stmt_id: u32,
        payload: &'a [u8],
    },
    StmtSendLongData {
        stmt_id: u32,
        param: u16,
        data: &'a [u8],
    },
    StmtClose(u32),
    StmtReset(u32),
    /// `true` turns multi-statements on (MYSQL_OPTION_MULTI_STATEMENTS_ON = 0).
    SetOption {
        multi_statements: bool,
    },
    StmtFetch {
        stmt_id: u32,
        rows: u32,
    },
    ResetConnection,
    /// COM_SHUTDOWN (its optional shutdown-level byte is ignored).
    Shutdown,
    /// COM_BINLOG_DUMP: the argument bytes after the command byte.
    BinlogDump(&'a [u8]),
    /// COM_REGISTER_SLAVE: the argument bytes after the command byte.
    RegisterSlave(&'a [u8]),
    /// COM_BINLOG_DUMP_GTID (MySQL's): MariaDB answers it as an unknown command
    /// (errno 1047), and so does Basalt.
    BinlogDumpGtid,
    /// Any other command byte; answered with errno 1047.
    Unknown(u8),
}

/// Decodes a command packet. `caps` are the negotiated capabilities (they shape
/// COM_CHANGE_USER).
pub fn parse_command(payload: &[u8], caps: u32) -> Result<Command<'_>, ProtoError> {
    let (&code, rest) = payload
        .split_first()
        .ok_or(ProtoError::Malformed("empty command packet"))?;
    let mut r = Reader::new(rest);
    Ok(match code {
        com::COM_QUIT => Command::Quit,
        com::COM_INIT_DB => Command::InitDb(rest),
        com::COM_QUERY => Command::Query(rest),
        com::COM_FIELD_LIST => Command::FieldList {
            table: r.nul_or_eof_bytes(),
            wildcard: r.rest(),
        },
        com::COM_STATISTICS => Command::Statistics,
        com::COM_PROCESS_KILL => Command::ProcessKill(r.u32("COM_PROCESS_KILL id")?),
        com::COM_REFRESH => Command::Refresh(r.u8("COM_REFRESH options")?),
        com::COM_DEBUG => Command::Debug,
        com::COM_PING => Command::Ping,
        com::COM_CHANGE_USER => Command::ChangeUser(ChangeUser::parse(rest, caps)?),
        com::COM_STMT_PREPARE => Command::StmtPrepare(rest),
        com::COM_STMT_EXECUTE => Command::StmtExecute {
            stmt_id: r.u32("COM_STMT_EXECUTE statement id")?,
            payload,
        },
        com::COM_STMT_SEND_LONG_DATA => Command::StmtSendLongData {
            stmt_id: r.u32("COM_STMT_SEND_LONG_DATA statement id")?,
            param: r.u16("COM_STMT_SEND_LONG_DATA parameter")?,
            data: r.rest(),
        },
        com::COM_STMT_CLOSE => Command::StmtClose(r.u32("COM_STMT_CLOSE statement id")?),
        com::COM_STMT_RESET => Command::StmtReset(r.u32("COM_STMT_RESET statement id")?),
        com::COM_SET_OPTION => match r.u16("COM_SET_OPTION option")? {
            0 => Command::SetOption {
                multi_statements: true,
            },
            1 => Command::SetOption {
                multi_statements: false,
            },
            _ => return Err(ProtoError::Malformed("COM_SET_OPTION option")),
        },
        com::COM_STMT_FETCH => Command::StmtFetch {
            stmt_id: r.u32("COM_STMT_FETCH statement id")?,
            rows: r.u32("COM_STMT_FETCH row count")?,
        },
        com::COM_RESET_CONNECTION => Command::ResetConnection,
        com::COM_SHUTDOWN => Command::Shutdown,
        com::COM_BINLOG_DUMP => Command::BinlogDump(rest),
        com::COM_REGISTER_SLAVE => Command::RegisterSlave(rest),
        com::COM_BINLOG_DUMP_GTID => Command::BinlogDumpGtid,
        other => Command::Unknown(other),
    })
}

/// COM_CHANGE_USER arguments (owned: authentication reads more packets).
///
/// Format: user `string<NUL>`; auth response (`u8` length + bytes with
/// CLIENT_SECURE_CONNECTION, else `string<NUL>`); schema `string<NUL>`; then, if
/// more data follows, collation `u16`, auth plugin `string<NUL>` (with
/// CLIENT_PLUGIN_AUTH) and connection attributes (with CLIENT_CONNECT_ATTRS).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeUser {
    pub user: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    pub collation: Option<u16>,
    pub auth_plugin: Option<String>,
    pub attributes: Vec<(String, String)>,
}

impl ChangeUser {
    /// Parses the payload after the command byte.
    pub fn parse(body: &[u8], caps: u32) -> Result<ChangeUser, ProtoError> {
        let mut r = Reader::new(body);
        let user = lossy(r.nul_or_eof_bytes());
        let auth_response = if caps & capability::CLIENT_SECURE_CONNECTION != 0 {
            let n = r.u8("COM_CHANGE_USER auth length")? as usize;
            r.take(n, "COM_CHANGE_USER auth response")?.to_vec()
        } else {
            r.nul_or_eof_bytes().to_vec()
        };
        let db = r.nul_or_eof_bytes();
        let mut cu = ChangeUser {
            user,
            auth_response,
            database: (!db.is_empty()).then(|| lossy(db)),
            ..Default::default()
        };
        if r.remaining() >= 2 {
            cu.collation = Some(r.u16("COM_CHANGE_USER collation")?);
        }
        if caps & capability::CLIENT_PLUGIN_AUTH != 0 && !r.is_empty() {
            cu.auth_plugin = Some(lossy(r.nul_or_eof_bytes()));
        }
        if caps & capability::CLIENT_CONNECT_ATTRS != 0 && !r.is_empty() {
            cu.attributes = parse_connect_attrs(&mut r)?;
        }
        Ok(cu)
    }
}

pub(crate) fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_matches_protocol_doc() {
        // MySQL docs: 21 00 00 00 03 "select @@version_comment limit 1".
        let payload = b"\x03select @@version_comment limit 1";
        assert_eq!(
            parse_command(payload, 0).expect("query"),
            Command::Query(b"select @@version_comment limit 1")
        );
    }

    #[test]
    fn simple_commands() {
        assert_eq!(parse_command(b"\x01", 0).expect("quit"), Command::Quit);
        assert_eq!(parse_command(b"\x0e", 0).expect("ping"), Command::Ping);
        assert_eq!(
            parse_command(b"\x08\x00", 0).expect("shutdown"),
            Command::Shutdown
        );
        assert_eq!(
            parse_command(b"\x02test", 0).expect("init"),
            Command::InitDb(b"test")
        );
        assert_eq!(
            parse_command(b"\x04t1\0c%", 0).expect("field list"),
            Command::FieldList {
                table: b"t1",
                wildcard: b"c%"
            }
        );
        assert_eq!(
            parse_command(b"\x0c\x2a\0\0\0", 0).expect("kill"),
            Command::ProcessKill(42)
        );
        assert_eq!(
            parse_command(b"\x1b\x01\x00", 0).expect("set option"),
            Command::SetOption {
                multi_statements: false
            }
        );
        assert_eq!(
            parse_command(b"\x18\x01\0\0\0\x02\0abc", 0).expect("long data"),
            Command::StmtSendLongData {
                stmt_id: 1,
                param: 2,
                data: b"abc"
            }
        );
        assert_eq!(
            parse_command(b"\x1c\x01\0\0\0\x0a\0\0\0", 0).expect("fetch"),
            Command::StmtFetch {
                stmt_id: 1,
                rows: 10
            }
        );
        assert_eq!(
            parse_command(b"\x19\x07\0\0\0", 0).expect("close"),
            Command::StmtClose(7)
        );
        assert_eq!(
            parse_command(b"\x1f", 0).expect("reset"),
            Command::ResetConnection
        );
        assert_eq!(
            parse_command(b"\x12abc", 0).expect("binlog"),
            Command::BinlogDump(b"abc")
        );
        assert_eq!(
            parse_command(b"\x15\x01\0\0\0", 0).expect("register"),
            Command::RegisterSlave(b"\x01\0\0\0")
        );
        assert_eq!(
            parse_command(b"\x1e\0\0", 0).expect("gtid dump"),
            Command::BinlogDumpGtid
        );
        assert_eq!(
            parse_command(b"\x13", 0).expect("table dump"),
            Command::Unknown(0x13)
        );
    }

    #[test]
    fn truncated_commands_are_errors() {
        assert!(parse_command(b"", 0).is_err());
        assert!(parse_command(b"\x0c\x01", 0).is_err());
        assert!(parse_command(b"\x19\x01\x00", 0).is_err());
        assert!(parse_command(b"\x1c\x01\0\0\0\x01", 0).is_err());
        assert!(parse_command(b"\x1b\x05\x00", 0).is_err());
    }

    #[test]
    fn change_user() {
        let caps = capability::CLIENT_SECURE_CONNECTION
            | capability::CLIENT_PLUGIN_AUTH
            | capability::CLIENT_CONNECT_ATTRS;
        let mut p = b"\x11bob\0\x03abcdb1\0\x2d\0mysql_native_password\0".to_vec();
        p.extend_from_slice(b"\x0b\x03k_1\x02v1\x02k2\x00");
        match parse_command(&p, caps).expect("change user") {
            Command::ChangeUser(cu) => {
                assert_eq!(cu.user, "bob");
                assert_eq!(cu.auth_response, b"abc");
                assert_eq!(cu.database.as_deref(), Some("db1"));
                assert_eq!(cu.collation, Some(45));
                assert_eq!(cu.auth_plugin.as_deref(), Some("mysql_native_password"));
                assert_eq!(
                    cu.attributes,
                    vec![("k_1".into(), "v1".into()), ("k2".into(), String::new())]
                );
            }
            other => panic!("unexpected {other:?}"),
        }
        // Old-style: NUL-terminated auth, no db, nothing else.
        let cu = ChangeUser::parse(b"u\0pw\0", 0).expect("old style");
        assert_eq!(
            (cu.auth_response.as_slice(), cu.database),
            (&b"pw"[..], None)
        );
        assert!(ChangeUser::parse(b"u\0\x05ab", caps).is_err());
    }
}
