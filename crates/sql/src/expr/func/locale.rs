//! Number formats of the locales FORMAT(x, d, locale) knows: the thousands
//! separator, the decimal point and the grouping, as MariaDB's locale tables
//! (sql/sql_locale.cc) define them for the common locales. Other locale names
//! format as `en_US` does; a name that is not a locale at all (no `xx_YY`
//! shape) also gets MariaDB's warning 1649.

/// (thousands separator, decimal point, Indian grouping 3;2).
type Format = (&'static str, char, bool);

fn format_of(name: &str) -> Option<Format> {
    let lower = name.to_ascii_lowercase();
    Some(match lower.as_str() {
        "de_de" | "es_es" | "da_dk" | "nb_no" | "tr_tr" | "uk_ua" | "hu_hu" | "ro_ro" => {
            (".", ',', false)
        }
        "de_at" | "fr_fr" | "fr_ca" | "it_it" | "pt_br" | "pt_pt" | "nl_nl" | "pl_pl" | "el_gr" => {
            ("", ',', false)
        }
        "de_ch" => ("'", '.', false),
        "ru_ru" | "sv_se" | "fi_fi" | "cs_cz" => (" ", ',', false),
        "bg_bg" => ("\0", ',', false),
        "ar_sa" => ("", '.', false),
        "en_in" => (",", '.', true),
        _ => return None,
    })
}

/// Whether a name has a locale's shape (`ll_CC`).
fn looks_like_locale(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() == 5 && b[2] == b'_' && b[..2].iter().chain(&b[3..]).all(u8::is_ascii_alphabetic)
}

/// Rewrites an en_US-formatted number (`-1,234.50`) for `locale`; the second
/// value says the name is unknown (MariaDB warns 1649 and uses en_US).
pub fn localize(en_us: &str, locale: &str) -> (String, bool) {
    let Some((sep, point, indian)) = format_of(locale) else {
        return (en_us.to_string(), !looks_like_locale(locale));
    };
    let (sign, rest) = match en_us.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", en_us),
    };
    let (int, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    let digits: Vec<char> = int.chars().filter(char::is_ascii_digit).collect();
    let mut groups: Vec<String> = Vec::new();
    let mut end = digits.len();
    let mut size = 3;
    while end > 0 {
        let start = end.saturating_sub(size);
        groups.push(digits[start..end].iter().collect());
        end = start;
        if indian {
            size = 2;
        }
    }
    groups.reverse();
    let mut out = format!("{sign}{}", groups.join(sep));
    if let Some(f) = frac {
        out.push(point);
        out.push_str(f);
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::localize;

    #[test]
    fn locales_format_as_mariadb() {
        assert_eq!(localize("1,234,567.89", "de_DE").0, "1.234.567,89");
        assert_eq!(localize("1,234,567.89", "fr_FR").0, "1234567,89");
        assert_eq!(localize("1,234,567.89", "de_CH").0, "1'234'567.89");
        assert_eq!(localize("1,234,567.89", "en_IN").0, "12,34,567.89");
        assert_eq!(localize("-1,234.50", "ru_RU").0, "-1 234,50");
        assert_eq!(localize("1,234.50", "xx"), ("1,234.50".to_string(), true));
        assert_eq!(
            localize("1,234.50", "en_GB"),
            ("1,234.50".to_string(), false)
        );
    }
}
