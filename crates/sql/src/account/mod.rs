//! Accounts and privileges in the SQL layer: the server-wide [`AclStore`] (the
//! accounts and grants, stored in the catalog through the engine), each session's
//! [`SessionPrivs`], the checks statements pass ([`check`]) and the account
//! statements themselves ([`stmt`]).

pub mod check;
pub mod gate;
pub mod resources;
pub mod role;
pub mod stmt;
pub mod tables;

use basalt_acl::{AclData, Grants, Privs};
use basalt_common::MySqlError;
use basalt_storage::Storage;
use parking_lot::{Mutex, RwLock};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

type R<T> = Result<T, MySqlError>;

/// The accounts and grants every session checks against. Readers take a
/// snapshot; a change copies, persists and swaps it, then bumps the generation
/// that tells sessions to refresh their privileges.
pub struct AclStore {
    data: RwLock<Arc<AclData>>,
    generation: AtomicU64,
    storage: Arc<Storage>,
    writer: Mutex<()>,
}

impl AclStore {
    /// The accounts of the data directory; a data directory without any gets
    /// MariaDB's installer defaults ([`AclData::initial`]).
    pub fn load(storage: &Arc<Storage>) -> AclStore {
        let data = match storage.accounts() {
            Some(doc) => AclData::from_doc(&doc).unwrap_or_else(|e| {
                tracing::error!(error = %e, "accounts unreadable; starting with the defaults");
                AclData::initial()
            }),
            None => AclData::initial(),
        };
        AclStore {
            data: RwLock::new(Arc::new(data)),
            generation: AtomicU64::new(1),
            storage: storage.clone(),
            writer: Mutex::new(()),
        }
    }

    pub fn snapshot(&self) -> Arc<AclData> {
        self.data.read().clone()
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Changes the accounts with `f`, durably; nothing changes when `f` or the
    /// write fails.
    pub fn update<T>(&self, f: impl FnOnce(&mut AclData) -> R<T>) -> R<T> {
        let _w = self.writer.lock();
        let mut next = (*self.snapshot()).clone();
        let out = f(&mut next)?;
        let doc = next
            .to_doc()
            .map_err(|e| MySqlError::internal(format!("encoding accounts: {e}")))?;
        self.storage
            .set_accounts(doc)
            .map_err(crate::exec::storage_err)?;
        *self.data.write() = Arc::new(next);
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(out)
    }
}

/// Whose rights a session has: an account (`user`@`host pattern`, CURRENT_USER())
/// or, for the server's own sessions (replication applier, embedded use), every
/// right.
#[derive(Clone, Debug, Default)]
pub struct SessionPrivs {
    /// `None`: an internal session, allowed everything.
    pub account: Option<(String, String)>,
    /// The enabled role (SET ROLE, CURRENT_ROLE()).
    pub role: Option<String>,
    generation: u64,
    grants: Arc<Grants>,
    /// The account holds every global privilege: nothing needs checking.
    all: bool,
    /// The account's password expired: only SET PASSWORD / ALTER USER run.
    pub password_expired: bool,
    /// The account's resource limits, as of the login.
    pub limits: basalt_acl::Limits,
    /// The login counts in [`resources::Resources`] until the session ends.
    pub tracked: bool,
}

impl SessionPrivs {
    pub fn for_account(user: &str, host: &str) -> SessionPrivs {
        SessionPrivs {
            account: Some((user.to_string(), host.to_string())),
            ..SessionPrivs::default()
        }
    }

    /// CURRENT_USER(): `user@host` of the account.
    pub fn current_user(&self, login_user: &str) -> String {
        match &self.account {
            Some((u, h)) => format!("{u}@{h}"),
            None => format!("{login_user}@%"),
        }
    }

    /// Brings the cached grants up to date; cheap when nothing changed.
    pub fn refresh(&mut self, store: &AclStore) {
        let Some((user, host)) = &self.account else {
            return;
        };
        let generation = store.generation();
        if generation == self.generation {
            return;
        }
        let grants = store
            .snapshot()
            .effective_grants(user, host, self.role.as_deref());
        self.all = grants.global == Privs::ALL || grants.global == Privs::ALL.without(Privs::GRANT);
        self.grants = Arc::new(grants);
        self.generation = generation;
    }

    /// Enables `role` (`None`: no role); the grants are recomputed at the next
    /// check.
    pub fn set_role(&mut self, role: Option<String>) {
        self.role = role;
        self.generation = 0;
    }

    /// Whether every check passes without looking (internal sessions, accounts
    /// with all global privileges). Call [`SessionPrivs::refresh`] first.
    pub fn unrestricted(&self) -> bool {
        self.account.is_none() || self.all
    }

    pub fn grants(&self) -> &Grants {
        &self.grants
    }

    /// Whether information_schema shows database `db` (as of the last refresh).
    pub fn sees_db(&self, db: &str) -> bool {
        self.unrestricted()
            || self.grants.global.contains(Privs::SHOW_DB)
            || self.grants.any_in_db(db)
    }

    /// Whether information_schema shows table `db.table`.
    pub fn sees_table(&self, db: &str, table: &str) -> bool {
        self.unrestricted() || self.grants.any_on_table(db, table)
    }

    /// Whether the process list shows a thread of `user` to a session logged in
    /// as `me`: its own user's threads, all with PROCESS.
    pub fn sees_thread(&self, me: &str, user: &str) -> bool {
        self.has_process() || me == user
    }

    /// Whether the account has PROCESS (every thread, the engine's internals).
    pub fn has_process(&self) -> bool {
        self.unrestricted() || self.grants.global.contains(Privs::PROCESS)
    }

    /// Whether the account may read every account's grants (SELECT on `mysql`).
    pub fn reads_all_grants(&self) -> bool {
        self.unrestricted() || self.grants.on_db("mysql").contains(Privs::SELECT)
    }
}
