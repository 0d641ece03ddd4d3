//! The `PARTITION BY` clause of CREATE TABLE and ALTER TABLE, which sqlparser
//! does not read: cut off the statement before it is parsed, and parsed here into
//! a [`PartitionClause`] whose expressions stay text for the binder
//! (`crate::partitioning`).

use super::{unquote, TokKind, P, R};
use basalt_common::partition::PartitionKind;
use basalt_common::MySqlError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionClause {
    pub kind: PartitionKind,
    pub linear: bool,
    pub columns_form: bool,
    /// RANGE / LIST / HASH over an expression: its text.
    pub expr: Option<String>,
    /// The COLUMNS forms and KEY: the column names.
    pub columns: Vec<String>,
    pub algorithm: Option<u8>,
    /// `PARTITIONS n`.
    pub count: Option<u64>,
    pub defs: Option<Vec<PartDefAst>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartDefAst {
    pub name: String,
    pub values: ValuesAst,
    pub comment: Option<String>,
}

/// Values as expression texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValuesAst {
    None,
    /// `None`: MAXVALUE.
    LessThan(Vec<Option<String>>),
    /// One tuple per list element (a single value unless LIST COLUMNS of several).
    In(Vec<Vec<String>>),
}

fn lexed(text: &str) -> crate::front::lexer::Lexed {
    crate::front::lexer::lex(text)
}

/// The byte offset of a top-level `PARTITION BY` in a CREATE TABLE statement.
pub fn create_partition_offset(text: &str) -> Option<usize> {
    // Every parsed statement passes here: most are not CREATE and need no lexing.
    let head = text.trim_start().as_bytes();
    let create = head.len() > 6 && head[..6].eq_ignore_ascii_case(b"create");
    if !(create || head.starts_with(b"/*"))
        || !text
            .as_bytes()
            .windows(9)
            .any(|w| w.eq_ignore_ascii_case(b"partition"))
    {
        return None;
    }
    let lx = lexed(text);
    let t = &lx.tokens;
    let mut i = 0;
    if !t.first()?.is_kw(text, "create") {
        return None;
    }
    while i < t.len() && !t[i].is_kw(text, "table") {
        if t[i].kind == TokKind::Punct || i > 4 {
            return None;
        }
        i += 1;
    }
    let mut depth = 0usize;
    for j in i..t.len() {
        match (t[j].kind, t[j].text(text)) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") => depth = depth.saturating_sub(1),
            _ if depth == 0
                && t[j].is_kw(text, "partition")
                && t.get(j + 1).is_some_and(|n| n.is_kw(text, "by")) =>
            {
                return Some(t[j].start)
            }
            _ => {}
        }
    }
    None
}

/// A CREATE TABLE statement without its partition clause (for sqlparser).
pub fn without_partition_clause(text: &str) -> &str {
    match create_partition_offset(text) {
        Some(at) => &text[..at],
        None => text,
    }
}

fn unsupported(what: &str) -> MySqlError {
    MySqlError::not_supported(what)
}

/// Parses `PARTITION BY ...` (the whole text from PARTITION to the end).
pub fn parse_clause(text: &str) -> R<PartitionClause> {
    let lx = lexed(text);
    let mut p = P {
        src: text,
        toks: &lx.tokens,
        pos: 0,
        markers: false,
    };
    p.expect_kw("partition")?;
    p.expect_kw("by")?;
    let linear = p.kw("linear");
    let kind = if p.kw("hash") {
        PartitionKind::Hash
    } else if p.kw("key") {
        PartitionKind::Key
    } else if !linear && p.kw("range") {
        PartitionKind::Range
    } else if !linear && p.kw("list") {
        PartitionKind::List
    } else {
        return Err(p.err());
    };
    let mut c = PartitionClause {
        kind,
        linear,
        columns_form: false,
        expr: None,
        columns: Vec::new(),
        algorithm: None,
        count: None,
        defs: None,
    };
    if kind == PartitionKind::Key {
        if p.kw("algorithm") {
            p.punct("=");
            c.algorithm = Some(p.uint()?.min(255) as u8);
        }
        c.columns = column_list(&mut p)?;
    } else if matches!(kind, PartitionKind::Range | PartitionKind::List) && p.kw("columns") {
        c.columns_form = true;
        c.columns = column_list(&mut p)?;
    } else {
        c.expr = Some(paren_text(&mut p)?);
    }
    if p.kw("partitions") {
        c.count = Some(p.uint()?);
    }
    if p.kw("subpartition") {
        return Err(unsupported("subpartitions"));
    }
    if p.peek()
        .is_some_and(|t| t.kind == TokKind::Punct && t.text(text) == "(")
    {
        c.defs = Some(defs(&mut p)?);
    }
    p.punct(";");
    p.end()?;
    Ok(c)
}

/// Parses a parenthesised list of partition definitions.
pub fn parse_defs(text: &str) -> R<Vec<PartDefAst>> {
    let lx = lexed(text);
    let mut p = P {
        src: text,
        toks: &lx.tokens,
        pos: 0,
        markers: false,
    };
    let d = defs(&mut p)?;
    p.end()?;
    Ok(d)
}

fn column_list(p: &mut P) -> R<Vec<String>> {
    if !p.punct("(") {
        return Err(p.err());
    }
    let mut out = Vec::new();
    if p.punct(")") {
        return Ok(out);
    }
    loop {
        out.push(p.ident()?);
        if p.punct(")") {
            return Ok(out);
        }
        if !p.punct(",") {
            return Err(p.err());
        }
    }
}

/// The text inside a parenthesised group at the cursor, split at its top-level
/// commas.
fn paren_items(p: &mut P) -> R<Vec<String>> {
    if !p.punct("(") {
        return Err(p.err());
    }
    let mut items = Vec::new();
    let mut start = p.pos;
    let mut depth = 1usize;
    loop {
        let t = p.peek().ok_or_else(|| p.err())?;
        if t.kind == TokKind::Punct {
            match t.text(p.src) {
                "(" => depth += 1,
                ")" => depth -= 1,
                "," if depth == 1 => {
                    items.push(span(p, start, p.pos)?);
                    start = p.pos + 1;
                }
                _ => {}
            }
        }
        p.pos += 1;
        if depth == 0 {
            items.push(span(p, start, p.pos - 1)?);
            return Ok(items);
        }
    }
}

fn span(p: &P, from: usize, to: usize) -> R<String> {
    if from >= to {
        return Err(p.err());
    }
    Ok(p.src[p.toks[from].start..p.toks[to - 1].end].to_string())
}

fn paren_text(p: &mut P) -> R<String> {
    let items = paren_items(p)?;
    if items.len() != 1 {
        return Err(p.err());
    }
    Ok(items.into_iter().next().expect("one item"))
}

fn defs(p: &mut P) -> R<Vec<PartDefAst>> {
    if !p.punct("(") {
        return Err(p.err());
    }
    let mut out = Vec::new();
    loop {
        out.push(def(p)?);
        if p.punct(")") {
            return Ok(out);
        }
        if !p.punct(",") {
            return Err(p.err());
        }
    }
}

fn def(p: &mut P) -> R<PartDefAst> {
    p.expect_kw("partition")?;
    let name = p.ident()?;
    let values = if p.kw("values") {
        if p.kw("less") {
            p.expect_kw("than")?;
            if p.kw("maxvalue") {
                ValuesAst::LessThan(vec![None])
            } else {
                let items = paren_items(p)?;
                let bounds = items
                    .into_iter()
                    .map(|i| (!i.trim().eq_ignore_ascii_case("maxvalue")).then_some(i))
                    .collect();
                ValuesAst::LessThan(bounds)
            }
        } else if p.kw("in") {
            let items = paren_items(p)?;
            let tuples = items
                .into_iter()
                .map(|i| {
                    let t = i.trim();
                    if t.starts_with('(') && t.ends_with(')') {
                        let inner = t.to_string();
                        let lx = lexed(&inner);
                        let mut q = P {
                            src: &inner,
                            toks: &lx.tokens,
                            pos: 0,
                            markers: false,
                        };
                        paren_items(&mut q)
                    } else {
                        Ok(vec![i])
                    }
                })
                .collect::<R<Vec<_>>>()?;
            ValuesAst::In(tuples)
        } else {
            return Err(p.err());
        }
    } else {
        ValuesAst::None
    };
    let mut comment = None;
    loop {
        if p.kw("storage") {
            p.expect_kw("engine")?;
            p.punct("=");
            p.ident()?;
        } else if p.kw("engine") {
            p.punct("=");
            p.ident()?;
        } else if p.kw("comment") {
            p.punct("=");
            let t = p.peek().ok_or_else(|| p.err())?;
            if t.kind != TokKind::Str {
                return Err(p.err());
            }
            comment = Some(String::from_utf8_lossy(&unquote(t.text(p.src), true)).into_owned());
            p.pos += 1;
        } else if p.kw("data") || p.kw("index") {
            return Err(unsupported("DATA/INDEX DIRECTORY of a partition"));
        } else if p.kw("max_rows") || p.kw("min_rows") || p.kw("tablespace") || p.kw("nodegroup") {
            p.punct("=");
            p.pos += 1;
        } else if p
            .peek()
            .is_some_and(|t| t.kind == TokKind::Punct && t.text(p.src) == "(")
        {
            return Err(unsupported("subpartitions"));
        } else {
            break;
        }
    }
    Ok(PartDefAst {
        name,
        values,
        comment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses() {
        let c = parse_clause(
            "PARTITION BY RANGE (year(d)) (PARTITION p0 VALUES LESS THAN (2000) COMMENT 'x' ENGINE=InnoDB, PARTITION p1 VALUES LESS THAN MAXVALUE)",
        )
        .expect("parse");
        assert_eq!(c.kind, PartitionKind::Range);
        assert_eq!(c.expr.as_deref(), Some("year(d)"));
        let defs = c.defs.expect("defs");
        assert_eq!(
            defs[0].values,
            ValuesAst::LessThan(vec![Some("2000".into())])
        );
        assert_eq!(defs[0].comment.as_deref(), Some("x"));
        assert_eq!(defs[1].values, ValuesAst::LessThan(vec![None]));
        let k =
            parse_clause("partition by linear key algorithm=2 (a, b) partitions 4").expect("key");
        assert!(k.linear);
        assert_eq!(k.columns, ["a", "b"]);
        assert_eq!(k.count, Some(4));
        let l = parse_clause(
            "partition by list columns (a, b) (partition x values in ((1, 'a'), (2, 'b')))",
        )
        .expect("list");
        assert_eq!(
            l.defs.expect("defs")[0].values,
            ValuesAst::In(vec![
                vec!["1".into(), "'a'".into()],
                vec!["2".into(), "'b'".into()]
            ])
        );
        assert_eq!(
            parse_clause("partition by hash (a) subpartition by key (b)").map_err(|e| e.code),
            Err(1235)
        );
        assert_eq!(
            without_partition_clause("create table t (a int) engine=InnoDB partition by hash (a)"),
            "create table t (a int) engine=InnoDB "
        );
    }
}
