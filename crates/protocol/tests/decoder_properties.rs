//! Property tests: every decoder survives arbitrary bytes (returns an error, never
//! panics), and encoders round-trip through the matching decoders.

use basalt_common::{ColumnMeta, ColumnType, Date, DateTime, Time, Value};
use basalt_protocol::codec::Reader;
use basalt_protocol::command::ChangeUser;
use basalt_protocol::execute::decode_param;
use basalt_protocol::handshake::parse_handshake_response;
use basalt_protocol::{
    capability, decode_stmt_execute, encode_binary_row, parse_command, ClientHello, PacketConn,
    ParamType, ProtoError,
};
use proptest::prelude::*;

const TYPE_CODES: &[u8] = &[
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0f, 0x10,
    0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
];

fn param_type() -> impl Strategy<Value = ParamType> {
    (prop::sample::select(TYPE_CODES), any::<bool>()).prop_map(|(t, unsigned)| ParamType {
        column_type: ColumnType::from_u8(t).expect("listed code"),
        unsigned,
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parse_command_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200), caps in any::<u32>()) {
        let _ = parse_command(&bytes, caps);
    }

    #[test]
    fn parse_command_with_code_never_panics(code in 0u8..0x20, rest in prop::collection::vec(any::<u8>(), 0..64), caps in any::<u32>()) {
        let mut bytes = vec![code];
        bytes.extend(rest);
        let _ = parse_command(&bytes, caps);
        let _ = ChangeUser::parse(&bytes[1..], caps);
    }

    #[test]
    fn handshake_response_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse_handshake_response(&bytes);
    }

    #[test]
    fn handshake_response_with_valid_prefix_never_panics(caps in any::<u32>(), rest in prop::collection::vec(any::<u8>(), 0..120)) {
        let mut bytes = (caps | capability::CLIENT_PROTOCOL_41).to_le_bytes().to_vec();
        bytes.extend_from_slice(&[0; 28]);
        bytes.extend(rest);
        let _ = parse_handshake_response(&bytes);
    }

    #[test]
    fn stmt_execute_never_panics(
        bytes in prop::collection::vec(any::<u8>(), 0..200),
        num_params in 0usize..40,
        mut bound in prop::collection::vec(param_type(), 0..40),
        long in prop::collection::vec(prop::option::of(prop::collection::vec(any::<u8>(), 0..4)), 0..40),
    ) {
        let mut long = long;
        let _ = decode_stmt_execute(&bytes, num_params, &mut bound, &mut long);
    }

    #[test]
    fn stmt_execute_with_valid_header_never_panics(
        num_params in 1usize..12,
        rest in prop::collection::vec(any::<u8>(), 0..120),
    ) {
        let mut bytes = vec![0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0];
        bytes.extend(rest);
        let mut bound = Vec::new();
        let _ = decode_stmt_execute(&bytes, num_params, &mut bound, &mut []);
    }

    #[test]
    fn binary_values_never_panic(ty in param_type(), bytes in prop::collection::vec(any::<u8>(), 0..40)) {
        let mut r = Reader::new(&bytes);
        let _ = decode_param(&mut r, ty);
    }

    #[test]
    fn reader_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..64), ops in prop::collection::vec(0u8..8, 0..20)) {
        let mut r = Reader::new(&bytes);
        for op in ops {
            let _ = match op {
                0 => r.u8("x").map(|_| ()),
                1 => r.u16("x").map(|_| ()),
                2 => r.u24("x").map(|_| ()),
                3 => r.u32("x").map(|_| ()),
                4 => r.u64("x").map(|_| ()),
                5 => r.lenenc_int("x").map(|_| ()),
                6 => r.lenenc_bytes("x").map(|_| ()),
                _ => r.nul_bytes("x").map(|_| ()),
            };
        }
    }

    #[test]
    fn packet_reader_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..300), max in 0usize..200) {
        runtime().block_on(async {
            let mut conn = PacketConn::new(&bytes[..]);
            conn.set_max_allowed_packet(max);
            let mut buf = Vec::new();
            for _ in 0..8 {
                match conn.read_packet(&mut buf).await {
                    Ok(()) => assert!(buf.len() <= max),
                    Err(_) => break,
                }
            }
        });
    }
}

fn value_for(t: ColumnType) -> BoxedStrategy<Value> {
    match t {
        ColumnType::Tiny => any::<i8>().prop_map(|v| Value::Int(v as i64)).boxed(),
        ColumnType::Short => any::<i16>().prop_map(|v| Value::Int(v as i64)).boxed(),
        ColumnType::Long => any::<i32>().prop_map(|v| Value::Int(v as i64)).boxed(),
        ColumnType::LongLong => any::<i64>().prop_map(Value::Int).boxed(),
        ColumnType::Double => any::<f64>()
            .prop_filter("not NaN", |f| !f.is_nan())
            .prop_map(Value::Double)
            .boxed(),
        ColumnType::Date => (0u16..10000, 0u8..13, 0u8..32)
            .prop_map(|(y, m, d)| Value::Date(Date::new(y, m, d)))
            .boxed(),
        ColumnType::DateTime => (
            0u16..10000,
            1u8..13,
            1u8..29,
            0u8..24,
            0u8..60,
            0u8..60,
            0u32..1_000_000,
        )
            .prop_map(|(y, mo, d, h, mi, s, micro)| {
                Value::DateTime(DateTime {
                    date: Date::new(y, mo, d),
                    hour: h,
                    minute: mi,
                    second: s,
                    micro,
                })
            })
            .boxed(),
        ColumnType::Time => (any::<bool>(), 0u16..839, 0u8..60, 0u8..60, 0u32..1_000_000)
            .prop_map(|(negative, hours, minute, second, micro)| {
                let zero = hours == 0 && minute == 0 && second == 0 && micro == 0;
                Value::Time(Time {
                    negative: negative && !zero,
                    hours,
                    minute,
                    second,
                    micro,
                })
            })
            .boxed(),
        _ => prop::collection::vec(any::<u8>(), 0..300)
            .prop_map(Value::Bytes)
            .boxed(),
    }
}

fn column_and_value() -> impl Strategy<Value = (ColumnType, Option<Value>)> {
    prop::sample::select(
        &[
            ColumnType::Tiny,
            ColumnType::Short,
            ColumnType::Long,
            ColumnType::LongLong,
            ColumnType::Double,
            ColumnType::Date,
            ColumnType::DateTime,
            ColumnType::Time,
            ColumnType::VarString,
            ColumnType::Blob,
        ][..],
    )
    .prop_flat_map(|t| (Just(t), prop::option::weighted(0.8, value_for(t))))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// A binary row decodes back, value by value, with the parameter decoder (the
    /// two share the binary value format).
    #[test]
    fn binary_row_round_trips(cells in prop::collection::vec(column_and_value(), 1..20)) {
        let cols: Vec<ColumnMeta> = cells.iter().map(|(t, _)| ColumnMeta::expr("c", *t, 0)).collect();
        let row: Vec<Value> = cells.iter().map(|(_, v)| v.clone().unwrap_or(Value::Null)).collect();
        let mut out = Vec::new();
        encode_binary_row(&mut out, &cols, &row);
        prop_assert_eq!(out[0], 0);
        let bitmap_len = (cols.len() + 9) / 8;
        let bitmap = &out[1..1 + bitmap_len];
        let mut r = Reader::new(&out[1 + bitmap_len..]);
        for (i, (col, expect)) in cols.iter().zip(&row).enumerate() {
            let bit = i + 2;
            let is_null = bitmap[bit / 8] & (1 << (bit % 8)) != 0;
            prop_assert_eq!(is_null, expect.is_null());
            if is_null {
                continue;
            }
            let got = decode_param(&mut r, ParamType { column_type: col.column_type, unsigned: false })
                .map_err(|e: ProtoError| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&got, expect);
        }
        prop_assert!(r.is_empty());
    }

    /// A handshake response built as a client builds it parses back.
    #[test]
    fn handshake_response_round_trips(
        user in "[a-z_]{0,16}",
        auth in prop::collection::vec(any::<u8>(), 0..300),
        db in prop::option::of("[a-z0-9]{1,10}"),
        attrs in prop::collection::vec(("[a-z_]{1,8}", "[ -~]{0,20}"), 0..5),
    ) {
        let mut caps = capability::CLIENT_PROTOCOL_41
            | capability::CLIENT_SECURE_CONNECTION
            | capability::CLIENT_PLUGIN_AUTH
            | capability::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | capability::CLIENT_CONNECT_ATTRS;
        if db.is_some() {
            caps |= capability::CLIENT_CONNECT_WITH_DB;
        }
        let mut p = caps.to_le_bytes().to_vec();
        p.extend_from_slice(&(1u32 << 24).to_le_bytes());
        p.push(45);
        p.extend_from_slice(&[0; 23]);
        p.extend_from_slice(user.as_bytes());
        p.push(0);
        basalt_protocol::codec::put_lenenc_bytes(&mut p, &auth);
        if let Some(db) = &db {
            p.extend_from_slice(db.as_bytes());
            p.push(0);
        }
        p.extend_from_slice(b"caching_sha2_password\0");
        let mut block = Vec::new();
        for (k, v) in &attrs {
            basalt_protocol::codec::put_lenenc_bytes(&mut block, k.as_bytes());
            basalt_protocol::codec::put_lenenc_bytes(&mut block, v.as_bytes());
        }
        basalt_protocol::codec::put_lenenc_bytes(&mut p, &block);
        let ClientHello::Response(r) = parse_handshake_response(&p).map_err(|e| TestCaseError::fail(e.to_string()))? else {
            return Err(TestCaseError::fail("parsed as SSLRequest"));
        };
        prop_assert_eq!(r.user, user);
        prop_assert_eq!(r.auth_response, auth);
        prop_assert_eq!(r.database, db);
        prop_assert_eq!(r.auth_plugin.as_deref(), Some("caching_sha2_password"));
        prop_assert_eq!(r.attributes, attrs);
    }

    /// Packets of any size written by the connection are read back intact.
    #[test]
    fn packets_round_trip(sizes in prop::collection::vec(0usize..70_000, 1..6)) {
        runtime().block_on(async {
            let mut w = PacketConn::new(Vec::new());
            let payloads: Vec<Vec<u8>> = sizes.iter().map(|&n| (0..n).map(|i| i as u8).collect()).collect();
            for p in &payloads {
                w.push_payload(p);
            }
            w.flush().await.expect("flush to vec");
            let wire = w.get_ref().clone();
            let mut r = PacketConn::new(&wire[..]);
            let mut buf = Vec::new();
            for p in &payloads {
                r.read_packet(&mut buf).await.expect("read back");
                assert_eq!(&buf, p);
            }
            assert!(matches!(r.read_packet(&mut buf).await, Err(ProtoError::Closed)));
        });
    }
}
