//! A small MySQL lexer: just enough to split statements, find literals and read the
//! leading keywords, in one pass over the bytes and without allocating per token.
//!
//! It is not the parser's tokenizer (sqlparser has its own); it only has to agree
//! with it on where tokens start and end. Comments are skipped, except MySQL's
//! executable comments (`/*! ... */`), which set [`Lexed::has_exec_comment`] so that
//! callers can fall back to the full parser.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumKind {
    /// Digits only, fits i64.
    Int,
    /// Digits only, fits u64 but not i64.
    UInt,
    /// Has a decimal point, or too many digits for u64.
    Decimal,
    /// Has an exponent.
    Float,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    /// Unquoted identifier or keyword.
    Word,
    /// `` `quoted identifier` ``.
    QuotedIdent,
    /// `'...'` or `"..."`.
    Str,
    Num(NumKind),
    /// `x'..'`, `0x..`, `b'..'`, `0b..`.
    HexOrBit,
    /// `?`
    Param,
    /// `@name`, `@'name'`, `@@name`, `@@session.name`.
    Var,
    /// `;`
    Semi,
    /// Any other punctuation, multi-character operators as one token.
    Punct,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    #[inline]
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }

    /// True for a word equal (ASCII case-insensitively) to `kw`.
    #[inline]
    pub fn is_kw(&self, src: &str, kw: &str) -> bool {
        self.kind == TokKind::Word && self.text(src).eq_ignore_ascii_case(kw)
    }
}

#[derive(Debug, Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub has_exec_comment: bool,
    /// A quote or comment was left open at the end of the text.
    pub unterminated: bool,
    /// Which of the [`rare`] words and tokens occur (bit set), so that checks for
    /// them can skip the token walk when none does.
    pub rare: u16,
}

/// Words and tokens that later passes look for, noted while lexing (one length
/// test per word on the hot path; most statements have none of them).
pub mod rare {
    /// The word INTO.
    pub const INTO: u16 = 1;
    /// The word LOCK.
    pub const LOCK: u16 = 2;
    /// The word MOD.
    pub const MOD: u16 = 4;
    /// The word DROP.
    pub const DROP: u16 = 8;
    /// The operator `||`.
    pub const PIPES: u16 = 16;
    /// A `?` placeholder.
    pub const PARAM: u16 = 32;
    /// The word INTERVAL.
    pub const INTERVAL: u16 = 64;
    /// The word NEXT or PREVIOUS (`NEXT VALUE FOR s`).
    pub const VALUE_FOR: u16 = 128;
    /// The word EXTRACT.
    pub const EXTRACT: u16 = 256;
    /// The word CHAR (`CHAR(n, ... USING cs)`).
    pub const CHAR: u16 = 512;
    /// The word WEIGHT_STRING (`WEIGHT_STRING(s AS CHAR(n))`).
    pub const WEIGHT_STRING: u16 = 1024;
    /// A `0b0101` bit literal.
    pub const BIT_NUMBER: u16 = 2048;
    /// The operator `!` (logical NOT).
    pub const BANG: u16 = 4096;
    /// The word SOUNDS or SIMILAR (`a SOUNDS LIKE b`).
    pub const SOUNDS: u16 = 8192;
    /// The word OJ (ODBC's `{ OJ table_reference }`).
    pub const OJ: u16 = 16384;
}

/// The [`rare`] bit of one word.
#[inline]
fn rare_word(w: &[u8]) -> u16 {
    match w.len() {
        2 if w.eq_ignore_ascii_case(b"oj") => rare::OJ,
        3 if w.eq_ignore_ascii_case(b"mod") => rare::MOD,
        4 => {
            let lower = u32::from_le_bytes([w[0], w[1], w[2], w[3]]) | 0x2020_2020;
            match &lower.to_le_bytes() {
                b"into" => rare::INTO,
                b"lock" => rare::LOCK,
                b"drop" => rare::DROP,
                b"char" => rare::CHAR,
                b"next" => rare::VALUE_FOR,
                _ => 0,
            }
        }
        7 if w.eq_ignore_ascii_case(b"extract") => rare::EXTRACT,
        6 if w.eq_ignore_ascii_case(b"sounds") => rare::SOUNDS,
        7 if w.eq_ignore_ascii_case(b"similar") => rare::SOUNDS,
        8 if w.eq_ignore_ascii_case(b"interval") => rare::INTERVAL,
        8 if w.eq_ignore_ascii_case(b"previous") => rare::VALUE_FOR,
        13 if w.eq_ignore_ascii_case(b"weight_string") => rare::WEIGHT_STRING,
        _ => 0,
    }
}

/// Lexes `src`. Never fails: malformed input yields tokens the parser will reject.
pub fn lex(src: &str) -> Lexed {
    lex_bytes(src.as_bytes())
}

/// Lexes statement text as bytes. Every character set Basalt accepts from clients
/// is ASCII-compatible and has no multi-byte character containing an ASCII byte,
/// so token boundaries do not depend on the character set.
pub fn lex_bytes(b: &[u8]) -> Lexed {
    let mut out = Lexed {
        tokens: Vec::with_capacity(16),
        ..Lexed::default()
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if is_space(c) {
            i += 1;
            continue;
        }
        if matches!(c, b'#' | b'-' | b'/') {
            if let Some(next) = skip_comment(b, i, &mut out) {
                i = next;
                continue;
            }
        }
        let (kind, end) = next_token(b, i, &mut out);
        out.rare |= match kind {
            TokKind::Word => rare_word(&b[i..end]),
            TokKind::Param => rare::PARAM,
            TokKind::Punct if &b[i..end] == b"||" => rare::PIPES,
            TokKind::Punct if &b[i..end] == b"!" => rare::BANG,
            TokKind::HexOrBit if b[i..].starts_with(b"0b") => rare::BIT_NUMBER,
            _ => 0,
        };
        out.tokens.push(Token {
            kind,
            start: i,
            end,
        });
        i = end.max(i + 1);
    }
    out
}

/// If a comment starts at `i`, returns the index after it.
fn skip_comment(b: &[u8], i: usize, out: &mut Lexed) -> Option<usize> {
    let c = b[i];
    let next = b.get(i + 1).copied();
    if c == b'#'
        || (c == b'-' && next == Some(b'-') && b.get(i + 2).is_none_or(|x| x.is_ascii_whitespace()))
    {
        let end = b[i..]
            .iter()
            .position(|&x| x == b'\n')
            .map_or(b.len(), |p| i + p + 1);
        return Some(end);
    }
    if c == b'/' && next == Some(b'*') {
        if matches!(b.get(i + 2), Some(b'!')) || b[i + 2..].starts_with(b"M!") {
            out.has_exec_comment = true;
        }
        return Some(match find(b, i + 2, b"*/") {
            Some(p) => p + 2,
            None => {
                out.unterminated = true;
                b.len()
            }
        });
    }
    None
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| from + p)
}

const IDENT: u8 = 1;
const DIGIT: u8 = 2;
const SPACE: u8 = 4;

/// Character classes of every byte value (one table lookup per byte on the hot
/// path instead of a chain of comparisons).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
            t[i] |= IDENT;
        }
        if c.is_ascii_digit() {
            t[i] |= DIGIT;
        }
        if c == b' ' || c == b'\t' || c == b'\n' || c == b'\r' || c == 0x0b || c == 0x0c {
            t[i] |= SPACE;
        }
        i += 1;
    }
    t
};

#[inline]
fn is_ident_byte(c: u8) -> bool {
    CLASS[c as usize] & IDENT != 0
}

#[inline]
fn is_space(c: u8) -> bool {
    CLASS[c as usize] & SPACE != 0
}

#[inline]
fn is_digit(c: u8) -> bool {
    CLASS[c as usize] & DIGIT != 0
}

fn next_token(b: &[u8], i: usize, out: &mut Lexed) -> (TokKind, usize) {
    let c = b[i];
    match c {
        b'\'' | b'"' => (TokKind::Str, end_of_quoted(b, i, c, out)),
        b'`' => (TokKind::QuotedIdent, end_of_quoted(b, i, c, out)),
        b'?' => (TokKind::Param, i + 1),
        b';' => (TokKind::Semi, i + 1),
        b'@' => (TokKind::Var, end_of_var(b, i, out)),
        b'0'..=b'9' => number_or_word(b, i),
        b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => number_or_word(b, i),
        _ if (c == b'x' || c == b'X' || c == b'b' || c == b'B') && b.get(i + 1) == Some(&b'\'') => {
            (TokKind::HexOrBit, end_of_quoted(b, i + 1, b'\'', out))
        }
        _ if is_ident_byte(c) => {
            let end = b[i..]
                .iter()
                .position(|&x| !is_ident_byte(x))
                .map_or(b.len(), |p| i + p);
            (TokKind::Word, end)
        }
        _ => (TokKind::Punct, end_of_punct(b, i)),
    }
}

fn end_of_quoted(b: &[u8], i: usize, q: u8, out: &mut Lexed) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        let c = b[j];
        if c == b'\\' && q != b'`' {
            j += 2;
            continue;
        }
        if c == q {
            if b.get(j + 1) == Some(&q) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    out.unterminated = true;
    b.len()
}

fn end_of_var(b: &[u8], i: usize, out: &mut Lexed) -> usize {
    let mut j = i + 1;
    if b.get(j) == Some(&b'@') {
        j += 1;
    }
    match b.get(j) {
        Some(&q @ (b'\'' | b'"' | b'`')) => end_of_quoted(b, j, q, out),
        _ => {
            while j < b.len() && (is_ident_byte(b[j]) || b[j] == b'.') {
                j += 1;
            }
            j
        }
    }
}

/// A number, or an identifier that starts with digits (`1abc` is a valid name).
fn number_or_word(b: &[u8], i: usize) -> (TokKind, usize) {
    if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X' | b'b' | b'B')) {
        let end = b[i + 2..]
            .iter()
            .position(|x| !x.is_ascii_alphanumeric())
            .map_or(b.len(), |p| i + 2 + p);
        // `0b` and binary digits is a bit literal; `0b2`, `0B1` are names.
        let bits =
            b[i + 1] == b'b' && end > i + 2 && b[i + 2..end].iter().all(|c| b"01".contains(c));
        if b[i + 1] != b'b' && b[i + 1] != b'B' || bits {
            return (TokKind::HexOrBit, end);
        }
    }
    let mut j = i;
    let mut dot = false;
    let mut exp = false;
    while j < b.len() {
        let c = b[j];
        if is_digit(c) {
            j += 1;
        } else if c == b'.' && !dot && !exp {
            dot = true;
            j += 1;
        } else if (c == b'e' || c == b'E') && !exp && exp_follows(b, j + 1) {
            exp = true;
            j += 1;
            if matches!(b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
        } else {
            break;
        }
    }
    if j < b.len() && is_ident_byte(b[j]) && !dot && !exp {
        let end = b[j..]
            .iter()
            .position(|&x| !is_ident_byte(x))
            .map_or(b.len(), |p| j + p);
        return (TokKind::Word, end);
    }
    let kind = if exp {
        NumKind::Float
    } else if dot {
        NumKind::Decimal
    } else if j - i <= 18 {
        NumKind::Int
    } else {
        let digits = &b[i..j];
        let s = std::str::from_utf8(digits).unwrap_or("");
        if s.parse::<i64>().is_ok() {
            NumKind::Int
        } else if s.parse::<u64>().is_ok() {
            NumKind::UInt
        } else {
            NumKind::Decimal
        }
    };
    (TokKind::Num(kind), j)
}

fn exp_follows(b: &[u8], j: usize) -> bool {
    match b.get(j) {
        Some(c) if c.is_ascii_digit() => true,
        Some(b'+' | b'-') => b.get(j + 1).is_some_and(u8::is_ascii_digit),
        _ => false,
    }
}

fn end_of_punct(b: &[u8], i: usize) -> usize {
    const OPS: [&[u8]; 12] = [
        b"<=>", b"->>", b"<=", b">=", b"<>", b"!=", b":=", b"<<", b">>", b"&&", b"||", b"->",
    ];
    if matches!(b[i], b'<' | b'>' | b'!' | b':' | b'&' | b'|' | b'-') {
        for op in OPS {
            if b[i..].starts_with(op) {
                return i + op.len();
            }
        }
    }
    // One whole UTF-8 character.
    let mut j = i + 1;
    while j < b.len() && (b[j] & 0xC0) == 0x80 {
        j += 1;
    }
    j
}

/// The value of a quoted string token, with MySQL's backslash escapes and doubled
/// quotes resolved.
pub fn unquote(tok: &str, backslash_escapes: bool) -> Vec<u8> {
    unquote_bytes(tok.as_bytes(), backslash_escapes)
}

/// [`unquote`] of a token's bytes.
pub fn unquote_bytes(b: &[u8], backslash_escapes: bool) -> Vec<u8> {
    let q = b[0];
    let inner = &b[1..b.len().saturating_sub(1).max(1)];
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        if c == b'\\' && backslash_escapes && i + 1 < inner.len() {
            let e = inner[i + 1];
            match e {
                b'0' => out.push(0),
                b'b' => out.push(8),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'Z' => out.push(26),
                b'%' | b'_' => out.extend_from_slice(&[b'\\', e]),
                other => out.push(other),
            }
            i += 2;
        } else if c == q && inner.get(i + 1) == Some(&q) {
            out.push(q);
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(TokKind, &str)> {
        lex(s).tokens.iter().map(|t| (t.kind, t.text(s))).collect()
    }

    #[test]
    fn rare_words_are_noted_outside_strings_only() {
        assert_eq!(lex("select v from t where id = 1").rare, 0);
        assert_eq!(lex("SELECT a INTO @x FROM t").rare, rare::INTO);
        assert_eq!(lex("select 1 Lock in share mode").rare, rare::LOCK);
        assert_eq!(lex("select 5 MOD 2, a || b").rare, rare::MOD | rare::PIPES);
        assert_eq!(lex("alter table t drop key k").rare, rare::DROP);
        assert_eq!(lex("select ?").rare, rare::PARAM);
        assert_eq!(lex("select next value for s").rare, rare::VALUE_FOR);
        assert_eq!(lex("select PREVIOUS value for s").rare, rare::VALUE_FOR);
        assert_eq!(lex("select 'into', `lock`, intox, mo, _mod").rare, 0);
    }

    #[test]
    fn basic_tokens() {
        let s = "select j from foo where i >= 100 and s = 'a''b\\'c' -- x\n;";
        let k = kinds(s);
        assert_eq!(k[0], (TokKind::Word, "select"));
        assert_eq!(k[6], (TokKind::Punct, ">="));
        assert_eq!(k[7], (TokKind::Num(NumKind::Int), "100"));
        assert_eq!(k[11], (TokKind::Str, "'a''b\\'c'"));
        assert_eq!(k[12], (TokKind::Semi, ";"));
        assert_eq!(k.len(), 13);
    }

    #[test]
    fn numbers_and_words() {
        let k = kinds("1.5 1e3 18446744073709551615 99999999999999999999999 1abc t1 .5 0x1F x'0a'");
        assert_eq!(k[0].0, TokKind::Num(NumKind::Decimal));
        assert_eq!(k[1].0, TokKind::Num(NumKind::Float));
        assert_eq!(k[2].0, TokKind::Num(NumKind::UInt));
        assert_eq!(k[3].0, TokKind::Num(NumKind::Decimal));
        assert_eq!(k[4].0, TokKind::Word);
        assert_eq!(k[5].0, TokKind::Word);
        assert_eq!(k[6].0, TokKind::Num(NumKind::Decimal));
        assert_eq!(k[7].0, TokKind::HexOrBit);
        assert_eq!(k[8].0, TokKind::HexOrBit);
    }

    #[test]
    fn vars_and_comments() {
        let l = lex("select @@session.autocommit, @x /* c */ /*!40101 x */ # y");
        assert!(l.has_exec_comment);
        let s = "select @@session.autocommit, @x";
        let k = kinds(s);
        assert_eq!(k[1], (TokKind::Var, "@@session.autocommit"));
        assert_eq!(k[3], (TokKind::Var, "@x"));
    }

    #[test]
    fn bit_numbers_are_literals_and_other_0b_words_names() {
        let k = kinds("select 0b0101, 0b2, 0B1, 0x4f");
        assert_eq!(k[1], (TokKind::HexOrBit, "0b0101"));
        assert_eq!(k[3].1, "0b2");
        assert_ne!(k[3].0, TokKind::HexOrBit);
        assert_eq!(k[5].1, "0B1");
        assert_ne!(k[5].0, TokKind::HexOrBit);
        assert_eq!(k[7], (TokKind::HexOrBit, "0x4f"));
        assert_ne!(lex("select 0b1").rare & rare::BIT_NUMBER, 0);
    }

    #[test]
    fn unquote_escapes() {
        assert_eq!(unquote("'a\\nb'", true), b"a\nb");
        assert_eq!(unquote("'it''s'", true), b"it's");
        assert_eq!(unquote("'x\\_y'", true), b"x\\_y");
        assert_eq!(unquote("\"q\"", true), b"q");
    }
}
