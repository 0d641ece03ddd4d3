//! Statement bytes in the client's character set to the UTF-8 text the front end and
//! sqlparser work on, without losing a byte of any string literal.
//!
//! A client sends statement text in `character_set_client`; string literals without
//! an introducer belong to `character_set_connection`, literals with an introducer
//! (`_binary'..'`, `_latin1'..'`) to the introducer's set, and their bytes must reach
//! the column exactly (a BLOB gets them as they are, a text column checks them and
//! raises 1366). sqlparser needs a `&str`, so:
//!
//! - **Fast path** ([`TextCharsets::decode`] borrows): the bytes are valid UTF-8 and
//!   the client and connection sets are UTF-8 (or binary for the connection), or
//!   the text is plain ASCII. Then the text *is* the front end's text and every
//!   literal's bytes are those of the text. This is every query of a UTF-8 client
//!   with UTF-8 data, so it costs one validation pass (which reading the packet as
//!   text needed anyway).
//! - **Slow path** ([`transcode`]): the text is lexed as bytes. Identifiers and
//!   comments are converted to UTF-8 (an identifier that is not well formed in the
//!   client set is MariaDB's 1064 or 1300). Each string literal (with adjacent
//!   strings concatenated, as the grammar does) gets its internal value (see
//!   `basalt_common::charset`), and is written as the original text when that is
//!   the same value in UTF-8, else as a plain quoted UTF-8 literal when the value
//!   is UTF-8 and has no introducer, else as a *literal marker*.
//!
//! A literal marker is `` `_`X'hex' `` (a literal without introducer: the
//! connection's collation) or `` `_cs`X'hex' `` (introducer `cs`: its default
//! collation), the hex digits being the internal bytes. A quoted identifier before
//! a hex literal is a syntax error in MySQL, so no statement a client writes means
//! anything else; markers are honoured only in text this module produced (the
//! session says so), and a client's own `` `x`X'..' `` is rejected here.

use super::lexer::{lex_bytes, unquote_bytes, TokKind, Token};
use basalt_common::charset::{self, printable};
use basalt_common::{Charset, MySqlError};
use std::borrow::Cow;

/// The character sets a statement's text is read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextCharsets {
    /// `character_set_client`: the statement's bytes.
    pub client: Charset,
    /// `character_set_connection`: literals without an introducer.
    pub connection: Charset,
}

impl Default for TextCharsets {
    fn default() -> Self {
        TextCharsets {
            client: Charset::Utf8mb4,
            connection: Charset::Utf8mb4,
        }
    }
}

impl TextCharsets {
    /// True when valid UTF-8 text needs no conversion (see the module docs).
    fn utf8_direct(self) -> bool {
        matches!(self.client, Charset::Utf8mb4 | Charset::Utf8mb3)
            && matches!(
                self.connection,
                Charset::Utf8mb4 | Charset::Utf8mb3 | Charset::Binary
            )
    }

    /// The front end's text of statement bytes `raw`; `valid` is `raw` as a `&str`
    /// when the caller already knows it is UTF-8. Borrowed on the fast path; owned
    /// (and then containing literal markers) otherwise.
    pub fn decode<'a>(
        self,
        raw: &'a [u8],
        valid: Option<&'a str>,
        backslash: bool,
    ) -> Result<Cow<'a, str>, MySqlError> {
        if self.utf8_direct() {
            let text = match valid {
                Some(s) => Some(s),
                None => std::str::from_utf8(raw).ok(),
            };
            if let Some(s) = text {
                let mb3 = self.client == Charset::Utf8mb3 || self.connection == Charset::Utf8mb3;
                if !mb3 || !raw.iter().any(|&c| c >= 0xF0) {
                    return Ok(Cow::Borrowed(s));
                }
            }
        } else if raw.is_ascii() && self.client.ascii_compatible() {
            if let Some(s) = valid.or_else(|| std::str::from_utf8(raw).ok()) {
                return Ok(Cow::Borrowed(s));
            }
        }
        transcode(raw, self, backslash).map(Cow::Owned)
    }

    /// The internal value of a literal without introducer whose unquoted bytes are
    /// `b`: converted from the client's set to the connection's (a conversion
    /// replaces what does not convert by `?`, as MariaDB's does).
    fn plain_literal<'b>(self, b: &'b [u8]) -> Cow<'b, [u8]> {
        if self.client == self.connection
            || self.connection == Charset::Binary
            || self.client == Charset::Binary
        {
            return charset::to_internal(b, self.client);
        }
        if charset::is_well_formed(b, self.client) {
            let internal = charset::to_internal(b, self.client);
            return match charset::fix_into(&internal, self.connection) {
                Cow::Borrowed(_) => internal,
                Cow::Owned(o) => Cow::Owned(o),
            };
        }
        // Bytes that are not characters of the client's set become `?` too.
        let mut out = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            let n = client_char_len(&b[i..], self.client).unwrap_or(0);
            if n == 0 {
                out.push(b'?');
                i += 1;
            } else {
                let internal = charset::to_internal(&b[i..i + n], self.client);
                out.extend_from_slice(&charset::fix_into(&internal, self.connection));
                i += n;
            }
        }
        Cow::Owned(out)
    }
}

/// Length of the character of client set `cs` at the start of `b`.
fn client_char_len(b: &[u8], cs: Charset) -> Option<usize> {
    match cs {
        Charset::Ascii => b.first().is_some_and(u8::is_ascii).then_some(1),
        Charset::Utf8mb4 => charset::utf8_char_len(b, true),
        Charset::Utf8mb3 => charset::utf8_char_len(b, false),
        // Binary and the 8-bit sets (no client sends text in a wide one).
        _ => Some(1),
    }
}

/// The slow path of [`TextCharsets::decode`] (see the module docs).
pub fn transcode(raw: &[u8], cs: TextCharsets, backslash: bool) -> Result<String, MySqlError> {
    let lexed = lex_bytes(raw);
    let toks = &lexed.tokens;
    let mut w = Writer {
        raw,
        cs,
        backslash,
        out: String::with_capacity(raw.len() + raw.len() / 4 + 16),
    };
    let mut pos = 0;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        w.gap(&raw[pos..t.start]);
        let consumed = match t.kind {
            TokKind::Word => match introducer(raw, toks, i) {
                Some(intro) => w.literal(toks, i + 1, Some((intro, t.start)))?,
                None => {
                    w.ident(t, false)?;
                    1
                }
            },
            TokKind::Str => w.literal(toks, i, None)?,
            TokKind::QuotedIdent => {
                if toks.get(i + 1).is_some_and(|n| n.kind == TokKind::HexOrBit) {
                    return Err(near(raw, toks[i + 1].start));
                }
                w.ident(t, true)?;
                1
            }
            TokKind::Var => {
                w.ident(t, true)?;
                1
            }
            _ => {
                w.gap(&raw[t.start..t.end]);
                1
            }
        };
        i += consumed;
        pos = toks[i - 1].end;
    }
    w.gap(&raw[pos..]);
    Ok(w.out)
}

/// The character set a word introduces when a string follows it (`_latin1 'x'`,
/// `N'x'`), for the word at `i`.
fn introducer(raw: &[u8], toks: &[Token], i: usize) -> Option<Charset> {
    let t = toks[i];
    let next = toks.get(i + 1).filter(|n| n.kind == TokKind::Str)?;
    let word = &raw[t.start..t.end];
    if word.eq_ignore_ascii_case(b"n") && t.end == next.start {
        return Some(Charset::Utf8mb3);
    }
    let name = std::str::from_utf8(word.strip_prefix(b"_")?).ok()?;
    Charset::from_name(name)
}

/// 1064 quoting the text from byte `at`, bytes that are no UTF-8 shown as `?` (as
/// MariaDB's message shows them after converting to its own character set).
fn near(raw: &[u8], at: usize) -> MySqlError {
    let line = raw[..at].iter().filter(|&&c| c == b'\n').count() as u32 + 1;
    let quoted: String = String::from_utf8_lossy(&raw[at..])
        .chars()
        .map(|c| if c == '\u{FFFD}' { '?' } else { c })
        .collect();
    MySqlError::parse_error(&quoted, line)
}

struct Writer<'a> {
    raw: &'a [u8],
    cs: TextCharsets,
    backslash: bool,
    out: String,
}

impl Writer<'_> {
    /// Whitespace, comments and ASCII tokens: UTF-8 of the client's text, with
    /// bytes that are no characters replaced (they can only be in comments).
    fn gap(&mut self, b: &[u8]) {
        if let Ok(s) = std::str::from_utf8(b) {
            if b.is_ascii() || self.cs.client.is_internal_bytes() {
                self.out.push_str(s);
                return;
            }
        }
        let internal = charset::to_internal(b, self.cs.client);
        self.out.push_str(&String::from_utf8_lossy(&internal));
    }

    /// An identifier or variable name: converted to UTF-8, or MariaDB's error when
    /// it is not well formed in the client's set (1300 for a quoted one, 1064 for a
    /// bare one).
    fn ident(&mut self, t: Token, quoted: bool) -> Result<(), MySqlError> {
        let b = &self.raw[t.start..t.end];
        let client = self.cs.client;
        let ok = match client {
            Charset::Ascii => b.is_ascii(),
            Charset::Utf8mb3 => charset::is_well_formed(b, Charset::Utf8mb3),
            Charset::Utf8mb4 | Charset::Binary => std::str::from_utf8(b).is_ok(),
            _ => true,
        };
        if ok {
            let internal = charset::to_internal(b, client);
            if let Ok(s) = std::str::from_utf8(&internal) {
                self.out.push_str(s);
                return Ok(());
            }
        }
        let bad = bad_offset(b, client);
        if !quoted {
            return Err(near(self.raw, t.start + bad));
        }
        let inner = b
            .iter()
            .position(|&c| matches!(c, b'`' | b'\'' | b'"'))
            .map_or(b, |q| &b[q + 1..b.len().saturating_sub(1).max(q + 1)]);
        let name = match client {
            Charset::Binary => Charset::Utf8mb4.name(),
            other => other.name(),
        };
        Err(MySqlError::new(
            basalt_common::error::code::ER_INVALID_CHARACTER_STRING,
            "HY000",
            format!("Invalid {name} character string: '{}'", printable(inner, 0)),
        ))
    }

    /// The string literal starting at token `i` (and the strings adjacent to it);
    /// `intro` is the introducer and its byte offset. Returns the number of tokens
    /// consumed, the introducer's included.
    fn literal(
        &mut self,
        toks: &[Token],
        i: usize,
        intro: Option<(Charset, usize)>,
    ) -> Result<usize, MySqlError> {
        let mut j = i;
        let mut value = Vec::new();
        while let Some(t) = toks.get(j).filter(|t| t.kind == TokKind::Str) {
            let tok = &self.raw[t.start..t.end];
            if tok.len() < 2 || tok[tok.len() - 1] != tok[0] {
                // Unterminated: the parser reports it.
                break;
            }
            value.extend_from_slice(&unquote_bytes(tok, self.backslash));
            j += 1;
        }
        let consumed = (j - i).max(1) + intro.is_some() as usize;
        let start = intro.map_or(toks[i].start, |(_, at)| at);
        if j == i {
            self.gap(&self.raw[start..toks[i].end]);
            return Ok(consumed);
        }
        let source = &self.raw[start..toks[j - 1].end];
        let internal = match intro {
            Some((cs, _)) => charset::to_internal(&value, cs),
            None => self.cs.plain_literal(&value),
        };
        if *internal == value[..] {
            if let Ok(s) = std::str::from_utf8(source) {
                self.out.push_str(s);
                return Ok(consumed);
            }
        }
        match (intro, std::str::from_utf8(&internal)) {
            (None, Ok(s)) => self.quoted(s),
            (intro, _) => self.marker(intro.map(|(cs, _)| cs), &internal),
        }
        Ok(consumed)
    }

    /// A quoted literal of UTF-8 text, escaped so that sqlparser reads it back.
    fn quoted(&mut self, s: &str) {
        self.out.push('\'');
        for c in s.chars() {
            match c {
                '\'' => self.out.push_str("''"),
                '\\' => self.out.push_str("\\\\"),
                '\0' => self.out.push_str("\\0"),
                c => self.out.push(c),
            }
        }
        self.out.push('\'');
    }

    fn marker(&mut self, intro: Option<Charset>, internal: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        self.out.push_str("`_");
        if let Some(cs) = intro {
            self.out.push_str(cs.name());
        }
        self.out.push_str("`X'");
        for &b in internal {
            self.out.push(HEX[(b >> 4) as usize] as char);
            self.out.push(HEX[(b & 15) as usize] as char);
        }
        self.out.push('\'');
    }
}

/// Offset of the first byte of `b` that starts no character of client set `cs`
/// (binary clients write identifiers in UTF-8).
fn bad_offset(b: &[u8], cs: Charset) -> usize {
    let cs = if cs == Charset::Binary {
        Charset::Utf8mb4
    } else {
        cs
    };
    let n = charset::well_formed_len(b, cs);
    if n < b.len() {
        return n;
    }
    std::str::from_utf8(b).err().map_or(0, |e| e.valid_up_to())
}

/// A literal marker (see the module docs) in the front end's text: the charset of
/// its introducer (`None`: no introducer) and its bytes, for the quoted identifier
/// at `toks[i]` followed by a hex literal.
pub fn marker_at(text: &str, toks: &[Token], i: usize) -> Option<(Option<Charset>, Vec<u8>)> {
    let id = toks.get(i).filter(|t| t.kind == TokKind::QuotedIdent)?;
    let hex = toks.get(i + 1).filter(|t| t.kind == TokKind::HexOrBit)?;
    let name = text[id.start..id.end]
        .strip_prefix("`_")?
        .strip_suffix('`')?;
    let intro = if name.is_empty() {
        None
    } else {
        Some(Charset::from_name(name)?)
    };
    let digits = text[hex.start..hex.end]
        .strip_prefix("X'")?
        .strip_suffix('\'')?;
    Some((intro, decode_hex(digits)?))
}

/// Bytes of an even number of hex digits.
pub fn decode_hex(digits: &str) -> Option<Vec<u8>> {
    let d = digits.as_bytes();
    if !d.len().is_multiple_of(2) {
        return None;
    }
    d.chunks(2)
        .map(|p| {
            let hi = (p[0] as char).to_digit(16)?;
            let lo = (p[1] as char).to_digit(16)?;
            Some((hi * 16 + lo) as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cs(client: Charset, connection: Charset) -> TextCharsets {
        TextCharsets { client, connection }
    }
    const UTF8: TextCharsets = TextCharsets {
        client: Charset::Utf8mb4,
        connection: Charset::Utf8mb4,
    };

    fn dec(raw: &[u8], c: TextCharsets) -> String {
        c.decode(raw, None, true).expect("decodes").into_owned()
    }

    #[test]
    fn utf8_text_is_borrowed() {
        let q = "select 'é', `ü` from t";
        assert!(matches!(
            UTF8.decode(q.as_bytes(), None, true),
            Ok(Cow::Borrowed(_))
        ));
        let latin1 = cs(Charset::Latin1, Charset::Latin1);
        assert!(matches!(
            latin1.decode(b"select 'a'", None, true),
            Ok(Cow::Borrowed(_))
        ));
    }

    #[test]
    fn invalid_literal_bytes_become_markers() {
        assert_eq!(
            dec(b"insert into bl values (1, '\xff\xfex', 0)", UTF8),
            "insert into bl values (1, `_`X'FFFE78', 0)"
        );
        assert_eq!(
            dec(b"select _binary'\xff\\0', 'ok'", UTF8),
            "select `_binary`X'FF00', 'ok'"
        );
        assert_eq!(dec(b"select 'a\xff' 'b'", UTF8), "select `_`X'61FF62'");
        let binary = cs(Charset::Binary, Charset::Binary);
        assert_eq!(dec(b"select '\xff', 'x'", binary), "select `_`X'FF', 'x'");
    }

    #[test]
    fn latin1_is_converted() {
        let latin1 = cs(Charset::Latin1, Charset::Latin1);
        assert_eq!(
            dec(b"select 'caf\xe9 \x80''s', caf\xe9 from t -- \xe9", latin1),
            "select 'café €''s', café from t -- é"
        );
        assert_eq!(
            dec(b"select _latin1'\xe9'", latin1),
            "select `_latin1`X'C3A9'"
        );
        assert_eq!(
            dec(b"select _binary'\xe9'", latin1),
            "select `_binary`X'E9'"
        );
        // A UTF-8 client writing into a latin1 connection: what latin1 lacks is `?`.
        let narrowing = cs(Charset::Utf8mb4, Charset::Latin1);
        assert_eq!(
            dec("select '€😀', '\u{e9}\u{ff}'".as_bytes(), narrowing),
            "select '€?', 'éÿ'"
        );
    }

    #[test]
    fn bad_identifiers_are_errors() {
        let e = UTF8
            .decode(b"select 1 as `a\xffb`", None, true)
            .expect_err("bad");
        assert_eq!(e.code, 1300);
        assert_eq!(e.message, "Invalid utf8mb4 character string: 'a\\xFFb'");
        let e = UTF8
            .decode(b"create table q\xe9 (a int)", None, true)
            .expect_err("bad");
        assert_eq!(e.code, 1064);
        assert!(e.message.contains("near '? (a int)'"), "{}", e.message);
        let e = UTF8
            .decode(b"select `_`X'41', '\xff'", None, true)
            .expect_err("a client's own marker");
        assert_eq!(e.code, 1064);
    }

    #[test]
    fn markers_read_back() {
        let text = "select `_latin1`X'C3A9', `_`X'FF'";
        let l = super::super::lexer::lex(text);
        assert_eq!(
            marker_at(text, &l.tokens, 1),
            Some((Some(Charset::Latin1), "é".as_bytes().to_vec()))
        );
        assert_eq!(marker_at(text, &l.tokens, 4), Some((None, vec![0xFF])));
        assert_eq!(marker_at(text, &l.tokens, 2), None);
    }
}
