//! LIKE pattern matching: `%` any run, `_` one character, an escape character
//! (default `\`) making the next one literal. Characters compare one by one by
//! their collation weights (`'é' LIKE 'e'` under `_general_ci`), without PAD SPACE.

use basalt_common::Collation;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pat {
    Any,
    One,
    Lit(u64),
}

/// The unit a pattern character and a text character compare by: the byte for
/// binary strings, else the collation's [`Collation::like_key`].
fn fold(c: u32, coll: Collation) -> u64 {
    if coll.is_binary() {
        c as u64
    } else {
        coll.like_key(c)
    }
}

fn units(s: &[u8], binary: bool) -> Vec<u32> {
    if binary {
        return s.iter().map(|&b| b as u32).collect();
    }
    String::from_utf8_lossy(s)
        .chars()
        .map(|c| c as u32)
        .collect()
}

fn compile(p: &[u8], escape: Option<u8>, coll: Collation) -> Vec<Pat> {
    let binary = coll.is_binary();
    let chars = units(p, binary);
    let esc = escape.map(|e| e as u32);
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if Some(c) == esc && i + 1 < chars.len() {
            out.push(Pat::Lit(fold(chars[i + 1], coll)));
            i += 2;
            continue;
        }
        out.push(match c {
            0x25 => Pat::Any,
            0x5F => Pat::One,
            _ => Pat::Lit(fold(c, coll)),
        });
        i += 1;
    }
    out
}

/// True when `s` matches `pattern`.
pub fn matches(s: &[u8], pattern: &[u8], escape: Option<u8>, coll: Collation) -> bool {
    let pat = compile(pattern, escape, coll);
    let text: Vec<u64> = units(s, coll.is_binary())
        .into_iter()
        .map(|c| fold(c, coll))
        .collect();
    glob(&text, &pat)
}

/// Iterative wildcard matching with single backtrack point (linear for one `%`
/// at a time, as the classic algorithm).
fn glob(text: &[u64], pat: &[Pat]) -> bool {
    let (mut t, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pat.get(p) {
            Some(Pat::Any) => {
                star = Some((p, t));
                p += 1;
            }
            Some(Pat::One) => {
                t += 1;
                p += 1;
            }
            Some(Pat::Lit(c)) if *c == text[t] => {
                t += 1;
                p += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pat[p..].iter().all(|x| *x == Pat::Any)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str, p: &str) -> bool {
        matches(
            s.as_bytes(),
            p.as_bytes(),
            Some(b'\\'),
            Collation::Utf8mb4GeneralCi,
        )
    }

    #[test]
    fn wildcards() {
        assert!(m("hello", "h%o"));
        assert!(m("hello", "HE_LO"));
        assert!(m("hello", "%"));
        assert!(!m("hello", "h%x"));
        assert!(m("", "%"));
        assert!(!m("", "_"));
        assert!(m("a%b", "a\\%b"));
        assert!(!m("axb", "a\\%b"));
        assert!(m("abcabd", "%abd"));
        assert!(!m("abc ", "abc"));
    }

    #[test]
    fn binary_is_case_sensitive() {
        assert!(!matches(b"Hello", b"hello", Some(b'\\'), Collation::Binary));
        assert!(!matches(
            b"Hello",
            b"hello",
            Some(b'\\'),
            Collation::Utf8mb4Bin
        ));
    }
}
