//! The diagnostics area of a routine body run inside a statement (a stored
//! function, a trigger, or a procedure CALLed from one of them), as MariaDB's
//! `sp_head::execute` keeps it: the body works on a list of its own that
//! starts as a copy of the caller's, each instruction's first condition
//! replaces what earlier instructions left, and when the body ends
//! - a function or trigger that succeeded leaves the caller's list as it was
//!   (its conditions are gone);
//! - one that failed adds the conditions its failing instruction raised
//!   before the error (the error itself is listed by the statement);
//!
//! A caller's list kept from the previous statement (a statement reading no
//! table keeps it) is cleared when the body raised a condition or uses
//! tables, as MariaDB's statement then does.
//! - a procedure replaces the caller's list with its own if it raised any.

use super::ctx::{SessionCtx, Warning, MAX_WARNINGS};

/// How a body's diagnostics reach its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyEnd {
    /// A function or trigger that returned: the caller's list stays.
    Returned,
    /// A function or trigger that failed: its last instruction's conditions
    /// are added to the caller's.
    Failed,
    /// A procedure: its list replaces the caller's when it raised any.
    Procedure,
}

/// The caller's diagnostics, put aside while a body runs.
pub struct CallerDiagnostics {
    warnings: Vec<Warning>,
    warning_total: usize,
    error_total: usize,
    kept: bool,
    clears: u64,
}

impl SessionCtx {
    /// Starts a body's own list: a copy of the caller's when the body reads
    /// diagnostics before raising any (GET DIAGNOSTICS), else empty (the copy
    /// could never be seen). Its first condition starts a list of its own.
    pub fn enter_body_diagnostics(&mut self, copy: bool) -> CallerDiagnostics {
        let warnings = if copy {
            self.warnings.clone()
        } else {
            std::mem::take(&mut self.warnings)
        };
        let saved = CallerDiagnostics {
            warnings,
            warning_total: self.warning_total,
            error_total: self.error_total,
            kept: self.kept_warnings,
            clears: self.clears,
        };
        self.kept_warnings = true;
        saved
    }

    /// Ends a body's list (see the module docs).
    pub fn leave_body_diagnostics(
        &mut self,
        mut caller: CallerDiagnostics,
        end: BodyEnd,
        uses_tables: bool,
    ) {
        let raised = self.clears != caller.clears;
        if caller.kept && (raised || uses_tables) {
            caller.warnings.clear();
            caller.warning_total = 0;
            caller.error_total = 0;
            caller.kept = false;
            caller.clears += 1;
        }
        let own = match end {
            BodyEnd::Returned => Vec::new(),
            BodyEnd::Failed if self.kept_warnings => Vec::new(),
            BodyEnd::Failed => std::mem::take(&mut self.warnings),
            BodyEnd::Procedure if raised => {
                // The procedure's list, as its last instruction left it, is
                // now the caller's instruction's.
                self.kept_warnings = false;
                return;
            }
            BodyEnd::Procedure => Vec::new(),
        };
        self.warnings = caller.warnings;
        self.warning_total = caller.warning_total;
        self.error_total = caller.error_total;
        self.kept_warnings = caller.kept;
        self.clears = caller.clears;
        for w in own {
            self.add_listed(w);
        }
    }

    /// Lists `w` as the running statement's (after the caller's own).
    fn add_listed(&mut self, w: Warning) {
        if self.kept_warnings {
            self.clear_warnings();
        }
        if w.level == super::ctx::Level::Error {
            self.error_total += 1;
        }
        self.warning_total += 1;
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ctx::Level;

    fn codes(cx: &SessionCtx) -> Vec<u16> {
        cx.warnings.iter().map(|w| w.code).collect()
    }

    #[test]
    fn a_returning_body_leaves_the_callers_list() {
        let mut cx = crate::expr::tests::test_ctx();
        cx.warn(Level::Warning, 1365, "Division by 0");
        let saved = cx.enter_body_diagnostics(true);
        assert_eq!(codes(&cx), [1365], "the body starts from a copy");
        cx.warn(Level::Warning, 1366, "bad");
        assert_eq!(
            codes(&cx),
            [1366],
            "its first condition starts its own list"
        );
        cx.leave_body_diagnostics(saved, BodyEnd::Returned, false);
        assert_eq!(codes(&cx), [1365]);
        assert_eq!(cx.warning_total, 1);
    }

    #[test]
    fn a_failing_body_adds_its_last_conditions() {
        let mut cx = crate::expr::tests::test_ctx();
        cx.warn(Level::Warning, 1365, "Division by 0");
        let saved = cx.enter_body_diagnostics(false);
        cx.warn(Level::Warning, 1366, "earlier instruction");
        cx.kept_warnings = true;
        cx.warn(Level::Warning, 1265, "failing instruction");
        cx.leave_body_diagnostics(saved, BodyEnd::Failed, false);
        assert_eq!(codes(&cx), [1365, 1265]);
        assert_eq!(cx.warning_total, 2);
    }

    #[test]
    fn a_kept_list_goes_when_the_body_raised_or_uses_tables() {
        let mut cx = crate::expr::tests::test_ctx();
        cx.warn(Level::Error, 1305, "previous statement");
        cx.keep_warnings();
        let saved = cx.enter_body_diagnostics(false);
        cx.leave_body_diagnostics(saved, BodyEnd::Returned, false);
        assert_eq!(codes(&cx), [1305]);
        assert!(cx.kept_warnings);
        let saved = cx.enter_body_diagnostics(false);
        cx.leave_body_diagnostics(saved, BodyEnd::Returned, true);
        assert_eq!(codes(&cx), Vec::<u16>::new());
        cx.warn(Level::Error, 1305, "previous statement");
        cx.keep_warnings();
        let saved = cx.enter_body_diagnostics(false);
        cx.warn(Level::Warning, 1366, "raised in the body");
        cx.leave_body_diagnostics(saved, BodyEnd::Returned, false);
        assert_eq!(codes(&cx), Vec::<u16>::new());
    }

    #[test]
    fn a_procedure_replaces_the_list_only_when_it_raised() {
        let mut cx = crate::expr::tests::test_ctx();
        cx.warn(Level::Warning, 1365, "Division by 0");
        let saved = cx.enter_body_diagnostics(false);
        cx.leave_body_diagnostics(saved, BodyEnd::Procedure, false);
        assert_eq!(codes(&cx), [1365]);
        let saved = cx.enter_body_diagnostics(false);
        cx.warn(Level::Warning, 1265, "in the procedure");
        cx.kept_warnings = true;
        cx.leave_body_diagnostics(saved, BodyEnd::Procedure, false);
        assert_eq!(codes(&cx), [1265]);
        assert!(!cx.kept_warnings);
    }
}
