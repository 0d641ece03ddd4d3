//! One run of an event: a session of its own, as the event's definer, in the
//! event's database, with the sql_mode, time zone and character sets of its
//! CREATE; the body runs as one statement (a `BEGIN ... END` body as a
//! compound statement). Failures go to the error log in MariaDB's words: the
//! error, then a note naming the line of the CREATE EVENT statement (as SHOW
//! CREATE EVENT prints it) where the failing statement starts.

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
    match s.enter_event(e) {
        Err(err) => tracing::error!("Event Scheduler: {who} {}", err.message),
        Ok(()) => {
            for r in s.execute(&statement(&e.body)) {
                if let Err(err) = r {
                    tracing::error!("Event Scheduler: {who} {}", err.message);
                    let line = failed_line(&s) + header_lines(e);
                    tracing::info!(
                        "Event Scheduler: {who} At line {line} in {}.{}",
                        e.schema,
                        e.name
                    );
                }
            }
        }
    }
    s.close();
}

/// The body line of the statement that failed: a compound body's note 4094
/// names it, a one-statement body is line 1.
fn failed_line(s: &crate::session::Session) -> u32 {
    s.cx.warnings
        .iter()
        .rev()
        .filter(|w| w.code == 4094)
        .find_map(|w| {
            w.message
                .strip_prefix("At line ")?
                .strip_suffix(" in anonymous block")?
                .parse()
                .ok()
        })
        .unwrap_or(1)
}

/// The lines of SHOW CREATE EVENT's statement before the body.
fn header_lines(e: &EventDef) -> u32 {
    crate::sp::header_lines(&crate::infoschema::events::create_statement(e), &e.body)
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
