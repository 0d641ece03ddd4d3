//! Running external programs (mariadb-slap, sysbench, valgrind tools) with a wall-clock
//! limit, their output captured in files so a chatty child never blocks on a full pipe.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished (or killed) command left behind.
#[derive(Debug, Clone)]
pub struct CmdOutput {
    /// Exit code; `None` when killed by a signal or by the timeout.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

impl CmdOutput {
    /// True when the command exited with status 0 in time.
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    /// A one-paragraph description of a failure: exit status and the last lines of
    /// output.
    pub fn describe_failure(&self) -> String {
        let status = if self.timed_out {
            "timed out".to_string()
        } else {
            match self.code {
                Some(c) => format!("exit code {c}"),
                None => "killed by a signal".to_string(),
            }
        };
        let tail = tail_lines(&format!("{}\n{}", self.stdout, self.stderr), 6);
        format!("{status}: {tail}")
    }
}

/// The last `n` non-empty lines of `text`, joined with " | ".
pub fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let start = lines.len().saturating_sub(n);
    lines[start..].join(" | ")
}

/// Runs `cmd` to completion or until `limit` passes (then kills it). Output goes to
/// files in `scratch` (named after `tag`) and is read back.
pub fn run_with_timeout(
    mut cmd: Command,
    scratch: &Path,
    tag: &str,
    limit: Duration,
) -> std::io::Result<CmdOutput> {
    let out_path = scratch.join(format!("{tag}.out"));
    let err_path = scratch.join(format!("{tag}.err"));
    cmd.stdin(Stdio::null())
        .stdout(File::create(&out_path)?)
        .stderr(File::create(&err_path)?);
    let mut child = cmd.spawn()?;
    let (code, timed_out) = wait_deadline(&mut child, limit);
    Ok(CmdOutput {
        code,
        stdout: read_lossy(&out_path),
        stderr: read_lossy(&err_path),
        timed_out,
    })
}

/// Waits for `child` up to `limit`; kills it when the limit passes.
fn wait_deadline(child: &mut Child, limit: Duration) -> (Option<i32>, bool) {
    let deadline = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return (status.code(), false),
            Ok(None) => {}
            Err(_) => return (None, false),
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return (None, true);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A file's contents as text (lossy); empty when unreadable.
pub fn read_lossy(path: &Path) -> String {
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// Finds `bin` on `PATH` (or in /usr/sbin, where Debian puts server binaries).
pub fn which(bin: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join(bin))
        .find(|p| p.is_file())
}

/// Sends SIGTERM to `pid`.
pub fn sigterm(pid: u32) {
    signal(pid, libc::SIGTERM);
}

/// Sends `sig` to `pid` (no-op for pid 0 or ids that do not fit).
pub fn signal(pid: u32, sig: libc::c_int) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    if pid <= 0 {
        return;
    }
    // SAFETY: kill(2) has no memory-safety preconditions; the pid is one of our
    // children.
    unsafe {
        libc::kill(pid, sig);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_lines_keeps_last_non_empty() {
        assert_eq!(tail_lines("a\n\nb\n c \n\n", 2), "b | c");
        assert_eq!(tail_lines("", 3), "");
    }

    #[test]
    fn timeout_kills() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cmd = Command::new("sleep");
        cmd.arg("5");
        let out = run_with_timeout(cmd, dir.path(), "sleep", Duration::from_millis(100))
            .expect("spawn sleep");
        assert!(out.timed_out);
        assert!(!out.success());
    }

    #[test]
    fn captures_output() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo hello; echo oops >&2; exit 3"]);
        let out =
            run_with_timeout(cmd, dir.path(), "sh", Duration::from_secs(10)).expect("spawn sh");
        assert_eq!(out.code, Some(3));
        assert_eq!(out.stdout.trim(), "hello");
        assert!(out.describe_failure().contains("exit code 3"));
        assert!(out.describe_failure().contains("oops"));
    }
}
