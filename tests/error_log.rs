//! `--log-error`: the server's log goes to its file (a relative name in the data
//! directory), `@@log_error` names it, and FLUSH ERROR LOGS / FLUSH LOGS reopen it
//! after a rotation; FLUSH SLOW LOGS reopens the slow query log.

use basalt_tests::{basaltd_path, eventually, free_port, KillOnDrop};
use mysql::prelude::*;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn the_log_goes_to_its_file_and_reopens_after_a_rotation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = tmp.path().join("data");
    let port = free_port();
    let child = Command::new(basaltd_path())
        .arg("--datadir")
        .arg(&datadir)
        .arg("--socket")
        .arg(tmp.path().join("s.sock"))
        .args(["--bind-address", "127.0.0.1", "--port", &port.to_string()])
        .args(["--log-error", "server.err"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn basaltd");
    let _server = KillOnDrop(child);
    // The log, and so the line saying the server is ready, is in the file.
    let path = datadir.join("server.err");
    assert!(
        eventually(Duration::from_secs(30), || {
            std::fs::read_to_string(&path).is_ok_and(|t| t.contains("ready for connections"))
        }),
        "no ready line in the error log"
    );
    let url = format!("mysql://root@127.0.0.1:{port}/?prefer_socket=false");
    let mut c = mysql::Conn::new(mysql::Opts::from_url(&url).expect("url")).expect("connect");
    let named: String = c.query_first("select @@log_error").unwrap().unwrap();
    assert!(named.ends_with("data/server.err"), "{named}");

    std::fs::rename(&path, datadir.join("server.err.1")).expect("rotate");
    c.query_drop("flush error logs").expect("flush error logs");
    let text = std::fs::read_to_string(&path).expect("a new error log");
    assert!(text.contains("error log reopened"), "{text}");
    std::fs::remove_file(&path).expect("remove");
    c.query_drop("flush logs").expect("flush logs");
    assert!(path.exists(), "FLUSH LOGS reopens the error log too");

    let slow = tmp.path().join("slow.log");
    c.query_drop(format!(
        "set global slow_query_log_file = '{}'",
        slow.display()
    ))
    .expect("slow log file");
    c.query_drop("set global slow_query_log = ON")
        .expect("slow log on");
    std::fs::rename(&slow, tmp.path().join("slow.log.1")).expect("rotate");
    c.query_drop("flush slow logs").expect("flush slow logs");
    assert!(slow.exists(), "FLUSH SLOW LOGS reopens the slow query log");
}
