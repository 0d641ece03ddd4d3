//! `SELECT ... INTO @vars | OUTFILE | DUMPFILE`: the query runs as usual and its
//! rows go to a sink of this module instead of the client.
//!
//! - `@vars`: the one row's values; no row leaves the variables as they were
//!   with warning 1329, a second row is error 1172, a column count that differs
//!   from the variables' is 1222.
//! - OUTFILE: every row in the delimited text format (see `exec::textfile`),
//!   streamed to a new file; DUMPFILE: the one row's values, raw. Both create the
//!   file (1086 if it exists) inside `--secure-file-priv` only, as server-side
//!   LOAD DATA reads; a failed statement removes what it wrote.
//!
//! Values are written as their string form (CAST(x AS CHAR)), text in the
//! `CHARACTER SET` of the clause or as held (UTF-8).

use super::load::lexically_inside;
use super::{Out, Session};
use crate::exec::textfile::Writer;
use crate::front::native::{IntoTarget, IntoVar, SelectInto};
use crate::result::{Ending, QueryResult, ResultSink};
use basalt_common::{Charset, ColumnMeta, MySqlError, Row, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

impl Session {
    pub(super) fn select_into(&mut self, s: SelectInto) -> R<QueryResult> {
        if s.after_from {
            self.cx.warn(
                super::ctx::Level::Warning,
                1287,
                "'<select expression> INTO <destination>;' is deprecated and will be removed in a future release. Please use 'SELECT <select list> INTO <destination> FROM...' instead",
            );
        }
        match s.target {
            IntoTarget::Vars(vars) => self.select_into_vars(&s.query, vars),
            IntoTarget::Outfile {
                file,
                charset,
                format,
            } => {
                let cs = match charset {
                    Some(n) => Some(
                        Charset::from_name(&n)
                            .ok_or_else(|| MySqlError::unknown_character_set(&n))?,
                    ),
                    None => None,
                };
                format.validate()?;
                let kind = FileKind::Outfile(Writer::new(format), cs);
                self.select_into_file(&s.query, &file, kind)
            }
            IntoTarget::Dumpfile(file) => {
                self.select_into_file(&s.query, &file, FileKind::Dumpfile)
            }
        }
    }

    fn select_into_vars(&mut self, query: &str, vars: Vec<IntoVar>) -> R<QueryResult> {
        let vars = self.targets_of(vars)?;
        let mut sink = VarSink::default();
        self.run_query(query, &mut Out::new(&mut sink))?;
        if sink.width != vars.len() {
            return Err(MySqlError::new(
                1222,
                "21000",
                "The used SELECT statements have a different number of columns",
            ));
        }
        if sink.rows > 1 {
            return Err(too_many_rows());
        }
        let Some(row) = sink.first else {
            self.cx.warn(
                super::ctx::Level::Warning,
                1329,
                "No data - zero rows fetched, selected, or processed",
            );
            return Ok(ok(0, self.warning_count()));
        };
        for (i, (var, v)) in vars.into_iter().zip(row).enumerate() {
            match var {
                Target::User(name) => {
                    let fsp = sink.fsp.get(i).copied().unwrap_or(0);
                    self.cx
                        .user_vars
                        .insert(name, crate::value::user_var_value(v, fsp));
                }
                Target::Slot(slot) => self.sp_assign(slot, v)?,
            }
        }
        Ok(ok(1, self.warning_count()))
    }

    /// INTO's targets, a ROW variable as its fields.
    fn targets_of(&self, vars: Vec<IntoVar>) -> R<Vec<Target>> {
        let mut out = Vec::with_capacity(vars.len());
        for v in vars {
            match v {
                IntoVar::User(name) => out.push(Target::User(name)),
                IntoVar::Local(name) => {
                    let fields = self
                        .cx
                        .sp
                        .as_ref()
                        .and_then(|f| crate::sp::row::row_fields(&f.scope.vars, &name));
                    match fields {
                        Some(f) => out.extend(f.into_iter().map(Target::Slot)),
                        None => out.push(Target::Slot(self.local_slot(&name)?)),
                    }
                }
            }
        }
        Ok(out)
    }

    fn select_into_file(&mut self, query: &str, name: &[u8], kind: FileKind) -> R<QueryResult> {
        let path = new_file_path(self.cx.engine.config.secure_file_priv.as_deref(), name)?;
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => MySqlError::new(
                    1086,
                    "HY000",
                    format!("File '{}' already exists", path.display()),
                ),
                _ => MySqlError::new(
                    1,
                    "HY000",
                    format!(
                        "Can't create/write to file '{}' (Errcode: {e})",
                        path.display()
                    ),
                ),
            })?;
        let mut sink = FileSink {
            out: std::io::BufWriter::with_capacity(64 << 10, file),
            kind,
            buf: Vec::new(),
            rows: 0,
            path: path.clone(),
            fsp: Vec::new(),
        };
        let r = self
            .parse_run(query, &mut Out::new(&mut sink))
            .and_then(|_| sink.finish());
        match r {
            Ok(rows) => Ok(ok(rows, self.warning_count())),
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                Err(e)
            }
        }
    }
}

fn ok(rows: u64, warnings: u16) -> QueryResult {
    QueryResult::Ok {
        affected_rows: rows,
        last_insert_id: 0,
        info: String::new(),
        warnings,
    }
}

fn too_many_rows() -> MySqlError {
    MySqlError::new(1172, "42000", "Result consisted of more than one row")
}

/// Where OUTFILE / DUMPFILE may create `name`: inside `--secure-file-priv`, in a
/// directory that exists.
fn new_file_path(dir: Option<&Path>, name: &[u8]) -> R<PathBuf> {
    let dir = dir.ok_or_else(MySqlError::secure_file_priv)?;
    let name = String::from_utf8_lossy(name);
    let path = Path::new(&*name);
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    };
    let (Some(parent), Some(file)) = (full.parent(), full.file_name()) else {
        return Err(MySqlError::secure_file_priv());
    };
    if !lexically_inside(&full, dir) {
        return Err(MySqlError::secure_file_priv());
    }
    // A directory that does not exist cannot be shown to be inside it.
    let real = std::fs::canonicalize(parent).map_err(|_| MySqlError::secure_file_priv())?;
    if !real.starts_with(dir) {
        return Err(MySqlError::secure_file_priv());
    }
    Ok(real.join(file))
}

/// Keeps the first row of `SELECT ... INTO @vars` and counts the rest.
#[derive(Default)]
pub(super) struct VarSink {
    pub width: usize,
    /// The fractional digits of each column (a temporal value goes into a
    /// user variable as its text).
    pub fsp: Vec<u8>,
    pub first: Option<Row>,
    pub rows: u64,
}

impl ResultSink for VarSink {
    fn columns(&mut self, columns: &Arc<[ColumnMeta]>, _status: u16) {
        self.width = columns.len();
        self.fsp = columns.iter().map(|c| c.decimals).collect();
    }

    fn row(&mut self, row: &mut Row) -> R<()> {
        self.rows += 1;
        if self.rows == 1 {
            self.first = Some(std::mem::take(row));
            return Ok(());
        }
        // A second row fails the statement now (MariaDB stops at it too).
        Err(too_many_rows())
    }

    fn end(&mut self, _ending: Ending<'_>, _status: u16) {}
}

enum FileKind {
    Outfile(Writer, Option<Charset>),
    Dumpfile,
}

/// Writes the rows of OUTFILE / DUMPFILE.
struct FileSink {
    out: std::io::BufWriter<std::fs::File>,
    kind: FileKind,
    buf: Vec<u8>,
    rows: u64,
    path: PathBuf,
    /// Fractional digits of each column.
    fsp: Vec<u8>,
}

fn is_number(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_)
    )
}

impl FileSink {
    fn write_error(&self, e: std::io::Error) -> MySqlError {
        MySqlError::new(
            3,
            "HY000",
            format!(
                "Error writing file '{}' (Errcode: {e})",
                self.path.display()
            ),
        )
    }

    fn finish(&mut self) -> R<u64> {
        self.out.flush().map_err(|e| self.write_error(e))?;
        self.out
            .get_ref()
            .sync_all()
            .map_err(|e| self.write_error(e))?;
        Ok(self.rows)
    }
}

/// A value's bytes as written to the file, temporal values with their column's
/// fractional digits; `None` for NULL.
fn value_text(v: &Value, fsp: u8, cs: Option<Charset>) -> Option<Vec<u8>> {
    let b = match v {
        Value::Null => return None,
        Value::Date(_) | Value::DateTime(_) | Value::Time(_) => v.to_text(fsp)?,
        _ => crate::value::to_bytes(v),
    };
    Some(match cs {
        Some(cs) if !b.is_ascii() || !cs.ascii_compatible() => {
            basalt_common::charset::from_internal(&b, cs).into_owned()
        }
        _ => b,
    })
}

impl ResultSink for FileSink {
    fn columns(&mut self, columns: &Arc<[ColumnMeta]>, _status: u16) {
        self.fsp = columns.iter().map(|c| c.decimals.min(6)).collect();
    }

    fn row(&mut self, row: &mut Row) -> R<()> {
        self.rows += 1;
        self.buf.clear();
        let fsp = |i: usize| self.fsp.get(i).copied().unwrap_or(0);
        match &self.kind {
            FileKind::Outfile(w, cs) => {
                // OPTIONALLY ENCLOSED BY encloses all but numbers.
                let texts: Vec<(Option<Vec<u8>>, bool)> = row
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (value_text(v, fsp(i), *cs), !is_number(v)))
                    .collect();
                let refs: Vec<(Option<&[u8]>, bool)> =
                    texts.iter().map(|(t, s)| (t.as_deref(), *s)).collect();
                w.row(&mut self.buf, &refs);
            }
            FileKind::Dumpfile => {
                if self.rows > 1 {
                    return Err(too_many_rows());
                }
                for (i, v) in row.iter().enumerate() {
                    if let Some(t) = value_text(v, fsp(i), None) {
                        self.buf.extend_from_slice(&t);
                    }
                }
            }
        }
        let buf = std::mem::take(&mut self.buf);
        let r = self.out.write_all(&buf).map_err(|e| self.write_error(e));
        self.buf = buf;
        r
    }

    fn end(&mut self, _ending: Ending<'_>, _status: u16) {}
}

/// A SELECT ... INTO target: a user variable or a program's slot.
enum Target {
    User(String),
    Slot(usize),
}
