//! Session state tracking (`session_track_schema`, `session_track_system_variables`,
//! `session_track_state_change`): what changed during a command, for the OK
//! packet's session-state block that clients with CLIENT_SESSION_TRACK read (the
//! server sends it; others ignore it).
//!
//! As in MariaDB: a change of the current database is reported when
//! `session_track_schema` is ON (the default); an assignment to a variable named
//! in `session_track_system_variables` (`*` for all) reports the variable's new
//! value as SHOW VARIABLES prints it; with `session_track_state_change` ON, any of
//! these also reports the "state changed" marker.

use super::Session;
use crate::sysvars;

/// One change, owned (the server turns it into the protocol's `StateChange`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tracked {
    Schema(String),
    Variable { name: String, value: String },
    StateChanged,
}

impl Session {
    /// Records that the current database is now `db`.
    pub(super) fn track_schema(&mut self, db: &str) {
        if self.cx.var_bool("session_track_schema") {
            self.tracked.retain(|t| !matches!(t, Tracked::Schema(_)));
            self.tracked.push(Tracked::Schema(db.to_string()));
        }
        self.track_state();
    }

    /// Records the session assignment of variable `name` (already stored).
    pub(super) fn track_variable(&mut self, name: &'static str) {
        let list = self.cx.var_text("session_track_system_variables");
        let listed = list
            .split(',')
            .map(str::trim)
            .any(|n| n == "*" || n.eq_ignore_ascii_case(name));
        if listed {
            if let Some(def) = sysvars::lookup(name) {
                let value = crate::show::var_text(def.kind, &self.cx.sysvar(def, false));
                self.tracked
                    .retain(|t| !matches!(t, Tracked::Variable { name: n, .. } if n == name));
                self.tracked.push(Tracked::Variable {
                    name: name.to_string(),
                    value,
                });
            }
        }
        self.track_state();
    }

    /// Finishes the SETs of system variables stored functions and triggers
    /// made during the statement: tracked, and the statement memo (which
    /// depends on the variables) cleared.
    pub(super) fn finish_changed_vars(&mut self) {
        if self.cx.changed_vars.is_empty() {
            return;
        }
        for name in std::mem::take(&mut self.cx.changed_vars) {
            if name == "slow_query_log" {
                self.slow_log_choice = Some(self.cx.var_bool("slow_query_log"));
            }
            self.track_variable(name);
        }
        self.memo.clear();
    }

    fn track_state(&mut self) {
        if self.cx.var_bool("session_track_state_change")
            && !self.tracked.contains(&Tracked::StateChanged)
        {
            self.tracked.push(Tracked::StateChanged);
        }
    }

    /// The changes since the last call (the server sends them with the next OK).
    #[inline]
    pub fn take_tracked(&mut self) -> Vec<Tracked> {
        std::mem::take(&mut self.tracked)
    }
}
