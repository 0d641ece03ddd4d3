//! ENUM and SET columns against MariaDB: for every statement the column names,
//! protocol types and type flags (ENUM, SET, BINARY, UNSIGNED, NOT NULL, BLOB)
//! the client sees, the rows (in order when the statement orders them, else as a
//! multiset), the error code and message, and the warnings. Covers inserts in
//! strict and non-strict mode, updates, comparisons, ORDER BY / GROUP BY, index
//! scans, SHOW CREATE TABLE, SHOW COLUMNS and information_schema.COLUMNS.

#[path = "differential_dialect.rs"]
mod dialect;

use basalt_tests::mariadb::{self, MariaDb};
use basalt_tests::Basalt;
use mysql::consts::ColumnFlags;
use mysql::prelude::*;
use mysql::{Conn, Opts};

#[derive(Debug, PartialEq)]
enum Outcome {
    Rows {
        columns: Vec<(String, String, u16)>,
        rows: Vec<Vec<Option<String>>>,
        warnings: Vec<(String, u16, String)>,
    },
    Done {
        affected: u64,
        warnings: Vec<(String, u16, String)>,
    },
    Error(u16, String),
}

/// The type flags compared: what drivers read to tell ENUM/SET and binary columns.
fn type_flags(f: ColumnFlags) -> u16 {
    let keep = ColumnFlags::ENUM_FLAG
        | ColumnFlags::SET_FLAG
        | ColumnFlags::BINARY_FLAG
        | ColumnFlags::UNSIGNED_FLAG
        | ColumnFlags::NOT_NULL_FLAG
        | ColumnFlags::BLOB_FLAG
        | ColumnFlags::ZEROFILL_FLAG;
    (f & keep).bits()
}

fn run(c: &mut Conn, sql: &str, with_types: bool) -> Outcome {
    let ordered = sql.to_ascii_lowercase().contains("order by");
    let (columns, mut rows, affected) = {
        let mut result = match c.query_iter(sql) {
            Ok(r) => r,
            Err(mysql::Error::MySqlError(e)) => return Outcome::Error(e.code, e.message),
            Err(e) => panic!("{sql}: {e}"),
        };
        let columns: Vec<(String, String, u16)> = result
            .columns()
            .as_ref()
            .iter()
            .map(|c| {
                if with_types {
                    let len = if sql.contains(" zf") {
                        format!(" ({})", c.column_length())
                    } else {
                        String::new()
                    };
                    (
                        c.name_str().into_owned(),
                        format!("{:?}{len}", c.column_type()),
                        type_flags(c.flags()),
                    )
                } else {
                    (c.name_str().into_owned(), String::new(), 0)
                }
            })
            .collect();
        let mut rows: Vec<Vec<Option<String>>> = Vec::new();
        for row in result.by_ref() {
            match row {
                Ok(r) => rows.push(r.unwrap().iter().map(basalt_tests::cell).collect()),
                Err(mysql::Error::MySqlError(e)) => return Outcome::Error(e.code, e.message),
                Err(e) => panic!("{sql}: {e}"),
            }
        }
        (columns, rows, result.affected_rows())
    };
    if !ordered {
        rows.sort();
    }
    let warnings = c
        .query_map("SHOW WARNINGS", |(l, code, m): (String, u16, String)| {
            (l, code, m)
        })
        .expect("show warnings");
    if columns.is_empty() {
        return Outcome::Done { affected, warnings };
    }
    Outcome::Rows {
        columns,
        rows,
        warnings,
    }
}

/// Statements run on both servers and compared.
const STATEMENTS: &[&str] = &[
    "create table t (id int primary key, e enum('a','b','C') not null default 'b', s set('x','y','z'), key(e))",
    "insert into t values (1,'a','y,x'),(2,'c','z'),(3,2,3)",
    "insert into t values (4,'a','z,x,z,X')",
    "select * from t",
    "select id, e+0, s+0, concat(e), e = 'A', e = 1, e < 'b' from t order by e",
    "insert into t values (5,'q','w')",
    "insert into t values (5,'a','w,x')",
    "insert into t values (5,0,'x')",
    "insert into t values (5,4,'x')",
    "insert into t values (5,'','')",
    "insert into t values (5,'0','0')",
    "insert into t values (5,2.0,3.0)",
    "insert into t values (6,1.5,1.5)",
    "insert into t values (7,'c ','x,y ')",
    "insert into t values (8,' a','x')",
    "insert into t values (8,'a','x ,y')",
    "update t set e = 'nope' where id = 1",
    "update t set s = 'z,y' where id = 1",
    "set sql_mode = ''",
    "insert into t values (10,'q','w,x'),(11,0,8),(12,'b',9)",
    "update t set e = 7 where id = 12",
    "set sql_mode = default",
    "select * from t order by e, id",
    "select * from t order by e desc, id",
    "select id, e, s from t order by s, id",
    "select max(e), min(e), max(s), min(s), sum(e), avg(s) from t",
    "select e, count(*) from t group by e order by e",
    "select s, id from t order by s, id",
    "select s from t group by s",
    "select distinct e from t order by e",
    "select id, cast(e as char), cast(e as signed), e * 1.5, e is true, if(e, 1, 0), -e, e between 1 and 2, e in ('a','C'), e in (1,3), e like 'C%' from t order by id",
    "select id from t where e > 'a' order by id",
    "select id from t where e > 1 order by id",
    "select id from t where e = 'c'",
    "select id from t where e = ''",
    "select id from t where s = 'y,x'",
    "select id from t where s = 'x,y'",
    "select id from t where s & 1 order by id",
    "select id, find_in_set('y', s), find_in_set('q', s) from t order by id",
    "select length(e), upper(e), lower(s) from t order by id",
    "select id from t where e = 'b' or e = 3 order by id",
    "select id, e from t force index(e) where e >= 2 order by e, id",
    "select id, e from t force index(e) where e in ('b','a') order by id",
    "select id, e from t force index(e) where e < 'b' order by id",
    "select id from t force index(e) where e between 1 and 2 order by id",
    "show create table t",
    "show columns from t",
    "select column_name, column_type, data_type, character_maximum_length, character_octet_length, column_default, is_nullable, collation_name from information_schema.columns where table_schema = 'dt' and table_name = 't' order by ordinal_position",
    "create table u (e enum('a','A'))",
    "create table u (s set('a,b','c'))",
    "create table u (e enum('a','b') default 'c')",
    "create table u (e enum('a ','b'), f enum('x','y') character set latin1 collate latin1_bin, g set('it''s','b\\\\c') default 'b\\\\c,it''s', h enum('p','q') not null)",
    "show create table u",
    "insert into u (f) values ('X')",
    "insert into u (f) values ('x')",
    "insert into u (e, g) values ('a ', 'IT''S')",
    "select * from u",
    "select column_name, column_type, character_maximum_length, character_octet_length, collation_name, column_default from information_schema.columns where table_schema = 'dt' and table_name = 'u' order by ordinal_position",
    "create table v (id int primary key, e enum('lo','mid','hi'))",
    "insert into v values (1,'hi'),(2,'lo'),(3,'mid')",
    "alter table v modify e enum('lo','mid','hi','max')",
    "insert into v values (4,'max')",
    "select id, e, e+0 from v order by id",
    "alter table v modify e varchar(10)",
    "select * from v order by e",
    "alter table v modify e enum('hi','lo')",
    "set sql_mode = ''",
    "alter table v modify e enum('hi','lo')",
    "select id, e, e+0 from v order by id",
    "alter table v modify e set('hi','lo','mid')",
    "update v set e = 'mid,hi' where id = 3",
    "select id, e, e+0 from v order by id",
    "alter table v modify e int",
    "select * from v order by id",
    "set sql_mode = default",
    "create table w1 (id int primary key, e enum('a','b','C'), s set('x','y'), v varchar(5), n int)",
    "insert into w1 values (1,'b','y',null,null),(2,'C','x,y',null,null),(3,null,'',null,null)",
    "insert into w1 (id, v, n, e) select id + 10, e, e, e from w1",
    "select * from w1 order by id",
    "create table w2 as select e, s from w1",
    "show create table w2",
    "select e from w1 union select 'zz' order by 1",
    "select if(id > 1, e, 'q') as x from w1 order by id",
    "select case when id = 1 then e else s end as x from w1 order by id",
    "select coalesce(e, s) from w1 order by id",
    "select e, s from w1 where e in (select e from w1 where id = 2)",
    "select a.id, b.id from w1 a join w1 b on a.e = b.e order by a.id, b.id",
    "select e from w1 order by concat(e) desc, id",
    "update w1 set e = e + 1 where id = 1",
    "select id, e from w1 where id = 1",
    "select e, sum(id) from w1 group by e with rollup",
    "create table k1 (id int primary key, e enum('a','b','C') not null, s set('x','y','z') not null, u enum('p','q'), unique key(e, s))",
    "insert into k1 values (1,'a','x','p'),(2,'b','y,z',null),(3,'C','',null)",
    "insert into k1 values (4,'A','x',null)",
    "checksum table k1",
    "alter table k1 add column f enum('m','n') not null, add column g set('m','n') not null",
    "select * from k1 order by id",
    "create table k2 (id int primary key, e enum('a','b')) engine=memory",
    "insert into k2 values (1,'b'),(2,'a')",
    "select * from k2 order by e",
    "select * from k1 where e = (select max(e) from k1)",
    // SERIAL, YEAR, MEDIUMINT and the TINYTEXT / TINYBLOB limits.
    "create table y1 (id serial, y year, m mediumint, mu mediumint unsigned, b tinyint, tt tinytext, tb tinyblob)",
    "show create table y1",
    "insert into y1 (y, m, mu, b, tt) values (2024, -8388608, 16777215, true, 'x')",
    "insert into y1 (y) values (69), (70), ('0'), (0)",
    "insert into y1 (y) values (1900)",
    "insert into y1 (m) values (8388608)",
    "insert into y1 (mu) values (-1)",
    "insert into y1 (tt) values (repeat('a', 256))",
    "insert into y1 (tb) values (repeat('a', 256))",
    "select * from y1 order by id",
    "select y, id + 0 from y1 order by id",
    "insert into y1 (id) values (null)",
    "select last_insert_id()",
    "select column_name, column_type, data_type, numeric_precision, extra from information_schema.columns where table_schema = 'dt' and table_name = 'y1' order by ordinal_position",
    // Integer display widths and ZEROFILL (the column length is compared too).
    "create table zf (a int(0), b int zerofill, c bigint(3) zerofill, d tinyint(1) unsigned, e mediumint(2) zerofill, f int(255), g boolean, h smallint(3) unsigned zerofill not null default 7)",
    "create table zf2 (a int(256))",
    "show create table zf",
    "insert into zf values (1, 2, 12345, 1, 1, -1, true, 42), (null, 4294967295, 1, 0, 99, 5, false, 1234)",
    "select * from zf order by b",
    "select a, b, c, h from zf group by a, b, c, h order by b",
    "alter table zf modify a int(5) zerofill, modify d tinyint(2)",
    "show create table zf",
    "select a, d from zf order by b",
    "create table zf4 as select b, d from zf",
    "show create table zf4",
    "select column_name, column_type, numeric_precision, column_default from information_schema.columns where table_schema = 'dt' and table_name = 'zf' order by ordinal_position",
    "show columns from zf",
];

/// Dates with a zero month or day (stored unless NO_ZERO_IN_DATE), and what the
/// date functions make of them.
const ZERO_IN_DATES: &[&str] = &[
    "create table zd (id int primary key, d date, dt datetime(2), ts timestamp null)",
    "insert into zd values (1, '2012-00-00', '2012-00-05 10:00:00.5', null), (2, '2012-03-00', null, null), (3, '0000-00-00', '0000-00-00', null), (4, 20120005, 20120700101010, null)",
    "insert into zd values (5, '2012-02-30', null, null)",
    "insert into zd values (5, '2012-13-01', null, null)",
    "insert into zd values (5, null, null, '2012-00-05 10:00:00')",
    "insert into zd values (5, '2012-01-32', null, null)",
    "set sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_IN_DATE'",
    "insert into zd values (5, '2012-00-01', null, null)",
    "insert into zd values (5, '0000-00-00', null, null)",
    "set sql_mode = 'NO_ZERO_IN_DATE'",
    "insert into zd values (6, '2012-00-01', '2012-05-00 01:02:03', null)",
    "set sql_mode = default",
    "select * from zd order by d, id",
    "select id, d from zd where d < '2012-01-01' and d > '2011-12-31'",
    "select id, year(d), month(d), dayofmonth(d), quarter(d), extract(day from d), date(d), cast(d as datetime), d = '2012-00-00' from zd",
    "select id, dayofweek(d), weekday(d), dayofyear(d), to_days(d), to_seconds(d), dayname(d), monthname(d), last_day(d), unix_timestamp(d), week(d), yearweek(d) from zd",
    "select id, d + interval 1 day from zd",
    "select id, datediff(d, '2012-01-01'), timestampdiff(day, d, '2012-05-01') from zd",
    "select id, date_format(d, '%Y-%m-%d %e %D'), date_format(d, '%W'), date_format(d, '%M'), date_format(d, '%j') from zd",
    "select to_days('2012-00-10'), dayofweek('2012-01-00'), date_add('2012-00-00', interval 1 month)",
];

/// The BINARY column attribute (the `_bin` collation of the column's character
/// set) and CHARSET as a column attribute, in CREATE and ALTER TABLE.
const COLUMN_WORDS: &[&str] = &[
    "create table cw (name char(20) binary not null, v varchar(10) binary default 'x', w text binary, u varchar(5) character set latin1 binary, k varchar(3) charset latin1, primary key (name))",
    "show create table cw",
    "insert into cw (name) values ('a'), ('A'), ('b ')",
    "select name from cw where name = 'a'",
    "select name from cw order by name",
    "create table cw2 (a int)",
    "alter table cw2 add column b char(4) binary, modify a varchar(3) binary not null",
    "show create table cw2",
];

#[test]
#[ignore]
fn column_attributes_as_on_mariadb() {
    compare_with_mariadb(COLUMN_WORDS);
}

#[test]
#[ignore]
fn zero_in_dates_behave_as_mariadb() {
    compare_with_mariadb(ZERO_IN_DATES);
}

#[test]
#[ignore]
fn enum_and_set_behave_as_mariadb() {
    compare_with_mariadb(STATEMENTS);
}

/// Statements whose outcome other 10.11 patch releases than the reference give
/// differently (10.11.14 stores '0' into a NOT NULL ENUM as '' in strict mode,
/// without a warning), run only against the reference.
const REFERENCE_ONLY: &[&str] = &["insert into t values (5,'0','0')"];

fn compare_with_mariadb(statements: &[&str]) {
    if !mariadb::available() {
        eprintln!("mariadb-server not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let m = MariaDb::start(&["--innodb-flush-log-at-trx-commit=2"]);
    let mut basalt = Conn::new(Opts::from_url(&b.url()).expect("url")).expect("basalt");
    let mut maria = Conn::new(Opts::from_url(&m.url()).expect("url")).expect("mariadb");
    for c in [&mut basalt, &mut maria] {
        c.query_drop("create database dt").expect("db");
        c.query_drop("use dt").expect("use");
    }
    let mut diffs = Vec::new();
    for sql in statements {
        if REFERENCE_ONLY.contains(sql) && !mariadb::is_reference() {
            continue;
        }
        // SHOW, CHECKSUM and information_schema result sets have their own
        // metadata rules; their rows are what is compared.
        let lower = sql.to_ascii_lowercase();
        let with_types = !lower.starts_with("show")
            && !lower.starts_with("checksum")
            && !lower.contains("information_schema");
        let mut x = run(&mut basalt, sql, with_types);
        let mut y = run(&mut maria, sql, with_types);
        // MariaDB's SET keeps the diagnostics of the statement before it (it uses
        // no table); Basalt's does not. Not what this test is about.
        // ADD COLUMN is instant in MariaDB (0 rows affected); Basalt copies.
        if lower.contains("add column") {
            for o in [&mut x, &mut y] {
                if let Outcome::Done { affected, .. } = o {
                    *affected = 0;
                }
            }
        }
        if lower.starts_with("set ") {
            for o in [&mut x, &mut y] {
                if let Outcome::Done { warnings, .. } = o {
                    warnings.clear();
                }
            }
        }
        if x != y {
            diffs.push(format!("statement: {sql}\nbasalt:  {x:?}\nmariadb: {y:?}"));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n\n"));
}
