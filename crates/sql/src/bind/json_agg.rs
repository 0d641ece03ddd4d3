//! JSON_ARRAYAGG(x [ORDER BY ...]) and JSON_OBJECTAGG(key, value), bound onto
//! the GROUP_CONCAT machinery as MariaDB implements them: each row contributes
//! its value as JSON text (`"a"`, `1`, `null`, or the document a JSON function
//! returned; for JSON_OBJECTAGG the member `"key":value`), the texts are joined
//! with `,` (`, ` between members) and the aggregate's result is wrapped in `[]`
//! or `{}`. Like MariaDB's, the result is cut at `group_concat_max_len` with the
//! same warning, and an empty group gives NULL.

use super::expr::{AggCollector, AGG_BASE};
use super::{Binder, Scope};
use crate::expr::func::json_fn::{JsonFn, Kind};
use crate::expr::{Expr, Func};
use crate::plan::{AggCall, AggFunc};
use crate::ty::{Class, ExprType};
use basalt_common::{Collation, MySqlError};
use sqlparser::ast;

type Bound = (Expr, ExprType);

impl Binder<'_> {
    /// Binds JSON_ARRAYAGG / JSON_OBJECTAGG (`name` lower case).
    pub(super) fn json_agg(
        &mut self,
        name: &str,
        list: &[ast::FunctionArg],
        distinct: bool,
        clauses: &[ast::FunctionArgumentClause],
        scope: &Scope,
        aggs: Option<&mut AggCollector>,
    ) -> Result<Bound, MySqlError> {
        let Some(aggs) = aggs else {
            return Err(MySqlError::invalid_group_func_use());
        };
        let object = name == "json_objectagg";
        let mut args = Vec::new();
        for a in list {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                    args.push(self.expr(e, scope, None)?.0)
                }
                _ => return Err(MySqlError::parse_error(name, 1)),
            }
        }
        // MariaDB: 1582 naming JSON_ARRAYAGG; JSON_OBJECTAGG is spelled out by
        // the grammar, so a wrong count there is a syntax error.
        let want = if object { 2 } else { 1 };
        if args.len() != want && !object {
            return Err(MySqlError::wrong_paramcount_to_native_fct("JSON_ARRAYAGG"));
        }
        if args.len() != want {
            return Err(MySqlError::parse_error(
                if args.len() > want { "," } else { ")" },
                1,
            ));
        }
        let kind = if object { Kind::Member } else { Kind::ToJson };
        let f = crate::expr::func::json_fn::refine(JsonFn { kind, json_args: 0 }, &args);
        let mut order = Vec::new();
        for c in clauses {
            if let ast::FunctionArgumentClause::OrderBy(list) = c {
                for o in list {
                    let (e, t) = self.expr(&o.expr, scope, None)?;
                    let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
                    let c = if t.class == Class::String {
                        t.collation
                    } else {
                        Collation::Binary
                    };
                    order.push((e, desc, c));
                }
            }
        }
        aggs.calls.push(AggCall {
            func: AggFunc::GroupConcat,
            arg: Some(Expr::Func(Func::Json(f), args)),
            distinct,
            coll: Collation::Utf8mb4Bin,
            separator: if object {
                b", ".to_vec()
            } else {
                b",".to_vec()
            },
            order,
        });
        let col = Expr::Column(AGG_BASE + aggs.calls.len() - 1);
        let wrap = JsonFn {
            kind: if object {
                Kind::WrapObject
            } else {
                Kind::WrapArray
            },
            json_args: 0,
        };
        let len = if object { 4_194_304 } else { 4_194_306 };
        let mut t = ExprType::string(len, Collation::Utf8mb4GeneralCi).nullable(true);
        t.decimals = 0;
        Ok((Expr::Func(Func::Json(wrap), vec![col]), t))
    }
}
