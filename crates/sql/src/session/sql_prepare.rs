//! PREPARE, EXECUTE, DEALLOCATE PREPARE and EXECUTE IMMEDIATE in SQL, and KILL
//! with its id as an expression.

use super::{Out, Session};
use crate::front::native::{PrepareSource, UsingArg};
use crate::front::transcode::TextCharsets;
use crate::result::QueryResult;
use basalt_common::{Charset, MySqlError, Value};

type R<T> = Result<T, MySqlError>;

impl Session {
    pub(super) fn sql_prepare(&mut self, name: String, source: PrepareSource) -> R<QueryResult> {
        let bytes = match source {
            PrepareSource::Text(t) => t,
            PrepareSource::UserVar(v) => statement_bytes(self.cx.user_vars.get(&v)),
        };
        let id = self.prepare_value(&bytes)?;
        if let Some(old) = self.sql_prepared.insert(name, id) {
            self.close_prepared(old);
        }
        let mut ok = QueryResult::ok(0);
        if let QueryResult::Ok { info: i, .. } = &mut ok {
            *i = "Statement prepared".into();
        }
        Ok(ok)
    }

    /// Prepares a statement given as a string value (internal bytes, UTF-8 for
    /// text); the new statement's id.
    fn prepare_value(&mut self, bytes: &[u8]) -> R<u32> {
        let charsets = TextCharsets {
            client: Charset::Utf8mb4,
            connection: self.cx.text_charsets.connection,
        };
        let backslash = !self.cx.mode.no_backslash_escapes;
        let text = charsets.decode(bytes, None, backslash)?;
        let transcoded = matches!(text, std::borrow::Cow::Owned(_));
        let text = text.into_owned();
        let info = self.with_transcoded(transcoded, |s| {
            s.prepare_with(&text, crate::stack::base::SQL_PREPARE)
        })?;
        Ok(info.id)
    }

    pub(super) fn sql_execute(
        &mut self,
        name: &str,
        using: Vec<UsingArg>,
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        let id = *self
            .sql_prepared
            .get(name)
            .ok_or_else(|| MySqlError::unknown_stmt_handler(name, "EXECUTE"))?;
        self.execute_with(id, using, out)
    }

    fn execute_with(&mut self, id: u32, using: Vec<UsingArg>, out: &mut Out<'_>) -> R<QueryResult> {
        let backslash = !self.cx.mode.no_backslash_escapes;
        self.execute_using = using
            .iter()
            .map(|u| match u {
                UsingArg::Var(v) => Some(v.clone()),
                _ => None,
            })
            .collect();
        let mut params = Vec::with_capacity(using.len());
        for u in using {
            params.push(match u {
                UsingArg::Var(v) => self.cx.user_vars.get(&v).cloned().unwrap_or(Value::Null),
                UsingArg::Value(v) => v,
                UsingArg::Str(s) => Value::Bytes(crate::front::lexer::unquote(&s, backslash)),
                UsingArg::Expr(e) => self.eval_operand(&e, "EXECUTE ... USING")?,
            });
        }
        let r = self.execute_prepared_inner(id, &params, "EXECUTE", out);
        self.execute_using.clear();
        r
    }

    pub(super) fn sql_deallocate(&mut self, name: &str) -> R<QueryResult> {
        let id = self
            .sql_prepared
            .remove(name)
            .ok_or_else(|| MySqlError::unknown_stmt_handler(name, "DEALLOCATE PREPARE"))?;
        self.close_prepared(id);
        Ok(QueryResult::ok(0))
    }

    /// `EXECUTE IMMEDIATE`: the source expression's value prepared, executed with
    /// the arguments and dropped (a NULL is the text `NULL`, a syntax error).
    pub(super) fn execute_immediate(
        &mut self,
        source: &str,
        using: Vec<UsingArg>,
        out: &mut Out<'_>,
    ) -> R<QueryResult> {
        let v = self.eval_operand(source, "EXECUTE IMMEDIATE")?;
        let id = self.prepare_value(&statement_bytes(Some(&v)))?;
        let r = self.execute_with(id, using, out);
        self.close_prepared(id);
        r
    }

    /// `KILL [QUERY] expr`: the value as MariaDB reads an id (rounded, a string's
    /// number, NULL as 0, a negative one as its unsigned 64-bit pattern).
    pub(super) fn kill_statement(&mut self, query_only: bool, id: &str) -> R<QueryResult> {
        let v = self.eval_operand(id, "KILL")?;
        let n = crate::value::to_num(&v).0;
        let id = n
            .to_i64()
            .unwrap_or(if n.to_f64() < 0.0 { i64::MIN } else { i64::MAX }) as u64;
        self.check_kill(id)?;
        if !self.cx.engine.events.kill(id) {
            self.cx.engine.hooks().kill(id, query_only)?;
        }
        Ok(QueryResult::ok(0))
    }

    /// An operand of `what` evaluated as SET's values are; MariaDB's 1970 when it
    /// has a subquery.
    fn eval_operand(&mut self, text: &str, what: &str) -> R<Value> {
        let lexed = crate::front::lexer::lex(text);
        if lexed.tokens.iter().any(|t| t.is_kw(text, "select")) {
            return Err(MySqlError::new(
                1970,
                "42000",
                format!("{what} does not support subqueries or stored functions"),
            ));
        }
        self.eval_standalone(text)
    }
}

/// A statement held in a value: a string's bytes, other values as displayed, NULL
/// (or an unset variable) as the word NULL.
fn statement_bytes(v: Option<&Value>) -> Vec<u8> {
    match v {
        Some(Value::Null) | None => b"NULL".to_vec(),
        Some(Value::Bytes(b)) => b.clone(),
        Some(val) => val.display_lossy().into_bytes(),
    }
}
