//! The one place in front of sqlparser: statement splitting, the plan-cache key,
//! rewrites of MySQL syntax sqlparser 0.64 lacks, and the statements we parse
//! ourselves.
//!
//! For each statement text [`analyze`] decides among three routes:
//! - [`Front::Native`]: statements with a fixed, simple grammar that sqlparser gets
//!   wrong or lacks (every SHOW, `PREPARE .. FROM`, `EXECUTE`, `DEALLOCATE`,
//!   transaction control, `SET [GLOBAL] TRANSACTION`, `SET CHARACTER SET`, `USE`).
//! - [`Front::Cached`]: SELECT / INSERT / UPDATE / DELETE / REPLACE. Literals are
//!   replaced by `?` in `parse_text` and by a typed marker in `key`; their values
//!   go to `params`. The session looks `key` up in the plan cache and only parses
//!   `parse_text` on a miss.
//! - [`Front::Bulk`]: multi-row INSERT / REPLACE whose rows have one shape, planned
//!   once per shape whatever the row count (see [`bulk`]).
//! - [`Front::Parse`]: everything else, parsed from the (rewritten) text.
//!
//! Rewrites (the only ones): `LOCK IN SHARE MODE` becomes `FOR SHARE`, infix `MOD`
//! becomes `%`, and `||` becomes `OR` unless PIPES_AS_CONCAT is on (sqlparser
//! gives `||` the precedence of string concatenation, so `0 = 1 || 1` would parse
//! as `0 = (1 || 1)`).

pub mod bulk;
pub mod column_words;
pub mod compound;
pub mod dml_rewrite;
pub mod lexer;
#[cfg(test)]
mod mutations;
pub mod native;
mod operators;
pub mod parse;
pub mod returning;
mod sequence;
pub mod transcode;
mod units;

use basalt_common::{Decimal, MySqlError, Value};
use lexer::{rare, NumKind, TokKind, Token};
pub use native::Native;
use std::borrow::Cow;

/// The version MySQL-style executable comments (`/*!50003 ... */`) are compared
/// with: their content runs when its version is at most this (MariaDB 10.11).
const EXEC_COMMENT_VERSION: u32 = 101199;

/// Replaces executable comments by their content (or nothing, when the content
/// needs a newer server), as MariaDB does before parsing, in statement bytes of
/// any client character set. Text without them is returned as is.
pub fn unwrap_exec_comments_bytes(b: &[u8]) -> Cow<'_, [u8]> {
    if !has_exec_comment(b) {
        return Cow::Borrowed(b);
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == b'\\' && i + 1 < b.len() {
                out.extend_from_slice(&b[i..i + 2]);
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
        } else if c == b'\'' || c == b'"' || c == b'`' {
            quote = Some(c);
        } else if b[i..].starts_with(b"/*!") || b[i..].starts_with(b"/*M!") {
            let start = i + if b[i + 2] == b'M' { 4 } else { 3 };
            let digits = b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
            let version: u32 = std::str::from_utf8(&b[start..start + digits])
                .ok()
                .and_then(|d| d.parse().ok())
                .unwrap_or(0);
            let body_start = start + digits;
            let end = find(&b[body_start..], b"*/").map_or(b.len(), |p| body_start + p);
            out.push(b' ');
            if version <= EXEC_COMMENT_VERSION {
                out.extend_from_slice(&b[body_start..end]);
                out.push(b' ');
            }
            i = (end + 2).min(b.len());
            continue;
        }
        out.push(c);
        i += 1;
    }
    Cow::Owned(out)
}

/// True when `b` has `/*!` or `/*M!` (one scan for `/`, the usual text has none).
fn has_exec_comment(b: &[u8]) -> bool {
    let mut rest = b;
    while let Some(p) = rest.iter().position(|&c| c == b'/') {
        let after = &rest[p + 1..];
        if after.starts_with(b"*!") || after.starts_with(b"*M!") {
            return true;
        }
        rest = after;
    }
    false
}

/// Position of `pat` in `b`.
fn find(b: &[u8], pat: &[u8]) -> Option<usize> {
    b.windows(pat.len()).position(|w| w == pat)
}

/// One statement of a (possibly multi-statement) query text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece<'a> {
    pub text: &'a str,
}

/// Splits a query text at top-level semicolons. Empty statements are dropped, so a
/// trailing `;` is harmless; an empty result means the query was empty.
pub fn split(sql: &str) -> Vec<Piece<'_>> {
    let lexed = lexer::lex(sql);
    let mut out = Vec::new();
    let mut start = 0;
    let mut seen = false;
    let toks = &lexed.tokens;
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        i += 1;
        if !seen && t.kind != TokKind::Semi && compound::starts_compound(sql, &toks[i - 1..]) {
            // The statement runs to the `;` after its last END.
            let end = i - 1 + compound::end_of(sql, &toks[i - 1..]);
            let stop = toks.get(end).map_or(sql.len(), |s| s.start);
            out.push(Piece {
                text: sql[t.start..stop].trim(),
            });
            start = toks.get(end).map_or(sql.len(), |s| s.end);
            i = end + 1;
            continue;
        }
        if t.kind == TokKind::Semi {
            if seen {
                out.push(Piece {
                    text: sql[start..t.start].trim(),
                });
            }
            start = t.end;
            seen = false;
        } else {
            seen = true;
        }
    }
    if seen {
        out.push(Piece {
            text: sql[start..].trim(),
        });
    }
    out
}

/// Literal-stripped form of a DML statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Stripped<'a> {
    /// Plan cache key: the text with each literal replaced by `?` and a kind letter.
    pub key: String,
    /// The literal values, in order.
    pub params: Vec<Value>,
    text: &'a str,
    /// Byte ranges of the stripped literals.
    holes: Vec<(usize, usize)>,
    edits: Vec<Edit>,
}

impl Stripped<'_> {
    /// The statement text as received.
    pub fn text(&self) -> &str {
        self.text
    }

    /// The text sqlparser parses on a cache miss: literals replaced by `?`.
    pub fn parse_text(&self) -> String {
        let mut all: Vec<Edit> = self
            .holes
            .iter()
            .map(|&(start, end)| Edit {
                start,
                end,
                with: "?",
            })
            .collect();
        all.extend(self.edits.iter().cloned());
        all.sort_by_key(|e| (e.start, e.end));
        apply(self.text, &all)
    }

    /// The text with only the rewrites applied (used when the stripped form cannot
    /// be planned generically).
    pub fn original(&self) -> String {
        apply(self.text, &self.edits)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Front<'a> {
    Native(Native),
    Cached(Stripped<'a>),
    Bulk(bulk::BulkInsert<'a>),
    Parse(String),
}

/// How the literals of a statement text are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LitOpts {
    /// Backslash escapes in strings (sql_mode without NO_BACKSLASH_ESCAPES).
    pub backslash: bool,
    /// The text came from [`transcode`]: its literal markers are literals.
    pub markers: bool,
    /// `||` concatenates (sql_mode PIPES_AS_CONCAT) instead of being OR.
    pub pipes_as_concat: bool,
}

impl LitOpts {
    #[cfg(test)]
    pub fn new(backslash: bool, pipes_as_concat: bool) -> Self {
        LitOpts {
            backslash,
            markers: false,
            pipes_as_concat,
        }
    }
}

/// Classifies one statement text (see the module docs).
#[cfg(test)]
pub fn analyze(
    text: &str,
    backslash_escapes: bool,
    pipes_as_concat: bool,
) -> Result<Front<'_>, MySqlError> {
    analyze_with(text, LitOpts::new(backslash_escapes, pipes_as_concat))
}

/// [`analyze`] with the literal options of the session.
pub fn analyze_with(text: &str, opts: LitOpts) -> Result<Front<'_>, MySqlError> {
    let lexed = lexer::lex(text);
    let toks = &lexed.tokens;
    let Some(first) = toks.first() else {
        return Err(MySqlError::empty_query());
    };
    if let Some(n) = native::parse_native(text, toks, opts.markers)? {
        return Ok(Front::Native(n));
    }
    if lexed.rare & rare::INTO != 0 {
        if let Some(n) = native::select_into(text, toks, opts.markers)? {
            return Ok(Front::Native(n));
        }
    }
    if let Some(t) = returning::reorder_delete(text, toks) {
        return t.map(Front::Parse);
    }
    let plain = !lexed.has_exec_comment && !lexed.unterminated && lexed.rare & rare::PARAM == 0;
    if plain {
        if let Some(b) = bulk::bulk_insert(text, toks, opts) {
            // Bulk texts are rewritten without the `||` rule (see `rewrites`).
            if lexed.rare & (rare::PIPES | rare::BANG) == 0 {
                return Ok(Front::Bulk(b));
            }
        }
    }
    let scan = lexed.rare
        & (rare::LOCK
            | rare::MOD
            | rare::PIPES
            | rare::DROP
            | rare::INTERVAL
            | rare::VALUE_FOR
            | rare::EXTRACT
            | rare::CHAR
            | rare::WEIGHT_STRING
            | rare::BIT_NUMBER
            | rare::BANG
            | rare::SOUNDS
            | rare::OJ)
        != 0;
    let edits = rewrites_scanning(text, toks, opts.pipes_as_concat, scan);
    let dml = ["select", "insert", "update", "delete", "replace"]
        .iter()
        .any(|k| first.is_kw(text, k));
    if dml && plain && toks.len() <= 4096 {
        if let Some(s) = strip(text, toks, edits.clone(), opts) {
            return Ok(Front::Cached(s));
        }
    }
    Ok(Front::Parse(apply(text, &edits)))
}

/// A replacement of `text[start..end]`.
#[derive(Debug, Clone, PartialEq)]
struct Edit {
    start: usize,
    end: usize,
    with: &'static str,
}

use operators::{interval_call, mod_is_infix, odbc_outer_join, operand_end};

fn rewrites(text: &str, toks: &[Token], pipes_as_concat: bool) -> Vec<Edit> {
    rewrites_scanning(text, toks, pipes_as_concat, true)
}

/// [`rewrites`]; `scan` false when the lexer saw none of the words and operators
/// the token walk rewrites (`LOCK`, `MOD`, `DROP`, `||`, `NEXT`/`PREVIOUS`), so only the statement's
/// leading words are looked at.
fn rewrites_scanning(text: &str, toks: &[Token], pipes_as_concat: bool, scan: bool) -> Vec<Edit> {
    let mut edits = Vec::new();
    // A SELECT has none of the leading-word rewrites (the common case, kept short).
    let select = toks.first().is_some_and(|t| t.is_kw(text, "select"));
    let ddl = !select
        && toks
            .first()
            .is_some_and(|t| t.is_kw(text, "create") || t.is_kw(text, "alter"));
    if !select {
        leading_rewrites(text, toks, ddl, &mut edits);
    }
    if !scan {
        return edits;
    }
    for (i, t) in toks.iter().enumerate() {
        if ddl && t.is_kw(text, "drop") && toks.get(i + 1).is_some_and(|n| n.is_kw(text, "key")) {
            edits.push(Edit {
                start: toks[i + 1].start,
                end: toks[i + 1].end,
                with: "INDEX",
            });
        }
        let kw = |j: usize, k: &str| toks.get(j).is_some_and(|t| t.is_kw(text, k));
        if t.kind == TokKind::HexOrBit && text[t.start..].starts_with("0b") {
            // 0b0101 is b'0101' (sqlparser reads the former as a name).
            edits.push(Edit {
                start: t.start,
                end: t.start + 2,
                with: "b'",
            });
            edits.push(Edit {
                start: t.end,
                end: t.end,
                with: "'",
            });
        } else if let Some(end) = (t.kind == TokKind::Punct && t.text(text) == "!")
            .then(|| operand_end(text, toks, i + 1))
            .flatten()
        {
            // `!x` is `(NOT x)`: it binds as tightly as unary minus.
            edits.push(Edit {
                start: t.start,
                end: t.end,
                with: "(NOT ",
            });
            edits.push(Edit {
                start: end,
                end,
                with: ")",
            });
        } else if !pipes_as_concat && t.kind == TokKind::Punct && t.text(text) == "||" {
            edits.push(Edit {
                start: t.start,
                end: t.end,
                with: " OR ",
            });
        } else if t.is_kw(text, "lock")
            && kw(i + 1, "in")
            && kw(i + 2, "share")
            && kw(i + 3, "mode")
        {
            edits.push(Edit {
                start: t.start,
                end: toks[i + 3].end,
                with: "FOR SHARE",
            });
        } else if t.is_kw(text, "interval") && interval_call(text, toks, i + 1) {
            // INTERVAL(N, N1, ...) is a function (sqlparser reads an interval).
            edits.push(Edit {
                start: t.start,
                end: t.end,
                with: "`interval()`",
            });
        } else if let Some(raw) = t
            .is_kw(text, "interval")
            .then(|| units::compound_interval(text, toks, i))
            .flatten()
        {
            edits.extend(raw.map(|(start, end, with)| Edit { start, end, with }));
        } else if let Some(raw) = units::extract(text, toks, i) {
            edits.extend(raw.map(|(start, end, with)| Edit { start, end, with }));
        } else if let Some(raw) = units::weight_string(text, toks, i) {
            edits.extend(raw.map(|(start, end, with)| Edit { start, end, with }));
        } else if let Some(raw) = units::cast_charset(text, toks, i) {
            edits.extend(
                raw.into_iter()
                    .map(|(start, end, with)| Edit { start, end, with }),
            );
        } else if let Some(raw) = units::char_using(text, toks, i) {
            edits.extend(raw.map(|(start, end, with)| Edit { start, end, with }));
        } else if let Some((words_end, name_end, with, pad)) = sequence::value_for(text, toks, i) {
            edits.push(Edit {
                start: t.start,
                end: words_end,
                with,
            });
            edits.push(Edit {
                start: words_end,
                end: words_end,
                with: pad,
            });
            edits.push(Edit {
                start: name_end,
                end: name_end,
                with: ")",
            });
        } else if let Some(close) = odbc_outer_join(text, toks, i) {
            // ODBC's `{ OJ table_reference }` is the table reference.
            for k in [i, i + 1, close] {
                edits.push(Edit {
                    start: toks[k].start,
                    end: toks[k].end,
                    with: "",
                });
            }
        } else if t.is_kw(text, "sounds") && kw(i + 1, "like") && !(i > 0 && kw(i - 1, "not")) {
            // `a SOUNDS LIKE b` reads as sqlparser's SIMILAR TO, which the binder
            // takes as SOUNDEX(a) = SOUNDEX(b); a SIMILAR TO written as such is
            // not MariaDB's (a name where an operator must be: 1064).
            edits.push(Edit {
                start: t.start,
                end: t.end,
                with: "SIMILAR",
            });
            edits.push(Edit {
                start: toks[i + 1].start,
                end: toks[i + 1].end,
                with: "TO",
            });
        } else if t.is_kw(text, "similar") && kw(i + 1, "to") {
            edits.push(Edit {
                start: t.start,
                end: t.end,
                with: "`similar`",
            });
        } else if t.is_kw(text, "mod") && mod_is_infix(text, toks, i) {
            edits.push(Edit {
                start: t.start,
                end: t.end,
                with: "%",
            });
        }
    }
    // An insertion comes before a replacement starting where it is.
    edits.sort_by_key(|e| (e.start, e.end));
    edits
}

/// The rewrites of a statement's leading words: `CREATE / ALTER SCHEMA`, `LOCK /
/// UNLOCK TABLE`, `DROP TABLES`, `FLUSH TABLE`, the column attributes of
/// [`column_words`], and the UPDATE / DELETE modifiers and multi-table forms.
fn leading_rewrites(text: &str, toks: &[Token], ddl: bool, edits: &mut Vec<Edit>) {
    if ddl && toks.get(1).is_some_and(|t| t.is_kw(text, "schema")) {
        edits.push(Edit {
            start: toks[1].start,
            end: toks[1].end,
            with: "DATABASE",
        });
    }
    // LOCK TABLE / UNLOCK TABLE / DROP TABLES: MariaDB's other spellings.
    let first = |w: &str| toks.first().is_some_and(|t| t.is_kw(text, w));
    let second = |w: &str| toks.get(1).is_some_and(|t| t.is_kw(text, w));
    let plural = if (first("lock") || first("unlock")) && second("table") {
        Some((1, "TABLES"))
    } else if first("drop") && second("tables") {
        Some((1, "TABLE"))
    } else if first("flush") {
        // FLUSH [NO_WRITE_TO_BINLOG | LOCAL] TABLE ...
        let at = if second("no_write_to_binlog") || second("local") {
            2
        } else {
            1
        };
        toks.get(at)
            .is_some_and(|t| t.is_kw(text, "table"))
            .then_some((at, "TABLES"))
    } else {
        None
    };
    // ROLLBACK WORK TO [SAVEPOINT] s: sqlparser reads it without WORK.
    let third = |w: &str| toks.get(2).is_some_and(|t| t.is_kw(text, w));
    if first("rollback") && second("work") && third("to") {
        edits.push(Edit {
            start: toks[1].start,
            end: toks[1].end,
            with: "",
        });
    }
    if let Some((at, with)) = plural {
        edits.push(Edit {
            start: toks[at].start,
            end: toks[at].end,
            with,
        });
    }
    if ddl {
        let words = column_words::rewrites(text, toks).into_iter();
        edits.extend(words.map(|(start, end, with)| Edit { start, end, with }));
    }
    // UPDATE / DELETE LOW_PRIORITY | QUICK: no effect here (as in MariaDB for
    // transactional tables); sqlparser does not know them, nor IGNORE (see
    // `dml_rewrite`).
    let dml = &toks[dml_rewrite::statement_start(text, toks)..];
    let modifiers = native::dml_modifiers(text, dml);
    for t in &dml[1..=modifiers] {
        let ignore = t.is_kw(text, "ignore");
        edits.push(Edit {
            start: t.start,
            end: t.end,
            with: if ignore {
                dml_rewrite::IGNORE_MARKER
            } else {
                ""
            },
        });
    }
    for r in dml_rewrite::multi_table(text, dml, modifiers + 1) {
        edits.push(Edit {
            start: r.start,
            end: r.end,
            with: r.with,
        });
    }
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for e in edits {
        if e.start < pos {
            // Two rewrites overlap (only in text that cannot parse): the first wins.
            continue;
        }
        out.push_str(&text[pos..e.start]);
        out.push_str(e.with);
        pos = e.end;
    }
    out.push_str(&text[pos..]);
    out
}

/// Builds the stripped form; `None` when a literal sits where stripping would
/// change the meaning (a string after a charset introducer, adjacent strings).
fn strip<'a>(
    text: &'a str,
    toks: &[Token],
    edits: Vec<Edit>,
    opts: LitOpts,
) -> Option<Stripped<'a>> {
    let mut key = String::with_capacity(text.len() + 8);
    let mut params = Vec::new();
    let mut holes = Vec::new();
    let mut pos = 0;
    let mut edit_iter = edits.iter().peekable();
    for (i, t) in toks.iter().enumerate() {
        while edit_iter.peek().is_some_and(|e| t.start >= e.end) {
            edit_iter.next();
        }
        if let Some(e) = edit_iter.peek() {
            if t.start >= e.start {
                if t.start == e.start {
                    key.push_str(&text[pos..e.start]);
                    key.push_str(e.with);
                    pos = e.end;
                }
                continue;
            }
        }
        let lit = if opts.markers && t.kind == TokKind::QuotedIdent {
            marker_literal(text, toks, i)
        } else {
            literal(text, toks, i, opts.backslash)
        };
        let Some((marker, value)) = lit? else {
            continue;
        };
        let end = if t.kind == TokKind::QuotedIdent {
            toks[i + 1].end
        } else {
            t.end
        };
        key.push_str(&text[pos..t.start]);
        key.push('?');
        key.push(marker);
        params.push(value);
        holes.push((t.start, end));
        pos = end;
    }
    key.push_str(&text[pos..]);
    Some(Stripped {
        key,
        params,
        text,
        holes,
        edits,
    })
}

/// `Some(None)`: not a literal; `Some(Some(..))`: a strippable literal; `None`: a
/// literal that must not be stripped (the statement is not cacheable). Literal
/// markers are [`marker_literal`]'s.
#[allow(clippy::option_option)]
fn literal(text: &str, toks: &[Token], i: usize, backslash: bool) -> Option<Option<(char, Value)>> {
    let t = &toks[i];
    match t.kind {
        TokKind::Num(k) => Some(Some(number(t.text(text), k))),
        TokKind::Str => {
            let prev = i.checked_sub(1).map(|p| &toks[p]);
            let next = toks.get(i + 1);
            let introducer = prev.is_some_and(|p| p.kind == TokKind::Word && p.end == t.start);
            let adjacent_str = prev.is_some_and(|p| p.kind == TokKind::Str)
                || next.is_some_and(|n| n.kind == TokKind::Str);
            if introducer || adjacent_str {
                return None;
            }
            if t.text(text).starts_with('"') {
                return Some(None);
            }
            Some(Some((
                's',
                Value::Bytes(lexer::unquote(t.text(text), backslash)),
            )))
        }
        _ => Some(None),
    }
}

/// [`literal`] for the quoted identifier at `i` in transcoded text: a literal marker
/// without introducer is a strippable string, one with an introducer is not
/// strippable, and anything else is no literal.
#[allow(clippy::option_option)]
fn marker_literal(text: &str, toks: &[Token], i: usize) -> Option<Option<(char, Value)>> {
    match transcode::marker_at(text, toks, i) {
        Some((None, bytes)) => Some(Some(('s', Value::Bytes(bytes)))),
        Some((Some(_), _)) => None,
        None => Some(None),
    }
}

/// True for the hex literal of a literal marker (its value belongs to the quoted
/// identifier before it, see [`transcode`]).
fn marker_tail(text: &str, toks: &[Token], i: usize, opts: LitOpts) -> bool {
    opts.markers
        && toks[i].kind == TokKind::HexOrBit
        && i > 0
        && toks[i - 1].kind == TokKind::QuotedIdent
        && toks[i - 1].text(text).starts_with("`_")
}

/// The value of a numeric literal token, with its key marker.
pub fn number(s: &str, kind: NumKind) -> (char, Value) {
    match kind {
        NumKind::Int => match s.parse::<i64>() {
            Ok(v) => ('i', Value::Int(v)),
            Err(_) => ('d', decimal_or_double(s)),
        },
        NumKind::UInt => match s.parse::<u64>() {
            Ok(v) => ('u', Value::UInt(v)),
            Err(_) => ('d', decimal_or_double(s)),
        },
        NumKind::Decimal => ('d', decimal_or_double(s)),
        NumKind::Float => ('f', Value::Double(s.parse().unwrap_or(0.0))),
    }
}

/// An exact-value literal is a DECIMAL when a DECIMAL holds it exactly; otherwise
/// (more digits than DECIMAL keeps) a DOUBLE, parsed from the text once so that
/// it is correctly rounded.
fn decimal_or_double(s: &str) -> Value {
    let frac = s.split_once('.').map_or("", |(_, f)| f);
    let exact = frac.len() <= basalt_common::decimal::MAX_SCALE as usize
        || frac
            .bytes()
            .skip(basalt_common::decimal::MAX_SCALE as usize)
            .all(|b| b == b'0');
    match Decimal::parse(s).filter(|_| exact) {
        Some(d) => Value::Decimal(d),
        None => Value::Double(s.parse().unwrap_or(0.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unwrap_exec_comments(s: &str) -> String {
        String::from_utf8(unwrap_exec_comments_bytes(s.as_bytes()).into_owned()).expect("utf8")
    }

    #[test]
    fn decimal_literals_beyond_decimal_scale_are_doubles() {
        let lit = "0.0000000000000000037397421519422";
        let want: f64 = lit.parse().expect("float");
        assert_eq!(number(lit, NumKind::Decimal).1, Value::Double(want));
        assert!(matches!(
            number("98.20363932880133", NumKind::Decimal).1,
            Value::Decimal(_)
        ));
        let trailing_zeros = "0.100000000000000000000000000000000";
        assert!(matches!(
            number(trailing_zeros, NumKind::Decimal).1,
            Value::Decimal(_)
        ));
    }

    #[test]
    fn executable_comments() {
        assert_eq!(unwrap_exec_comments("select 1"), "select 1");
        assert_eq!(
            unwrap_exec_comments("/*!40101 SET @a = 1 */").trim(),
            "SET @a = 1"
        );
        assert_eq!(
            unwrap_exec_comments("select /*!999999 nope */ 1").trim(),
            "select   1"
        );
        assert_eq!(
            unwrap_exec_comments("select '/*!1 x */'"),
            "select '/*!1 x */'"
        );
    }

    #[test]
    fn split_statements() {
        let p = split("select 1; select ';' ;  ; select 3;");
        let texts: Vec<&str> = p.iter().map(|p| p.text).collect();
        assert_eq!(texts, vec!["select 1", "select ';'", "select 3"]);
        assert!(split("  ;  ").is_empty());
    }

    #[test]
    fn strips_literals() {
        let Front::Cached(s) = analyze("select j from foo where i = 100", true, false).expect("ok")
        else {
            panic!("cached expected");
        };
        assert_eq!(s.key, "select j from foo where i = ?i");
        assert_eq!(s.parse_text(), "select j from foo where i = ?");
        assert_eq!(s.params, vec![Value::Int(100)]);
        let Front::Cached(s2) = analyze("select j from foo where i = 7", true, false).expect("ok")
        else {
            panic!("cached expected");
        };
        assert_eq!(s.key, s2.key);
    }

    #[test]
    fn kinds_differ_in_key() {
        let k = |q: &str| match analyze(q, true, false).expect("ok") {
            Front::Cached(s) => s.key,
            other => panic!("{other:?}"),
        };
        assert_ne!(
            k("select a from t where a = 1"),
            k("select a from t where a = '1'")
        );
        assert_ne!(
            k("select a from t where a = 1"),
            k("select a from t where a = 1.0")
        );
    }

    #[test]
    fn lock_in_share_mode_rewritten() {
        let Front::Cached(s) = analyze(
            "select a from t where a = 1 lock in share mode",
            true,
            false,
        )
        .expect("ok") else {
            panic!("cached expected");
        };
        assert_eq!(s.parse_text(), "select a from t where a = ? FOR SHARE");
        let f = analyze("select a mod 2 from t", true, false).expect("ok");
        let Front::Cached(s) = f else { panic!() };
        assert_eq!(s.parse_text(), "select a % ? from t");
        for (text, parsed) in [
            ("select a mod (-4) from t", "select a % (-?) from t"),
            (
                "select t.id mod (2), id mod (2) from t",
                "select t.id % (?), id % (?) from t",
            ),
            (
                "select 1.5 mod (2), (a) mod (2) from t",
                "select ? % (?), (a) % (?) from t",
            ),
            (
                "select mod(a, 2) from t where mod(a, 3)",
                "select mod(a, ?) from t where mod(a, ?)",
            ),
        ] {
            let Front::Cached(s) = analyze(text, true, false).expect("ok") else {
                panic!("cached expected");
            };
            assert_eq!(s.parse_text(), parsed, "{text}");
        }
    }

    #[test]
    fn literal_markers_strip_only_in_transcoded_text() {
        let on = LitOpts {
            backslash: true,
            markers: true,
            pipes_as_concat: false,
        };
        let text = "insert into t values (1, `_`X'FF00')";
        let Front::Cached(s) = analyze_with(text, on).expect("ok") else {
            panic!("cached expected");
        };
        assert_eq!(s.params, vec![Value::Int(1), Value::Bytes(vec![0xff, 0])]);
        let Front::Cached(plain) =
            analyze("insert into t values (2, 'x')", true, false).expect("ok")
        else {
            panic!("cached expected");
        };
        assert_eq!(s.key, plain.key, "a marker is keyed as a string literal");
        assert_eq!(s.parse_text(), "insert into t values (?, ?)");
        // Not transcoded: a quoted identifier and a hex literal, kept in the key.
        let Front::Cached(s) = analyze(text, true, false).expect("ok") else {
            panic!("cached expected");
        };
        assert!(s.key.contains("`_`X'FF00'"), "{}", s.key);
        // Rows of markers are one shape; an introduced marker is not strippable.
        let rows = "insert into t values (1, `_`X'FF'), (2, `_`X'FE01')";
        assert!(matches!(analyze_with(rows, on), Ok(Front::Bulk(b)) if b.rows == 2));
        let intro = "insert into t values (1, `_latin1`X'C3A9')";
        assert!(matches!(analyze_with(intro, on), Ok(Front::Parse(_))));
    }

    #[test]
    fn weight_string_as_char_and_as_binary() {
        let text = "select hex(weight_string('ab' as char(3))), 'é' like 'e', \
                    hex(weight_string('ßa' collate utf8mb4_bin as binary(5)))";
        let Front::Cached(s) = analyze(text, true, false).expect("ok") else {
            panic!("cached expected");
        };
        assert_eq!(
            s.parse_text(),
            "select hex(`weight_string as char`(? ,?)), ? like ?, \
             hex(WEIGHT_STRING(CAST(? collate utf8mb4_bin as binary(?))))"
        );
        let text = "create table t as select weight_string(a as binary(2)) from u";
        let Front::Parse(p) = analyze(text, true, false).expect("ok") else {
            panic!("parse expected");
        };
        assert_eq!(
            p,
            "create table t as select WEIGHT_STRING(CAST(a as binary(2))) from u"
        );
    }

    #[test]
    fn double_pipe_is_or_unless_pipes_as_concat() {
        let Front::Cached(s) =
            analyze("select a from t where a = 0 || a = 1", true, false).expect("ok")
        else {
            panic!("cached expected");
        };
        assert_eq!(s.parse_text(), "select a from t where a = ?  OR  a = ?");
        let Front::Cached(s) = analyze("select a || 'x' from t", true, true).expect("ok") else {
            panic!("cached expected");
        };
        assert_eq!(s.parse_text(), "select a || ? from t");
    }

    #[test]
    fn introducer_not_stripped() {
        assert!(matches!(
            analyze("select _utf8mb4'x'", true, false).expect("ok"),
            Front::Parse(_)
        ));
        assert!(matches!(
            analyze("select 'a' 'b'", true, false).expect("ok"),
            Front::Parse(_)
        ));
    }
}

#[cfg(test)]
mod speed;
