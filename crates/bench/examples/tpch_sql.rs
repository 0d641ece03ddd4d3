//! Writes the `tpch` workload's schema and data as SQL on standard output, to load
//! into any server by hand (`mariadb -e 'create database t' && cargo run --release
//! -p basalt-bench --example tpch_sql -- 0.1 | mariadb t`). The argument is the
//! scale factor (default 0.1).

use basalt_bench::tpch::gen;
use std::io::Write;

fn main() -> Result<(), String> {
    let sf: f64 = match std::env::args().nth(1) {
        Some(a) => a.parse().map_err(|e| format!("scale factor {a}: {e}"))?,
        None => 0.1,
    };
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut put = |stmt: String| writeln!(out, "{stmt};").map_err(|e| e.to_string());
    for ddl in gen::DDL {
        put(ddl.to_string())?;
    }
    gen::generate(sf, &mut put)?;
    put("analyze table region, nation, supplier, part, partsupp, customer, orders, lineitem".into())
}
