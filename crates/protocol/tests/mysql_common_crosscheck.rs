//! Differential checks against `mysql_common` (the codec under mysql_async): what we
//! encode, its parsers read back field by field; what its client-side encoders
//! produce, our decoders read back.

use basalt_common::{ColumnMeta, ColumnType, Date, DateTime, Decimal, MySqlError, Time, Value};
use basalt_protocol::handshake::{encode_greeting, parse_handshake_response, Greeting};
use basalt_protocol::response::{encode_column_definition, encode_err, encode_ok};
use basalt_protocol::{
    capability, decode_stmt_execute, encode_binary_row, encode_text_row, ChangeUser, ClientHello,
    OkPacket, StateChange,
};
use mysql_common::constants::{CapabilityFlags, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::session_state_change::SessionStateChange;
use mysql_common::packets::{
    AuthPlugin, Column, ComChangeUser, ComChangeUserMoreData, ComStmtExecuteRequestBuilder,
    CommonOkPacket, ErrPacket, HandshakePacket, HandshakeResponse, OkPacketDeserializer,
    ResultSetTerminator,
};
use mysql_common::proto::MySerialize;
use mysql_common::row::RowDeserializer;
use mysql_common::{
    proto::{Binary, Text},
    Value as MValue,
};
use std::collections::HashMap;
use std::sync::Arc;

const CAPS: u32 = capability::SERVER_DEFAULT;

fn flags(c: u32) -> CapabilityFlags {
    CapabilityFlags::from_bits_truncate(c)
}

#[test]
fn ok_packets_parse_in_mysql_common() {
    for caps in [CAPS, CAPS & !capability::CLIENT_SESSION_TRACK] {
        let changes = [StateChange::Schema("shop")];
        let ok = OkPacket {
            affected_rows: 70_000,
            last_insert_id: 1 << 40,
            status: 0x0003,
            warnings: 7,
            info: "Rows matched: 1  Changed: 1  Warnings: 0",
            state_changes: &changes,
        };
        let mut out = Vec::new();
        encode_ok(&mut out, &ok, 0x00, caps);
        let parsed = ParseBuf(&out)
            .parse::<OkPacketDeserializer<CommonOkPacket>>(flags(caps))
            .expect("mysql_common parses our OK")
            .into_inner();
        assert_eq!(parsed.affected_rows(), 70_000);
        assert_eq!(parsed.last_insert_id(), Some(1 << 40));
        assert_eq!(parsed.warnings(), 7);
        assert_eq!(parsed.info_ref(), Some(ok.info.as_bytes()));
        let tracked = caps & capability::CLIENT_SESSION_TRACK != 0;
        assert_eq!(
            parsed
                .status_flags()
                .contains(StatusFlags::SERVER_SESSION_STATE_CHANGED),
            tracked
        );
        if tracked {
            let infos = parsed.session_state_info().expect("state info");
            assert_eq!(infos.len(), 1);
            match infos[0].decode().expect("decode") {
                SessionStateChange::Schema(s) => assert_eq!(s.as_bytes(), b"shop"),
                other => panic!("unexpected {other:?}"),
            }
        }
        // The same body as the end of a result set under DEPRECATE_EOF.
        let mut out = Vec::new();
        encode_ok(&mut out, &OkPacket::with_status(0x22), 0xfe, caps);
        let parsed = ParseBuf(&out)
            .parse::<OkPacketDeserializer<ResultSetTerminator>>(flags(caps))
            .expect("terminator")
            .into_inner();
        assert_eq!(parsed.status_flags().bits(), 0x22);
    }
}

#[test]
fn err_packet_parses_in_mysql_common() {
    let mut out = Vec::new();
    encode_err(&mut out, &MySqlError::dup_entry("1", "PRIMARY"));
    match ParseBuf(&out).parse::<ErrPacket>(flags(CAPS)).expect("err") {
        ErrPacket::Error(e) => {
            assert_eq!(e.error_code(), 1062);
            assert_eq!(
                e.sql_state_ref()
                    .map(|s| s.as_str().into_owned())
                    .as_deref(),
                Some("23000")
            );
            assert_eq!(e.message_str(), "Duplicate entry '1' for key 'PRIMARY'");
        }
        other => panic!("unexpected {other:?}"),
    }
}

fn sample_columns() -> Vec<ColumnMeta> {
    let mut a = ColumnMeta::expr("id", ColumnType::LongLong, 20);
    a.schema = "shop".into();
    a.table = "o".into();
    a.org_table = "orders".into();
    a.org_name = "order_id".into();
    a.flags |= basalt_common::column::flags::UNSIGNED | basalt_common::column::flags::PRI_KEY;
    let mut dt = ColumnMeta::expr("at", ColumnType::DateTime, 26);
    dt.decimals = 6;
    let mut t = ColumnMeta::expr("t", ColumnType::Time, 10);
    t.decimals = 0;
    vec![
        a,
        ColumnMeta::text("name", 400),
        ColumnMeta::expr("price", ColumnType::NewDecimal, 12),
        ColumnMeta::expr("ratio", ColumnType::Double, 22),
        ColumnMeta::expr("f", ColumnType::Float, 12),
        dt,
        ColumnMeta::expr("day", ColumnType::Date, 10),
        t,
        ColumnMeta::expr("small", ColumnType::Short, 6),
        ColumnMeta::text("none", 4),
    ]
}

fn parsed_columns(cols: &[ColumnMeta]) -> Arc<[Column]> {
    cols.iter()
        .map(|c| {
            let mut out = Vec::new();
            encode_column_definition(&mut out, c, None);
            ParseBuf(&out)
                .parse::<Column>(())
                .expect("column definition")
        })
        .collect::<Vec<_>>()
        .into()
}

#[test]
fn column_definitions_parse_in_mysql_common() {
    let cols = sample_columns();
    let parsed = parsed_columns(&cols);
    for (ours, theirs) in cols.iter().zip(parsed.iter()) {
        assert_eq!(theirs.schema_ref(), ours.schema.as_bytes());
        assert_eq!(theirs.table_ref(), ours.table.as_bytes());
        assert_eq!(theirs.org_table_ref(), ours.org_table.as_bytes());
        assert_eq!(theirs.name_ref(), ours.name.as_bytes());
        assert_eq!(theirs.org_name_ref(), ours.org_name.as_bytes());
        assert_eq!(theirs.character_set(), ours.charset);
        assert_eq!(theirs.column_length(), ours.length);
        assert_eq!(theirs.column_type() as u8, ours.column_type as u8);
        assert_eq!(theirs.flags().bits(), ours.flags);
        assert_eq!(theirs.decimals(), ours.decimals);
    }
}

fn sample_row() -> Vec<Value> {
    vec![
        Value::UInt(u64::MAX),
        Value::str("widget"),
        Value::Decimal(Decimal::new(1999, 2)),
        Value::Int(3), // converted for the DOUBLE column
        Value::Double(0.5),
        Value::DateTime(DateTime::parse("2024-05-06 07:08:09.123456").expect("dt")),
        Value::Date(Date::new(2024, 5, 6)),
        Value::Time(Time::parse("-25:00:01").expect("time")),
        Value::Int(-300),
        Value::Null,
    ]
}

#[test]
fn binary_rows_parse_in_mysql_common() {
    let cols = sample_columns();
    let mut out = Vec::new();
    encode_binary_row(&mut out, &cols, &sample_row());
    let row = ParseBuf(&out)
        .parse::<RowDeserializer<mysql_common::value::ServerSide, Binary>>(parsed_columns(&cols))
        .expect("binary row");
    let values: Vec<MValue> = mysql_common::row::Row::from(row).unwrap();
    assert_eq!(
        values,
        vec![
            MValue::UInt(u64::MAX),
            MValue::Bytes(b"widget".to_vec()),
            MValue::Bytes(b"19.99".to_vec()),
            MValue::Double(3.0),
            MValue::Float(0.5),
            MValue::Date(2024, 5, 6, 7, 8, 9, 123_456),
            MValue::Date(2024, 5, 6, 0, 0, 0, 0),
            MValue::Time(true, 1, 1, 0, 1, 0),
            MValue::Int(-300),
            MValue::NULL,
        ]
    );
}

#[test]
fn text_rows_parse_in_mysql_common() {
    let cols = sample_columns();
    let mut out = Vec::new();
    encode_text_row(&mut out, &cols, &sample_row());
    let row = ParseBuf(&out)
        .parse::<RowDeserializer<(), Text>>(parsed_columns(&cols))
        .expect("text row");
    let values: Vec<MValue> = mysql_common::row::Row::from(row).unwrap();
    let texts: Vec<Option<String>> = values
        .into_iter()
        .map(|v| match v {
            MValue::NULL => None,
            MValue::Bytes(b) => Some(String::from_utf8(b).expect("utf8")),
            other => panic!("text rows are bytes, got {other:?}"),
        })
        .collect();
    let expect = [
        "18446744073709551615",
        "widget",
        "19.99",
        "3",
        "0.5",
        "2024-05-06 07:08:09.123456",
        "2024-05-06",
        "-25:00:01",
        "-300",
    ];
    let mut expect: Vec<Option<String>> = expect.iter().map(|s| Some(s.to_string())).collect();
    expect.push(None);
    assert_eq!(texts, expect);
}

#[test]
fn greeting_parses_in_mysql_common() {
    let scramble = *b"abcdefghijklmnopqrst";
    let g = Greeting {
        server_version: basalt_protocol::DEFAULT_SERVER_VERSION,
        connection_id: 77,
        scramble: &scramble,
        capabilities: CAPS,
        collation: 45,
        status: 2,
        auth_plugin: "caching_sha2_password",
    };
    let mut out = Vec::new();
    encode_greeting(&mut out, &g);
    let h = ParseBuf(&out)
        .parse::<HandshakePacket>(())
        .expect("greeting");
    assert_eq!(h.protocol_version(), 10);
    assert_eq!(h.maria_db_server_version_parsed(), Some((10, 11, 99)));
    assert_eq!(h.connection_id(), 77);
    assert_eq!(h.nonce(), scramble.to_vec());
    assert_eq!(h.capabilities().bits(), CAPS);
    assert_eq!(h.default_collation(), 45);
    assert_eq!(h.status_flags().bits(), 2);
    assert_eq!(
        h.auth_plugin_name_ref(),
        Some(&b"caching_sha2_password"[..])
    );
}

#[test]
fn mysql_common_handshake_response_parses() {
    let mut attrs = HashMap::new();
    attrs.insert("_client_name".to_string(), "mysql_async".to_string());
    for caps in [
        CAPS,
        CAPS & !capability::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA,
        CAPS & !capability::CLIENT_CONNECT_WITH_DB,
    ] {
        let scramble = [9u8; 32];
        let resp = HandshakeResponse::new(
            Some(&scramble[..]),
            (10, 11, 99),
            Some(&b"alice"[..]),
            Some(&b"shop"[..]),
            Some(AuthPlugin::CachingSha2Password),
            flags(caps),
            Some(attrs.clone()),
            1 << 24,
        );
        let mut out = Vec::new();
        resp.serialize(&mut out);
        let ClientHello::Response(r) = parse_handshake_response(&out).expect("parse") else {
            panic!("not a response");
        };
        assert_eq!(r.user, "alice");
        assert_eq!(r.auth_response, scramble);
        // mysql_common sets CLIENT_CONNECT_WITH_DB itself when a database is given.
        let with_db = r.capabilities & capability::CLIENT_CONNECT_WITH_DB != 0;
        assert!(with_db);
        assert_eq!(r.database.as_deref(), with_db.then_some("shop"));
        assert_eq!(r.auth_plugin.as_deref(), Some("caching_sha2_password"));
        assert_eq!(r.max_packet_size, 1 << 24);
        assert!(r
            .attributes
            .contains(&("_client_name".into(), "mysql_async".into())));
    }
}

#[test]
fn mysql_common_change_user_parses() {
    let mut attrs = HashMap::new();
    attrs.insert("k".to_string(), "v".to_string());
    let com = ComChangeUser::new()
        .with_user(Some(&b"bob"[..]))
        .with_database(Some(&b"db"[..]))
        .with_auth_plugin_data(Some(&[1u8; 20][..]))
        .with_more_data(Some(
            ComChangeUserMoreData::new(45)
                .with_auth_plugin(Some(AuthPlugin::MysqlNativePassword))
                .with_connect_attributes(Some(attrs)),
        ));
    let mut out = Vec::new();
    com.serialize(&mut out);
    assert_eq!(out[0], 0x11);
    let cu = ChangeUser::parse(&out[1..], CAPS).expect("change user");
    assert_eq!(cu.user, "bob");
    assert_eq!(cu.auth_response, [1u8; 20]);
    assert_eq!(cu.database.as_deref(), Some("db"));
    assert_eq!(cu.collation, Some(45));
    assert_eq!(cu.auth_plugin.as_deref(), Some("mysql_native_password"));
    assert_eq!(cu.attributes, vec![("k".to_string(), "v".to_string())]);
}

#[test]
fn mysql_common_stmt_execute_decodes() {
    let params = vec![
        MValue::Int(-1),
        MValue::UInt(u64::MAX),
        MValue::Float(2.5),
        MValue::Double(-0.25),
        MValue::Bytes(b"txt".to_vec()),
        MValue::NULL,
        MValue::Date(2001, 2, 3, 4, 5, 6, 7),
        MValue::Time(false, 1, 2, 3, 4, 0),
    ];
    let (req, as_long_data) = ComStmtExecuteRequestBuilder::new(9).build(&params);
    assert!(!as_long_data);
    let mut out = Vec::new();
    req.serialize(&mut out);
    let mut types = Vec::new();
    let e = decode_stmt_execute(&out, params.len(), &mut types, &mut []).expect("decode");
    assert_eq!(e.stmt_id, 9);
    assert_eq!(e.iteration_count, 1);
    assert_eq!(
        e.params,
        vec![
            Value::Int(-1),
            Value::UInt(u64::MAX),
            Value::Double(2.5),
            Value::Double(-0.25),
            Value::str("txt"),
            Value::Null,
            Value::DateTime(DateTime {
                date: Date::new(2001, 2, 3),
                hour: 4,
                minute: 5,
                second: 6,
                micro: 7
            }),
            Value::Time(Time {
                negative: false,
                hours: 26,
                minute: 3,
                second: 4,
                micro: 0
            }),
        ]
    );
}
