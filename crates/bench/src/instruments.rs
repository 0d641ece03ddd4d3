//! What always-on instrumentation costs (issue 16, "Cost"): the seed point and
//! range queries at the seed plan's client counts and sysbench
//! `oltp_point_select` / `oltp_read_write` at 1 and 32 threads, each on two
//! stages in alternating rounds:
//! - "PS on": Basalt as it starts by default (statement digests, statement
//!   events, status counters and statistics all on) and MariaDB with
//!   `--performance-schema=ON` (its default consumers: digests on);
//! - "PS off": Basalt with `--performance-schema=OFF` (no digests, no
//!   statement events) and MariaDB with `--performance-schema=0` (as every
//!   other workload starts it).
//!
//! Each round runs both stages (each with both servers), so load drifts hit
//! on and off alike. The report gives each server's on/off ratio, which is
//! the cost figure; MariaDB's is the anchor.

use crate::plan::{Plan, SysbenchCase};
use crate::results::{Case, Results, Workload};
use crate::runner::{Progress, Stage};
use crate::servers::{Launch, Settings};
use crate::slap::{self, seed_queries};
use crate::sysbench;

/// The instruction-count case's name.
pub const INSTRUCTIONS: &str = "instructions per point select";

/// The native CPU-time case's name.
pub const NATIVE: &str = "server CPU per point select";

/// Variant names of the two stages.
pub const ON: &str = "PS on";
pub const OFF: &str = "PS off";

/// The seed queries measured (the point and a range query on the primary key).
const SEED: &[(&str, &str)] = &[("PK", "point"), ("PK", "LIMIT 10")];
const SYSBENCH: &[(&str, u32)] = &[
    ("oltp_point_select", 1),
    ("oltp_point_select", 32),
    ("oltp_read_write", 1),
    ("oltp_read_write", 32),
];

pub fn run(
    plan: &Plan,
    settings: Settings,
    launch: &Launch<'_>,
    progress: &Progress,
    results: &mut Results,
) {
    let on_mariadb: Vec<String> = launch
        .mariadb_extra
        .iter()
        .cloned()
        .chain(["--performance-schema=ON".to_string()])
        .collect();
    let off_basalt: Vec<String> = launch
        .basalt_extra
        .iter()
        .cloned()
        .chain(["--performance-schema=OFF".to_string()])
        .collect();
    let on = Launch {
        mariadb_extra: &on_mariadb,
        ..launch.clone()
    };
    let off = Launch {
        basalt_extra: &off_basalt,
        ..launch.clone()
    };
    let mut stages = [
        (ON, Stage::new(settings.clone(), &on, progress)),
        (OFF, Stage::new(settings.clone(), &off, progress)),
    ];
    let ddl = plan.seed.ddl.clone();
    let size = plan.sysbench.table_size;
    for (_, stage) in stages.iter_mut() {
        let ddl = ddl.clone();
        stage.add_setup(slap::SETUP, Box::new(move |s| slap::setup(s, &ddl)));
        stage.add_setup(sysbench::SETUP, Box::new(move |s| sysbench::setup(s, size)));
        stage.add_setup(crate::cpu::SETUP, Box::new(crate::cpu::setup));
    }
    // Server CPU time (user + kernel) per point select: what a query costs the
    // machine, in alternating rounds; ten times the cpu workload's count per
    // round, as a 1% difference needs.
    let n = plan.cpu_queries.max(1) * 100;
    alternate(
        &mut stages,
        plan.rounds,
        results,
        NATIVE,
        1,
        crate::cpu::SETUP,
        |s| crate::cpu::native_once(s, n),
    );
    for q in seed_queries() {
        if !SEED.contains(&(q.name, q.variant.as_str())) {
            continue;
        }
        for &c in &plan.seed.clients {
            let name = format!("{} {}", q.name, q.variant);
            // Five times the seed set's runs: a cost of 1% needs longer runs
            // than a comparison with MariaDB does.
            let n = slap::query_count(plan.seed.queries * 5, q.limit);
            alternate(
                &mut stages,
                plan.rounds,
                results,
                &name,
                c,
                slap::SETUP,
                |s| slap::run_once(s, &q.sql, c, n, plan.seed.timeout),
            );
        }
    }
    for &(script, threads) in SYSBENCH {
        let sc = SysbenchCase {
            script: script.to_string(),
            threads,
            ps_mode: "auto",
        };
        alternate(
            &mut stages,
            plan.rounds,
            results,
            script,
            threads,
            sysbench::SETUP,
            |s| sysbench::run_once(s, &sc, &plan.sysbench),
        );
    }
    drop(stages);
    instructions(plan, &settings, [(ON, &on), (OFF, &off)], progress, results);
}

/// Instructions per point select (the `cpu` workload's count), on and off:
/// the figure the machine's noise does not blur.
fn instructions(
    plan: &Plan,
    settings: &Settings,
    launches: [(&'static str, &Launch<'_>); 2],
    progress: &Progress,
    results: &mut Results,
) {
    let small = Settings {
        buffer_pool: "128M".into(),
        ..settings.clone()
    };
    for (variant, launch) in launches {
        crate::cpu::run_instructions(launch, &small, plan.cpu_queries, progress, results);
        if let Some(c) = results.cases.last_mut() {
            if c.workload == Workload::Cpu {
                c.workload = Workload::Instruments;
                c.name = INSTRUCTIONS.into();
                c.variant = variant.into();
            }
        }
    }
}

/// One case on both stages, a round of each in turn (in ABBA order).
fn alternate<F>(
    stages: &mut [(&'static str, Stage<'_>); 2],
    rounds: usize,
    results: &mut Results,
    name: &str,
    clients: u32,
    setup: &str,
    mut measure: F,
) where
    F: FnMut(&mut crate::servers::Server) -> Result<crate::runner::Sample, String>,
{
    let mut cases = stages
        .each_ref()
        .map(|(variant, _)| Case::new(Workload::Instruments, name, variant, clients));
    // On, off, off, on, ...: neither stage always runs first in a round (the
    // first run after the other stage's showed a bias of its own).
    for round in 0..rounds {
        let mut pairs: Vec<_> = stages.iter_mut().zip(cases.iter_mut()).collect();
        if round % 2 == 1 {
            pairs.reverse();
        }
        for ((_, stage), case) in pairs {
            stage.run_case(case, setup, 1, &mut measure);
        }
    }
    results.cases.extend(cases);
}

/// The report's section: each server's figure with instruments on and off,
/// and on/off (above 1 means on is faster for throughput, slower for time).
pub fn table(out: &mut String, r: &Results) {
    use crate::servers::Kind;
    use std::fmt::Write;
    let cases: Vec<&Case> = r.of(Workload::Instruments).collect();
    if cases.is_empty() {
        return;
    }
    out.push_str(
        "## Instrumentation cost\n\n\
         Every instrument on (Basalt's default; MariaDB with `--performance-schema=ON`) \
         against all off (Basalt `--performance-schema=OFF`; MariaDB \
         `--performance-schema=0`), alternating rounds, medians. Seed cases are seconds \
         per run (lower is better), sysbench queries per second (higher is better), \
         server CPU the server process's user + system µs per query (lower is better); \
         on/off is the cost: 1.00 is free.\n\n\
         | case | clients | Basalt on | Basalt off | Basalt on/off | MariaDB on | \
         MariaDB off | MariaDB on/off |\n|---|---|---|---|---|---|---|---|\n",
    );
    for on in cases.iter().filter(|c| c.variant == ON) {
        let Some(off) = cases
            .iter()
            .find(|c| c.variant == OFF && c.name == on.name && c.clients == on.clients)
        else {
            continue;
        };
        let Some((key, _)) = crate::report::headline(on) else {
            continue;
        };
        let fig = |c: &Case, k: Kind| c.median(key, k);
        let ratio = |k: Kind| match (fig(on, k), fig(off, k)) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.3}", a / b),
            _ => "–".into(),
        };
        let num = |c: &Case, k: Kind| fig(c, k).map_or("–".into(), crate::runner::fmt_num);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            on.name,
            on.clients,
            num(on, Kind::Basalt),
            num(off, Kind::Basalt),
            ratio(Kind::Basalt),
            num(on, Kind::MariaDb),
            num(off, Kind::MariaDb),
            ratio(Kind::MariaDb),
        );
    }
    out.push('\n');
}
