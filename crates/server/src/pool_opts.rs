//! How connections get threads: `--thread-handling` (one thread per working
//! connection, or MariaDB's pool of threads), the pool's `--thread-pool-*`
//! settings at start, and `--extra-port` / `--extra-max-connections` for the
//! administrators' listener that bypasses the pool.

use crate::config::ConfigError;

/// The flags, flattened into [`crate::config::Args`].
#[derive(clap::Args, Debug, Default, Clone)]
pub struct ThreadArgs {
    /// `one-thread-per-connection` (default: a connection keeps a thread while it
    /// works and leaves it when idle) or `pool-of-threads` (commands of all
    /// connections run on a pool sized by the cores).
    #[arg(long = "thread-handling")]
    pub thread_handling: Option<String>,
    /// Threads of the pool that run commands at once (default: the cores).
    #[arg(long = "thread-pool-size")]
    pub thread_pool_size: Option<u64>,
    /// The most threads the pool may have, blocked ones included (default 65536).
    #[arg(long = "thread-pool-max-threads")]
    pub thread_pool_max_threads: Option<u64>,
    /// Milliseconds after which a pool whose running commands make no progress
    /// starts another thread (default 500).
    #[arg(long = "thread-pool-stall-limit")]
    pub thread_pool_stall_limit: Option<u64>,
    /// Threads beyond `thread-pool-size` that may keep running commands after a
    /// wait (default 3 per pool slot).
    #[arg(long = "thread-pool-oversubscribe")]
    pub thread_pool_oversubscribe: Option<u64>,
    /// Seconds an idle pool thread waits for work before it exits (default 60).
    #[arg(long = "thread-pool-idle-timeout")]
    pub thread_pool_idle_timeout: Option<u64>,
    /// A second TCP port whose connections each get their own thread, outside the
    /// pool, so administrators get in when the pool is saturated (default 0: none).
    #[arg(long = "extra-port")]
    pub extra_port: Option<u16>,
    /// Connections allowed at once on the extra port (default 1).
    #[arg(long = "extra-max-connections")]
    pub extra_max_connections: Option<u64>,
    /// Connection requests the OS queues before the server accepts them (the
    /// listen backlog; default: max_connections, at most 65535).
    #[arg(long = "back-log")]
    pub back_log: Option<u64>,
}

/// The defaults file's names for these options.
pub const KNOWN: &[&str] = &[
    "thread_handling",
    "thread_pool_size",
    "thread_pool_max_threads",
    "thread_pool_stall_limit",
    "thread_pool_oversubscribe",
    "thread_pool_idle_timeout",
    "extra_port",
    "extra_max_connections",
    "back_log",
];

/// How connections are given threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThreadHandling {
    #[default]
    PerConnection,
    Pool,
}

impl ThreadHandling {
    /// `@@thread_handling`.
    pub fn name(self) -> &'static str {
        match self {
            ThreadHandling::PerConnection => "one-thread-per-connection",
            ThreadHandling::Pool => "pool-of-threads",
        }
    }
}

/// The resolved settings: the `thread_pool_*` values are those at start (the
/// variables change them at runtime).
#[derive(Debug, Clone, Default)]
pub struct ThreadSettings {
    pub handling: ThreadHandling,
    pub pool_size: u64,
    pub pool_max_threads: u64,
    pub pool_stall_limit: u64,
    pub pool_oversubscribe: u64,
    pub pool_idle_timeout: u64,
    pub extra_port: u16,
    pub extra_max_connections: u64,
    /// The listen backlog (`@@back_log`).
    pub back_log: u64,
}

impl ThreadArgs {
    /// Flags over the defaults file over MariaDB's defaults, each kept in
    /// MariaDB's range.
    /// `max_connections`: the default of `back_log`.
    pub fn resolve(
        &self,
        get: &dyn Fn(&str) -> Option<String>,
        max_connections: u64,
    ) -> Result<ThreadSettings, ConfigError> {
        let handling = match self
            .thread_handling
            .clone()
            .or_else(|| get("thread_handling"))
        {
            None => ThreadHandling::PerConnection,
            Some(v) => parse_handling(&v)?,
        };
        let num = |flag: Option<u64>, name: &str, default: u64, min: u64, max: u64| {
            let v = match flag {
                Some(v) => v,
                None => match get(name) {
                    Some(s) => s.trim().parse::<u64>().map_err(|e| ConfigError::Value {
                        option: name.into(),
                        value: s.clone(),
                        msg: e.to_string(),
                    })?,
                    None => default,
                },
            };
            Ok::<u64, ConfigError>(v.clamp(min, max))
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        Ok(ThreadSettings {
            handling,
            pool_size: num(self.thread_pool_size, "thread_pool_size", cores, 1, 100_000)?,
            pool_max_threads: num(
                self.thread_pool_max_threads,
                "thread_pool_max_threads",
                65_536,
                1,
                65_536,
            )?,
            pool_stall_limit: num(
                self.thread_pool_stall_limit,
                "thread_pool_stall_limit",
                500,
                1,
                u64::from(u32::MAX),
            )?,
            pool_oversubscribe: num(
                self.thread_pool_oversubscribe,
                "thread_pool_oversubscribe",
                3,
                1,
                1000,
            )?,
            pool_idle_timeout: num(
                self.thread_pool_idle_timeout,
                "thread_pool_idle_timeout",
                60,
                1,
                u64::from(u32::MAX),
            )?,
            extra_port: num(self.extra_port.map(u64::from), "extra_port", 0, 0, 65_535)? as u16,
            extra_max_connections: num(
                self.extra_max_connections,
                "extra_max_connections",
                1,
                1,
                100_000,
            )?,
            back_log: num(self.back_log, "back_log", max_connections, 1, 65_535)?,
        })
    }
}

fn parse_handling(v: &str) -> Result<ThreadHandling, ConfigError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "one-thread-per-connection" => Ok(ThreadHandling::PerConnection),
        "pool-of-threads" => Ok(ThreadHandling::Pool),
        _ => Err(ConfigError::Value {
            option: "thread_handling".into(),
            value: v.into(),
            msg: "expected one-thread-per-connection or pool-of-threads".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_over_the_file_over_defaults_and_ranges_kept() {
        let args = ThreadArgs {
            thread_pool_size: Some(4),
            thread_pool_oversubscribe: Some(5000),
            ..Default::default()
        };
        let file = |name: &str| match name {
            "thread_handling" => Some("Pool-of-Threads".to_string()),
            "thread_pool_size" => Some("9".to_string()),
            "extra_port" => Some("3307".to_string()),
            _ => None,
        };
        let s = args.resolve(&file, 20_000).expect("valid");
        assert_eq!(s.handling, ThreadHandling::Pool);
        assert_eq!(s.pool_size, 4, "the flag wins");
        assert_eq!(s.pool_oversubscribe, 1000, "MariaDB's maximum");
        assert_eq!((s.pool_stall_limit, s.pool_max_threads), (500, 65_536));
        assert_eq!((s.extra_port, s.extra_max_connections), (3307, 1));
        assert_eq!(s.back_log, 20_000, "max_connections by default");
        let bad = ThreadArgs {
            thread_handling: Some("no-threads".into()),
            ..Default::default()
        };
        assert!(bad.resolve(&|_| None, 151).is_err());
    }
}
