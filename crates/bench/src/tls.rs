//! TLS on both servers: the connection storm with a full TLS handshake per
//! connection, and point selects over long-lived TLS connections. Both servers get
//! the same certificate set (an RSA 2048 CA and server certificate, what MySQL's
//! `auto_generate_certs` makes), written with the `openssl` tool; clients verify
//! the server certificate against the CA, as `--ssl-verify-server-cert` does.

use crate::load::{drive, point_select, storm_setup, CONNS, STORM_SETUP};
use crate::results::{Case, Results, Workload};
use crate::runner::{Progress, Sample, Stage};
use crate::servers::{Launch, Server, Settings};
use crate::sysbench::QPS;
use std::path::Path;
use std::process::{Command, Stdio};

/// The workload: cases at every `clients` count, `secs` seconds per run.
pub fn run(
    clients: &[u32],
    secs: u64,
    rounds: usize,
    settings: Settings,
    launch: &Launch<'_>,
    progress: &Progress,
    results: &mut Results,
) {
    let dir = match certificates(launch.workdir) {
        Ok(d) => d,
        Err(e) => {
            results.info.notes.push(format!("tls skipped: {e}"));
            return;
        }
    };
    let files = [
        format!("--ssl-ca={}", dir.path().join("ca.pem").display()),
        format!(
            "--ssl-cert={}",
            dir.path().join("server-cert.pem").display()
        ),
        format!("--ssl-key={}", dir.path().join("server-key.pem").display()),
    ];
    let mariadb_extra: Vec<String> = launch.mariadb_extra.iter().chain(&files).cloned().collect();
    let basalt_extra: Vec<String> = launch.basalt_extra.iter().chain(&files).cloned().collect();
    let tls_launch = Launch {
        mariadb_extra: &mariadb_extra,
        basalt_extra: &basalt_extra,
        ..launch.clone()
    };
    let ca = dir.path().join("ca.pem");
    let mut stage = Stage::new(settings, &tls_launch, progress);
    stage.add_setup(STORM_SETUP, Box::new(storm_setup));
    for &c in clients {
        let mut case = Case::new(Workload::Tls, "connect+select+quit", "TLS", c);
        stage.run_case(&mut case, STORM_SETUP, rounds, |s| storm(s, &ca, c, secs));
        results.cases.push(case);
    }
    for &c in clients {
        let mut case = Case::new(Workload::Tls, "point select", "TLS", c);
        stage.run_case(&mut case, STORM_SETUP, rounds, |s| selects(s, &ca, c, secs));
        results.cases.push(case);
    }
}

/// Client options: TCP, TLS, the server certificate verified against `ca`.
fn opts(server: &Server, ca: &Path) -> mysql::Opts {
    let ssl = mysql::SslOpts::default().with_root_cert_path(Some(ca.to_path_buf()));
    mysql::OptsBuilder::from_opts(server.opts(Some("benchs")))
        .ssl_opts(Some(ssl))
        .into()
}

/// Each client loops: connect with TLS, one point select, disconnect.
fn storm(server: &Server, ca: &Path, clients: u32, secs: u64) -> Result<Sample, String> {
    let opts = opts(server, ca);
    let totals = drive(
        clients,
        secs,
        || Ok(()),
        |_, i| {
            let mut conn = mysql::Conn::new(opts.clone()).map_err(|e| e.to_string())?;
            point_select(&mut conn, i)
        },
    )?;
    totals.sample(CONNS)
}

/// Each client connects once with TLS, then loops point selects.
fn selects(server: &Server, ca: &Path, clients: u32, secs: u64) -> Result<Sample, String> {
    let opts = opts(server, ca);
    let totals = drive(
        clients,
        secs,
        || mysql::Conn::new(opts.clone()).map_err(|e| e.to_string()),
        point_select,
    )?;
    totals.sample(QPS)
}

/// A CA and a server certificate for 127.0.0.1 in a new temporary directory.
fn certificates(workdir: &Path) -> Result<tempfile::TempDir, String> {
    let dir = tempfile::Builder::new()
        .prefix("bench-tls-")
        .tempdir_in(workdir)
        .map_err(|e| format!("temporary directory: {e}"))?;
    let d = dir.path();
    std::fs::write(d.join("ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n")
        .map_err(|e| e.to_string())?;
    let steps: [&[&str]; 3] = [
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca-key.pem",
            "-out",
            "ca.pem",
            "-days",
            "30",
            "-subj",
            "/CN=bench CA",
        ],
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server-key.pem",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca-key.pem",
            "-CAcreateserial",
            "-out",
            "server-cert.pem",
            "-days",
            "30",
            "-extfile",
            "ext",
        ],
    ];
    for args in steps {
        openssl(d, args)?;
    }
    Ok(dir)
}

fn openssl(dir: &Path, args: &[&str]) -> Result<(), String> {
    let status = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("openssl is not installed (Debian package: openssl): {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("openssl {} failed", args.join(" ")))
    }
}
