//! sqlparser invocation, and its errors turned into MariaDB's 1064.

use basalt_common::MySqlError;
use sqlparser::ast::{Expr, Statement};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::{Parser, ParserError};

/// Parses exactly one statement.
pub fn parse_statement(text: &str) -> Result<Statement, MySqlError> {
    let dialect = MySqlDialect {};
    let mut stmts = Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| syntax_error(text, &e))?;
    match stmts.len() {
        0 => Err(MySqlError::empty_query()),
        1 => Ok(stmts.remove(0)),
        _ => Err(MySqlError::parse_error("", 1)),
    }
}

/// Parses a standalone expression (the WHERE of a SHOW statement).
pub fn parse_expr(text: &str) -> Result<Expr, MySqlError> {
    let dialect = MySqlDialect {};
    let mut p = Parser::new(&dialect)
        .try_with_sql(text)
        .map_err(|e| syntax_error(text, &e))?;
    let e = p.parse_expr().map_err(|e| syntax_error(text, &e))?;
    if p.peek_token().token != sqlparser::tokenizer::Token::EOF {
        let loc = p.peek_token().span.start;
        return Err(near_location(text, loc.line, loc.column));
    }
    Ok(e)
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

    #[test]
    fn offsets() {
        assert_eq!(offset_of("ab\ncd", 2, 2), Some(4));
        assert_eq!(offset_of("ab", 1, 1), Some(0));
    }
}
