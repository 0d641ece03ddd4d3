//! Statement latency by command class, for the metrics page: one histogram per
//! class, recorded once per client statement from the duration the statement
//! clock already measured (`session::slow`), so timing costs no extra clock
//! read; recording is two relaxed atomic adds ([`basalt_common::histogram`]).
//! [`export`] is what the metrics page reads from the SQL layer.

pub mod export;

use super::Stat;
use basalt_storage::metrics::{record_micros, Latency};
use std::time::Duration;

/// The classes, as the page labels them (`command="select"`).
pub const CLASSES: [&str; 5] = ["select", "insert", "update", "delete", "other"];

/// Statement latency in microseconds, indexed as [`CLASSES`].
pub static STATEMENTS: [Latency; CLASSES.len()] = [const { Latency::new() }; CLASSES.len()];

/// Counts a finished statement of command `com` (its `Com_*` counter).
#[inline]
pub fn record(com: Option<Stat>, elapsed: Duration) {
    record_micros(&STATEMENTS[class(com)], elapsed);
}

/// The index in [`CLASSES`] of a statement counted in `com`.
fn class(com: Option<Stat>) -> usize {
    match com {
        Some(Stat::ComSelect) => 0,
        Some(
            Stat::ComInsert | Stat::ComInsertSelect | Stat::ComReplace | Stat::ComReplaceSelect,
        ) => 1,
        Some(Stat::ComUpdate | Stat::ComUpdateMulti) => 2,
        Some(Stat::ComDelete | Stat::ComDeleteMulti) => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(CLASSES[class(Some(Stat::ComSelect))], "select");
        assert_eq!(CLASSES[class(Some(Stat::ComReplaceSelect))], "insert");
        assert_eq!(CLASSES[class(Some(Stat::ComUpdateMulti))], "update");
        assert_eq!(CLASSES[class(Some(Stat::ComDelete))], "delete");
        assert_eq!(CLASSES[class(Some(Stat::ComBegin))], "other");
        assert_eq!(CLASSES[class(None)], "other");
        let before = STATEMENTS[3].snapshot().count();
        record(Some(Stat::ComDeleteMulti), Duration::from_micros(5));
        assert_eq!(STATEMENTS[3].snapshot().count(), before + 1);
    }
}
