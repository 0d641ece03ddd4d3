//! Limits the OS sets on the process, raised at start as mysqld does: enough file
//! descriptors (RLIMIT_NOFILE) for `max_connections` clients and the table cache.

use crate::config::Config;

/// Descriptors kept for log segments, binary logs, temporary files and listeners.
const EXTRA_FILES: u64 = 30;
/// `table_open_cache` (tables a server keeps open), counted twice as MariaDB does.
const TABLE_CACHE: u64 = 2000;

/// The descriptors a server with `max_connections` clients wants.
pub fn wanted_files(max_connections: u64) -> u64 {
    EXTRA_FILES + max_connections + 1 + TABLE_CACHE * 2
}

/// Raises RLIMIT_NOFILE to what `config` wants (at least `--open-files-limit`, at
/// least twice the connections and the extra files) and records the limit the
/// process got in `config.open_files_limit`, warning when it is short.
pub fn raise_open_files(config: &mut Config) {
    let max_connections = u64::from(config.max_connections);
    let wanted = wanted_files(max_connections);
    let ask = wanted
        .max((max_connections + EXTRA_FILES) * 2)
        .max(config.open_files_limit);
    let got = set_max_open_files(ask);
    if got < wanted {
        tracing::warn!(
            "Could not increase number of max_open_files to more than {got} (request: {wanted})"
        );
    }
    config.open_files_limit = got;
}

/// Sets the soft (and, where allowed, the hard) limit to at least `files`; the
/// soft limit the process has afterwards. A limit already higher is kept.
fn set_max_open_files(files: u64) -> u64 {
    let mut cur = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut cur) } != 0 {
        return files;
    }
    if cur.rlim_cur >= files {
        return cur.rlim_cur;
    }
    let both = libc::rlimit {
        rlim_cur: files,
        rlim_max: files.max(cur.rlim_max),
    };
    // SAFETY: setrlimit reads the struct it is given.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &both) } == 0 {
        return files;
    }
    // Without the privilege to raise the hard limit: as far as it goes.
    let soft = libc::rlimit {
        rlim_cur: files.min(cur.rlim_max),
        rlim_max: cur.rlim_max,
    };
    // SAFETY: as above.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &soft) } == 0 {
        return soft.rlim_cur;
    }
    cur.rlim_cur
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_raised_and_never_lowered() {
        let before = set_max_open_files(0);
        assert!(before > 0);
        let target = (before + 16).min(1 << 16);
        let got = set_max_open_files(target);
        assert!(got >= before.min(target));
        assert_eq!(set_max_open_files(1), got);
    }
}
