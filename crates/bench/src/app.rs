//! The run as a whole: resolve the plan, run the stages (read workloads with
//! flush=2 on both servers, commit workloads with flush=1, the binary log's three
//! systems and its dump clients with flush=1, then the instruction count), and write the report, CSV and
//! charts.

use crate::charts;
use crate::cpu;
use crate::load;
use crate::plan::{self, Args, Plan, READ_ONLY_SCRIPTS};
use crate::proc::{tail_lines, which};
use crate::report;
use crate::results::{Results, RunInfo, Workload};
use crate::runner::{Progress, Stage};
use crate::servers::{Binaries, Launch, Settings};
use crate::slap;
use crate::sysbench;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Runs everything `args` asks for; returns the path of the report written.
pub fn run(args: &Args) -> Result<PathBuf, String> {
    let plan = plan::resolve(args)?;
    let bins = Binaries::locate(args.basaltd.clone(), args.mariadbd.clone())?;
    let workdir = args.workdir.clone().unwrap_or_else(std::env::temp_dir);
    let progress = Progress::new();
    let started = Instant::now();
    let mut results = Results {
        info: start_info(args, &plan, &bins),
        ..Results::default()
    };
    check_tools(&plan, &mut results);
    let threads: Vec<String> = args
        .thread_handling
        .iter()
        .map(|t| format!("--thread-handling={t}"))
        .collect();
    let launch = Launch {
        bins: &bins,
        workdir: &workdir,
        wrapper: &[],
        mariadb_extra: &threads,
        basalt_extra: &threads,
        ready_timeout: Duration::from_secs(180),
    };
    read_stage(&plan, &launch, &progress, &mut results);
    commit_stage(&plan, &launch, &progress, &mut results);
    if plan.runs(Workload::Binlog) {
        crate::binlog::run(&plan, settings(&plan, 1), &launch, &progress, &mut results);
    }
    if plan.runs(Workload::BinlogDump) {
        let s = settings(&plan, 1);
        crate::binlog_dump::run(&plan, s, &launch, &progress, &mut results);
    }
    if plan.runs(Workload::Tls) {
        let s = settings(&plan, 2);
        let (clients, secs) = (&plan.storm.clients, plan.storm.secs);
        crate::tls::run(
            clients,
            secs,
            plan.rounds,
            s,
            &launch,
            &progress,
            &mut results,
        );
    }
    if plan.runs(Workload::Instruments) {
        let s = settings(&plan, 2);
        crate::instruments::run(&plan, s, &launch, &progress, &mut results);
    }
    if plan.runs(Workload::Cpu) {
        // A small pool starts faster under valgrind; the table has 1,000 rows.
        let small = Settings {
            buffer_pool: "128M".into(),
            ..settings(&plan, 2)
        };
        cpu::run_instructions(&launch, &small, plan.cpu_queries, &progress, &mut results);
    }
    finish_info(&mut results.info, started);
    let path = write_outputs(args, &results, &progress)?;
    progress.say(&format!("report written to {}", path.display()));
    Ok(path)
}

fn settings(plan: &Plan, flush: u8) -> Settings {
    Settings {
        buffer_pool: plan.buffer_pool.clone(),
        flush,
        max_connections: 20000,
    }
}

/// Drops workloads whose client program is missing, with a note saying so.
fn check_tools(plan: &Plan, results: &mut Results) {
    for (w, tool, pkg) in [
        (Workload::Seed, "mariadb-slap", "mariadb-client"),
        (Workload::Sysbench, "sysbench", "sysbench"),
    ] {
        if plan.runs(w) && which(tool).is_none() {
            results.info.notes.push(format!(
                "{} skipped: {tool} is not installed (Debian package: {pkg}).",
                w.name()
            ));
        }
    }
}

fn tool_ok(w: Workload) -> bool {
    match w {
        Workload::Seed => which("mariadb-slap").is_some(),
        Workload::Sysbench => which("sysbench").is_some(),
        _ => true,
    }
}

/// Read workloads: flush=2 on both, like the seed post.
fn read_stage(plan: &Plan, launch: &Launch<'_>, progress: &Progress, results: &mut Results) {
    let sb: Vec<_> = plan
        .sysbench
        .cases
        .iter()
        .filter(|c| READ_ONLY_SCRIPTS.contains(&c.script.as_str()))
        .cloned()
        .collect();
    let want = |w: Workload| plan.runs(w) && tool_ok(w);
    let any = want(Workload::Seed)
        || (want(Workload::Sysbench) && !sb.is_empty())
        || want(Workload::Storm)
        || want(Workload::Cpu)
        || want(Workload::Joins)
        || want(Workload::Tpch)
        || want(Workload::Idle);
    if !any {
        return;
    }
    let mut stage = Stage::new(settings(plan, 2), launch, progress);
    if want(Workload::Seed) {
        slap::run(&mut stage, &plan.seed, plan.rounds, results);
    }
    if want(Workload::Sysbench) {
        sysbench::run(&mut stage, &plan.sysbench, &sb, plan.rounds, results);
    }
    if want(Workload::Storm) {
        load::run_storm(&mut stage, &plan.storm, plan.rounds, results);
    }
    if want(Workload::Joins) {
        crate::joins::run(&mut stage, plan.quick, plan.rounds, results);
    }
    if want(Workload::Tpch) {
        crate::tpch::run(&mut stage, plan.quick, plan.rounds, results);
    }
    if want(Workload::Idle) {
        let counts = crate::idle::counts(plan.quick);
        crate::idle::run(&mut stage, &counts, plan.rounds, results);
        crate::paced::run(&mut stage, plan.quick, plan.rounds, results);
    }
    if want(Workload::Cpu) {
        let n = plan.cpu_queries.max(1) * 10;
        cpu::run_native(&mut stage, n, plan.rounds, results);
    }
}

/// Workloads that commit writes: flush=1 on both.
fn commit_stage(plan: &Plan, launch: &Launch<'_>, progress: &Progress, results: &mut Results) {
    let sb: Vec<_> = plan
        .sysbench
        .cases
        .iter()
        .filter(|c| !READ_ONLY_SCRIPTS.contains(&c.script.as_str()))
        .cloned()
        .collect();
    let do_sb = plan.runs(Workload::Sysbench) && tool_ok(Workload::Sysbench) && !sb.is_empty();
    let do_commit = plan.runs(Workload::Commit);
    let do_alter = plan.runs(Workload::Alter);
    let do_parts = plan.runs(Workload::Partitions);
    let do_routines = plan.runs(Workload::Routines);
    if !do_sb && !do_commit && !do_alter && !do_parts && !do_routines {
        return;
    }
    let mut stage = Stage::new(settings(plan, 1), launch, progress);
    if do_sb {
        sysbench::run(&mut stage, &plan.sysbench, &sb, plan.rounds, results);
    }
    if do_commit {
        load::run_commit(&mut stage, &plan.commit, plan.rounds, results);
    }
    if do_alter {
        crate::alter::run(&mut stage, plan.quick, plan.rounds, results);
    }
    if do_parts {
        crate::partitions::run(&mut stage, plan.rounds, results);
    }
    if do_routines {
        crate::routines::run(&mut stage, plan.rounds, plan.quick, results);
        if tool_ok(Workload::Sysbench) {
            crate::trigger_bench::run(&mut stage, plan.rounds, plan.quick, results);
        }
    }
}

fn start_info(args: &Args, plan: &Plan, bins: &Binaries) -> RunInfo {
    let mut info = RunInfo {
        started: utc_string(SystemTime::now()),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        quick: plan.quick,
        rounds: plan.rounds,
        cpus: std::thread::available_parallelism().map_or(0, |n| n.get()),
        loadavg_start: loadavg(),
        basaltd: bins.basaltd.display().to_string(),
        basalt_commit: args.basalt_commit.clone().unwrap_or_else(git_head),
        mariadb_version: mariadb_version(&bins.mariadbd),
        buffer_pool: plan.buffer_pool.clone(),
        notes: vec![
            "Seed set: mariadb-slap runs the DDL once per server (`--create=ddl.sql --no-drop`); \
             every measured run then uses `--no-drop --query=...` so only the query phase is \
             timed (without `--no-drop` mariadb-slap drops the schema after each run). Query \
             counts: point queries and LIMIT 10 use the full count, LIMIT 100 a quarter, \
             LIMIT 1000 a twentieth; both systems run the same counts."
                .into(),
        ],
        ..RunInfo::default()
    };
    info.notes.extend(args.notes.iter().cloned());
    if let Some(t) = &args.thread_handling {
        info.notes
            .push(format!("Both servers ran with --thread-handling={t}."));
    }
    info
}

fn finish_info(info: &mut RunInfo, started: Instant) {
    info.finished = utc_string(SystemTime::now());
    info.duration_secs = started.elapsed().as_secs_f64();
    info.loadavg_end = loadavg();
}

/// The first three fields of /proc/loadavg.
fn loadavg() -> String {
    let s = crate::proc::read_lossy(Path::new("/proc/loadavg"));
    let v: Vec<&str> = s.split_whitespace().take(3).collect();
    if v.is_empty() {
        "unknown".into()
    } else {
        v.join(" ")
    }
}

fn git_head() -> String {
    let out = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output();
    match out {
        Ok(o) if o.status.success() => {
            format!(
                "{} (workspace HEAD)",
                String::from_utf8_lossy(&o.stdout).trim()
            )
        }
        _ => "unknown".into(),
    }
}

fn mariadb_version(mariadbd: &Path) -> String {
    match Command::new(mariadbd).arg("--version").output() {
        Ok(o) => tail_lines(&String::from_utf8_lossy(&o.stdout), 1),
        Err(_) => "unknown".into(),
    }
}

/// `YYYY-MM-DD HH:MM:SS` (UTC).
pub fn utc_string(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `2026-11-29 22:41:07` → `20261129-224107`.
pub fn file_stamp(utc: &str) -> String {
    utc.replace(['-', ':'], "").replace(' ', "-")
}

/// Writes `<stamp>.md`, `<stamp>.csv`, charts and `latest.md` into the output
/// directory; returns the timestamped report's path.
fn write_outputs(args: &Args, r: &Results, progress: &Progress) -> Result<PathBuf, String> {
    let dir = &args.out;
    std::fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let stamp = file_stamp(&r.info.started);
    let mut r = r.clone();
    let charts = if args.no_charts {
        Vec::new()
    } else {
        make_charts(args, &mut r, dir, &stamp, progress)
    };
    let csv_name = format!("{stamp}.csv");
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).map_err(|e| format!("write {name}: {e}"))
    };
    write(&csv_name, &report::csv(&r))?;
    let md = report::render(&r, &charts, &csv_name);
    let md_name = format!("{stamp}.md");
    write(&md_name, &md)?;
    write("latest.md", &md)?;
    Ok(dir.join(md_name))
}

fn make_charts(
    args: &Args,
    r: &mut Results,
    dir: &Path,
    stamp: &str,
    progress: &Progress,
) -> report::Charts {
    let font = charts::load_font(args.font.as_deref());
    if font.is_none() {
        r.info.notes.push(
            "No TrueType font found (pass --font FILE.ttf): charts are drawn without labels; \
             the tables carry the numbers."
                .into(),
        );
    }
    let mut out = Vec::new();
    for (suffix, chart) in [
        ("seed", charts::seed_chart(r)),
        ("sysbench", charts::sysbench_chart(r)),
        ("load", charts::load_chart(r)),
    ] {
        let Some(chart) = chart else {
            continue;
        };
        let name = format!("{stamp}-{suffix}.png");
        match charts::draw(&chart, &dir.join(&name), font.is_some()) {
            Ok(()) => out.push((name, chart.title.clone())),
            Err(e) => {
                progress.say(&format!("chart {name} failed: {e}"));
                r.info
                    .notes
                    .push(format!("Chart {name} could not be drawn: {e}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_000), (2024, 10, 4));
    }

    #[test]
    fn utc_and_stamp() {
        let t = UNIX_EPOCH + Duration::from_secs(20_000 * 86_400 + 3600 + 62);
        let s = utc_string(t);
        assert_eq!(s, "2024-10-04 01:01:02");
        assert_eq!(file_stamp(&s), "20241004-010102");
    }
}
