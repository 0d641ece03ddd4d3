//! TLS: the certificates a new data directory gets, the stock `mariadb` client
//! verifying them, mysql_async and PyMySQL over TLS, `require_secure_transport`,
//! accounts' `REQUIRE SSL | X509 | SUBJECT | ISSUER | CIPHER`, `FLUSH SSL`,
//! `--skip-ssl`, and clients that stall in the TLS handshake.

use basalt_tests::{which, Basalt};
use mysql_async::prelude::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// `mariadb -N -B` with `args`, running `sql`: (exit code, stdout, stderr).
fn mariadb(args: &[String], sql: &str) -> (i32, String, String) {
    let out = Command::new("mariadb")
        .args(args)
        .args(["-N", "-B", "-e", sql])
        .stdin(Stdio::null())
        .output()
        .expect("run mariadb");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tcp(b: &Basalt, user: &str) -> Vec<String> {
    vec![
        "-h127.0.0.1".into(),
        format!("-P{}", b.port),
        format!("-u{user}"),
    ]
}

/// TCP with TLS, verifying the server's certificate against `ca`.
fn verified(b: &Basalt, user: &str, ca: &Path) -> Vec<String> {
    let mut a = tcp(b, user);
    a.push("--ssl".into());
    a.push("--ssl-verify-server-cert".into());
    a.push(format!("--ssl-ca={}", ca.display()));
    a
}

fn plain(b: &Basalt, user: &str) -> Vec<String> {
    let mut a = tcp(b, user);
    a.push("--skip-ssl".into());
    a
}

fn with_cert(mut a: Vec<String>, dir: &Path) -> Vec<String> {
    a.push(format!(
        "--ssl-cert={}",
        dir.join("client-cert.pem").display()
    ));
    a.push(format!(
        "--ssl-key={}",
        dir.join("client-key.pem").display()
    ));
    a
}

fn ok(r: (i32, String, String)) -> String {
    assert_eq!(r.0, 0, "mariadb failed: {}{}", r.2, r.1);
    r.1
}

fn denied(r: (i32, String, String)) {
    assert_ne!(r.0, 0, "expected a refusal, got {}", r.1);
    assert!(r.2.contains("ERROR 1045"), "{}", r.2);
}

fn has_cli() -> bool {
    if which("mariadb").is_none() {
        eprintln!("skipped: mariadb client not installed");
        return false;
    }
    true
}

fn datadir(b: &Basalt) -> PathBuf {
    b.datadir.clone()
}

#[test]
fn a_new_data_directory_gets_certificates_the_stock_client_verifies() {
    if !has_cli() {
        return;
    }
    let b = Basalt::start();
    let dir = datadir(&b);
    for f in [
        "ca.pem",
        "ca-key.pem",
        "server-cert.pem",
        "server-key.pem",
        "client-cert.pem",
        "client-key.pem",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let mode = std::fs::metadata(dir.join("server-key.pem"))
        .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o777)
        .expect("stat");
    assert_eq!(mode, 0o600);
    let out = ok(mariadb(
        &verified(&b, "root", &dir.join("ca.pem")),
        "select @@have_ssl, @@ssl_ca = concat(@@datadir, 'ca.pem'), @@tls_version; \
         show session status where variable_name in ('Ssl_version', 'Ssl_cipher')",
    ));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "YES\t1\tTLSv1.2,TLSv1.3", "{out}");
    assert_eq!(lines[1], "Ssl_cipher\tTLS_AES_256_GCM_SHA384", "{out}");
    assert_eq!(lines[2], "Ssl_version\tTLSv1.3", "{out}");
    // Without TLS the same status variables are empty.
    let out = ok(mariadb(
        &plain(&b, "root"),
        "show status like 'Ssl_version'",
    ));
    assert_eq!(out, "Ssl_version\t\n");
    // TLS 1.2 when the client asks for it, with an ECDHE suite.
    let mut a = verified(&b, "root", &dir.join("ca.pem"));
    a.push("--tls-version=TLSv1.2".into());
    let out = ok(mariadb(
        &a,
        "show status like 'Ssl_version'; show status like 'Ssl_cipher'",
    ));
    assert_eq!(
        out,
        "Ssl_version\tTLSv1.2\nSsl_cipher\tECDHE-ECDSA-AES256-GCM-SHA384\n"
    );
    // Over the Unix socket too.
    let sock = vec![
        format!("--socket={}", b.socket.display()),
        "-uroot".into(),
        "--ssl".into(),
    ];
    let out = ok(mariadb(
        &sock,
        "show status like 'Ssl_version'; select user()",
    ));
    assert_eq!(out, "Ssl_version\tTLSv1.3\nroot@localhost\n");
    // A second start keeps the certificates.
    let before = std::fs::read(dir.join("ca.pem")).expect("read ca");
    let mut b = b;
    b.restart(false);
    assert_eq!(std::fs::read(dir.join("ca.pem")).expect("read ca"), before);
    let status = ok(mariadb(
        &verified(&b, "root", &dir.join("ca.pem")),
        "show global status like 'Ssl_accepts'",
    ));
    assert_eq!(status, "Ssl_accepts\t1\n");
}

#[test]
fn a_certificate_from_another_ca_is_refused_by_a_verifying_client() {
    if !has_cli() {
        return;
    }
    let a = Basalt::start();
    let b = Basalt::start();
    // b's CA did not sign a's certificate.
    let r = mariadb(&verified(&a, "root", &b.datadir.join("ca.pem")), "select 1");
    assert_ne!(r.0, 0, "verification should fail: {}", r.1);
    let err = r.2.to_lowercase();
    assert!(
        err.contains("ssl") || err.contains("certificate"),
        "{}",
        r.2
    );
}

#[test]
fn require_secure_transport_refuses_plain_tcp_only() {
    if !has_cli() {
        return;
    }
    let b = Basalt::start();
    let ca = b.datadir.join("ca.pem");
    ok(mariadb(
        &plain(&b, "root"),
        "set global require_secure_transport = ON",
    ));
    denied(mariadb(&plain(&b, "root"), "select 1"));
    assert_eq!(ok(mariadb(&verified(&b, "root", &ca), "select 1")), "1\n");
    let sock = vec![
        format!("--socket={}", b.socket.display()),
        "-uroot".into(),
        "--skip-ssl".into(),
    ];
    assert_eq!(ok(mariadb(&sock, "select 2")), "2\n");
    ok(mariadb(&sock, "set global require_secure_transport = OFF"));
    assert_eq!(ok(mariadb(&plain(&b, "root"), "select 3")), "3\n");
}

#[test]
fn accounts_require_ssl_x509_subject_issuer_and_cipher() {
    if !has_cli() {
        return;
    }
    let b = Basalt::start();
    let dir = datadir(&b);
    let ca = dir.join("ca.pem");
    let version = env!("CARGO_PKG_VERSION");
    let subject = format!("/CN=Basalt_Server_{version}_Auto_Generated_Client_Certificate");
    let issuer = format!("/CN=Basalt_Server_{version}_Auto_Generated_CA_Certificate");
    ok(mariadb(
        &plain(&b, "root"),
        &format!(
            "create user s@'%' require ssl; create user x@'%' require x509; \
             create user subj@'%' require subject '{subject}' and issuer '{issuer}'; \
             create user wrong@'%' require subject '/CN=someone else'; \
             create user c12@'%' require cipher 'ECDHE-ECDSA-AES128-GCM-SHA256'"
        ),
    ));
    denied(mariadb(&plain(&b, "s"), "select 1"));
    assert_eq!(
        ok(mariadb(&verified(&b, "s", &ca), "select current_user()")),
        "s@%\n"
    );
    denied(mariadb(&verified(&b, "x", &ca), "select 1"));
    let out = ok(mariadb(
        &with_cert(verified(&b, "x", &ca), &dir),
        "select current_user()",
    ));
    assert_eq!(out, "x@%\n");
    denied(mariadb(&verified(&b, "subj", &ca), "select 1"));
    let out = ok(mariadb(
        &with_cert(verified(&b, "subj", &ca), &dir),
        "select 1",
    ));
    assert_eq!(out, "1\n");
    denied(mariadb(
        &with_cert(verified(&b, "wrong", &ca), &dir),
        "select 1",
    ));
    denied(mariadb(&verified(&b, "c12", &ca), "select 1"));
    let mut a = verified(&b, "c12", &ca);
    a.push("--tls-version=TLSv1.2".into());
    a.push("--ssl-cipher=ECDHE-ECDSA-AES128-GCM-SHA256".into());
    assert_eq!(ok(mariadb(&a, "select 1")), "1\n");
    // REQUIRE NONE lets the plain connection in again.
    ok(mariadb(&plain(&b, "root"), "alter user s@'%' require none"));
    assert_eq!(ok(mariadb(&plain(&b, "s"), "select 4")), "4\n");
}

#[test]
fn a_client_certificate_not_signed_by_the_ca_fails_the_handshake() {
    if !has_cli() {
        return;
    }
    let a = Basalt::start();
    let other = Basalt::start();
    let args = with_cert(
        verified(&a, "root", &a.datadir.join("ca.pem")),
        &other.datadir,
    );
    let r = mariadb(&args, "select 1");
    assert_ne!(r.0, 0, "a foreign client certificate was accepted: {}", r.1);
    // The server is unaffected.
    assert_eq!(ok(mariadb(&plain(&a, "root"), "select 5")), "5\n");
}

#[test]
fn skip_ssl_offers_no_tls_and_a_client_that_demands_it_stops() {
    if !has_cli() {
        return;
    }
    let b = Basalt::start_with(&["--skip-ssl"]);
    assert_eq!(
        ok(mariadb(&plain(&b, "root"), "select @@have_ssl, @@ssl_cert")),
        "DISABLED\t\n"
    );
    let r = mariadb(
        &verified(&b, "root", Path::new("/nonexistent/ca.pem")),
        "select 1",
    );
    assert_ne!(r.0, 0, "a client that requires TLS got plain text: {}", r.1);
    assert!(!b.datadir.join("ca.pem").exists());
}

/// Makes a CA and a server certificate for 127.0.0.1 with the `openssl` tool.
fn openssl_certs(dir: &Path, cn: &str) {
    let run = |args: &[&str]| {
        let st = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run openssl");
        assert!(st.success(), "openssl {args:?}");
    };
    std::fs::create_dir_all(dir).expect("mkdir");
    let ca_subj = format!("/CN={cn} CA");
    run(&[
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
        &ca_subj,
    ]);
    run(&[
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
    ]);
    std::fs::write(
        dir.join("ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .expect("ext");
    run(&[
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
    ]);
}

#[test]
fn named_files_are_used_and_flush_ssl_loads_them_again() {
    if !has_cli() || which("openssl").is_none() {
        eprintln!("skipped: needs mariadb and openssl");
        return;
    }
    let work = tempfile::tempdir().expect("tempdir");
    let (one, two, live) = (
        work.path().join("one"),
        work.path().join("two"),
        work.path().join("live"),
    );
    openssl_certs(&one, "one");
    openssl_certs(&two, "two");
    std::fs::create_dir_all(&live).expect("mkdir");
    let install = |from: &Path| {
        for f in ["ca.pem", "server-cert.pem", "server-key.pem"] {
            std::fs::copy(from.join(f), live.join(f)).expect("copy");
        }
    };
    install(&one);
    let arg = |k: &str, f: &str| format!("--{k}={}", live.join(f).display());
    let b = Basalt::start_with(&[
        &arg("ssl-ca", "ca.pem"),
        &arg("ssl-cert", "server-cert.pem"),
        &arg("ssl-key", "server-key.pem"),
        "--ssl-cipher=ECDHE-RSA-AES256-GCM-SHA384:TLS_AES_128_GCM_SHA256",
    ]);
    assert!(
        !b.datadir.join("ca.pem").exists(),
        "named files: nothing generated"
    );
    let out = ok(mariadb(
        &verified(&b, "root", &one.join("ca.pem")),
        "select @@ssl_cipher; show status like 'Ssl_cipher'; show status like 'Ssl_cipher_list'",
    ));
    assert_eq!(
        out,
        "ECDHE-RSA-AES256-GCM-SHA384:TLS_AES_128_GCM_SHA256\nSsl_cipher\tTLS_AES_128_GCM_SHA256\n\
         Ssl_cipher_list\tECDHE-RSA-AES256-GCM-SHA384:TLS_AES_128_GCM_SHA256\n"
    );
    install(&two);
    // Still the old certificate until FLUSH SSL.
    assert_eq!(
        ok(mariadb(
            &verified(&b, "root", &one.join("ca.pem")),
            "select 1"
        )),
        "1\n"
    );
    ok(mariadb(&plain(&b, "root"), "flush ssl"));
    assert_ne!(
        mariadb(&verified(&b, "root", &one.join("ca.pem")), "select 1").0,
        0
    );
    assert_eq!(
        ok(mariadb(
            &verified(&b, "root", &two.join("ca.pem")),
            "select 2"
        )),
        "2\n"
    );
    // A broken file: FLUSH SSL fails and the loaded certificate stays in use.
    std::fs::write(live.join("server-key.pem"), "not a key").expect("write");
    let r = mariadb(&plain(&b, "root"), "flush ssl");
    assert!(r.2.contains("ERROR 1105"), "{r:?}");
    assert_eq!(
        ok(mariadb(
            &verified(&b, "root", &two.join("ca.pem")),
            "select 3"
        )),
        "3\n"
    );
    // FLUSH SSL needs RELOAD.
    ok(mariadb(&plain(&b, "root"), "create user n@'%'"));
    let r = mariadb(&plain(&b, "n"), "flush ssl");
    assert!(r.2.contains("ERROR 1227"), "{r:?}");
}

#[test]
fn mysql_async_over_tls_with_a_large_result() {
    let b = Basalt::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut c = mysql_async::Conn::new(b.tls_async_opts())
            .await
            .expect("connect over TLS");
        let v: Option<(String, String)> = c
            .query_first("show status where variable_name = 'Ssl_version'")
            .await
            .expect("status");
        assert!(v.expect("row").1.starts_with("TLSv1."));
        c.query_drop("create table test.big (id int primary key, s longtext)")
            .await
            .expect("create");
        let stmt = c
            .prep("insert into test.big values (?, ?)")
            .await
            .expect("prep");
        for i in 0..40 {
            c.exec_drop(&stmt, (i, "x".repeat(100_000 + i)))
                .await
                .expect("insert");
        }
        let rows: Vec<(i32, String)> = c
            .query("select id, s from test.big order by id")
            .await
            .expect("select");
        assert_eq!(rows.len(), 40);
        assert!(rows
            .iter()
            .enumerate()
            .all(|(i, (id, s))| *id == i as i32 && s.len() == 100_000 + i));
        c.disconnect().await.expect("disconnect");
    });
}

#[test]
fn pymysql_over_tls() {
    let have = Command::new("python3")
        .args(["-c", "import pymysql"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        eprintln!("skipped: python3 with PyMySQL");
        return;
    }
    let b = Basalt::start();
    let script = "import sys, pymysql\n\
        c = pymysql.connect(host='127.0.0.1', port=int(sys.argv[1]), user='root', ssl_ca=sys.argv[2], ssl_verify_cert=True, ssl_verify_identity=True)\n\
        cur = c.cursor()\n\
        cur.execute(\"show status like 'Ssl_version'\")\n\
        print(cur.fetchone()[1])\n";
    let out = Command::new("python3")
        .args(["-c", script, &b.port.to_string()])
        .arg(b.datadir.join("ca.pem"))
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "TLSv1.3\n");
}

/// An SSLRequest (HandshakeResponse41 header with CLIENT_SSL, no user).
fn ssl_request() -> Vec<u8> {
    let caps: u32 = 0x0000_0200 | 0x0000_0800 | 0x0000_8000 | 0x0008_0000;
    let mut p = caps.to_le_bytes().to_vec();
    p.extend_from_slice(&(16u32 << 20).to_le_bytes());
    p.push(45);
    p.extend_from_slice(&[0; 23]);
    let mut out = (p.len() as u32).to_le_bytes()[..3].to_vec();
    out.push(1);
    out.extend_from_slice(&p);
    out
}

#[test]
fn clients_stalled_in_the_tls_handshake_are_closed_after_connect_timeout() {
    let b = Basalt::start();
    let mut admin = mysql::Conn::new(mysql::Opts::from_url(&b.url()).expect("url")).expect("admin");
    mysql::prelude::Queryable::query_drop(&mut admin, "set global connect_timeout = 2")
        .expect("set");
    let mut stalled = Vec::new();
    for i in 0..200 {
        let mut s = TcpStream::connect(("127.0.0.1", b.port)).expect("connect");
        let mut greeting = [0u8; 256];
        let _ = s.read(&mut greeting).expect("greeting");
        s.write_all(&ssl_request()).expect("ssl request");
        if i % 2 == 0 {
            // Half start a TLS ClientHello and never finish it.
            s.write_all(&[0x16, 0x03, 0x01, 0x00, 0x40, 0x01])
                .expect("partial hello");
        }
        stalled.push(s);
    }
    // Meanwhile other clients connect and query normally.
    for _ in 0..20 {
        let mut c =
            mysql::Conn::new(mysql::Opts::from_url(&b.url()).expect("url")).expect("connect");
        let one: Option<i32> =
            mysql::prelude::Queryable::query_first(&mut c, "select 1").expect("q");
        assert_eq!(one, Some(1));
    }
    std::thread::sleep(Duration::from_millis(3500));
    for mut s in stalled {
        s.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        let mut buf = [0u8; 512];
        // Closed by the server: EOF (or a reset), possibly after a TLS alert.
        let closed = loop {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break true,
                Ok(_) => continue,
            }
        };
        assert!(closed);
    }
    let aborted: Option<(String, u64)> = mysql::prelude::Queryable::query_first(
        &mut admin,
        "show global status like 'Aborted_connects'",
    )
    .expect("status");
    assert!(aborted.expect("row").1 >= 200);
}
