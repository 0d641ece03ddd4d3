//! Stored programs: the language of procedure bodies and anonymous compound
//! statements, compiled from text (see [`parse`], [`compile`]) into a flat list
//! of instructions the session runs (`session/call.rs`).
//!
//! Variables live in a frame of slots held by the session context while a
//! program runs ([`Frame`]); the binder resolves a name that is a visible
//! variable to [`crate::expr::Expr::Local`] before it looks for a column, as
//! MariaDB gives variables precedence over columns.

pub mod compile;
mod compile_decl;
mod compile_row;
pub mod conditions;
mod declare;
mod for_loop;
pub mod function;
pub mod parse;
pub mod row;
pub mod trigger;

use crate::ty::ExprType;
use basalt_common::{ColumnDef, MySqlError, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Names visible at one point of a program: (lower-case name, slot), innermost
/// declaration last. `id` is unique in the process: plans made for statements
/// of this scope are cached under it.
#[derive(Debug)]
pub struct SpScope {
    pub id: u64,
    pub vars: Vec<(String, usize)>,
}

impl SpScope {
    pub fn new(vars: Vec<(String, usize)>) -> Arc<SpScope> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Arc::new(SpScope {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            vars,
        })
    }

    pub fn slot(&self, name: &str) -> Option<usize> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, s)| *s)
    }
}

/// Text to evaluate or run, with the names visible where it stands.
#[derive(Debug, Clone)]
pub struct Code {
    pub text: String,
    pub scope: Arc<SpScope>,
}

#[derive(Debug, Clone)]
pub enum Instr {
    /// A statement (result sets go to the client).
    Sql(Code),
    /// `slot := value` (SET, DECLARE ... DEFAULT).
    Assign {
        slot: usize,
        value: Code,
    },
    /// DECLARE without DEFAULT.
    Null(usize),
    /// Goes to `to` unless the condition is true.
    JumpUnless {
        cond: Code,
        to: usize,
    },
    Jump(usize),
    /// A CASE statement without ELSE matched nothing (1339).
    CaseNotFound,
    /// OPEN: the query runs and its rows are kept (MariaDB's cursors are
    /// insensitive: they read a materialised copy). `reopen`: a FOR loop's
    /// implicit cursor, which a LEAVE out of an enclosing block may have
    /// left open (it opens again; a declared cursor's second OPEN is 1325).
    Open {
        cursor: usize,
        query: Code,
        reopen: bool,
    },
    /// FETCH INTO the slots (NOT FOUND, 1329, past the last row); a FOR
    /// loop's fetch goes to `done` instead.
    Fetch {
        cursor: usize,
        slots: Vec<usize>,
        done: Option<usize>,
    },
    /// An error found when the program was compiled that MariaDB raises when
    /// the statement runs (a ROW TYPE OF whose table is missing, ...).
    Raise(MySqlError),
    Close(usize),
    /// SIGNAL / RESIGNAL with `SET item = value` items.
    Signal {
        resignal: bool,
        cond: Option<CondValue>,
        items: Vec<(String, Code)>,
    },
    /// The end of handler `n`'s statement.
    HandlerEnd(usize),
    /// A stored function's RETURN.
    Return(Code),
}

/// A condition with names resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CondValue {
    SqlState(String),
    Errno(u16),
    SqlWarning,
    NotFound,
    SqlException,
}

impl CondValue {
    /// Whether an error or warning (`warning`) of (errno, SQLSTATE) raises
    /// this condition, and how specifically (errno 3, SQLSTATE 2, class 1;
    /// SQLWARNING takes every warning, after NOT FOUND, as MariaDB).
    pub fn matches(&self, code: u16, state: &str, warning: bool) -> Option<u8> {
        let class = &state[..state.len().min(2)];
        match self {
            CondValue::Errno(n) if *n == code => Some(3),
            CondValue::SqlState(s) if s == state => Some(2),
            CondValue::SqlWarning if class == "01" => Some(1),
            CondValue::SqlWarning if warning => Some(0),
            CondValue::NotFound if class == "02" => Some(1),
            CondValue::SqlException if !matches!(class, "00" | "01" | "02") => Some(1),
            _ => None,
        }
    }
}

/// A DECLARE ... HANDLER: the instruction range it covers, its conditions,
/// where its statement starts and ends, and for EXIT where it leaves to.
#[derive(Debug, Clone)]
pub struct HandlerDef {
    pub start: usize,
    pub end: usize,
    pub conds: Vec<CondValue>,
    pub body: usize,
    pub body_end: usize,
    pub exit_to: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    In,
    Out,
    InOut,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::In => "IN",
            Mode::Out => "OUT",
            Mode::InOut => "INOUT",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamDef {
    pub mode: Mode,
    pub name: String,
    pub type_text: String,
}

#[derive(Debug, Clone)]
pub struct Program {
    pub instrs: Vec<Instr>,
    /// The body line each instruction's statement starts on (from 1).
    pub lines: Vec<u32>,
    /// (name, type text) of each slot: the parameters, then every DECLAREd
    /// variable.
    pub slot_types: Vec<(String, String)>,
    pub handlers: Vec<HandlerDef>,
    /// Cursors declared (each numbered).
    pub cursors: usize,
    /// Some variable's type was read from the catalog (ROW TYPE OF, TYPE OF,
    /// a FOR loop's record): the program compiles again after DDL.
    pub catalog_types: bool,
}

/// Where the fields of a ROW TYPE OF, TYPE OF or FOR loop record come from.
#[derive(Debug, Clone, Copy)]
pub enum RowSource<'a> {
    /// A query's result columns (a cursor's, or a FOR loop's).
    Query(&'a Code),
    /// A table's columns.
    Table(Option<&'a str>, &'a str),
    /// One column of a table.
    Column(Option<&'a str>, &'a str, &'a str),
}

/// Resolves [`RowSource`]s against the catalog while a program compiles.
pub trait RowTypes {
    /// (name, type text) of each field; `slots` are (name, type text) of the
    /// slots declared so far (a query may use them).
    fn fields(
        &mut self,
        src: RowSource<'_>,
        slots: &[(String, String)],
    ) -> Result<Vec<(String, String)>, MySqlError>;

    /// Whether an error resolving a type waits until its declaration runs
    /// (at CREATE, where the tables may not exist yet); otherwise it fails
    /// the compile, as MariaDB's CALL fails before the body runs.
    fn defer_errors(&self) -> bool;
}

/// For compiling with no catalog at hand: every catalog type is 1235.
pub struct NoCatalog;

impl RowTypes for NoCatalog {
    fn fields(
        &mut self,
        _: RowSource<'_>,
        _: &[(String, String)],
    ) -> Result<Vec<(String, String)>, MySqlError> {
        Err(MySqlError::not_supported("TYPE OF here"))
    }

    fn defer_errors(&self) -> bool {
        true
    }
}

/// A slot's declared type.
#[derive(Debug, Clone)]
pub struct SlotDef {
    pub col: ColumnDef,
    pub ty: ExprType,
}

/// The declared type of a variable (`type_text` as a column type; a table
/// collation of `coll`).
pub fn slot_def(
    name: &str,
    type_text: &str,
    coll: basalt_common::Collation,
    cx: &crate::session::ctx::SessionCtx,
) -> Result<SlotDef, MySqlError> {
    // MariaDB's CHARSET abbreviation (as SHOW CREATE FUNCTION prints it).
    let words: Vec<&str> = type_text.split_whitespace().collect();
    let type_text = words
        .iter()
        .map(|w| {
            if w.eq_ignore_ascii_case("charset") {
                "CHARACTER SET"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let text = format!(
        "CREATE TABLE `sp` (`{}` {type_text})",
        name.replace('`', "``")
    );
    let opts = crate::front::LitOpts {
        backslash: !cx.mode.no_backslash_escapes,
        markers: false,
        pipes_as_concat: false,
    };
    // The front end's rewrites (CHARSET for CHARACTER SET, ...) apply.
    let text = match crate::front::analyze_with(&text, opts)? {
        crate::front::Front::Parse(t) => t,
        _ => text,
    };
    let stmt = crate::front::parse::parse_statement(&text)?;
    let sqlparser::ast::Statement::CreateTable(ct) = stmt else {
        return Err(MySqlError::parse_error(&type_text, 1));
    };
    let c = ct
        .columns
        .first()
        .filter(|_| ct.columns.len() == 1 && ct.constraints.is_empty())
        .ok_or_else(|| MySqlError::parse_error(&type_text, 1))?;
    let (mut col, _, _) = crate::bind::ddl::column_def(c, coll, cx)?;
    // A variable holds local times; only columns keep TIMESTAMPs in UTC.
    if let basalt_common::DataType::Timestamp { fsp } = col.data_type {
        col.data_type = basalt_common::DataType::DateTime { fsp };
    }
    col.nullable = true;
    let ty = ExprType::of_column(&col);
    Ok(SlotDef { col, ty })
}

/// A type as MariaDB prints a function's RETURNS: `int(11)`,
/// `varchar(10) CHARSET latin1 COLLATE latin1_swedish_ci`.
pub fn returns_text(def: &SlotDef) -> String {
    type_text(&def.col.data_type)
}

/// A column type as a variable's declaration can name it.
pub fn type_text(dt: &basalt_common::DataType) -> String {
    let mut out = dt.sql_name();
    if let Some(c) = dt.collation().filter(|c| !c.is_binary()) {
        out.push_str(&format!(
            " CHARSET {} COLLATE {}",
            c.charset().name(),
            c.name()
        ));
    }
    out
}

/// The variables of the running program.
#[derive(Debug)]
pub struct Frame {
    pub values: Vec<Value>,
    pub slots: Arc<[SlotDef]>,
    /// The names the running instruction sees.
    pub scope: Arc<SpScope>,
}

impl Frame {
    /// The slot and type of a visible variable.
    pub fn lookup(&self, name: &str) -> Option<(usize, &ExprType)> {
        let slot = self.scope.slot(name)?;
        Some((slot, &self.slots.get(slot)?.ty))
    }
}

/// The parameter list of a CREATE PROCEDURE / FUNCTION (`function`: no modes).
pub fn parse_params(text: &str, function: bool) -> Result<Vec<ParamDef>, MySqlError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut out: Vec<ParamDef> = Vec::new();
    for part in crate::front::native::routine::split_commas(text) {
        let mut rest = part.trim();
        let mut mode = Mode::In;
        if !function {
            for (kw, m) in [("inout", Mode::InOut), ("in", Mode::In), ("out", Mode::Out)] {
                let n = kw.len();
                if rest.len() > n
                    && rest.get(..n).is_some_and(|h| h.eq_ignore_ascii_case(kw))
                    && rest.as_bytes()[n].is_ascii_whitespace()
                {
                    mode = m;
                    rest = rest[n..].trim_start();
                    break;
                }
            }
        }
        let (name, ty) = match rest.strip_prefix('`') {
            Some(q) => {
                let end = q
                    .find('`')
                    .ok_or_else(|| MySqlError::parse_error(rest, 1))?;
                (q[..end].to_string(), q[end + 1..].trim())
            }
            None => {
                let end = rest
                    .find(|c: char| c.is_whitespace())
                    .ok_or_else(|| MySqlError::parse_error(rest, 1))?;
                (rest[..end].to_string(), rest[end..].trim())
            }
        };
        if ty.is_empty() {
            return Err(MySqlError::parse_error(&part, 1));
        }
        if out.iter().any(|p| p.name.eq_ignore_ascii_case(&name)) {
            return Err(MySqlError::new(
                1330,
                "42000",
                format!("Duplicate parameter: {name}"),
            ));
        }
        out.push(ParamDef {
            mode,
            name,
            type_text: ty.to_string(),
        });
    }
    Ok(out)
}

/// The lines of `statement` (a program's CREATE text as SHOW CREATE prints
/// it, ending with `body`) each instruction's statement starts on: MariaDB's
/// note 4094 `At line N in db.name` counts them so.
pub fn statement_lines(program: &Program, statement: &str, body: &str) -> Arc<[u32]> {
    let header = header_lines(statement, body);
    program.lines.iter().map(|l| header + l).collect()
}

/// The lines of `statement` before its `body`.
pub fn header_lines(statement: &str, body: &str) -> u32 {
    statement
        .strip_suffix(body)
        .map_or(0, |h| h.matches('\n').count() as u32)
}

/// Note 4094 for an error leaving the program `db`.`name` at `line`.
pub fn line_note(line: u32, db: &str, name: &str) -> (u16, String) {
    (4094, format!("At line {line} in {db}.{name}"))
}

/// Note 4094 for an error leaving a compound statement at `line`.
pub fn anonymous_line_note(line: u32) -> (u16, String) {
    (4094, format!("At line {line} in anonymous block"))
}

/// 1414: an OUT / INOUT argument (`n`, from 1) of routine `db`.`name` that is
/// no variable.
pub fn out_not_variable(n: usize, db: &str, name: &str) -> basalt_common::MySqlError {
    basalt_common::MySqlError::new(
        1414,
        "42000",
        format!(
            "OUT or INOUT argument {n} for routine {db}.{name} is not a variable or NEW pseudo-variable in BEFORE trigger"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_lists() {
        let p = parse_params(
            "in a int, OUT `b c` varchar(10), inout d decimal(10, 2), e text",
            false,
        )
        .expect("test type parses");
        assert_eq!(p.len(), 4);
        assert_eq!((p[1].mode, p[1].name.as_str()), (Mode::Out, "b c"));
        assert_eq!(p[2].type_text, "decimal(10, 2)");
        assert_eq!(p[3].mode, Mode::In);
        assert_eq!(parse_params("a int, A int", false).unwrap_err().code, 1330);
    }
}
