//! Bounded recursion: how deep a statement may nest, and never overflowing the real
//! stack while parsing, binding or evaluating it.
//!
//! # What is allowed: MariaDB's limits, on a virtual stack
//!
//! MariaDB resolves an expression by recursion (`fix_fields`) and, before each item,
//! checks its real thread stack: when fewer than 32,000 bytes of the 299,008-byte
//! `thread_stack` would remain, the statement fails with errno 1436
//! (ER_STACK_OVERRUN_NEED_MORE). Its limits therefore depend on the kind of item:
//! `1+1+...+1` runs with 593 terms and fails with 594, nested CONCAT fails at 552,
//! a LIKE chain at 501. Parentheses, AND/OR lists (flattened into one item), unary
//! plus, `NOT NOT x` and negated literals take no depth (the parser folds them), so
//! `WHERE a=0 OR ... OR a=99999` runs.
//!
//! [`Budget`] replays that on a virtual stack: each bound item charges the bytes
//! MariaDB 10.11 (x86-64, Debian build) spends on it, measured by bisection against
//! a real server at two `thread_stack` sizes ([`cost`], [`base`]). Binding fails with
//! 1436, and MariaDB's message, at the same depth as MariaDB. Subquery nesting is
//! bounded separately (errno 1473 beyond 63 levels, see `front::parse`).
//!
//! # Not crashing: the real stack
//!
//! The virtual budget bounds the depth of every *bound* expression, so walks over
//! bound expressions (evaluation, planning, clone, drop) are bounded too. What is not
//! bounded by it, and how each is handled:
//! - the sqlparser AST: operator chains are built by a loop and can be as deep as the
//!   statement is long (`a=0 OR a=1 ...`); its derived `Drop` and `Clone` recurse.
//!   A long statement therefore runs on a stack sized for its length
//!   ([`for_text`]); short ones cannot nest deep enough to matter.
//! - sqlparser's own recursive descent grows its stack itself (`recursive` crate).
//! - the binder and the evaluator recurse per nesting level; past a shallow depth
//!   they call [`grow`] at each level, which switches to a fresh stack segment when
//!   the current one runs low. Shallow statements (all of the hot path) only pay a
//!   counter increment.

use basalt_common::MySqlError;

/// `@@thread_stack` as Basalt reports it (MariaDB 10.11's default).
pub const THREAD_STACK: u32 = 299_008;
/// The margin MariaDB keeps free before binding another item.
pub const NEEDED: u32 = 32_000;
/// Virtual stack use beyond which binding fails with 1436.
const LIMIT: u32 = THREAD_STACK - NEEDED;

/// Virtual stack bytes one bound item takes (MariaDB 10.11's frames).
pub mod cost {
    /// An operator or a function (arithmetic, comparison, IS NULL, IN, BETWEEN,
    /// CAST, numeric and control functions, `-x`, `~x`, NOT).
    pub const FUNC: u32 = 432;
    /// A function with a string result, and CASE.
    pub const STR_FUNC: u32 = 464;
    /// LIKE.
    pub const LIKE: u32 = 512;
    /// An AND / OR list (however long: MariaDB flattens it into one item).
    pub const COND: u32 = 192;
    /// A subquery in an expression.
    pub const SUBQUERY: u32 = 655;

    /// A derived table in FROM inside `depth` others: MariaDB prepares the
    /// outermost one from a much deeper frame than the rest.
    pub fn derived(depth: u32) -> u32 {
        match depth {
            0 => 4_900,
            1 => 450,
            _ => 90,
        }
    }
}

/// Virtual stack in use when binding of a statement's expressions starts.
pub mod base {
    /// SELECT (and SET, SHOW ... WHERE).
    pub const SELECT: u32 = 10_888;
    /// INSERT and UPDATE.
    pub const CHANGE: u32 = 10_456;
    /// DELETE.
    pub const DELETE: u32 = 12_184;
    /// Extra for a statement prepared by SQL `PREPARE`.
    pub const SQL_PREPARE: u32 = 2_592;
    /// Extra for a statement prepared by COM_STMT_PREPARE.
    pub const COM_PREPARE: u32 = 1_296;

    /// The base of a statement of this kind.
    pub fn of(stmt: &sqlparser::ast::Statement) -> u32 {
        use sqlparser::ast::Statement as S;
        match stmt {
            S::Insert(_) | S::Update(_) => CHANGE,
            S::Delete(_) => DELETE,
            _ => SELECT,
        }
    }
}

/// Virtual stack of one statement's binding (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    used: u32,
    start: u32,
}

/// Levels bound on the caller's stack before each further level checks the real
/// stack (a level of the binder takes a few KiB).
const BIND_SHALLOW: u32 = 24 * cost::FUNC;

impl Budget {
    pub fn new(start: u32) -> Self {
        Budget { used: start, start }
    }

    /// Charges `cost` for an item about to be bound; 1436 when it does not fit.
    pub fn enter(&mut self, cost: u32) -> Result<(), MySqlError> {
        let used = self.used + cost;
        if used > LIMIT {
            return Err(overrun(used));
        }
        self.used = used;
        Ok(())
    }

    /// Releases what [`Budget::enter`] charged.
    pub fn leave(&mut self, cost: u32) {
        self.used -= cost;
    }

    /// Takes `bytes` off the use until [`Budget::unlift`] (MariaDB resolves WHERE
    /// and HAVING from a shallower frame than the select list).
    pub fn lift(&mut self, bytes: u32) {
        self.used -= bytes;
    }

    /// Undoes [`Budget::lift`].
    pub fn unlift(&mut self, bytes: u32) {
        self.used += bytes;
    }

    /// Past the shallow levels: binding should check the real stack.
    pub fn deep(&self) -> bool {
        self.used.saturating_sub(self.start) > BIND_SHALLOW
    }

    /// Bytes in use (for tests).
    #[cfg(test)]
    pub fn used(&self) -> u32 {
        self.used
    }
}

/// Errno 1436 with MariaDB's message.
pub fn overrun(used: u32) -> MySqlError {
    MySqlError::new(
        basalt_common::error::code::ER_STACK_OVERRUN_NEED_MORE,
        "HY000",
        format!(
            "Thread stack overrun:  {used} bytes used of a {THREAD_STACK} byte stack, and \
             {NEEDED} bytes needed. Consider increasing the thread_stack system variable."
        ),
    )
}

/// Stack that must remain before another level of deep recursion runs; below it,
/// [`grow`] continues on a new segment. Covers the largest frame sequence between
/// two checks (a subquery's planning and execution set-up).
const RED_ZONE: usize = 256 << 10;
/// Size of a segment [`grow`] allocates.
const SEGMENT: usize = 4 << 20;

/// Runs `f`, first switching to a fresh stack segment when this one runs low.
/// Costs a stack-pointer comparison when it does not.
#[inline]
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// Statements up to this length run on the caller's stack: their sqlparser AST is
/// at most this deep, and dropping it takes well under 1 MiB.
const SHORT_TEXT: usize = 4096;
/// Stack bytes per byte of statement text for dropping its AST: a level of an AST
/// takes at most ~100 bytes to drop (measured for operator chains, parentheses,
/// subqueries, function calls) and at least two bytes of text, except a parenthesis
/// (one byte, and at most the parser's recursion limit of them).
const STACK_PER_BYTE: usize = 64;
/// Room for everything else a statement does (binding, planning, executing: their
/// deep recursion grows the stack itself).
const STATEMENT_STACK: usize = 1 << 20;

/// Runs the processing of a statement of `len` bytes on a stack large enough for
/// its AST (see [`STACK_PER_BYTE`]): as is when the current stack has room (a
/// connection thread's 8 MiB holds statements up to about 100 KiB), otherwise on
/// a segment of its own, freed when the statement is done.
pub fn for_text<R>(len: usize, f: impl FnOnce() -> R) -> R {
    if len <= SHORT_TEXT {
        return f();
    }
    let need = len
        .saturating_mul(STACK_PER_BYTE)
        .saturating_add(STATEMENT_STACK);
    stacker::maybe_grow(need, need, f)
}

/// Evaluation depth up to which [`crate::expr::Expr::eval`] runs without looking
/// at the real stack.
pub const EVAL_SHALLOW: u32 = 48;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_matches_mariadb_thresholds() {
        // `SELECT 1+...+1`: n terms are n-1 nested operators.
        let fits = |start: u32, c: u32, n: u32| {
            let mut b = Budget::new(start);
            (0..n).all(|_| b.enter(c).is_ok())
        };
        assert!(fits(base::SELECT, cost::FUNC, 592));
        assert!(!fits(base::SELECT, cost::FUNC, 593));
        assert!(fits(base::SELECT, cost::STR_FUNC, 551));
        assert!(!fits(base::SELECT, cost::STR_FUNC, 552));
        assert!(fits(base::SELECT, cost::LIKE, 500));
        assert!(!fits(base::SELECT, cost::LIKE, 501));
        assert!(fits(base::CHANGE, cost::FUNC, 593));
        assert!(!fits(base::CHANGE, cost::FUNC, 594));
        // DELETE ... WHERE a=1000+...: the condition is one frame shallower.
        assert!(fits(base::DELETE - cost::FUNC, cost::FUNC, 590));
        assert!(!fits(base::DELETE - cost::FUNC, cost::FUNC, 591));
        // SELECT ... WHERE a+...+a > 0 (n terms and the comparison).
        assert!(fits(base::SELECT - cost::FUNC, cost::FUNC, 593));
        assert!(!fits(base::SELECT - cost::FUNC, cost::FUNC, 594));
        // Nested derived tables around `SELECT 1+...+1`.
        let derived = |levels: u32| (0..levels).map(cost::derived).sum::<u32>();
        assert!(fits(base::SELECT + derived(1), cost::FUNC, 581));
        assert!(!fits(base::SELECT + derived(1), cost::FUNC, 582));
        assert!(fits(base::SELECT + derived(8), cost::FUNC, 579));
        assert!(!fits(base::SELECT + derived(8), cost::FUNC, 580));
        assert!(fits(base::SELECT + derived(30), cost::FUNC, 574));
        assert!(!fits(base::SELECT + derived(30), cost::FUNC, 575));
        // A derived table around seven nested subqueries.
        let mixed = base::SELECT + derived(1) + 7 * cost::SUBQUERY;
        assert!(fits(mixed, cost::FUNC, 570));
        assert!(!fits(mixed, cost::FUNC, 571));
        let prep = base::SELECT + base::SQL_PREPARE;
        assert!(fits(prep, cost::FUNC, 586));
        assert!(!fits(prep, cost::FUNC, 587));
        let com = base::SELECT + base::COM_PREPARE;
        assert!(fits(com, cost::FUNC, 589));
        assert!(!fits(com, cost::FUNC, 590));
    }

    #[test]
    fn overrun_message_is_mariadbs() {
        let mut b = Budget::new(base::SELECT);
        let e = loop {
            if let Err(e) = b.enter(cost::FUNC) {
                break e;
            }
        };
        assert_eq!(e.code, 1436);
        assert_eq!(
            e.message,
            "Thread stack overrun:  267064 bytes used of a 299008 byte stack, and 32000 bytes \
             needed. Consider increasing the thread_stack system variable."
        );
        assert_eq!(b.used(), base::SELECT + 592 * cost::FUNC);
    }

    #[test]
    fn thread_stack_is_the_reported_variable() {
        let v = crate::sysvars::lookup("thread_stack").expect("thread_stack exists");
        let initial = v.initial(&crate::engine::GlobalConfig::default());
        assert_eq!(initial, basalt_common::Value::UInt(THREAD_STACK.into()));
    }
}
