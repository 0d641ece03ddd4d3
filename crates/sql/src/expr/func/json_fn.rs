//! The JSON functions of MariaDB 10.11 (JSON_VALID lives in `mod.rs`).
//!
//! Documents are read into [`json_tree::Json`] trees; functions that build or
//! change a document print it in MariaDB's form (`{"a": 1, "b": [1, 2]}`), while
//! JSON_QUERY and JSON_VALUE return the selected text as written. An invalid
//! document or path gives NULL with MariaDB's warning (4038.., 4042) naming the
//! function and argument. An argument that is itself the result of a JSON
//! function is embedded as JSON by the builders (JSON_OBJECT, JSON_ARRAY,
//! JSON_SET, ...); any other string is embedded as a JSON string. The binder
//! records which arguments are JSON in [`JsonFn::json_args`].

use super::json_tree::{self as jt, Json, Path, Step, V};
use crate::expr::{EvalCtx, Expr, R};
use crate::ty::{Class, ExprType};
use crate::value::to_bytes;
use basalt_common::{Collation, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Extract,
    Unquote,
    Quote,
    Object,
    Array,
    Set,
    Insert,
    Replace,
    Remove,
    ArrayAppend,
    ArrayInsert,
    Contains,
    ContainsPath,
    Keys,
    Length,
    Depth,
    Type,
    ValueOf,
    Query,
    Exists,
    Equals,
    Normalize,
    Compact,
    MergePatch,
    MergePreserve,
    Search,
    Overlaps,
    Loose,
    /// JSON_DETAILED / JSON_PRETTY.
    Detailed,
    /// JSON_ARRAYAGG's per-row text and result (internal, not callable by name).
    ToJson,
    WrapArray,
    /// JSON_OBJECTAGG's per-row member and result.
    Member,
    WrapObject,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonFn {
    pub kind: Kind,
    /// Bit i set: argument i is the result of a JSON function.
    pub json_args: u64,
}

pub fn lookup(name: &str) -> Option<(JsonFn, usize, usize)> {
    use Kind::*;
    let many = usize::MAX;
    let (kind, lo, hi) = match name {
        "json_extract" => (Extract, 2, many),
        "json_unquote" => (Unquote, 1, 1),
        "json_quote" => (Quote, 1, 1),
        "json_object" => (Object, 0, many),
        "json_array" => (Array, 0, many),
        "json_set" => (Set, 3, many),
        "json_insert" => (Insert, 3, many),
        "json_replace" => (Replace, 3, many),
        "json_remove" => (Remove, 2, many),
        "json_array_append" => (ArrayAppend, 3, many),
        "json_array_insert" => (ArrayInsert, 3, many),
        "json_contains" => (Contains, 2, 3),
        "json_contains_path" => (ContainsPath, 3, many),
        "json_keys" => (Keys, 1, 2),
        "json_length" => (Length, 1, 2),
        "json_depth" => (Depth, 1, 1),
        "json_type" => (Type, 1, 1),
        "json_value" => (ValueOf, 2, 2),
        "json_query" => (Query, 2, 2),
        "json_exists" => (Exists, 2, 2),
        "json_equals" => (Equals, 2, 2),
        "json_normalize" => (Normalize, 1, 1),
        "json_compact" => (Compact, 1, 1),
        "json_merge_patch" => (MergePatch, 2, many),
        "json_merge_preserve" | "json_merge" => (MergePreserve, 2, many),
        "json_search" => (Search, 3, many),
        "json_overlaps" => (Overlaps, 2, 2),
        "json_loose" => (Loose, 1, 1),
        "json_detailed" | "json_pretty" => (Detailed, 1, 2),
        _ => return None,
    };
    Some((JsonFn { kind, json_args: 0 }, lo, hi))
}

/// Argument-count rules beyond min/max: JSON_OBJECT takes pairs, the setters take
/// a document and pairs.
pub fn check_pairs(f: JsonFn, n: usize) -> bool {
    match f.kind {
        Kind::Object => n.is_multiple_of(2),
        Kind::Set | Kind::Insert | Kind::Replace | Kind::ArrayAppend | Kind::ArrayInsert => {
            n % 2 == 1
        }
        _ => true,
    }
}

/// Whether `f` produces JSON text (so a builder embeds it as JSON).
pub fn produces_json(f: JsonFn) -> bool {
    use Kind::*;
    matches!(
        f.kind,
        Extract
            | Object
            | Array
            | Set
            | Insert
            | Replace
            | Remove
            | ArrayAppend
            | ArrayInsert
            | Keys
            | Query
            | Normalize
            | Compact
            | MergePatch
            | MergePreserve
            | Search
            | Loose
            | Detailed
            | WrapArray
            | WrapObject
    )
}

/// Records which arguments are JSON.
pub fn refine(f: JsonFn, args: &[Expr]) -> JsonFn {
    let mut bits = 0u64;
    for (i, a) in args.iter().enumerate().take(64) {
        if let Expr::Func(super::Func::Json(g), _) = a {
            if produces_json(*g) {
                bits |= 1 << i;
            }
        }
    }
    JsonFn {
        json_args: bits,
        ..f
    }
}

pub fn result_type(f: JsonFn, args: &[ExprType]) -> ExprType {
    use Kind::*;
    let null_first = args.first().is_some_and(|a| a.class == Class::Null);
    let coll = match args
        .iter()
        .find(|a| a.class == Class::String && !a.collation.is_binary())
    {
        // A NULL document gives MariaDB's binary string type.
        _ if null_first && !matches!(f.kind, Kind::Unquote | Kind::Quote) => Collation::Binary,
        Some(a) => a.collation,
        None => Collation::Utf8mb4GeneralCi,
    };
    let total: u32 = args.iter().map(|a| a.len.max(4)).sum();
    let int = |len: u32| ExprType::int(len).nullable(true);
    match f.kind {
        Contains | ContainsPath | Exists | Equals | Overlaps => int(1),
        Length | Depth => ExprType::long(10).nullable(true),
        Type => ExprType::string(12, coll).nullable(true),
        Unquote | ValueOf | Query => ExprType::string(args[0].len, coll).nullable(true),
        Quote => ExprType::string(args[0].len * 6 + 2, coll).nullable(true),
        Compact | Loose => {
            let mut t = ExprType::string(args[0].len, coll).nullable(true);
            t.decimals = 0;
            t
        }
        Detailed => {
            let mut t = ExprType::string(16_777_216, coll).nullable(true);
            t.decimals = 0;
            t.column_type = Some(basalt_common::ColumnType::LongBlob);
            t
        }
        Object | Array => ExprType::string(total * 2 + 4, coll),
        _ => ExprType::string(total * 2 + 4, coll).nullable(true),
    }
}

pub(super) type Warn<'a, 'b> = &'a mut EvalCtx<'b>;

fn name(k: Kind) -> &'static str {
    use Kind::*;
    match k {
        Extract => "json_extract",
        Unquote => "json_unquote",
        Quote => "json_quote",
        Object => "json_object",
        Array => "json_array",
        Set => "json_set",
        Insert => "json_insert",
        Replace => "json_replace",
        Remove => "json_remove",
        ArrayAppend => "json_array_append",
        ArrayInsert => "json_array_insert",
        Contains => "json_contains",
        ContainsPath => "json_contains_path",
        Keys => "json_keys",
        Length => "json_length",
        Depth => "json_depth",
        Type => "json_type",
        ValueOf => "json_value",
        Query => "json_query",
        Exists => "json_exists",
        Equals => "json_equals",
        Normalize => "json_normalize",
        Compact => "json_compact",
        MergePatch => "json_merge_patch",
        MergePreserve => "json_merge_preserve",
        Search => "json_search",
        Overlaps => "json_overlaps",
        Loose => "json_loose",
        Detailed => "json_detailed",
        ToJson | WrapArray => "json_arrayagg",
        Member | WrapObject => "json_objectagg",
    }
}

/// Argument `i` read as a document, or None after MariaDB's warning.
pub(super) fn doc(vals: &[Value], i: usize, k: Kind, ctx: Warn) -> Option<Json> {
    let text = to_bytes(&vals[i]);
    match jt::parse(&text) {
        Ok(j) => Some(j),
        Err((e, pos)) => {
            let (code, msg) = e.note(name(k), i + 1, pos);
            ctx.warn(code, msg);
            None
        }
    }
}

/// Argument `i` read as a path, or None after warning 4042.
pub(super) fn path(vals: &[Value], i: usize, k: Kind, ctx: Warn) -> Option<Path> {
    let text = String::from_utf8_lossy(&to_bytes(&vals[i])).into_owned();
    match jt::parse_path(&text) {
        Ok(p) => Some(p),
        Err(pos) => {
            ctx.warn(
                4042,
                format!(
                    "Syntax error in JSON path in argument {} to function '{}' at position {pos}",
                    i + 1,
                    name(k)
                ),
            );
            None
        }
    }
}

/// A SQL value as a JSON node (JSON arguments parsed, strings quoted).
fn node(v: &Value, is_json: bool) -> Json {
    match v {
        Value::Null => Json::new(V::Null),
        Value::Int(i) => Json::new(V::Num(i.to_string())),
        Value::UInt(u) => Json::new(V::Num(u.to_string())),
        Value::Double(d) => Json::new(V::Num(basalt_common::value::format_double(*d))),
        Value::Decimal(d) => Json::new(V::Num(d.to_string())),
        Value::Bytes(b) if is_json => jt::parse(b)
            .unwrap_or_else(|_| Json::new(V::Str(jt::escape(&String::from_utf8_lossy(b))))),
        other => Json::new(V::Str(jt::escape(&String::from_utf8_lossy(&to_bytes(
            other,
        ))))),
    }
}

fn out(j: &Json) -> Value {
    Value::str(&jt::to_text(j))
}

pub fn eval(f: JsonFn, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    use Kind::*;
    let k = f.kind;
    let is_json = |i: usize| i < 64 && f.json_args & (1 << i) != 0;
    match k {
        Object => {
            let members = vals
                .chunks(2)
                .map(|p| {
                    let key = jt::escape(&String::from_utf8_lossy(&to_bytes(&p[0])));
                    (key, node(&p[1], false))
                })
                .collect::<Vec<_>>();
            let mut members = members;
            for (i, m) in members.iter_mut().enumerate() {
                m.1 = node(&vals[2 * i + 1], is_json(2 * i + 1));
            }
            return Ok(out(&Json::new(V::Obj(members))));
        }
        Array => {
            let items = vals
                .iter()
                .enumerate()
                .map(|(i, v)| node(v, is_json(i)))
                .collect();
            return Ok(out(&Json::new(V::Arr(items))));
        }
        ToJson => return Ok(Value::str(&jt::to_text(&node(&vals[0], is_json(0))))),
        Member => {
            let key = jt::escape(&String::from_utf8_lossy(&to_bytes(&vals[0])));
            let v = node(&vals[1], is_json(1));
            return Ok(Value::str(&format!("\"{key}\":{}", jt::to_text(&v))));
        }
        WrapArray | WrapObject => {
            return Ok(match &vals[0] {
                Value::Null => Value::Null,
                v => {
                    let (open, close) = if k == WrapArray {
                        ('[', ']')
                    } else {
                        ('{', '}')
                    };
                    let mut out = vec![open as u8];
                    out.extend_from_slice(&to_bytes(v));
                    out.push(close as u8);
                    Value::Bytes(out)
                }
            })
        }
        Quote => {
            return Ok(match &vals[0] {
                Value::Bytes(b) => {
                    Value::str(&format!("\"{}\"", jt::escape(&String::from_utf8_lossy(b))))
                }
                _ => Value::Null,
            })
        }
        _ => {}
    }
    if vals[0].is_null() {
        return Ok(Value::Null);
    }
    if k == Unquote {
        return Ok(unquote(&vals[0], ctx));
    }
    let tab = match vals.get(1) {
        Some(v) if k == Detailed && v.is_null() => return Ok(Value::Null),
        Some(v) if k == Detailed => crate::expr::cast::val_int(v, ctx),
        _ => 4,
    };
    let Some(mut d) = doc(&vals, 0, k, ctx) else {
        return Ok(Value::Null);
    };
    Ok(match k {
        Extract => extract(&d, &vals, ctx)?,
        Set | Insert | Replace | ArrayAppend | ArrayInsert => {
            for i in (1..vals.len()).step_by(2) {
                if vals[i].is_null() {
                    return Ok(Value::Null);
                }
                let Some(p) = path(&vals, i, k, ctx) else {
                    return Ok(Value::Null);
                };
                if p.has_wildcard() {
                    return Ok(wildcard(i, k, ctx));
                }
                let v = node(&vals[i + 1], is_json(i + 1));
                change(&mut d, &p.steps, v, k);
            }
            out(&d)
        }
        Remove => {
            for i in 1..vals.len() {
                let Some(p) = path(&vals, i, k, ctx) else {
                    return Ok(Value::Null);
                };
                if p.steps.is_empty() {
                    ctx.warn(
                        4051,
                        format!(
                            "Path expression '$' is not allowed in argument {} to function 'json_remove'.",
                            i + 1
                        ),
                    );
                    return Ok(Value::Null);
                }
                if p.has_wildcard() {
                    return Ok(wildcard(i, k, ctx));
                }
                remove(&mut d, &p.steps);
            }
            out(&d)
        }
        Contains => {
            if vals[1].is_null() {
                return Ok(Value::Null);
            }
            let Some(cand) = doc(&vals, 1, k, ctx) else {
                return Ok(Value::Null);
            };
            let target = match vals.get(2) {
                Some(_) => match at_path(&d, &vals, 2, k, ctx) {
                    Some(Some(t)) => t,
                    Some(None) => return Ok(Value::Int(0)),
                    None => return Ok(Value::Null),
                },
                None => d,
            };
            Value::Int(jt::contains(&target, &cand) as i64)
        }
        ContainsPath => {
            let mode = String::from_utf8_lossy(&to_bytes(&vals[1])).to_ascii_lowercase();
            let all = match mode.as_str() {
                "all" => true,
                "one" => false,
                _ => {
                    ctx.warn(
                        4046,
                        "Argument 2 to function 'json_contains_path' must be \"one\" or \"all\"."
                            .to_string(),
                    );
                    return Ok(Value::Null);
                }
            };
            let mut found = Vec::new();
            for i in 2..vals.len() {
                let Some(p) = path(&vals, i, k, ctx) else {
                    return Ok(Value::Null);
                };
                let mut sel = Vec::new();
                jt::select(&d, &p.steps, &mut sel);
                found.push(!sel.is_empty());
            }
            Value::Int(if all {
                found.iter().all(|&b| b)
            } else {
                found.iter().any(|&b| b)
            } as i64)
        }
        Keys | Length => {
            let target = match vals.get(1) {
                Some(_) => match at_path(&d, &vals, 1, k, ctx) {
                    Some(Some(t)) => t,
                    _ => return Ok(Value::Null),
                },
                None => d,
            };
            match (&target.v, k) {
                (V::Obj(m), Keys) => {
                    let keys = m
                        .iter()
                        .map(|(k, _)| Json::new(V::Str(k.clone())))
                        .collect();
                    out(&Json::new(V::Arr(keys)))
                }
                (_, Keys) => Value::Null,
                (V::Obj(m), _) => Value::Int(m.len() as i64),
                (V::Arr(a), _) => Value::Int(a.len() as i64),
                _ => Value::Int(1),
            }
        }
        Depth => Value::Int(jt::depth(&d)),
        Type => Value::str(match &d.v {
            V::Obj(_) => "OBJECT",
            V::Arr(_) => "ARRAY",
            V::Null => "NULL",
            V::Bool(_) => "BOOLEAN",
            V::Str(_) => "STRING",
            V::Num(n) if n.contains(['.', 'e', 'E']) => "DOUBLE",
            V::Num(_) => "INTEGER",
        }),
        ValueOf | Query => {
            let text = to_bytes(&vals[0]);
            match at_path(&d, &vals, 1, k, ctx) {
                Some(Some(t)) => match (&t.v, k) {
                    (V::Str(s), ValueOf) => Value::str(&jt::unescape(s)),
                    (V::Null, ValueOf) => Value::Null,
                    (_, ValueOf) if t.is_scalar() => {
                        Value::Bytes(text[t.span.0..t.span.1].to_vec())
                    }
                    (_, Query) if !t.is_scalar() => Value::Bytes(text[t.span.0..t.span.1].to_vec()),
                    _ => Value::Null,
                },
                _ => Value::Null,
            }
        }
        Exists => match at_path(&d, &vals, 1, k, ctx) {
            Some(found) => Value::Int(found.is_some() as i64),
            None => Value::Null,
        },
        Equals => {
            if vals[1].is_null() {
                return Ok(Value::Null);
            }
            match doc(&vals, 1, k, ctx) {
                Some(other) => Value::Int((jt::to_normal(&d) == jt::to_normal(&other)) as i64),
                None => Value::Null,
            }
        }
        Normalize => Value::str(&jt::to_normal(&d)),
        Compact => Value::str(&jt::to_compact(&d)),
        Loose => out(&d),
        Detailed => Value::str(&super::json_pretty::detailed(&d, tab)),
        Overlaps => {
            if vals[1].is_null() {
                return Ok(Value::Null);
            }
            match doc(&vals, 1, k, ctx) {
                Some(other) => Value::Int(overlaps(&d, &other) as i64),
                None => Value::Null,
            }
        }
        Search => super::json_search::search(&d, &vals, ctx)?,
        MergePatch | MergePreserve => {
            for i in 1..vals.len() {
                if vals[i].is_null() {
                    return Ok(Value::Null);
                }
                let Some(next) = doc(&vals, i, k, ctx) else {
                    return Ok(Value::Null);
                };
                d = if k == MergePatch {
                    merge_patch(d, next)
                } else {
                    merge_preserve(d, next)
                };
            }
            out(&d)
        }
        _ => Value::Null,
    })
}

/// NULL with warning 4044 for a wildcard path where one place is needed.
fn wildcard(i: usize, k: Kind, ctx: Warn) -> Value {
    ctx.warn(
        4044,
        format!(
            "Wildcards or range in JSON path not allowed in argument {} to function '{}'",
            i + 1,
            name(k)
        ),
    );
    Value::Null
}

/// The node at argument `i`'s path: None for a bad path (warned), Some(None)
/// when the path selects nothing.
fn at_path(d: &Json, vals: &[Value], i: usize, k: Kind, ctx: Warn) -> Option<Option<Json>> {
    if vals[i].is_null() {
        return None;
    }
    let p = path(vals, i, k, ctx)?;
    let mut sel = Vec::new();
    jt::select(d, &p.steps, &mut sel);
    Some(sel.first().map(|x| (*x).clone()))
}

fn extract(d: &Json, vals: &[Value], ctx: Warn) -> R {
    let mut found: Vec<&Json> = Vec::new();
    let mut wrap = vals.len() > 2;
    for i in 1..vals.len() {
        if vals[i].is_null() {
            return Ok(Value::Null);
        }
        let Some(p) = path(vals, i, Kind::Extract, ctx) else {
            return Ok(Value::Null);
        };
        wrap |= p.has_wildcard();
        let mut sel = Vec::new();
        jt::select(d, &p.steps, &mut sel);
        found.extend(sel);
    }
    // MariaDB lists what the paths select in document order, each node once.
    found.sort_by_key(|j| j.span.0);
    found.dedup_by_key(|j| j.span);
    Ok(match found.len() {
        0 => Value::Null,
        1 if !wrap => out(found[0]),
        _ => out(&Json::new(V::Arr(found.into_iter().cloned().collect()))),
    })
}

fn unquote(v: &Value, ctx: Warn) -> Value {
    let b = to_bytes(v);
    if b.first() != Some(&b'"') {
        return Value::Bytes(b);
    }
    match jt::parse(&b) {
        Ok(Json { v: V::Str(s), .. }) => Value::str(&jt::unescape(&s)),
        Ok(_) => Value::Bytes(b),
        Err((e, pos)) => {
            let (code, msg) = e.note("json_unquote", 1, pos);
            ctx.warn(code, msg);
            Value::Bytes(b)
        }
    }
}

/// JSON_SET / INSERT / REPLACE / ARRAY_APPEND / ARRAY_INSERT at one path.
fn change(d: &mut Json, steps: &[Step], v: Json, k: Kind) {
    let Some((last, parent_steps)) = steps.split_last() else {
        if matches!(k, Kind::Set | Kind::Replace) {
            *d = v;
        } else if k == Kind::ArrayAppend {
            append(d, v);
        }
        return;
    };
    if k == Kind::ArrayAppend {
        if let Some(t) = jt::get_mut(d, steps) {
            append(t, v);
        }
        return;
    }
    let Some(parent) = jt::get_mut(d, parent_steps) else {
        return;
    };
    if k == Kind::ArrayInsert {
        if let (Step::Index { n, from_end: false }, V::Arr(a)) = (last, &mut parent.v) {
            let at = (*n).min(a.len());
            a.insert(at, v);
        }
        return;
    }
    let exists = jt::get_mut(parent, std::slice::from_ref(last)).is_some();
    if exists {
        if matches!(k, Kind::Set | Kind::Replace) {
            if let Some(t) = jt::get_mut(parent, std::slice::from_ref(last)) {
                *t = v;
            }
        }
        return;
    }
    if k == Kind::Replace {
        return;
    }
    match (last, &mut parent.v) {
        (Step::Key(key), V::Obj(m)) => m.push((key.clone(), v)),
        (Step::Index { .. }, V::Arr(a)) => a.push(v),
        (Step::Index { .. }, _) => {
            let old = std::mem::replace(parent, Json::new(V::Null));
            *parent = Json::new(V::Arr(vec![old, v]));
        }
        _ => {}
    }
}

fn append(t: &mut Json, v: Json) {
    if let V::Arr(a) = &mut t.v {
        a.push(v);
    } else {
        let old = std::mem::replace(t, Json::new(V::Null));
        *t = Json::new(V::Arr(vec![old, v]));
    }
}

fn remove(d: &mut Json, steps: &[Step]) {
    let Some((last, parent_steps)) = steps.split_last() else {
        return;
    };
    let Some(parent) = jt::get_mut(d, parent_steps) else {
        return;
    };
    match (last, &mut parent.v) {
        (Step::Key(key), V::Obj(m)) => m.retain(|(k, _)| k != key && jt::unescape(k) != *key),
        (Step::Index { n, from_end }, V::Arr(a)) => {
            let i = if *from_end {
                a.len().checked_sub(n + 1)
            } else {
                Some(*n)
            };
            if let Some(i) = i.filter(|&i| i < a.len()) {
                a.remove(i);
            }
        }
        _ => {}
    }
}

/// JSON_OVERLAPS: a common element (arrays), a common member (objects), or
/// equality (scalars; a scalar against an array's elements).
fn overlaps(a: &Json, b: &Json) -> bool {
    match (&a.v, &b.v) {
        (V::Arr(x), V::Arr(y)) => x.iter().any(|p| y.iter().any(|q| jt::equal(p, q))),
        (V::Arr(x), _) => x.iter().any(|p| jt::equal(p, b)),
        (_, V::Arr(_)) => overlaps(b, a),
        (V::Obj(x), V::Obj(y)) => x.iter().any(|(k, v)| {
            y.iter()
                .any(|(k2, v2)| jt::unescape(k) == jt::unescape(k2) && jt::equal(v, v2))
        }),
        _ => jt::equal(a, b),
    }
}

/// RFC 7396 merge.
fn merge_patch(target: Json, patch: Json) -> Json {
    let V::Obj(pm) = patch.v else {
        return patch;
    };
    let mut tm = match target.v {
        V::Obj(m) => m,
        _ => Vec::new(),
    };
    for (k, v) in pm {
        let pos = tm.iter().position(|(k2, _)| *k2 == k);
        match (v.v, pos) {
            (V::Null, Some(p)) => {
                tm.remove(p);
            }
            (V::Null, None) => {}
            (pv, Some(p)) => {
                let old = tm[p].1.clone();
                tm[p].1 = merge_patch(old, Json::new(pv));
            }
            (pv, None) => tm.push((k, merge_patch(Json::new(V::Null), Json::new(pv)))),
        }
    }
    Json::new(V::Obj(tm))
}

/// JSON_MERGE_PRESERVE: arrays concatenate, objects merge member-wise, other
/// pairs become an array of both.
fn merge_preserve(a: Json, b: Json) -> Json {
    match (a.v, b.v) {
        (V::Obj(mut x), V::Obj(y)) => {
            for (k, v) in y {
                match x.iter().position(|(k2, _)| *k2 == k) {
                    Some(p) => {
                        let old = x[p].1.clone();
                        x[p].1 = merge_preserve(old, v);
                    }
                    None => x.push((k, v)),
                }
            }
            Json::new(V::Obj(x))
        }
        (av, bv) => {
            let mut items = match av {
                V::Arr(x) => x,
                other => vec![Json::new(other)],
            };
            match bv {
                V::Arr(y) => items.extend(y),
                other => items.push(Json::new(other)),
            }
            Json::new(V::Arr(items))
        }
    }
}
