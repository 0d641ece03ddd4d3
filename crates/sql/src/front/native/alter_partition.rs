//! The partition clauses of ALTER TABLE: `PARTITION BY ...` (after the other
//! clauses, without a comma), and the partition management operations, which
//! stand alone (`ADD PARTITION (...)`, `DROP PARTITION p, q`, `TRUNCATE PARTITION
//! {p, ... | ALL}`, `COALESCE PARTITION n`, `REORGANIZE PARTITION [p, ... INTO
//! (...)]`, `REMOVE PARTITIONING`). Partition definitions are kept as text for the
//! partition parser (`crate::partition`).

use super::{TokKind, P, R};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartitionOp {
    /// `PARTITION BY ...`: the clause's text from `PARTITION`.
    By(String),
    RemovePartitioning,
    /// `ADD PARTITION (PARTITION ...)` (the parenthesised definitions' text) or
    /// `ADD PARTITION PARTITIONS n`.
    Add {
        defs: Option<String>,
        count: Option<u64>,
    },
    Drop {
        names: Vec<String>,
        if_exists: bool,
    },
    /// `None`: ALL.
    Truncate(Option<Vec<String>>),
    Coalesce(u64),
    /// `REORGANIZE PARTITION p, ... INTO (...)`; no names: rebuild as is.
    Reorganize {
        names: Vec<String>,
        into: Option<String>,
    },
    /// What Basalt does not do on partitions (EXCHANGE, ANALYZE / CHECK /
    /// OPTIMIZE / REBUILD / REPAIR PARTITION, DISCARD / IMPORT): 1235 naming it.
    Unsupported(&'static str),
}

/// The index of a top-level `PARTITION BY` at or after the cursor.
pub(super) fn partition_by_at(p: &P) -> Option<usize> {
    let mut depth = 0usize;
    for i in p.pos..p.toks.len() {
        let t = &p.toks[i];
        if t.kind == TokKind::Punct {
            match t.text(p.src) {
                "(" => depth += 1,
                ")" => depth = depth.saturating_sub(1),
                _ => {}
            }
        } else if depth == 0
            && t.is_kw(p.src, "partition")
            && p.toks.get(i + 1).is_some_and(|n| n.is_kw(p.src, "by"))
        {
            return Some(i);
        }
    }
    None
}

/// The source text from token `from` to the end.
fn rest(p: &P, from: usize) -> String {
    p.src[p.toks[from].start..]
        .trim_end()
        .trim_end_matches(';')
        .to_string()
}

/// A management operation at the cursor (the rest of the statement), if one
/// starts there.
pub(super) fn management(p: &mut P) -> R<Option<PartitionOp>> {
    let at = p.pos;
    let word = |p: &P, i: usize, k: &str| p.toks.get(i).is_some_and(|t| t.is_kw(p.src, k));
    let op = if word(p, at, "remove") && word(p, at + 1, "partitioning") {
        p.pos += 2;
        PartitionOp::RemovePartitioning
    } else if word(p, at + 1, "partition") {
        let head = p.toks[at].text(p.src).to_ascii_lowercase();
        p.pos += 2;
        match head.as_str() {
            "add" => add(p)?,
            "drop" => {
                let if_exists = p.kw("if") && {
                    p.expect_kw("exists")?;
                    true
                };
                PartitionOp::Drop {
                    names: names(p)?,
                    if_exists,
                }
            }
            "truncate" => match p.kw("all") {
                true => PartitionOp::Truncate(None),
                false => PartitionOp::Truncate(Some(names(p)?)),
            },
            "coalesce" => PartitionOp::Coalesce(p.uint()?),
            "reorganize" => reorganize(p)?,
            "exchange" => skip(p, "EXCHANGE PARTITION"),
            "analyze" | "check" | "optimize" | "rebuild" | "repair" => {
                skip(p, "maintenance of single partitions")
            }
            "discard" | "import" => skip(p, "DISCARD/IMPORT PARTITION TABLESPACE"),
            _ => {
                p.pos = at;
                return Ok(None);
            }
        }
    } else {
        return Ok(None);
    };
    p.end()?;
    Ok(Some(op))
}

fn skip(p: &mut P, what: &'static str) -> PartitionOp {
    p.pos = p.toks.len();
    PartitionOp::Unsupported(what)
}

fn names(p: &mut P) -> R<Vec<String>> {
    let mut out = vec![p.ident()?];
    while p.punct(",") {
        out.push(p.ident()?);
    }
    Ok(out)
}

/// A parenthesised list of partition definitions at the cursor: its text.
fn defs(p: &mut P) -> R<String> {
    let start = p.pos;
    if !p.punct("(") {
        return Err(p.err());
    }
    let mut depth = 1usize;
    while depth > 0 {
        let t = p.peek().ok_or_else(|| p.err())?;
        if t.kind == TokKind::Punct {
            match t.text(p.src) {
                "(" => depth += 1,
                ")" => depth -= 1,
                _ => {}
            }
        }
        p.pos += 1;
    }
    Ok(p.src[p.toks[start].start..p.toks[p.pos - 1].end].to_string())
}

fn add(p: &mut P) -> R<PartitionOp> {
    if p.kw("partitions") {
        return Ok(PartitionOp::Add {
            defs: None,
            count: Some(p.uint()?),
        });
    }
    Ok(PartitionOp::Add {
        defs: Some(defs(p)?),
        count: None,
    })
}

fn reorganize(p: &mut P) -> R<PartitionOp> {
    if p.peek().is_none() {
        return Ok(PartitionOp::Reorganize {
            names: Vec::new(),
            into: None,
        });
    }
    let names = names(p)?;
    p.expect_kw("into")?;
    Ok(PartitionOp::Reorganize {
        names,
        into: Some(defs(p)?),
    })
}

/// `PARTITION BY ...` from token `at` to the end.
pub(super) fn partition_by(p: &mut P, at: usize) -> PartitionOp {
    let text = rest(p, at);
    p.pos = p.toks.len();
    PartitionOp::By(text)
}

#[cfg(test)]
mod tests {
    use super::super::alter::AlterTable;
    use super::super::{parse_native, Native};
    use super::*;

    fn parse(sql: &str) -> AlterTable {
        let lexed = crate::front::lexer::lex(sql);
        match parse_native(sql, &lexed.tokens, false) {
            Ok(Some(Native::AlterTable(a))) => a,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn management_operations() {
        let op = |sql: &str| parse(sql).partition.expect("a partition clause");
        assert_eq!(
            op("alter table t drop partition p0, p1"),
            PartitionOp::Drop {
                names: vec!["p0".into(), "p1".into()],
                if_exists: false
            }
        );
        assert_eq!(
            op("alter table t add partition (partition p3 values less than (30), partition p4 values less than maxvalue)"),
            PartitionOp::Add {
                defs: Some("(partition p3 values less than (30), partition p4 values less than maxvalue)".into()),
                count: None
            }
        );
        assert_eq!(
            op("alter table t add partition partitions 2"),
            PartitionOp::Add {
                defs: None,
                count: Some(2)
            }
        );
        assert_eq!(
            op("alter table t truncate partition all"),
            PartitionOp::Truncate(None)
        );
        assert_eq!(
            op("alter table t coalesce partition 2"),
            PartitionOp::Coalesce(2)
        );
        assert_eq!(
            op("alter table t remove partitioning"),
            PartitionOp::RemovePartitioning
        );
        assert_eq!(
            op("alter table t reorganize partition a, b into (partition c values in (1))"),
            PartitionOp::Reorganize {
                names: vec!["a".into(), "b".into()],
                into: Some("(partition c values in (1))".into())
            }
        );
        assert_eq!(
            op("alter table t exchange partition p with table u"),
            PartitionOp::Unsupported("EXCHANGE PARTITION")
        );
    }

    #[test]
    fn partition_by_follows_other_clauses() {
        let a = parse(
            "alter table t add column c int, engine=InnoDB partition by hash (a) partitions 3",
        );
        assert_eq!(a.clauses.len(), 2, "{:?}", a.clauses);
        assert_eq!(
            a.partition,
            Some(PartitionOp::By("partition by hash (a) partitions 3".into()))
        );
        let b = parse("alter table t partition by key() partitions 2");
        assert!(b.clauses.is_empty());
        assert_eq!(
            b.partition,
            Some(PartitionOp::By("partition by key() partitions 2".into()))
        );
    }
}
