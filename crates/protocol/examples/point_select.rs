//! Measures the cost of encoding a point-select response (the hot path of every
//! query): `cargo run --release -p basalt-protocol --example point_select`.

use basalt_common::{ColumnMeta, ColumnType, Value};
use basalt_protocol::{capability, PacketConn, ResultSet, RowFormat};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut id = ColumnMeta::expr("i", ColumnType::Long, 11);
    id.schema = "test".into();
    id.table = "foo".into();
    id.org_table = "foo".into();
    id.org_name = "i".into();
    let mut j = ColumnMeta::text("j", 400);
    j.schema = "test".into();
    j.table = "foo".into();
    j.org_table = "foo".into();
    j.org_name = "j".into();
    let columns = vec![id, j];
    let rows = vec![vec![
        Value::Int(100),
        Value::str("some text value of moderate length"),
    ]];
    for (name, caps, format) in [
        (
            "text, DEPRECATE_EOF",
            capability::CLIENT_PROTOCOL_41 | capability::CLIENT_DEPRECATE_EOF,
            RowFormat::Text,
        ),
        (
            "text, classic EOF",
            capability::CLIENT_PROTOCOL_41,
            RowFormat::Text,
        ),
        (
            "binary, DEPRECATE_EOF",
            capability::CLIENT_PROTOCOL_41 | capability::CLIENT_DEPRECATE_EOF,
            RowFormat::Binary,
        ),
    ] {
        let mut conn = PacketConn::new(());
        conn.set_capabilities(caps);
        let rs = ResultSet {
            columns: &columns,
            rows: &rows,
            status: 2,
            warnings: 0,
        };
        let n = 2_000_000u32;
        let start = Instant::now();
        for _ in 0..n {
            conn.reset_sequence();
            conn.write_result_set(black_box(&rs), format);
            black_box(conn.pending_output());
            conn.discard_output();
        }
        let per = start.elapsed() / n;
        println!("{name}: {per:?} per response (2 columns, 1 row)");
    }
}
