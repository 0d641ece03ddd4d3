//! `JSON_VALID()`: MariaDB's JSON validity check, including its leniencies and
//! the position its notes report.
//!
//! MariaDB's scanner (strings/json_lib.c) is a table-driven state machine, and
//! what it accepts differs from RFC 8259 in details an application can see:
//! `1.` is a valid number, any character may follow a backslash in a string
//! (`"\x"` is valid), nesting stops at 32 levels, leading blanks of an object key
//! are skipped. This module follows the same machine, so results and the note it
//! leaves (4035-4040, with the byte position after the offending character)
//! match MariaDB's.
//!
//! The scan is iterative: nesting is a counter and a small stack of what each
//! open level is, never recursion.

/// Why a text is not valid JSON, as MariaDB's `JE_*` codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonError {
    BadChr,
    NotJsonChr,
    Eos,
    Syntax,
    StringConst,
    Escaping,
    Depth,
}

impl JsonError {
    /// The note MariaDB adds for `func`'s argument `arg` (1-based).
    pub fn note(self, func: &str, arg: usize, pos: usize) -> (u16, String) {
        let at =
            |what: &str| format!("{what} in argument {arg} to function '{func}' at position {pos}");
        match self {
            JsonError::BadChr => (4035, at("Broken JSON string")),
            JsonError::NotJsonChr => (4036, at("Character disallowed in JSON")),
            JsonError::Eos => (
                4037,
                format!("Unexpected end of JSON text in argument {arg} to function '{func}'"),
            ),
            JsonError::Syntax | JsonError::StringConst => (4038, at("Syntax error in JSON text")),
            JsonError::Escaping => (4039, at("Incorrect escaping in JSON text")),
            JsonError::Depth => (
                4040,
                format!(
                    "Limit of {DEPTH_LIMIT} on JSON nested structures depth is reached in argument {arg} to function '{func}' at position {pos}"
                ),
            ),
        }
    }
}

/// Deepest nesting MariaDB accepts is one less than this.
pub const DEPTH_LIMIT: usize = 32;

/// Character classes of the scanner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum C {
    Eos,
    LCurb,
    RCurb,
    LSqrb,
    RSqrb,
    Colon,
    Comma,
    Quote,
    Digit,
    LowF,
    LowN,
    LowT,
    Etc,
    Err,
    Bad,
    Space,
}

fn class(c: u32) -> C {
    match c {
        9 | 10 | 13 | 32 => C::Space,
        0..=31 => C::Err,
        0x22 => C::Quote,
        0x2c => C::Comma,
        0x2d | 0x30..=0x39 => C::Digit,
        0x3a => C::Colon,
        0x5b => C::LSqrb,
        0x5d => C::RSqrb,
        0x66 => C::LowF,
        0x6e => C::LowN,
        0x74 => C::LowT,
        0x7b => C::LCurb,
        0x7d => C::RCurb,
        _ => C::Etc,
    }
}

/// Scanner states (MariaDB's `json_states` plus the internal ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Value,
    Key,
    ObjStart,
    ObjEnd,
    ArrayStart,
    ArrayEnd,
    Done,
    ObjCont,
    ArrayCont,
}

/// What an action asks the driver to do next.
enum Next {
    /// Read the next token.
    Scan,
    /// The whole text was read.
    Finished,
}

type Step = Result<Next, JsonError>;

enum Peek {
    Eos,
    Bad,
    Char(u32, usize),
}

struct Scanner<'a> {
    s: &'a [u8],
    pos: usize,
    state: St,
    stack: Vec<St>,
    /// Length of the last character `scan_next` read (to step back over it).
    last_len: usize,
}

/// Checks `text` (UTF-8); on failure the error and the byte position MariaDB
/// reports.
pub fn validate(text: &[u8]) -> Result<(), (JsonError, usize)> {
    let mut sc = Scanner {
        s: text,
        pos: 0,
        state: St::Value,
        stack: vec![St::Done],
        last_len: 0,
    };
    loop {
        match sc.scan_next() {
            Ok(Next::Scan) => {}
            Ok(Next::Finished) => return Ok(()),
            Err(e) => return Err((e, sc.pos)),
        }
    }
}

impl Scanner<'_> {
    fn peek(&self) -> Peek {
        let rest = &self.s[self.pos.min(self.s.len())..];
        let Some(&b0) = rest.first() else {
            return Peek::Eos;
        };
        if b0 < 0x80 {
            return Peek::Char(b0 as u32, 1);
        }
        let len = match b0 {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => return Peek::Bad,
        };
        match rest
            .get(..len)
            .and_then(|b| std::str::from_utf8(b).ok())
            .and_then(|s| s.chars().next())
        {
            Some(c) => Peek::Char(c as u32, len),
            None => Peek::Bad,
        }
    }

    fn eos_or_bad(&self) -> JsonError {
        match self.peek() {
            Peek::Eos => JsonError::Eos,
            _ => JsonError::BadChr,
        }
    }

    /// Skips blanks; returns the class of the first other character, consumed
    /// (end of text and undecodable bytes are not consumed), and its length.
    fn first_nonspace(&mut self) -> (C, usize) {
        loop {
            match self.peek() {
                Peek::Eos => return (C::Eos, 0),
                Peek::Bad => return (C::Bad, 0),
                Peek::Char(c, len) => {
                    self.pos += len;
                    let t = if c < 128 { class(c) } else { C::Etc };
                    if t != C::Space {
                        return (t, len);
                    }
                }
            }
        }
    }

    fn scan_next(&mut self) -> Step {
        let (t, len) = self.first_nonspace();
        self.last_len = len;
        self.action(self.state, t)
    }

    fn top(&self) -> St {
        self.stack.last().copied().unwrap_or(St::Done)
    }

    fn action(&mut self, st: St, t: C) -> Step {
        if t == C::Err {
            return Err(JsonError::NotJsonChr);
        }
        if t == C::Bad {
            return Err(JsonError::BadChr);
        }
        match st {
            St::Value => self.value(t),
            St::Key => match t {
                C::Eos => Err(JsonError::Eos),
                C::Quote => self.skip_colon(),
                _ => self.skip_key(),
            },
            St::ObjStart => match t {
                C::Eos => Err(JsonError::Eos),
                C::RCurb => self.end(St::ObjEnd),
                C::Quote => {
                    self.state = St::Key;
                    Ok(Next::Scan)
                }
                _ => Err(JsonError::Syntax),
            },
            St::ObjEnd | St::ArrayEnd => match t {
                C::Eos | C::RCurb | C::RSqrb | C::Comma => self.action(self.top(), t),
                _ => Err(JsonError::Syntax),
            },
            St::ArrayStart => match t {
                C::Eos => Err(JsonError::Eos),
                C::RSqrb => self.end(St::ArrayEnd),
                C::LCurb | C::LSqrb | C::Quote | C::Digit | C::LowF | C::LowN | C::LowT => {
                    self.state = St::Value;
                    self.pos -= self.last_len;
                    Ok(Next::Scan)
                }
                _ => Err(JsonError::Syntax),
            },
            St::Done => match t {
                C::Eos => Ok(Next::Finished),
                _ => Err(JsonError::Syntax),
            },
            St::ObjCont => match t {
                C::Eos => Err(JsonError::Eos),
                C::RCurb => self.end(St::ObjEnd),
                C::Comma => self.next_key(),
                _ => Err(JsonError::Syntax),
            },
            St::ArrayCont => match t {
                C::Eos => Err(JsonError::Eos),
                C::RSqrb => self.end(St::ArrayEnd),
                C::Comma => {
                    self.state = St::Value;
                    Ok(Next::Scan)
                }
                _ => Err(JsonError::Syntax),
            },
        }
    }

    /// A value starts with a character of class `t` (already consumed).
    fn value(&mut self, t: C) -> Step {
        match t {
            C::Eos => Err(JsonError::Eos),
            C::LCurb => self.open(St::ObjStart, St::ObjCont),
            C::LSqrb => self.open(St::ArrayStart, St::ArrayCont),
            C::Quote => {
                self.skip_string()?;
                self.state = self.top();
                self.scan_next()
            }
            C::Digit => {
                self.skip_number()?;
                self.state = self.top();
                self.scan_next()
            }
            C::LowF | C::LowN | C::LowT => {
                let rest: &[u8] = match t {
                    C::LowF => b"alse",
                    C::LowN => b"ull",
                    _ => b"rue",
                };
                self.verbatim(rest)?;
                self.state = self.top();
                self.scan_next()
            }
            _ => Err(JsonError::Syntax),
        }
    }

    fn open(&mut self, state: St, cont: St) -> Step {
        self.state = state;
        if self.stack.len() >= DEPTH_LIMIT {
            return Err(JsonError::Depth);
        }
        self.stack.push(cont);
        Ok(Next::Scan)
    }

    fn end(&mut self, state: St) -> Step {
        self.stack.pop();
        self.state = state;
        Ok(Next::Scan)
    }

    fn next_key(&mut self) -> Step {
        match self.first_nonspace().0 {
            C::Quote => {
                self.state = St::Key;
                Ok(Next::Scan)
            }
            C::Eos => Err(JsonError::Eos),
            C::Bad => Err(JsonError::BadChr),
            _ => Err(JsonError::Syntax),
        }
    }

    /// An empty key name (`""`): the colon and the value follow.
    fn skip_colon(&mut self) -> Step {
        match self.first_nonspace().0 {
            C::Colon => {
                let (t, _) = self.first_nonspace();
                if t == C::Err {
                    return Err(JsonError::NotJsonChr);
                }
                if t == C::Bad {
                    return Err(JsonError::BadChr);
                }
                self.value(t)
            }
            C::Eos => Err(JsonError::Eos),
            C::Bad => Err(JsonError::BadChr),
            _ => Err(JsonError::Syntax),
        }
    }

    /// The rest of a key name (its first character was consumed), the colon, and
    /// the start of the value.
    fn skip_key(&mut self) -> Step {
        let first = self.s.get(self.pos.wrapping_sub(1)).copied();
        if first == Some(b'\\') {
            self.escape()?;
        }
        while !self.key_char()? {}
        let (t, _) = self.first_nonspace();
        if t == C::Err {
            return Err(JsonError::NotJsonChr);
        }
        if t == C::Bad {
            return Err(JsonError::BadChr);
        }
        self.value(t)
    }

    /// One character of a key name; `true` once the closing quote and the colon
    /// were read.
    fn key_char(&mut self) -> Result<bool, JsonError> {
        let Peek::Char(c, len) = self.peek() else {
            return Err(self.eos_or_bad());
        };
        self.pos += len;
        match c {
            0x22 => loop {
                match self.peek() {
                    Peek::Char(0x3a, l) => {
                        self.pos += l;
                        self.state = St::Value;
                        return Ok(true);
                    }
                    Peek::Char(c, l) if c < 128 && class(c) == C::Space => self.pos += l,
                    Peek::Char(..) => return Err(JsonError::Syntax),
                    _ => return Err(self.eos_or_bad()),
                }
            },
            0x5c => {
                self.escape()?;
                Ok(false)
            }
            0..=31 => {
                self.pos -= len;
                Err(JsonError::StringConst)
            }
            _ => Ok(false),
        }
    }

    /// The rest of a string (its opening quote was consumed).
    fn skip_string(&mut self) -> Result<(), JsonError> {
        loop {
            let Peek::Char(c, len) = self.peek() else {
                return Err(self.eos_or_bad());
            };
            self.pos += len;
            match c {
                0x22 => return Ok(()),
                0x5c => self.escape()?,
                0..=31 => return Err(JsonError::NotJsonChr),
                _ => {}
            }
        }
    }

    /// An escape sequence after its backslash.
    fn escape(&mut self) -> Result<(), JsonError> {
        let Peek::Char(c, len) = self.peek() else {
            return Err(self.eos_or_bad());
        };
        self.pos += len;
        match c {
            0x62 | 0x66 | 0x6e | 0x72 | 0x74 => Ok(()),
            0..=31 => {
                self.pos -= len;
                Err(JsonError::Escaping)
            }
            0x75 => self.unicode_escape(),
            _ => Ok(()),
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Peek::Char(c, len) = self.peek() else {
                return Err(self.eos_or_bad());
            };
            let d = char::from_u32(c)
                .and_then(|ch| ch.to_digit(16))
                .ok_or(JsonError::Syntax)?;
            self.pos += len;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// `\uXXXX`, and the second half of a surrogate pair.
    fn unicode_escape(&mut self) -> Result<(), JsonError> {
        let hi = self.hex4()?;
        match hi {
            0xdc00..=0xdfff => Err(JsonError::BadChr),
            0xd800..=0xdbff => {
                for want in [0x5c, 0x75] {
                    match self.peek() {
                        Peek::Char(c, len) if c == want => self.pos += len,
                        Peek::Char(..) => return Err(JsonError::Syntax),
                        _ => return Err(self.eos_or_bad()),
                    }
                }
                match self.hex4()? {
                    0xdc00..=0xdfff => Ok(()),
                    _ => Err(JsonError::BadChr),
                }
            }
            _ => Ok(()),
        }
    }

    /// The rest of a keyword (`alse`, `ull`, `rue`).
    fn verbatim(&mut self, rest: &[u8]) -> Result<(), JsonError> {
        for &want in rest {
            match self.peek() {
                Peek::Char(c, len) if c == want as u32 => self.pos += len,
                Peek::Char(..) => return Err(JsonError::Syntax),
                _ => return Err(self.eos_or_bad()),
            }
        }
        Ok(())
    }

    /// The rest of a number (its first character was consumed).
    fn skip_number(&mut self) -> Result<(), JsonError> {
        use NumSt::*;
        let first = self.s[self.pos - 1];
        let mut st = match first {
            b'-' => Go1,
            b'0' => Zero,
            _ => Int,
        };
        loop {
            match self.peek() {
                Peek::Char(c, len) if c < 128 => match num_next(st, num_class(c as u8)) {
                    NumNext::To(s) => {
                        self.pos += len;
                        st = s;
                    }
                    NumNext::Stop => return Ok(()),
                },
                Peek::Eos => {
                    return match st {
                        Zero | Zero1 | Int | Frac | Ex1 => Ok(()),
                        _ => Err(JsonError::Syntax),
                    }
                }
                _ => return Err(JsonError::BadChr),
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NumSt {
    Go1,
    Zero,
    Zero1,
    Int,
    Frac,
    Ex,
    Ex1,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NumC {
    Minus,
    Plus,
    Zero,
    Digit,
    Point,
    E,
    End,
    Other,
}

fn num_class(c: u8) -> NumC {
    match c {
        b'-' => NumC::Minus,
        b'+' => NumC::Plus,
        b'0' => NumC::Zero,
        b'1'..=b'9' => NumC::Digit,
        b'.' => NumC::Point,
        b'e' | b'E' => NumC::E,
        b'\t' | b'\n' | b'\r' | b' ' | b',' | b']' | b'}' => NumC::End,
        _ => NumC::Other,
    }
}

enum NumNext {
    To(NumSt),
    /// The number ends before this character (which the scanner reads next,
    /// as MariaDB's does, even when it cannot follow a number).
    Stop,
}

fn num_next(st: NumSt, c: NumC) -> NumNext {
    use NumC as K;
    use NumSt::*;
    let to = match (st, c) {
        (Go1, K::Zero) => Zero1,
        (Go1, K::Digit) => Int,
        (Zero | Zero1, K::Point) => Frac,
        (Int, K::Zero | K::Digit) => Int,
        (Int, K::Point) => Frac,
        (Int | Frac, K::E) => Ex,
        (Frac, K::Zero | K::Digit) => Frac,
        (Ex, K::Minus | K::Plus) => Ex,
        (Ex | Ex1, K::Zero | K::Digit) => Ex1,
        _ => return NumNext::Stop,
    };
    NumNext::To(to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Result<(), (u16, usize)> {
        validate(s.as_bytes()).map_err(|(e, p)| (e.note("json_valid", 1, p).0, p))
    }

    #[test]
    fn matches_mariadb() {
        let ok = [
            "1",
            " \"a\" ",
            "{\"a\":1,\"a\":2}",
            "\"a\\x\"",
            "1.",
            "1e+5",
            "-0.5e-3",
            "[]",
            "{}",
            "{\"a\":[1,{\"b\":null}]}",
            "\"\\u00e9\"",
            " [1] ",
            "null",
            "false",
            "[true,false,null]",
            "\"\\/\"",
            "0",
            "-0",
        ];
        for s in ok {
            assert_eq!(v(s), Ok(()), "{s}");
        }
        let bad: &[(&str, u16, usize)] = &[
            ("[1,]", 4038, 4),
            ("{a:1}", 4038, 2),
            ("not json", 4038, 1),
            ("", 4037, 0),
            ("[1 2]", 4038, 4),
            ("{\"a\" 1}", 4038, 5),
            ("truex", 4038, 5),
            ("-", 4038, 1),
            ("01", 4038, 2),
            ("1e", 4038, 2),
            ("\"\\uZZZZ\"", 4038, 3),
            ("1 2", 4038, 3),
            ("[1]x", 4038, 4),
            ("\"a\tb\"", 4036, 3),
            ("{\"a\":1,}", 4038, 8),
            ("00", 4038, 2),
            (".5", 4038, 1),
            ("+1", 4038, 1),
        ];
        for (s, code, pos) in bad {
            let got = v(s).expect_err(s);
            assert_eq!(got.0, *code, "{s}");
            if *code != 4037 {
                assert_eq!(got.1, *pos, "{s}");
            }
        }
        for eos in ["  ", "[", "{\"a\":1", "\"abc", "tru", "nul", "\"\\\""] {
            assert_eq!(v(eos).map_err(|e| e.0), Err(4037), "{eos}");
        }
    }

    #[test]
    fn depth_limit() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(v(&nest(31)), Ok(()));
        assert_eq!(v(&nest(32)), Err((4040, 32)));
        let objs = format!("{}1{}", "{\"a\":".repeat(32), "}".repeat(32));
        assert_eq!(v(&objs), Err((4040, 156)));
        // Deep input is not recursion: a long run of brackets fails fast.
        assert_eq!(v(&"[".repeat(100_000)), Err((4040, 32)));
    }
}
