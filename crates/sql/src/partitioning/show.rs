//! The partition clause as MariaDB's SHOW CREATE TABLE prints it.

use crate::infoschema::partitions::{description, expression};
use basalt_common::partition::{PartitionKind, PartitionValues};
use basalt_common::TableDef;

fn quote(n: &str) -> String {
    format!("`{}`", n.replace('`', "``"))
}

fn quote_str(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The text after the table options, from the newline on (empty for a table
/// that is not partitioned).
pub fn clause(def: &TableDef) -> String {
    let Some(spec) = &def.partitioning else {
        return String::new();
    };
    let mut out = String::from("\n PARTITION BY ");
    if spec.linear {
        out.push_str("LINEAR ");
    }
    out.push_str(spec.kind.keyword());
    if spec.columns_form {
        out.push_str("  COLUMNS(");
        out.push_str(&expression(spec));
        out.push(')');
    } else {
        if spec.kind == PartitionKind::Key {
            if let Some(a) = spec.key_algorithm {
                out.push_str(&format!(" ALGORITHM = {a}"));
            }
        }
        out.push_str(&format!(" ({})", expression(spec)));
    }
    if !spec.listed && matches!(spec.kind, PartitionKind::Hash | PartitionKind::Key) {
        out.push_str(&format!("\nPARTITIONS {}", spec.parts.len()));
        return out;
    }
    let engine = def.engine.name();
    let parts: Vec<String> = spec
        .parts
        .iter()
        .map(|p| {
            let mut s = format!("PARTITION {}", quote(&p.name));
            match &p.values {
                PartitionValues::LessThan(b) if !spec.columns_form && b.len() == 1 => {
                    let d = description(spec, p).unwrap_or_default();
                    match d.as_str() {
                        "MAXVALUE" => s.push_str(" VALUES LESS THAN MAXVALUE"),
                        _ => s.push_str(&format!(" VALUES LESS THAN ({d})")),
                    }
                }
                PartitionValues::LessThan(_) => s.push_str(&format!(
                    " VALUES LESS THAN ({})",
                    description(spec, p).unwrap_or_default()
                )),
                PartitionValues::In(_) => s.push_str(&format!(
                    " VALUES IN ({})",
                    description(spec, p).unwrap_or_default()
                )),
                PartitionValues::None => {}
            }
            if !p.comment.is_empty() {
                s.push_str(&format!(" COMMENT = {}", quote_str(&p.comment)));
            }
            s.push_str(&format!(" ENGINE = {engine}"));
            s
        })
        .collect();
    out.push_str(&format!("\n({})", parts.join(",\n ")));
    out
}
