//! Host patterns of accounts (`%`, `_`, names, IP addresses, `ip/netmask`) and the
//! order MariaDB tries accounts in (`get_sort` in sql_acl.cc): the most specific
//! host first, then a named user before the anonymous one.

use std::net::Ipv4Addr;

/// Where a client connects from: its host name (`localhost` for the Unix socket
/// and the loopback addresses; Basalt does no DNS lookups) and its address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Client {
    pub hostname: Option<String>,
    pub ip: Option<String>,
}

impl Client {
    /// A client known by what the connection reports: `localhost` (the socket) or
    /// an address.
    pub fn from_peer(peer: &str) -> Client {
        match peer {
            "localhost" => Client {
                hostname: Some("localhost".into()),
                ip: None,
            },
            "127.0.0.1" | "::1" => Client {
                hostname: Some("localhost".into()),
                ip: Some(peer.to_string()),
            },
            ip => Client {
                hostname: None,
                ip: Some(ip.to_string()),
            },
        }
    }

    /// The host name errors and `USER()` show: the name when known, else the address.
    pub fn shown(&self) -> &str {
        self.hostname
            .as_deref()
            .or(self.ip.as_deref())
            .unwrap_or("")
    }

    /// Whether an account's host pattern admits this client.
    pub fn matches(&self, pattern: &str) -> bool {
        if let Some((ip, mask)) = pattern.split_once('/') {
            return self
                .ip
                .as_deref()
                .is_some_and(|c| netmask_match(c, ip, mask));
        }
        self.hostname
            .as_deref()
            .is_some_and(|h| wild_match(h, pattern))
            || self.ip.as_deref().is_some_and(|ip| wild_match(ip, pattern))
    }
}

fn netmask_match(client: &str, ip: &str, mask: &str) -> bool {
    let (Ok(c), Ok(i), Ok(m)) = (
        client.parse::<Ipv4Addr>(),
        ip.parse::<Ipv4Addr>(),
        mask.parse::<Ipv4Addr>(),
    ) else {
        return false;
    };
    let m = u32::from(m);
    u32::from(c) & m == u32::from(i)
}

/// SQL LIKE-style matching without case: `%` any run, `_` one character, `\`
/// escapes the next character.
pub fn wild_match(s: &str, pattern: &str) -> bool {
    let s: Vec<char> = s.chars().flat_map(char::to_lowercase).collect();
    let p: Vec<char> = pattern.chars().flat_map(char::to_lowercase).collect();
    wild(&s, &p)
}

fn wild(s: &[char], p: &[char]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some(('%', rest)) => (0..=s.len()).any(|i| wild(&s[i..], rest)),
        Some(('_', rest)) => !s.is_empty() && wild(&s[1..], rest),
        Some(('\\', rest)) if !rest.is_empty() => {
            s.first() == Some(&rest[0]) && wild(&s[1..], &rest[1..])
        }
        Some((c, rest)) => s.first() == Some(c) && wild(&s[1..], rest),
    }
}

/// Whether a string holds an unescaped wildcard.
pub fn has_wildcard(s: &str) -> bool {
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '%' | '_' => return true,
            _ => {}
        }
    }
    false
}

/// MariaDB's `get_sort` weight of one string: 128 when it has no wildcard, else
/// the position of its first wildcard (1 for a lone `%`), 0 when empty.
fn weight(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut chars = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 < b.len() => i += 1,
            b'%' | b'_' => {
                let mut pos = i as u64 + 1;
                if !(pos == 1 && b[i] == b'%' && i + 1 == b.len()) {
                    pos += 1;
                }
                return pos.min(127);
            }
            _ => {}
        }
        chars = 128;
        i += 1;
    }
    chars
}

/// The sort key of an account (higher first): host, then user.
pub fn sort_key(host: &str, user: &str) -> u64 {
    (weight(host) << 8) | weight(user)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        let local = Client::from_peer("127.0.0.1");
        assert!(local.matches("localhost"));
        assert!(local.matches("127.0.0.1"));
        assert!(local.matches("%"));
        assert!(local.matches("127.%"));
        assert!(local.matches("127.0.0.0/255.0.0.0"));
        assert!(!local.matches("10.%"));
        let sock = Client::from_peer("localhost");
        assert!(sock.matches("LOCALHOST") && !sock.matches("127.0.0.1"));
        let far = Client::from_peer("10.1.2.3");
        assert!(far.matches("10.1.2._") && !far.matches("localhost"));
        assert!(!far.matches("10.1.2.0/255.255.255.128") || far.matches("10.1.2.0/255.255.255.0"));
    }

    #[test]
    fn specific_hosts_sort_first() {
        assert!(sort_key("localhost", "u") > sort_key("local%", "u"));
        assert!(sort_key("local%", "u") > sort_key("%", "u"));
        assert!(sort_key("%", "u") > sort_key("%", ""));
        assert!(sort_key("localhost", "") > sort_key("%", "u"));
        assert!(sort_key("%", "u") > sort_key("", "u"));
    }
}
