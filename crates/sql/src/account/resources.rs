//! What each account uses of its resource limits (MariaDB's `USER_CONN`):
//! connections open now, and connections, statements and updates in the
//! current hour. Only accounts with limits (or every account while the global
//! `max_user_connections` is set) are tracked, so others pay nothing.

use super::R;
use basalt_acl::Limits;
use basalt_common::MySqlError;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::time::{Duration, Instant};

const HOUR: Duration = Duration::from_secs(3600);

#[derive(Debug)]
struct Usage {
    /// Start of the hour the counters cover.
    since: Instant,
    connections: u64,
    questions: u64,
    updates: u64,
    /// Connections open now.
    open: i64,
}

impl Usage {
    fn new() -> Usage {
        Usage {
            since: Instant::now(),
            connections: 0,
            questions: 0,
            updates: 0,
            open: 0,
        }
    }

    /// Starts a new hour once the last one is over.
    fn roll(&mut self) {
        if self.since.elapsed() >= HOUR {
            self.reset();
        }
    }

    fn reset(&mut self) {
        self.since = Instant::now();
        (self.connections, self.questions, self.updates) = (0, 0, 0);
    }
}

/// 1226: `user` used up the limit `what` (`current value` is the limit).
fn exceeded(user: &str, what: &str, limit: impl std::fmt::Display) -> MySqlError {
    MySqlError::new(
        1226,
        "42000",
        format!("User '{user}' has exceeded the '{what}' resource (current value: {limit})"),
    )
}

type Key = (String, String);

#[derive(Debug, Default)]
pub struct Resources {
    usage: Mutex<HashMap<Key, Usage>>,
}

impl Resources {
    /// Counts a login of `user` as account `key`, or refuses it (1226 for the
    /// account's limits, 1203 for the global `max_user_connections`). `Ok(true)`
    /// when the connection is tracked and [`Resources::logout`] must follow.
    pub fn login(&self, key: (&str, &str), user: &str, l: &Limits, global: i64) -> R<bool> {
        if !l.any() && global == 0 {
            return Ok(false);
        }
        let mut map = self.usage.lock();
        let u = map
            .entry((key.0.to_string(), key.1.to_string()))
            .or_insert_with(Usage::new);
        u.roll();
        match l.user_connections {
            0 if global > 0 && u.open >= global => {
                return Err(MySqlError::new(
                    1203,
                    "42000",
                    format!(
                    "User {user} already has more than 'max_user_connections' active connections"
                ),
                ))
            }
            n if n < 0 || (n > 0 && u.open >= n) => {
                return Err(exceeded(user, "max_user_connections", n))
            }
            _ => {}
        }
        if l.connections > 0 && u.connections >= l.connections {
            return Err(exceeded(user, "max_connections_per_hour", l.connections));
        }
        u.connections += 1;
        u.open += 1;
        Ok(true)
    }

    /// A tracked connection of account `key` ended.
    pub fn logout(&self, key: (&str, &str)) {
        let mut map = self.usage.lock();
        if let Some(u) = map.get_mut(&(key.0.to_string(), key.1.to_string())) {
            u.open -= 1;
        }
    }

    /// Counts a statement (an update when `update`), or refuses it with 1226
    /// once the hour's MAX_QUERIES_PER_HOUR / MAX_UPDATES_PER_HOUR are used.
    pub fn statement(&self, key: (&str, &str), user: &str, l: &Limits, update: bool) -> R<()> {
        let mut map = self.usage.lock();
        let u = map
            .entry((key.0.to_string(), key.1.to_string()))
            .or_insert_with(Usage::new);
        u.roll();
        if l.questions > 0 {
            if u.questions >= l.questions {
                return Err(exceeded(user, "max_queries_per_hour", l.questions));
            }
            u.questions += 1;
        }
        if update && l.updates > 0 {
            if u.updates >= l.updates {
                return Err(exceeded(user, "max_updates_per_hour", l.updates));
            }
            u.updates += 1;
        }
        Ok(())
    }

    /// FLUSH USER_RESOURCES: every hourly counter starts again.
    pub fn flush(&self) {
        self.usage.lock().values_mut().for_each(Usage::reset);
    }
}

impl crate::session::Session {
    /// Counts a statement of an account with per-hour statement limits.
    pub(crate) fn count_statement(&mut self, text: &str) -> R<()> {
        let Some((u, h)) = &self.cx.privs.account else {
            return Ok(());
        };
        let limits = self.cx.privs.limits;
        self.cx
            .engine
            .resources
            .statement((u, h), &self.cx.user, &limits, is_update(text))
    }
}

/// Whether a statement counts against MAX_UPDATES_PER_HOUR: its first word is
/// one of those that change data or definitions (MariaDB's CF_CHANGES_DATA).
pub fn is_update(text: &str) -> bool {
    let word: String = text
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(
        word.as_str(),
        "insert"
            | "update"
            | "delete"
            | "replace"
            | "create"
            | "alter"
            | "drop"
            | "rename"
            | "truncate"
            | "load"
            | "grant"
            | "revoke"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_refuse_with_mariadbs_errors() {
        let r = Resources::default();
        let l = Limits {
            user_connections: 1,
            connections: 2,
            questions: 3,
            updates: 1,
            ..Limits::default()
        };
        let k = ("u", "%");
        assert_eq!(r.login(k, "u", &l, 0), Ok(true));
        let e = r.login(k, "u", &l, 0).expect_err("second at once");
        assert_eq!(
            e.message,
            "User 'u' has exceeded the 'max_user_connections' resource (current value: 1)"
        );
        r.logout(k);
        assert_eq!(r.login(k, "u", &l, 0), Ok(true));
        r.logout(k);
        assert_eq!(r.login(k, "u", &l, 0).expect_err("third").code, 1226);
        assert!(r.statement(k, "u", &l, true).is_ok());
        // A refused update still counts as a query, as in MariaDB.
        assert!(r.statement(k, "u", &l, true).is_err(), "one update an hour");
        assert!(r.statement(k, "u", &l, false).is_ok());
        assert!(
            r.statement(k, "u", &l, false).is_err(),
            "three queries an hour"
        );
        r.flush();
        assert!(r.statement(k, "u", &l, false).is_ok());
        assert_eq!(r.login(k, "u", &Limits::default(), 0), Ok(false));
        let e = {
            let _ = r.login(("v", "%"), "v", &Limits::default(), 1);
            r.login(("v", "%"), "v", &Limits::default(), 1)
                .expect_err("global")
        };
        assert_eq!(e.code, 1203);
        assert!(is_update(" INSERT INTO t VALUES (1)") && !is_update("select 1"));
    }
}
