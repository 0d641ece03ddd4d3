//! Privileges as MariaDB 10.11 numbers them (`privilege.h`): one bit each, in the
//! order SHOW GRANTS lists them; the bit mask is what `mysql.global_priv` stores
//! as `access`.

/// A set of privileges.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct Privs(pub u64);

macro_rules! privs {
    ($($name:ident = $bit:expr, $text:expr;)*) => {
        impl Privs {
            $(pub const $name: Privs = Privs(1 << $bit);)*
        }
        /// Every privilege with its name, in bit order.
        pub const NAMES: &[(Privs, &str)] = &[$((Privs::$name, $text)),*];
    };
}

privs! {
    SELECT = 0, "SELECT";
    INSERT = 1, "INSERT";
    UPDATE = 2, "UPDATE";
    DELETE = 3, "DELETE";
    CREATE = 4, "CREATE";
    DROP = 5, "DROP";
    RELOAD = 6, "RELOAD";
    SHUTDOWN = 7, "SHUTDOWN";
    PROCESS = 8, "PROCESS";
    FILE = 9, "FILE";
    GRANT = 10, "GRANT OPTION";
    REFERENCES = 11, "REFERENCES";
    INDEX = 12, "INDEX";
    ALTER = 13, "ALTER";
    SHOW_DB = 14, "SHOW DATABASES";
    SUPER = 15, "SUPER";
    CREATE_TMP = 16, "CREATE TEMPORARY TABLES";
    LOCK_TABLES = 17, "LOCK TABLES";
    EXECUTE = 18, "EXECUTE";
    REPL_SLAVE = 19, "REPLICATION SLAVE";
    BINLOG_MONITOR = 20, "BINLOG MONITOR";
    CREATE_VIEW = 21, "CREATE VIEW";
    SHOW_VIEW = 22, "SHOW VIEW";
    CREATE_PROC = 23, "CREATE ROUTINE";
    ALTER_PROC = 24, "ALTER ROUTINE";
    CREATE_USER = 25, "CREATE USER";
    EVENT = 26, "EVENT";
    TRIGGER = 27, "TRIGGER";
    CREATE_TABLESPACE = 28, "CREATE TABLESPACE";
    DELETE_HISTORY = 29, "DELETE HISTORY";
    SET_USER = 30, "SET USER";
    FEDERATED_ADMIN = 31, "FEDERATED ADMIN";
    CONNECTION_ADMIN = 32, "CONNECTION ADMIN";
    READ_ONLY_ADMIN = 33, "READ_ONLY ADMIN";
    REPL_SLAVE_ADMIN = 34, "REPLICATION SLAVE ADMIN";
    REPL_MASTER_ADMIN = 35, "REPLICATION MASTER ADMIN";
    BINLOG_ADMIN = 36, "BINLOG ADMIN";
    BINLOG_REPLAY = 37, "BINLOG REPLAY";
    SLAVE_MONITOR = 38, "SLAVE MONITOR";
}

impl Privs {
    pub const NONE: Privs = Privs(0);
    /// Every privilege there is (a global `ALL PRIVILEGES` with GRANT OPTION).
    pub const ALL: Privs = Privs((1 << 39) - 1);
    /// What a database-level grant may hold.
    pub const DB_LEVEL: Privs = Privs(
        Privs::SELECT.0
            | Privs::INSERT.0
            | Privs::UPDATE.0
            | Privs::DELETE.0
            | Privs::CREATE.0
            | Privs::DROP.0
            | Privs::GRANT.0
            | Privs::REFERENCES.0
            | Privs::INDEX.0
            | Privs::ALTER.0
            | Privs::CREATE_TMP.0
            | Privs::LOCK_TABLES.0
            | Privs::EXECUTE.0
            | Privs::CREATE_VIEW.0
            | Privs::SHOW_VIEW.0
            | Privs::CREATE_PROC.0
            | Privs::ALTER_PROC.0
            | Privs::EVENT.0
            | Privs::TRIGGER.0
            | Privs::DELETE_HISTORY.0,
    );
    /// What a table-level grant may hold.
    pub const TABLE_LEVEL: Privs = Privs(
        Privs::SELECT.0
            | Privs::INSERT.0
            | Privs::UPDATE.0
            | Privs::DELETE.0
            | Privs::CREATE.0
            | Privs::DROP.0
            | Privs::GRANT.0
            | Privs::REFERENCES.0
            | Privs::INDEX.0
            | Privs::ALTER.0
            | Privs::CREATE_VIEW.0
            | Privs::SHOW_VIEW.0
            | Privs::TRIGGER.0
            | Privs::DELETE_HISTORY.0,
    );

    pub fn contains(self, other: Privs) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn intersects(self, other: Privs) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn without(self, other: Privs) -> Privs {
        Privs(self.0 & !other.0)
    }

    /// The privilege a GRANT / REVOKE names (`REPLICATION CLIENT` is MariaDB's old
    /// name of BINLOG MONITOR); words are upper case, one space apart.
    pub fn from_name(name: &str) -> Option<Privs> {
        let alias = match name {
            "REPLICATION CLIENT" => "BINLOG MONITOR",
            "REPLICATION REPLICA" => "REPLICATION SLAVE",
            "REPLICA MONITOR" => "SLAVE MONITOR",
            "REPLICATION REPLICA ADMIN" => "REPLICATION SLAVE ADMIN",
            "GRANT" => "GRANT OPTION",
            n => n,
        };
        NAMES.iter().find(|(_, n)| *n == alias).map(|(p, _)| *p)
    }

    /// The names of the privileges held, in SHOW GRANTS order, GRANT OPTION left
    /// out (it is written as `WITH GRANT OPTION`).
    pub fn names(self) -> Vec<&'static str> {
        NAMES
            .iter()
            .filter(|(p, _)| *p != Privs::GRANT && self.contains(*p))
            .map(|(_, n)| *n)
            .collect()
    }

    /// The first privilege of `self` (in bit order), for "X command denied".
    pub fn first_name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(p, _)| self.contains(*p))
            .map_or("USAGE", |(_, n)| *n)
    }
}

impl std::ops::BitOr for Privs {
    type Output = Privs;
    fn bitor(self, o: Privs) -> Privs {
        Privs(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for Privs {
    fn bitor_assign(&mut self, o: Privs) {
        self.0 |= o.0;
    }
}

impl std::ops::BitAnd for Privs {
    type Output = Privs;
    fn bitand(self, o: Privs) -> Privs {
        Privs(self.0 & o.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_levels_nest() {
        for (p, n) in NAMES {
            assert_eq!(Privs::from_name(n), Some(*p));
        }
        assert_eq!(
            Privs::from_name("REPLICATION CLIENT"),
            Some(Privs::BINLOG_MONITOR)
        );
        assert!(Privs::DB_LEVEL.contains(Privs::TABLE_LEVEL));
        assert!(Privs::ALL.contains(Privs::DB_LEVEL));
        assert_eq!(NAMES.len(), 39);
        assert_eq!((Privs::SELECT | Privs::ALTER).names(), ["SELECT", "ALTER"]);
    }
}
