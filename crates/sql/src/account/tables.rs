//! The `mysql` database's grant tables as MariaDB 10.11 shows them, read-only and
//! built from the accounts when a statement opens them: `global_priv` (one JSON
//! document per account), `user` (MariaDB's view over it, one Y/N column per
//! privilege), `db`, `tables_priv` and `roles_mapping`. Changing them is done with CREATE USER,
//! GRANT and the other account statements; a write to them is refused as to any
//! read-only table.

use basalt_acl::{Account, AclData, Privs};
use basalt_common::{Collation, ColumnDef, DataType, Decimal, IntKind, LobKind, Row, Value};

const UTF8: Collation = Collation::Utf8mb3Bin;

fn chr(name: &str, len: u32) -> ColumnDef {
    let mut c = ColumnDef::new(
        name,
        DataType::Char {
            len,
            collation: UTF8,
        },
    );
    c.nullable = false;
    c
}

fn flag(name: &str, nullable: bool) -> ColumnDef {
    let mut c = ColumnDef::new(
        name,
        DataType::VarChar {
            len: 1,
            collation: UTF8,
        },
    );
    c.nullable = nullable;
    c
}

fn long_text(name: &str, nullable: bool) -> ColumnDef {
    let ty = DataType::Text {
        kind: LobKind::Long,
        collation: Collation::Utf8mb4Bin,
    };
    let mut c = ColumnDef::new(name, ty);
    c.nullable = nullable;
    c
}

fn big(name: &str, unsigned: bool) -> ColumnDef {
    let mut c = ColumnDef::new(name, DataType::int(IntKind::Big, unsigned));
    c.nullable = false;
    c
}

/// mysql.user's privilege columns with their privilege, in MariaDB's order.
const USER_FLAGS: &[(&str, Privs)] = &[
    ("Select_priv", Privs::SELECT),
    ("Insert_priv", Privs::INSERT),
    ("Update_priv", Privs::UPDATE),
    ("Delete_priv", Privs::DELETE),
    ("Create_priv", Privs::CREATE),
    ("Drop_priv", Privs::DROP),
    ("Reload_priv", Privs::RELOAD),
    ("Shutdown_priv", Privs::SHUTDOWN),
    ("Process_priv", Privs::PROCESS),
    ("File_priv", Privs::FILE),
    ("Grant_priv", Privs::GRANT),
    ("References_priv", Privs::REFERENCES),
    ("Index_priv", Privs::INDEX),
    ("Alter_priv", Privs::ALTER),
    ("Show_db_priv", Privs::SHOW_DB),
    ("Super_priv", Privs::SUPER),
    ("Create_tmp_table_priv", Privs::CREATE_TMP),
    ("Lock_tables_priv", Privs::LOCK_TABLES),
    ("Execute_priv", Privs::EXECUTE),
    ("Repl_slave_priv", Privs::REPL_SLAVE),
    ("Repl_client_priv", Privs::BINLOG_MONITOR),
    ("Create_view_priv", Privs::CREATE_VIEW),
    ("Show_view_priv", Privs::SHOW_VIEW),
    ("Create_routine_priv", Privs::CREATE_PROC),
    ("Alter_routine_priv", Privs::ALTER_PROC),
    ("Create_user_priv", Privs::CREATE_USER),
    ("Event_priv", Privs::EVENT),
    ("Trigger_priv", Privs::TRIGGER),
    ("Create_tablespace_priv", Privs::CREATE_TABLESPACE),
    ("Delete_history_priv", Privs::DELETE_HISTORY),
];

/// mysql.db's privilege columns, in MariaDB's order.
const DB_FLAGS: &[(&str, Privs)] = &[
    ("Select_priv", Privs::SELECT),
    ("Insert_priv", Privs::INSERT),
    ("Update_priv", Privs::UPDATE),
    ("Delete_priv", Privs::DELETE),
    ("Create_priv", Privs::CREATE),
    ("Drop_priv", Privs::DROP),
    ("Grant_priv", Privs::GRANT),
    ("References_priv", Privs::REFERENCES),
    ("Index_priv", Privs::INDEX),
    ("Alter_priv", Privs::ALTER),
    ("Create_tmp_table_priv", Privs::CREATE_TMP),
    ("Lock_tables_priv", Privs::LOCK_TABLES),
    ("Create_view_priv", Privs::CREATE_VIEW),
    ("Show_view_priv", Privs::SHOW_VIEW),
    ("Create_routine_priv", Privs::CREATE_PROC),
    ("Alter_routine_priv", Privs::ALTER_PROC),
    ("Execute_priv", Privs::EXECUTE),
    ("Event_priv", Privs::EVENT),
    ("Trigger_priv", Privs::TRIGGER),
    ("Delete_history_priv", Privs::DELETE_HISTORY),
];

/// tables_priv's Table_priv words, in MariaDB's SET order.
const TABLE_WORDS: &[(&str, Privs)] = &[
    ("Select", Privs::SELECT),
    ("Insert", Privs::INSERT),
    ("Update", Privs::UPDATE),
    ("Delete", Privs::DELETE),
    ("Create", Privs::CREATE),
    ("Drop", Privs::DROP),
    ("Grant", Privs::GRANT),
    ("References", Privs::REFERENCES),
    ("Index", Privs::INDEX),
    ("Alter", Privs::ALTER),
    ("Create View", Privs::CREATE_VIEW),
    ("Show view", Privs::SHOW_VIEW),
    ("Trigger", Privs::TRIGGER),
    ("Delete versioning rows", Privs::DELETE_HISTORY),
];

/// The columns of grant table `name`.
pub fn columns(name: &str) -> Option<Vec<ColumnDef>> {
    let mut cols = vec![chr("Host", 255)];
    match name {
        "global_priv" => {
            cols.push(chr("User", 128));
            cols.push(long_text("Priv", false));
        }
        "user" => {
            cols.push(chr("User", 128));
            cols.push(long_text("Password", true));
            cols.extend(USER_FLAGS.iter().map(|(n, _)| flag(n, true)));
            cols.push(flag("ssl_type", true));
            for n in ["ssl_cipher", "x509_issuer", "x509_subject"] {
                cols.push(long_text(n, false));
            }
            for n in ["max_questions", "max_updates", "max_connections"] {
                cols.push(big(n, true));
            }
            cols.push(big("max_user_connections", false));
            cols.push(long_text("plugin", false));
            cols.push(long_text("authentication_string", false));
            cols.push(flag("password_expired", false));
            cols.push(flag("is_role", true));
            cols.push(long_text("default_role", false));
            let mut t = ColumnDef::new(
                "max_statement_time",
                DataType::Decimal {
                    precision: 12,
                    scale: 6,
                },
            );
            t.nullable = false;
            cols.push(t);
        }
        "db" => {
            cols.push(chr("Db", 64));
            cols.push(chr("User", 128));
            cols.extend(DB_FLAGS.iter().map(|(n, _)| flag(n, false)));
        }
        "tables_priv" => {
            cols.push(chr("Db", 64));
            cols.push(chr("User", 128));
            cols.push(chr("Table_name", 64));
            let mut g = ColumnDef::new(
                "Grantor",
                DataType::VarChar {
                    len: 384,
                    collation: UTF8,
                },
            );
            g.nullable = false;
            cols.push(g);
            cols.push(long_text("Table_priv", false));
            cols.push(long_text("Column_priv", false));
        }
        "roles_mapping" => {
            cols.push(chr("User", 128));
            cols.push(chr("Role", 128));
            cols.push(flag("Admin_option", false));
        }
        _ => return None,
    }
    Some(cols)
}

fn s(v: &str) -> Value {
    Value::str(v)
}

fn yn(p: Privs, bit: Privs) -> Value {
    s(if p.contains(bit) { "Y" } else { "N" })
}

/// The rows of grant table `name`.
pub fn rows(name: &str, acl: &AclData) -> Vec<Row> {
    match name {
        "global_priv" => acl
            .accounts
            .iter()
            .map(|a| vec![s(&a.host), s(&a.user), s(&global_priv(a))])
            .collect(),
        "user" => acl.accounts.iter().map(user_row).collect(),
        "db" => acl
            .dbs
            .iter()
            .map(|g| {
                let mut r = vec![s(&g.host), s(&g.db), s(&g.user)];
                r.extend(DB_FLAGS.iter().map(|(_, b)| yn(g.privs, *b)));
                r
            })
            .collect(),
        "tables_priv" => acl
            .tables
            .iter()
            .map(|g| {
                let words: Vec<&str> = TABLE_WORDS
                    .iter()
                    .filter(|(_, b)| g.privs.contains(*b))
                    .map(|(w, _)| *w)
                    .collect();
                vec![
                    s(&g.host),
                    s(&g.db),
                    s(&g.user),
                    s(&g.table),
                    s(""),
                    s(&words.join(",")),
                    s(""),
                ]
            })
            .collect(),
        "roles_mapping" => acl
            .roles
            .iter()
            .map(|g| {
                let admin = if g.admin { "Y" } else { "N" };
                vec![s(&g.host), s(&g.user), s(&g.role), s(admin)]
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A JSON string: MariaDB's escapes (quote, backslash, control characters).
fn json(v: &str) -> String {
    let mut out = String::from("\"");
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An account's mysql.global_priv document, its keys in the order MariaDB
/// writes them on CREATE USER; the TLS keys only for an account with a
/// requirement.
fn global_priv(a: &Account) -> String {
    if a.is_role {
        return format!("{{\"access\":{},\"is_role\":true}}", a.privs.0);
    }
    let mut doc = format!(
        "{{\"access\":{},\"plugin\":{},\"authentication_string\":{}",
        a.privs.0,
        json(&a.plugin),
        json(&a.auth)
    );
    if a.limits.any() {
        let l = &a.limits;
        doc.push_str(&format!(
            ",\"max_questions\":{},\"max_updates\":{},\"max_connections\":{},\"max_user_connections\":{},\"max_statement_time\":{:.6}",
            l.questions, l.updates, l.connections, l.user_connections, l.statement_time
        ));
    }
    if !a.tls.is_none() {
        doc.push_str(&format!(
            ",\"ssl_type\":{},\"ssl_cipher\":{},\"x509_issuer\":{},\"x509_subject\":{}",
            a.tls.kind.number(),
            json(&a.tls.cipher),
            json(&a.tls.issuer),
            json(&a.tls.subject)
        ));
    }
    if a.locked {
        doc.push_str(",\"account_locked\":true");
    }
    if a.password_expired {
        doc.push_str(",\"password_last_changed\":0");
    }
    if !a.default_role.is_empty() {
        doc.push_str(&format!(",\"default_role\":{}", json(&a.default_role)));
    }
    doc.push('}');
    doc
}

fn user_row(a: &Account) -> Row {
    let native = a.plugin == basalt_acl::NATIVE;
    let mut r = vec![s(&a.host), s(&a.user), s(if native { &a.auth } else { "" })];
    r.extend(USER_FLAGS.iter().map(|(_, b)| yn(a.privs, *b)));
    r.push(s(a.tls.kind.column()));
    r.extend([s(&a.tls.cipher), s(&a.tls.issuer), s(&a.tls.subject)]);
    let l = &a.limits;
    r.extend([
        Value::UInt(l.questions),
        Value::UInt(l.updates),
        Value::UInt(l.connections),
        Value::Int(l.user_connections),
    ]);
    r.push(s(&a.plugin));
    r.push(s(&a.auth));
    r.push(s(if a.password_expired { "Y" } else { "N" }));
    r.push(s(if a.is_role { "Y" } else { "N" }));
    r.push(s(&a.default_role));
    let micros = (l.statement_time * 1e6).round() as i128;
    r.push(Value::Decimal(Decimal::new(micros, 6)));
    r
}
