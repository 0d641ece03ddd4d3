//! Every system variable Basalt lets a client SET either changes what MariaDB
//! documents it changes, or has no effect in MariaDB either for this server, or
//! is refused (1235) for the values Basalt does not carry out.
//!
//! [`variables_walk`] lists `SHOW VARIABLES`, finds out which variables are
//! settable (by assigning each its own value), and checks each against
//! [`CLASSIFIED`]: a missing variable fails the test, and so does a stale entry.
//! The other tests here are the behaviour tests the table points to for
//! variables no other test covers.

use basalt_tests::{read_packet, send_packet, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::time::Duration;

/// How a settable variable is accounted for.
enum Proof {
    /// A test (function name, in a file under `tests/`) shows its effect.
    Test(&'static str),
    /// Documented as having no effect in MariaDB either, for this server.
    NoEffect(&'static str),
    /// Only the default is carried out: SET to this value must fail with 1235.
    DefaultOnly(&'static str),
    /// Its behaviour belongs to other work on the server (named), whose tests
    /// cover it.
    Elsewhere(&'static str),
}

use Proof::*;

const CLASSIFIED: &[(&str, Proof)] = &[
    ("alter_algorithm", Test("dialect_forms_as_on_mariadb")),
    ("auto_increment_increment", DefaultOnly("2")),
    ("auto_increment_offset", DefaultOnly("2")),
    ("autocommit", Test("autocommit_and_read_only_transactions")),
    ("basalt_idle_connection_park_ms", Test("the_park_delay_is_a_global_setting")),
    ("big_tables", DefaultOnly("ON")),
    ("binlog_annotate_row_events", Test("session_settings_shape_the_events")),
    ("binlog_checksum", Test("checksum_off_and_on_at_runtime")),
    ("binlog_expire_logs_seconds", Test("expired_files_go_when_the_log_moves_on")),
    ("binlog_do_db", Test("do_and_ignore_db_filter_at_runtime")),
    ("binlog_format", Test("pt_table_checksum_checksums_every_chunk")),
    ("binlog_ignore_db", Test("do_and_ignore_db_filter_at_runtime")),
    ("binlog_row_image", Test("session_settings_shape_the_events")),
    ("binlog_row_metadata", Test("table_map_metadata_levels_match_mariadb")),
    ("character_set_client", Elsewhere("statement text handled as bytes in the client character set")),
    ("character_set_connection", Test("connection_and_server_character_sets")),
    ("character_set_database", Test("connection_and_server_character_sets")),
    ("character_set_filesystem", DefaultOnly("utf8mb4")),
    ("character_set_results", Elsewhere("conversion of result text to the client character set")),
    ("character_set_server", Test("connection_and_server_character_sets")),
    ("check_constraint_checks", Test("check_constraints_are_enforced_shown_and_kept")),
    ("collation_connection", Test("connection_and_server_character_sets")),
    ("collation_database", Test("connection_and_server_character_sets")),
    ("collation_server", Test("connection_and_server_character_sets")),
    ("completion_type", Test("completion_type_chains_and_releases")),
    ("connect_timeout", Elsewhere("time limits: connect_timeout applied to the handshake")),
    ("default_storage_engine", Test("drop_temporary_delayed_inserts_and_table_options")),
    ("default_tmp_storage_engine", Test("default_tmp_storage_engine_applies_to_temporary_tables_only")),
    ("default_week_format", Test("default_week_format_is_weeks_default_mode")),
    ("div_precision_increment", Test("division_group_concat_and_notes")),
    ("event_scheduler", Test("the_scheduler_runs_events")),
    ("expire_logs_days", Test("expired_files_go_when_the_log_moves_on")),
    ("extra_max_connections", Test("extra_port_and_1040_with_a_thread_per_connection")),
    ("explicit_defaults_for_timestamp", DefaultOnly("OFF")),
    ("foreign_key_checks", Test("enforcement_restrict_cascade_set_null")),
    ("general_log", Test("general_log_writes_mariadbs_file_format")),
    ("general_log_file", Test("general_log_writes_mariadbs_file_format")),
    ("gtid_domain_id", Test("session_settings_shape_the_events")),
    ("gtid_slave_pos", Test("statements_answer_as_mariadb")),
    ("gtid_strict_mode", NoEffect("Basalt hands out each domain's sequence numbers in order and has no gtid_seq_no, so no out-of-order GTID can arise for strict mode to refuse")),
    ("group_concat_max_len", Test("division_group_concat_and_notes")),
    ("identity", Test("timestamp_insert_id_and_thread_id")),
    ("init_connect", NoEffect("MariaDB does not run init_connect for accounts with SUPER (CONNECTION ADMIN), and root, the only account, has it")),
    ("innodb_buffer_pool_size", DefaultOnly("33554432")),
    ("innodb_deadlock_detect", DefaultOnly("OFF")),
    ("innodb_default_row_format", DefaultOnly("compact")),
    ("innodb_file_per_table", DefaultOnly("OFF")),
    ("innodb_flush_log_at_trx_commit", DefaultOnly("2")),
    ("innodb_lock_wait_timeout", Test("lock_wait_timeout_rolls_back_the_statement")),
    ("innodb_snapshot_isolation", Test("list_append_classic_repeatable_read")),
    ("innodb_strict_mode", DefaultOnly("OFF")),
    ("insert_id", Test("timestamp_insert_id_and_thread_id")),
    ("interactive_timeout", Test("wait_timeout_closes_idle_connections")),
    ("join_buffer_size", DefaultOnly("131072")),
    ("join_buffer_space_limit", DefaultOnly("4194304")),
    ("join_cache_level", Test("flags_change_as_mariadb_and_steer_the_plan")),
    ("key_buffer_size", NoEffect("the MyISAM key cache: no table is MyISAM (ENGINE=MyISAM creates a transactional table, with warning 1266)")),
    ("last_insert_id", Test("timestamp_insert_id_and_thread_id")),
    ("lc_messages", DefaultOnly("de_DE")),
    ("lc_time_names", DefaultOnly("de_DE")),
    ("local_infile", Test("local_infile_off_refuses_load_data_local")),
    ("lock_wait_timeout", Test("lock_tables_locks")),
    ("log_bin_trust_function_creators", Test("functions_under_binary_logging")),
    ("log_bin", Test("log_bin_at_runtime_and_sql_log_bin")),
    ("log_output", Test("log_output_table_fills_the_log_tables")),
    ("log_queries_not_using_indexes", Test("slow_statements_are_logged_in_mariadbs_format")),
    ("log_slow_admin_statements", Test("admin_statements_stay_out_when_asked")),
    ("log_slow_min_examined_row_limit", Test("start_options_turn_the_logs_on")),
    ("log_slow_query", Test("start_options_turn_the_logs_on")),
    ("log_slow_query_file", Test("start_options_turn_the_logs_on")),
    ("log_slow_query_time", Test("start_options_turn_the_logs_on")),
    ("log_slow_verbosity", Test("slow_statements_are_logged_in_mariadbs_format")),
    ("log_replica_updates", Test("a_chain_through_a_replica_logging_at_runtime")),
    ("log_slave_updates", Test("a_chain_through_a_replica_logging_at_runtime")),
    ("log_warnings", DefaultOnly("3")),
    ("long_query_time", Test("slow_statements_are_logged_in_mariadbs_format")),
    ("max_allowed_packet", Test("max_allowed_packet_session_and_global")),
    ("max_binlog_size", Test("session_settings_shape_the_events")),
    ("max_connections", Test("set_global_max_connections_applies_to_the_next_login")),
    ("max_execution_time", Elsewhere("time limits: statements stopped after their time")),
    ("max_heap_table_size", DefaultOnly("33554432")),
    ("max_join_size", DefaultOnly("1000")),
    ("max_prepared_stmt_count", Test("max_prepared_stmt_count_is_enforced")),
    ("max_recursive_iterations", Test("recursive_cte_stops_at_max_recursive_iterations")),
    ("max_session_mem_used", Test("working_memory_past_the_budget_is_1290")),
    ("max_sort_length", DefaultOnly("2048")),
    ("max_sp_recursion_depth", Test("procedures_run_with_parameters_and_result_sets")),
    ("max_statement_time", Elsewhere("time limits: statements stopped after their time")),
    ("min_examined_row_limit", Test("slow_statements_are_logged_in_mariadbs_format")),
    (
        "max_user_connections",
        Test("max_user_connections_is_fixed_at_0_as_in_mariadb"),
    ),
    ("net_buffer_length", DefaultOnly("8192")),
    ("net_read_timeout", DefaultOnly("10")),
    ("net_retry_count", DefaultOnly("20")),
    ("net_write_timeout", Test("client_that_stops_reading_is_cut_off_after_net_write_timeout")),
    ("old_passwords", DefaultOnly("ON")),
    ("optimizer_prune_level", DefaultOnly("1")),
    ("optimizer_search_depth", Test("search_depth_bounds_the_join_order_search")),
    ("optimizer_switch", Test("flags_change_as_mariadb_and_steer_the_plan")),
    ("optimizer_use_condition_selectivity", DefaultOnly("1")),
    ("profiling", DefaultOnly("ON")),
    ("pseudo_thread_id", Test("timestamp_insert_id_and_thread_id")),
    ("query_cache_size", DefaultOnly("1048576")),
    ("query_cache_type", DefaultOnly("ON")),
    ("read_buffer_size", DefaultOnly("262144")),
    ("read_only", Test("read_only_refuses_changes_of_accounts_without_super")),
    ("replicate_do_db", Test("filters_change_while_the_applier_runs_and_survive_a_restart")),
    ("replicate_do_table", Test("filters_pass_what_mariadbs_pass")),
    ("replicate_ignore_db", Test("filters_change_while_the_applier_runs_and_survive_a_restart")),
    ("replicate_ignore_table", Test("filters_change_while_the_applier_runs_and_survive_a_restart")),
    ("replicate_rewrite_db", Test("filters_change_while_the_applier_runs_and_survive_a_restart")),
    ("replicate_wild_do_table", Test("filters_pass_what_mariadbs_pass")),
    ("replicate_wild_ignore_table", Test("filters_change_while_the_applier_runs_and_survive_a_restart")),
    ("require_secure_transport", Test("require_secure_transport_refuses_plain_tcp_only")),
    ("rpl_semi_sync_master_enabled", Test("semisync_with_a_basalt_primary")),
    ("rpl_semi_sync_master_timeout", Test("semisync_with_a_basalt_primary")),
    ("rpl_semi_sync_master_wait_no_slave", Test("semisync_with_a_basalt_primary")),
    ("rpl_semi_sync_master_wait_point", Test("semisync_with_a_basalt_primary")),
    ("server_id", Test("session_settings_shape_the_events")),
    ("session_track_schema", Test("session_state_is_tracked")),
    ("session_track_state_change", Test("session_state_is_tracked")),
    ("session_track_system_variables", Test("session_state_is_tracked")),
    ("session_track_transaction_info", DefaultOnly("STATE")),
    ("slave_ddl_exec_mode", Test("exec_modes_overwrite_or_stop")),
    ("slave_exec_mode", Test("exec_mode_switches_while_running_and_skip_errors")),
    ("slave_net_timeout", Test("statements_answer_as_mariadb")),
    ("slow_query_log", Test("slow_statements_are_logged_in_mariadbs_format")),
    ("slow_query_log_file", Test("slow_statements_are_logged_in_mariadbs_format")),
    ("sort_buffer_size", Test("big_sort_spills_to_disk_and_stays_in_order")),
    ("sql_auto_is_null", DefaultOnly("ON")),
    ("sql_big_selects", DefaultOnly("OFF")),
    ("sql_buffer_result", DefaultOnly("ON")),
    ("sql_log_bin", Test("log_bin_at_runtime_and_sql_log_bin")),
    ("sql_log_off", Test("general_log_writes_mariadbs_file_format")),
    ("sql_mode", Test("sql_modes_do_what_they_say_or_are_refused")),
    ("sql_notes", Test("division_group_concat_and_notes")),
    ("sql_quote_show_create", DefaultOnly("OFF")),
    ("sql_safe_updates", DefaultOnly("ON")),
    ("sql_select_limit", DefaultOnly("10")),
    ("sql_warnings", DefaultOnly("ON")),
    ("storage_engine", Test("drop_temporary_delayed_inserts_and_table_options")),
    ("table_open_cache", DefaultOnly("400")),
    ("thread_cache_size", DefaultOnly("8")),
    ("thread_pool_idle_timeout", Test("pool_settings_apply_at_runtime_and_the_extra_port_bypasses_the_pool")),
    ("thread_pool_max_threads", Test("pool_settings_apply_at_runtime_and_the_extra_port_bypasses_the_pool")),
    ("thread_pool_oversubscribe", Test("pool_settings_apply_at_runtime_and_the_extra_port_bypasses_the_pool")),
    ("thread_pool_size", Test("pool_settings_apply_at_runtime_and_the_extra_port_bypasses_the_pool")),
    ("thread_pool_stall_limit", Test("pool_settings_apply_at_runtime_and_the_extra_port_bypasses_the_pool")),
    ("time_zone", Test("timestamp_columns_follow_the_session_time_zone")),
    ("timestamp", Test("timestamp_insert_id_and_thread_id")),
    ("tmp_table_size", DefaultOnly("33554432")),
    ("transaction_alloc_block_size", DefaultOnly("16384")),
    ("transaction_isolation", Test("read_committed_read_uncommitted_and_consistent_snapshot")),
    ("transaction_read_only", Test("autocommit_and_read_only_transactions")),
    ("tx_isolation", Test("read_committed_read_uncommitted_and_consistent_snapshot")),
    ("tx_read_only", Test("autocommit_and_read_only_transactions")),
    ("unique_checks", NoEffect("MariaDB documents unique_checks=0 as a hint an engine may ignore; Basalt checks uniqueness always")),
    ("userstat", DefaultOnly("OFF")),
    ("wait_timeout", Test("wait_timeout_closes_idle_connections")),
];

fn connect(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect")
}

fn server_code(r: Result<(), mysql::Error>) -> Option<u16> {
    match r {
        Ok(()) => None,
        Err(mysql::Error::MySqlError(e)) => Some(e.code),
        Err(e) => panic!("not a server error: {e:?}"),
    }
}

/// `Some(global)` when the variable can be assigned (its own value), in the
/// scope that worked.
fn settable(c: &mut Conn, name: &str) -> Option<bool> {
    for global in [false, true] {
        let scope = if global { "GLOBAL" } else { "SESSION" };
        let sql = format!("SET {scope} {name} = @@{}.{name}", scope.to_lowercase());
        if server_code(c.query_drop(&sql)).is_none() {
            return Some(global);
        }
    }
    None
}

/// Every `fn name(` in the test sources.
fn test_functions() -> String {
    let dir = basalt_tests::workspace_root();
    let mut all = String::new();
    for sub in [
        "tests",
        "crates/sql/tests",
        "crates/storage/tests",
        "crates/protocol/tests",
    ] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "rs") {
                all.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
    }
    all
}

#[test]
fn variables_walk() {
    let b = Basalt::start();
    let mut c = connect(&b);
    let mut names: Vec<String> = c
        .query_map("SHOW VARIABLES", |(n, _v): (String, String)| n)
        .expect("show variables");
    let global: Vec<String> = c
        .query_map("SHOW GLOBAL VARIABLES", |(n, _v): (String, String)| n)
        .expect("show global variables");
    names.extend(global);
    names.sort();
    names.dedup();
    assert!(names.len() > 100, "{} variables", names.len());
    let sources = test_functions();
    let mut missing = Vec::new();
    let mut wrong = Vec::new();
    let mut seen = Vec::new();
    for name in &names {
        let Some(global) = settable(&mut c, name) else {
            // Not settable: assigning it is MariaDB's read-only error.
            let code = server_code(c.query_drop(format!("SET GLOBAL {name} = @@global.{name}")));
            if !matches!(code, Some(1238 | 1228 | 1229 | 1621)) {
                wrong.push(format!("{name}: read-only but SET gives {code:?}"));
            }
            continue;
        };
        seen.push(name.as_str());
        let Some((_, proof)) = CLASSIFIED.iter().find(|(n, _)| n == name) else {
            missing.push(name.clone());
            continue;
        };
        match proof {
            Test(f) if !sources.contains(&format!("fn {f}(")) => {
                wrong.push(format!("{name}: no test function {f}"))
            }
            NoEffect(reason) | Elsewhere(reason) if reason.is_empty() => {
                wrong.push(format!("{name}: no reason given"))
            }
            DefaultOnly(value) => {
                let scope = if global { "GLOBAL" } else { "SESSION" };
                let lit = if value.parse::<f64>().is_ok() {
                    value.to_string()
                } else {
                    format!("'{value}'")
                };
                let code = server_code(c.query_drop(format!("SET {scope} {name} = {lit}")));
                if code != Some(1235) {
                    wrong.push(format!("{name} = {value}: {code:?}, expected 1235"));
                }
            }
            _ => {}
        }
    }
    for (n, proof) in CLASSIFIED {
        if !seen.contains(n) && !matches!(proof, Elsewhere(_)) {
            wrong.push(format!("{n}: classified but not a settable variable"));
        }
    }
    assert!(
        missing.is_empty(),
        "settable variables without a classification: {missing:?}"
    );
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!(
        server_code(c.query_drop("SET no_such_variable = 1")),
        Some(1193)
    );
    assert_eq!(
        server_code(c.query_drop("SET GLOBAL version = 'x'")),
        Some(1238)
    );
}

fn one(c: &mut Conn, sql: &str) -> String {
    let v: Option<String> = c
        .query_first(sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .unwrap_or_else(|| panic!("{sql}: no row"));
    v.unwrap_or_else(|| "NULL".into())
}

fn ok(c: &mut Conn, sql: &str) {
    c.query_drop(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

#[test]
fn autocommit_and_read_only_transactions() {
    let b = Basalt::start();
    let mut c = connect(&b);
    ok(&mut c, "create database d");
    ok(&mut c, "create table d.t (a int)");
    let mut other = connect(&b);
    ok(&mut c, "set autocommit = 0");
    ok(&mut c, "insert into d.t values (1)");
    assert_eq!(one(&mut other, "select count(*) from d.t"), "0");
    ok(&mut c, "commit");
    assert_eq!(one(&mut other, "select count(*) from d.t"), "1");
    ok(&mut c, "set autocommit = 1");
    for var in ["transaction_read_only", "tx_read_only"] {
        ok(&mut c, &format!("set {var} = 1"));
        assert_eq!(
            server_code(c.query_drop("insert into d.t values (2)")),
            Some(1792),
            "{var}"
        );
        ok(&mut c, &format!("set {var} = 0"));
    }
    ok(&mut c, "insert into d.t values (2)");
}

#[test]
fn connection_and_server_character_sets() {
    let b = Basalt::start();
    let mut c = connect(&b);
    ok(&mut c, "set collation_connection = utf8mb4_bin");
    assert_eq!(one(&mut c, "select 'a' = 'A'"), "0");
    ok(&mut c, "set collation_connection = utf8mb4_general_ci");
    assert_eq!(one(&mut c, "select 'a' = 'A'"), "1");
    ok(&mut c, "set character_set_connection = latin1");
    assert_eq!(
        one(&mut c, "select @@collation_connection"),
        "latin1_swedish_ci"
    );
    ok(&mut c, "set names utf8mb4");
    ok(&mut c, "set character_set_server = latin1");
    ok(&mut c, "create database dl");
    let (_, text): (String, String) = c
        .query_first("show create database dl")
        .expect("q")
        .expect("row");
    assert!(
        text.contains("CHARACTER SET latin1 COLLATE latin1_swedish_ci"),
        "{text}"
    );
    ok(&mut c, "set collation_server = utf8mb4_bin");
    ok(&mut c, "create database db2");
    let (_, text): (String, String) = c
        .query_first("show create database db2")
        .expect("q")
        .expect("row");
    assert!(text.contains("COLLATE utf8mb4_bin"), "{text}");
    // SET CHARACTER SET takes the connection character set from the database's.
    ok(&mut c, "use dl");
    assert_eq!(one(&mut c, "select @@character_set_database"), "latin1");
    ok(&mut c, "set collation_database = latin1_bin");
    ok(&mut c, "set character set utf8mb4");
    assert_eq!(one(&mut c, "select @@collation_connection"), "latin1_bin");
    ok(&mut c, "set character_set_database = utf8mb4");
    ok(&mut c, "set character set utf8mb4");
    assert_eq!(
        one(&mut c, "select @@collation_connection"),
        "utf8mb4_general_ci"
    );
}

#[test]
fn division_group_concat_and_notes() {
    let b = Basalt::start();
    let mut c = connect(&b);
    assert_eq!(one(&mut c, "select 1/3"), "0.3333");
    ok(&mut c, "set div_precision_increment = 2");
    assert_eq!(one(&mut c, "select 1/3"), "0.33");
    ok(&mut c, "set group_concat_max_len = 5");
    assert_eq!(one(&mut c, "select group_concat('abc', 'def')"), "abcde");
    let w: Vec<(String, u16, String)> = c.query("show warnings").expect("warnings");
    assert_eq!(
        w,
        vec![(
            "Warning".into(),
            1260,
            "Row 1 was cut by GROUP_CONCAT()".into()
        )]
    );
    ok(&mut c, "create database d");
    ok(&mut c, "drop table if exists d.nothere");
    assert_eq!(c.warnings(), 1, "a note by default");
    ok(&mut c, "set sql_notes = 0");
    ok(&mut c, "drop table if exists d.nothere");
    assert_eq!(c.warnings(), 0, "sql_notes = 0 keeps notes back");
}

#[test]
fn timestamp_insert_id_and_thread_id() {
    let b = Basalt::start();
    let mut c = connect(&b);
    ok(&mut c, "set timestamp = 1000000000");
    assert_eq!(one(&mut c, "select now()"), "2001-09-09 01:46:40");
    assert_eq!(one(&mut c, "select unix_timestamp()"), "1000000000");
    ok(&mut c, "set timestamp = default");
    assert_eq!(one(&mut c, "select now() > '2020-01-01'"), "1");
    let id = one(&mut c, "select connection_id()");
    assert_eq!(one(&mut c, "select @@pseudo_thread_id"), id);
    ok(&mut c, "set pseudo_thread_id = 4242");
    assert_eq!(one(&mut c, "select connection_id()"), "4242");
    ok(&mut c, "create database d");
    ok(
        &mut c,
        "create table d.ai (a int auto_increment primary key, b int)",
    );
    ok(&mut c, "set insert_id = 100");
    ok(&mut c, "insert into d.ai (b) values (1), (2)");
    assert_eq!(one(&mut c, "select @@insert_id"), "0", "used once");
    ok(&mut c, "insert into d.ai (b) values (3)");
    let ids: Vec<i64> = c.query("select a from d.ai order by a").expect("ids");
    assert_eq!(ids, vec![100, 101, 102]);
    for var in ["last_insert_id", "identity"] {
        ok(&mut c, &format!("set {var} = 7"));
        assert_eq!(one(&mut c, "select last_insert_id()"), "7");
    }
}

/// Logs in on a raw socket with `extra` capability flags; returns the socket.
fn raw_login(port: u16, extra: u32) -> std::net::TcpStream {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let _greeting = read_packet(&mut s).expect("greeting");
    let caps: u32 = 0x200 | 0x1 | 0x8000 | 0x80000 | extra;
    let mut p = Vec::new();
    p.extend_from_slice(&caps.to_le_bytes());
    p.extend_from_slice(&(16u32 << 20).to_le_bytes());
    p.push(45);
    p.extend_from_slice(&[0u8; 23]);
    p.extend_from_slice(b"root\0");
    p.push(0);
    p.extend_from_slice(b"mysql_native_password\0");
    send_packet(&mut s, 1, &p);
    let ok = read_packet(&mut s).expect("login reply");
    assert_eq!(ok.first(), Some(&0u8), "login OK");
    s
}

fn query(s: &mut std::net::TcpStream, sql: &str) -> Vec<u8> {
    let mut p = vec![0x03];
    p.extend_from_slice(sql.as_bytes());
    send_packet(s, 0, &p);
    read_packet(s).expect("reply")
}

#[test]
fn wait_timeout_closes_idle_connections() {
    let b = Basalt::start();
    let mut c = connect(&b);
    ok(&mut c, "set wait_timeout = 1");
    std::thread::sleep(Duration::from_millis(2500));
    assert!(c.query_drop("select 1").is_err(), "closed after 1 s idle");
    let mut c = connect(&b);
    ok(&mut c, "set global interactive_timeout = 1");
    // CLIENT_INTERACTIVE: wait_timeout starts as interactive_timeout.
    let mut s = raw_login(b.port, 0x400);
    let reply = query(&mut s, "set @v = @@wait_timeout");
    assert_eq!(reply.first(), Some(&0x00));
    let mut plain = raw_login(b.port, 0);
    std::thread::sleep(Duration::from_millis(2500));
    let mut gone = [0u8; 1];
    let n = std::io::Read::read(&mut s, &mut gone).unwrap_or(0);
    assert_eq!(n, 0, "the interactive client was disconnected");
    let reply = query(&mut plain, "select 1");
    assert_ne!(reply.first(), Some(&0xff), "a non-interactive client stays");
}

#[test]
fn completion_type_chains_and_releases() {
    let b = Basalt::start();
    let mut c = connect(&b);
    ok(&mut c, "create database d");
    ok(&mut c, "create table d.t (a int)");
    ok(&mut c, "set completion_type = 'CHAIN'");
    ok(&mut c, "begin");
    ok(&mut c, "insert into d.t values (1)");
    ok(&mut c, "commit");
    assert_eq!(
        one(&mut c, "select @@in_transaction"),
        "1",
        "COMMIT chained"
    );
    ok(&mut c, "commit and no chain");
    assert_eq!(one(&mut c, "select @@in_transaction"), "0");
    ok(&mut c, "set transaction isolation level read committed");
    ok(&mut c, "begin");
    ok(&mut c, "commit and chain");
    assert_eq!(one(&mut c, "select @@in_transaction"), "1");
    ok(&mut c, "set completion_type = 'RELEASE'");
    ok(&mut c, "commit");
    assert!(
        c.query_drop("select 1").is_err(),
        "COMMIT released the connection"
    );
    let mut c = connect(&b);
    ok(&mut c, "begin");
    ok(&mut c, "rollback release");
    assert!(
        c.query_drop("select 1").is_err(),
        "ROLLBACK RELEASE closed it"
    );
}

#[test]
fn max_allowed_packet_session_and_global() {
    let b = Basalt::start();
    let mut c = connect(&b);
    assert_eq!(
        server_code(c.query_drop("set session max_allowed_packet = 1048576")),
        Some(1621)
    );
    ok(&mut c, "set global max_allowed_packet = 2097152");
    let mut fresh = connect(&b);
    assert_eq!(one(&mut fresh, "select @@max_allowed_packet"), "2097152");
    let big = "x".repeat(3 << 20);
    assert!(
        fresh.query_drop(format!("select '{big}'")).is_err(),
        "over the new limit"
    );
}

#[test]
fn session_state_is_tracked() {
    let b = Basalt::start();
    let mut c = connect(&b);
    ok(&mut c, "create database tracked_db");
    // CLIENT_SESSION_TRACK
    let mut s = raw_login(b.port, 1 << 23);
    let ok_packet = query(&mut s, "use tracked_db");
    let status = u16::from_le_bytes([ok_packet[3], ok_packet[4]]);
    assert_ne!(status & 0x4000, 0, "SERVER_SESSION_STATE_CHANGED");
    assert!(ok_packet.ends_with(b"tracked_db"), "{ok_packet:?}");
    let ok_packet = query(&mut s, "set autocommit = 0");
    assert!(ok_packet.windows(10).any(|w| w == b"autocommit"));
    assert!(ok_packet.ends_with(b"OFF"), "{ok_packet:?}");
    let ok_packet = query(&mut s, "set time_zone = '+5:30'");
    assert!(ok_packet.windows(9).any(|w| w == b"time_zone"));
    assert!(ok_packet.ends_with(b"+05:30"), "{ok_packet:?}");
    let ok_packet = query(&mut s, "set session_track_schema = OFF");
    let _ = ok_packet;
    let ok_packet = query(&mut s, "use mysql_does_not_matter_here");
    assert_eq!(ok_packet.first(), Some(&0xff), "unknown database");
    let ok_packet = query(&mut s, "use tracked_db");
    let status = u16::from_le_bytes([ok_packet[3], ok_packet[4]]);
    assert_eq!(status & 0x4000, 0, "schema tracking off");
    query(&mut s, "set session_track_state_change = ON");
    let ok_packet = query(&mut s, "set @x = 1, sql_notes = 1");
    let status = u16::from_le_bytes([ok_packet[3], ok_packet[4]]);
    assert_ne!(status & 0x4000, 0, "state change tracked");
    query(&mut s, "set session_track_system_variables = 'sql_notes'");
    let ok_packet = query(&mut s, "set sql_notes = 0");
    assert!(ok_packet.windows(9).any(|w| w == b"sql_notes"));
}

#[test]
fn server_character_set_from_the_defaults_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cnf = dir.path().join("my.cnf");
    std::fs::write(&cnf, "[mysqld]\ncharacter-set-server = latin1\n").expect("write");
    let b = Basalt::start_with(&["--defaults-file", cnf.to_str().expect("path")]);
    let mut c = connect(&b);
    assert_eq!(
        one(&mut c, "select @@global.character_set_server"),
        "latin1"
    );
    assert_eq!(
        one(&mut c, "select @@collation_server"),
        "latin1_swedish_ci"
    );
    ok(&mut c, "create database d");
    let (_, text): (String, String) = c
        .query_first("show create database d")
        .expect("q")
        .expect("row");
    assert!(text.contains("CHARACTER SET latin1"), "{text}");
}

#[test]
fn default_week_format_is_weeks_default_mode() {
    let b = Basalt::start();
    let mut c = connect(&b);
    let weeks =
        "SELECT CONCAT_WS(',', WEEK('2024-01-07'), YEARWEEK('2024-01-07'), WEEK('2024-12-31'))";
    assert_eq!(one(&mut c, weeks), "1,202401,52");
    ok(&mut c, "SET default_week_format = 1");
    assert_eq!(one(&mut c, weeks), "1,202401,53");
    ok(&mut c, "SET default_week_format = 5");
    assert_eq!(one(&mut c, "SELECT WEEK('2024-12-31')"), "53");
    // An explicit mode wins.
    assert_eq!(one(&mut c, "SELECT WEEK('2024-12-31', 0)"), "52");
}

#[test]
fn system_variables_table_describes_every_variable() {
    let b = Basalt::start();
    let mut c = connect(&b);
    let shown: Vec<(String, String)> = c.query("SHOW VARIABLES").expect("show");
    let listed = one(
        &mut c,
        "SELECT COUNT(*) FROM information_schema.SYSTEM_VARIABLES",
    );
    assert!(listed.parse::<usize>().unwrap() >= shown.len());
    let row: Vec<(String, String, String, String, String, String)> = c
        .query(
            "SELECT SESSION_VALUE, GLOBAL_VALUE, DEFAULT_VALUE, VARIABLE_SCOPE, VARIABLE_TYPE, \
             READ_ONLY FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'AUTOCOMMIT'",
        )
        .expect("autocommit");
    assert_eq!(
        row[0],
        (
            "ON".into(),
            "ON".into(),
            "ON".into(),
            "SESSION".into(),
            "BOOLEAN".into(),
            "NO".into()
        )
    );
    ok(&mut c, "SET SESSION sql_mode = ''");
    assert_eq!(
        one(
            &mut c,
            "SELECT CONCAT(SESSION_VALUE, '|', GLOBAL_VALUE_ORIGIN, '|', VARIABLE_TYPE) \
             FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'SQL_MODE'"
        ),
        "|COMPILE-TIME|SET"
    );
    ok(&mut c, "SET GLOBAL max_statement_time = 5");
    assert_eq!(
        one(
            &mut c,
            "SELECT CONCAT(GLOBAL_VALUE, '|', GLOBAL_VALUE_ORIGIN) \
             FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'MAX_STATEMENT_TIME'"
        ),
        "5.000000|SQL"
    );
    assert_eq!(
        one(
            &mut c,
            "SELECT CONCAT(VARIABLE_SCOPE, '|', READ_ONLY) FROM information_schema.SYSTEM_VARIABLES \
             WHERE VARIABLE_NAME = 'VERSION'"
        ),
        "GLOBAL|YES"
    );
    // What MariaDB's own test includes ask of it.
    assert_eq!(
        one(
            &mut c,
            "SELECT COUNT(*) FROM information_schema.system_variables \
             WHERE variable_name = 'have_sanitizer' AND global_value LIKE 'MSAN%'"
        ),
        "0"
    );
}
