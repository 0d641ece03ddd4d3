//! EXPLAIN's traditional table: one row per table access, a block's derived
//! tables and subqueries after its own rows, a set operation's result row after
//! its members. EXTENDED adds `filtered`, PARTITIONS the `partitions` column,
//! ANALYZE `r_rows`, `filtered` and `r_filtered`; column types and lengths are
//! MariaDB's.

use super::tree::{Block, Node, SetNode, TableAccess};
use crate::result::{int_col, opt_s, s, text_col, text_col_nn};
use basalt_common::{ColumnMeta, ColumnType, Row, Value};

/// Which optional columns the table has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    pub filtered: bool,
    pub partitions: bool,
    pub analyze: bool,
}

pub fn columns(c: Columns) -> Vec<ColumnMeta> {
    let mut cols = vec![
        // MariaDB sends `id` UNSIGNED in EXPLAIN PARTITIONS.
        int_col("id", 3, c.partitions),
        text_col_nn("select_type", 19),
        text_col("table", 64),
    ];
    if c.partitions {
        let mut p = text_col("partitions", 6_316_032);
        p.column_type = ColumnType::MediumBlob;
        cols.push(p);
    }
    cols.extend([
        text_col("type", 10),
        text_col("possible_keys", 4096),
        text_col("key", 64),
        text_col("key_len", 4096),
        text_col("ref", 2048),
    ]);
    // `rows` is NOT NULL under EXTENDED and ANALYZE, as MariaDB sends it.
    cols.push(if c.filtered || c.analyze {
        text_col_nn("rows", 64)
    } else {
        text_col("rows", 64)
    });
    if c.analyze {
        cols.push(text_col("r_rows", 64));
    }
    if c.filtered || c.analyze {
        cols.push(percent_col("filtered"));
    }
    if c.analyze {
        cols.push(percent_col("r_filtered"));
    }
    cols.push(text_col_nn("Extra", 255));
    cols
}

/// A DOUBLE shown with two decimals (`100.00`).
fn percent_col(name: &str) -> ColumnMeta {
    let mut m = ColumnMeta::expr(name, ColumnType::Double, 4);
    m.decimals = 2;
    m
}

/// The rows of `node` and everything it contains, in MariaDB's order.
pub fn rows(node: &Node, c: Columns, out: &mut Vec<Row>) {
    match node {
        Node::Block(b) => block_rows(b, c, out),
        Node::Set(set) => set_rows(set, c, out),
    }
}

fn set_rows(set: &SetNode, c: Columns, out: &mut Vec<Row>) {
    for m in &set.members {
        block_rows(m, c, out);
    }
    if let Some(r) = &set.result {
        let mut row = vec![Value::Null, s(r.select_type), s(&r.table)];
        if c.partitions {
            row.push(Value::Null);
        }
        row.extend([s("ALL"), Value::Null, Value::Null, Value::Null, Value::Null]);
        row.push(Value::Null);
        if c.analyze {
            row.push(opt_s(r.r_rows.map(|n| format!("{n:.2}"))));
        }
        if c.filtered || c.analyze {
            row.push(Value::Null);
        }
        if c.analyze {
            row.push(Value::Null);
        }
        row.push(s(""));
        out.push(row);
    }
}

fn block_rows(b: &Block, c: Columns, out: &mut Vec<Row>) {
    if let Some(msg) = b.message {
        let mut row = vec![Value::Int(b.id as i64), s(&b.select_type), Value::Null];
        if c.partitions {
            row.push(Value::Null);
        }
        row.extend(std::iter::repeat_n(Value::Null, 6));
        if c.analyze {
            row.push(Value::Null);
        }
        if c.filtered || c.analyze {
            row.push(Value::Null);
        }
        if c.analyze {
            row.push(Value::Null);
        }
        row.push(s(msg));
        out.push(row);
    }
    for (i, t) in b.tables.iter().enumerate() {
        out.push(access_row(b, t, i == 0, c));
    }
    for t in &b.tables {
        if let Some(m) = &t.materialized {
            rows(m, c, out);
        }
    }
    for child in &b.children {
        rows(child, c, out);
    }
}

fn access_row(b: &Block, t: &TableAccess, first: bool, c: Columns) -> Row {
    let list = |v: &[String]| (!v.is_empty()).then(|| v.join(","));
    let mut row = vec![Value::Int(b.id as i64), s(&b.select_type), s(&t.name)];
    if c.partitions {
        row.push(opt_s(t.partitions.as_ref().map(|p| p.join(","))));
    }
    row.extend([
        s(t.access_type),
        opt_s(list(&t.possible_keys)),
        opt_s(t.key.clone()),
        opt_s(t.key_len.map(|k| k.to_string())),
        opt_s(list(&t.refs)),
        s(t.rows.to_string()),
    ]);
    if c.analyze {
        row.push(opt_s(
            t.stats.map(|st| format!("{:.2}", st.rows_per_loop())),
        ));
    }
    if c.filtered || c.analyze {
        row.push(Value::Double(100.0));
    }
    if c.analyze {
        row.push(
            t.stats
                .map_or(Value::Null, |st| Value::Double(st.filtered())),
        );
    }
    row.push(s(extra(b, t, first).join("; ")));
    row
}

/// The Extra column of a table access.
pub fn extra(b: &Block, t: &TableAccess, first: bool) -> Vec<&'static str> {
    let mut extra = Vec::new();
    if t.condition.is_some() {
        extra.push("Using where");
    }
    if t.using_index {
        extra.push("Using index");
    }
    if first && b.temporary {
        extra.push("Using temporary");
    }
    if first && b.filesort.is_some() {
        extra.push("Using filesort");
    }
    if t.hash {
        extra.push("Using join buffer (flat, BNLH join)");
    }
    extra
}
