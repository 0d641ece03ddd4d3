//! basaltd: parses configuration, opens storage and serves MySQL clients until
//! SIGTERM or SIGINT.

use basalt_server::config::{Args, Config};
use clap::Parser;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args = Args::parse();
    let config = match Config::resolve(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("basaltd: {e}");
            std::process::exit(2);
        }
    };
    init_logging(&config.log_level);
    if let Err(e) = basalt_server::run(config) {
        tracing::error!(error = %e, "basaltd stopped");
        std::process::exit(1);
    }
}

fn init_logging(level: &str) {
    // sqlparser's debug records print whole ASTs with a recursive Debug, which would
    // take a statement's depth in stack (and flood the log).
    let quiet_parser = "sqlparser=warn".parse().expect("a valid directive");
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level))
        .add_directive(quiet_parser);
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .init();
}
