//! FOREIGN KEY definitions in CREATE TABLE and ALTER TABLE: from the parsed clause
//! to a [`ForeignKeyDef`], with InnoDB's validation and MariaDB's errors.
//!
//! Both `FOREIGN KEY (cols) REFERENCES p (cols)` and a column's `REFERENCES p (c)`
//! define a constraint (MariaDB 10.5+ honours the column form too). An unqualified
//! parent is in the child's database. Unnamed constraints are named
//! `<table>_ibfk_<n>`, n one past the largest such number the table has.
//!
//! Validation, as InnoDB's `dict_create_foreign_constraints` and
//! `dict_foreign_find_index` do it; every failure is 1005 with errno 150:
//! the parent table exists, has the named columns and an index whose leading
//! columns are exactly them; each child column's type matches its parent column
//! (integers of the same size and signedness, strings of the same collation, other
//! types equal); SET NULL is not asked of a NOT NULL column. With
//! `foreign_key_checks=0` a missing parent table is accepted (dumps create children
//! first). Names are unique per database (errno 121). The child columns get an
//! index when no index starts with them, named after the constraint when it was
//! named, else after its first column.

use crate::session::ctx::SessionCtx;
use basalt_common::{
    ColumnDef, DataType, FkAction, ForeignKeyDef, IndexColumn, IndexDef, IndexKind, MySqlError,
    TableDef,
};
use sqlparser::ast::{self, ReferentialAction};

type R<T> = Result<T, MySqlError>;

/// A constraint as written, before it is checked against the tables.
#[derive(Clone, Debug)]
pub struct FkSpec {
    /// `CONSTRAINT name`.
    pub name: Option<String>,
    /// `FOREIGN KEY index_name (...)`.
    pub index_name: Option<String>,
    pub columns: Vec<String>,
    /// The parent's database when written (`REFERENCES db.p`).
    pub parent_schema: Option<String>,
    pub parent_table: String,
    pub parent_columns: Vec<String>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
}

/// What a CREATE or ALTER adds: the constraints, and the indexes the child
/// columns need (column ordinals into the child's columns, unnamed when the
/// caller names them).
pub struct Resolved {
    pub keys: Vec<ForeignKeyDef>,
    pub indexes: Vec<IndexDef>,
}

fn action(a: Option<ReferentialAction>) -> FkAction {
    match a {
        Some(ReferentialAction::Cascade) => FkAction::Cascade,
        Some(ReferentialAction::SetNull) => FkAction::SetNull,
        Some(ReferentialAction::NoAction) => FkAction::NoAction,
        // InnoDB stores SET DEFAULT as RESTRICT (MariaDB 10.11, no warning).
        Some(ReferentialAction::Restrict | ReferentialAction::SetDefault) | None => {
            FkAction::Restrict
        }
    }
}

/// The clause as written; `column` for the column form (`c INT REFERENCES p (id)`).
pub fn spec(fk: &ast::ForeignKeyConstraint, column: Option<&str>) -> R<FkSpec> {
    let parts = super::object_parts(&fk.foreign_table);
    let (parent_schema, parent_table) = match parts.as_slice() {
        [t] => (None, t.clone()),
        [d, t] => (Some(d.clone()), t.clone()),
        _ => return Err(MySqlError::parse_error(&fk.foreign_table.to_string(), 1)),
    };
    let columns = match column {
        Some(c) => vec![c.to_string()],
        None => fk.columns.iter().map(|i| i.value.clone()).collect(),
    };
    Ok(FkSpec {
        name: fk.name.as_ref().map(|i| i.value.clone()),
        index_name: fk.index_name.as_ref().map(|i| i.value.clone()),
        columns,
        parent_schema,
        parent_table,
        parent_columns: fk
            .referred_columns
            .iter()
            .map(|i| i.value.clone())
            .collect(),
        on_delete: action(fk.on_delete),
        on_update: action(fk.on_update),
    })
}

/// The constraints of a CREATE TABLE: column-level ones in column order, then the
/// table-level ones.
pub fn specs_of_create(ct: &ast::CreateTable) -> R<Vec<FkSpec>> {
    let mut out = Vec::new();
    for c in &ct.columns {
        for o in &c.options {
            if let ast::ColumnOption::ForeignKey(fk) = &o.option {
                out.push(spec(fk, Some(&c.name.value))?);
            }
        }
    }
    for tc in &ct.constraints {
        if let ast::TableConstraint::ForeignKey(fk) = tc {
            out.push(spec(fk, None)?);
        }
    }
    Ok(out)
}

/// 1005 with InnoDB's errno 150.
pub fn incorrectly_formed(db: &str, table: &str) -> MySqlError {
    MySqlError::new(
        1005,
        "HY000",
        format!(
            "Can't create table `{db}`.`{table}` (errno: 150 \"Foreign key constraint is incorrectly formed\")"
        ),
    )
}

fn duplicate_name(db: &str, table: &str) -> MySqlError {
    MySqlError::new(
        1005,
        "HY000",
        format!(
            "Can't create table `{db}`.`{table}` (errno: 121 \"Duplicate key on write or update\")"
        ),
    )
}

/// True when an index of `indexes` starts with exactly `cols` (ordinals, in order)
/// without prefix parts: the index a foreign key can use.
pub fn index_starts_with(indexes: &[IndexDef], cols: &[usize]) -> bool {
    indexes.iter().any(|i| {
        i.columns.len() >= cols.len()
            && i.columns
                .iter()
                .zip(cols)
                .all(|(k, c)| k.column == *c && k.prefix_len.is_none())
    })
}

/// Whether a child column of type `a` may reference a parent column of type `b`.
fn compatible(a: &DataType, b: &DataType) -> bool {
    use DataType as D;
    match (a, b) {
        (D::Int { .. }, D::Int { .. }) => a.same_storage(b),
        (
            D::Char { collation: c1, .. } | D::VarChar { collation: c1, .. },
            D::Char { collation: c2, .. } | D::VarChar { collation: c2, .. },
        ) => c1 == c2,
        _ => a == b,
    }
}

/// The table a constraint's parent is checked against: the child itself for a
/// self-reference, else the stored parent (None when it does not exist).
struct Parent {
    columns: Vec<ColumnDef>,
    indexes: Vec<IndexDef>,
}

/// The child table being created or altered.
pub struct Child<'a> {
    pub schema: &'a str,
    pub name: &'a str,
    /// Its final columns.
    pub columns: &'a [ColumnDef],
    /// Its keys, with ordinals into `columns`.
    pub indexes: &'a [IndexDef],
    /// Its constraints that stay.
    pub existing: &'a [ForeignKeyDef],
}

/// Checks `specs` for `child` and names them.
pub fn resolve(cx: &SessionCtx, child: &Child, specs: &[FkSpec]) -> R<Resolved> {
    let (db, table) = (child.schema, child.name);
    let (indexes, existing) = (child.indexes, child.existing);
    let checks = cx.var_bool("foreign_key_checks");
    let index = cx.engine.storage.foreign_keys();
    let mut next = next_ibfk(table, existing);
    let mut out = Resolved {
        keys: Vec::new(),
        indexes: Vec::new(),
    };
    for s in specs {
        let cols = child_ordinals(s, child.columns)?;
        if s.parent_columns.len() != cols.len() {
            return Err(MySqlError::new(
                1239,
                "42000",
                format!(
                    "Incorrect foreign key definition for '{}': Key reference and table reference don't match",
                    s.name.as_deref().or(s.index_name.as_deref()).unwrap_or("foreign key without name")
                ),
            ));
        }
        let parent_schema = s.parent_schema.clone().unwrap_or_else(|| db.to_string());
        let parent = if parent_schema == db && s.parent_table == table {
            Some(Parent {
                columns: child.columns.to_vec(),
                indexes: indexes.to_vec(),
            })
        } else {
            cx.engine
                .storage
                .table(&parent_schema, &s.parent_table)
                .map(|t| {
                    let d = t.def();
                    if d.partitioning.is_some() {
                        // MariaDB: a partitioned table is no foreign key's parent.
                        return Err(incorrectly_formed(db, table));
                    }
                    Ok(Parent {
                        columns: d.columns.clone(),
                        indexes: d.indexes.clone(),
                    })
                })
                .transpose()?
        };
        match parent {
            Some(p) => check_parent(s, &cols, child, &p)?,
            None if checks => return Err(incorrectly_formed(db, table)),
            None => {}
        }
        if (s.on_delete == FkAction::SetNull || s.on_update == FkAction::SetNull)
            && cols.iter().any(|&c| !child.columns[c].nullable)
        {
            return Err(incorrectly_formed(db, table));
        }
        let name = match s.name.clone().or_else(|| s.index_name.clone()) {
            Some(n) => n,
            None => {
                next += 1;
                format!("{table}_ibfk_{next}")
            }
        };
        let taken_here = existing
            .iter()
            .chain(&out.keys)
            .any(|k| k.name.eq_ignore_ascii_case(&name));
        let taken_elsewhere = index.as_ref().is_some_and(|i| i.name_taken(db, &name))
            && !existing.iter().any(|k| k.name.eq_ignore_ascii_case(&name));
        if taken_here || taken_elsewhere {
            return Err(duplicate_name(db, table));
        }
        let mut all = indexes.to_vec();
        all.extend(out.indexes.iter().cloned());
        if !index_starts_with(&all, &cols) {
            out.indexes.push(IndexDef {
                id: 0,
                name: s
                    .name
                    .clone()
                    .or_else(|| s.index_name.clone())
                    .unwrap_or_default(),
                kind: IndexKind::NonUnique,
                columns: cols
                    .iter()
                    .map(|&c| IndexColumn {
                        column: c,
                        prefix_len: None,
                        descending: false,
                    })
                    .collect(),
                comment: String::new(),
            });
        }
        out.keys.push(ForeignKeyDef {
            name,
            columns: cols
                .iter()
                .map(|&c| child.columns[c].name.clone())
                .collect(),
            parent_schema,
            parent_table: s.parent_table.clone(),
            parent_columns: s.parent_columns.clone(),
            on_delete: s.on_delete,
            on_update: s.on_update,
        });
    }
    Ok(out)
}

fn child_ordinals(s: &FkSpec, columns: &[ColumnDef]) -> R<Vec<usize>> {
    s.columns
        .iter()
        .map(|n| {
            columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(n))
                .ok_or_else(|| MySqlError::key_column_does_not_exist(n))
        })
        .collect()
}

fn check_parent(s: &FkSpec, cols: &[usize], child: &Child, p: &Parent) -> R<()> {
    let bad = || incorrectly_formed(child.schema, child.name);
    let mut pcols = Vec::with_capacity(cols.len());
    for (name, &c) in s.parent_columns.iter().zip(cols) {
        let pc = p
            .columns
            .iter()
            .position(|x| x.name.eq_ignore_ascii_case(name))
            .ok_or_else(bad)?;
        if !compatible(&child.columns[c].data_type, &p.columns[pc].data_type) {
            return Err(bad());
        }
        pcols.push(pc);
    }
    if !index_starts_with(&p.indexes, &pcols) {
        return Err(bad());
    }
    Ok(())
}

/// The largest n of the table's `<table>_ibfk_<n>` names.
fn next_ibfk(table: &str, existing: &[ForeignKeyDef]) -> u32 {
    let prefix = format!("{table}_ibfk_").to_ascii_lowercase();
    existing
        .iter()
        .filter_map(|k| {
            let n = k.name.to_ascii_lowercase();
            n.strip_prefix(&prefix)?.parse::<u32>().ok()
        })
        .max()
        .unwrap_or(0)
}

/// 1553: `index` is the only one a foreign key can use, so it cannot go.
pub fn needed_index(index: &str) -> MySqlError {
    MySqlError::new(
        1553,
        "HY000",
        format!("Cannot drop index '{index}': needed in a foreign key constraint"),
    )
}

/// The child-side ordinals of a stored constraint in `def` (None when a column
/// is missing).
pub fn ordinals(names: &[String], def: &TableDef) -> Option<Vec<usize>> {
    names.iter().map(|n| def.column_index(n)).collect()
}

/// 1451 when a table of `names` (dropped in this order) is referenced by a table
/// that is neither itself nor dropped before it, as MariaDB's DROP TABLE answers
/// while `foreign_key_checks` is on.
pub fn check_drop(cx: &SessionCtx, names: &[(String, String)]) -> R<()> {
    if !cx.var_bool("foreign_key_checks") {
        return Ok(());
    }
    let Some(index) = cx.engine.storage.foreign_keys() else {
        return Ok(());
    };
    for (i, (d, t)) in names.iter().enumerate() {
        for c in index.children(d, t) {
            let (cd, ct) = (&c.def.schema, &c.def.name);
            let gone = (cd == d && ct == t) || names[..i].iter().any(|(a, b)| a == cd && b == ct);
            if !gone {
                return Err(MySqlError::new(
                    1451,
                    "23000",
                    "Cannot delete or update a parent row: a foreign key constraint fails",
                ));
            }
        }
    }
    Ok(())
}

/// 1091 for DROP FOREIGN KEY of a name the table does not have.
pub fn cant_drop(name: &str) -> MySqlError {
    MySqlError::new(
        1091,
        "42000",
        format!("Can't DROP FOREIGN KEY `{name}`; check that it exists"),
    )
}

/// The foreign key side of an ALTER TABLE.
pub struct AlterKeys<'a> {
    pub old: &'a TableDef,
    /// Per old column ordinal: its name after the ALTER (None when dropped).
    pub renamed: Vec<Option<String>>,
    /// Constraints dropped by name.
    pub dropped: &'a [String],
    /// Keys dropped by name.
    pub dropped_keys: &'a [String],
    pub added: &'a [FkSpec],
}

/// The constraints after an ALTER, and the child indexes the added ones need
/// (pushed to `keys`, ordinals into `columns`): renames of child columns carry
/// over; a constraint that loses its columns or its index is 1553, as is a key
/// that a referencing table needs.
pub fn alter_keys(
    cx: &SessionCtx,
    a: &AlterKeys,
    (schema, name): (&str, &str),
    columns: &[ColumnDef],
    primary: &IndexDef,
    keys: &mut Vec<IndexDef>,
) -> R<Vec<ForeignKeyDef>> {
    let mut all: Vec<IndexDef> = std::iter::once(primary.clone())
        .chain(keys.iter().cloned())
        .collect();
    let mut kept = Vec::new();
    for fk in &a.old.foreign_keys {
        if a.dropped.iter().any(|d| d.eq_ignore_ascii_case(&fk.name)) {
            continue;
        }
        let mut fk = fk.clone();
        let lost = || {
            let cols = ordinals(&fk.columns, a.old).unwrap_or_default();
            a.old
                .indexes
                .iter()
                .find(|i| index_starts_with(std::slice::from_ref(*i), &cols))
                .map_or_else(|| needed_index(&fk.name), |i| needed_index(&i.name))
        };
        let mut cols = Vec::new();
        for c in &fk.columns {
            let now = a
                .old
                .column_index(c)
                .and_then(|o| a.renamed.get(o).cloned().flatten())
                .ok_or_else(lost)?;
            cols.push(
                columns
                    .iter()
                    .position(|x| x.name == now)
                    .ok_or_else(lost)?,
            );
        }
        if !index_starts_with(&all, &cols) {
            return Err(lost());
        }
        fk.columns = cols.iter().map(|&c| columns[c].name.clone()).collect();
        kept.push(fk);
    }
    check_parent_side(cx, a, (schema, name), columns, &all)?;
    if a.added.is_empty() {
        return Ok(kept);
    }
    let child = Child {
        schema,
        name,
        columns,
        indexes: &all,
        existing: &kept,
    };
    let got = resolve(cx, &child, a.added)?;
    for mut idx in got.indexes {
        if idx.name.is_empty() {
            idx.name = super::ddl::auto_index_name(&columns[idx.columns[0].column].name, &all);
        } else if all.iter().any(|i| i.name.eq_ignore_ascii_case(&idx.name)) {
            return Err(MySqlError::dup_keyname(&idx.name));
        }
        all.push(idx.clone());
        keys.push(idx);
    }
    kept.extend(got.keys);
    Ok(kept)
}

/// 1553 when a dropped key was the index a referencing table's constraint uses;
/// 1235 when a column such a constraint names is renamed or dropped (MariaDB
/// renames it in the constraint; Basalt does not yet).
fn check_parent_side(
    cx: &SessionCtx,
    a: &AlterKeys,
    (schema, name): (&str, &str),
    columns: &[ColumnDef],
    all: &[IndexDef],
) -> R<()> {
    let Some(index) = cx.engine.storage.foreign_keys() else {
        return Ok(());
    };
    for c in index.children(&a.old.schema, &a.old.name) {
        if c.def.schema == schema && c.def.name == name {
            continue;
        }
        let cols: Option<Vec<usize>> = c
            .foreign_key()
            .parent_columns
            .iter()
            .map(|n| columns.iter().position(|x| x.name.eq_ignore_ascii_case(n)))
            .collect();
        let Some(cols) = cols else {
            return Err(MySqlError::not_supported(
                "renaming or dropping a column that a FOREIGN KEY of another table references",
            ));
        };
        if !index_starts_with(all, &cols) {
            let key = a.dropped_keys.first().map_or("PRIMARY", String::as_str);
            return Err(needed_index(key));
        }
    }
    Ok(())
}

/// DROP INDEX `index` ON `def`: 1553 when a constraint of the table, or one that
/// references it, would be left without an index.
pub fn check_index_drop(storage: &basalt_storage::Storage, def: &TableDef, index: &str) -> R<()> {
    let rest: Vec<IndexDef> = def
        .indexes
        .iter()
        .filter(|i| !i.name.eq_ignore_ascii_case(index))
        .cloned()
        .collect();
    let needs = |cols: Option<Vec<usize>>| cols.is_some_and(|c| !index_starts_with(&rest, &c));
    if def
        .foreign_keys
        .iter()
        .any(|fk| needs(ordinals(&fk.columns, def)))
    {
        return Err(needed_index(index));
    }
    if let Some(fks) = storage.foreign_keys() {
        let children = fks.children(&def.schema, &def.name);
        if children
            .iter()
            .any(|c| needs(ordinals(&c.foreign_key().parent_columns, def)))
        {
            return Err(needed_index(index));
        }
    }
    Ok(())
}
