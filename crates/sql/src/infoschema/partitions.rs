//! information_schema.PARTITIONS: a row per partition of a partitioned table,
//! one row with NULL partition columns for any other table (as MariaDB lists
//! them).

use crate::result::s;
use basalt_common::partition::{PartitionBound, PartitionDef, PartitionSpec, PartitionValues};
use basalt_common::{Row, Value};
use basalt_storage::Table;

/// `PARTITION_METHOD`: `RANGE`, `LINEAR HASH`, `LIST COLUMNS`, ...
pub fn method(spec: &PartitionSpec) -> String {
    let mut m = String::new();
    if spec.linear {
        m.push_str("LINEAR ");
    }
    m.push_str(spec.kind.keyword());
    if spec.columns_form {
        m.push_str(" COLUMNS");
    }
    m
}

/// `PARTITION_EXPRESSION`: the expression, or the quoted column list.
pub fn expression(spec: &PartitionSpec) -> String {
    if spec.expr.is_empty() {
        let cols: Vec<String> = spec.columns.iter().map(|c| quote_ident(c)).collect();
        cols.join(",")
    } else {
        spec.expr.clone()
    }
}

fn quote_ident(n: &str) -> String {
    format!("`{}`", n.replace('`', "``"))
}

/// A bound or list value as MariaDB prints it in partition definitions.
pub fn value_text(b: &PartitionBound) -> String {
    let v = match b {
        PartitionBound::MaxValue => return "MAXVALUE".into(),
        PartitionBound::Value(v) => v,
    };
    match v {
        Value::Null => "NULL".into(),
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) => {
            String::from_utf8_lossy(&v.to_text(0).unwrap_or_default()).into_owned()
        }
        other => {
            let t = String::from_utf8_lossy(&other.to_text(6).unwrap_or_default()).into_owned();
            format!("'{}'", t.replace('\\', "\\\\").replace('\'', "\\'"))
        }
    }
}

fn tuple(vals: &[PartitionBound]) -> String {
    vals.iter().map(value_text).collect::<Vec<_>>().join(",")
}

/// `PARTITION_DESCRIPTION`: the RANGE bound or the LIST values.
pub fn description(spec: &PartitionSpec, p: &PartitionDef) -> Option<String> {
    match &p.values {
        PartitionValues::None => None,
        PartitionValues::LessThan(b) => Some(tuple(b)),
        PartitionValues::In(list) => {
            let many = spec.columns_form && spec.columns.len() > 1;
            let items: Vec<String> = list
                .iter()
                .map(|t| match many {
                    true => format!("({})", tuple(t)),
                    false => tuple(t),
                })
                .collect();
            Some(items.join(","))
        }
    }
}

/// The rows of one table; `head` is (catalog, schema, name).
pub fn rows_of(head: [Value; 3], t: &dyn Table) -> Vec<Row> {
    let def = t.def();
    let st = t.stats();
    let Some(spec) = &def.partitioning else {
        let mut row = head.to_vec();
        row.extend(std::iter::repeat_n(Value::Null, 9));
        row.extend(sizes(st.rows, st.data_bytes, ""));
        return vec![row];
    };
    let per_row = st.data_bytes.checked_div(st.rows.max(1)).unwrap_or(0);
    spec.parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let rows = t.partition_rows(p.id).unwrap_or(0);
            let mut row = head.to_vec();
            row.extend([
                s(&p.name),
                Value::Null,
                Value::UInt(i as u64 + 1),
                Value::Null,
                s(method(spec)),
                Value::Null,
                s(expression(spec)),
                Value::Null,
                description(spec, p).map_or(Value::Null, s),
            ]);
            row.extend(sizes(rows, rows * per_row, "default"));
            row[22] = s(&p.comment);
            row
        })
        .collect()
}

/// TABLE_ROWS .. TABLESPACE_NAME.
fn sizes(rows: u64, bytes: u64, nodegroup: &str) -> Vec<Value> {
    vec![
        Value::UInt(rows),
        Value::UInt(bytes.checked_div(rows).unwrap_or(0)),
        Value::UInt(bytes),
        Value::Null,
        Value::UInt(0),
        Value::UInt(0),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        s(""),
        s(nodegroup),
        Value::Null,
    ]
}
