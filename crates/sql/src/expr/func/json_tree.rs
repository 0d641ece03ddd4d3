//! JSON documents as trees, MariaDB's text forms, and JSON paths.
//!
//! A text is first checked by [`super::json::validate`] (MariaDB's scanner, so
//! invalid input gets MariaDB's note and position), then read into a [`Json`]
//! tree. Strings, keys and numbers keep their source text (escapes undecoded,
//! numbers unnormalised) because MariaDB prints them back as written; a node
//! also keeps the byte range it was read from, which JSON_QUERY/JSON_VALUE
//! return verbatim. Nesting is at most 32 levels (the scanner's limit), which
//! bounds the recursion of the reader and printers.
//!
//! Paths: `$`, `.key`, `."quoted key"`, `.*`, `[n]`, `[last]`, `[last-n]`,
//! `[*]` and `**`, as MariaDB's json_path parser accepts them.

#[derive(Clone, Debug, PartialEq)]
pub enum V {
    Null,
    Bool(bool),
    /// Source text of the number.
    Num(String),
    /// Source text between the quotes (escapes undecoded).
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Json {
    pub v: V,
    /// Byte range in the text the node was read from (empty for built nodes).
    pub span: (usize, usize),
}

impl Json {
    pub fn new(v: V) -> Json {
        Json { v, span: (0, 0) }
    }

    pub fn is_scalar(&self) -> bool {
        !matches!(self.v, V::Arr(_) | V::Obj(_))
    }
}

/// Reads a valid JSON text (`validate` must have accepted it).
pub fn parse(text: &[u8]) -> Result<Json, (super::json::JsonError, usize)> {
    super::json::validate(text)?;
    let mut r = Reader { s: text, pos: 0 };
    Ok(r.value())
}

struct Reader<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn skip(&mut self) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Json {
        self.skip();
        let start = self.pos;
        let v = match self.s.get(self.pos) {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => V::Str(self.string()),
            Some(b't') => {
                self.pos += 4;
                V::Bool(true)
            }
            Some(b'f') => {
                self.pos += 5;
                V::Bool(false)
            }
            Some(b'n') => {
                self.pos += 4;
                V::Null
            }
            _ => {
                while self.pos < self.s.len()
                    && matches!(
                        self.s[self.pos],
                        b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'
                    )
                {
                    self.pos += 1;
                }
                V::Num(String::from_utf8_lossy(&self.s[start..self.pos]).into_owned())
            }
        };
        Json {
            v,
            span: (start, self.pos),
        }
    }

    fn string(&mut self) -> String {
        self.pos += 1;
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos] != b'"' {
            if self.s[self.pos] == b'\\' {
                self.pos += 1;
            }
            self.pos += 1;
        }
        let out = String::from_utf8_lossy(&self.s[start..self.pos.min(self.s.len())]).into_owned();
        self.pos += 1;
        out
    }

    fn array(&mut self) -> V {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip();
            match self.s.get(self.pos) {
                Some(b']') | None => {
                    self.pos += 1;
                    return V::Arr(items);
                }
                Some(b',') => self.pos += 1,
                _ => items.push(self.value()),
            }
        }
    }

    fn object(&mut self) -> V {
        self.pos += 1;
        let mut members = Vec::new();
        loop {
            self.skip();
            match self.s.get(self.pos) {
                Some(b'}') | None => {
                    self.pos += 1;
                    return V::Obj(members);
                }
                Some(b',') => self.pos += 1,
                _ => {
                    let key = self.string();
                    self.skip();
                    self.pos += 1; // the colon
                    let v = self.value();
                    members.push((key, v));
                }
            }
        }
    }
}

/// MariaDB's output form: `[1, 2]`, `{"a": 1}`.
pub fn to_text(j: &Json) -> String {
    let mut out = String::new();
    write(j, &mut out, ", ", ": ");
    out
}

/// JSON_COMPACT's form: no blanks.
pub fn to_compact(j: &Json) -> String {
    let mut out = String::new();
    write(j, &mut out, ",", ":");
    out
}

fn write(j: &Json, out: &mut String, comma: &str, colon: &str) {
    match &j.v {
        V::Null => out.push_str("null"),
        V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        V::Num(n) => out.push_str(n),
        V::Str(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        V::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                write(x, out, comma, colon);
            }
            out.push(']');
        }
        V::Obj(members) => {
            out.push('{');
            for (i, (k, x)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                out.push('"');
                out.push_str(k);
                out.push('"');
                out.push_str(colon);
                write(x, out, comma, colon);
            }
            out.push('}');
        }
    }
}

/// JSON_NORMALIZE's form: keys sorted, no blanks, numbers as doubles in
/// MariaDB's `1.0E0` notation.
pub fn to_normal(j: &Json) -> String {
    let mut out = String::new();
    normal(j, &mut out);
    out
}

fn normal(j: &Json, out: &mut String) {
    match &j.v {
        V::Num(n) => {
            let x: f64 = n.parse().unwrap_or(0.0);
            let e = format!("{x:E}");
            match e.split_once('E') {
                Some((m, exp)) if !m.contains('.') => out.push_str(&format!("{m}.0E{exp}")),
                _ => out.push_str(&e),
            }
        }
        V::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                normal(x, out);
            }
            out.push(']');
        }
        V::Obj(members) => {
            let mut sorted: Vec<&(String, Json)> = members.iter().collect();
            sorted.sort_by_key(|a| unescape(&a.0));
            out.push('{');
            for (i, (k, x)) in sorted.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('"');
                out.push_str(k);
                out.push_str("\":");
                normal(x, out);
            }
            out.push('}');
        }
        _ => write(j, out, ",", ":"),
    }
}

/// The text of a JSON string's source (escapes decoded).
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let code = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
                out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// A text as a JSON string's source (quotes, backslashes and control
/// characters escaped).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Key(String),
    AnyKey,
    /// Index from the start, or from the end (`last-n`) when `from_end`.
    Index {
        n: usize,
        from_end: bool,
    },
    AnyIndex,
    /// `**`: any depth.
    Descend,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub steps: Vec<Step>,
}

impl Path {
    pub fn has_wildcard(&self) -> bool {
        self.steps
            .iter()
            .any(|s| matches!(s, Step::AnyKey | Step::AnyIndex | Step::Descend))
    }
}

/// Parses a path; Err holds the 1-based position MariaDB's warning names.
pub fn parse_path(p: &str) -> Result<Path, usize> {
    let b = p.trim_end().as_bytes();
    let mut i = 0;
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    if b.get(i) != Some(&b'$') {
        return Err(i + 1);
    }
    i += 1;
    let mut steps = Vec::new();
    while i < b.len() {
        match b[i] {
            b' ' => i += 1,
            b'.' => {
                i += 1;
                match b.get(i) {
                    Some(b'*') => {
                        steps.push(Step::AnyKey);
                        i += 1;
                    }
                    Some(b'"') => {
                        let start = i + 1;
                        let end = p[start..].find('"').map(|e| e + start).ok_or(b.len())?;
                        steps.push(Step::Key(p[start..end].to_string()));
                        i = end + 1;
                    }
                    Some(_) => {
                        let start = i;
                        while i < b.len() && !matches!(b[i], b'.' | b'[' | b' ' | b'*') {
                            i += 1;
                        }
                        if i == start {
                            return Err(i + 1);
                        }
                        steps.push(Step::Key(p[start..i].to_string()));
                    }
                    None => return Err(i + 1),
                }
            }
            b'[' => {
                let end = p[i..].find(']').map(|e| e + i).ok_or(b.len())?;
                let inner = p[i + 1..end].trim();
                let step = if inner == "*" {
                    Step::AnyIndex
                } else if let Some(rest) = inner.strip_prefix("last") {
                    let rest = rest.trim();
                    let n = match rest.strip_prefix('-') {
                        Some(k) => k.trim().parse().map_err(|_| i + 2)?,
                        None if rest.is_empty() => 0,
                        None => return Err(i + 2),
                    };
                    Step::Index { n, from_end: true }
                } else {
                    Step::Index {
                        n: inner.parse().map_err(|_| i + 2)?,
                        from_end: false,
                    }
                };
                steps.push(step);
                i = end + 1;
            }
            b'*' if b.get(i + 1) == Some(&b'*') => {
                steps.push(Step::Descend);
                i += 2;
            }
            _ => return Err(i + 1),
        }
    }
    if matches!(steps.last(), Some(Step::Descend)) {
        return Err(b.len());
    }
    Ok(Path { steps })
}

fn index_of(n: usize, from_end: bool, len: usize) -> Option<usize> {
    if from_end {
        len.checked_sub(n + 1)
    } else {
        (n < len).then_some(n)
    }
}

/// The nodes a path selects, in document order.
pub fn select<'a>(j: &'a Json, steps: &[Step], out: &mut Vec<&'a Json>) {
    let Some((step, rest)) = steps.split_first() else {
        out.push(j);
        return;
    };
    match (step, &j.v) {
        (Step::Key(k), V::Obj(m)) => {
            if let Some((_, x)) = m.iter().find(|(key, _)| key_eq(key, k)) {
                select(x, rest, out);
            }
        }
        (Step::AnyKey, V::Obj(m)) => m.iter().for_each(|(_, x)| select(x, rest, out)),
        (Step::Index { n, from_end }, V::Arr(a)) => {
            if let Some(i) = index_of(*n, *from_end, a.len()) {
                select(&a[i], rest, out);
            }
        }
        // A scalar or object is an array of one element for [0] / [last].
        (Step::Index { n: 0, .. }, _) => select(j, rest, out),
        (Step::AnyIndex, V::Arr(a)) => a.iter().for_each(|x| select(x, rest, out)),
        (Step::Descend, _) => {
            select(j, rest, out);
            match &j.v {
                V::Arr(a) => a.iter().for_each(|x| select(x, steps, out)),
                V::Obj(m) => m.iter().for_each(|(_, x)| select(x, steps, out)),
                _ => {}
            }
        }
        _ => {}
    }
}

fn key_eq(source: &str, path_key: &str) -> bool {
    source == path_key || unescape(source) == path_key
}

/// The node at a wildcard-free path, for changing it.
pub fn get_mut<'a>(j: &'a mut Json, steps: &[Step]) -> Option<&'a mut Json> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(j);
    };
    match step {
        Step::Key(k) => match &mut j.v {
            V::Obj(m) => {
                let x = m.iter_mut().find(|(key, _)| key_eq(key, k))?;
                get_mut(&mut x.1, rest)
            }
            _ => None,
        },
        Step::Index { n, from_end } => {
            if !matches!(j.v, V::Arr(_)) {
                return if *n == 0 { get_mut(j, rest) } else { None };
            }
            match &mut j.v {
                V::Arr(a) => {
                    let i = index_of(*n, *from_end, a.len())?;
                    get_mut(&mut a[i], rest)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Depth as JSON_DEPTH counts it.
pub fn depth(j: &Json) -> i64 {
    match &j.v {
        V::Arr(a) if !a.is_empty() => 1 + a.iter().map(depth).max().unwrap_or(0),
        V::Obj(m) if !m.is_empty() => 1 + m.iter().map(|(_, x)| depth(x)).max().unwrap_or(0),
        _ => 1,
    }
}

/// Structural equality with numbers compared by value and keys unordered.
pub fn equal(a: &Json, b: &Json) -> bool {
    match (&a.v, &b.v) {
        (V::Num(x), V::Num(y)) => x.parse::<f64>().ok() == y.parse::<f64>().ok(),
        (V::Str(x), V::Str(y)) => unescape(x) == unescape(y),
        (V::Arr(x), V::Arr(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q)),
        (V::Obj(x), V::Obj(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.iter()
                        .find(|(k2, _)| unescape(k2) == unescape(k))
                        .is_some_and(|(_, v2)| equal(v, v2))
                })
        }
        (p, q) => p == q,
    }
}

/// JSON_CONTAINS' rule: arrays contain what some element contains, objects
/// contain objects whose every member they contain.
pub fn contains(target: &Json, cand: &Json) -> bool {
    match (&target.v, &cand.v) {
        (V::Arr(t), V::Arr(c)) => c.iter().all(|x| t.iter().any(|y| contains(y, x))),
        (V::Arr(t), _) => t.iter().any(|y| contains(y, cand)),
        (V::Obj(t), V::Obj(c)) => c.iter().all(|(k, x)| {
            t.iter()
                .find(|(k2, _)| unescape(k2) == unescape(k))
                .is_some_and(|(_, y)| contains(y, x))
        }),
        _ => equal(target, cand),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Json {
        parse(s.as_bytes()).expect("valid")
    }

    #[test]
    fn prints_in_mariadb_form() {
        assert_eq!(
            to_text(&j(r#"{"a":1,"b":[1,2]}"#)),
            r#"{"a": 1, "b": [1, 2]}"#
        );
        assert_eq!(to_compact(&j(r#"{ "a" : [1, 2] }"#)), r#"{"a":[1,2]}"#);
        assert_eq!(
            to_normal(&j(r#"{"b":2, "a" : 1 }"#)),
            r#"{"a":1.0E0,"b":2.0E0}"#
        );
    }

    #[test]
    fn paths_select() {
        let doc = j(r#"{"a":{"b":1},"c":{"b":2},"d":[1,2,3]}"#);
        let sel = |p: &str| {
            let path = parse_path(p).expect("path");
            let mut out = Vec::new();
            select(&doc, &path.steps, &mut out);
            out.iter().map(|x| to_text(x)).collect::<Vec<_>>()
        };
        assert_eq!(sel("$.*.b"), ["1", "2"]);
        assert_eq!(sel("$.d[last]"), ["3"]);
        assert_eq!(sel("$.d[last-1]"), ["2"]);
        assert_eq!(sel("$**.b"), ["1", "2"]);
        assert_eq!(parse_path("bad"), Err(1));
    }

    #[test]
    fn containment() {
        assert!(contains(&j("[1,[2,3]]"), &j("[2]")));
        assert!(contains(&j("1"), &j("1.0")));
        assert!(!contains(&j(r#"{"a":1}"#), &j(r#"{"a":1,"b":2}"#)));
        assert_eq!(depth(&j(r#"{"a":[]}"#)), 2);
    }
}
