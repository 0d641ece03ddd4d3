//! The delimited text format of `LOAD DATA INFILE` and `SELECT ... INTO OUTFILE`,
//! as MySQL's READ_INFO / select_export read and write it.
//!
//! A line is `STARTING BY` (skipped, and lines without it are skipped), fields
//! separated by `FIELDS TERMINATED BY`, and `LINES TERMINATED BY`. A field may be
//! wrapped in the `ENCLOSED BY` character; inside it, the enclosing character
//! doubled, or escaped, stands for itself, and terminators are plain data. The
//! `ESCAPED BY` character makes the next byte literal, except for `0 b n r t Z`,
//! which stand for NUL, backspace, newline, carriage return, tab and Ctrl-Z, and
//! `\N` alone, which is NULL. With an enclosing character set, an unenclosed
//! `NULL` is NULL too.
//!
//! [`Reader`] is incremental: bytes arrive in chunks (a client sends a LOCAL file
//! in packets), [`Reader::next_record`] returns a record once its line terminator
//! has arrived, and [`Reader::finish`] marks the end of the input so that a last
//! line without a terminator is a record too. A record is parsed from its first
//! byte each time more input arrives, so only an unfinished record is re-read.

use basalt_common::MySqlError;

/// The FIELDS and LINES options of the statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    pub field_end: Vec<u8>,
    pub enclosed: Option<u8>,
    /// `OPTIONALLY ENCLOSED BY`: on output only strings are enclosed.
    pub optionally: bool,
    pub escape: Option<u8>,
    pub line_start: Vec<u8>,
    pub line_end: Vec<u8>,
}

impl Default for Format {
    fn default() -> Self {
        Format {
            field_end: b"\t".to_vec(),
            enclosed: None,
            optionally: false,
            escape: Some(b'\\'),
            line_start: Vec::new(),
            line_end: b"\n".to_vec(),
        }
    }
}

impl Format {
    /// MySQL's checks of the options (errno 1083 for a separator it cannot use).
    pub fn validate(&self) -> Result<(), MySqlError> {
        if self.field_end.is_empty() && self.enclosed.is_none() {
            return Err(MySqlError::not_supported(
                "fixed-width rows (empty FIELDS TERMINATED BY and ENCLOSED BY)",
            ));
        }
        if self.line_end.is_empty() && self.field_end.is_empty() {
            return Err(separator_error());
        }
        Ok(())
    }
}

/// ER_WRONG_FIELD_TERMINATORS.
pub fn separator_error() -> MySqlError {
    MySqlError::new(
        1083,
        "42000",
        "Field separator argument is not what is expected; check the manual",
    )
}

/// One field of a record: its bytes, or NULL.
pub type Field = Option<Vec<u8>>;

/// An incremental reader of records.
pub struct Reader {
    fmt: Format,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
}

enum Step {
    Record(Vec<Field>),
    /// The input ended inside a record that has not been terminated yet.
    NeedMore,
    /// No more records.
    Done,
}

impl Reader {
    pub fn new(fmt: Format) -> Reader {
        Reader {
            fmt,
            buf: Vec::new(),
            pos: 0,
            eof: false,
        }
    }

    /// Appends input.
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The input is complete.
    pub fn finish(&mut self) {
        self.eof = true;
    }

    /// The next complete record, if one is available.
    pub fn next_record(&mut self) -> Option<Vec<Field>> {
        match self.step() {
            Step::Record(r) => Some(r),
            Step::NeedMore | Step::Done => None,
        }
    }

    fn step(&mut self) -> Step {
        let start = self.pos;
        if start >= self.buf.len() {
            return if self.eof { Step::Done } else { Step::NeedMore };
        }
        let mut at = start;
        if !self.fmt.line_start.is_empty() {
            match find(&self.buf[at..], &self.fmt.line_start) {
                Some(i) => at += i + self.fmt.line_start.len(),
                None if self.eof => {
                    self.pos = self.buf.len();
                    return Step::Done;
                }
                None => return Step::NeedMore,
            }
        }
        match parse_record(&self.fmt, &self.buf, at, self.eof) {
            Some((fields, next)) => {
                self.pos = next;
                Step::Record(fields)
            }
            None => Step::NeedMore,
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn at(buf: &[u8], i: usize, s: &[u8]) -> bool {
    !s.is_empty() && buf.len() >= i + s.len() && &buf[i..i + s.len()] == s
}

/// Parses the record starting at `i`: its fields and where the next begins;
/// `None` when the input ends before the record does (and more may come).
fn parse_record(f: &Format, buf: &[u8], mut i: usize, eof: bool) -> Option<(Vec<Field>, usize)> {
    let mut fields = Vec::new();
    loop {
        let (field, next, ended) = parse_field(f, buf, i, eof)?;
        fields.push(field);
        i = next;
        if ended {
            return Some((fields, i));
        }
    }
}

/// One field from `i`: (value, position after its terminator, whether the line
/// ended with it).
fn parse_field(f: &Format, buf: &[u8], i: usize, eof: bool) -> Option<(Field, usize, bool)> {
    if let Some(q) = f.enclosed {
        if buf.get(i) == Some(&q) {
            if let Some(r) = enclosed_field(f, q, buf, i + 1, eof) {
                return Some(r);
            }
            if !eof {
                return None;
            }
        }
    }
    plain_field(f, buf, i, eof)
}

fn enclosed_field(
    f: &Format,
    q: u8,
    buf: &[u8],
    mut i: usize,
    eof: bool,
) -> Option<(Field, usize, bool)> {
    let mut out = Vec::new();
    while i < buf.len() {
        let b = buf[i];
        if Some(b) == f.escape && f.escape != Some(q) {
            let &c = buf.get(i + 1)?;
            out.push(unescape(c));
            i += 2;
            continue;
        }
        if b == q {
            if buf.get(i + 1) == Some(&q) {
                out.push(q);
                i += 2;
                continue;
            }
            let after = i + 1;
            if at(buf, after, &f.field_end) {
                return Some((Some(out), after + f.field_end.len(), false));
            }
            if at(buf, after, &f.line_end) {
                return Some((Some(out), after + f.line_end.len(), true));
            }
            if after >= buf.len() {
                if eof {
                    return Some((Some(out), after, true));
                }
                return None;
            }
            if buf.len() < after + f.field_end.len().max(f.line_end.len()) && !eof {
                return None;
            }
        }
        out.push(b);
        i += 1;
    }
    if eof {
        // An enclosing character that never closes: MySQL reads the field as plain.
        return None;
    }
    None
}

fn plain_field(f: &Format, buf: &[u8], start: usize, eof: bool) -> Option<(Field, usize, bool)> {
    let mut out = Vec::new();
    let mut i = start;
    let mut escaped_null = false;
    while i < buf.len() {
        if at(buf, i, &f.field_end) {
            return Some((
                finish_plain(f, out, escaped_null),
                i + f.field_end.len(),
                false,
            ));
        }
        if at(buf, i, &f.line_end) {
            return Some((
                finish_plain(f, out, escaped_null),
                i + f.line_end.len(),
                true,
            ));
        }
        let b = buf[i];
        if Some(b) == f.escape {
            let Some(&c) = buf.get(i + 1) else {
                if eof {
                    out.push(b);
                    i += 1;
                    continue;
                }
                return None;
            };
            if c == b'N' && i == start {
                escaped_null = true;
            }
            out.push(unescape(c));
            i += 2;
            continue;
        }
        if !eof && (partial(buf, i, &f.field_end) || partial(buf, i, &f.line_end)) {
            return None;
        }
        out.push(b);
        i += 1;
    }
    if !eof {
        return None;
    }
    Some((finish_plain(f, out, escaped_null), i, true))
}

/// Whether the input ends inside what may be the start of `sep`.
fn partial(buf: &[u8], i: usize, sep: &[u8]) -> bool {
    sep.len() > 1 && buf.len() - i < sep.len() && sep.starts_with(&buf[i..])
}

fn finish_plain(f: &Format, out: Vec<u8>, escaped_null: bool) -> Field {
    if escaped_null && out == b"N" {
        return None;
    }
    if f.enclosed.is_some() && out == b"NULL" {
        return None;
    }
    Some(out)
}

fn unescape(c: u8) -> u8 {
    match c {
        b'0' => 0,
        b'b' => 8,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'Z' => 26,
        other => other,
    }
}

/// Writes rows in the format, as SELECT ... INTO OUTFILE does.
pub struct Writer {
    fmt: Format,
}

impl Writer {
    pub fn new(fmt: Format) -> Writer {
        Writer { fmt }
    }

    /// Appends one row: each value's bytes (`None` for NULL) and whether it is a
    /// string (OPTIONALLY ENCLOSED BY encloses only those).
    pub fn row(&self, out: &mut Vec<u8>, values: &[(Option<&[u8]>, bool)]) {
        let f = &self.fmt;
        out.extend_from_slice(&f.line_start);
        for (n, (v, is_str)) in values.iter().enumerate() {
            if n > 0 {
                out.extend_from_slice(&f.field_end);
            }
            let Some(bytes) = v else {
                match f.escape {
                    Some(e) => out.extend_from_slice(&[e, b'N']),
                    None => out.extend_from_slice(b"NULL"),
                }
                continue;
            };
            let enclose = f.enclosed.filter(|_| *is_str || !f.optionally);
            if let Some(q) = enclose {
                out.push(q);
            }
            self.escaped(out, bytes, enclose);
            if let Some(q) = enclose {
                out.push(q);
            }
        }
        out.extend_from_slice(&f.line_end);
    }

    fn escaped(&self, out: &mut Vec<u8>, bytes: &[u8], enclose: Option<u8>) {
        let f = &self.fmt;
        let Some(e) = f.escape else {
            out.extend_from_slice(bytes);
            return;
        };
        let special = |b: u8| {
            b == e
                || Some(b) == enclose
                || (enclose.is_none()
                    && (f.field_end.first() == Some(&b) || f.line_end.first() == Some(&b)))
        };
        for &b in bytes {
            if b == 0 {
                out.extend_from_slice(&[e, b'0']);
            } else if special(b) {
                out.extend_from_slice(&[e, b]);
            } else {
                out.push(b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(fmt: Format, input: &[u8], chunk: usize) -> Vec<Vec<Field>> {
        let mut r = Reader::new(fmt);
        let mut out = Vec::new();
        for c in input.chunks(chunk.max(1)) {
            r.feed(c);
            while let Some(rec) = r.next_record() {
                out.push(rec);
            }
        }
        r.finish();
        while let Some(rec) = r.next_record() {
            out.push(rec);
        }
        out
    }

    fn s(v: &str) -> Field {
        Some(v.as_bytes().to_vec())
    }

    #[test]
    fn tab_separated_with_escapes_and_null() {
        let input = b"1\ta\\tb\t\\N\n2\tx\\\\y\tNULL\n3\t\t";
        for chunk in [1, 2, 3, 100] {
            let rows = read_all(Format::default(), input, chunk);
            assert_eq!(
                rows,
                vec![
                    vec![s("1"), s("a\tb"), None],
                    vec![s("2"), s("x\\y"), s("NULL")],
                    vec![s("3"), s(""), s("")],
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn csv_enclosed_with_doubled_quotes_and_newlines() {
        let fmt = Format {
            field_end: b",".to_vec(),
            enclosed: Some(b'"'),
            optionally: true,
            line_end: b"\r\n".to_vec(),
            ..Format::default()
        };
        let input = b"\"a,b\",\"say \"\"hi\"\"\",NULL\r\n\"multi\r\nline\",7,\"\"\r\n";
        for chunk in [1, 4, 1000] {
            let rows = read_all(fmt.clone(), input, chunk);
            assert_eq!(
                rows,
                vec![
                    vec![s("a,b"), s("say \"hi\""), None],
                    vec![s("multi\r\nline"), s("7"), s("")],
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn lines_starting_by_skips_other_lines() {
        let fmt = Format {
            line_start: b"xxx".to_vec(),
            field_end: b",".to_vec(),
            ..Format::default()
        };
        let rows = read_all(fmt, b"xxx1,a\nsomething\nabcxxx2,b\n", 3);
        assert_eq!(rows, vec![vec![s("1"), s("a")], vec![s("2"), s("b")]]);
    }

    #[test]
    fn writer_round_trips_through_reader() {
        let fmt = Format {
            field_end: b",".to_vec(),
            enclosed: Some(b'"'),
            optionally: true,
            ..Format::default()
        };
        let w = Writer::new(fmt.clone());
        let mut out = Vec::new();
        let tricky: &[u8] = b"a\"b,c\n\\d\0e";
        w.row(
            &mut out,
            &[(Some(b"1"), false), (Some(tricky), true), (None, true)],
        );
        let rows = read_all(fmt, &out, 2);
        assert_eq!(rows, vec![vec![s("1"), Some(tricky.to_vec()), None]]);
        let plain = Writer::new(Format::default());
        let mut out = Vec::new();
        plain.row(&mut out, &[(Some(b"a\tb\nc"), true), (None, false)]);
        assert_eq!(out, b"a\\\tb\\\nc\t\\N\n");
        let rows = read_all(Format::default(), &out, 1);
        assert_eq!(rows, vec![vec![s("a\tb\nc"), None]]);
    }
}
