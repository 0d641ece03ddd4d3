//! Generic response packets: OK, ERR, EOF, ColumnDefinition41, COM_STMT_PREPARE_OK,
//! COM_STATISTICS text.
//!
//! Formats (all integers little-endian; `lenenc` as in [`crate::codec`]):
//!
//! - OK: `0x00` (or `0xFE` when it ends a result set under CLIENT_DEPRECATE_EOF),
//!   affected rows `lenenc`, last insert id `lenenc`, status `u16`, warnings `u16`,
//!   then with CLIENT_SESSION_TRACK: info `string<lenenc>` (written when non-empty
//!   or when session state follows) and, if SERVER_SESSION_STATE_CHANGED, the state
//!   changes as one `string<lenenc>` of entries `type u8, data string<lenenc>`;
//!   without CLIENT_SESSION_TRACK: info as `string<lenenc>` when non-empty (the
//!   protocol documentation says `string<EOF>`, but MySQL's and MariaDB's
//!   `net_send_ok` write it length-encoded and clients parse it that way).
//! - ERR: `0xFF`, errno `u16`, `#`, SQLSTATE (5 bytes), message `string<EOF>`
//!   (truncated to 512 bytes at a character boundary, as MySQL's MYSQL_ERRMSG_SIZE).
//! - EOF: `0xFE`, warnings `u16`, status `u16`.
//! - ColumnDefinition41: `string<lenenc>` catalog (`def`), schema, table,
//!   org_table, name, org_name; `lenenc` 0x0C; charset `u16`; length `u32`; type
//!   `u8`; flags `u16`; decimals `u8`; 2 filler bytes; COM_FIELD_LIST adds the
//!   default value as `string<lenenc>` (0xFB for none).
//! - COM_STMT_PREPARE_OK: `0x00`, statement id `u32`, columns `u16`, params `u16`,
//!   filler `0x00`, warnings `u16`.

use crate::codec::{put_lenenc_bytes, put_lenenc_int, put_u16, put_u32};
use crate::consts::{capability, status};
use crate::packet::PacketConn;
use basalt_common::{ColumnMeta, MySqlError};

/// MySQL's `MYSQL_ERRMSG_SIZE`: longer messages are cut.
const MAX_ERROR_MESSAGE: usize = 512;

/// One entry of the session-state-change block of an OK packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateChange<'a> {
    /// `SESSION_TRACK_SYSTEM_VARIABLES` (0x00): a variable's new value.
    SystemVariable { name: &'a str, value: &'a str },
    /// `SESSION_TRACK_SCHEMA` (0x01): the current schema changed.
    Schema(&'a str),
    /// `SESSION_TRACK_STATE_CHANGE` (0x02): "session state changed" marker.
    StateChanged,
}

/// Contents of an OK packet. `status` is sent as given (plus
/// SERVER_SESSION_STATE_CHANGED when `state_changes` is sent).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OkPacket<'a> {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub status: u16,
    pub warnings: u16,
    pub info: &'a str,
    /// Sent only to clients with CLIENT_SESSION_TRACK; ignored otherwise.
    pub state_changes: &'a [StateChange<'a>],
}

impl<'a> OkPacket<'a> {
    pub fn with_status(status: u16) -> Self {
        OkPacket {
            status,
            ..Default::default()
        }
    }
}

/// Appends an OK packet payload with the given header byte (0x00, or 0xFE for the
/// end of a result set under CLIENT_DEPRECATE_EOF).
pub fn encode_ok(out: &mut Vec<u8>, ok: &OkPacket<'_>, header: u8, caps: u32) {
    out.push(header);
    put_lenenc_int(out, ok.affected_rows);
    put_lenenc_int(out, ok.last_insert_id);
    let track = caps & capability::CLIENT_SESSION_TRACK != 0;
    let state = track && !ok.state_changes.is_empty();
    let mut st = ok.status;
    if state {
        st |= status::SERVER_SESSION_STATE_CHANGED;
    } else {
        st &= !status::SERVER_SESSION_STATE_CHANGED;
    }
    put_u16(out, st);
    put_u16(out, ok.warnings);
    if track {
        if state || !ok.info.is_empty() {
            put_lenenc_bytes(out, ok.info.as_bytes());
        }
        if state {
            encode_state_changes(out, ok.state_changes);
        }
    } else if !ok.info.is_empty() {
        put_lenenc_bytes(out, ok.info.as_bytes());
    }
}

fn encode_state_changes(out: &mut Vec<u8>, changes: &[StateChange<'_>]) {
    let mut block = Vec::new();
    for c in changes {
        let mut data = Vec::new();
        let kind = match c {
            StateChange::SystemVariable { name, value } => {
                put_lenenc_bytes(&mut data, name.as_bytes());
                put_lenenc_bytes(&mut data, value.as_bytes());
                0x00
            }
            StateChange::Schema(s) => {
                put_lenenc_bytes(&mut data, s.as_bytes());
                0x01
            }
            StateChange::StateChanged => {
                put_lenenc_bytes(&mut data, b"1");
                0x02
            }
        };
        block.push(kind);
        put_lenenc_bytes(&mut block, &data);
    }
    put_lenenc_bytes(out, &block);
}

/// Appends an ERR packet payload.
pub fn encode_err(out: &mut Vec<u8>, err: &MySqlError) {
    out.push(0xff);
    put_u16(out, err.code);
    out.push(b'#');
    let state = err.state.as_bytes();
    let mut sqlstate = *b"HY000";
    if state.len() == 5 {
        sqlstate.copy_from_slice(state);
    }
    out.extend_from_slice(&sqlstate);
    let msg = &err.message;
    let mut end = msg.len().min(MAX_ERROR_MESSAGE);
    while !msg.is_char_boundary(end) {
        end -= 1;
    }
    out.extend_from_slice(&msg.as_bytes()[..end]);
}

/// Appends an EOF packet payload.
pub fn encode_eof(out: &mut Vec<u8>, warnings: u16, status: u16) {
    out.push(0xfe);
    put_u16(out, warnings);
    put_u16(out, status);
}

/// Appends a ColumnDefinition41 payload; `default` is COM_FIELD_LIST's extra field
/// (`Some(None)` = no default, sent as 0xFB).
pub fn encode_column_definition(
    out: &mut Vec<u8>,
    col: &ColumnMeta,
    default: Option<Option<&[u8]>>,
) {
    put_lenenc_bytes(out, b"def");
    put_lenenc_bytes(out, col.schema.as_bytes());
    put_lenenc_bytes(out, col.table.as_bytes());
    put_lenenc_bytes(out, col.org_table.as_bytes());
    put_lenenc_bytes(out, col.name.as_bytes());
    put_lenenc_bytes(out, col.org_name.as_bytes());
    out.push(0x0c);
    put_u16(out, col.charset);
    put_u32(out, col.length);
    out.push(col.column_type as u8);
    put_u16(out, col.flags);
    out.push(col.decimals);
    out.extend_from_slice(&[0, 0]);
    match default {
        None => {}
        Some(None) => out.push(0xfb),
        Some(Some(v)) => put_lenenc_bytes(out, v),
    }
}

/// Appends a COM_STMT_PREPARE_OK payload (the first packet of the response).
pub fn encode_prepare_ok(
    out: &mut Vec<u8>,
    stmt_id: u32,
    columns: u16,
    params: u16,
    warnings: u16,
) {
    out.push(0x00);
    put_u32(out, stmt_id);
    put_u16(out, columns);
    put_u16(out, params);
    out.push(0x00);
    put_u16(out, warnings);
}

/// Counters shown by COM_STATISTICS (`mysqladmin status`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Statistics {
    pub uptime_secs: u64,
    pub threads: u64,
    pub questions: u64,
    pub slow_queries: u64,
    pub opens: u64,
    pub flush_tables: u64,
    pub open_tables: u64,
}

impl Statistics {
    /// The text MySQL sends, e.g. `Uptime: 5  Threads: 1  Questions: 3  Slow queries:
    /// 0  Opens: 0  Flush tables: 1  Open tables: 0  Queries per second avg: 0.600`.
    pub fn to_text(&self) -> String {
        let qps = if self.uptime_secs == 0 {
            0.0
        } else {
            self.questions as f64 / self.uptime_secs as f64
        };
        format!(
            "Uptime: {}  Threads: {}  Questions: {}  Slow queries: {}  Opens: {}  Flush tables: {}  Open tables: {}  Queries per second avg: {:.3}",
            self.uptime_secs,
            self.threads,
            self.questions,
            self.slow_queries,
            self.opens,
            self.flush_tables,
            self.open_tables,
            qps
        )
    }
}

/// Response writers. Each appends packets to the output buffer with the next
/// sequence ids; nothing is sent until [`PacketConn::flush`].
impl<S> PacketConn<S> {
    pub fn write_ok(&mut self, ok: &OkPacket<'_>) {
        let caps = self.capabilities();
        self.push_packet(|out| encode_ok(out, ok, 0x00, caps));
    }

    pub fn write_err(&mut self, err: &MySqlError) {
        self.push_packet(|out| encode_err(out, err));
    }

    /// A classic EOF packet, regardless of CLIENT_DEPRECATE_EOF.
    pub fn write_eof(&mut self, warnings: u16, status: u16) {
        self.push_packet(|out| encode_eof(out, warnings, status));
    }

    /// The end-of-data marker the client expects: an EOF packet, or with
    /// CLIENT_DEPRECATE_EOF an OK packet with header 0xFE. Ends result-set rows,
    /// COM_FIELD_LIST, and answers COM_SET_OPTION / COM_DEBUG.
    pub fn write_end_marker(&mut self, warnings: u16, status: u16) {
        let caps = self.capabilities();
        if caps & capability::CLIENT_DEPRECATE_EOF != 0 {
            let ok = OkPacket {
                status,
                warnings,
                ..Default::default()
            };
            self.push_packet(|out| encode_ok(out, &ok, 0xfe, caps));
        } else {
            self.push_packet(|out| encode_eof(out, warnings, status));
        }
    }

    /// The EOF after column definitions, only for clients without
    /// CLIENT_DEPRECATE_EOF.
    pub fn write_metadata_eof(&mut self, status: u16) {
        if !self.has_capability(capability::CLIENT_DEPRECATE_EOF) {
            self.write_eof(0, status);
        }
    }

    pub fn write_column_definition(&mut self, col: &ColumnMeta) {
        self.push_packet(|out| encode_column_definition(out, col, None));
    }

    /// The whole COM_FIELD_LIST response: one definition (with default value) per
    /// column, then the end marker. `defaults[i]` is column i's default, if any.
    pub fn write_field_list(
        &mut self,
        columns: &[ColumnMeta],
        defaults: &[Option<&[u8]>],
        status: u16,
    ) {
        for (i, col) in columns.iter().enumerate() {
            let d = defaults.get(i).copied().flatten();
            self.push_packet(|out| encode_column_definition(out, col, Some(d)));
        }
        self.write_end_marker(0, status);
    }

    /// The whole COM_STMT_PREPARE response: PREPARE_OK, parameter definitions and
    /// their EOF (if any), column definitions and their EOF (if any). The EOFs are
    /// left out under CLIENT_DEPRECATE_EOF.
    pub fn write_prepare_ok(
        &mut self,
        stmt_id: u32,
        params: &[ColumnMeta],
        columns: &[ColumnMeta],
        warnings: u16,
        status: u16,
    ) {
        let (np, nc) = (params.len() as u16, columns.len() as u16);
        self.push_packet(|out| encode_prepare_ok(out, stmt_id, nc, np, warnings));
        for group in [params, columns] {
            if !group.is_empty() {
                for col in group {
                    self.write_column_definition(col);
                }
                self.write_metadata_eof(status);
            }
        }
    }

    /// COM_STATISTICS answer: the bare text, no header byte.
    pub fn write_statistics(&mut self, text: &str) {
        self.push_payload(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::ColumnType;

    fn framed(conn: &PacketConn<()>) -> Vec<u8> {
        conn.wbuf.clone()
    }

    #[test]
    fn ok_packet_matches_protocol_doc() {
        // MySQL docs: 07 00 00 02 00 00 00 02 00 00 00 (autocommit, no warnings).
        let mut conn = PacketConn::new(());
        conn.set_capabilities(capability::CLIENT_PROTOCOL_41);
        conn.set_sequence_id(2);
        conn.write_ok(&OkPacket::with_status(status::SERVER_STATUS_AUTOCOMMIT));
        assert_eq!(framed(&conn), [0x07, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0]);
    }

    #[test]
    fn ok_packet_with_info_and_schema_change() {
        let caps = capability::CLIENT_PROTOCOL_41 | capability::CLIENT_SESSION_TRACK;
        let mut out = Vec::new();
        let changes = [StateChange::Schema("test")];
        let ok = OkPacket {
            affected_rows: 300,
            last_insert_id: 5,
            status: status::SERVER_STATUS_AUTOCOMMIT,
            warnings: 1,
            info: "",
            state_changes: &changes,
        };
        encode_ok(&mut out, &ok, 0, caps);
        assert_eq!(
            out,
            [
                0x00, 0xfc, 0x2c, 0x01, 0x05, 0x02, 0x40, 0x01, 0x00, // header..warnings
                0x00, // empty info
                0x07, 0x01, 0x05, 0x04, b't', b'e', b's', b't', // state block
            ]
        );
        // Without CLIENT_SESSION_TRACK the info is still length-encoded (as servers
        // really send it) and no state is sent.
        let mut out = Vec::new();
        let ok = OkPacket {
            info: "Rows matched: 1  Changed: 1  Warnings: 0",
            state_changes: &changes,
            ..Default::default()
        };
        encode_ok(&mut out, &ok, 0, capability::CLIENT_PROTOCOL_41);
        assert_eq!(&out[..8], &[0, 0, 0, 0, 0, 0, 0, 40]);
        assert_eq!(&out[8..], ok.info.as_bytes());
    }

    #[test]
    fn err_packet_matches_protocol_doc() {
        // MySQL docs: 17 00 00 01 ff 48 04 23 48 59 30 30 30 "No tables used".
        let mut conn = PacketConn::new(());
        conn.set_sequence_id(1);
        conn.write_err(&MySqlError::no_tables_used());
        let mut expect = vec![0x17, 0, 0, 1, 0xff, 0x48, 0x04, b'#'];
        expect.extend_from_slice(b"HY000No tables used");
        assert_eq!(framed(&conn), expect);
    }

    #[test]
    fn err_message_truncated_on_char_boundary() {
        let mut out = Vec::new();
        encode_err(&mut out, &MySqlError::new(1105, "HY000", "é".repeat(300)));
        assert_eq!(out.len(), 9 + 512);
        assert!(std::str::from_utf8(&out[9..]).is_ok());
    }

    #[test]
    fn eof_packet_matches_protocol_doc() {
        // MySQL docs: 05 00 00 05 fe 00 00 02 00.
        let mut conn = PacketConn::new(());
        conn.set_sequence_id(5);
        conn.write_end_marker(0, status::SERVER_STATUS_AUTOCOMMIT);
        assert_eq!(framed(&conn), [5, 0, 0, 5, 0xfe, 0, 0, 2, 0]);
        // Under DEPRECATE_EOF the same call writes an OK packet with header 0xFE.
        let mut conn = PacketConn::new(());
        conn.set_capabilities(capability::CLIENT_PROTOCOL_41 | capability::CLIENT_DEPRECATE_EOF);
        conn.write_end_marker(0, status::SERVER_STATUS_AUTOCOMMIT);
        assert_eq!(framed(&conn), [7, 0, 0, 0, 0xfe, 0, 0, 2, 0, 0, 0]);
    }

    fn version_comment_column() -> ColumnMeta {
        ColumnMeta {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: "@@version_comment".into(),
            org_name: String::new(),
            charset: 8,
            length: 28,
            column_type: ColumnType::VarString,
            flags: 0,
            decimals: 0x1f,
            text_as: None,
        }
    }

    #[test]
    fn column_definition_matches_protocol_doc() {
        // MySQL docs, text result set of `select @@version_comment limit 1`.
        let mut conn = PacketConn::new(());
        conn.set_sequence_id(2);
        conn.write_column_definition(&version_comment_column());
        let expect: &[u8] = &[
            0x27, 0x00, 0x00, 0x02, 0x03, 0x64, 0x65, 0x66, 0x00, 0x00, 0x00, 0x11, 0x40, 0x40,
            0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x5f, 0x63, 0x6f, 0x6d, 0x6d, 0x65, 0x6e,
            0x74, 0x00, 0x0c, 0x08, 0x00, 0x1c, 0x00, 0x00, 0x00, 0xfd, 0x00, 0x00, 0x1f, 0x00,
            0x00,
        ];
        assert_eq!(framed(&conn), expect);
    }

    #[test]
    fn prepare_ok_matches_protocol_doc() {
        // MySQL docs: COM_STMT_PREPARE_OK for `SELECT CONCAT(?, ?) AS col1`:
        // 0c 00 00 01 00 01 00 00 00 01 00 02 00 00 00 00, then two `?` parameter
        // definitions (17 00 00 02 03 64 65 66 00 00 00 01 3f 00 0c 3f 00 00 00 00 00
        // fd 80 00 00 00 00), EOF, one column definition, EOF.
        let param = ColumnMeta {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: "?".into(),
            org_name: String::new(),
            charset: 63,
            length: 0,
            column_type: ColumnType::VarString,
            flags: 0x80,
            decimals: 0,
            text_as: None,
        };
        let mut conn = PacketConn::new(());
        conn.set_capabilities(capability::CLIENT_PROTOCOL_41);
        conn.set_sequence_id(1);
        let col = ColumnMeta::text("col1", 2);
        conn.write_prepare_ok(1, &[param.clone(), param], &[col], 0, 2);
        let out = framed(&conn);
        assert_eq!(
            &out[..16],
            &[0x0c, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0]
        );
        let pdef: &[u8] = &[
            0x17, 0, 0, 2, 3, b'd', b'e', b'f', 0, 0, 0, 1, b'?', 0, 0x0c, 0x3f, 0, 0, 0, 0, 0,
            0xfd, 0x80, 0, 0, 0, 0,
        ];
        assert_eq!(&out[16..16 + 27], pdef);
        assert_eq!(&out[43..47], &[0x17, 0, 0, 3]);
        assert_eq!(&out[70..79], &[5, 0, 0, 4, 0xfe, 0, 0, 2, 0]);
        assert_eq!(conn.sequence_id(), 7);
        // DEPRECATE_EOF: no EOF packets.
        let mut conn = PacketConn::new(());
        conn.set_capabilities(capability::CLIENT_DEPRECATE_EOF);
        conn.write_prepare_ok(1, &[ColumnMeta::text("?", 0)], &[], 0, 2);
        assert_eq!(conn.sequence_id(), 2);
    }

    #[test]
    fn field_list_has_defaults_and_end_marker() {
        let mut conn = PacketConn::new(());
        let col = ColumnMeta::text("c", 10);
        conn.write_field_list(&[col.clone(), col], &[Some(b"x"), None], 2);
        let out = framed(&conn);
        let first_len = out[0] as usize;
        assert_eq!(&out[4 + first_len - 2..4 + first_len], &[1, b'x']);
        let second = 4 + first_len;
        let second_len = out[second] as usize;
        assert_eq!(out[second + 4 + second_len - 1], 0xfb);
        assert_eq!(conn.sequence_id(), 3);
    }

    #[test]
    fn statistics_text() {
        let s = Statistics {
            uptime_secs: 5,
            threads: 1,
            questions: 3,
            flush_tables: 1,
            ..Default::default()
        };
        assert_eq!(
            s.to_text(),
            "Uptime: 5  Threads: 1  Questions: 3  Slow queries: 0  Opens: 0  Flush tables: 1  Open tables: 0  Queries per second avg: 0.600"
        );
    }
}
