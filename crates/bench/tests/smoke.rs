//! Smoke test: a tiny `--quick` run of every workload against real servers. Ignored
//! by default (needs basaltd built next to this binary, MariaDB, mariadb-slap,
//! sysbench and valgrind); run with `cargo test -p basalt-bench --release -- --ignored`.
//! Only the report's shape is checked: performance is reported, never asserted.

use std::path::PathBuf;
use std::process::Command;

fn basaltd() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_basalt-bench"));
    exe.with_file_name("basaltd")
}

#[test]
#[ignore]
fn quick_run_writes_a_report() {
    if !basaltd().is_file() {
        eprintln!(
            "skipped: {} missing (cargo build --release -p basalt-server)",
            basaltd().display()
        );
        return;
    }
    let out = tempfile::tempdir().expect("tempdir");
    let status = Command::new(env!("CARGO_BIN_EXE_basalt-bench"))
        .args([
            "--quick",
            "--rounds=1",
            "--seed-queries=50",
            "--seed-clients=1,4",
            "--seed-filter=PK point,PK LIMIT 10",
            "--sysbench-scripts=point_select",
            "--sysbench-threads=1",
            "--sysbench-time=1",
            "--sysbench-table-size=100",
            "--load-time=1",
            "--commit-clients=1",
            "--storm-clients=1",
            "--cpu-queries=100",
        ])
        .arg("--out")
        .arg(out.path())
        .status()
        .expect("run basalt-bench");
    assert!(status.success(), "basalt-bench failed: {status}");
    let latest = std::fs::read_to_string(out.path().join("latest.md")).expect("latest.md");
    for section in [
        "## Summary",
        "## Seed set (mariadb-slap): normalised response time",
        "## sysbench",
        "## Durable commit throughput",
        "## Connection storm",
        "## CPU cost of a point select",
    ] {
        assert!(latest.contains(section), "{section} missing:\n{latest}");
    }
    let files: Vec<String> = std::fs::read_dir(out.path())
        .expect("read out dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    assert!(files.iter().any(|f| f.ends_with(".csv")), "{files:?}");
    assert!(files.iter().any(|f| f.ends_with("-seed.png")), "{files:?}");
}
