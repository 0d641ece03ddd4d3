//! An account's TLS requirement (`REQUIRE NONE | SSL | X509 | CIPHER / ISSUER /
//! SUBJECT`) and whether a connection's TLS session meets it, as MariaDB 10.11
//! checks at login.

use serde::{Deserialize, Serialize};

/// Which kind of `REQUIRE` clause an account has: mysql.user's `ssl_type`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TlsKind {
    /// No requirement (`REQUIRE NONE`, or none given): `ssl_type` ''.
    #[default]
    None,
    /// `REQUIRE SSL`: any TLS connection (`ANY`).
    Ssl,
    /// `REQUIRE X509`: TLS with a client certificate the server's CA verified.
    X509,
    /// `REQUIRE CIPHER / ISSUER / SUBJECT` (`SPECIFIED`).
    Specified,
}

impl TlsKind {
    /// mysql.user's `ssl_type` column.
    pub fn column(self) -> &'static str {
        match self {
            TlsKind::None => "",
            TlsKind::Ssl => "ANY",
            TlsKind::X509 => "X509",
            TlsKind::Specified => "SPECIFIED",
        }
    }

    /// The number mysql.global_priv's JSON stores as `ssl_type`.
    pub fn number(self) -> u8 {
        match self {
            TlsKind::None => 0,
            TlsKind::Ssl => 1,
            TlsKind::X509 => 2,
            TlsKind::Specified => 3,
        }
    }
}

/// An account's TLS requirement. With [`TlsKind::Specified`], each non-empty
/// string must match the connection's; the strings are empty otherwise.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsRequirement {
    pub kind: TlsKind,
    /// The cipher's OpenSSL name (`ECDHE-RSA-AES256-GCM-SHA384`).
    #[serde(default)]
    pub cipher: String,
    /// The client certificate's issuer, as [`PeerTls::cert`] gives it.
    #[serde(default)]
    pub issuer: String,
    /// The client certificate's subject.
    #[serde(default)]
    pub subject: String,
}

/// What the server knows about a connection's TLS session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerTls<'a> {
    /// The negotiated cipher's OpenSSL name.
    pub cipher: &'a str,
    /// The client certificate, verified against the server's CA: its
    /// `(subject, issuer)` in OpenSSL's `X509_NAME_oneline` form
    /// (`"/C=SE/O=x/CN=y"`). `None` when the client sent none.
    pub cert: Option<(&'a str, &'a str)>,
}

/// The text MariaDB keeps of a requirement string: a C string, so up to the
/// first NUL byte.
pub(crate) fn c_str(s: &str) -> &str {
    s.split('\0').next().unwrap_or("")
}

/// An empty `want` asks nothing; else it must equal `have`.
fn matches(want: &str, have: &str) -> bool {
    want.is_empty() || c_str(want) == have
}

impl TlsRequirement {
    /// `REQUIRE NONE`.
    pub fn is_none(&self) -> bool {
        self.kind == TlsKind::None
    }

    /// Whether a connection with `peer` (`None`: not over TLS) may log in to
    /// the account. `SSL` needs TLS; `X509` a client certificate; `CIPHER`
    /// the cipher named, `ISSUER` / `SUBJECT` a certificate whose names match
    /// (a requirement of only a cipher needs no certificate).
    pub fn admits(&self, peer: Option<&PeerTls>) -> bool {
        let Some(peer) = peer else {
            return self.kind == TlsKind::None;
        };
        match self.kind {
            TlsKind::None | TlsKind::Ssl => true,
            TlsKind::X509 => peer.cert.is_some(),
            TlsKind::Specified => {
                if !matches(&self.cipher, peer.cipher) {
                    return false;
                }
                if self.issuer.is_empty() && self.subject.is_empty() {
                    return true;
                }
                peer.cert.is_some_and(|(subject, issuer)| {
                    matches(&self.issuer, issuer) && matches(&self.subject, subject)
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CIPHER: &str = "ECDHE-RSA-AES256-GCM-SHA384";

    fn req(kind: TlsKind, cipher: &str, issuer: &str, subject: &str) -> TlsRequirement {
        TlsRequirement {
            kind,
            cipher: cipher.into(),
            issuer: issuer.into(),
            subject: subject.into(),
        }
    }

    fn peer<'a>(cipher: &'a str, cert: Option<(&'a str, &'a str)>) -> PeerTls<'a> {
        PeerTls { cipher, cert }
    }

    #[test]
    fn none_ssl_and_x509() {
        let cert = Some(("/CN=b", "/CN=ca"));
        let none = TlsRequirement::default();
        assert!(none.admits(None) && none.admits(Some(&peer(CIPHER, None))));
        let ssl = req(TlsKind::Ssl, "", "", "");
        assert!(!ssl.admits(None));
        assert!(ssl.admits(Some(&peer(CIPHER, None))));
        let x509 = req(TlsKind::X509, "", "", "");
        assert!(!x509.admits(None));
        assert!(!x509.admits(Some(&peer(CIPHER, None))));
        assert!(x509.admits(Some(&peer(CIPHER, cert))));
    }

    #[test]
    fn specified_checks_each_given_part() {
        let cert = Some(("/C=SE/CN=b", "/C=SE/CN=ca"));
        let cipher = req(TlsKind::Specified, CIPHER, "", "");
        assert!(!cipher.admits(None));
        assert!(
            cipher.admits(Some(&peer(CIPHER, None))),
            "no certificate needed"
        );
        assert!(!cipher.admits(Some(&peer("AES128-SHA", cert))));
        let issuer = req(TlsKind::Specified, "", "/C=SE/CN=ca", "");
        assert!(
            !issuer.admits(Some(&peer(CIPHER, None))),
            "a certificate needed"
        );
        assert!(issuer.admits(Some(&peer(CIPHER, cert))));
        assert!(!issuer.admits(Some(&peer(CIPHER, Some(("/C=SE/CN=b", "/CN=other"))))));
        let all = req(TlsKind::Specified, CIPHER, "/C=SE/CN=ca", "/C=SE/CN=b");
        assert!(all.admits(Some(&peer(CIPHER, cert))));
        assert!(!all.admits(Some(&peer(CIPHER, Some(("/C=SE/CN=c", "/C=SE/CN=ca"))))));
        assert!(!all.admits(Some(&peer("AES128-SHA", cert))));
        // Subject and issuer are not interchangeable.
        let swapped = req(TlsKind::Specified, "", "/C=SE/CN=b", "/C=SE/CN=ca");
        assert!(!swapped.admits(Some(&peer(CIPHER, cert))));
        // Nothing given (REQUIRE CIPHER ''): TLS is enough.
        let empty = req(TlsKind::Specified, "", "", "");
        assert!(!empty.admits(None) && empty.admits(Some(&peer(CIPHER, None))));
    }

    #[test]
    fn old_documents_load_without_the_field() {
        let a: crate::Account = serde_json::from_value(serde_json::json!({
            "user": "u", "host": "%", "plugin": "mysql_native_password",
            "auth": "", "privs": 0
        }))
        .expect("an account without tls");
        assert!(a.tls.is_none());
        let mut b = a.clone();
        b.tls = req(TlsKind::Specified, CIPHER, "/CN=ca", "");
        let back: crate::Account =
            serde_json::from_value(serde_json::to_value(&b).expect("json")).expect("load");
        assert_eq!(back, b);
    }
}
