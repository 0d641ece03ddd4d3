//! Random tables and rows: INT, BIGINT, DECIMAL, VARCHAR (utf8mb4_general_ci) and
//! DATE columns, mostly NULLable, a primary key on some tables, secondary indexes,
//! and 0-30 rows with NULLs, duplicates, negative numbers, empty strings and
//! strings that differ only in case or trailing spaces.

use super::ast::Ty;
use super::Rng;
use std::fmt::Write;

#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    /// The SQL type as written in CREATE TABLE.
    pub sql: String,
    pub ty: Ty,
    pub nullable: bool,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub name: String,
    pub cols: Vec<Column>,
    /// The primary key's column (always column 0 when present).
    pub pk: Option<usize>,
    pub indexes: Vec<Vec<usize>>,
    /// Rows of SQL literals.
    pub rows: Vec<Vec<String>>,
}

#[derive(Clone, Debug)]
pub struct Schema {
    pub tables: Vec<Table>,
}

const INTS: &[&str] = &["0", "1", "2", "3", "-1", "-2", "5", "7", "10", "-10", "100"];
const BIGS: &[&str] = &["0", "1", "2", "-1", "3", "1000", "-5000", "123456789"];
const DECS: &[&str] = &[
    "0.00", "1.00", "1.50", "-1.50", "2.25", "-0.01", "10.00", "99.99",
];
const STRS: &[&str] = &[
    "''", "'a'", "'A'", "'a '", "'b'", "'B'", "'ab'", "'aB'", "'abc'", "'b%'", "'x_y'", "' a'",
    "'zz'", "'Zz '",
];
const DATES: &[&str] = &[
    "'2020-01-01'",
    "'2020-01-02'",
    "'2019-12-31'",
    "'2024-02-29'",
    "'2000-06-15'",
    "'1999-01-01'",
];

/// Literal values of a type family, as the data uses them.
pub fn pool(ty: Ty) -> &'static [&'static str] {
    match ty {
        Ty::Int | Ty::Bool => INTS,
        Ty::Dec => DECS,
        Ty::Str => STRS,
        Ty::Date => DATES,
    }
}

fn random_column(rng: &mut Rng, name: String) -> Column {
    let (sql, ty) = match rng.below(9) {
        0 | 1 => ("int".to_string(), Ty::Int),
        2 => ("bigint".to_string(), Ty::Int),
        3 | 4 => (
            ["decimal(6,2)", "decimal(10,2)"][rng.below(2)].to_string(),
            Ty::Dec,
        ),
        5..=7 => {
            let len = [1, 3, 8][rng.below(3)];
            let sql = format!("varchar({len}) character set utf8mb4 collate utf8mb4_general_ci");
            (sql, Ty::Str)
        }
        _ => ("date".to_string(), Ty::Date),
    };
    Column {
        name,
        sql,
        ty,
        nullable: rng.below(5) != 0,
    }
}

fn random_table(rng: &mut Rng, name: String) -> Table {
    let mut cols = Vec::new();
    let pk = rng.below(2) == 0;
    if pk {
        cols.push(Column {
            name: "id".into(),
            sql: "int".into(),
            ty: Ty::Int,
            nullable: false,
        });
    }
    for i in 0..1 + rng.below(4) {
        cols.push(random_column(rng, ["a", "b", "c", "d", "e"][i].to_string()));
    }
    let mut indexes = Vec::new();
    for _ in 0..rng.below(3) {
        let first = rng.below(cols.len());
        let mut idx = vec![first];
        let second = rng.below(cols.len());
        if second != first && rng.below(2) == 0 {
            idx.push(second);
        }
        indexes.push(idx);
    }
    let mut t = Table {
        name,
        cols,
        pk: pk.then_some(0),
        indexes,
        rows: Vec::new(),
    };
    t.rows = random_rows(rng, &t);
    t
}

fn random_rows(rng: &mut Rng, t: &Table) -> Vec<Vec<String>> {
    let n = [0, 1, 3, 8, 15, 30][rng.below(6)];
    let mut ids: Vec<i64> = (-3..60).collect();
    rng.shuffle(&mut ids);
    let mut rows: Vec<Vec<String>> = Vec::new();
    for &id in ids.iter().take(n) {
        if !rows.is_empty() && rng.below(6) == 0 {
            // A duplicate of an earlier row (a new key when there is one).
            let mut dup = rows[rng.below(rows.len())].clone();
            if t.pk.is_some() {
                dup[0] = id.to_string();
            }
            rows.push(dup);
            continue;
        }
        let row = t
            .cols
            .iter()
            .enumerate()
            .map(
                |(i, c)| match (t.pk == Some(i), c.nullable && rng.below(5) == 0) {
                    (true, _) => id.to_string(),
                    (false, true) => "NULL".to_string(),
                    (false, false) => random_value(rng, c),
                },
            )
            .collect();
        rows.push(row);
    }
    rows
}

fn random_value(rng: &mut Rng, c: &Column) -> String {
    let pool: &[&str] = if c.sql == "bigint" { BIGS } else { pool(c.ty) };
    let v = pool[rng.below(pool.len())];
    // Values longer than a short VARCHAR are cut to fit (no strict-mode error).
    match c.sql.strip_prefix("varchar(") {
        Some(rest) => {
            let len: usize = rest.split(')').next().unwrap_or("8").parse().unwrap_or(8);
            let inner = &v[1..v.len() - 1];
            format!("'{}'", inner.chars().take(len).collect::<String>())
        }
        None => v.to_string(),
    }
}

impl Schema {
    pub fn random(rng: &mut Rng) -> Schema {
        let n = 2 + rng.below(3);
        Schema {
            tables: (0..n).map(|i| random_table(rng, format!("t{i}"))).collect(),
        }
    }

    pub fn table(&self, name: &str) -> &Table {
        self.tables
            .iter()
            .find(|t| t.name == name)
            .expect("known table")
    }
}

impl Table {
    pub fn create_sql(&self) -> String {
        let mut s = format!("CREATE TABLE {} (", self.name);
        for (i, c) in self.cols.iter().enumerate() {
            let null = if c.nullable { "" } else { " NOT NULL" };
            let sep = if i > 0 { ", " } else { "" };
            let _ = write!(s, "{sep}{} {}{null}", c.name, c.sql);
        }
        if let Some(pk) = self.pk {
            let _ = write!(s, ", PRIMARY KEY ({})", self.cols[pk].name);
        }
        for (i, idx) in self.indexes.iter().enumerate() {
            let cols: Vec<&str> = idx.iter().map(|&c| self.cols[c].name.as_str()).collect();
            let _ = write!(s, ", KEY k{i} ({})", cols.join(", "));
        }
        s.push(')');
        s
    }

    /// The INSERT of `rows` (None when there are none).
    pub fn insert_sql(&self, rows: &[Vec<String>]) -> Option<String> {
        if rows.is_empty() {
            return None;
        }
        let values: Vec<String> = rows.iter().map(|r| format!("({})", r.join(", "))).collect();
        Some(format!(
            "INSERT INTO {} VALUES {}",
            self.name,
            values.join(", ")
        ))
    }
}
