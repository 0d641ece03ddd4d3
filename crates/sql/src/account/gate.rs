//! The privileges of statements that are not plans: DDL, administration and the
//! native statements, checked before they run. DML is checked through its plan's
//! [`crate::plan::Need`]s.

use super::R;
use crate::front::native::view::ViewStmt;
use crate::front::native::{IntoTarget, MaintOp, Native, SetTarget};
use crate::session::Session;
use basalt_acl::Privs;
use basalt_common::MySqlError;
use sqlparser::ast::{self, ObjectType, Statement};

/// The privileges MariaDB names for administration it gates with SUPER.
const SUPER: &str = "SUPER";

/// Privileges whose statements change a table (what `read_only` refuses).
const CHANGES: Privs = Privs(
    Privs::INSERT.0
        | Privs::UPDATE.0
        | Privs::DELETE.0
        | Privs::CREATE.0
        | Privs::DROP.0
        | Privs::ALTER.0
        | Privs::INDEX.0
        | Privs::CREATE_VIEW.0,
);

impl Session {
    /// `[db.]name` with the current database filled in.
    fn qualify(&self, db: &Option<String>, name: &str) -> R<(String, String)> {
        let db = match db {
            Some(d) => d.clone(),
            None => self.cx.db.clone().ok_or_else(MySqlError::no_db)?,
        };
        Ok((db, name.to_string()))
    }

    fn need_table(&mut self, db: &Option<String>, t: &str, p: Privs, cmd: &str) -> R<()> {
        self.need_table_changing(db, t, p, cmd, p.intersects(CHANGES))
    }

    /// [`Session::need_table`]; `changes`: the statement changes the table, so
    /// `read_only` refuses it (1290) unless the table is temporary.
    fn need_table_changing(
        &mut self,
        db: &Option<String>,
        t: &str,
        p: Privs,
        cmd: &str,
        changes: bool,
    ) -> R<()> {
        let (db, t) = self.qualify(db, t)?;
        if self.cx.temp.contains(&db, &t) {
            return Ok(());
        }
        if changes {
            self.cx.check_read_only()?;
        }
        self.cx.require_table(&db, &t, p, cmd)
    }

    fn need_object(&mut self, name: &ast::ObjectName, p: Privs, cmd: &str) -> R<()> {
        let (db, t) = crate::bind::ddl::qualified(name, &self.cx)?;
        self.need_table(&Some(db), &t, p, cmd)
    }

    /// A native statement's privileges.
    pub(crate) fn check_native(&mut self, n: &Native) -> R<()> {
        if self.cx.privs.account.is_none() {
            return Ok(());
        }
        match n {
            Native::Binlog(_) | Native::Replica(_) => self.cx.require_global(Privs::SUPER, SUPER),
            Native::Shutdown => self.cx.require_global(Privs::SHUTDOWN, "SHUTDOWN"),
            Native::FlushStatistics { .. } => self.cx.require_global(Privs::RELOAD, "RELOAD"),
            Native::Set(items) | Native::SetNames { then: items, .. } => {
                items.iter().try_for_each(|item| match &item.target {
                    SetTarget::Sys {
                        name, global: true, ..
                    } => {
                        let (privs, names) = global_variable_privilege(name);
                        self.cx.require_global(privs, names)
                    }
                    _ => Ok(()),
                })
            }
            Native::CreateDatabase {
                name, or_replace, ..
            } => {
                self.cx.check_read_only()?;
                if *or_replace {
                    self.cx.require_db(name, Privs::DROP)?;
                }
                self.cx.require_db(name, Privs::CREATE)
            }
            Native::AlterDatabase { name, .. } => {
                let db = self.qualify(name, "")?.0;
                self.cx.check_read_only()?;
                self.cx.require_db(&db, Privs::ALTER)
            }
            Native::AlterTable(a) => self.need_table(&a.db, &a.table, Privs::ALTER, "ALTER"),
            Native::AlterKeys { db, table, .. } => {
                self.need_table(db, table, Privs::ALTER, "ALTER")
            }
            Native::Maintenance(m) => {
                let changes = !matches!(m.op, MaintOp::Check | MaintOp::Checksum { .. });
                for (db, t) in &m.tables {
                    let p = Privs::SELECT | Privs::INSERT;
                    self.need_table_changing(db, t, p, "INSERT", changes)?;
                }
                Ok(())
            }
            Native::LoadData(d) => {
                if !d.local {
                    self.cx.require_global(Privs::FILE, "FILE")?;
                }
                self.need_table(&d.db, &d.table, Privs::INSERT, "INSERT")
            }
            Native::SelectInto(s) if !matches!(s.target, IntoTarget::Vars(_)) => {
                self.cx.require_global(Privs::FILE, "FILE")
            }
            Native::View(ViewStmt::Create(v)) => {
                let mut p = Privs::CREATE_VIEW;
                if v.or_replace || v.alter {
                    p |= Privs::DROP;
                }
                self.need_table(&v.db, &v.name, p, "CREATE VIEW")
            }
            Native::View(ViewStmt::Drop { names, .. }) => {
                for (db, v) in names {
                    self.need_table(db, v, Privs::DROP, "DROP")?;
                }
                Ok(())
            }
            Native::Sequence(_) => {
                self.cx.check_read_only()?;
                self.cx
                    .require_global(Privs::CREATE | Privs::DROP, "CREATE")
            }
            _ => Ok(()),
        }
    }

    /// USE and a login's database: 1044 unless the account may see it.
    pub(crate) fn check_use(&mut self, db: &str) -> R<()> {
        if self.cx.may_see_db(db) {
            return Ok(());
        }
        Err(self.cx.db_denied(db))
    }

    /// SHOW TABLES: 1044 only for an account with no privilege in `db` and no
    /// global privilege at all (MariaDB lists nothing for the others).
    pub(crate) fn check_show_tables(&mut self, db: &str) -> R<()> {
        if self.cx.may_see_db(db) || self.cx.has_global(Privs::ALL.without(Privs::GRANT)) {
            return Ok(());
        }
        Err(self.cx.db_denied(db))
    }

    /// KILL [CONNECTION | QUERY] and COM_PROCESS_KILL: one's own session and the
    /// sessions of the same user, anyone's with SUPER or CONNECTION ADMIN; 1095
    /// otherwise.
    pub(crate) fn check_kill(&mut self, id: u64) -> R<()> {
        if self.cx.privs.account.is_none()
            || id == self.cx.conn_id
            || self.cx.has_global(Privs::SUPER | Privs::CONNECTION_ADMIN)
        {
            return Ok(());
        }
        let owner = self
            .cx
            .engine
            .processlist()
            .into_iter()
            .find(|p| p.id == id);
        if owner.is_none_or(|p| p.user == self.cx.user) {
            return Ok(());
        }
        Err(MySqlError::new(
            1095,
            "HY000",
            format!("You are not owner of thread {id}"),
        ))
    }

    /// A parsed utility statement's privileges.
    pub(crate) fn check_utility(&mut self, stmt: &Statement) -> R<()> {
        if self.cx.privs.account.is_none() {
            return Ok(());
        }
        match stmt {
            Statement::Drop {
                object_type: ObjectType::Database | ObjectType::Schema,
                names,
                ..
            } => {
                self.cx.check_read_only()?;
                for n in names {
                    self.cx
                        .require_db(&crate::bind::object_parts(n).join("."), Privs::DROP)?;
                }
                Ok(())
            }
            Statement::Drop {
                object_type: ObjectType::Table | ObjectType::View,
                names,
                ..
            } => names
                .iter()
                .try_for_each(|n| self.need_object(n, Privs::DROP, "DROP")),
            Statement::Drop {
                object_type: ObjectType::Index,
                table: Some(t),
                ..
            } => self.need_object(t, Privs::INDEX, "INDEX"),
            Statement::CreateTable(ct) if ct.temporary => {
                let (db, _) = crate::bind::ddl::qualified(&ct.name, &self.cx)?;
                self.cx.require_db(&db, Privs::CREATE_TMP)
            }
            Statement::CreateTable(ct) => {
                self.need_object(&ct.name, Privs::CREATE, "CREATE")?;
                if let Some(like) = &ct.like {
                    let name = match like {
                        ast::CreateTableLikeKind::Parenthesized(l)
                        | ast::CreateTableLikeKind::Plain(l) => &l.name,
                    };
                    self.need_object(name, Privs::SELECT, "SELECT")?;
                }
                if ct.query.is_some() {
                    self.need_object(&ct.name, Privs::INSERT, "INSERT")?;
                }
                Ok(())
            }
            Statement::CreateIndex(ci) => self.need_object(&ci.table_name, Privs::INDEX, "INDEX"),
            Statement::Truncate(t) => t
                .table_names
                .iter()
                .try_for_each(|n| self.need_object(&n.name, Privs::DROP, "DROP")),
            Statement::RenameTable(pairs) => pairs.iter().try_for_each(|r| {
                self.need_object(&r.old_name, Privs::ALTER | Privs::DROP, "ALTER")?;
                self.need_object(&r.new_name, Privs::CREATE | Privs::INSERT, "CREATE")
            }),
            Statement::Use(_) => Ok(()),
            Statement::Flush { .. } => self.cx.require_global(Privs::RELOAD, "RELOAD"),
            Statement::LockTables { tables } => {
                for t in tables {
                    if matches!(t.lock_type, ast::LockTableType::Write { .. }) {
                        let (db, name) = self.qualify(&None, &t.table.value)?;
                        if !self.cx.temp.contains(&db, &name) {
                            self.cx.check_read_only()?;
                        }
                    }
                }
                Ok(())
            }
            Statement::ExplainTable { table_name, .. } => {
                let (db, t) = crate::bind::ddl::qualified(table_name, &self.cx)?;
                self.cx.require_any_on_table(&db, &t, "SELECT")
            }
            Statement::Analyze(a) => match a.table_name.as_ref() {
                Some(n) => self.need_object(n, Privs::SELECT | Privs::INSERT, "INSERT"),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// An expired password allows only SET PASSWORD and ALTER USER (1820).
    pub(crate) fn check_expired(&self, n: Option<&Native>) -> R<()> {
        if !self.cx.privs.password_expired {
            return Ok(());
        }
        match n {
            Some(Native::Account(
                crate::front::native::account::AccountStmt::SetPassword { .. }
                | crate::front::native::account::AccountStmt::AlterUser { .. },
            )) => Ok(()),
            _ => Err(MySqlError::new(
                1820,
                "HY000",
                "You must SET PASSWORD before executing this statement",
            )),
        }
    }
}

/// The privileges SET GLOBAL of a variable needs, and how MariaDB 10.11 names
/// them in 1227.
fn global_variable_privilege(name: &str) -> (Privs, &'static str) {
    const CONNECTION: &[&str] = &[
        "max_connections",
        "connect_timeout",
        "init_connect",
        "secure_auth",
        "max_connect_errors",
        "extra_max_connections",
        "disconnect_on_expired_password",
        "max_password_errors",
        "proxy_protocol_networks",
    ];
    const MASTER: &[&str] = &["server_id", "gtid_domain_id", "gtid_binlog_state"];
    let n = name.to_ascii_lowercase();
    let binlog = n.starts_with("binlog_")
        || n.starts_with("log_bin_")
        || n.starts_with("max_binlog_")
        || matches!(n.as_str(), "expire_logs_days" | "sync_binlog");
    let slave = n.starts_with("slave_")
        || n.starts_with("replicate_")
        || n.starts_with("relay_log")
        || n.starts_with("rpl_semi_sync_slave")
        || matches!(
            n.as_str(),
            "gtid_slave_pos"
                | "sql_slave_skip_counter"
                | "max_relay_log_size"
                | "log_slave_updates"
                | "log_replica_updates"
        );
    if n == "read_only" {
        (Privs::READ_ONLY_ADMIN, "READ_ONLY ADMIN")
    } else if binlog {
        (Privs::SUPER | Privs::BINLOG_ADMIN, "SUPER, BINLOG ADMIN")
    } else if slave {
        (
            Privs::SUPER | Privs::REPL_SLAVE_ADMIN,
            "SUPER, REPLICATION SLAVE ADMIN",
        )
    } else if MASTER.contains(&n.as_str()) || n.starts_with("rpl_semi_sync_master") {
        (
            Privs::SUPER | Privs::REPL_MASTER_ADMIN,
            "SUPER, REPLICATION MASTER ADMIN",
        )
    } else if CONNECTION.contains(&n.as_str()) || n.starts_with("thread_pool") {
        (
            Privs::SUPER | Privs::CONNECTION_ADMIN,
            "SUPER, CONNECTION ADMIN",
        )
    } else {
        (Privs::SUPER, SUPER)
    }
}
