//! The data directory's TLS files, generated on first start as MySQL's
//! `auto_generate_certs` does: when none of `ca.pem`, `server-cert.pem` and
//! `server-key.pem` exists, a CA (`ca.pem`, `ca-key.pem`), a server certificate
//! it signs (`server-cert.pem`, `server-key.pem`) and a client certificate
//! (`client-cert.pem`, `client-key.pem`) are written there, valid for ten years.
//!
//! The server certificate names `localhost`, `127.0.0.1`, `::1` and the machine's
//! host name, so `mariadb --ssl-verify-server-cert --ssl-ca=DATADIR/ca.pem`
//! connects to a local server without further setup. Keys are ECDSA P-256 and
//! readable by the owner only.

use crate::tls::{TlsError, TlsFiles};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use std::io::Write;
use std::path::Path;

pub const CA: &str = "ca.pem";
pub const CA_KEY: &str = "ca-key.pem";
pub const SERVER_CERT: &str = "server-cert.pem";
pub const SERVER_KEY: &str = "server-key.pem";
pub const CLIENT_CERT: &str = "client-cert.pem";
pub const CLIENT_KEY: &str = "client-key.pem";

/// The data directory's files, generated if none of them exists; an error if
/// only some do (the operator has to decide which to keep).
pub fn datadir_files(datadir: &Path) -> Result<TlsFiles, TlsError> {
    let files = TlsFiles {
        cert: datadir.join(SERVER_CERT),
        key: datadir.join(SERVER_KEY),
        ca: Some(datadir.join(CA)),
    };
    let present = [&files.cert, &files.key, &datadir.join(CA)]
        .iter()
        .filter(|p| p.exists())
        .count();
    match present {
        3 => Ok(files),
        0 => {
            generate(datadir)?;
            tracing::info!(
                "generated a CA, server and client certificate for TLS in {}",
                datadir.display()
            );
            Ok(files)
        }
        _ => Err(TlsError(format!(
            "{} has only some of {CA}, {SERVER_CERT} and {SERVER_KEY}; restore or remove them, or name the files with --ssl-cert, --ssl-key and --ssl-ca",
            datadir.display()
        ))),
    }
}

fn generate(datadir: &Path) -> Result<(), TlsError> {
    let e = |x: rcgen::Error| TlsError(format!("generating certificates: {x}"));
    let version = env!("CARGO_PKG_VERSION");
    let ca_key = KeyPair::generate().map_err(e)?;
    let mut ca = params(
        &format!("Basalt_Server_{version}_Auto_Generated_CA_Certificate"),
        vec![],
    )?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca.self_signed(&ca_key).map_err(e)?;
    let issuer = Issuer::new(ca, &ca_key);

    let server_key = KeyPair::generate().map_err(e)?;
    let mut server = params(
        &format!("Basalt_Server_{version}_Auto_Generated_Server_Certificate"),
        server_names(),
    )?;
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let server_cert = server.signed_by(&server_key, &issuer).map_err(e)?;

    let client_key = KeyPair::generate().map_err(e)?;
    let mut client = params(
        &format!("Basalt_Server_{version}_Auto_Generated_Client_Certificate"),
        vec![],
    )?;
    client.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let client_cert = client.signed_by(&client_key, &issuer).map_err(e)?;

    write(datadir, CA_KEY, &ca_key.serialize_pem(), true)?;
    write(datadir, SERVER_KEY, &server_key.serialize_pem(), true)?;
    write(datadir, SERVER_CERT, &server_cert.pem(), false)?;
    write(datadir, CLIENT_KEY, &client_key.serialize_pem(), true)?;
    write(datadir, CLIENT_CERT, &client_cert.pem(), false)?;
    // Last: its presence is what marks the set complete.
    write(datadir, CA, &ca_cert.pem(), false)
}

fn params(common_name: &str, names: Vec<String>) -> Result<CertificateParams, TlsError> {
    let mut p = CertificateParams::new(names).map_err(|x| TlsError(x.to_string()))?;
    // Strict verifiers (Python 3.13's default) want the issuer's key identifier.
    p.use_authority_key_identifier_extension = true;
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, common_name);
    p.distinguished_name = dn;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (y, m, d) = crate::tls::civil_from_days((now - 86_400).div_euclid(86_400));
    p.not_before = rcgen::date_time_ymd(y as i32, m as u8, d as u8);
    p.not_after = rcgen::date_time_ymd(y as i32 + 10, m as u8, d.min(28) as u8);
    Ok(p)
}

/// The names the server certificate is valid for.
fn server_names() -> Vec<String> {
    let mut names = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    if let Ok(h) = std::fs::read_to_string("/etc/hostname") {
        let h = h.trim();
        if !h.is_empty() && h != "localhost" && h.is_ascii() {
            names.push(h.to_string());
        }
    }
    names
}

fn write(dir: &Path, name: &str, contents: &str, private: bool) -> Result<(), TlsError> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join(name);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(if private { 0o600 } else { 0o644 })
        .open(&path)
        .map_err(|x| TlsError(format!("{}: {x}", path.display())))?;
    f.write_all(contents.as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|x| TlsError(format!("{}: {x}", path.display())))
}
