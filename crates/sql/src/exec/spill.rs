//! Rows on disk: the temporary files behind external sorts and spooled results.
//!
//! A [`SpillFile`] is created in `tmpdir` and unlinked at once (as MariaDB's
//! temporary files are), so it disappears with its last handle, also when the
//! server dies. Rows are appended through a write buffer; a *run* is the byte range
//! between two [`SpillFile::mark`]s and is read back with a [`RunReader`] of its own
//! (positional reads, so any number of readers share one file descriptor).
//!
//! Row format: `varint(len)` then `len` bytes: `varint(columns)` and per value a
//! tag byte and its payload — 0 NULL; 1 Int, 2 UInt, 3 Double (8 bytes LE); 4
//! Decimal (mantissa i128 LE, scale u8); 5 Bytes (varint length, bytes); 6 Date
//! (year u16, month, day); 7 DateTime (date, hour, minute, second, micro u32); 8
//! Time (negative, hours u16, minute, second, micro u32); 9 Enum (number u64 LE,
//! then as Bytes). The format only lives as
//! long as the statement (or cursor) that wrote it.
//!
//! [`RowSpool`] keeps rows in memory up to a byte limit and moves them to a spill
//! file beyond it; it hands them back in insertion order.

use super::mem::row_bytes;
use basalt_common::{Date, DateTime, Decimal, MySqlError, Row, Time, Value};
use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// Buffered bytes written (and read) per syscall.
const IO_CHUNK: usize = 64 << 10;

static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

fn io_errno(e: &std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(0)
}

/// An unlinked temporary file that rows are appended to.
pub struct SpillFile {
    file: Arc<File>,
    name: Arc<str>,
    wbuf: Vec<u8>,
    /// Bytes in the file (excluding `wbuf`).
    written: u64,
}

impl SpillFile {
    /// A new empty file in `dir`.
    /// Temporary files made so far (`Created_tmp_files`).
    pub fn created() -> u64 {
        NEXT_FILE.load(Ordering::Relaxed)
    }

    pub fn create(dir: &Path) -> R<SpillFile> {
        let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("#basalt-{}-{n}.tmp", std::process::id()));
        let name: Arc<str> = path.display().to_string().into();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| MySqlError::error_on_write(&name, io_errno(&e), &e.to_string()))?;
        // Unlinked at once: the file lives as long as the handle, and never outlives
        // the process.
        let _ = std::fs::remove_file(&path);
        Ok(SpillFile {
            file: Arc::new(file),
            name,
            wbuf: Vec::with_capacity(IO_CHUNK),
            written: 0,
        })
    }

    /// Appends one row.
    pub fn push(&mut self, row: &[Value]) -> R<()> {
        let start = self.wbuf.len();
        self.wbuf.extend_from_slice(&[0; 5]);
        encode_row(&mut self.wbuf, row);
        let len = self.wbuf.len() - start - 5;
        // A fixed 5-byte length prefix (a varint padded with continuation bits), so
        // the row is encoded once, in place.
        let mut v = len as u64;
        for i in 0..5 {
            let more = if i < 4 { 0x80 } else { 0 };
            self.wbuf[start + i] = (v & 0x7f) as u8 | more;
            v >>= 7;
        }
        if self.wbuf.len() >= IO_CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> R<()> {
        if self.wbuf.is_empty() {
            return Ok(());
        }
        (&*self.file)
            .write_all(&self.wbuf)
            .map_err(|e| MySqlError::error_on_write(&self.name, io_errno(&e), &e.to_string()))?;
        self.written += self.wbuf.len() as u64;
        self.wbuf.clear();
        Ok(())
    }

    /// Writes out what is buffered and returns the end offset: the rows pushed
    /// since the previous mark form the run `previous..returned`.
    pub fn mark(&mut self) -> R<u64> {
        self.flush()?;
        Ok(self.written)
    }

    /// A reader of the run `start..end` (offsets from [`SpillFile::mark`]).
    pub fn reader(&self, start: u64, end: u64, buffer: usize) -> RunReader {
        RunReader {
            file: self.file.clone(),
            name: self.name.clone(),
            pos: start,
            end,
            buf: Vec::with_capacity(buffer.max(4096)),
            at: 0,
        }
    }
}

/// Sequential reader of one run of a spill file.
pub struct RunReader {
    file: Arc<File>,
    name: Arc<str>,
    /// File offset of the first byte not yet in `buf`.
    pos: u64,
    end: u64,
    buf: Vec<u8>,
    /// Next unread byte of `buf`.
    at: usize,
}

impl RunReader {
    /// Makes at least `need` unread bytes available; false at the end of the run.
    fn fill(&mut self, need: usize) -> R<bool> {
        if self.buf.len() - self.at >= need {
            return Ok(true);
        }
        self.buf.drain(..self.at);
        self.at = 0;
        let cap = self.buf.capacity().max(need);
        while self.buf.len() < need {
            let left = self.end - self.pos;
            if left == 0 {
                return Ok(false);
            }
            let want = (cap - self.buf.len()).max(need - self.buf.len()) as u64;
            let n = want.min(left) as usize;
            let old = self.buf.len();
            self.buf.resize(old + n, 0);
            self.file
                .read_exact_at(&mut self.buf[old..], self.pos)
                .map_err(|e| MySqlError::error_on_read(&self.name, io_errno(&e), &e.to_string()))?;
            self.pos += n as u64;
        }
        Ok(true)
    }

    /// The next row of the run, `None` after the last.
    pub fn next_row(&mut self) -> R<Option<Row>> {
        if !self.fill(5)? {
            if self.buf.len() > self.at {
                return Err(corrupt(&self.name));
            }
            return Ok(None);
        }
        let mut len = 0usize;
        for i in 0..5 {
            len |= ((self.buf[self.at + i] & 0x7f) as usize) << (7 * i);
        }
        self.at += 5;
        if !self.fill(len)? {
            return Err(corrupt(&self.name));
        }
        let row =
            decode_row(&self.buf[self.at..self.at + len]).ok_or_else(|| corrupt(&self.name))?;
        self.at += len;
        Ok(Some(row))
    }
}

fn corrupt(name: &str) -> MySqlError {
    MySqlError::error_on_read(name, 0, "truncated or corrupt row")
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(buf: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*at)?;
        *at += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Appends the encoding of `row` (see the module docs).
pub fn encode_row(out: &mut Vec<u8>, row: &[Value]) {
    put_varint(out, row.len() as u64);
    for v in row {
        match v {
            Value::Null => out.push(0),
            Value::Int(i) => {
                out.push(1);
                out.extend_from_slice(&i.to_le_bytes());
            }
            Value::UInt(u) => {
                out.push(2);
                out.extend_from_slice(&u.to_le_bytes());
            }
            Value::Double(d) => {
                out.push(3);
                out.extend_from_slice(&d.to_bits().to_le_bytes());
            }
            Value::Decimal(d) => {
                out.push(4);
                out.extend_from_slice(&d.mantissa.to_le_bytes());
                out.push(d.scale);
            }
            Value::Bytes(b) => {
                out.push(5);
                put_varint(out, b.len() as u64);
                out.extend_from_slice(b);
            }
            Value::Date(d) => {
                out.push(6);
                put_date(out, d);
            }
            Value::DateTime(dt) => {
                out.push(7);
                put_date(out, &dt.date);
                out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
                out.extend_from_slice(&dt.micro.to_le_bytes());
            }
            Value::Time(t) => {
                out.push(8);
                out.push(t.negative as u8);
                out.extend_from_slice(&t.hours.to_le_bytes());
                out.extend_from_slice(&[t.minute, t.second]);
                out.extend_from_slice(&t.micro.to_le_bytes());
            }
            Value::Enum(n, b) => {
                out.push(9);
                out.extend_from_slice(&n.to_le_bytes());
                put_varint(out, b.len() as u64);
                out.extend_from_slice(b);
            }
        }
    }
}

fn put_date(out: &mut Vec<u8>, d: &Date) {
    out.extend_from_slice(&d.year.to_le_bytes());
    out.extend_from_slice(&[d.month, d.day]);
}

fn take<'a>(buf: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
    let s = buf.get(*at..*at + n)?;
    *at += n;
    Some(s)
}

fn take_arr<const N: usize>(buf: &[u8], at: &mut usize) -> Option<[u8; N]> {
    take(buf, at, N)?.try_into().ok()
}

fn get_date(buf: &[u8], at: &mut usize) -> Option<Date> {
    let [y0, y1, month, day] = take_arr::<4>(buf, at)?;
    Some(Date {
        year: u16::from_le_bytes([y0, y1]),
        month,
        day,
    })
}

/// Decodes one row written by [`encode_row`]; `None` if the bytes are not one.
pub fn decode_row(buf: &[u8]) -> Option<Row> {
    let mut at = 0;
    let n = get_varint(buf, &mut at)? as usize;
    let mut row = Vec::with_capacity(n.min(buf.len()));
    for _ in 0..n {
        let tag = *take(buf, &mut at, 1)?.first()?;
        row.push(match tag {
            0 => Value::Null,
            1 => Value::Int(i64::from_le_bytes(take_arr(buf, &mut at)?)),
            2 => Value::UInt(u64::from_le_bytes(take_arr(buf, &mut at)?)),
            3 => Value::Double(f64::from_bits(u64::from_le_bytes(take_arr(buf, &mut at)?))),
            4 => {
                let mantissa = i128::from_le_bytes(take_arr(buf, &mut at)?);
                let [scale] = take_arr::<1>(buf, &mut at)?;
                Value::Decimal(Decimal { mantissa, scale })
            }
            5 => {
                let len = get_varint(buf, &mut at)? as usize;
                Value::Bytes(take(buf, &mut at, len)?.to_vec())
            }
            6 => Value::Date(get_date(buf, &mut at)?),
            7 => {
                let date = get_date(buf, &mut at)?;
                let [hour, minute, second] = take_arr::<3>(buf, &mut at)?;
                let micro = u32::from_le_bytes(take_arr(buf, &mut at)?);
                Value::DateTime(DateTime {
                    date,
                    hour,
                    minute,
                    second,
                    micro,
                })
            }
            8 => {
                let [negative] = take_arr::<1>(buf, &mut at)?;
                let hours = u16::from_le_bytes(take_arr(buf, &mut at)?);
                let [minute, second] = take_arr::<2>(buf, &mut at)?;
                let micro = u32::from_le_bytes(take_arr(buf, &mut at)?);
                Value::Time(Time {
                    negative: negative != 0,
                    hours,
                    minute,
                    second,
                    micro,
                })
            }
            9 => {
                let n = u64::from_le_bytes(take_arr(buf, &mut at)?);
                let len = get_varint(buf, &mut at)? as usize;
                Value::Enum(n, take(buf, &mut at, len)?.to_vec())
            }
            _ => return None,
        });
    }
    (at == buf.len()).then_some(row)
}

/// Rows kept in insertion order: in memory up to `mem_limit` bytes, then in a
/// spill file under `dir`.
pub struct RowSpool {
    dir: PathBuf,
    mem: VecDeque<Row>,
    mem_bytes: usize,
    mem_limit: usize,
    file: Option<SpillFile>,
    /// Rows pushed and not yet taken.
    len: u64,
    /// End offset of the written rows, once reading started.
    end: Option<u64>,
    reader: Option<RunReader>,
}

impl RowSpool {
    pub fn new(dir: PathBuf, mem_limit: usize) -> Self {
        RowSpool {
            dir,
            mem: VecDeque::new(),
            mem_bytes: 0,
            mem_limit,
            file: None,
            len: 0,
            end: None,
            reader: None,
        }
    }

    /// Appends a row (only before the first [`RowSpool::next_row`]).
    pub fn push(&mut self, row: Row) -> R<()> {
        self.len += 1;
        if let Some(f) = &mut self.file {
            return f.push(&row);
        }
        self.mem_bytes += row_bytes(&row);
        self.mem.push_back(row);
        if self.mem_bytes > self.mem_limit {
            let mut f = SpillFile::create(&self.dir)?;
            for r in self.mem.drain(..) {
                f.push(&r)?;
            }
            self.mem_bytes = 0;
            self.file = Some(f);
        }
        Ok(())
    }

    /// Rows not taken yet.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the rows went to disk.
    pub fn spilled(&self) -> bool {
        self.file.is_some()
    }

    /// Takes the next row in insertion order.
    pub fn next_row(&mut self) -> R<Option<Row>> {
        let Some(f) = &mut self.file else {
            let r = self.mem.pop_front();
            if let Some(r) = &r {
                self.len -= 1;
                self.mem_bytes = self.mem_bytes.saturating_sub(row_bytes(r));
            }
            return Ok(r);
        };
        if self.reader.is_none() {
            let end = f.mark()?;
            self.end = Some(end);
            self.reader = Some(f.reader(0, end, IO_CHUNK));
        }
        let Some(reader) = self.reader.as_mut() else {
            return Ok(None);
        };
        let r = reader.next_row()?;
        if r.is_some() {
            self.len -= 1;
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Row> {
        vec![
            vec![
                Value::Null,
                Value::Int(-5),
                Value::UInt(u64::MAX),
                Value::Double(-0.25),
            ],
            vec![
                Value::Decimal(Decimal::new(-12345, 3)),
                Value::Bytes(vec![0, 255, 10]),
                Value::Date(Date::new(2024, 2, 29)),
            ],
            vec![
                Value::DateTime(DateTime::parse("2024-01-02 03:04:05.678901").expect("dt")),
                Value::Time(Time::parse("-838:59:59").expect("time")),
                Value::Enum(5, b"a,c".to_vec()),
            ],
            vec![],
        ]
    }

    #[test]
    fn rows_round_trip() {
        for row in sample() {
            let mut buf = Vec::new();
            encode_row(&mut buf, &row);
            assert_eq!(decode_row(&buf), Some(row.clone()));
            assert_eq!(decode_row(&buf[..buf.len().saturating_sub(1)]), None);
        }
    }

    #[test]
    fn runs_read_back_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut f = SpillFile::create(dir.path()).expect("create");
        assert_eq!(
            std::fs::read_dir(dir.path()).expect("ls").count(),
            0,
            "unlinked at once"
        );
        let big = vec![Value::Bytes(vec![7; 100_000])];
        let rows: Vec<Row> = (0..2000)
            .map(|i| vec![Value::Int(i), Value::str(&"x".repeat(i as usize % 50))])
            .chain(std::iter::once(big))
            .collect();
        for r in &rows[..1000] {
            f.push(r).expect("push");
        }
        let m1 = f.mark().expect("mark");
        for r in &rows[1000..] {
            f.push(r).expect("push");
        }
        let m2 = f.mark().expect("mark");
        let mut second = f.reader(m1, m2, 4096);
        let mut first = f.reader(0, m1, 4096);
        for r in &rows[..1000] {
            assert_eq!(first.next_row().expect("read").as_ref(), Some(r));
        }
        assert_eq!(first.next_row().expect("end"), None);
        for r in &rows[1000..] {
            assert_eq!(second.next_row().expect("read").as_ref(), Some(r));
        }
        assert_eq!(second.next_row().expect("end"), None);
    }

    #[test]
    fn spool_spills_past_its_limit_and_keeps_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        for limit in [1 << 20, 1000] {
            let mut s = RowSpool::new(dir.path().to_path_buf(), limit);
            for i in 0..500 {
                s.push(vec![Value::Int(i)]).expect("push");
            }
            assert_eq!(s.spilled(), limit == 1000);
            assert_eq!(s.len(), 500);
            for i in 0..500 {
                assert_eq!(s.next_row().expect("next"), Some(vec![Value::Int(i)]));
            }
            assert_eq!(s.next_row().expect("end"), None);
            assert!(s.is_empty());
        }
    }
}
