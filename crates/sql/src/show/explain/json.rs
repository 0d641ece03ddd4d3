//! `EXPLAIN FORMAT=JSON` and `ANALYZE FORMAT=JSON`: the plan as the JSON document
//! MariaDB 10.11 writes, in its member order and layout (two-space indentation,
//! arrays of scalars on one line, numbers as `%.11g`).

use super::table::extra;
use super::tree::{Block, Node, SetNode, TableAccess};
use std::time::Duration;

/// A JSON value.
pub enum J {
    Obj(Vec<(&'static str, J)>),
    Arr(Vec<J>),
    Str(String),
    Int(i64),
    Num(f64),
    Bool(bool),
    Null,
}

impl J {
    fn s(v: impl Into<String>) -> J {
        J::Str(v.into())
    }

    fn strs(v: &[String]) -> J {
        J::Arr(v.iter().map(|x| J::s(x.as_str())).collect())
    }
}

/// The document for a statement's outermost unit; `planning` (ANALYZE only) is
/// how long planning took.
pub fn document(root: &Node, planning: Option<Duration>) -> J {
    let analyze = planning.is_some();
    let mut top = optimization(planning);
    top.push(("query_block", query_block(root, analyze)));
    J::Obj(top)
}

/// ANALYZE's `query_optimization` member.
fn optimization(planning: Option<Duration>) -> Vec<(&'static str, J)> {
    match planning {
        Some(d) => vec![(
            "query_optimization",
            J::Obj(vec![("r_total_time_ms", J::Num(d.as_secs_f64() * 1000.0))]),
        )],
        None => Vec::new(),
    }
}

/// A single-table UPDATE or DELETE: its table access with `update` / `delete`
/// and no `filtered`, as MariaDB writes it.
pub fn modify_document(b: &Block, delete: bool, planning: Option<Duration>) -> J {
    let analyze = planning.is_some();
    let t = &b.tables[0];
    let J::Obj(fields) = table(b, t, true, analyze, true) else {
        return J::Obj(Vec::new());
    };
    let mut m = vec![(if delete { "delete" } else { "update" }, J::Int(1))];
    m.extend(fields.into_iter().filter(|(k, _)| *k != "filtered"));
    let mut top = optimization(planning);
    top.push((
        "query_block",
        J::Obj(vec![
            ("select_id", J::Int(b.id as i64)),
            ("table", J::Obj(m)),
        ]),
    ));
    J::Obj(top)
}

/// INSERT ... VALUES: the table it writes.
pub fn insert_document(table: &str) -> J {
    J::Obj(vec![(
        "query_block",
        J::Obj(vec![
            ("select_id", J::Int(1)),
            ("table", J::Obj(vec![("table_name", J::s(table))])),
        ]),
    )])
}

fn query_block(node: &Node, analyze: bool) -> J {
    match node {
        Node::Block(b) => block(b, analyze),
        Node::Set(s) => set(s, analyze, false),
    }
}

fn set(s: &SetNode, analyze: bool, recursive: bool) -> J {
    let mut m = Vec::new();
    if let Some(r) = &s.result {
        m.push(("table_name", J::s(r.table.as_str())));
        m.push(("access_type", J::s("ALL")));
        if analyze {
            let rows = r.r_rows.filter(|_| !recursive).map_or(J::Null, J::Num);
            m.push(("r_rows", rows));
        }
    }
    let specs = s
        .members
        .iter()
        .map(|b| J::Obj(vec![("query_block", block(b, analyze))]))
        .collect();
    m.push(("query_specifications", J::Arr(specs)));
    let name = if recursive {
        "recursive_union"
    } else {
        "union_result"
    };
    J::Obj(vec![(name, J::Obj(m))])
}

fn block(b: &Block, analyze: bool) -> J {
    let mut m: Vec<(&'static str, J)> = vec![("select_id", J::Int(b.id as i64))];
    if let Some(op) = b.operation {
        m.push(("operation", J::s(op)));
    }
    if let Some(msg) = b.message {
        m.push(("table", J::Obj(vec![("message", J::s(msg))])));
    } else {
        let loop_ = J::Arr(
            b.tables
                .iter()
                .enumerate()
                .map(|(i, t)| level(b, t, i == 0, analyze))
                .collect(),
        );
        let (key, body) = wrapped(b, loop_);
        m.push((key, body));
    }
    if !b.children.is_empty() {
        let subs = b.children.iter().map(|c| subquery(c, analyze)).collect();
        m.push(("subqueries", J::Arr(subs)));
    }
    J::Obj(m)
}

/// One element of `subqueries`; a correlated one inside its `expression_cache`.
fn subquery(c: &Node, analyze: bool) -> J {
    let block = J::Obj(vec![("query_block", query_block(c, analyze))]);
    let cache = match c {
        Node::Block(b) => b.cache,
        Node::Set(s) => s.members.first().and_then(|b| b.cache),
    };
    let Some(stats) = cache else {
        return block;
    };
    let J::Obj(inner) = block else {
        return block;
    };
    let mut m = match stats {
        Some((lookups, hits)) => {
            let ratio = if lookups == 0 {
                0.0
            } else {
                hits as f64 * 100.0 / lookups as f64
            };
            vec![
                ("r_loops", J::Int(lookups as i64)),
                ("r_hit_ratio", J::Num(ratio)),
            ]
        }
        None => vec![("state", J::s("uninitialized"))],
    };
    m.extend(inner);
    J::Obj(vec![("expression_cache", J::Obj(m))])
}

/// The join loop inside what sorts or collects its rows.
fn wrapped(b: &Block, nested_loop: J) -> (&'static str, J) {
    let temp = |inner: J| J::Obj(vec![("nested_loop", inner)]);
    if let Some(sorts) = &b.window {
        let mut w = Vec::new();
        if !sorts.is_empty() {
            let sorts = sorts
                .iter()
                .map(|k| {
                    let key = J::Obj(vec![("sort_key", J::s(k.as_str()))]);
                    J::Obj(vec![("filesort", key)])
                })
                .collect();
            w.push(("sorts", J::Arr(sorts)));
        }
        w.push(("temporary_table", temp(nested_loop)));
        return ("window_functions_computation", J::Obj(w));
    }
    match (&b.filesort, b.temporary || b.tables.len() > 1) {
        (Some(k), true) => (
            "filesort",
            J::Obj(vec![
                ("sort_key", J::s(k.as_str())),
                ("temporary_table", temp(nested_loop)),
            ]),
        ),
        (Some(k), false) => {
            // One table sorted on its own: the sort reads the table.
            let J::Arr(mut items) = nested_loop else {
                return ("nested_loop", nested_loop);
            };
            let table = items.pop().unwrap_or(J::Obj(Vec::new()));
            let inner = match table {
                J::Obj(mut fields) if !fields.is_empty() => fields.remove(0).1,
                other => other,
            };
            let sorted = J::Obj(vec![(
                "read_sorted_file",
                J::Obj(vec![(
                    "filesort",
                    J::Obj(vec![("sort_key", J::s(k.as_str())), ("table", inner)]),
                )]),
            )]);
            ("nested_loop", J::Arr(vec![sorted]))
        }
        (None, true) if b.temporary => ("temporary_table", temp(nested_loop)),
        _ => ("nested_loop", nested_loop),
    }
}

/// One element of `nested_loop`: `{"table": ...}`, or `{"block-nl-join": ...}`
/// for a hash-joined level.
fn level(b: &Block, t: &TableAccess, first: bool, analyze: bool) -> J {
    let table = table(b, t, first, analyze, !t.hash);
    if !t.hash {
        return J::Obj(vec![("table", table)]);
    }
    let mut m = vec![
        ("table", table),
        ("buffer_type", J::s("flat")),
        ("join_type", J::s("BNLH")),
    ];
    if let Some(c) = &t.condition {
        m.push(("attached_condition", J::s(c.as_str())));
    }
    J::Obj(vec![("block-nl-join", J::Obj(m))])
}

fn table(b: &Block, t: &TableAccess, first: bool, analyze: bool, with_condition: bool) -> J {
    let mut m = vec![("table_name", J::s(t.name.as_str()))];
    if let Some(p) = &t.partitions {
        m.push(("partitions", J::strs(p)));
    }
    m.push(("access_type", J::s(t.access_type)));
    if !t.possible_keys.is_empty() {
        m.push(("possible_keys", J::strs(&t.possible_keys)));
    }
    if let Some(k) = &t.key {
        m.push(("key", J::s(k.as_str())));
    }
    if let Some(l) = t.key_len {
        m.push(("key_length", J::s(l.to_string())));
    }
    if !t.used_key_parts.is_empty() {
        m.push(("used_key_parts", J::strs(&t.used_key_parts)));
    }
    if !t.refs.is_empty() {
        m.push(("ref", J::strs(&t.refs)));
    }
    if analyze {
        m.push(("r_loops", J::Int(t.stats.map_or(0, |s| s.loops as i64))));
    }
    m.push(("rows", J::Int(t.rows as i64)));
    if analyze {
        match t.stats {
            Some(s) => {
                m.push(("r_rows", J::Num(s.rows_per_loop())));
                m.push(("r_table_time_ms", J::Num(s.time.as_secs_f64() * 1000.0)));
            }
            None => m.push(("r_rows", J::Null)),
        }
    }
    m.push(("filtered", J::Num(100.0)));
    if analyze {
        m.push((
            "r_filtered",
            t.stats.map_or(J::Null, |s| J::Num(s.filtered())),
        ));
    }
    if with_condition {
        if let Some(c) = &t.condition {
            m.push(("attached_condition", J::s(c.as_str())));
        }
    }
    if extra(b, t, first).contains(&"Using index") {
        m.push(("using_index", J::Bool(true)));
    }
    if let Some(d) = &t.materialized {
        let inner = match d.as_ref() {
            Node::Set(s) if is_recursive(s) => set(s, analyze, true),
            other => query_block(other, analyze),
        };
        m.push(("materialized", J::Obj(vec![("query_block", inner)])));
    }
    J::Obj(m)
}

fn is_recursive(s: &SetNode) -> bool {
    s.members.iter().any(|b| b.select_type == "RECURSIVE UNION")
}

/// The document as text.
pub fn render(j: &J) -> String {
    let mut out = String::new();
    write(j, 0, &mut out);
    out
}

fn write(j: &J, depth: usize, out: &mut String) {
    match j {
        J::Obj(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                indent(depth + 1, out);
                string(k, out);
                out.push_str(": ");
                write(v, depth + 1, out);
            }
            if !members.is_empty() {
                out.push('\n');
                indent(depth, out);
            }
            out.push('}');
        }
        J::Arr(items) if items.iter().all(scalar) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(v, depth, out);
            }
            out.push(']');
        }
        J::Arr(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                indent(depth + 1, out);
                write(v, depth + 1, out);
            }
            out.push('\n');
            indent(depth, out);
            out.push(']');
        }
        J::Str(s) => string(s, out),
        J::Int(i) => out.push_str(&i.to_string()),
        J::Num(x) => out.push_str(&g11(*x)),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Null => out.push_str("null"),
    }
}

fn scalar(j: &J) -> bool {
    !matches!(j, J::Obj(_) | J::Arr(_))
}

fn indent(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `%.11g`: eleven significant digits, trailing zeros dropped.
fn g11(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let exp = x.abs().log10().floor() as i32;
    if !(-5..11).contains(&exp) {
        let s = format!("{:.10e}", x);
        let (mant, e) = s.split_once('e').unwrap_or((&s, "0"));
        let mant = trim_zeros(mant);
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (10 - exp).max(0) as usize;
    trim_zeros(&format!("{x:.decimals$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_percent_11g() {
        assert_eq!(g11(100.0), "100");
        assert_eq!(g11(66.66666666666667), "66.666666667");
        assert_eq!(g11(0.023275583), "0.023275583");
        assert_eq!(g11(2.5), "2.5");
        assert_eq!(g11(0.0), "0");
        assert_eq!(g11(1e-7), "1e-07");
    }

    #[test]
    fn layout_is_mariadbs() {
        let j = J::Obj(vec![
            ("a", J::Int(1)),
            ("b", J::Arr(vec![J::s("x"), J::s("y")])),
            ("c", J::Arr(vec![J::Obj(vec![("d", J::Bool(true))])])),
        ]);
        assert_eq!(
            render(&j),
            "{\n  \"a\": 1,\n  \"b\": [\"x\", \"y\"],\n  \"c\": [\n    {\n      \"d\": true\n    }\n  ]\n}"
        );
    }
}
