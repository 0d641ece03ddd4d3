//! TLS for client connections, with rustls.
//!
//! A client that finds CLIENT_SSL in the greeting may answer with an SSLRequest;
//! the connection then runs a TLS handshake on the raw socket ([`Tls::accept`])
//! and continues the MySQL handshake inside it. The certificate, key and CA come
//! from `--ssl-cert`, `--ssl-key`, `--ssl-ca`; without any of them the server
//! uses (and on first start generates, see [`crate::tls_certs`]) the files
//! `ca.pem`, `server-cert.pem` and `server-key.pem` in the data directory, as
//! MySQL's `auto_generate_certs` does, so TLS works out of the box.
//!
//! With a CA, a client may present a certificate: it must be signed by that CA
//! (else the handshake fails), and accounts with `REQUIRE X509 / SUBJECT /
//! ISSUER` need one. `FLUSH SSL` loads the files again ([`Tls::reload`]); a
//! failed reload keeps the configuration in use.

use crate::stream::Stream;
use basalt_common::Value;
use parking_lot::RwLock;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{
    CipherSuite, ProtocolVersion, RootCertStore, ServerConfig, ServerConnection,
    SupportedCipherSuite, SupportedProtocolVersion,
};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// `@@version_ssl_library`.
pub const LIBRARY: &str = "rustls 0.23 (ring)";

/// The TLS options as given (`--ssl-*`, `--tls-version`, `--skip-ssl`).
#[derive(Debug, Clone, Default)]
pub struct TlsSettings {
    pub disabled: bool,
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
    pub ca: Option<PathBuf>,
    /// OpenSSL-style cipher list (`ECDHE-RSA-AES256-GCM-SHA384:...`); IANA names
    /// are accepted too.
    pub cipher: Option<String>,
    /// `TLSv1.2,TLSv1.3` (the default; older versions are not offered).
    pub versions: Option<String>,
}

/// The files a server's TLS uses.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
#[error("TLS: {0}")]
pub struct TlsError(pub String);

fn err(what: impl std::fmt::Display) -> TlsError {
    TlsError(what.to_string())
}

/// The server's TLS: configuration (replaced by FLUSH SSL) and counters.
pub struct Tls {
    files: TlsFiles,
    suites: Vec<SupportedCipherSuite>,
    versions: Vec<&'static SupportedProtocolVersion>,
    loaded: RwLock<Arc<Loaded>>,
    accepts: AtomicU64,
    finished_accepts: AtomicU64,
}

/// One loaded configuration and what status shows of it.
struct Loaded {
    config: Arc<ServerConfig>,
    not_before: String,
    not_after: String,
    verifies_clients: bool,
}

/// A connection's TLS session, as status variables and account checks see it.
#[derive(Debug, Clone)]
pub struct SessionTls {
    pub version: &'static str,
    pub cipher: &'static str,
    /// The client's certificate (verified against the CA): subject and issuer in
    /// OpenSSL's one-line form, `/C=SE/O=Org/CN=name`.
    pub cert: Option<(String, String)>,
}

impl Tls {
    /// TLS as configured, `None` with `--skip-ssl`. Without any `--ssl-*` file
    /// the data directory's certificates are used, generated if none exist.
    pub fn open(settings: &TlsSettings, datadir: &Path) -> Result<Option<Tls>, TlsError> {
        if settings.disabled {
            return Ok(None);
        }
        let files = match (&settings.cert, &settings.key, &settings.ca) {
            (None, None, None) => crate::tls_certs::datadir_files(datadir)?,
            (Some(cert), Some(key), ca) => TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                ca: ca.clone(),
            },
            _ => return Err(err("--ssl-cert and --ssl-key must be given together")),
        };
        let suites = cipher_suites(settings.cipher.as_deref())?;
        let versions = protocol_versions(settings.versions.as_deref())?;
        let loaded = Loaded::read(&files, &suites, &versions)?;
        Ok(Some(Tls {
            files,
            suites,
            versions,
            loaded: RwLock::new(Arc::new(loaded)),
            accepts: AtomicU64::new(0),
            finished_accepts: AtomicU64::new(0),
        }))
    }

    pub fn files(&self) -> &TlsFiles {
        &self.files
    }

    /// Reads the certificate, key and CA files again (`FLUSH SSL`). New
    /// connections use them; open ones keep their session.
    pub fn reload(&self) -> Result<(), TlsError> {
        let loaded = Loaded::read(&self.files, &self.suites, &self.versions)?;
        *self.loaded.write() = Arc::new(loaded);
        Ok(())
    }

    /// Runs the TLS handshake on `sock` (whose read timeout bounds it), starting
    /// with `early`, the client's bytes already read from it, and returns the
    /// encrypted stream.
    pub fn accept(&self, mut sock: Stream, early: &[u8]) -> io::Result<Stream> {
        self.accepts.fetch_add(1, Ordering::Relaxed);
        let config = self.loaded.read().config.clone();
        let mut conn = ServerConnection::new(config).map_err(io::Error::other)?;
        let mut early = early;
        while !early.is_empty() {
            conn.read_tls(&mut early)?;
            conn.process_new_packets().map_err(|e| {
                let _ = conn.write_tls(&mut sock);
                io::Error::new(io::ErrorKind::InvalidData, e)
            })?;
        }
        while conn.is_handshaking() {
            if conn.complete_io(&mut sock)? == (0, 0) {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
        self.finished_accepts.fetch_add(1, Ordering::Relaxed);
        Ok(Stream::Tls(Box::new(rustls::StreamOwned::new(conn, sock))))
    }

    /// The `Ssl_*` server status variables.
    pub fn status(&self) -> Vec<(String, Value)> {
        let loaded = self.loaded.read().clone();
        let n = |v: &AtomicU64| Value::UInt(v.load(Ordering::Relaxed));
        let list: Vec<&str> = self
            .suites
            .iter()
            .map(|s| openssl_name(s.suite()))
            .collect();
        vec![
            ("Ssl_accepts".into(), n(&self.accepts)),
            ("Ssl_finished_accepts".into(), n(&self.finished_accepts)),
            ("Ssl_cipher_list".into(), Value::str(&list.join(":"))),
            ("Ssl_server_not_after".into(), Value::str(&loaded.not_after)),
            (
                "Ssl_server_not_before".into(),
                Value::str(&loaded.not_before),
            ),
            // OpenSSL's SSL_VERIFY_PEER | SSL_VERIFY_CLIENT_ONCE when client
            // certificates are checked, as MariaDB reports it.
            (
                "Ssl_verify_mode".into(),
                Value::UInt(if loaded.verifies_clients { 5 } else { 0 }),
            ),
        ]
    }

    /// `@@tls_version`: the protocol versions offered.
    pub fn version_list(&self) -> String {
        let names: Vec<&str> = self
            .versions
            .iter()
            .map(|v| version_name(v.version))
            .collect();
        names.join(",")
    }
}

impl Loaded {
    fn read(
        files: &TlsFiles,
        suites: &[SupportedCipherSuite],
        versions: &[&'static SupportedProtocolVersion],
    ) -> Result<Loaded, TlsError> {
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&files.cert)
            .and_then(|i| i.collect::<Result<_, _>>())
            .map_err(|e| err(format!("{}: {e}", files.cert.display())))?;
        let leaf = chain
            .first()
            .ok_or_else(|| err(format!("{}: no certificate", files.cert.display())))?;
        let (not_before, not_after) = validity(leaf)?;
        let key = PrivateKeyDer::from_pem_file(&files.key)
            .map_err(|e| err(format!("{}: {e}", files.key.display())))?;
        let provider = Arc::new(CryptoProvider {
            cipher_suites: suites.to_vec(),
            ..rustls::crypto::ring::default_provider()
        });
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(versions)
            .map_err(err)?;
        let builder = match &files.ca {
            Some(ca) => {
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots(ca)?), provider)
                        .allow_unauthenticated()
                        .build()
                        .map_err(err)?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let config = builder
            .with_single_cert(chain, key)
            .map_err(|e| err(format!("{}: {e}", files.key.display())))?;
        Ok(Loaded {
            config: Arc::new(config),
            not_before,
            not_after,
            verifies_clients: files.ca.is_some(),
        })
    }
}

fn roots(ca: &Path) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for cert in
        CertificateDer::pem_file_iter(ca).map_err(|e| err(format!("{}: {e}", ca.display())))?
    {
        let cert = cert.map_err(|e| err(format!("{}: {e}", ca.display())))?;
        roots
            .add(cert)
            .map_err(|e| err(format!("{}: {e}", ca.display())))?;
    }
    if roots.is_empty() {
        return Err(err(format!("{}: no certificate", ca.display())));
    }
    Ok(roots)
}

/// The certificate's validity as OpenSSL prints it (`Dec  4 17:56:02 2026 GMT`).
fn validity(cert: &CertificateDer<'_>) -> Result<(String, String), TlsError> {
    let (_, c) = x509_parser::parse_x509_certificate(cert).map_err(err)?;
    let v = c.validity();
    Ok((
        openssl_time(v.not_before.timestamp()),
        openssl_time(v.not_after.timestamp()),
    ))
}

fn openssl_time(unix: i64) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (y, m, d) = civil_from_days(unix.div_euclid(86_400));
    let s = unix.rem_euclid(86_400);
    format!(
        "{} {d:>2} {:02}:{:02}:{:02} {y} GMT",
        MONTHS[m as usize - 1],
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

/// Proleptic Gregorian date of a day number (days since 1970-01-01).
pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// What a finished TLS session shows: version, cipher, the client certificate.
pub fn session_info(conn: &ServerConnection) -> Option<SessionTls> {
    let version = version_name(conn.protocol_version()?);
    let cipher = openssl_name(conn.negotiated_cipher_suite()?.suite());
    let cert = conn
        .peer_certificates()
        .and_then(|c| c.first())
        .and_then(|der| x509_parser::parse_x509_certificate(der).ok())
        .map(|(_, c)| (oneline(c.subject()), oneline(c.issuer())));
    Some(SessionTls {
        version,
        cipher,
        cert,
    })
}

/// OpenSSL's `X509_NAME_oneline`: `/C=SE/ST=x/O=y/CN=z`.
fn oneline(name: &x509_parser::x509::X509Name<'_>) -> String {
    let registry = x509_parser::objects::oid_registry();
    let mut out = String::new();
    for rdn in name.iter() {
        for attr in rdn.iter() {
            let oid = attr.attr_type();
            let key = x509_parser::objects::oid2abbrev(oid, registry)
                .map(str::to_string)
                .unwrap_or_else(|_| oid.to_id_string());
            let value = attr.as_str().unwrap_or("");
            out.push('/');
            out.push_str(&key);
            out.push('=');
            out.push_str(value);
        }
    }
    out
}

fn version_name(v: ProtocolVersion) -> &'static str {
    match v {
        ProtocolVersion::TLSv1_3 => "TLSv1.3",
        ProtocolVersion::TLSv1_2 => "TLSv1.2",
        ProtocolVersion::TLSv1_1 => "TLSv1.1",
        ProtocolVersion::TLSv1_0 => "TLSv1",
        _ => "unknown",
    }
}

/// The suites rustls (ring) has, with the names OpenSSL (and so MariaDB's
/// `Ssl_cipher`) gives them.
const SUITE_NAMES: &[(CipherSuite, &str)] = &[
    (
        CipherSuite::TLS13_AES_256_GCM_SHA384,
        "TLS_AES_256_GCM_SHA384",
    ),
    (
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256,
        "TLS_CHACHA20_POLY1305_SHA256",
    ),
    (
        CipherSuite::TLS13_AES_128_GCM_SHA256,
        "TLS_AES_128_GCM_SHA256",
    ),
    (
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        "ECDHE-ECDSA-AES256-GCM-SHA384",
    ),
    (
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        "ECDHE-RSA-AES256-GCM-SHA384",
    ),
    (
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        "ECDHE-ECDSA-CHACHA20-POLY1305",
    ),
    (
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        "ECDHE-RSA-CHACHA20-POLY1305",
    ),
    (
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        "ECDHE-ECDSA-AES128-GCM-SHA256",
    ),
    (
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        "ECDHE-RSA-AES128-GCM-SHA256",
    ),
];

fn openssl_name(s: CipherSuite) -> &'static str {
    SUITE_NAMES
        .iter()
        .find(|(c, _)| *c == s)
        .map_or("unknown", |(_, n)| n)
}

/// The suites `--ssl-cipher` allows (all of ring's, in OpenSSL's preference
/// order, without it). Names OpenSSL knows and rustls does not have are skipped,
/// as OpenSSL skips unknown names in a list; a list with none usable is an error.
fn cipher_suites(list: Option<&str>) -> Result<Vec<SupportedCipherSuite>, TlsError> {
    let all = rustls::crypto::ring::ALL_CIPHER_SUITES;
    let by_name = |name: &str| {
        all.iter().copied().find(|s| {
            openssl_name(s.suite()).eq_ignore_ascii_case(name)
                || format!("{:?}", s.suite()).eq_ignore_ascii_case(name)
        })
    };
    let Some(list) = list.filter(|l| !l.trim().is_empty()) else {
        return Ok(SUITE_NAMES
            .iter()
            .filter_map(|(c, _)| all.iter().copied().find(|s| s.suite() == *c))
            .collect());
    };
    let suites: Vec<_> = list
        .split([':', ',', ' '])
        .filter_map(|n| by_name(n.trim()))
        .collect();
    if suites.is_empty() {
        return Err(err(format!(
            "--ssl-cipher '{list}' names no cipher this server has"
        )));
    }
    Ok(suites)
}

/// `--tls-version`: a list of `TLSv1.2`, `TLSv1.3` (TLSv1.0 and 1.1 are skipped:
/// rustls does not implement them).
fn protocol_versions(
    list: Option<&str>,
) -> Result<Vec<&'static SupportedProtocolVersion>, TlsError> {
    let Some(list) = list.filter(|l| !l.trim().is_empty()) else {
        return Ok(vec![&rustls::version::TLS12, &rustls::version::TLS13]);
    };
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim) {
        match name.to_ascii_lowercase().as_str() {
            "tlsv1.2" => out.push(&rustls::version::TLS12),
            "tlsv1.3" => out.push(&rustls::version::TLS13),
            "tlsv1.0" | "tlsv1.1" => {}
            _ => return Err(err(format!("--tls-version: unknown version '{name}'"))),
        }
    }
    if out.is_empty() {
        return Err(err(format!(
            "--tls-version '{list}' names no version this server has (TLSv1.2, TLSv1.3)"
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_openssl_prints_them() {
        assert_eq!(openssl_time(0), "Jan  1 00:00:00 1970 GMT");
        assert_eq!(openssl_time(1_796_406_962), "Dec  4 17:56:02 2026 GMT");
        assert_eq!(openssl_time(951_782_400), "Feb 29 00:00:00 2000 GMT");
    }

    #[test]
    fn cipher_lists_take_openssl_and_iana_names() {
        let s = cipher_suites(Some(
            "ECDHE-RSA-AES128-GCM-SHA256:NOPE:TLS13_AES_128_GCM_SHA256",
        ))
        .expect("two known");
        let names: Vec<_> = s.iter().map(|s| openssl_name(s.suite())).collect();
        assert_eq!(
            names,
            ["ECDHE-RSA-AES128-GCM-SHA256", "TLS_AES_128_GCM_SHA256"]
        );
        assert!(cipher_suites(Some("RC4-MD5")).is_err());
        assert_eq!(cipher_suites(None).expect("all").len(), SUITE_NAMES.len());
    }

    #[test]
    fn versions_are_checked() {
        assert_eq!(protocol_versions(Some("TLSv1.3")).expect("ok").len(), 1);
        assert_eq!(
            protocol_versions(Some("TLSv1.1,TLSv1.2"))
                .expect("ok")
                .len(),
            1
        );
        assert!(protocol_versions(Some("TLSv1.1")).is_err());
        assert!(protocol_versions(Some("SSLv3")).is_err());
    }
}
