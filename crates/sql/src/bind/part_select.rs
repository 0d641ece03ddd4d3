//! `t PARTITION (p, ...)` (explicit partition selection) in FROM, INSERT,
//! UPDATE and DELETE: the statement reads and writes only those partitions.

use basalt_common::MySqlError;
use basalt_storage::Table;
use std::sync::Arc;

/// `table` limited to the partitions `names` (case-insensitive): 1747 for a
/// table that is not partitioned, 1735 for a name it does not have.
pub fn select_partitions(
    table: Arc<dyn Table>,
    tname: &str,
    names: &[String],
) -> Result<Arc<dyn Table>, MySqlError> {
    let def = table.def();
    let Some(spec) = &def.partitioning else {
        return Err(MySqlError::partition_clause_on_nonpartitioned());
    };
    let mut ids = Vec::with_capacity(names.len());
    for n in names {
        match spec.by_name(n) {
            Some(p) => ids.push(p.id),
            None => {
                return Err(MySqlError::new(
                    1735,
                    "HY000",
                    format!("Unknown partition '{n}' in table '{tname}'"),
                ))
            }
        }
    }
    table
        .partition_view(&ids, true)
        .ok_or_else(MySqlError::partition_clause_on_nonpartitioned)
}
