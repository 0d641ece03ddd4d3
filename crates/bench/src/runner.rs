//! Alternating rounds. A `Stage` holds one Basalt and one MariaDB server started with
//! the same settings; workloads register their set-up (schema, data) with it and then
//! run their cases as Basalt, MariaDB, Basalt, MariaDB, ... so slow drifts in machine
//! load hit both systems alike. A server that dies is restarted on a fresh data
//! directory and set up again; a failing case is recorded, never fatal.

use crate::results::{Case, Metric};
use crate::servers::{Kind, Launch, Server, Settings};
use std::time::Instant;

/// Progress lines on stderr, stamped with the time since the run began.
pub struct Progress {
    start: Instant,
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}

impl Progress {
    pub fn new() -> Progress {
        Progress {
            start: Instant::now(),
        }
    }

    /// Prints `msg` with an `[mm:ss]` stamp.
    pub fn say(&self, msg: &str) {
        let s = self.start.elapsed().as_secs();
        eprintln!("[{:02}:{:02}] {msg}", s / 60, s % 60);
    }
}

/// Sets a workload up on one server (create schema, load data).
pub type SetupFn<'a> = Box<dyn Fn(&mut Server) -> Result<(), String> + 'a>;

/// One round's measurement on one server.
pub type Sample = Vec<(Metric, f64)>;

struct Setup<'a> {
    name: String,
    run: SetupFn<'a>,
    /// Error per system (index 0 Basalt, 1 MariaDB) from the last attempt.
    error: [Option<String>; 2],
}

fn idx(kind: Kind) -> usize {
    match kind {
        Kind::Basalt => 0,
        Kind::MariaDb => 1,
    }
}

/// A pair of servers with the same settings and the set-ups done on them.
pub struct Stage<'a> {
    launch: &'a Launch<'a>,
    settings: Settings,
    servers: [Option<Server>; 2],
    start_error: [Option<String>; 2],
    setups: Vec<Setup<'a>>,
    pub progress: &'a Progress,
}

impl<'a> Stage<'a> {
    /// Starts both servers with `settings`. A server that cannot start is
    /// remembered; every case run on it then fails with that error.
    pub fn new(settings: Settings, launch: &'a Launch<'a>, progress: &'a Progress) -> Stage<'a> {
        let mut stage = Stage {
            launch,
            settings,
            servers: [None, None],
            start_error: [None, None],
            setups: Vec::new(),
            progress,
        };
        for kind in Kind::BOTH {
            stage.start(kind);
        }
        stage
    }

    fn start(&mut self, kind: Kind) {
        self.progress.say(&format!(
            "starting {} (buffer pool {}, flush_log_at_trx_commit={})",
            kind.name(),
            self.settings.buffer_pool,
            self.settings.flush
        ));
        match Server::start(kind, &self.settings, self.launch) {
            Ok(s) => {
                self.progress
                    .say(&format!("{} ready on 127.0.0.1:{}", kind.name(), s.port));
                self.servers[idx(kind)] = Some(s);
                self.start_error[idx(kind)] = None;
            }
            Err(e) => {
                self.progress
                    .say(&format!("{} failed to start: {e}", kind.name()));
                self.servers[idx(kind)] = None;
                self.start_error[idx(kind)] = Some(e);
            }
        }
    }

    /// The running server of `kind`, if it started.
    pub fn server(&mut self, kind: Kind) -> Option<&mut Server> {
        self.servers[idx(kind)].as_mut()
    }

    /// Registers and runs a set-up on both servers. Cases naming it fail on a
    /// server where it failed.
    pub fn add_setup(&mut self, name: &str, run: SetupFn<'a>) {
        let mut setup = Setup {
            name: name.to_string(),
            run,
            error: [None, None],
        };
        for kind in Kind::BOTH {
            if let Some(server) = self.servers[idx(kind)].as_mut() {
                self.progress
                    .say(&format!("set-up '{name}' on {}", kind.name()));
                setup.error[idx(kind)] = (setup.run)(server).err();
                if let Some(e) = &setup.error[idx(kind)] {
                    self.progress
                        .say(&format!("set-up '{name}' failed on {}: {e}", kind.name()));
                }
            }
        }
        self.setups.push(setup);
    }

    /// Restarts a server that died and redoes every set-up on it.
    fn revive(&mut self, kind: Kind) {
        let dead = match self.servers[idx(kind)].as_mut() {
            Some(s) => !s.alive(),
            None => false,
        };
        if !dead {
            return;
        }
        self.progress
            .say(&format!("{} is not running; restarting it", kind.name()));
        self.servers[idx(kind)] = None;
        self.start(kind);
        let Some(server) = self.servers[idx(kind)].as_mut() else {
            return;
        };
        for setup in &mut self.setups {
            setup.error[idx(kind)] = (setup.run)(server).err();
        }
    }

    /// Why `kind` cannot run cases of set-up `setup`, if it cannot.
    fn blocked(&self, kind: Kind, setup: &str) -> Option<String> {
        if let Some(e) = &self.start_error[idx(kind)] {
            return Some(format!("server did not start: {e}"));
        }
        let s = self.setups.iter().find(|s| s.name == setup)?;
        s.error[idx(kind)]
            .as_ref()
            .map(|e| format!("set-up '{setup}' failed: {e}"))
    }

    /// Runs `case` for `rounds` alternating rounds. `measure` runs one round on a
    /// server. After a failure a system sits out the remaining rounds of the case.
    pub fn run_case<F>(&mut self, case: &mut Case, setup: &str, rounds: usize, mut measure: F)
    where
        F: FnMut(&mut Server) -> Result<Sample, String>,
    {
        for round in 1..=rounds {
            for kind in Kind::BOTH {
                if case.failed(kind) {
                    continue;
                }
                self.revive(kind);
                if let Some(why) = self.blocked(kind, setup) {
                    self.progress
                        .say(&format!("{} | {} skipped: {why}", case.id(), kind.name()));
                    case.fail(kind, 0, why);
                    continue;
                }
                self.one_round(case, kind, round, rounds, &mut measure);
            }
        }
    }

    fn one_round<F>(
        &mut self,
        case: &mut Case,
        kind: Kind,
        round: usize,
        rounds: usize,
        measure: &mut F,
    ) where
        F: FnMut(&mut Server) -> Result<Sample, String>,
    {
        let progress = self.progress;
        let Some(server) = self.servers[idx(kind)].as_mut() else {
            return;
        };
        let label = format!("{} | {} round {round}/{rounds}", case.id(), kind.name());
        match measure(server) {
            Ok(sample) => {
                progress.say(&format!("{label}: {}", describe(&sample)));
                case.record(kind, &sample);
            }
            Err(e) => {
                let e = if server.alive() {
                    e
                } else {
                    format!("{e} (server exited: {})", server.log_tail(4))
                };
                progress.say(&format!("{label}: FAILED: {e}"));
                case.fail(kind, round, e);
            }
        }
    }
}

/// `key=value unit, ...` for a progress line.
pub fn describe(sample: &Sample) -> String {
    sample
        .iter()
        .map(|(m, v)| format!("{}={} {}", m.key, fmt_num(*v), m.unit))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A number with about four significant digits.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a == 0.0 {
        "0".to_string()
    } else {
        format!("{v:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Better;

    #[test]
    fn numbers_are_compact() {
        assert_eq!(fmt_num(12345.678), "12346");
        assert_eq!(fmt_num(123.456), "123.5");
        assert_eq!(fmt_num(1.23456), "1.23");
        assert_eq!(fmt_num(0.012345), "0.0123");
        assert_eq!(fmt_num(0.0), "0");
    }

    #[test]
    fn describes_samples() {
        let m = Metric {
            key: "qps",
            unit: "q/s",
            better: Better::Higher,
        };
        assert_eq!(describe(&vec![(m, 1500.0)]), "qps=1500 q/s");
    }
}
