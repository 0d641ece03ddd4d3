//! `mariadb-binlog` on the primary's binary log: the files, `--read-from-remote-server`,
//! `--start-position` and `--stop-datetime`, with `--verbose --base64-output=decode-rows`
//! row decoding compared change by change with the workload
//! (`support/binlog_workload.rs`); then the undecoded output replayed with `mariadb`
//! into a fresh MariaDB reproduces every table.
//!
//! Each check runs against a MariaDB primary (the oracle) and a Basalt primary.

use basalt_tests::binlog::{assert_same_contents, contents, run_bounded, Primary, PrimaryKind};
use basalt_tests::binlog_workload::{
    assert_changes, canon_binlog_text, epoch_text, parse_binlog_verbose, part_a, part_b, Workload,
    DB,
};
use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::{mariadb_cli, which};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const DECODE: &[&str] = &["--verbose", "--base64-output=decode-rows"];

/// Runs mariadb-binlog (in UTC, so datetimes mean the same to it and to the test).
fn binlog_tool(args: &[String]) -> Vec<u8> {
    let mut cmd = Command::new("mariadb-binlog");
    cmd.args(args).env("TZ", "UTC");
    let (code, out, err) = run_bounded(&mut cmd, Duration::from_secs(30));
    assert_eq!(code, 0, "mariadb-binlog {args:?} failed: {err}");
    out
}

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// Sleeps past the next whole second and returns it (seconds since the epoch): every
/// event logged before the call has an earlier timestamp, every later one not.
fn second_boundary() -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970");
    let next = now.as_secs() + 1;
    std::thread::sleep(Duration::from_secs(next) - now + Duration::from_millis(50));
    next
}

fn check(kind: PrimaryKind) {
    if !mariadb::available() || which("mariadb-binlog").is_none() {
        eprintln!("skipped: mariadb-server / mariadb-binlog not installed");
        return;
    }
    let primary = Primary::start(kind, 1);
    let mut w = Workload::new(primary.conn());
    part_a(&mut w);
    let n_a = w.changes.len();
    let (mid_file, mid_pos) = primary.master_status();
    let cut = second_boundary();
    part_b(&mut w);
    let want = &w.changes;
    let canon = |k, v: &Vec<u8>| canon_binlog_text(k, v);

    let files: Vec<String> = primary
        .binlog_files()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut args = strings(DECODE);
    args.extend(files.iter().cloned());
    let got = parse_binlog_verbose(&binlog_tool(&args));
    assert_changes("mariadb-binlog on the files", &got, want, canon);

    let names = primary.binlog_names();
    let mut args = strings(DECODE);
    args.extend(strings(&[
        "--read-from-remote-server",
        "-h127.0.0.1",
        "-uroot",
    ]));
    args.push(format!("-P{}", primary.port()));
    args.extend(names.iter().cloned());
    let got = parse_binlog_verbose(&binlog_tool(&args));
    assert_changes(
        "mariadb-binlog --read-from-remote-server",
        &got,
        want,
        canon,
    );

    let from = names
        .iter()
        .position(|n| *n == mid_file)
        .expect("SHOW MASTER STATUS names a listed file");
    let mut args = strings(DECODE);
    args.push(format!("--start-position={mid_pos}"));
    args.extend(files[from..].iter().cloned());
    let got = parse_binlog_verbose(&binlog_tool(&args));
    assert_changes("mariadb-binlog --start-position", &got, &want[n_a..], canon);

    let mut args = strings(DECODE);
    args.push(format!("--stop-datetime={}", epoch_text(&cut.to_string())));
    args.extend(files.iter().cloned());
    let got = parse_binlog_verbose(&binlog_tool(&args));
    assert_changes("mariadb-binlog --stop-datetime", &got, &want[..n_a], canon);

    let replay = String::from_utf8(binlog_tool(&files)).expect("mariadb-binlog prints UTF-8");
    let fresh = MariaDb::start(&[]);
    let (code, _, err) = mariadb_cli(fresh.port, &[], &replay);
    assert_eq!(code, 0, "replaying mariadb-binlog's output: {err}");
    assert_same_contents(
        "replayed into a fresh MariaDB",
        &contents(&primary.url(), DB),
        &contents(&fresh.url(), DB),
    );
}

#[test]
#[ignore = "needs mariadb-server"]
fn mariadb_binlog_decodes_and_replays_a_mariadb_primary() {
    check(PrimaryKind::MariaDb);
}

#[test]
#[ignore = "needs mariadb-server"]
fn mariadb_binlog_decodes_and_replays_a_basalt_primary() {
    check(PrimaryKind::Basalt);
}
