//! Recursive common table expressions: iteration to a fixpoint.
//!
//! The anchors run once; their rows are the first round. Each following round
//! runs every recursive step over the working table, which holds exactly the
//! rows the previous round added, and the rows the steps produce form the next
//! round. The result is every round's rows, in the order they were produced. It
//! stops when a round adds nothing, or (with warning 1931, as MariaDB) when
//! another round would pass `max_recursive_iterations`.
//!
//! Every row is stored as the result's column types, which come from the anchors
//! (strict mode: a recursive value too long for its column fails with 1406, as
//! in MariaDB's temporary table). With UNION DISTINCT a row already in the result
//! is not added again, so a cycle in the data ends the recursion.
//!
//! Memory: the result rows and the working rows are charged to the statement's
//! budget as they are produced; the working rows of a round are released when
//! the next round replaces them. KILL QUERY and `max_statement_time` are checked
//! every round (and inside the scans of each step).

use super::agg::Seen;
use super::mem::row_bytes;
use super::scan::{Flow, R};
use super::store::{store, Target};
use super::{select, Exec};
use crate::expr::EvalCtx;
use crate::infoschema::VirtualTable;
use crate::plan::{Recursion, SelectPlan, SubPlan};
use crate::session::ctx::Level;
use basalt_common::Row;

/// ER_QUERY_RESULT_INCOMPLETE.
const QUERY_RESULT_INCOMPLETE: u16 = 1931;

struct Rounds<'r> {
    rec: &'r Recursion,
    name: &'r str,
    result: Vec<Row>,
    /// The rows of the round being produced, and their charged bytes.
    fresh: Vec<Row>,
    fresh_bytes: usize,
    seen: Seen,
    strict: bool,
}

/// Fills `target` with the rows of the recursive CTE `sp`.
pub fn materialize(sp: &SubPlan, rec: &Recursion, target: &VirtualTable, ex: &mut Exec) -> R<()> {
    let def = basalt_storage::Table::def(target);
    let mut st = Rounds {
        rec,
        name: &def.name,
        result: Vec::new(),
        fresh: Vec::new(),
        fresh_bytes: 0,
        seen: Seen::default(),
        strict: ex.ctx.cx.mode.strict,
    };
    for anchor in std::iter::once(&sp.plan).chain(&rec.anchors) {
        st.run(anchor, ex)?;
    }
    let max = ex.ctx.cx.var_u64("max_recursive_iterations");
    let mut rounds = 0u64;
    let mut work_bytes = 0;
    while !st.fresh.is_empty() {
        ex.check_interrupt()?;
        if rounds >= max {
            let message = format!("Query execution was interrupted. The query exceeded max_recursive_iterations = {max}. The query result may be incomplete");
            // A data change in strict mode stops rather than write a cut-off
            // result (MariaDB's error).
            if ex.ctx.strict_dml && ex.ctx.cx.mode.strict {
                return Err(basalt_common::MySqlError::new(
                    QUERY_RESULT_INCOMPLETE,
                    "HY000",
                    message,
                ));
            }
            ex.ctx
                .cx
                .warn(Level::Warning, QUERY_RESULT_INCOMPLETE, message);
            break;
        }
        rounds += 1;
        ex.ctx.mem.release(work_bytes);
        work_bytes = std::mem::take(&mut st.fresh_bytes);
        rec.work.fill(std::mem::take(&mut st.fresh));
        super::sub::rerun(rec.subs.clone(), ex)?;
        for step in &rec.steps {
            st.run(step, ex)?;
        }
    }
    rec.work.fill(Vec::new());
    ex.ctx.mem.release(work_bytes + st.fresh_bytes);
    target.fill(st.result);
    Ok(())
}

impl Rounds<'_> {
    /// Runs one anchor or step, adding its new rows to the result and the round.
    fn run(&mut self, plan: &SelectPlan, ex: &mut Exec) -> R<()> {
        select::run_into(plan, ex, &mut |r: &mut Row, ctx: &mut EvalCtx| {
            self.add(r, ctx)?;
            Ok(Flow::Continue)
        })?;
        Ok(())
    }

    fn add(&mut self, r: &mut Row, ctx: &mut EvalCtx) -> R<()> {
        let row_no = self.result.len() as u64 + 1;
        for (v, col) in r.iter_mut().zip(&self.rec.columns) {
            if v.is_null() {
                continue;
            }
            let t = Target {
                db: "",
                table: self.name,
                col,
                row: row_no,
                strict: self.strict,
            };
            *v = store(std::mem::take(v), &t, ctx.cx)?;
        }
        if self.rec.distinct
            && !self
                .seen
                .first(select::row_key(r, &self.rec.types), &mut ctx.mem)?
        {
            return Ok(());
        }
        let n = row_bytes(r);
        ctx.mem.charge(2 * n)?;
        self.fresh_bytes += n;
        self.result.push(r.clone());
        self.fresh.push(std::mem::take(r));
        Ok(())
    }
}
