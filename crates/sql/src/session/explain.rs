//! EXPLAIN and ANALYZE of a statement: plan it on its own (ANALYZE: run it with
//! a tracker, its rows discarded), then describe the plan
//! ([`crate::show::describe_plan`]).

use super::respond::{Discard, Out};
use super::Session;
use crate::exec::analyze::Tracker;
use crate::front::native::ExplainOpts;
use crate::front::Front;
use crate::result::QueryResult;
use basalt_common::MySqlError;
use std::sync::Arc;
use std::time::Instant;

type R<T> = Result<T, MySqlError>;

impl Session {
    pub(super) fn explain_statement(&mut self, opts: ExplainOpts, body: &str) -> R<QueryResult> {
        let text = match crate::front::analyze_with(body, self.lit_opts())? {
            Front::Cached(s) => s.original(),
            Front::Bulk(b) => b.original(),
            Front::Parse(t) => t,
            Front::Native(_) => return Err(crate::front::parse::near_offset(body, 0)),
        };
        let stmt = self.parse(&text)?;
        let started = Instant::now();
        let plan = self
            .plan_statement(&stmt, &text, false)?
            .ok_or_else(|| crate::front::parse::near_offset(body, 0))?;
        let planning = started.elapsed();
        let tracker = if opts.analyze {
            let t = Arc::new(Tracker::default());
            self.cx.analyze = Some(t.clone());
            let mut sink = Discard;
            let r = self.run_plan(&plan, &[], &mut Out::new(&mut sink));
            self.cx.analyze = None;
            r?;
            Some(t)
        } else {
            None
        };
        crate::show::describe_plan(self, &plan, &stmt, opts, tracker.as_deref(), planning)
    }
}
