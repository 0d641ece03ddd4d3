//! `basalt-bench`: see the crate docs and crates/bench/README.md.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = basalt_bench::plan::Args::parse();
    basalt_bench::servers::install_signal_cleanup();
    match basalt_bench::app::run(&args) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("basalt-bench: {e}");
            ExitCode::FAILURE
        }
    }
}
