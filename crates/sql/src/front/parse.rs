//! sqlparser invocation, and its errors turned into MariaDB's 1064.
//!
//! Nesting limits are MariaDB's: parentheses and other prefix nesting up to sqlparser's
//! recursion limit, set to where MariaDB's parser stack runs out (`memory exhausted`,
//! 1064, beyond 31,991 parentheses); subqueries up to 63 levels (1473, checked on the
//! tokens before parsing, as MariaDB checks while parsing). Function calls nested far
//! deeper than MariaDB's 1436 limit (see [`crate::stack`]) are refused on the tokens
//! too (1436, or 1064 from 7,998 levels on, where MariaDB's parser gives up), and so
//! are parentheses nested 500 deep in FROM, so that sqlparser's recursive descent (a
//! few KiB of stack per level, grown on demand; quadratic time for FROM, which it
//! first tries as a derived table at each level) is never run that deep.

use super::lexer::{lex, TokKind};
use basalt_common::error::code;
use basalt_common::MySqlError;
use sqlparser::ast::{Expr, Statement};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::{Parser, ParserError};

/// sqlparser's recursion limit: one level per parenthesis, unary operator or
/// subexpression, plus a few for the statement; 31,991 parentheses parse, as in
/// MariaDB.
const RECURSION_LIMIT: usize = 31_996;
/// Deepest subquery nesting MariaDB accepts.
const MAX_SELECT_NESTING: usize = 63;
/// Nested function calls beyond which the statement cannot pass the 1436 check
/// whatever the functions (MariaDB's deepest is under 600).
const MAX_CALL_NESTING: usize = 1200;
/// Nested function calls at which MariaDB's parser stack runs out (`memory
/// exhausted`): four parser states per `f(`.
const CALL_NESTING_EXHAUSTED: usize = 7998;
/// Tables one join may have (MariaDB's, and the width of the planner's table
/// masks). Checked on the JOIN keywords before parsing too: sqlparser parses a
/// chain of JOINs without ON by recursion, one level per JOIN.
pub const MAX_TABLES: usize = 61;
/// Parentheses nested in FROM (sqlparser tries each as a derived table first, so
/// its time grows with the square of their depth).
const MAX_TABLE_NESTING: usize = 500;

fn parser<'a>(dialect: &'a MySqlDialect, text: &str) -> Result<Parser<'a>, MySqlError> {
    check_nesting(text)?;
    let p = Parser::new(dialect).with_recursion_limit(RECURSION_LIMIT);
    if !quoted_user_var(text) {
        return p.try_with_sql(text).map_err(|e| syntax_error(text, &e));
    }
    let tokens = sqlparser::tokenizer::Tokenizer::new(dialect, text)
        .with_unescape(true)
        .tokenize_with_location()
        .map_err(|e| syntax_error(text, &ParserError::TokenizerError(e.to_string())))?;
    Ok(p.with_tokens_with_locations(merge_user_vars(tokens)))
}

/// Whether the text may name a user variable in quotes (`` @`x` ``, `@'x'`,
/// `@"x"`), which sqlparser reads as `@` and a separate quoted token.
fn quoted_user_var(text: &str) -> bool {
    let b = text.as_bytes();
    b.windows(2)
        .any(|w| w[0] == b'@' && matches!(w[1], b'`' | b'\'' | b'"'))
}

/// `@` followed at once by a quoted name becomes the one word `@name`, as the
/// binder reads user variables.
fn merge_user_vars(
    tokens: Vec<sqlparser::tokenizer::TokenWithSpan>,
) -> Vec<sqlparser::tokenizer::TokenWithSpan> {
    use sqlparser::tokenizer::{Token, TokenWithSpan, Word};
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    for t in tokens {
        let name = match &t.token {
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Some(s.clone()),
            Token::Word(w) if w.quote_style == Some('`') => Some(w.value.clone()),
            _ => None,
        };
        if let (Some(name), Some(prev)) = (name, out.last()) {
            if prev.token == Token::AtSign && prev.span.end == t.span.start {
                let span = prev.span.union(&t.span);
                out.pop();
                out.push(TokenWithSpan::new(
                    Token::Word(Word {
                        value: format!("@{name}"),
                        quote_style: None,
                        keyword: sqlparser::keywords::Keyword::NoKeyword,
                    }),
                    span,
                ));
                continue;
            }
        }
        out.push(t);
    }
    out
}

/// Parses exactly one statement.
pub fn parse_statement(text: &str) -> Result<Statement, MySqlError> {
    // The partition clause of CREATE TABLE is read by `partitioning`.
    let text = super::native::partition_clause::without_partition_clause(text);
    // sqlparser reads PostgreSQL's END (COMMIT) and a bare RETURN; MariaDB
    // knows neither outside a stored program.
    let first = text.trim_start();
    for w in ["end", "return"] {
        let starts = first
            .get(..w.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(w))
            && first[w.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        if starts {
            return Err(MySqlError::parse_error(first.trim_end(), 1));
        }
    }
    let dialect = MySqlDialect {};
    let mut p = parser(&dialect, text)?;
    let mut stmts = p
        .parse_statements()
        .map_err(|e| parse_failure(text, &p, &e))?;
    match stmts.len() {
        0 => Err(MySqlError::empty_query()),
        1 => Ok(stmts.remove(0)),
        _ => Err(MySqlError::parse_error("", 1)),
    }
}

/// Parses a standalone expression (the WHERE of a SHOW statement).
pub fn parse_expr(text: &str) -> Result<Expr, MySqlError> {
    let dialect = MySqlDialect {};
    let mut p = parser(&dialect, text)?;
    let e = p.parse_expr().map_err(|e| parse_failure(text, &p, &e))?;
    if p.peek_token().token != sqlparser::tokenizer::Token::EOF {
        let loc = p.peek_token().span.start;
        return Err(near_location(text, loc.line, loc.column));
    }
    Ok(e)
}

/// 1064 for a failed parse: MariaDB's `memory exhausted` when the nesting ran out
/// of parser stack (quoting the text from where the parser stopped), otherwise the
/// syntax error.
fn parse_failure(text: &str, p: &Parser, e: &ParserError) -> MySqlError {
    if !matches!(e, ParserError::RecursionLimitExceeded) {
        return syntax_error(text, e);
    }
    let loc = p.peek_token_ref().span.start;
    exhausted(
        text,
        offset_of(text, loc.line, loc.column).unwrap_or(text.len()),
    )
}

/// MariaDB's 1064 when its parser stack runs out, quoting `text` from `offset`.
fn exhausted(text: &str, offset: usize) -> MySqlError {
    let line = text[..offset].matches('\n').count() as u32 + 1;
    let near: String = text[offset..].chars().take(80).collect();
    MySqlError::new(
        code::ER_PARSE_ERROR,
        "42000",
        format!("memory exhausted near '{near}' at line {line}"),
    )
}

/// Refuses, before parsing, subqueries nested deeper than MariaDB allows (1473),
/// function calls nested so deep that binding must fail with 1436 (or the parser
/// with 1064), and FROM parentheses nested past [`MAX_TABLE_NESTING`]. A `(`
/// directly followed by SELECT or WITH opens a query level; one directly after a
/// word that is not a keyword of the grammar around it opens a call.
fn check_nesting(text: &str) -> Result<(), MySqlError> {
    // Shorter texts cannot hold MAX_TABLES joins.
    if text.len() < MAX_TABLES * 5
        && text.bytes().filter(|&b| b == b'(').count() <= MAX_SELECT_NESTING
    {
        return Ok(());
    }
    let toks = lex(text).tokens;
    let mut open: Vec<Paren> = Vec::new();
    let mut depth = [0usize; 4];
    let mut too_deep = false;
    // JOINs in the FROM clause open at each parenthesis level.
    let mut joins: Vec<Option<usize>> = vec![None];
    for (i, t) in toks.iter().enumerate() {
        if t.kind == TokKind::Word {
            let level = joins.len() - 1;
            if t.is_kw(text, "from") {
                joins[level] = Some(0);
            } else if t.is_kw(text, "join") || t.is_kw(text, "straight_join") {
                if let Some(n) = joins[level].as_mut() {
                    *n += 1;
                    if *n >= MAX_TABLES {
                        return Err(too_many_tables());
                    }
                }
            }
            continue;
        }
        match t.text(text) {
            "(" => {
                let kind = paren_kind(text, &toks, i, open.last().copied());
                depth[kind as usize] += 1;
                if depth[Paren::Query as usize] > MAX_SELECT_NESTING {
                    return Err(MySqlError::new(
                        code::ER_TOO_HIGH_LEVEL_OF_NESTING_FOR_SELECT,
                        "HY000",
                        "Too high level of nesting for select",
                    ));
                }
                // Too deep to bind, unless the parser runs out first further on.
                if depth[Paren::Call as usize] > MAX_CALL_NESTING {
                    too_deep = true;
                }
                if depth[Paren::Call as usize] >= CALL_NESTING_EXHAUSTED {
                    return Err(exhausted(text, t.start));
                }
                if depth[Paren::Table as usize] > MAX_TABLE_NESTING {
                    return Err(exhausted(text, t.start));
                }
                open.push(kind);
                joins.push(None);
            }
            ")" => {
                if let Some(k) = open.pop() {
                    depth[k as usize] -= 1;
                    joins.pop();
                }
            }
            _ => {}
        }
    }
    if too_deep {
        return Err(deep_calls());
    }
    Ok(())
}

/// Errno 1116: more tables in one join than MariaDB takes.
pub fn too_many_tables() -> MySqlError {
    MySqlError::new(
        code::ER_TOO_MANY_TABLES,
        "HY000",
        format!("Too many tables; MariaDB can only use {MAX_TABLES} tables in a join"),
    )
}

/// What an open parenthesis starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Paren {
    Other = 0,
    /// A query: `(SELECT` or `(WITH`.
    Query = 1,
    /// A function call: after a word that is not a keyword of the grammar.
    Call = 2,
    /// A parenthesis in FROM: after FROM or JOIN, or inside another such one.
    Table = 3,
}

fn paren_kind(text: &str, toks: &[super::lexer::Token], i: usize, outer: Option<Paren>) -> Paren {
    let next = toks.get(i + 1);
    if next.is_some_and(|n| n.is_kw(text, "select") || n.is_kw(text, "with")) {
        return Paren::Query;
    }
    let Some(prev) = i.checked_sub(1).map(|p| &toks[p]) else {
        return Paren::Other;
    };
    let w = prev.text(text);
    if prev.kind == TokKind::Word {
        if ["from", "join", "straight_join"]
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k))
        {
            return Paren::Table;
        }
        if !grammar_word(w) {
            return Paren::Call;
        }
    }
    if w == "(" && outer == Some(Paren::Table) {
        return Paren::Table;
    }
    Paren::Other
}

/// The 1436 binding would give for calls nested past [`MAX_CALL_NESTING`].
fn deep_calls() -> MySqlError {
    use crate::stack::{base, cost, Budget};
    let mut b = Budget::new(base::SELECT);
    loop {
        if let Err(e) = b.enter(cost::FUNC) {
            return e;
        }
    }
}

/// Keywords a parenthesis can follow without being a function call.
fn grammar_word(w: &str) -> bool {
    const WORDS: &[&str] = &[
        "and",
        "or",
        "xor",
        "not",
        "where",
        "on",
        "having",
        "when",
        "then",
        "else",
        "select",
        "from",
        "join",
        "by",
        "as",
        "distinct",
        "all",
        "any",
        "some",
        "exists",
        "in",
        "is",
        "like",
        "between",
        "values",
        "value",
        "interval",
        "case",
        "div",
        "mod",
        "limit",
        "set",
        "using",
        "union",
        "except",
        "intersect",
        "return",
        "into",
        "table",
        "straight_join",
    ];
    WORDS.iter().any(|k| w.eq_ignore_ascii_case(k))
}

/// 1064 for a parser error: the message quotes the text from the offending token.
pub fn syntax_error(text: &str, e: &ParserError) -> MySqlError {
    let msg = e.to_string();
    if msg.contains("found: EOF") {
        let line = text.lines().count().max(1) as u32;
        return MySqlError::parse_error("", line);
    }
    match location(&msg) {
        Some((line, col)) => near_location(text, line, col),
        None => MySqlError::parse_error(text, 1),
    }
}

/// 1064 quoting `text` from 1-based `line`/`column` (in characters).
pub fn near_location(text: &str, line: u64, column: u64) -> MySqlError {
    let offset = offset_of(text, line, column).unwrap_or(0);
    let line_no = text[..offset].matches('\n').count() as u32 + 1;
    MySqlError::parse_error(&text[offset..], line_no)
}

/// 1064 quoting `text` from byte offset `offset`.
pub fn near_offset(text: &str, offset: usize) -> MySqlError {
    let offset = offset.min(text.len());
    let line_no = text[..offset].matches('\n').count() as u32 + 1;
    MySqlError::parse_error(&text[offset..], line_no)
}

/// Where in `text` the 1064 `e` (from parsing `text`) points: the byte
/// offset its quoted text starts at, on the line it names.
pub fn error_offset(text: &str, e: &MySqlError) -> Option<usize> {
    let msg = &e.message;
    let from = msg.find(" near '")? + 7;
    let to = msg.rfind("' at line ")?;
    let line: usize = msg[to + 10..].trim().parse().ok()?;
    let near = msg.get(from..to)?;
    let (head, whole) = match near.strip_suffix("...") {
        Some(h) if near.len() >= 80 => (h, false),
        _ => (near, true),
    };
    if head.is_empty() {
        return Some(text.len());
    }
    let mut found = text.match_indices(head).map(|(i, _)| i);
    let on_line = |&i: &usize| {
        text[..i].matches('\n').count() + 1 == line
            && (!whole || text[i..].trim_end() == near.trim_end())
    };
    // The parsed text may be a rewrite of `text`: then any occurrence.
    let first = text.find(head);
    found.find(on_line).or(first)
}

/// Byte offset of a 1-based line/column (column counted in characters).
pub fn offset_of(text: &str, line: u64, column: u64) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let mut start = 0;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let rest = &text[start..];
    let col = column.saturating_sub(1) as usize;
    let within = rest.char_indices().nth(col).map_or(rest.len(), |(i, _)| i);
    Some(start + within)
}

fn location(msg: &str) -> Option<(u64, u64)> {
    let p = msg.rfind("Line: ")?;
    let rest = &msg[p + 6..];
    let comma = rest.find(',')?;
    let line = rest[..comma].trim().parse().ok()?;
    let c = rest.find("Column: ")?;
    let col_txt: String = rest[c + 8..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((line, col_txt.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_error_quotes_from_token() {
        let e = parse_statement("selec 1").expect_err("bad");
        assert_eq!(e.code, 1064);
        assert!(
            e.message.ends_with("near 'selec 1' at line 1"),
            "{}",
            e.message
        );
        let e = parse_statement("select * from t where").expect_err("bad");
        assert!(e.message.ends_with("near '' at line 1"), "{}", e.message);
        let e = parse_statement("select 1 from t\nwhere a = = 2").expect_err("bad");
        assert!(e.message.ends_with("near '= 2' at line 2"), "{}", e.message);
    }

    fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    }

    #[test]
    fn nesting_limits_are_mariadbs() {
        let code = |sql: &str| parse_statement(sql).err().map(|e| e.code);
        assert_eq!(
            code(&format!("select {}", nest("(select ", "1", ")", 63))),
            None
        );
        assert_eq!(
            code(&format!("select {}", nest("(select ", "1", ")", 64))),
            Some(1473)
        );
        // Parenthesised queries are one level.
        assert_eq!(
            code(&format!("select {}", nest("(", "(select 1)", ")", 5000))),
            None
        );
        assert_eq!(
            code(&format!("select {}", nest("(", "1", ")", 31_991))),
            None
        );
        let e = parse_statement(&format!("select {}", nest("(", "1", ")", 40_000)))
            .expect_err("too deep");
        assert_eq!(e.code, 1064);
        assert!(
            e.message.starts_with("memory exhausted near '((("),
            "{}",
            e.message
        );
        // Calls: past any depth that could bind (1436), then past the parser (1064).
        assert_eq!(
            code(&format!("select {}", nest("abs(", "1", ")", 1200))),
            None
        );
        assert_eq!(
            code(&format!("select {}", nest("abs(", "1", ")", 1201))),
            Some(1436)
        );
        assert_eq!(
            code(&format!("select {}", nest("abs(", "1", ")", 7998))),
            Some(1064)
        );
        // Parentheses after keywords are no calls.
        let and = format!("select 1 where {}", nest("a = 1 and (", "a = 1", ")", 3000));
        assert_eq!(code(&and), None);
        let from = |n| format!("select * from {}", nest("(", "t", ")", n));
        assert_eq!(code(&from(501)), Some(1064));
        // Joins: 61 tables, whatever the spelling.
        let joins = |n: usize| {
            let t: Vec<String> = (0..n).map(|i| format!("t t{i}")).collect();
            format!("select 1 from {}", t.join(" join "))
        };
        assert_eq!(code(&joins(61)), None);
        assert_eq!(code(&joins(62)), Some(1116));
        assert_eq!(code(&joins(5000)), Some(1116));
        let two = format!("{} union all {}", joins(40), joins(40));
        assert_eq!(code(&two), None);
    }

    #[test]
    fn offsets() {
        assert_eq!(offset_of("ab\ncd", 2, 2), Some(4));
        assert_eq!(offset_of("ab", 1, 1), Some(0));
    }
}
