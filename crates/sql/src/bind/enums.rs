//! The member lists of ENUM and SET column definitions, checked as MariaDB checks
//! them: trailing spaces are cut from each member, two members equal under the
//! column's collation are 1291, a SET member holding ',' is 1367, and a SET has at
//! most 64 members (1097).

use basalt_common::enumset::{MAX_ENUM_MEMBERS, MAX_SET_MEMBERS};
use basalt_common::{Collation, MySqlError};

type R<T> = Result<T, MySqlError>;

/// The members of an ENUM (`is_set` false) or SET column `col`.
pub fn members(names: Vec<String>, coll: Collation, col: &str, is_set: bool) -> R<Vec<String>> {
    let kind = if is_set { "SET" } else { "ENUM" };
    let limit = if is_set {
        MAX_SET_MEMBERS
    } else {
        MAX_ENUM_MEMBERS
    };
    if names.len() > limit {
        return Err(MySqlError::new(
            1097,
            "HY000",
            format!("Too many strings for column {col} and {kind}"),
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        let n = n.trim_end_matches(' ').to_string();
        if is_set && n.contains(',') {
            return Err(MySqlError::new(
                1367,
                "22007",
                format!("Illegal set '{n}' value found during parsing"),
            ));
        }
        // MariaDB names the earlier of the two members.
        if let Some(m) = out
            .iter()
            .find(|m| coll.compare(m.as_bytes(), n.as_bytes()).is_eq())
        {
            return Err(MySqlError::new(
                1291,
                "HY000",
                format!("Column '{col}' has duplicated value '{m}' in {kind}"),
            ));
        }
        out.push(n);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_under_the_collation() {
        let ci = Collation::Utf8mb4GeneralCi;
        let e = members(vec!["a".into(), "A".into()], ci, "e", false).unwrap_err();
        assert_eq!(e.code, 1291);
        assert_eq!(e.message, "Column 'e' has duplicated value 'a' in ENUM");
        let ok = members(
            vec!["a ".into(), "A".into()],
            Collation::Utf8mb4Bin,
            "e",
            false,
        );
        assert_eq!(ok.expect("distinct"), vec!["a".to_string(), "A".into()]);
        let e = members(vec!["a,b".into()], ci, "s", true).unwrap_err();
        assert_eq!(e.code, 1367);
    }
}
