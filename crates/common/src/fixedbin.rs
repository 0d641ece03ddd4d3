//! UUID and INET6: 16-byte binary types shown as text, with MariaDB's text forms,
//! storage ("record") forms and orders (`plugin/type_uuid`, `plugin/type_inet`).

/// Which of the two types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FixedBin {
    Uuid,
    Inet6,
}

impl FixedBin {
    pub fn of(dt: &crate::DataType) -> Option<FixedBin> {
        match dt {
            crate::DataType::Uuid => Some(FixedBin::Uuid),
            crate::DataType::Inet6 => Some(FixedBin::Inet6),
            _ => None,
        }
    }

    pub fn is_inet6(self) -> bool {
        self == FixedBin::Inet6
    }

    /// The type name in messages (`Incorrect uuid value`).
    pub fn name(self) -> &'static str {
        match self {
            FixedBin::Uuid => "uuid",
            FixedBin::Inet6 => "inet6",
        }
    }

    /// Characters of the longest text form.
    pub fn text_len(self) -> u32 {
        match self {
            FixedBin::Uuid => 36,
            FixedBin::Inet6 => 39,
        }
    }
}

/// Parses a UUID as MariaDB does: 32 hex digits, hyphens allowed in any number
/// between two digits but not first or last. Returns the in-memory bytes.
pub fn uuid_parse(s: &[u8]) -> Option<[u8; 16]> {
    let mut out = [0u8; 16];
    let mut i = 0;
    let digit = |i: &mut usize| -> Option<u8> {
        let c = *s.get(*i)?;
        *i += 1;
        (c as char).to_digit(16).map(|d| d as u8)
    };
    let hyphens = |i: &mut usize| {
        while s.get(*i) == Some(&b'-') {
            *i += 1;
        }
    };
    if s.len() < 32 {
        return None;
    }
    for (k, byte) in out.iter_mut().enumerate() {
        let hi = digit(&mut i)?;
        hyphens(&mut i);
        let lo = digit(&mut i)?;
        *byte = (hi << 4) | lo;
        if k < 15 {
            hyphens(&mut i);
        }
    }
    // Version >= 8 with variant 0 is an impossible combination.
    if i < s.len() || out[6] & (out[8].wrapping_neg()) & 0x80 != 0 {
        return None;
    }
    Some(out)
}

/// The canonical lowercase 36-character form.
pub fn uuid_format(b: &[u8; 16]) -> String {
    let mut s = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{byte:02x}"));
    }
    s
}

/// Segments (memory position, record position, length) of a time-based UUID.
const SEGMENTS: [(usize, usize, usize); 5] =
    [(0, 12, 4), (4, 10, 2), (6, 8, 2), (8, 6, 2), (10, 0, 6)];

/// A UUID of version 1..5 with the variant bit set is stored (and sorted) with its
/// parts swapped: node, clock sequence, time high, time mid, time low.
fn uuid_swapped(m: &[u8; 16]) -> bool {
    m[6] > 0 && m[6] < 0x60 && m[8] & 0x80 != 0
}

/// The sortable storage form: memcmp of two of them is MariaDB's UUID order.
pub fn uuid_to_record(m: &[u8; 16]) -> [u8; 16] {
    if !uuid_swapped(m) {
        return *m;
    }
    let mut r = [0u8; 16];
    for (mp, rp, len) in SEGMENTS {
        r[rp..rp + len].copy_from_slice(&m[mp..mp + len]);
    }
    r
}

/// Inverse of [`uuid_to_record`].
pub fn uuid_from_record(r: &[u8; 16]) -> [u8; 16] {
    if r[6] & r[8].wrapping_neg() & 0x80 == 0 {
        return *r;
    }
    let mut m = [0u8; 16];
    for (mp, rp, len) in SEGMENTS {
        m[mp..mp + len].copy_from_slice(&r[rp..rp + len]);
    }
    m
}

/// MariaDB's comparison of two in-memory UUIDs: by the swapped parts when both are
/// time-based, else bytewise.
pub fn uuid_cmp(a: &[u8; 16], b: &[u8; 16]) -> std::cmp::Ordering {
    if uuid_swapped(a) && uuid_swapped(b) {
        uuid_to_record(a).cmp(&uuid_to_record(b))
    } else {
        a.cmp(b)
    }
}

/// Parses an IPv6 address as MariaDB's INET6 does (hex groups of up to 4 digits, at
/// most one `::`, an optional trailing dotted IPv4 part). Plain IPv4 is refused.
pub fn inet6_parse(s: &[u8]) -> Option<[u8; 16]> {
    let text = std::str::from_utf8(s).ok()?;
    let (head, tail) = match text.find("::") {
        Some(p) => (&text[..p], Some(&text[p + 2..])),
        None => (text, None),
    };
    let mut words: Vec<u16> = Vec::new();
    let mut tail_words: Vec<u16> = Vec::new();
    groups(head, &mut words, tail.is_none())?;
    if let Some(t) = tail {
        if t.contains("::") {
            return None;
        }
        groups(t, &mut tail_words, true)?;
    }
    let total = words.len() + tail_words.len();
    match tail {
        None if total != 8 => return None,
        Some(_) if total > 7 => return None,
        _ => {}
    }
    let mut out = [0u8; 16];
    for (i, w) in words.iter().enumerate() {
        out[i * 2..i * 2 + 2].copy_from_slice(&w.to_be_bytes());
    }
    let start = 8 - tail_words.len();
    for (i, w) in tail_words.iter().enumerate() {
        out[(start + i) * 2..(start + i) * 2 + 2].copy_from_slice(&w.to_be_bytes());
    }
    Some(out)
}

/// Appends the 16-bit groups of a `:`-separated run (empty: none). The last group
/// may be a dotted IPv4 address when `v4_ok`.
fn groups(s: &str, out: &mut Vec<u16>, v4_ok: bool) -> Option<bool> {
    if s.is_empty() {
        return Some(false);
    }
    let parts: Vec<&str> = s.split(':').collect();
    for (i, p) in parts.iter().enumerate() {
        if i + 1 == parts.len() && v4_ok && p.contains('.') {
            let v4 = ipv4(p)?;
            out.push(u16::from_be_bytes([v4[0], v4[1]]));
            out.push(u16::from_be_bytes([v4[2], v4[3]]));
            return Some(true);
        }
        if p.is_empty() || p.len() > 4 || !p.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        out.push(u16::from_str_radix(p, 16).ok()?);
    }
    Some(false)
}

fn ipv4(s: &str) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    for (o, p) in out.iter_mut().zip(parts) {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        *o = u8::try_from(p.parse::<u32>().ok()?).ok()?;
    }
    Some(out)
}

/// MariaDB's text form: the longest run of zero groups (the first of equal runs,
/// even a single group) as `::`; IPv4-compatible (`::1.2.3.4`, when the 7th group is
/// not zero) and IPv4-mapped (`::ffff:1.2.3.4`) addresses end in dotted form.
pub fn inet6_format(b: &[u8; 16]) -> String {
    let w: Vec<u16> = (0..8)
        .map(|i| u16::from_be_bytes([b[i * 2], b[i * 2 + 1]]))
        .collect();
    let v4 = format!("{}.{}.{}.{}", b[12], b[13], b[14], b[15]);
    if w[..6].iter().all(|x| *x == 0) && w[6] != 0 {
        return format!("::{v4}");
    }
    if w[..5].iter().all(|x| *x == 0) && w[5] == 0xffff {
        return format!("::ffff:{v4}");
    }
    let (mut best, mut best_len) = (usize::MAX, 0);
    let mut i = 0;
    while i < 8 {
        if w[i] == 0 {
            let start = i;
            while i < 8 && w[i] == 0 {
                i += 1;
            }
            if i - start > best_len {
                best = start;
                best_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    let hex = |ws: &[u16]| {
        ws.iter()
            .map(|x| format!("{x:x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    if best_len == 0 {
        return hex(&w);
    }
    format!("{}::{}", hex(&w[..best]), hex(&w[best + best_len..]))
}

/// Parses the text of a UUID (`inet6` false) or INET6 (`inet6` true).
pub fn parse(inet6: bool, s: &[u8]) -> Option<[u8; 16]> {
    if inet6 {
        inet6_parse(s)
    } else {
        uuid_parse(s)
    }
}

/// The canonical text of a UUID or INET6.
pub fn format(inet6: bool, b: &[u8; 16]) -> String {
    if inet6 {
        inet6_format(b)
    } else {
        uuid_format(b)
    }
}

/// The canonical text of any accepted text of the type; `None` when invalid.
pub fn canonical(inet6: bool, s: &[u8]) -> Option<String> {
    parse(inet6, s).map(|b| format(inet6, &b))
}

/// The memcmp-ordered key of a value's text (garbage sorts as all zeros).
pub fn sort_key(inet6: bool, s: &[u8]) -> [u8; 16] {
    let b = parse(inet6, s).unwrap_or([0; 16]);
    if inet6 {
        b
    } else {
        uuid_to_record(&b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inet(s: &str) -> String {
        inet6_parse(s.as_bytes())
            .map(|b| inet6_format(&b))
            .unwrap_or("NULL".into())
    }

    #[test]
    fn inet6_forms_as_mariadb() {
        for (i, o) in [
            ("1:0:2:3:4:5:6:7", "1::2:3:4:5:6:7"),
            ("::2", "::2"),
            ("::1:2", "::0.1.0.2"),
            ("::ffff:0:0", "::ffff:0.0.0.0"),
            ("::fffe:1.2.3.4", "::fffe:102:304"),
            ("1::1.2.3.4", "1::102:304"),
            ("::0.0.0.0", "::"),
            ("::0.0.1.0", "::100"),
            ("::ABCD", "::abcd"),
            ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
            ("1:2:3:4:5:6:7:8:9", "NULL"),
            (":1::", "NULL"),
            ("1:::2", "NULL"),
            ("01234::", "NULL"),
            ("::1.2.3", "NULL"),
            ("::1.2.3.256", "NULL"),
            ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
            (" ::1", "NULL"),
            ("1::2::3", "NULL"),
            ("0::0", "::"),
            ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7::"),
            ("::1.02.3.4", "::1.2.3.4"),
            (
                "2001:0db8:0000:0000:0001:0000:0000:0001",
                "2001:db8::1:0:0:1",
            ),
            ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
            ("1.2.3.4", "NULL"),
            ("::", "::"),
            ("::1", "::1"),
        ] {
            assert_eq!(inet(i), o, "{i}");
        }
    }

    #[test]
    fn uuid_forms_and_order() {
        let u = |s: &str| uuid_parse(s.as_bytes()).map(|b| uuid_format(&b));
        let c = "12345678-1234-1234-1234-123456789abc";
        assert_eq!(u(c).as_deref(), Some(c));
        assert_eq!(u("12345678123412341234123456789ABC").as_deref(), Some(c));
        assert_eq!(
            u("1234-5678-1234-1234-1234-1234-5678-9abc").as_deref(),
            Some(c)
        );
        assert_eq!(u("{12345678-1234-1234-1234-123456789abc}"), None);
        assert_eq!(u("-12345678123412341234123456789abc"), None);
        assert_eq!(u("1-2"), None);
        let m = uuid_parse(c.as_bytes()).expect("a valid uuid");
        assert_eq!(uuid_from_record(&uuid_to_record(&m)), m);
    }
}
