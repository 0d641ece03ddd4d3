//! `LOAD DATA`, as MariaDB's grammar has it:
//!
//! ```text
//! LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file'
//!     [REPLACE | IGNORE] INTO TABLE t [PARTITION (p, ...)]
//!     [CHARACTER SET cs]
//!     [{FIELDS | COLUMNS} [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c'] [ESCAPED BY 'c']]
//!     [LINES [STARTING BY 's'] [TERMINATED BY 's']]
//!     [IGNORE n {LINES | ROWS}]
//!     [(col_or_@var, ...)]
//!     [SET col = expr, ...]
//! ```
//!
//! The SET assignments are kept as text: they are bound as an UPDATE's SET list
//! over the target table. `LOAD XML` is refused with 1235.

use super::{user_var_name, Native, P, R};
use crate::exec::textfile::{separator_error, Format};
use crate::front::lexer::TokKind;

/// What a duplicate key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDuplicate {
    Error,
    Replace,
    Ignore,
}

/// Where a field of the file goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadTarget {
    Column(String),
    UserVar(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct LoadData {
    pub local: bool,
    pub file: Vec<u8>,
    pub on_duplicate: OnDuplicate,
    pub db: Option<String>,
    pub table: String,
    pub charset: Option<String>,
    pub format: Format,
    pub ignore_lines: u64,
    /// The field list; `None`: every column in table order.
    pub targets: Option<Vec<LoadTarget>>,
    /// The text after SET.
    pub set: Option<String>,
}

/// Parses a statement starting with LOAD (already consumed).
pub(super) fn load(p: &mut P) -> R<Native> {
    if p.kw("xml") {
        return Ok(Native::Unsupported("LOAD XML"));
    }
    if p.kw("index") {
        return Ok(Native::Unsupported("LOAD INDEX INTO CACHE"));
    }
    p.expect_kw("data")?;
    let _ = p.kw("low_priority") || p.kw("concurrent");
    let local = p.kw("local");
    p.expect_kw("infile")?;
    let file = literal(p)?;
    let on_duplicate = if p.kw("replace") {
        OnDuplicate::Replace
    } else if p.kw("ignore") {
        OnDuplicate::Ignore
    } else {
        OnDuplicate::Error
    };
    p.expect_kw("into")?;
    p.expect_kw("table")?;
    let (db, table) = p.qualified()?;
    if p.kw("partition") {
        return Ok(Native::Unsupported("LOAD DATA ... PARTITION"));
    }
    let charset = if p.kw("character") || p.kw("charset") {
        if p.peek().is_some_and(|t| t.is_kw(p.src, "set")) {
            p.pos += 1;
        }
        Some(p.ident()?.to_ascii_lowercase())
    } else {
        None
    };
    let mut format = Format::default();
    if p.kw("fields") || p.kw("columns") {
        fields_clause(p, &mut format)?;
    }
    if p.kw("lines") {
        lines_clause(p, &mut format)?;
    }
    let ignore_lines = if p.kw("ignore") {
        let n = p.uint()?;
        if !(p.kw("lines") || p.kw("rows")) {
            return Err(p.err());
        }
        n
    } else {
        0
    };
    let targets = if p.punct("(") {
        Some(target_list(p)?)
    } else {
        None
    };
    let set = if p.kw("set") {
        let start = p.peek().map_or(p.src.len(), |t| t.start);
        if start >= p.src.len() {
            return Err(p.err());
        }
        p.pos = p.toks.len();
        Some(
            p.src[start..]
                .trim_end_matches([';', ' ', '\n', '\t', '\r'])
                .to_string(),
        )
    } else {
        None
    };
    p.end()?;
    Ok(Native::LoadData(Box::new(LoadData {
        local,
        file,
        on_duplicate,
        db,
        table,
        charset,
        format,
        ignore_lines,
        targets,
        set,
    })))
}

fn literal(p: &mut P) -> R<Vec<u8>> {
    match p.marker() {
        Some(b) => Ok(b),
        None => p.string(),
    }
}

/// A one-character option (ENCLOSED BY, ESCAPED BY): empty is none.
fn one_char(p: &mut P) -> R<Option<u8>> {
    let s = literal(p)?;
    match s.len() {
        0 => Ok(None),
        1 => Ok(Some(s[0])),
        _ => Err(separator_error()),
    }
}

/// `FIELDS` options (the keyword consumed), shared with SELECT ... INTO OUTFILE.
pub(super) fn fields_clause(p: &mut P, f: &mut Format) -> R<()> {
    let mut any = false;
    loop {
        if p.kw("terminated") {
            p.expect_kw("by")?;
            f.field_end = literal(p)?;
        } else if p.kw("optionally") {
            p.expect_kw("enclosed")?;
            p.expect_kw("by")?;
            f.enclosed = one_char(p)?;
            f.optionally = true;
        } else if p.kw("enclosed") {
            p.expect_kw("by")?;
            f.enclosed = one_char(p)?;
        } else if p.kw("escaped") {
            p.expect_kw("by")?;
            f.escape = one_char(p)?;
        } else if any {
            return Ok(());
        } else {
            return Err(p.err());
        }
        any = true;
    }
}

/// `LINES` options (the keyword consumed).
pub(super) fn lines_clause(p: &mut P, f: &mut Format) -> R<()> {
    let mut any = false;
    loop {
        if p.kw("starting") {
            p.expect_kw("by")?;
            f.line_start = literal(p)?;
        } else if p.kw("terminated") {
            p.expect_kw("by")?;
            f.line_end = literal(p)?;
        } else if any {
            return Ok(());
        } else {
            return Err(p.err());
        }
        any = true;
    }
}

fn target_list(p: &mut P) -> R<Vec<LoadTarget>> {
    let mut out = Vec::new();
    if p.punct(")") {
        return Ok(out);
    }
    loop {
        let t = p.peek().ok_or_else(|| p.err())?;
        if t.kind == TokKind::Var && !t.text(p.src).starts_with("@@") {
            out.push(LoadTarget::UserVar(user_var_name(t.text(p.src))));
            p.pos += 1;
        } else {
            let (_, name) = p.qualified()?;
            out.push(LoadTarget::Column(name));
        }
        if p.punct(")") {
            return Ok(out);
        }
        if !p.punct(",") {
            return Err(p.err());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::lexer::lex;
    use crate::front::native::parse_native;

    fn parse(s: &str) -> LoadData {
        let l = lex(s);
        match parse_native(s, &l.tokens, false) {
            Ok(Some(Native::LoadData(d))) => *d,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn full_statement() {
        let d = parse(
            "LOAD DATA LOCAL INFILE '/tmp/x.csv' REPLACE INTO TABLE db.t CHARACTER SET latin1 \
             FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' \
             LINES STARTING BY '>' TERMINATED BY '\\r\\n' IGNORE 1 LINES (a, @b, `c`) \
             SET d = @b * 2, e = NOW()",
        );
        assert!(d.local);
        assert_eq!(d.file, b"/tmp/x.csv");
        assert_eq!(d.on_duplicate, OnDuplicate::Replace);
        assert_eq!((d.db.as_deref(), d.table.as_str()), (Some("db"), "t"));
        assert_eq!(d.charset.as_deref(), Some("latin1"));
        assert_eq!(d.format.field_end, b",");
        assert_eq!(d.format.enclosed, Some(b'"'));
        assert!(d.format.optionally);
        assert_eq!(d.format.escape, None);
        assert_eq!(d.format.line_start, b">");
        assert_eq!(d.format.line_end, b"\r\n");
        assert_eq!(d.ignore_lines, 1);
        assert_eq!(
            d.targets,
            Some(vec![
                LoadTarget::Column("a".into()),
                LoadTarget::UserVar("b".into()),
                LoadTarget::Column("c".into())
            ])
        );
        assert_eq!(d.set.as_deref(), Some("d = @b * 2, e = NOW()"));
    }

    #[test]
    fn defaults_and_errors() {
        let d = parse("load data infile 'f' into table t");
        assert!(!d.local);
        assert_eq!(d.format, Format::default());
        assert_eq!(d.targets, None);
        let l = lex("load data infile 'f' into table t fields enclosed by 'ab'");
        let e = parse_native(
            "load data infile 'f' into table t fields enclosed by 'ab'",
            &l.tokens,
            false,
        )
        .expect_err("two-character ENCLOSED BY");
        assert_eq!(e.code, 1083);
        let s = "load data infile 'f' into table t ignore x lines";
        let l = lex(s);
        assert_eq!(
            parse_native(s, &l.tokens, false)
                .expect_err("bad count")
                .code,
            1064
        );
    }
}
