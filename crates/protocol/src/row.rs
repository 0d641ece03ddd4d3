//! Result-set rows in the text and binary protocols, and result-set writers.
//!
//! A result set is: column count (`lenenc`), one ColumnDefinition41 per column, an
//! EOF packet unless CLIENT_DEPRECATE_EOF, the rows, then the end marker (EOF, or an
//! OK packet with header 0xFE under CLIENT_DEPRECATE_EOF).
//!
//! Text row: each value as `string<lenenc>`, NULL as the single byte 0xFB. Numbers
//! are printed in decimal; FLOAT columns with `format_float` (single precision),
//! other floating values with `format_double`; DATETIME/TIMESTAMP/TIME with the
//! column's `decimals` fractional digits (capped at 6).
//!
//! Binary row (COM_STMT_EXECUTE results): header 0x00, a NULL bitmap of
//! `(columns + 7 + 2) / 8` bytes whose bit `i + 2` marks column `i` as NULL, then
//! each non-NULL value encoded by the column's type (see [`crate::value`]).
//!
//! Values are converted to the column's type when they differ (e.g. `Value::Int` in
//! a DOUBLE column), so what the client decodes always matches the metadata.

use crate::codec::{put_lenenc_bytes, put_lenenc_int, put_lenenc_with};
use crate::consts::{capability, status};
use crate::packet::PacketConn;
use crate::response::{encode_column_definition, OkPacket};
use crate::value::{client_bytes, encode_binary_value, is_integer_type, write_text_value};
use basalt_common::{ColumnMeta, ColumnType, MySqlError, Row, Value};

/// Which row encoding a result set uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFormat {
    /// COM_QUERY results.
    Text,
    /// COM_STMT_EXECUTE results.
    Binary,
}

/// Appends a text-protocol row payload: one field per column (the column count is
/// what the client reads; missing values are sent as NULL, extra ones dropped).
pub fn encode_text_row(out: &mut Vec<u8>, columns: &[ColumnMeta], row: &[Value]) {
    for (i, col) in columns.iter().enumerate() {
        match row.get(i).unwrap_or(&Value::Null) {
            Value::Null => out.push(0xfb),
            Value::Bytes(b) => put_lenenc_bytes(out, &client_bytes(b, col)),
            Value::Enum(_, b) if !is_integer_type(col.column_type) => {
                put_lenenc_bytes(out, &client_bytes(b, col))
            }
            v => put_lenenc_with(out, |o| write_text_value(o, v, col)),
        }
    }
}

/// Appends a binary-protocol row payload (same column-count rule as text rows).
pub fn encode_binary_row(out: &mut Vec<u8>, columns: &[ColumnMeta], row: &[Value]) {
    out.push(0x00);
    let bitmap_at = out.len();
    out.resize(bitmap_at + (columns.len() + 7 + 2) / 8, 0);
    for (i, col) in columns.iter().enumerate() {
        let v = row.get(i).unwrap_or(&Value::Null);
        if v.is_null() || col.column_type == ColumnType::Null {
            let bit = i + 2;
            out[bitmap_at + bit / 8] |= 1 << (bit % 8);
        } else {
            encode_binary_value(out, v, col);
        }
    }
}

/// One response of a (possibly multi-statement) command.
#[derive(Clone, Debug)]
pub enum Response<'a> {
    Ok(OkPacket<'a>),
    ResultSet(ResultSet<'a>),
    Err(&'a MySqlError),
}

/// A materialised result set.
#[derive(Clone, Copy, Debug)]
pub struct ResultSet<'a> {
    pub columns: &'a [ColumnMeta],
    pub rows: &'a [Row],
    /// Status flags for the packets ending the metadata and the rows.
    pub status: u16,
    pub warnings: u16,
}

impl<S> PacketConn<S> {
    /// Column count, column definitions and (without CLIENT_DEPRECATE_EOF) their EOF.
    pub fn write_result_header(&mut self, columns: &[ColumnMeta], status: u16) {
        self.push_packet(|out| put_lenenc_int(out, columns.len() as u64));
        for col in columns {
            self.push_packet(|out| encode_column_definition(out, col, None));
        }
        self.write_metadata_eof(status);
    }

    pub fn write_text_row(&mut self, columns: &[ColumnMeta], row: &[Value]) {
        self.push_packet(|out| encode_text_row(out, columns, row));
    }

    pub fn write_binary_row(&mut self, columns: &[ColumnMeta], row: &[Value]) {
        self.push_packet(|out| encode_binary_row(out, columns, row));
    }

    pub fn write_row(&mut self, format: RowFormat, columns: &[ColumnMeta], row: &[Value]) {
        match format {
            RowFormat::Text => self.write_text_row(columns, row),
            RowFormat::Binary => self.write_binary_row(columns, row),
        }
    }

    /// Header, all rows and the end marker of one result set.
    pub fn write_result_set(&mut self, rs: &ResultSet<'_>, format: RowFormat) {
        self.write_result_header(rs.columns, rs.status);
        for row in rs.rows {
            self.write_row(format, rs.columns, row);
        }
        self.write_end_marker(rs.warnings, rs.status);
    }

    /// Writes the responses of a multi-statement command (or a CALL) in order,
    /// setting SERVER_MORE_RESULTS_EXISTS on every one but the last and clearing it on
    /// the last. An `Err` ends the sequence: responses after it are not written.
    pub fn write_responses(&mut self, responses: &[Response<'_>], format: RowFormat) {
        let last = responses
            .iter()
            .position(|r| matches!(r, Response::Err(_)))
            .unwrap_or(responses.len().saturating_sub(1));
        for (i, r) in responses.iter().enumerate().take(last + 1) {
            let more = if i < last {
                status::SERVER_MORE_RESULTS_EXISTS
            } else {
                0
            };
            let fix = |s: u16| (s & !status::SERVER_MORE_RESULTS_EXISTS) | more;
            match r {
                Response::Ok(ok) => {
                    let ok = OkPacket {
                        status: fix(ok.status),
                        ..ok.clone()
                    };
                    self.write_ok(&ok);
                }
                Response::ResultSet(rs) => {
                    let rs = ResultSet {
                        status: fix(rs.status),
                        ..*rs
                    };
                    self.write_result_set(&rs, format);
                }
                Response::Err(e) => self.write_err(e),
            }
        }
    }

    /// True when the client accepts several results for one command.
    pub fn client_multi_results(&self) -> bool {
        self.has_capability(capability::CLIENT_MULTI_RESULTS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::{Date, DateTime, Decimal, Time};

    fn col(t: ColumnType, decimals: u8) -> ColumnMeta {
        let mut c = ColumnMeta::expr("c", t, 20);
        c.decimals = decimals;
        c
    }

    fn text_row(cols: &[ColumnMeta], row: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_text_row(&mut out, cols, row);
        out
    }

    #[test]
    fn text_result_set_matches_protocol_doc() {
        // MySQL docs: `select @@version_comment limit 1` with classic EOF.
        let mut conn = PacketConn::new(());
        conn.set_capabilities(capability::CLIENT_PROTOCOL_41);
        conn.set_sequence_id(1);
        let mut c = ColumnMeta::text("@@version_comment", 28);
        c.charset = 8;
        c.flags = 0;
        c.decimals = 0x1f;
        let rows = vec![vec![Value::str("MySQL Community Server (GPL)")]];
        let rs = ResultSet {
            columns: std::slice::from_ref(&c),
            rows: &rows,
            status: status::SERVER_STATUS_AUTOCOMMIT,
            warnings: 0,
        };
        conn.write_result_set(&rs, RowFormat::Text);
        let out = conn.wbuf.clone();
        assert_eq!(&out[..5], &[1, 0, 0, 1, 1]);
        assert_eq!(&out[5..9], &[0x27, 0, 0, 2]);
        assert_eq!(&out[48..57], &[5, 0, 0, 3, 0xfe, 0, 0, 2, 0]);
        let mut row = vec![0x1d, 0, 0, 4, 0x1c];
        row.extend_from_slice(b"MySQL Community Server (GPL)");
        assert_eq!(&out[57..90], &row[..]);
        assert_eq!(&out[90..], &[5, 0, 0, 5, 0xfe, 0, 0, 2, 0]);
    }

    #[test]
    fn text_values() {
        let cols = [
            col(ColumnType::LongLong, 0),
            col(ColumnType::Float, 31),
            col(ColumnType::Double, 31),
            col(ColumnType::DateTime, 3),
            col(ColumnType::Time, 0),
            col(ColumnType::NewDecimal, 2),
            col(ColumnType::Date, 0),
            col(ColumnType::VarString, 0),
        ];
        let row = [
            Value::Int(-42),
            Value::Double(0.1f32 as f64),
            Value::Int(7),
            Value::DateTime(DateTime::parse("2024-01-02 03:04:05.678901").expect("dt")),
            Value::Time(Time::parse("-838:59:59").expect("time")),
            Value::Decimal(Decimal::new(-12345, 2)),
            Value::Date(Date::new(2024, 2, 29)),
            Value::Null,
        ];
        let out = text_row(&cols, &row);
        let mut expect = Vec::new();
        for s in [
            "-42",
            "0.1",
            "7",
            "2024-01-02 03:04:05.678",
            "-838:59:59",
            "-123.45",
            "2024-02-29",
        ] {
            put_lenenc_bytes(&mut expect, s.as_bytes());
        }
        expect.push(0xfb);
        assert_eq!(out, expect);
    }

    #[test]
    fn binary_row_matches_protocol_doc() {
        // MySQL docs: 09 00 00 04 00 00 06 66 6f 6f 62 61 72 — one VAR_STRING "foobar".
        let mut conn = PacketConn::new(());
        conn.set_sequence_id(4);
        conn.write_binary_row(&[col(ColumnType::VarString, 0)], &[Value::str("foobar")]);
        assert_eq!(conn.wbuf, b"\x09\x00\x00\x04\x00\x00\x06foobar");
    }

    #[test]
    fn binary_row_null_bitmap_offset_two() {
        let cols: Vec<ColumnMeta> = (0..7).map(|_| col(ColumnType::Tiny, 0)).collect();
        let row = [
            Value::Null,
            Value::Int(1),
            Value::Null,
            Value::Int(2),
            Value::Int(3),
            Value::Int(4),
            Value::Null,
        ];
        let mut out = Vec::new();
        encode_binary_row(&mut out, &cols, &row);
        // bits 2, 4, 8 -> byte0 = 0b0001_0100, byte1 = 0b0000_0001
        assert_eq!(out, [0x00, 0x14, 0x01, 1, 2, 3, 4]);
    }

    #[test]
    fn column_count_is_authoritative() {
        let cols = [col(ColumnType::Tiny, 0), col(ColumnType::Tiny, 0)];
        let mut out = Vec::new();
        encode_binary_row(&mut out, &cols, &[Value::Int(1)]);
        assert_eq!(out, [0x00, 0x08, 1]);
        let mut out = Vec::new();
        encode_text_row(
            &mut out,
            &cols,
            &[Value::Int(1), Value::Int(2), Value::Int(3)],
        );
        assert_eq!(out, [1, b'1', 1, b'2']);
    }

    #[test]
    fn deprecate_eof_result_set() {
        let mut conn = PacketConn::new(());
        conn.set_capabilities(capability::CLIENT_PROTOCOL_41 | capability::CLIENT_DEPRECATE_EOF);
        let c = col(ColumnType::LongLong, 0);
        let rows = vec![vec![Value::Int(1)]];
        let rs = ResultSet {
            columns: std::slice::from_ref(&c),
            rows: &rows,
            status: 2,
            warnings: 0,
        };
        conn.write_result_set(&rs, RowFormat::Binary);
        // count, coldef, row, OK(0xFE): 4 packets.
        assert_eq!(conn.sequence_id(), 4);
        let out = &conn.wbuf;
        let tail = &out[out.len() - 11..];
        assert_eq!(tail, &[7, 0, 0, 3, 0xfe, 0, 0, 2, 0, 0, 0]);
    }

    #[test]
    fn multi_results_flag_all_but_last() {
        let mut conn = PacketConn::new(());
        conn.set_capabilities(capability::CLIENT_PROTOCOL_41);
        let c = col(ColumnType::LongLong, 0);
        let rows = vec![vec![Value::Int(1)]];
        let rs = ResultSet {
            columns: std::slice::from_ref(&c),
            rows: &rows,
            status: 2 | status::SERVER_MORE_RESULTS_EXISTS,
            warnings: 0,
        };
        let err = MySqlError::no_tables_used();
        let responses = [
            Response::Ok(OkPacket::with_status(2)),
            Response::ResultSet(rs),
            Response::Ok(OkPacket::with_status(2)),
        ];
        conn.write_responses(&responses, RowFormat::Text);
        let out = conn.wbuf.clone();
        // First OK: status 0x000a.
        assert_eq!(&out[..11], &[7, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0]);
        // Last OK (sequence 6): status 0x0002.
        assert_eq!(&out[out.len() - 11..], &[7, 0, 0, 6, 0, 0, 0, 2, 0, 0, 0]);
        // The result set's final EOF carries MORE_RESULTS.
        assert_eq!(
            &out[out.len() - 20..out.len() - 11],
            &[5, 0, 0, 5, 0xfe, 0, 0, 0x0a, 0]
        );

        let mut conn = PacketConn::new(());
        let responses = [
            Response::Ok(OkPacket::with_status(2)),
            Response::Err(&err),
            Response::Ok(OkPacket::with_status(2)),
        ];
        conn.write_responses(&responses, RowFormat::Text);
        assert_eq!(conn.sequence_id(), 2, "nothing after the error");
        assert_eq!(conn.wbuf[7], 0x0a);
    }
}
