use super::*;

fn page_of(rows: &[(&str, &str)]) -> String {
    let mut page = Page::default();
    for (k, v) in rows {
        status(&mut page, k, v);
    }
    page.finish()
}

#[test]
fn status_names_follow_mysqld_exporter() {
    let p = page_of(&[
        ("Com_select", "7"),
        ("Com_stmt_execute", "2"),
        ("Handler_read_key", "3"),
        ("Connection_errors_accept", "0"),
        ("Innodb_rows_read", "9"),
        ("Innodb_buffer_pool_pages_data", "5"),
        ("Innodb_buffer_pool_pages_dirty", "1"),
        ("Innodb_buffer_pool_pages_total", "8"),
        ("Innodb_buffer_pool_pages_flushed", "4"),
        ("Threads_running", "1"),
        ("Rpl_semi_sync_master_status", "OFF"),
        ("Ssl_cipher", "TLS_AES_128_GCM_SHA256"),
        ("Compression", "ON"),
    ]);
    for want in [
        "# HELP mysql_global_status_commands_total Total number of executed MySQL commands.\n\
         # TYPE mysql_global_status_commands_total counter\n\
         mysql_global_status_commands_total{command=\"select\"} 7\n\
         mysql_global_status_commands_total{command=\"stmt_execute\"} 2\n",
        "mysql_global_status_handlers_total{handler=\"read_key\"} 3\n",
        "mysql_global_status_connection_errors_total{error=\"accept\"} 0\n",
        "mysql_global_status_innodb_row_ops_total{operation=\"read\"} 9\n",
        "# TYPE mysql_global_status_buffer_pool_pages gauge\n\
         mysql_global_status_buffer_pool_pages{state=\"data\"} 5\n",
        "mysql_global_status_buffer_pool_dirty_pages 1\n",
        "mysql_global_status_buffer_pool_page_changes_total{operation=\"flushed\"} 4\n",
        "# HELP mysql_global_status_threads_running Generic metric from SHOW GLOBAL STATUS.\n\
         # TYPE mysql_global_status_threads_running untyped\n\
         mysql_global_status_threads_running 1\n",
        "mysql_global_status_rpl_semi_sync_master_status 0\n",
        "mysql_global_status_compression 1\n",
    ] {
        assert!(p.contains(want), "missing {want:?} in\n{p}");
    }
    assert!(!p.contains("total{state=\"total\"}") && !p.contains("=\"total\""));
    assert!(!p.contains("ssl_cipher"), "text values are left out");
}

#[test]
fn values_parse_as_the_exporter_parses_them() {
    assert_eq!(
        parse_value("18446744073709551615").as_deref(),
        Some("18446744073709551615")
    );
    assert_eq!(parse_value("0.500000").as_deref(), Some("0.5"));
    assert_eq!(parse_value("-1").as_deref(), Some("-1"));
    assert_eq!(parse_value("ON").as_deref(), Some("1"));
    assert_eq!(parse_value("Disabled").as_deref(), Some("0"));
    assert_eq!(parse_value("REPEATABLE-READ"), None);
    assert_eq!(parse_value("inf"), None);
    assert_eq!(parse_value(""), None);
    assert_eq!(
        prometheus_name("Innodb_buffer-pool.x"),
        "innodb_buffer_pool_x"
    );
}

#[test]
fn variables_and_version_info() {
    let mut page = Page::default();
    variables(
        &mut page,
        vec![
            ("max_connections", "151".into()),
            ("autocommit", "ON".into()),
            ("version", "10.11.99-MariaDB-Basalt".into()),
            ("version_comment", "Basalt \"x\"".into()),
            ("transaction_isolation", "REPEATABLE-READ".into()),
        ],
    );
    let p = page.finish();
    for want in [
        "# TYPE mysql_global_variables_max_connections gauge\nmysql_global_variables_max_connections 151\n",
        "mysql_global_variables_autocommit 1\n",
        "mysql_version_info{innodb_version=\"\",version=\"10.11.99-MariaDB-Basalt\",version_comment=\"Basalt \\\"x\\\"\"} 1\n",
        "mysql_transaction_isolation{level=\"REPEATABLE-READ\"} 1\n",
    ] {
        assert!(p.contains(want), "missing {want:?} in\n{p}");
    }
}

#[test]
fn histograms_are_cumulative_with_inf_equal_to_count() {
    let h = basalt_common::histogram::Histogram::<4>::new();
    for v in [1, 3, 3, 100] {
        h.record(v);
    }
    let mut page = Page::default();
    page.histogram(
        "h_seconds",
        "help",
        ("command", "select"),
        &h.snapshot(),
        MICROS,
    );
    page.histogram("g", "help", ("", ""), &h.snapshot(), 1.0);
    let p = page.finish();
    let want = "# HELP h_seconds help\n# TYPE h_seconds histogram\n\
        h_seconds_bucket{command=\"select\",le=\"0.000001\"} 1\n\
        h_seconds_bucket{command=\"select\",le=\"0.000002\"} 1\n\
        h_seconds_bucket{command=\"select\",le=\"0.000004\"} 3\n\
        h_seconds_bucket{command=\"select\",le=\"+Inf\"} 4\n\
        h_seconds_sum{command=\"select\"} 0.000107\n\
        h_seconds_count{command=\"select\"} 4\n";
    assert!(p.contains(want), "{p}");
    assert!(
        p.contains("g_bucket{le=\"4\"} 3\ng_bucket{le=\"+Inf\"} 4\ng_sum 107\ng_count 4\n"),
        "{p}"
    );
}

#[test]
fn every_family_has_one_help_and_type() {
    let p = page_of(&[("Com_select", "1"), ("Com_insert", "2"), ("Uptime", "3")]);
    assert_eq!(
        p.matches("# TYPE mysql_global_status_commands_total")
            .count(),
        1
    );
    let names: Vec<&str> = p
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn bind_addresses() {
    assert_eq!(
        resolve("127.0.0.1", 9).expect("v4").to_string(),
        "127.0.0.1:9"
    );
    assert_eq!(resolve("::1", 9).expect("v6").to_string(), "[::1]:9");
    assert_eq!(resolve("*", 9).expect("any").to_string(), "[::]:9");
}
