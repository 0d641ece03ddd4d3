//! `@@optimizer_switch` and the other variables that steer the planner.
//!
//! The switch holds MariaDB 10.11's flags, in its order and with its defaults;
//! `SET optimizer_switch = 'a=off,b=default'` changes only the flags it names,
//! and `'default'` resets all of them. A flag permits a strategy: Basalt uses the
//! strategies it has when their flags are on, and never those it does not have.
//! The flag that changes Basalt's plans is `join_cache_hashed`: hash joins (and
//! `join_cache_level = 0`, which turns off join buffering altogether, as in
//! MariaDB); Basalt hashes at any other level, where MariaDB needs 3 or more.
//! Derived tables are always materialised, as `derived_merge=off` asks; views
//! merge by their ALGORITHM, which `derived_merge` does not change in MariaDB
//! either.
//!
//! `optimizer_search_depth` bounds the join-order search ([`Planner::search`]).

/// MariaDB 10.11's flags and their defaults, in the order it prints them.
pub const FLAGS: &[(&str, bool)] = &[
    ("index_merge", true),
    ("index_merge_union", true),
    ("index_merge_sort_union", true),
    ("index_merge_intersection", true),
    ("index_merge_sort_intersection", false),
    ("engine_condition_pushdown", false),
    ("index_condition_pushdown", true),
    ("derived_merge", true),
    ("derived_with_keys", true),
    ("firstmatch", true),
    ("loosescan", true),
    ("materialization", true),
    ("in_to_exists", true),
    ("semijoin", true),
    ("partial_match_rowid_merge", true),
    ("partial_match_table_scan", true),
    ("subquery_cache", true),
    ("mrr", false),
    ("mrr_cost_based", false),
    ("mrr_sort_keys", false),
    ("outer_join_with_cache", true),
    ("semijoin_with_cache", true),
    ("join_cache_incremental", true),
    ("join_cache_hashed", true),
    ("join_cache_bka", true),
    ("optimize_join_buffer_size", true),
    ("table_elimination", true),
    ("extended_keys", true),
    ("exists_to_in", true),
    ("orderby_uses_equalities", true),
    ("condition_pushdown_for_derived", true),
    ("split_materialized", true),
    ("condition_pushdown_for_subquery", true),
    ("rowid_filter", true),
    ("condition_pushdown_from_having", true),
    ("not_null_range_scan", false),
    ("hash_join_cardinality", false),
    ("cset_narrowing", false),
];

fn render(on: &[bool]) -> String {
    let mut s = String::with_capacity(900);
    for (i, ((name, _), v)) in FLAGS.iter().zip(on).enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(name);
        s.push_str(if *v { "=on" } else { "=off" });
    }
    s
}

/// The switch with every flag at its default, as `@@optimizer_switch` starts.
pub const DEFAULT: &str = "index_merge=on,index_merge_union=on,index_merge_sort_union=on,index_merge_intersection=on,index_merge_sort_intersection=off,engine_condition_pushdown=off,index_condition_pushdown=on,derived_merge=on,derived_with_keys=on,firstmatch=on,loosescan=on,materialization=on,in_to_exists=on,semijoin=on,partial_match_rowid_merge=on,partial_match_table_scan=on,subquery_cache=on,mrr=off,mrr_cost_based=off,mrr_sort_keys=off,outer_join_with_cache=on,semijoin_with_cache=on,join_cache_incremental=on,join_cache_hashed=on,join_cache_bka=on,optimize_join_buffer_size=on,table_elimination=on,extended_keys=on,exists_to_in=on,orderby_uses_equalities=on,condition_pushdown_for_derived=on,split_materialized=on,condition_pushdown_for_subquery=on,rowid_filter=on,condition_pushdown_from_having=on,not_null_range_scan=off,hash_join_cardinality=off,cset_narrowing=off";

fn read(text: &str) -> Vec<bool> {
    let mut on: Vec<bool> = FLAGS.iter().map(|f| f.1).collect();
    for part in text.split(',') {
        if let Some((name, v)) = part.split_once('=') {
            if let Some(i) = FLAGS.iter().position(|f| f.0 == name) {
                on[i] = v == "on";
            }
        }
    }
    on
}

/// `current` changed as `change` says (`flag=on|off|default`, comma separated,
/// or `default`); the part that is none of these is the error (1231 names it).
pub fn apply(current: &str, change: &str) -> Result<String, String> {
    let mut on = read(current);
    for part in change.split(',') {
        let p = part.trim();
        if p.eq_ignore_ascii_case("default") {
            on = FLAGS.iter().map(|f| f.1).collect();
            continue;
        }
        let parsed = p.split_once('=').and_then(|(name, v)| {
            let i = FLAGS
                .iter()
                .position(|f| f.0.eq_ignore_ascii_case(name.trim()))?;
            let v = match v.trim().to_ascii_lowercase().as_str() {
                "on" => true,
                "off" => false,
                "default" => FLAGS[i].1,
                _ => return None,
            };
            Some((i, v))
        });
        match parsed {
            Some((i, v)) => on[i] = v,
            None => return Err(p.to_string()),
        }
    }
    Ok(render(&on))
}

/// What the planner takes from the session's variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Planner {
    /// Hash joins allowed (`join_cache_hashed=on`, `join_cache_level` > 0).
    pub hash_join: bool,
    /// `optimizer_search_depth` (0: automatic).
    pub search_depth: u8,
}

impl Default for Planner {
    fn default() -> Self {
        Planner {
            hash_join: true,
            search_depth: 62,
        }
    }
}

impl Planner {
    pub fn from_vars(switch: &str, join_cache_level: u64, search_depth: u64) -> Planner {
        let on = read(switch);
        let flag = |name: &str| {
            FLAGS
                .iter()
                .position(|f| f.0 == name)
                .is_some_and(|i| on[i])
        };
        Planner {
            hash_join: join_cache_level > 0 && flag("join_cache_hashed"),
            search_depth: search_depth.min(62) as u8,
        }
    }

    /// How the join order of `n` relations is searched: exhaustively when `n` is
    /// within the search depth (and within [`super::join_order::EXHAUSTIVE`],
    /// beyond which an exhaustive search costs too much), otherwise greedily,
    /// looking ahead as many levels as the depth allows (at most
    /// [`super::join_order::LOOKAHEAD`]). Depth 0 is automatic: exhaustive up to
    /// `EXHAUSTIVE` relations, the full lookahead beyond.
    pub fn search(&self, n: usize) -> Search {
        use super::join_order::{EXHAUSTIVE, LOOKAHEAD};
        let depth = match self.search_depth {
            0 => usize::MAX,
            d => d as usize,
        };
        if n <= depth.min(EXHAUSTIVE) {
            Search::Exhaustive
        } else {
            Search::Greedy {
                lookahead: depth.clamp(1, LOOKAHEAD),
            }
        }
    }
}

/// The join-order search [`Planner::search`] picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    Exhaustive,
    Greedy { lookahead: usize },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_text() -> String {
        let on: Vec<bool> = FLAGS.iter().map(|f| f.1).collect();
        render(&on)
    }

    #[test]
    fn default_lists_every_flag() {
        assert_eq!(default_text(), DEFAULT);
    }

    #[test]
    fn changes_only_named_flags() {
        let d = default_text();
        let s = apply(&d, "mrr=on, derived_merge=off").expect("known flags");
        assert!(s.contains(",mrr=on,"));
        assert!(s.contains(",derived_merge=off,"));
        assert_eq!(s.matches('=').count(), FLAGS.len());
        assert_eq!(apply(&s, "default").expect("default"), d);
        assert_eq!(
            apply(&s, "mrr=default,derived_merge=default").expect("known flags"),
            d
        );
        assert_eq!(apply(&d, "mrr=maybe"), Err("mrr=maybe".into()));
        assert_eq!(apply(&d, "nosuch=on"), Err("nosuch=on".into()));
    }

    #[test]
    fn planner_reads_its_flags() {
        let off = apply(&default_text(), "join_cache_hashed=off").expect("a known flag");
        assert!(!Planner::from_vars(&off, 2, 62).hash_join);
        assert!(!Planner::from_vars(&default_text(), 0, 62).hash_join);
        let p = Planner::from_vars(&default_text(), 2, 62);
        assert_eq!(p, Planner::default());
        assert_eq!(p.search(10), Search::Exhaustive);
        assert_eq!(p.search(11), Search::Greedy { lookahead: 2 });
        let shallow = Planner::from_vars(&default_text(), 2, 1);
        assert_eq!(shallow.search(2), Search::Greedy { lookahead: 1 });
        assert_eq!(shallow.search(1), Search::Exhaustive);
        let auto = Planner::from_vars(&default_text(), 2, 0);
        assert_eq!(auto.search(10), Search::Exhaustive);
    }
}
