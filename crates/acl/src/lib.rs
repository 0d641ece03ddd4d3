//! Accounts, privileges and grants with MariaDB 10.11's semantics: host patterns
//! and the order logins try accounts in, each plugin's authentication strings,
//! the TLS an account requires, the privilege bits and the levels they may be
//! granted at, and SHOW GRANTS' text.
//! The SQL layer parses the statements and stores [`AclData`] through the
//! engine; the server authenticates against it.

pub mod auth;
pub mod host;
pub mod limits;
pub mod model;
pub mod privs;
pub mod roles;
pub mod show;
pub mod tls;

pub use auth::{Plugin, CACHING_SHA2, ED25519, NATIVE};
pub use host::Client;
pub use limits::{LimitChanges, Limits};
pub use model::{Account, AclData, DbGrant, Grants, RoleGrant, TableGrant};
pub use privs::Privs;
pub use roles::PUBLIC;
pub use tls::{PeerTls, TlsKind, TlsRequirement};
