//! Per-account resource limits (`WITH MAX_QUERIES_PER_HOUR n ...` on CREATE /
//! ALTER USER and GRANT) as MariaDB 10.11 keeps and prints them. Zero means no
//! limit; `MAX_USER_CONNECTIONS 0` leaves the global `max_user_connections` in
//! charge and `-1` refuses every login of the account.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// MAX_QUERIES_PER_HOUR (`max_questions`).
    pub questions: u64,
    /// MAX_UPDATES_PER_HOUR (`max_updates`).
    pub updates: u64,
    /// MAX_CONNECTIONS_PER_HOUR (`max_connections`).
    pub connections: u64,
    /// MAX_USER_CONNECTIONS.
    pub user_connections: i64,
    /// MAX_STATEMENT_TIME in seconds.
    pub statement_time: f64,
}

impl Eq for Limits {}

/// The limits a statement sets; `None`: left as they are.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LimitChanges {
    pub questions: Option<u64>,
    pub updates: Option<u64>,
    pub connections: Option<u64>,
    pub user_connections: Option<i64>,
    pub statement_time: Option<f64>,
}

impl Eq for LimitChanges {}

impl LimitChanges {
    pub fn is_empty(&self) -> bool {
        *self == LimitChanges::default()
    }

    pub fn apply(&self, l: &mut Limits) {
        l.questions = self.questions.unwrap_or(l.questions);
        l.updates = self.updates.unwrap_or(l.updates);
        l.connections = self.connections.unwrap_or(l.connections);
        l.user_connections = self.user_connections.unwrap_or(l.user_connections);
        l.statement_time = self.statement_time.unwrap_or(l.statement_time);
    }
}

impl Limits {
    /// Whether any limit is set.
    pub fn any(&self) -> bool {
        *self != Limits::default()
    }

    /// Whether statements are counted (per-hour query or update limits).
    pub fn counts_statements(&self) -> bool {
        self.questions > 0 || self.updates > 0
    }

    /// ` MAX_QUERIES_PER_HOUR n ...`: the limits set, in MariaDB's order
    /// (SHOW GRANTS and SHOW CREATE USER put `WITH` before them).
    pub fn clauses(&self) -> String {
        let mut s = String::new();
        for (name, v) in [
            ("MAX_QUERIES_PER_HOUR", self.questions),
            ("MAX_UPDATES_PER_HOUR", self.updates),
            ("MAX_CONNECTIONS_PER_HOUR", self.connections),
        ] {
            if v != 0 {
                s.push_str(&format!(" {name} {v}"));
            }
        }
        if self.user_connections != 0 {
            s.push_str(&format!(" MAX_USER_CONNECTIONS {}", self.user_connections));
        }
        if self.statement_time != 0.0 {
            s.push_str(&format!(" MAX_STATEMENT_TIME {:.6}", self.statement_time));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_as_mariadb_prints_them() {
        let mut l = Limits::default();
        assert_eq!(l.clauses(), "");
        LimitChanges {
            questions: Some(3),
            connections: Some(4),
            user_connections: Some(-1),
            statement_time: Some(1.5),
            ..LimitChanges::default()
        }
        .apply(&mut l);
        assert_eq!(
            l.clauses(),
            " MAX_QUERIES_PER_HOUR 3 MAX_CONNECTIONS_PER_HOUR 4 MAX_USER_CONNECTIONS -1 MAX_STATEMENT_TIME 1.500000"
        );
        assert!(l.counts_statements());
    }
}
