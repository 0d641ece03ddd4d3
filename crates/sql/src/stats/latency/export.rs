//! What the metrics page reads from the SQL layer without a session: SHOW GLOBAL
//! STATUS's and SHOW GLOBAL VARIABLES' rows as text. Both read atomics and take
//! only short mutexes (the status hub's, the variables' read lock, the server's
//! connection list): never a table or row lock, never a statement.

use crate::engine::Engine;
use crate::stats::{Stat, ALL};
use crate::sysvars::{self, Kind, Scope};

impl Engine {
    /// SHOW GLOBAL STATUS's rows (those that do not depend on the asking
    /// session), sorted by name as SHOW STATUS sorts them.
    pub fn metrics_status(&self) -> Vec<(String, String)> {
        let hooks = self.hooks();
        // The counters come first: a name the server also reports keeps their
        // value (as in `show::status_pairs`).
        let mut totals = self.stats.totals();
        totals[Stat::AccessDeniedErrors as usize] += hooks.login_denials();
        let mut pairs: Vec<(String, String)> = ALL
            .iter()
            .map(|&s| (s.name().to_string(), totals[s as usize].to_string()))
            .collect();
        pairs.extend(
            hooks
                .global_status()
                .into_iter()
                .map(|(k, v)| (k, v.display_lossy())),
        );
        for (k, v) in self.storage.status() {
            pairs.push((k.to_string(), v.to_string()));
        }
        let created_tmp = crate::exec::spill::SpillFile::created();
        pairs.push(("Created_tmp_files".into(), created_tmp.to_string()));
        let uptime = self.started.elapsed().as_secs();
        pairs.push(("Uptime".into(), uptime.to_string()));
        let since_flush = self
            .stats
            .flushed_at()
            .map_or(uptime, |t| t.elapsed().as_secs());
        pairs.push(("Uptime_since_flush_status".into(), since_flush.to_string()));
        let (hits, misses) = self.plan_cache.stats();
        pairs.push((
            "Plan_cache_entries".into(),
            self.plan_cache.len().to_string(),
        ));
        pairs.push(("Plan_cache_hits".into(), hits.to_string()));
        pairs.push(("Plan_cache_misses".into(), misses.to_string()));
        crate::show::sort_status(&mut pairs);
        pairs
    }

    /// SHOW GLOBAL VARIABLES' rows, as it prints them, except the variables a
    /// session computes (`warning_count`, the GTID positions, ...).
    pub fn metrics_variables(&self) -> Vec<(&'static str, String)> {
        sysvars::all()
            .iter()
            .filter(|d| d.scope != Scope::Session && d.kind != Kind::Dynamic)
            .map(|d| {
                let v = self
                    .globals
                    .get(d.name)
                    .unwrap_or(basalt_common::Value::Null);
                (d.name, crate::show::var_text(d.kind, &v))
            })
            .collect()
    }
}
