//! JSON_SEARCH(doc, 'one'|'all', pattern[, escape[, path ...]]): the paths of the
//! string values that match a LIKE pattern, in document order, as MariaDB
//! prints them (`$.a`, `$.b[0]`, keys that are not identifiers quoted). One path
//! is returned as a JSON string, several as an array of them; no match is NULL.

use super::json_fn::{path, Kind, Warn};
use super::json_tree::{self as jt, Json, V};
use crate::expr::R;
use crate::value::to_bytes;
use basalt_common::{Collation, Value};

fn key_part(k: &str) -> String {
    let plain = !k.is_empty()
        && k.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    if plain {
        format!(".{k}")
    } else {
        format!(".\"{k}\"")
    }
}

fn walk(j: &Json, at: &mut String, pat: &[u8], esc: Option<u8>, all: bool, out: &mut Vec<String>) {
    if !all && !out.is_empty() {
        return;
    }
    match &j.v {
        V::Str(s) => {
            let text = jt::unescape(s);
            if crate::expr::like::matches(text.as_bytes(), pat, esc, Collation::Utf8mb4GeneralCi) {
                out.push(at.clone());
            }
        }
        V::Arr(items) => {
            for (i, x) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("[{i}]"));
                walk(x, at, pat, esc, all, out);
                at.truncate(len);
            }
        }
        V::Obj(members) => {
            for (k, x) in members {
                let len = at.len();
                at.push_str(&key_part(k));
                walk(x, at, pat, esc, all, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

pub fn search(d: &Json, vals: &[Value], ctx: Warn) -> R {
    if vals[1].is_null() || vals[2].is_null() {
        return Ok(Value::Null);
    }
    let mode = String::from_utf8_lossy(&to_bytes(&vals[1])).to_ascii_lowercase();
    let all = match mode.as_str() {
        "all" => true,
        "one" => false,
        _ => {
            ctx.warn(
                4046,
                "Argument 2 to function 'json_search' must be \"one\" or \"all\".".to_string(),
            );
            return Ok(Value::Null);
        }
    };
    let pat = to_bytes(&vals[2]);
    let esc = match vals.get(3) {
        None | Some(Value::Null) => Some(b'\\'),
        Some(v) => to_bytes(v).first().copied().or(Some(b'\\')),
    };
    let mut found = Vec::new();
    if vals.len() > 4 {
        for i in 4..vals.len() {
            let Some(p) = path(vals, i, Kind::Search, ctx) else {
                return Ok(Value::Null);
            };
            let mut sel = Vec::new();
            jt::select(d, &p.steps, &mut sel);
            for node in sel {
                let mut at = String::from("$");
                walk(node, &mut at, &pat, esc, all, &mut found);
            }
        }
    } else {
        let mut at = String::from("$");
        walk(d, &mut at, &pat, esc, all, &mut found);
    }
    let quoted = |p: &str| Json::new(V::Str(jt::escape(p)));
    Ok(match found.len() {
        0 => Value::Null,
        1 => Value::str(&jt::to_text(&quoted(&found[0]))),
        _ => Value::str(&jt::to_text(&Json::new(V::Arr(
            found.iter().map(|p| quoted(p)).collect(),
        )))),
    })
}
