//! `ALTER [ONLINE] [IGNORE] TABLE [IF EXISTS] name clause [, clause ...]`, split into its
//! clauses as MariaDB's grammar has them.
//!
//! Column definitions and key/constraint definitions are kept as text: the binder
//! parses them with the same code CREATE TABLE uses, so an ALTER accepts exactly
//! what CREATE TABLE accepts. Clauses MariaDB has and Basalt does not carry out
//! become [`Clause::Unsupported`] (1235 naming them), never a silent OK.

use super::{unquote, TokKind, P, R};

/// Where ADD / MODIFY / CHANGE put the column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Position {
    First,
    After(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Clause {
    /// `ADD [COLUMN] [IF NOT EXISTS] coldef [FIRST | AFTER c]`.
    AddColumn {
        def: String,
        position: Option<Position>,
        if_not_exists: bool,
    },
    /// `DROP [COLUMN] [IF EXISTS] c`.
    DropColumn {
        name: String,
        if_exists: bool,
    },
    /// `MODIFY [COLUMN] [IF EXISTS] coldef [pos]` (`old` None) or
    /// `CHANGE [COLUMN] [IF EXISTS] old coldef [pos]`.
    Change {
        old: Option<String>,
        def: String,
        position: Option<Position>,
        if_exists: bool,
    },
    RenameColumn {
        old: String,
        new: String,
    },
    /// `ALTER [COLUMN] c SET DEFAULT expr` (`Some`) / `DROP DEFAULT` (`None`).
    Default {
        column: String,
        expr: Option<String>,
    },
    /// `ADD {INDEX | KEY | UNIQUE | PRIMARY KEY | CONSTRAINT ... | CHECK ...}`: the text
    /// after ADD, a table constraint as CREATE TABLE writes it.
    AddConstraint {
        def: String,
        if_not_exists: bool,
    },
    /// `DROP {INDEX | KEY} [IF EXISTS] name`.
    DropIndex {
        name: String,
        if_exists: bool,
    },
    DropPrimaryKey,
    /// `DROP CONSTRAINT [IF EXISTS] name` (a CHECK, or a UNIQUE key).
    DropConstraint {
        name: String,
        if_exists: bool,
    },
    /// `DROP FOREIGN KEY [IF EXISTS] name`.
    DropForeignKey {
        name: String,
        if_exists: bool,
    },
    /// `RENAME {INDEX | KEY} old TO new`.
    RenameIndex {
        old: String,
        new: String,
    },
    /// `RENAME [TO | AS] [db.]name`.
    RenameTable {
        db: Option<String>,
        name: String,
    },
    /// A table option (`ENGINE`, `COMMENT`, `AUTO_INCREMENT`, `ROW_FORMAT`, ...): its
    /// upper-case name and value.
    Option {
        key: String,
        value: String,
    },
    Algorithm(String),
    Lock(String),
    Force,
    /// `CONVERT TO {CHARACTER SET | CHARSET} {cs | DEFAULT} [COLLATE c]`: the
    /// character set (`None`: DEFAULT, the database's) and collation names.
    ConvertTo {
        charset: Option<String>,
        collation: Option<String>,
    },
    /// `ORDER BY ...` (the columns are not kept: it only has an effect on a table
    /// without a primary key, which Basalt refuses).
    OrderBy,
    Unsupported(&'static str),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlterTable {
    pub db: Option<String>,
    pub table: String,
    pub if_exists: bool,
    /// ALTER IGNORE: rows clashing in a unique key are left out of the copy and
    /// conversion errors are warnings.
    pub ignore: bool,
    pub clauses: Vec<Clause>,
    /// A partition clause (`PARTITION BY`, after the others, or a management
    /// operation, alone).
    pub partition: Option<super::alter_partition::PartitionOp>,
}

/// Parses the statement after `ALTER` (`None` when it is not ALTER TABLE).
pub(super) fn alter_table(p: &mut P) -> R<Option<AlterTable>> {
    // ONLINE is LOCK=NONE (MariaDB).
    let online = p.kw("online");
    let ignore = p.kw("ignore");
    if !p.kw("table") {
        return Ok(None);
    }
    let if_exists = p.kw("if") && {
        p.expect_kw("exists")?;
        true
    };
    let (db, table) = p.qualified()?;
    let full = p.toks;
    let mut clauses = Vec::new();
    if online {
        clauses.push(Clause::Lock("NONE".into()));
    }
    let mut partition = super::alter_partition::management(p)?;
    let by = partition
        .is_none()
        .then(|| super::alter_partition::partition_by_at(p))
        .flatten();
    if partition.is_some() || p.peek().is_none() || by == Some(p.pos) {
        if let Some(at) = by {
            partition = Some(super::alter_partition::partition_by(p, at));
        }
        return Ok(Some(AlterTable {
            db,
            table,
            if_exists,
            ignore,
            clauses,
            partition,
        }));
    }
    // The clauses before a trailing PARTITION BY.
    let toks = &p.toks[..by.unwrap_or(p.toks.len())];
    let mut q = P {
        src: p.src,
        toks,
        pos: p.pos,
        markers: p.markers,
    };
    let p = &mut q;
    loop {
        let end = clause_end(p);
        clauses.push(clause(p, end)?);
        if p.pos != end {
            return Err(p.err());
        }
        if p.peek().is_none() {
            break;
        }
        if !p.punct(",") {
            return Err(p.err());
        }
        if let (None, Some(at)) = (p.peek(), by) {
            // `..., PARTITION BY`: the partition clause takes no comma.
            return Err(super::near_offset(p.src, full[at].start));
        }
    }
    if let Some(at) = by {
        let mut whole = P {
            src: p.src,
            toks: full,
            pos: at,
            markers: p.markers,
        };
        partition = Some(super::alter_partition::partition_by(&mut whole, at));
    }
    Ok(Some(AlterTable {
        db,
        table,
        if_exists,
        ignore,
        clauses,
        partition,
    }))
}

/// The token index of the comma (outside parentheses) or end closing the clause.
fn clause_end(p: &P) -> usize {
    let mut depth = 0usize;
    for (i, t) in p.toks.iter().enumerate().skip(p.pos) {
        if t.kind == TokKind::Punct {
            match t.text(p.src) {
                "(" => depth += 1,
                ")" => depth = depth.saturating_sub(1),
                "," if depth == 0 => return i,
                _ => {}
            }
        }
    }
    p.toks.len()
}

/// The source text of tokens `from..to`.
fn text(p: &P, from: usize, to: usize) -> String {
    if from >= to {
        return String::new();
    }
    p.src[p.toks[from].start..p.toks[to - 1].end].to_string()
}

fn if_exists(p: &mut P) -> R<bool> {
    if p.kw("if") {
        p.expect_kw("exists")?;
        return Ok(true);
    }
    Ok(false)
}

fn if_not_exists(p: &mut P) -> R<bool> {
    if p.kw("if") {
        p.expect_kw("not")?;
        p.expect_kw("exists")?;
        return Ok(true);
    }
    Ok(false)
}

/// A column definition up to `end`, without its trailing FIRST / AFTER c.
fn column_tail(p: &mut P, end: usize) -> R<(String, Option<Position>)> {
    let start = p.pos;
    let kw = |i: usize, k: &str| i >= start && i < end && p.toks[i].is_kw(p.src, k);
    let (stop, position) = if end > start + 1 && kw(end - 1, "first") {
        (end - 1, Some(Position::First))
    } else if end > start + 2 && kw(end - 2, "after") {
        let mut q = P {
            src: p.src,
            toks: p.toks,
            pos: end - 1,
            markers: p.markers,
        };
        (end - 2, Some(Position::After(q.ident()?)))
    } else {
        (end, None)
    };
    if stop <= start {
        return Err(p.err());
    }
    p.pos = end;
    Ok((text(p, start, stop), position))
}

fn clause(p: &mut P, end: usize) -> R<Clause> {
    let first = p.peek().ok_or_else(|| p.err())?;
    let word = first.text(p.src).to_ascii_lowercase();
    p.pos += 1;
    let c = match word.as_str() {
        "add" => add(p, end)?,
        "drop" => drop(p)?,
        "modify" => {
            p.kw("column");
            let if_exists = if_exists(p)?;
            let (def, position) = column_tail(p, end)?;
            Clause::Change {
                old: None,
                def,
                position,
                if_exists,
            }
        }
        "change" => {
            p.kw("column");
            let if_exists = if_exists(p)?;
            let old = Some(p.ident()?);
            let (def, position) = column_tail(p, end)?;
            Clause::Change {
                old,
                def,
                position,
                if_exists,
            }
        }
        "rename" => rename(p)?,
        "alter" => {
            p.kw("column");
            let column = p.ident()?;
            if p.kw("set") {
                p.expect_kw("default")?;
                let start = p.pos;
                p.pos = end;
                Clause::Default {
                    column,
                    expr: Some(text(p, start, end)),
                }
            } else {
                p.expect_kw("drop")?;
                p.expect_kw("default")?;
                Clause::Default { column, expr: None }
            }
        }
        "algorithm" => {
            p.punct("=");
            Clause::Algorithm(p.ident()?.to_ascii_uppercase())
        }
        "lock" => {
            p.punct("=");
            Clause::Lock(p.ident()?.to_ascii_uppercase())
        }
        "force" => Clause::Force,
        "convert" => convert(p)?,
        "order" => {
            p.expect_kw("by")?;
            p.pos = end;
            Clause::OrderBy
        }
        "disable" | "enable" => skip(p, end, "DISABLE/ENABLE KEYS with other ALTER clauses"),
        "partition" | "remove" | "coalesce" | "reorganize" | "exchange" | "truncate"
        | "analyze" | "check" | "optimize" | "rebuild" | "repair" | "discard" | "import" => {
            skip(p, end, "partitioning")
        }
        _ => {
            p.pos -= 1;
            table_option(p)?
        }
    };
    Ok(c)
}

/// `CONVERT TO {CHARACTER SET | CHARSET} {cs | DEFAULT} [COLLATE c]`, after CONVERT.
fn convert(p: &mut P) -> R<Clause> {
    p.expect_kw("to")?;
    if p.kw("character") {
        p.expect_kw("set")?;
    } else {
        p.expect_kw("charset")?;
    }
    let name = |p: &mut P| -> R<String> {
        let t = p.peek().ok_or_else(|| p.err())?;
        if t.kind != TokKind::Str {
            return p.ident();
        }
        let v = String::from_utf8_lossy(&unquote(t.text(p.src), true)).into_owned();
        p.pos += 1;
        Ok(v)
    };
    let charset = if p.kw("default") {
        None
    } else {
        Some(name(p)?)
    };
    let collation = if p.kw("collate") {
        Some(name(p)?)
    } else {
        None
    };
    Ok(Clause::ConvertTo { charset, collation })
}

fn skip(p: &mut P, end: usize, what: &'static str) -> Clause {
    p.pos = end;
    Clause::Unsupported(what)
}

fn add(p: &mut P, end: usize) -> R<Clause> {
    let next = |p: &P, k: &str| p.peek().is_some_and(|t| t.is_kw(p.src, k));
    if next(p, "partition") {
        return Ok(skip(p, end, "partitioning"));
    }
    let constraint = [
        "index",
        "key",
        "unique",
        "primary",
        "constraint",
        "check",
        "fulltext",
        "spatial",
        "foreign",
    ]
    .iter()
    .any(|k| next(p, k));
    if constraint {
        let start = p.pos;
        let kw = |i: usize, k: &str| p.toks[i].is_kw(p.src, k);
        let paren = (start..end)
            .find(|&i| p.toks[i].kind == TokKind::Punct && p.toks[i].text(p.src) == "(")
            .unwrap_or(end);
        // ADD {INDEX|KEY|UNIQUE ...} IF NOT EXISTS name: MariaDB's form.
        let ine = (start..paren.saturating_sub(2))
            .find(|&i| kw(i, "if") && kw(i + 1, "not") && kw(i + 2, "exists"));
        let def = match ine {
            Some(at) => format!("{} {}", text(p, start, at), text(p, at + 3, end)),
            None => text(p, start, end),
        };
        p.pos = end;
        return Ok(Clause::AddConstraint {
            def,
            if_not_exists: ine.is_some(),
        });
    }
    p.kw("column");
    let if_not_exists = if_not_exists(p)?;
    if p.punct("(") {
        return Ok(Clause::Unsupported("ALTER TABLE ... ADD (column list)"));
    }
    let (def, position) = column_tail(p, end)?;
    Ok(Clause::AddColumn {
        def,
        position,
        if_not_exists,
    })
}

fn drop(p: &mut P) -> R<Clause> {
    if p.kw("index") || p.kw("key") {
        let if_exists = if_exists(p)?;
        return Ok(Clause::DropIndex {
            name: p.ident()?,
            if_exists,
        });
    }
    if p.kw("primary") {
        p.expect_kw("key")?;
        return Ok(Clause::DropPrimaryKey);
    }
    if p.kw("foreign") {
        p.expect_kw("key")?;
        let if_exists = if_exists(p)?;
        return Ok(Clause::DropForeignKey {
            name: p.ident()?,
            if_exists,
        });
    }
    if p.kw("constraint") {
        let if_exists = if_exists(p)?;
        return Ok(Clause::DropConstraint {
            name: p.ident()?,
            if_exists,
        });
    }
    if p.peek().is_some_and(|t| t.is_kw(p.src, "partition")) {
        p.pos = p.toks.len().min(clause_end(p));
        return Ok(Clause::Unsupported("partitioning"));
    }
    p.kw("column");
    let if_exists = if_exists(p)?;
    let name = p.ident()?;
    p.kw("restrict");
    p.kw("cascade");
    Ok(Clause::DropColumn { name, if_exists })
}

fn rename(p: &mut P) -> R<Clause> {
    if p.kw("column") {
        let old = p.ident()?;
        p.expect_kw("to")?;
        let new = p.ident()?;
        return Ok(Clause::RenameColumn { old, new });
    }
    if p.kw("index") || p.kw("key") {
        let old = p.ident()?;
        p.expect_kw("to")?;
        let new = p.ident()?;
        return Ok(Clause::RenameIndex { old, new });
    }
    if !p.kw("to") {
        p.kw("as");
    }
    let (db, name) = p.qualified()?;
    Ok(Clause::RenameTable { db, name })
}

/// `[DEFAULT] name [=] value`.
fn table_option(p: &mut P) -> R<Clause> {
    p.kw("default");
    let mut key = p.ident()?.to_ascii_uppercase();
    if key == "CHARACTER" {
        p.expect_kw("set")?;
        key = "CHARACTER SET".into();
    }
    let known = [
        "ENGINE",
        "COMMENT",
        "AUTO_INCREMENT",
        "CHARSET",
        "CHARACTER SET",
        "COLLATE",
        "ROW_FORMAT",
        "KEY_BLOCK_SIZE",
        "MAX_ROWS",
        "MIN_ROWS",
        "AVG_ROW_LENGTH",
        "PACK_KEYS",
        "CHECKSUM",
        "TABLE_CHECKSUM",
        "DELAY_KEY_WRITE",
        "PAGE_CHECKSUM",
        "PAGE_COMPRESSED",
        "PAGE_COMPRESSION_LEVEL",
        "STATS_AUTO_RECALC",
        "STATS_PERSISTENT",
        "STATS_SAMPLE_PAGES",
        "TRANSACTIONAL",
        "INSERT_METHOD",
        "ENCRYPTED",
        "ENCRYPTION_KEY_ID",
    ];
    if !known.contains(&key.as_str()) {
        p.pos -= 1;
        return Err(p.err());
    }
    p.punct("=");
    let t = p.peek().ok_or_else(|| p.err())?;
    let value = match t.kind {
        TokKind::Str => String::from_utf8_lossy(&unquote(t.text(p.src), true)).into_owned(),
        _ => t.text(p.src).to_string(),
    };
    p.pos += 1;
    Ok(Clause::Option { key, value })
}

#[cfg(test)]
mod tests {
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
    fn clauses_split_at_top_level_commas() {
        let a = parse(
            "ALTER TABLE d.t ADD COLUMN c decimal(10,2) NOT NULL DEFAULT 0 AFTER b, \
             ADD UNIQUE KEY IF NOT EXISTS u (a, b), MODIFY x int FIRST, \
             RENAME INDEX i TO j, ENGINE = MEMORY, COMMENT 'a, b', ALGORITHM=COPY",
        );
        assert_eq!(a.db.as_deref(), Some("d"));
        assert_eq!(
            a.clauses,
            vec![
                Clause::AddColumn {
                    def: "c decimal(10,2) NOT NULL DEFAULT 0".into(),
                    position: Some(Position::After("b".into())),
                    if_not_exists: false,
                },
                Clause::AddConstraint {
                    def: "UNIQUE KEY u (a, b)".into(),
                    if_not_exists: true,
                },
                Clause::Change {
                    old: None,
                    def: "x int".into(),
                    position: Some(Position::First),
                    if_exists: false,
                },
                Clause::RenameIndex {
                    old: "i".into(),
                    new: "j".into(),
                },
                Clause::Option {
                    key: "ENGINE".into(),
                    value: "MEMORY".into(),
                },
                Clause::Option {
                    key: "COMMENT".into(),
                    value: "a, b".into(),
                },
                Clause::Algorithm("COPY".into()),
            ]
        );
    }

    #[test]
    fn forms_not_carried_out_are_named() {
        let sql = "alter table t add column c int, drop partition p1";
        assert!(parse(sql)
            .clauses
            .contains(&Clause::Unsupported("partitioning")));
        assert!(parse("alter ignore table t add unique (a)").ignore);
        assert!(parse("alter online table t add c int")
            .clauses
            .contains(&Clause::Lock("NONE".into())));
    }
}
