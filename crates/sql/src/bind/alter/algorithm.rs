//! How an ALTER TABLE runs: whether the stored keys change, whether it is one
//! added index (built in place), whether rows keep their primary key bytes (an
//! online copy), and MariaDB's 1845 / 1846 when ALGORITHM= or LOCK= asks for more.

use super::{Work, R};
use basalt_common::{ColumnDef, IndexDef, MySqlError, TableDef};

impl Work<'_> {
    /// Whether the keys differ from the stored ones other than by name.
    pub(super) fn indexes_changed(&self, new: &[IndexDef]) -> bool {
        let shape = |i: &IndexDef| (i.kind, i.columns.clone());
        new.len() != self.old.indexes.len()
            || new
                .iter()
                .zip(&self.old.indexes)
                .any(|(a, b)| shape(a) != shape(b))
    }

    /// Whether the new definition is the old one plus one secondary index (the
    /// only one with id 0); then the columns keep the values rows stored before
    /// an in-place ADD COLUMN read (`ColumnDef::absent`), as no row is rewritten.
    pub(super) fn only_an_index_added(&mut self) -> bool {
        let new = &self.def;
        let fresh = new.indexes.iter().filter(|i| i.id == 0).count();
        if fresh != 1 || new.indexes.len() != self.old.indexes.len() + 1 {
            return false;
        }
        if new.columns.len() != self.old.columns.len()
            || self.cols.iter().enumerate().any(|(i, c)| c.src != Some(i))
        {
            return false;
        }
        let mut cand = new.clone();
        for (c, o) in cand.columns.iter_mut().zip(&self.old.columns) {
            c.absent = o.absent.clone();
        }
        let same = TableDef {
            indexes: cand.indexes.clone(),
            ..self.old.clone()
        };
        let kept = self
            .old
            .indexes
            .iter()
            .all(|o| cand.indexes.iter().any(|n| n == o));
        if cand != same || !kept {
            return false;
        }
        self.def = cand;
        true
    }

    /// Whether the new definition is the old one less some secondary keys (DROP
    /// INDEX / DROP KEY / DROP CONSTRAINT of a UNIQUE key, any number, nothing
    /// else): then nothing is copied, the dropped keys' trees are freed
    /// (MariaDB's ALGORITHM=NOCOPY; INSTANT is refused with its 1846, COPY copies).
    /// As for an added index, the columns keep their `ColumnDef::absent` values.
    pub(super) fn only_keys_dropped(&mut self) -> bool {
        let new = &self.def;
        if self.algorithm.as_deref() == Some("COPY")
            || new.indexes.len() >= self.old.indexes.len()
            || new.indexes[0] != self.old.indexes[0]
            || new.columns.len() != self.old.columns.len()
            || self.cols.iter().enumerate().any(|(i, c)| c.src != Some(i))
        {
            return false;
        }
        let kept = new
            .indexes
            .iter()
            .all(|n| n.id != 0 && self.old.indexes.iter().any(|o| o == n));
        let mut cand = new.clone();
        for (c, o) in cand.columns.iter_mut().zip(&self.old.columns) {
            c.absent = o.absent.clone();
        }
        let same = TableDef {
            indexes: cand.indexes.clone(),
            ..self.old.clone()
        };
        if !kept || cand != same {
            return false;
        }
        self.def = cand;
        true
    }

    /// MariaDB's 1846 for ALGORITHM=INSTANT on a change that drops keys.
    pub(super) fn check_drop_algorithm(&self) -> R<()> {
        if self.algorithm.as_deref() == Some("INSTANT") {
            return Err(MySqlError::new(
                1846,
                "0A000",
                "ALGORITHM=INSTANT is not supported. Reason: DROP INDEX. Try ALGORITHM=NOCOPY",
            ));
        }
        Ok(())
    }

    /// Whether every row keeps its primary key bytes: the same key columns in the
    /// same order, of the same types (and collations), prefixes and directions.
    pub(super) fn same_primary_key(&self, columns: &[ColumnDef], new: &IndexDef) -> bool {
        let old = &self.old.indexes[0];
        if old.columns.is_empty() || new.columns.len() != old.columns.len() {
            return false;
        }
        new.columns.iter().zip(&old.columns).all(|(n, o)| {
            self.cols[n.column].src == Some(o.column)
                && columns[n.column].data_type == self.old.columns[o.column].data_type
                && n.prefix_len == o.prefix_len
                && n.descending == o.descending
        })
    }

    /// 1845 / 1846 when ALGORITHM= or LOCK= asks for more than the change gives:
    /// a column whose stored type changes needs ALGORITHM=COPY (1846); a copy is
    /// never INSTANT or NOCOPY; an `online` one (writers go on) serves LOCK=NONE
    /// (also with a type change, which MariaDB refuses) and INPLACE.
    pub(super) fn check_algorithm(&self, online: bool) -> R<()> {
        if !self.copy {
            return Ok(());
        }
        if self.ignore && self.unique_added {
            let reason = "Reason: Creating unique indexes with IGNORE requires COPY algorithm \
                          to remove duplicate rows.";
            let refused = match (self.algorithm.as_deref(), self.lock.as_deref()) {
                (Some(a), _) if a != "COPY" => Some(format!("ALGORITHM={a}")),
                (_, Some("NONE")) => Some("LOCK=NONE".to_string()),
                _ => None,
            };
            if let Some(what) = refused {
                let alt = if what == "LOCK=NONE" {
                    "LOCK=SHARED"
                } else {
                    "ALGORITHM=COPY"
                };
                return Err(MySqlError::new(
                    1846,
                    "0A000",
                    format!("{what} is not supported. {reason} Try {alt}"),
                ));
            }
        }
        if let Some(a) = self.algorithm.as_deref() {
            if a != "COPY" && self.type_changed {
                return Err(MySqlError::new(
                    1846,
                    "0A000",
                    format!(
                        "ALGORITHM={a} is not supported. Reason: Cannot change column type. \
                         Try ALGORITHM=COPY"
                    ),
                ));
            }
            if matches!(a, "INSTANT" | "NOCOPY") || (a == "INPLACE" && !online) {
                return Err(MySqlError::new(
                    1845,
                    "0A000",
                    format!(
                        "ALGORITHM={a} is not supported for this operation. Try ALGORITHM=COPY"
                    ),
                ));
            }
        }
        if self.lock.as_deref() == Some("NONE") && !online {
            return Err(MySqlError::new(
                1846,
                "0A000",
                "LOCK=NONE is not supported. Reason: COPY algorithm requires a lock. Try LOCK=SHARED",
            ));
        }
        Ok(())
    }
}
