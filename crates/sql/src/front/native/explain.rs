//! EXPLAIN and ANALYZE of a statement, as MariaDB 10.11's grammar has them:
//!
//! ```text
//! {EXPLAIN | DESCRIBE | DESC} [EXTENDED | PARTITIONS | FORMAT = {JSON | TRADITIONAL}] stmt
//! ANALYZE [FORMAT = {JSON | TRADITIONAL}] stmt
//! stmt: SELECT ... | WITH ... | ( ... | INSERT | REPLACE | UPDATE | DELETE | VALUES
//! ```
//!
//! The statement after the modifiers is kept as text and planned on its own.
//! `EXPLAIN tbl` (DESCRIBE of a table) is not this and goes to sqlparser;
//! `EXPLAIN FOR CONNECTION n` is refused with 1235.

use super::{Native, P, R};
use basalt_common::MySqlError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplainFormat {
    Traditional,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExplainOpts {
    pub format: ExplainFormat,
    /// EXTENDED: the `filtered` column and Note 1003 with the query as read.
    pub extended: bool,
    /// PARTITIONS: the `partitions` column.
    pub partitions: bool,
    /// ANALYZE: the statement runs and what it did is shown beside the plan.
    pub analyze: bool,
}

/// Words an explainable statement starts with.
const STATEMENTS: [&str; 7] = [
    "select", "with", "insert", "replace", "update", "delete", "values",
];

/// `EXPLAIN ...` after its first word; `None` for `EXPLAIN tbl`.
pub(super) fn explain(p: &mut P) -> R<Option<Native>> {
    let mut opts = ExplainOpts {
        format: ExplainFormat::Traditional,
        extended: false,
        partitions: false,
        analyze: false,
    };
    if p.kw("extended") {
        opts.extended = true;
    } else if p.kw("partitions") {
        opts.partitions = true;
    } else if p.kw("for") {
        p.expect_kw("connection")?;
        return Err(MySqlError::not_supported("EXPLAIN FOR CONNECTION"));
    } else if let Some(f) = format(p)? {
        opts.format = f;
    }
    body(
        p,
        opts,
        !(opts.extended || opts.partitions) && opts.format == ExplainFormat::Traditional,
    )
}

/// `ANALYZE ...` after its first word, when it is not ANALYZE TABLE.
pub(super) fn analyze(p: &mut P) -> R<Option<Native>> {
    let mut opts = ExplainOpts {
        format: ExplainFormat::Traditional,
        extended: false,
        partitions: false,
        analyze: true,
    };
    if let Some(f) = format(p)? {
        opts.format = f;
    }
    body(p, opts, false)
}

/// `FORMAT = name` (or a string); 1791 for a name MariaDB does not know.
fn format(p: &mut P) -> R<Option<ExplainFormat>> {
    let at = p.pos;
    if !p.kw("format") {
        return Ok(None);
    }
    if !p.punct("=") {
        // `EXPLAIN format` is DESCRIBE of a table called `format`.
        p.pos = at;
        return Ok(None);
    }
    // A word, a quoted name or a string ('json', "json").
    let name = match p.peek() {
        Some(t) if t.kind == crate::front::lexer::TokKind::Str => {
            String::from_utf8_lossy(&p.string()?).into_owned()
        }
        _ => p.ident()?,
    };
    match name.to_ascii_lowercase().as_str() {
        "json" => Ok(Some(ExplainFormat::Json)),
        "traditional" => Ok(Some(ExplainFormat::Traditional)),
        _ => Err(MySqlError::new(
            1791,
            "HY000",
            format!("Unknown EXPLAIN/ANALYZE format name: '{name}'"),
        )),
    }
}

/// The statement being explained. With `table_ok`, a word that starts no
/// statement is a table name (`EXPLAIN t`), left to the DESCRIBE path.
fn body(p: &mut P, opts: ExplainOpts, table_ok: bool) -> R<Option<Native>> {
    let Some(t) = p.peek() else {
        return Err(p.err());
    };
    let starts = STATEMENTS.iter().any(|k| t.is_kw(p.src, k)) || t.text(p.src) == "(";
    if !starts {
        return if table_ok { Ok(None) } else { Err(p.err()) };
    }
    Ok(Some(Native::Explain {
        opts,
        body: p.src[t.start..].to_string(),
    }))
}
