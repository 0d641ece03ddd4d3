//! Regular expressions: `expr REGEXP pattern` (RLIKE), REGEXP_REPLACE,
//! REGEXP_SUBSTR and REGEXP_INSTR.
//!
//! MariaDB uses PCRE2; Basalt uses the `regex` crate, whose syntax is PCRE's
//! without backreferences inside the pattern and without look-around (such a
//! pattern fails with MariaDB's errno 1139, with the `regex` crate's wording in
//! the message). Matching is case-insensitive when the comparison collation is
//! (`_ci`), as in MariaDB, and case-sensitive for binary and `_bin` operands; the
//! binder decides which and records it in [`RegexpFn`]. In a replacement string
//! `\N` refers to capture group N, as MariaDB's REGEXP_REPLACE has it.
//!
//! Compiled patterns are kept per thread in a small cache keyed by pattern and
//! case mode, so a constant pattern is compiled once per statement, not per row.

use crate::expr::{EvalCtx, R};
use crate::ty::{Class, ExprType};
use crate::value::to_bytes;
use basalt_common::{Collation, ColumnType, MySqlError, Value};
use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Like,
    Replace,
    Substr,
    Instr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegexpFn {
    pub kind: Kind,
    /// Case-insensitive matching (the collation of the operands is `_ci`).
    pub ci: bool,
}

pub fn lookup(name: &str) -> Option<(RegexpFn, usize, usize)> {
    let kind = match name {
        "regexp_replace" => (Kind::Replace, 3),
        "regexp_substr" => (Kind::Substr, 2),
        "regexp_instr" => (Kind::Instr, 2),
        _ => return None,
    };
    Some((
        RegexpFn {
            kind: kind.0,
            ci: true,
        },
        kind.1,
        kind.1,
    ))
}

/// The case mode for operands of these types: case-sensitive as soon as one
/// string operand is binary or `_bin`.
pub fn refine(f: RegexpFn, args: &[ExprType]) -> RegexpFn {
    let ci = args
        .iter()
        .filter(|a| a.class == Class::String)
        .all(|a| a.collation.name().ends_with("_ci"));
    RegexpFn { ci, ..f }
}

pub fn result_type(f: RegexpFn, args: &[ExprType]) -> ExprType {
    let coll = args
        .iter()
        .find(|a| a.class == Class::String)
        .map_or(Collation::Utf8mb4GeneralCi, |a| a.collation);
    let nullable = args.iter().any(|a| a.nullable);
    match f.kind {
        Kind::Like => ExprType::int(1).nullable(nullable),
        Kind::Instr => {
            let mut t = ExprType::int(11).nullable(nullable);
            t.column_type = Some(ColumnType::Long);
            t
        }
        Kind::Substr => ExprType::string(args[0].len, coll).nullable(true),
        Kind::Replace => {
            let mut t = ExprType::string(16_777_216, coll).nullable(true);
            t.column_type = Some(ColumnType::LongBlob);
            t
        }
    }
}

const CACHE_LIMIT: usize = 64;

thread_local! {
    static CACHE: RefCell<HashMap<(Vec<u8>, bool), regex::Regex>> = RefCell::new(HashMap::new());
}

fn compile(pattern: &[u8], ci: bool) -> Result<regex::Regex, MySqlError> {
    let key = (pattern.to_vec(), ci);
    if let Some(r) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(r);
    }
    let text = String::from_utf8_lossy(pattern);
    let re = regex::RegexBuilder::new(&text)
        .case_insensitive(ci)
        .build()
        .map_err(|e| {
            let msg = e.to_string();
            let first = msg
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .trim_start_matches("error: ");
            MySqlError::new(1139, "42000", format!("Regex error '{first}'"))
        })?;
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(key, re.clone());
    });
    Ok(re)
}

/// `\N` group references of a MariaDB replacement in the `regex` crate's form.
fn replacement(r: &str) -> String {
    let mut out = String::with_capacity(r.len());
    let mut chars = r.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(d) if d.is_ascii_digit() => {
                    out.push_str(&format!("${{{d}}}"));
                    chars.next();
                }
                Some(_) => {
                    if let Some(n) = chars.next() {
                        push_literal(&mut out, n);
                    }
                }
                None => out.push('\\'),
            },
            other => push_literal(&mut out, other),
        }
    }
    out
}

fn push_literal(out: &mut String, c: char) {
    if c == '$' {
        out.push_str("$$");
    } else {
        out.push(c);
    }
}

pub fn eval(f: RegexpFn, vals: Vec<Value>, _ctx: &mut EvalCtx) -> R {
    if vals.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let subject = String::from_utf8_lossy(&to_bytes(&vals[0])).into_owned();
    let re = compile(&to_bytes(&vals[1]), f.ci)?;
    Ok(match f.kind {
        Kind::Like => Value::Int(re.is_match(&subject) as i64),
        Kind::Replace => {
            let rep = replacement(&String::from_utf8_lossy(&to_bytes(&vals[2])));
            Value::str(&re.replace_all(&subject, rep.as_str()))
        }
        Kind::Substr => Value::str(re.find(&subject).map_or("", |m| m.as_str())),
        Kind::Instr => Value::Int(
            re.find(&subject)
                .map_or(0, |m| subject[..m.start()].chars().count() as i64 + 1),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_references_translate() {
        assert_eq!(replacement(r"<\1>"), "<${1}>");
        assert_eq!(replacement("a$b"), "a$$b");
        let re = compile(b"(b)(c)", false).expect("compiles");
        assert_eq!(
            re.replace_all("abcd", replacement(r"\2\1").as_str()),
            "acbd"
        );
    }

    #[test]
    fn bad_pattern_is_1139() {
        let e = compile(b"(a", true).expect_err("unbalanced");
        assert_eq!(e.code, 1139);
    }
}
