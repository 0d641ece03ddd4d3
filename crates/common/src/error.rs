//! The one error every user-visible failure becomes: MySQL's errno, SQLSTATE and
//! message text, so client libraries and test suites recognise what went wrong.
//!
//! Each layer has its own `thiserror` enum for internal failures; anything that reaches
//! a client is converted into a [`MySqlError`] built by one of the constructors below.
//! The message texts follow MariaDB's `errmsg-utf8.txt`, because MariaDB is the oracle
//! the differential tests compare against.

use std::fmt;

/// A MySQL error as sent in an ERR packet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct MySqlError {
    /// MySQL errno (`ER_*`), e.g. 1064 for a syntax error.
    pub code: u16,
    /// Five-character SQLSTATE, e.g. `42000`.
    pub state: &'static str,
    /// Human-readable message text.
    pub message: String,
}

impl fmt::Display for MySqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ERROR {} ({}): {}", self.code, self.state, self.message)
    }
}

/// Result alias for operations that fail with a client-visible error.
pub type Result<T, E = MySqlError> = std::result::Result<T, E>;

/// MySQL errno constants used across the code base.
pub mod code {
    pub const ER_DB_CREATE_EXISTS: u16 = 1007;
    pub const ER_DB_DROP_EXISTS: u16 = 1008;
    pub const ER_CHECKREAD: u16 = 1020;
    pub const ER_DISK_FULL: u16 = 1021;
    pub const ER_GET_ERRNO: u16 = 1030;
    pub const ER_OUT_OF_RESOURCES: u16 = 1041;
    pub const ER_HANDSHAKE_ERROR: u16 = 1043;
    pub const ER_DBACCESS_DENIED_ERROR: u16 = 1044;
    pub const ER_ACCESS_DENIED_ERROR: u16 = 1045;
    pub const ER_NO_DB_ERROR: u16 = 1046;
    pub const ER_UNKNOWN_COM_ERROR: u16 = 1047;
    pub const ER_BAD_NULL_ERROR: u16 = 1048;
    pub const ER_BAD_DB_ERROR: u16 = 1049;
    pub const ER_TABLE_EXISTS_ERROR: u16 = 1050;
    pub const ER_BAD_TABLE_ERROR: u16 = 1051;
    pub const ER_NON_UNIQ_ERROR: u16 = 1052;
    pub const ER_BAD_FIELD_ERROR: u16 = 1054;
    pub const ER_WRONG_FIELD_WITH_GROUP: u16 = 1055;
    pub const ER_TOO_LONG_IDENT: u16 = 1059;
    pub const ER_DUP_FIELDNAME: u16 = 1060;
    pub const ER_DUP_KEYNAME: u16 = 1061;
    pub const ER_DUP_ENTRY: u16 = 1062;
    pub const ER_PARSE_ERROR: u16 = 1064;
    pub const ER_EMPTY_QUERY: u16 = 1065;
    pub const ER_NONUNIQ_TABLE: u16 = 1066;
    pub const ER_INVALID_DEFAULT: u16 = 1067;
    pub const ER_MULTIPLE_PRI_KEY: u16 = 1068;
    pub const ER_TOO_LONG_KEY: u16 = 1071;
    pub const ER_KEY_COLUMN_DOES_NOT_EXIST: u16 = 1072;
    pub const ER_TOO_BIG_FIELDLENGTH: u16 = 1074;
    pub const ER_WRONG_AUTO_KEY: u16 = 1075;
    pub const ER_CANT_DROP_FIELD_OR_KEY: u16 = 1091;
    pub const ER_NO_SUCH_THREAD: u16 = 1094;
    pub const ER_NO_TABLES_USED: u16 = 1096;
    pub const ER_BLOB_CANT_HAVE_DEFAULT: u16 = 1101;
    pub const ER_WRONG_DB_NAME: u16 = 1102;
    pub const ER_WRONG_TABLE_NAME: u16 = 1103;
    pub const ER_UNKNOWN_ERROR: u16 = 1105;
    pub const ER_UNKNOWN_TABLE: u16 = 1109;
    pub const ER_FIELD_SPECIFIED_TWICE: u16 = 1110;
    pub const ER_INVALID_GROUP_FUNC_USE: u16 = 1111;
    pub const ER_TABLE_MUST_HAVE_COLUMNS: u16 = 1113;
    pub const ER_UNKNOWN_CHARACTER_SET: u16 = 1115;
    pub const ER_TOO_MANY_TABLES: u16 = 1116;
    pub const ER_TOO_BIG_ROWSIZE: u16 = 1118;
    pub const ER_WRONG_VALUE_COUNT_ON_ROW: u16 = 1136;
    pub const ER_MIX_OF_GROUP_FUNC_AND_FIELDS: u16 = 1140;
    pub const ER_NO_SUCH_TABLE: u16 = 1146;
    pub const ER_SYNTAX_ERROR: u16 = 1149;
    pub const ER_NET_PACKET_TOO_LARGE: u16 = 1153;
    pub const ER_NET_READ_ERROR: u16 = 1158;
    pub const ER_TOO_MANY_CONNECTIONS: u16 = 1040;
    pub const ER_WRONG_COLUMN_NAME: u16 = 1166;
    pub const ER_BLOB_KEY_WITHOUT_LENGTH: u16 = 1170;
    pub const ER_PRIMARY_CANT_HAVE_NULL: u16 = 1171;
    pub const ER_KEY_DOES_NOT_EXIST: u16 = 1176;
    pub const ER_CANT_DO_THIS_DURING_AN_TRANSACTION: u16 = 1179;
    pub const ER_UNKNOWN_SYSTEM_VARIABLE: u16 = 1193;
    pub const ER_LOCK_WAIT_TIMEOUT: u16 = 1205;
    pub const ER_WRONG_ARGUMENTS: u16 = 1210;
    pub const ER_LOCK_DEADLOCK: u16 = 1213;
    pub const ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT: u16 = 1222;
    pub const ER_SPECIFIC_ACCESS_DENIED_ERROR: u16 = 1227;
    pub const ER_LOCAL_VARIABLE: u16 = 1228;
    pub const ER_GLOBAL_VARIABLE: u16 = 1229;
    pub const ER_WRONG_VALUE_FOR_VAR: u16 = 1231;
    pub const ER_WRONG_TYPE_FOR_VAR: u16 = 1232;
    pub const ER_NOT_SUPPORTED_YET: u16 = 1235;
    pub const ER_WARN_ALLOWED_PACKET_OVERFLOWED: u16 = 1301;
    pub const ER_STACK_OVERRUN_NEED_MORE: u16 = 1436;
    pub const ER_TOO_HIGH_LEVEL_OF_NESTING_FOR_SELECT: u16 = 1473;
    pub const ER_INCORRECT_GLOBAL_LOCAL_VAR: u16 = 1238;
    pub const ER_OPERAND_COLUMNS: u16 = 1241;
    pub const ER_SUBQUERY_NO_1_ROW: u16 = 1242;
    pub const ER_UNKNOWN_STMT_HANDLER: u16 = 1243;
    pub const ER_WARN_DATA_OUT_OF_RANGE: u16 = 1264;
    pub const WARN_DATA_TRUNCATED: u16 = 1265;
    pub const ER_UNKNOWN_COLLATION: u16 = 1273;
    pub const ER_TRUNCATED_WRONG_VALUE: u16 = 1292;
    pub const ER_UNSUPPORTED_PS: u16 = 1295;
    pub const ER_INVALID_CHARACTER_STRING: u16 = 1300;
    pub const ER_SP_DOES_NOT_EXIST: u16 = 1305;
    pub const ER_QUERY_INTERRUPTED: u16 = 1317;
    pub const ER_NO_DEFAULT_FOR_FIELD: u16 = 1364;
    pub const ER_DIVISION_BY_ZERO: u16 = 1365;
    pub const ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: u16 = 1366;
    pub const ER_DATA_TOO_LONG: u16 = 1406;
    pub const ER_TOO_BIG_PRECISION: u16 = 1426;
    pub const ER_TOO_BIG_SCALE: u16 = 1425;
    pub const ER_M_BIGGER_THAN_D: u16 = 1427;
    pub const ER_MAX_PREPARED_STMT_COUNT_REACHED: u16 = 1461;
    pub const ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT: u16 = 1582;
    pub const ER_CANNOT_CONVERT_CHARACTER: u16 = 1977;
    pub const ER_CANT_CHANGE_TX_CHARACTERISTICS: u16 = 1568;
    pub const ER_DATA_OUT_OF_RANGE: u16 = 1690;
    pub const ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION: u16 = 1792;
    pub const ER_UNKNOWN_STORAGE_ENGINE: u16 = 1286;
    pub const ER_FUNCTION_NOT_DEFINED: u16 = 1630;
    pub const ER_NOT_SUPPORTED_AUTH_MODE: u16 = 1251;
    pub const ER_OUT_OF_SORTMEMORY: u16 = 1038;
    pub const ER_TABLE_CORRUPT: u16 = 1877;
    pub const ER_IO_ERROR: u16 = 1030;
    pub const ER_ERROR_ON_READ: u16 = 1024;
    pub const ER_ERROR_ON_WRITE: u16 = 1026;
    pub const ER_NET_ERROR_ON_WRITE: u16 = 1160;
    pub const ER_NET_WRITE_INTERRUPTED: u16 = 1161;
    pub const ER_OPTION_PREVENTS_STATEMENT: u16 = 1290;
    pub const ER_UPDATE_TABLE_USED: u16 = 1093;
    pub const ER_STATEMENT_TIMEOUT: u16 = 1969;
    pub const ER_SUBQUERIES_NOT_SUPPORTED: u16 = 1970;
    pub const ER_SET_STATEMENT_NOT_SUPPORTED: u16 = 1971;
}

impl MySqlError {
    /// Builds an error from its parts; prefer the named constructors.
    pub fn new(code: u16, state: &'static str, message: impl Into<String>) -> Self {
        MySqlError {
            code,
            state,
            message: message.into(),
        }
    }

    /// 1064: syntax error near `near` (the text from the offending token on).
    /// 1064 quoting `near` as MariaDB does: at most 80 bytes, else the first
    /// whole characters within 77 bytes and `...`.
    pub fn parse_error(near: &str, line: u32) -> Self {
        let near = if near.len() <= 80 {
            near.to_string()
        } else {
            let mut end = 77;
            while !near.is_char_boundary(end) {
                end -= 1;
            }
            format!("{}...", &near[..end])
        };
        Self::new(
            code::ER_PARSE_ERROR,
            "42000",
            format!(
                "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '{near}' at line {line}"
            ),
        )
    }
    pub fn empty_query() -> Self {
        Self::new(code::ER_EMPTY_QUERY, "42000", "Query was empty")
    }
    pub fn not_supported(what: &str) -> Self {
        Self::new(
            code::ER_NOT_SUPPORTED_YET,
            "42000",
            format!("This version of MariaDB doesn't yet support '{what}'"),
        )
    }
    /// 4166: LOAD DATA LOCAL when the client or the server (`local_infile`) does
    /// not allow it.
    pub fn local_infile_disabled() -> Self {
        Self::new(
            4166,
            "HY000",
            "Loading local data is disabled; this must be enabled on both the client and server sides",
        )
    }
    /// 1290 for `--secure-file-priv`: a server-side file outside its directory, or
    /// any server-side file when it is not set.
    pub fn secure_file_priv() -> Self {
        Self::new(
            1290,
            "HY000",
            "The MariaDB server is running with the --secure-file-priv option so it cannot execute this statement",
        )
    }
    /// 29: a file LOAD DATA cannot open.
    pub fn file_not_found(path: &str, e: &std::io::Error) -> Self {
        let (errno, text) = os_error(e);
        Self::new(
            29,
            "HY000",
            format!("File '{path}' not found (Errcode: {errno} \"{text}\")"),
        )
    }
    /// 13: a file LOAD DATA cannot find (stat fails).
    pub fn cant_get_stat(path: &str, e: &std::io::Error) -> Self {
        let (errno, text) = os_error(e);
        Self::new(
            13,
            "HY000",
            format!("Can't get stat of '{path}' (Errcode: {errno} \"{text}\")"),
        )
    }
    /// 1747: a `PARTITION (...)` clause naming partitions of a table that has none.
    pub fn partition_clause_on_nonpartitioned() -> Self {
        Self::new(
            1747,
            "HY000",
            "PARTITION () clause on non partitioned table",
        )
    }
    pub fn no_db() -> Self {
        Self::new(code::ER_NO_DB_ERROR, "3D000", "No database selected")
    }
    pub fn bad_db(db: &str) -> Self {
        Self::new(
            code::ER_BAD_DB_ERROR,
            "42000",
            format!("Unknown database '{db}'"),
        )
    }
    pub fn db_create_exists(db: &str) -> Self {
        Self::new(
            code::ER_DB_CREATE_EXISTS,
            "HY000",
            format!("Can't create database '{db}'; database exists"),
        )
    }
    pub fn db_drop_exists(db: &str) -> Self {
        Self::new(
            code::ER_DB_DROP_EXISTS,
            "HY000",
            format!("Can't drop database '{db}'; database doesn't exist"),
        )
    }
    pub fn no_such_table(db: &str, table: &str) -> Self {
        Self::new(
            code::ER_NO_SUCH_TABLE,
            "42S02",
            format!("Table '{db}.{table}' doesn't exist"),
        )
    }
    pub fn table_exists(table: &str) -> Self {
        Self::new(
            code::ER_TABLE_EXISTS_ERROR,
            "42S01",
            format!("Table '{table}' already exists"),
        )
    }
    /// 1051: `names` is the comma-separated list of `db.table` that were missing.
    pub fn bad_table(names: &str) -> Self {
        Self::new(
            code::ER_BAD_TABLE_ERROR,
            "42S02",
            format!("Unknown table '{names}'"),
        )
    }
    pub fn unknown_table(table: &str, clause: &str) -> Self {
        Self::new(
            code::ER_UNKNOWN_TABLE,
            "42S02",
            format!("Unknown table '{table}' in {clause}"),
        )
    }
    pub fn nonunique_table(alias: &str) -> Self {
        Self::new(
            code::ER_NONUNIQ_TABLE,
            "42000",
            format!("Not unique table/alias: '{alias}'"),
        )
    }
    /// 1054: `clause` is MariaDB's name for where the column appeared
    /// (`field list`, `where clause`, `order clause`, ...).
    pub fn bad_field(column: &str, clause: &str) -> Self {
        Self::new(
            code::ER_BAD_FIELD_ERROR,
            "42S22",
            format!("Unknown column '{column}' in '{clause}'"),
        )
    }
    pub fn ambiguous_field(column: &str, clause: &str) -> Self {
        Self::new(
            code::ER_NON_UNIQ_ERROR,
            "23000",
            format!("Column '{column}' in {clause} is ambiguous"),
        )
    }
    pub fn dup_fieldname(column: &str) -> Self {
        Self::new(
            code::ER_DUP_FIELDNAME,
            "42S21",
            format!("Duplicate column name '{column}'"),
        )
    }
    pub fn dup_keyname(key: &str) -> Self {
        Self::new(
            code::ER_DUP_KEYNAME,
            "42000",
            format!("Duplicate key name '{key}'"),
        )
    }
    /// 1062: `entry` is the key value as MariaDB prints it (`1`, `a-b` for composites).
    pub fn dup_entry(entry: &str, key: &str) -> Self {
        Self::new(
            code::ER_DUP_ENTRY,
            "23000",
            format!("Duplicate entry '{entry}' for key '{key}'"),
        )
    }
    pub fn bad_null(column: &str) -> Self {
        Self::new(
            code::ER_BAD_NULL_ERROR,
            "23000",
            format!("Column '{column}' cannot be null"),
        )
    }
    pub fn no_default_for_field(column: &str) -> Self {
        Self::new(
            code::ER_NO_DEFAULT_FOR_FIELD,
            "HY000",
            format!("Field '{column}' doesn't have a default value"),
        )
    }
    pub fn value_count_on_row(row: u64) -> Self {
        Self::new(
            code::ER_WRONG_VALUE_COUNT_ON_ROW,
            "21S01",
            format!("Column count doesn't match value count at row {row}"),
        )
    }
    pub fn multiple_pri_key() -> Self {
        Self::new(
            code::ER_MULTIPLE_PRI_KEY,
            "42000",
            "Multiple primary key defined",
        )
    }
    pub fn key_column_does_not_exist(column: &str) -> Self {
        Self::new(
            code::ER_KEY_COLUMN_DOES_NOT_EXIST,
            "42000",
            format!("Key column '{column}' doesn't exist in table"),
        )
    }
    pub fn wrong_auto_key() -> Self {
        Self::new(
            code::ER_WRONG_AUTO_KEY,
            "42000",
            "Incorrect table definition; there can be only one auto column and it must be defined as a key",
        )
    }
    pub fn cant_drop_key(key: &str) -> Self {
        Self::new(
            code::ER_CANT_DROP_FIELD_OR_KEY,
            "42000",
            format!("Can't DROP INDEX `{key}`; check that it exists"),
        )
    }
    pub fn key_does_not_exist(key: &str, table: &str) -> Self {
        Self::new(
            code::ER_KEY_DOES_NOT_EXIST,
            "42000",
            format!("Key '{key}' doesn't exist in table '{table}'"),
        )
    }
    pub fn too_long_key(max: u32) -> Self {
        Self::new(
            code::ER_TOO_LONG_KEY,
            "42000",
            format!("Specified key was too long; max key length is {max} bytes"),
        )
    }
    pub fn blob_key_without_length(column: &str) -> Self {
        Self::new(
            code::ER_BLOB_KEY_WITHOUT_LENGTH,
            "42000",
            format!("BLOB/TEXT column '{column}' used in key specification without a key length"),
        )
    }
    pub fn primary_cant_have_null() -> Self {
        Self::new(
            code::ER_PRIMARY_CANT_HAVE_NULL,
            "42000",
            "All parts of a PRIMARY KEY must be NOT NULL; if you need NULL in a key, use UNIQUE instead",
        )
    }
    pub fn invalid_default(column: &str) -> Self {
        Self::new(
            code::ER_INVALID_DEFAULT,
            "42000",
            format!("Invalid default value for '{column}'"),
        )
    }
    pub fn table_must_have_columns() -> Self {
        Self::new(
            code::ER_TABLE_MUST_HAVE_COLUMNS,
            "42000",
            "A table must have at least 1 column",
        )
    }
    pub fn too_big_fieldlength(column: &str, max: u64) -> Self {
        Self::new(
            code::ER_TOO_BIG_FIELDLENGTH,
            "42000",
            format!(
                "Column length too big for column '{column}' (max = {max}); use BLOB or TEXT instead"
            ),
        )
    }
    pub fn too_big_precision(precision: u32, column: &str, max: u32) -> Self {
        Self::new(
            code::ER_TOO_BIG_PRECISION,
            "42000",
            format!("Too big precision {precision} specified for '{column}'. Maximum is {max}"),
        )
    }
    pub fn too_big_scale(scale: u32, column: &str, max: u32) -> Self {
        Self::new(
            code::ER_TOO_BIG_SCALE,
            "42000",
            format!("Too big scale {scale} specified for '{column}'. Maximum is {max}"),
        )
    }
    pub fn m_bigger_than_d(column: &str) -> Self {
        Self::new(
            code::ER_M_BIGGER_THAN_D,
            "42000",
            format!(
                "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{column}')"
            ),
        )
    }
    pub fn unknown_storage_engine(engine: &str) -> Self {
        Self::new(
            code::ER_UNKNOWN_STORAGE_ENGINE,
            "42000",
            format!("Unknown storage engine '{engine}'"),
        )
    }
    pub fn unknown_system_variable(name: &str) -> Self {
        Self::new(
            code::ER_UNKNOWN_SYSTEM_VARIABLE,
            "HY000",
            format!("Unknown system variable '{name}'"),
        )
    }
    pub fn wrong_value_for_var(name: &str, value: &str) -> Self {
        Self::new(
            code::ER_WRONG_VALUE_FOR_VAR,
            "42000",
            format!("Variable '{name}' can't be set to the value of '{value}'"),
        )
    }
    pub fn wrong_type_for_var(name: &str) -> Self {
        Self::new(
            code::ER_WRONG_TYPE_FOR_VAR,
            "42000",
            format!("Incorrect argument type to variable '{name}'"),
        )
    }
    pub fn read_only_variable(name: &str) -> Self {
        Self::new(
            code::ER_INCORRECT_GLOBAL_LOCAL_VAR,
            "HY000",
            format!("Variable '{name}' is a read only variable"),
        )
    }
    pub fn session_only_variable(name: &str) -> Self {
        Self::new(
            code::ER_LOCAL_VARIABLE,
            "HY000",
            format!("Variable '{name}' is a SESSION variable and can't be used with SET GLOBAL"),
        )
    }
    pub fn global_only_variable(name: &str) -> Self {
        Self::new(
            code::ER_GLOBAL_VARIABLE,
            "HY000",
            format!("Variable '{name}' is a GLOBAL variable and should be set with SET GLOBAL"),
        )
    }
    pub fn packet_too_large() -> Self {
        Self::new(
            code::ER_NET_PACKET_TOO_LARGE,
            "08S01",
            "Got a packet bigger than 'max_allowed_packet' bytes",
        )
    }
    pub fn unknown_command() -> Self {
        Self::new(code::ER_UNKNOWN_COM_ERROR, "08S01", "Unknown command")
    }
    /// 1045 for `user` connecting from `host`, a client address; the loopback
    /// addresses are named `localhost`, as MariaDB names them after resolving.
    pub fn access_denied(user: &str, host: &str, using_password: bool) -> Self {
        let using = if using_password { "YES" } else { "NO" };
        let host = match host {
            "127.0.0.1" | "::1" => "localhost",
            other => other,
        };
        Self::new(
            code::ER_ACCESS_DENIED_ERROR,
            "28000",
            format!("Access denied for user '{user}'@'{host}' (using password: {using})"),
        )
    }
    pub fn lock_wait_timeout() -> Self {
        Self::new(
            code::ER_LOCK_WAIT_TIMEOUT,
            "HY000",
            "Lock wait timeout exceeded; try restarting transaction",
        )
    }
    pub fn deadlock() -> Self {
        Self::new(
            code::ER_LOCK_DEADLOCK,
            "40001",
            "Deadlock found when trying to get lock; try restarting transaction",
        )
    }
    pub fn checkread(table: &str) -> Self {
        Self::new(
            code::ER_CHECKREAD,
            "HY000",
            format!("Record has changed since last read in table '{table}'"),
        )
    }
    pub fn query_interrupted() -> Self {
        Self::new(
            code::ER_QUERY_INTERRUPTED,
            "70100",
            "Query execution was interrupted",
        )
    }
    pub fn wrong_arguments(what: &str) -> Self {
        Self::new(
            code::ER_WRONG_ARGUMENTS,
            "HY000",
            format!("Incorrect arguments to {what}"),
        )
    }
    pub fn unknown_stmt_handler(id: &str, command: &str) -> Self {
        Self::new(
            code::ER_UNKNOWN_STMT_HANDLER,
            "HY000",
            format!("Unknown prepared statement handler ({id}) given to {command}"),
        )
    }
    pub fn max_prepared_stmt_count_reached(limit: u64) -> Self {
        Self::new(
            code::ER_MAX_PREPARED_STMT_COUNT_REACHED,
            "42000",
            format!(
                "Can't create more than max_prepared_stmt_count statements (current value: {limit})"
            ),
        )
    }
    pub fn operand_columns(n: usize) -> Self {
        Self::new(
            code::ER_OPERAND_COLUMNS,
            "21000",
            format!("Operand should contain {n} column(s)"),
        )
    }
    pub fn subquery_no_1_row() -> Self {
        Self::new(
            code::ER_SUBQUERY_NO_1_ROW,
            "21000",
            "Subquery returns more than 1 row",
        )
    }
    pub fn invalid_group_func_use() -> Self {
        Self::new(
            code::ER_INVALID_GROUP_FUNC_USE,
            "HY000",
            "Invalid use of group function",
        )
    }
    pub fn no_tables_used() -> Self {
        Self::new(code::ER_NO_TABLES_USED, "HY000", "No tables used")
    }
    pub fn data_too_long(column: &str, row: u64) -> Self {
        Self::new(
            code::ER_DATA_TOO_LONG,
            "22001",
            format!("Data too long for column '{column}' at row {row}"),
        )
    }
    pub fn out_of_range(column: &str, row: u64) -> Self {
        Self::new(
            code::ER_WARN_DATA_OUT_OF_RANGE,
            "22003",
            format!("Out of range value for column '{column}' at row {row}"),
        )
    }
    pub fn data_out_of_range(type_name: &str, expr: &str) -> Self {
        Self::new(
            code::ER_DATA_OUT_OF_RANGE,
            "22003",
            format!("{type_name} value is out of range in '{expr}'"),
        )
    }
    /// 1366 in MariaDB's wording.
    pub fn truncated_wrong_value_for_field(
        type_name: &str,
        value: &str,
        db: &str,
        table: &str,
        column: &str,
        row: u64,
    ) -> Self {
        Self::new(
            code::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
            "22007",
            format!(
                "Incorrect {type_name} value: '{value}' for column `{db}`.`{table}`.`{column}` at row {row}"
            ),
        )
    }
    pub fn truncated_wrong_value(type_name: &str, value: &str) -> Self {
        Self::new(
            code::ER_TRUNCATED_WRONG_VALUE,
            "22007",
            format!("Truncated incorrect {type_name} value: '{value}'"),
        )
    }
    pub fn division_by_zero() -> Self {
        Self::new(code::ER_DIVISION_BY_ZERO, "22012", "Division by 0")
    }
    pub fn function_not_defined(db: &str, name: &str) -> Self {
        Self::new(
            code::ER_SP_DOES_NOT_EXIST,
            "42000",
            format!("FUNCTION {db}.{name} does not exist"),
        )
    }
    pub fn wrong_paramcount_to_native_fct(name: &str) -> Self {
        Self::new(
            code::ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
            "42000",
            format!("Incorrect parameter count in the call to native function '{name}'"),
        )
    }
    pub fn savepoint_does_not_exist(name: &str) -> Self {
        Self::new(
            code::ER_SP_DOES_NOT_EXIST,
            "42000",
            format!("SAVEPOINT {name} does not exist"),
        )
    }
    pub fn unknown_thread(id: u64) -> Self {
        Self::new(
            code::ER_NO_SUCH_THREAD,
            "HY000",
            format!("Unknown thread id: {id}"),
        )
    }
    pub fn unknown_character_set(name: &str) -> Self {
        Self::new(
            code::ER_UNKNOWN_CHARACTER_SET,
            "42000",
            format!("Unknown character set: '{name}'"),
        )
    }
    /// 1253: a COLLATE naming a collation of another character set.
    pub fn collation_charset_mismatch(collation: &str, charset: &str) -> Self {
        Self::new(
            1253,
            "42000",
            format!("COLLATION '{collation}' is not valid for CHARACTER SET '{charset}'"),
        )
    }
    pub fn unknown_collation(name: &str) -> Self {
        Self::new(
            code::ER_UNKNOWN_COLLATION,
            "HY000",
            format!("Unknown collation: '{name}'"),
        )
    }
    pub fn wrong_db_name(name: &str) -> Self {
        Self::new(
            code::ER_WRONG_DB_NAME,
            "42000",
            format!("Incorrect database name '{name}'"),
        )
    }
    pub fn wrong_table_name(name: &str) -> Self {
        Self::new(
            code::ER_WRONG_TABLE_NAME,
            "42000",
            format!("Incorrect table name '{name}'"),
        )
    }
    pub fn too_long_ident(name: &str) -> Self {
        Self::new(
            code::ER_TOO_LONG_IDENT,
            "42000",
            format!("Identifier name '{name}' is too long"),
        )
    }
    pub fn cant_change_tx_characteristics() -> Self {
        Self::new(
            code::ER_CANT_CHANGE_TX_CHARACTERISTICS,
            "25001",
            "Transaction characteristics can't be changed while a transaction is in progress",
        )
    }
    pub fn read_only_transaction() -> Self {
        Self::new(
            code::ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION,
            "25006",
            "Cannot execute statement in a READ ONLY transaction",
        )
    }
    pub fn too_many_connections() -> Self {
        Self::new(
            code::ER_TOO_MANY_CONNECTIONS,
            "08004",
            "Too many connections",
        )
    }
    pub fn disk_full(detail: &str) -> Self {
        Self::new(
            code::ER_DISK_FULL,
            "HY000",
            format!("Disk full ({detail}); waiting for someone to free some space..."),
        )
    }
    /// 1030: an I/O failure inside the storage engine.
    pub fn engine_io(errno: i32, detail: &str) -> Self {
        Self::new(
            code::ER_GET_ERRNO,
            "HY000",
            format!("Got error {errno} \"{detail}\" from storage engine Basalt"),
        )
    }
    /// 1877: a page failed its checksum and could not be repaired.
    pub fn table_corrupt(detail: &str) -> Self {
        Self::new(
            code::ER_TABLE_CORRUPT,
            "HY000",
            format!("Operation cannot be performed. The table is corrupted: {detail}"),
        )
    }
    pub fn out_of_resources(detail: &str) -> Self {
        Self::new(
            code::ER_OUT_OF_RESOURCES,
            "HY000",
            format!("Out of memory; {detail}"),
        )
    }
    pub fn unsupported_ps() -> Self {
        Self::new(
            code::ER_UNSUPPORTED_PS,
            "HY000",
            "This command is not supported in the prepared statement protocol yet",
        )
    }
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new(
            code::ER_UNKNOWN_ERROR,
            "HY000",
            format!("Unknown error: {detail}"),
        )
    }
    /// 1290: a server option forbids the statement, e.g. `--max-session-mem-used=N`
    /// when the statement's memory exceeded that limit.
    pub fn option_prevents_statement(option: &str) -> Self {
        Self::new(
            code::ER_OPTION_PREVENTS_STATEMENT,
            "HY000",
            format!(
                "The MariaDB server is running with the {option} option so it cannot execute this statement"
            ),
        )
    }
    /// 1161: the client did not take the result within `net_write_timeout`.
    pub fn net_write_interrupted() -> Self {
        Self::new(
            code::ER_NET_WRITE_INTERRUPTED,
            "08S01",
            "Got timeout writing communication packets",
        )
    }
    /// 1158: the client's data (a LOAD DATA LOCAL file) could not be read.
    pub fn net_read_error() -> Self {
        Self::new(
            code::ER_NET_READ_ERROR,
            "08S01",
            "Got an error reading communication packets",
        )
    }
    /// 1160: writing the result to the client failed (it went away).
    pub fn net_error_on_write() -> Self {
        Self::new(
            code::ER_NET_ERROR_ON_WRITE,
            "08S01",
            "Got an error writing communication packets",
        )
    }
    /// 1026: a temporary file (sort runs, spooled rows) could not be written.
    pub fn error_on_write(file: &str, errno: i32, text: &str) -> Self {
        Self::new(
            code::ER_ERROR_ON_WRITE,
            "HY000",
            format!("Error writing file '{file}' (errno: {errno} \"{text}\")"),
        )
    }
    /// 1024: a temporary file could not be read back.
    pub fn error_on_read(file: &str, errno: i32, text: &str) -> Self {
        Self::new(
            code::ER_ERROR_ON_READ,
            "HY000",
            format!("Error reading file '{file}' (errno: {errno} \"{text}\")"),
        )
    }
    /// MariaDB's ER_STATEMENT_TIMEOUT: `max_statement_time` ended the statement.
    pub fn statement_timeout() -> Self {
        Self::new(
            code::ER_STATEMENT_TIMEOUT,
            "70100",
            "Query execution was interrupted (max_statement_time exceeded)",
        )
    }
    /// A value of `SET STATEMENT ... FOR` with a subquery.
    pub fn subqueries_not_supported(what: &str) -> Self {
        Self::new(
            code::ER_SUBQUERIES_NOT_SUPPORTED,
            "42000",
            format!("{what} does not support subqueries or stored functions"),
        )
    }
    /// A variable `SET STATEMENT` refuses (autocommit, character sets, ...).
    pub fn set_statement_not_supported(name: &str) -> Self {
        Self::new(
            code::ER_SET_STATEMENT_NOT_SUPPORTED,
            "42000",
            format!("The system variable {name} cannot be set in SET STATEMENT."),
        )
    }
    /// A table both changed by the statement and read by a subquery of it.
    pub fn update_table_used(table: &str, op: &str) -> Self {
        Self::new(
            code::ER_UPDATE_TABLE_USED,
            "HY000",
            format!(
                "Table '{table}' is specified twice, both as a target for '{op}' and as a separate source for data"
            ),
        )
    }
}

/// An I/O error's errno and strerror text, as MariaDB prints them in `Errcode:`.
fn os_error(e: &std::io::Error) -> (i32, String) {
    let errno = e.raw_os_error().unwrap_or(0);
    let text = match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => {
            let t = e.to_string();
            match t.find(" (os error") {
                Some(i) => t[..i].to_string(),
                None => t,
            }
        }
    };
    (errno, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_error_matches_mariadb_text() {
        let e = MySqlError::parse_error("selec 1", 1);
        assert_eq!(e.code, 1064);
        assert_eq!(e.state, "42000");
        assert_eq!(
            e.message,
            "You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'selec 1' at line 1"
        );
        let near = |s: &str| {
            let m = MySqlError::parse_error(s, 1).message;
            let start = m.find("near '").expect("near") + 6;
            m[start..m.len() - "' at line 1".len()].to_string()
        };
        let exactly_80 = "a".repeat(80);
        assert_eq!(near(&exactly_80), exactly_80);
        assert_eq!(near(&"a".repeat(81)), format!("{}...", "a".repeat(77)));
        assert_eq!(near(&"é".repeat(41)), format!("{}...", "é".repeat(38)));
    }

    #[test]
    fn display_has_code_and_state() {
        let e = MySqlError::no_such_table("test", "t");
        assert_eq!(
            e.to_string(),
            "ERROR 1146 (42S02): Table 'test.t' doesn't exist"
        );
    }
}
