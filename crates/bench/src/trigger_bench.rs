//! Triggers under sysbench's `oltp_insert`: the same run on a table without
//! triggers and on one whose AFTER INSERT trigger writes an audit row, at 1
//! and 4 clients. The figure is each server's throughput with the
//! trigger as a share of its throughput without.

use crate::plan::{SysbenchCase, SysbenchPlan};
use crate::results::{Case, Results, Workload};
use crate::runner::Stage;
use crate::servers::Server;
use mysql::prelude::Queryable;

pub const PLAIN: &str = "sysbench insert, no trigger";
pub const AUDITED: &str = "sysbench insert, audit trigger";
/// Case names start with this (the report's headline is q/s for them).
pub const NAME: &str = "oltp_insert";

const TABLE_SIZE: u64 = 10_000;
const SECS: u64 = 5;

fn prepare(server: &mut Server, trigger: bool) -> Result<(), String> {
    crate::sysbench::setup(server, TABLE_SIZE)?;
    let mut c = mysql::Conn::new(server.opts(Some("sbtest"))).map_err(|e| e.to_string())?;
    let mut stmts = vec![
        "create table audit (n bigint auto_increment primary key, id int not null, \
         k int not null, at timestamp(6) not null default current_timestamp(6))",
    ];
    if trigger {
        stmts.push(
            "create trigger sbtest1_audit after insert on sbtest1 for each row \
             insert into audit (id, k) values (new.id, new.k)",
        );
    }
    for s in stmts {
        c.query_drop(s).map_err(|e| format!("{s}: {e}"))?;
    }
    Ok(())
}

/// `quick`: one-second rounds (the smoke test).
pub fn run(stage: &mut Stage<'_>, rounds: usize, quick: bool, results: &mut Results) {
    let plan = SysbenchPlan {
        cases: Vec::new(),
        time: if quick { 1 } else { SECS },
        table_size: TABLE_SIZE,
    };
    for (setup, trigger, variant) in [
        (PLAIN, false, "no trigger"),
        (AUDITED, true, "AFTER INSERT audit trigger"),
    ] {
        stage.add_setup(setup, Box::new(move |s| prepare(s, trigger)));
        for threads in [1, 4] {
            let sc = SysbenchCase {
                script: NAME.to_string(),
                threads,
                ps_mode: "auto",
            };
            let clients = if threads == 1 { "client" } else { "clients" };
            let variant = format!("{variant}, {threads} {clients}");
            let mut case = Case::new(Workload::Routines, NAME, &variant, threads);
            stage.run_case(&mut case, setup, rounds, |s| {
                crate::sysbench::run_once(s, &sc, &plan)
            });
            results.cases.push(case);
        }
    }
}
