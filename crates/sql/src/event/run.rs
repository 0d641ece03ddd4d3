//! One run of an event: a session of its own, as the event's definer, in the
//! event's database, with the sql_mode, time zone and character sets of its
//! CREATE; the body runs as one statement (a `BEGIN ... END` body as a
//! compound statement). Failures go to the error log in MariaDB's words.

use crate::engine::Engine;
use basalt_storage::EventDef;
use std::sync::Arc;

/// Runs `e`'s body once as thread `id`, logging what fails.
pub fn execute(engine: &Arc<Engine>, e: &EventDef, id: u64) {
    let mut s = engine.new_session(id, "event_scheduler", "localhost");
    engine.events.started(id, s.interrupt_flag());
    let who = format!(
        "[{}@{}][{}.{}]",
        e.definer_user, e.definer_host, e.schema, e.name
    );
    let mut failed = false;
    match s.enter_event(e) {
        Err(err) => {
            tracing::error!("Event Scheduler: {who} {}", err.message);
            failed = true;
        }
        Ok(()) => {
            for r in s.execute(&statement(&e.body)) {
                if let Err(err) = r {
                    tracing::error!("Event Scheduler: {who} {}", err.message);
                    failed = true;
                }
            }
        }
    }
    if failed {
        tracing::info!(
            "Event Scheduler: [{}@{}].[{}.{}] event execution failed.",
            e.definer_user,
            e.definer_host,
            e.schema,
            e.name
        );
    }
    s.close();
}

/// The body as a statement the session runs: `BEGIN ... END` is a compound
/// statement here (at the top level BEGIN would start a transaction).
pub fn statement(body: &str) -> String {
    let l = crate::front::lexer::lex(body);
    let toks = &l.tokens;
    let plain_begin = toks.first().is_some_and(|t| t.is_kw(body, "begin"))
        && !toks.get(1).is_some_and(|t| t.is_kw(body, "not"))
        && toks.len() > 1;
    match toks.first() {
        Some(t) if plain_begin => format!("BEGIN NOT ATOMIC{}", &body[t.end..]),
        _ => body.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::statement;

    #[test]
    fn begin_bodies_become_compound_statements() {
        assert_eq!(
            statement("BEGIN INSERT INTO t VALUES (1); END"),
            "BEGIN NOT ATOMIC INSERT INTO t VALUES (1); END"
        );
        assert_eq!(
            statement("begin not atomic select 1; end"),
            "begin not atomic select 1; end"
        );
        assert_eq!(
            statement("INSERT INTO t VALUES (1)"),
            "INSERT INTO t VALUES (1)"
        );
        assert_eq!(
            statement("l: BEGIN SELECT 1; END l"),
            "l: BEGIN SELECT 1; END l"
        );
    }
}
