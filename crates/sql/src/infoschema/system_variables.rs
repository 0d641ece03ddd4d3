//! `information_schema.SYSTEM_VARIABLES`: one row per system variable, in
//! MariaDB 10.11's column layout, with the session and global values as SHOW
//! VARIABLES prints them, the default, the scope, the type and whether it is
//! read-only. Basalt keeps no help text, numeric bounds or command-line
//! spelling per variable: those columns are empty or NULL.

use super::Col::{self, *};
use crate::result::{opt_s, s};
use crate::session::ctx::SessionCtx;
use crate::show::var_text;
use crate::sysvars::{self, Init, Kind, Scope, VarDef};
use basalt_common::{Row, Value};

pub const COLUMNS: &[(&str, Col)] = &[
    ("VARIABLE_NAME", Str(64)),
    ("SESSION_VALUE", OptStr(2048)),
    ("GLOBAL_VALUE", OptStr(2048)),
    ("GLOBAL_VALUE_ORIGIN", Str(64)),
    ("DEFAULT_VALUE", OptStr(2048)),
    ("VARIABLE_SCOPE", Str(64)),
    ("VARIABLE_TYPE", Str(64)),
    ("VARIABLE_COMMENT", Str(2048)),
    ("NUMERIC_MIN_VALUE", OptStr(21)),
    ("NUMERIC_MAX_VALUE", OptStr(21)),
    ("NUMERIC_BLOCK_SIZE", OptStr(21)),
    ("ENUM_VALUE_LIST", LongText),
    ("READ_ONLY", Str(3)),
    ("COMMAND_LINE_ARGUMENT", OptStr(64)),
    ("GLOBAL_VALUE_PATH", OptStr(2048)),
];

pub fn rows(cx: &SessionCtx) -> Vec<Row> {
    sysvars::all().iter().map(|d| row(d, cx)).collect()
}

fn row(d: &'static VarDef, cx: &SessionCtx) -> Row {
    let text = |v: &Value| var_text(d.kind, v);
    let session = (d.scope != Scope::Global).then(|| text(&cx.sysvar(d, false)));
    let global = (d.scope != Scope::Session).then(|| text(&cx.sysvar(d, true)));
    let default = text(&d.initial(&cx.engine.config));
    let origin = match (&d.init, &global) {
        (Init::Config(_), _) => "CONFIG",
        (_, Some(g)) if *g != default => "SQL",
        _ => "COMPILE-TIME",
    };
    let scope = match d.scope {
        Scope::Global => "GLOBAL",
        Scope::Session => "SESSION ONLY",
        Scope::Both => "SESSION",
    };
    let (ty, values) = type_of(d.kind, &cx.sysvar(d, d.scope == Scope::Global));
    vec![
        s(d.name.to_ascii_uppercase()),
        opt_s(session),
        opt_s(global),
        s(origin),
        opt_s(Some(default)),
        s(scope),
        s(ty),
        s(""),
        Value::Null,
        Value::Null,
        Value::Null,
        opt_s(values),
        s(if d.read_only || d.kind == Kind::Dynamic {
            "YES"
        } else {
            "NO"
        }),
        Value::Null,
        Value::Null,
    ]
}

/// VARIABLE_TYPE and ENUM_VALUE_LIST of a variable of `kind` (whose current
/// value is `v`).
fn type_of(kind: Kind, v: &Value) -> (&'static str, Option<String>) {
    match kind {
        Kind::Bool => ("BOOLEAN", Some("OFF,ON".into())),
        Kind::UInt => ("BIGINT UNSIGNED", None),
        Kind::Int => ("BIGINT", None),
        Kind::Double => ("DOUBLE", None),
        Kind::Enum(names) => ("ENUM", Some(names.join(","))),
        Kind::Isolation => (
            "ENUM",
            Some("READ-UNCOMMITTED,READ-COMMITTED,REPEATABLE-READ,SERIALIZABLE".into()),
        ),
        Kind::SqlMode => ("SET", None),
        Kind::Dynamic => match v {
            Value::UInt(_) => ("BIGINT UNSIGNED", None),
            Value::Int(_) => ("BIGINT", None),
            _ => ("VARCHAR", None),
        },
        Kind::Str | Kind::Charset { .. } | Kind::Collation => ("VARCHAR", None),
    }
}
