//! ENUM and SET columns over TCP: storing (strict errors, non-strict warnings, the
//! '' error value, SET members normalised), reading in string and numeric context,
//! comparisons, ORDER BY in declaration order, indexes, metadata the client sees,
//! ALTER TABLE to and from ENUM, restart, and a mariadb-dump round trip.

#[path = "character_sets.rs"]
mod character_sets;
#[path = "database_options.rs"]
mod database_options;

use basalt_tests::{mariadb_cli, which, Basalt};
use mysql::prelude::*;
use mysql::{Conn, Opts};
use std::process::{Command, Stdio};

fn conn(b: &Basalt) -> Conn {
    Conn::new(Opts::from_url(&b.url()).expect("url")).expect("connect")
}

fn strings(c: &mut Conn, sql: &str) -> Vec<String> {
    let rows: Vec<mysql::Row> = c.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.into_iter()
        .map(|r| {
            (0..r.len())
                .map(|i| match r.as_ref(i).expect("cell") {
                    mysql::Value::NULL => "NULL".to_string(),
                    mysql::Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect()
}

fn warnings(c: &mut Conn) -> Vec<(String, u16, String)> {
    c.query("show warnings").expect("show warnings")
}

fn err_of(c: &mut Conn, sql: &str) -> (u16, String) {
    match c.query_drop(sql) {
        Err(mysql::Error::MySqlError(e)) => (e.code, e.message),
        other => panic!("{sql}: expected an error, got {other:?}"),
    }
}

fn setup(c: &mut Conn) {
    for s in [
        "create database ct",
        "use ct",
        "create table t (id int primary key, e enum('a','b','C') not null default 'b', \
         s set('x','y','z'), key(e))",
        "insert into t values (1,'a','y,x'),(2,'c','z'),(3,2,3)",
    ] {
        c.query_drop(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

#[test]
fn enum_and_set_values_store_as_mariadb_does() {
    let b = Basalt::start();
    let mut c = conn(&b);
    setup(&mut c);
    // Case-insensitive match stores the declared member; numbers are positions /
    // bitmasks; a SET's members come back in declaration order without duplicates.
    assert_eq!(
        strings(&mut c, "select id, e, s, e+0, s+0 from t order by id"),
        ["1|a|x,y|1|3", "2|C|z|3|4", "3|b|x,y|2|3"]
    );
    c.query_drop("insert into t values (4,'a','z,x,z,X')")
        .expect("set dupes");
    assert_eq!(strings(&mut c, "select s from t where id = 4"), ["x,z"]);
    // Strict mode: invalid values are 1265.
    assert_eq!(
        err_of(&mut c, "insert into t values (5,'q','x')"),
        (1265, "Data truncated for column 'e' at row 1".into())
    );
    assert_eq!(
        err_of(&mut c, "insert into t values (5,'a','x,w')"),
        (1265, "Data truncated for column 's' at row 1".into())
    );
    assert_eq!(err_of(&mut c, "insert into t values (5,0,'x')").0, 1265);
    assert_eq!(err_of(&mut c, "insert into t values (5,4,'x')").0, 1265);
    assert_eq!(
        err_of(&mut c, "update t set e = 'nope' where id = 1").0,
        1265
    );
    // Non-strict: the '' error value (0) and the readable members, with warnings.
    c.query_drop("set sql_mode = ''").expect("mode");
    c.query_drop("insert into t values (5,'q','w,x'),(6,0,8)")
        .expect("non-strict");
    let w = warnings(&mut c);
    assert_eq!(w.len(), 4, "{w:?}");
    assert_eq!(
        w[0],
        (
            "Warning".into(),
            1265,
            "Data truncated for column 'e' at row 1".into()
        )
    );
    assert_eq!(w[3].2, "Data truncated for column 's' at row 2");
    assert_eq!(
        strings(
            &mut c,
            "select id, e, e+0, s, s+0 from t where id >= 5 order by id"
        ),
        ["5||0|x|1", "6||0||0"]
    );
    // NOT NULL ENUM without DEFAULT takes its first member; DEFAULT applies.
    c.query_drop("set sql_mode = default").expect("mode");
    c.query_drop("create table d (id int, e enum('p','q') not null, f enum('p','q') default 'q', g set('m','n') default 'n,m')")
        .expect("create d");
    c.query_drop("insert into d (id) values (1)")
        .expect("defaults");
    assert_eq!(strings(&mut c, "select e, f, g from d"), ["p|q|m,n"]);
    assert_eq!(
        err_of(&mut c, "create table bad (e enum('a','b') default 'c')"),
        (1067, "Invalid default value for 'e'".into())
    );
    assert_eq!(
        err_of(&mut c, "create table bad (e enum('a','A'))"),
        (1291, "Column 'e' has duplicated value 'a' in ENUM".into())
    );
    assert_eq!(
        err_of(&mut c, "create table bad (s set('a,b','c'))"),
        (1367, "Illegal set 'a,b' value found during parsing".into())
    );
}

#[test]
fn enum_compares_as_text_with_strings_and_as_number_with_numbers() {
    let b = Basalt::start();
    let mut c = conn(&b);
    setup(&mut c);
    // 'C' > 'b' as text (general_ci), but ORDER BY e is declaration order.
    assert_eq!(
        strings(&mut c, "select id from t where e > 'a' order by id"),
        ["2", "3"]
    );
    assert_eq!(
        strings(&mut c, "select id from t where e > 1 order by id"),
        ["2", "3"]
    );
    assert_eq!(strings(&mut c, "select id from t where e = 1"), ["1"]);
    assert_eq!(strings(&mut c, "select id from t where e = 'A'"), ["1"]);
    assert_eq!(
        strings(&mut c, "select e from t order by e"),
        ["a", "b", "C"]
    );
    assert_eq!(
        strings(&mut c, "select e from t order by e desc"),
        ["C", "b", "a"]
    );
    assert_eq!(
        strings(&mut c, "select max(e), min(e), sum(e) from t"),
        ["C|a|6"]
    );
    assert_eq!(
        strings(
            &mut c,
            "select id, find_in_set('y', s), s & 2, concat(e, s), -e, e * 1.5 from t order by id"
        ),
        ["1|2|2|ax,y|-1|1.5", "2|0|0|Cz|-3|4.5", "3|2|2|bx,y|-2|3.0"]
    );
    assert_eq!(
        strings(&mut c, "select id from t where s = 'x,y' order by id"),
        ["1", "3"]
    );
    assert!(strings(&mut c, "select id from t where s = 'y,x'").is_empty());
    assert_eq!(
        strings(&mut c, "select e, count(*) from t group by e order by e"),
        ["a|1", "b|1", "C|1"]
    );
}

#[test]
fn index_on_enum_is_in_declaration_order() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create database ix").expect("db");
    c.query_drop("use ix").expect("use");
    c.query_drop("create table v (id int primary key, e enum('lo','mid','hi'), key(e))")
        .expect("create");
    c.query_drop("insert into v values (1,'hi'),(2,'lo'),(3,'mid'),(4,'lo'),(5,null),(6,'hi')")
        .expect("insert");
    for (sql, want) in [
        (
            "select id from v force index(e) where e = 'LO' order by id",
            vec!["2", "4"],
        ),
        (
            "select id from v force index(e) where e >= 2",
            vec!["3", "1", "6"],
        ),
        (
            "select id from v force index(e) where e < 'lo' order by id",
            vec!["1", "6"],
        ),
        (
            "select id from v force index(e) where e in ('hi', 'mid') order by id",
            vec!["1", "3", "6"],
        ),
        (
            "select e from v force index(e) where e is not null",
            vec!["lo", "lo", "mid", "hi", "hi"],
        ),
    ] {
        assert_eq!(strings(&mut c, sql), want, "{sql}");
    }
    let plan = strings(&mut c, "explain select id from v where e = 'mid'");
    assert!(plan[0].contains("|e|"), "{plan:?}");
}

#[test]
fn client_sees_string_columns_with_enum_and_set_flags() {
    let b = Basalt::start();
    let mut c = conn(&b);
    setup(&mut c);
    let r = c.query_iter("select e, s, e+0 from t").expect("select");
    let cols = r.columns();
    let cols = cols.as_ref();
    use mysql::consts::{ColumnFlags, ColumnType};
    assert_eq!(cols[0].column_type(), ColumnType::MYSQL_TYPE_STRING);
    assert!(cols[0].flags().contains(ColumnFlags::ENUM_FLAG));
    assert!(cols[0].flags().contains(ColumnFlags::NOT_NULL_FLAG));
    assert_eq!(cols[0].column_length(), 4);
    assert_eq!(cols[1].column_type(), ColumnType::MYSQL_TYPE_STRING);
    assert!(cols[1].flags().contains(ColumnFlags::SET_FLAG));
    assert_eq!(cols[1].column_length(), 20);
    assert_eq!(cols[2].column_type(), ColumnType::MYSQL_TYPE_LONG);
    drop(r);
    let r = c.query_iter("select max(e) from t").expect("select max");
    assert_eq!(
        r.columns().as_ref()[0].column_type(),
        ColumnType::MYSQL_TYPE_VAR_STRING
    );
    drop(r);
    let (_, ddl): (String, String) = c
        .query_first("show create table t")
        .expect("show")
        .expect("row");
    assert!(
        ddl.contains("`e` enum('a','b','C') NOT NULL DEFAULT 'b',"),
        "{ddl}"
    );
    assert!(ddl.contains("`s` set('x','y','z') DEFAULT NULL,"), "{ddl}");
    assert_eq!(
        strings(&mut c, "select column_name, column_type, data_type, character_maximum_length, character_octet_length, column_default from information_schema.columns where table_schema = 'ct' and table_name = 't' order by ordinal_position"),
        ["id|int(11)|int|NULL|NULL|NULL", "e|enum('a','b','C')|enum|1|4|'b'", "s|set('x','y','z')|set|5|20|NULL"]
    );
    assert_eq!(
        strings(&mut c, "show columns from t"),
        [
            "id|int(11)|NO|PRI|NULL|",
            "e|enum('a','b','C')|NO|MUL|b|",
            "s|set('x','y','z')|YES||NULL|"
        ]
    );
    // Prepared statements (binary rows) carry the text too.
    let row: Option<(String, String, i64)> = c
        .exec_first("select e, s, e+0 from t where id = ?", (2,))
        .expect("exec");
    assert_eq!(row, Some(("C".into(), "z".into(), 3)));
    // Parameters store as literals do: text by member, numbers by position / mask.
    c.exec_drop(
        "insert into t (id, e, s) values (?, ?, ?)",
        (20, "c", "y,x"),
    )
    .expect("text params");
    c.exec_drop("insert into t (id, e, s) values (?, ?, ?)", (21, 2, 3))
        .expect("number params");
    assert_eq!(
        strings(&mut c, "select id, e, s from t where id >= 20 order by id"),
        ["20|C|x,y", "21|b|x,y"]
    );
}

#[test]
fn alter_table_converts_to_and_from_enum() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create database al").expect("db");
    c.query_drop("use al").expect("use");
    c.query_drop("create table v (id int primary key, e enum('lo','mid','hi'))")
        .expect("create");
    c.query_drop("insert into v values (1,'hi'),(2,'lo'),(3,'mid')")
        .expect("insert");
    // A member appended at the end changes the definition in place.
    c.query_drop("alter table v modify e enum('lo','mid','hi','max')")
        .expect("append");
    assert_eq!(c.affected_rows(), 0);
    c.query_drop("insert into v values (4,'max')")
        .expect("new member");
    assert_eq!(
        strings(&mut c, "select e+0 from v order by id"),
        ["3", "1", "2", "4"]
    );
    c.query_drop("alter table v modify e varchar(10)")
        .expect("to varchar");
    assert_eq!(c.affected_rows(), 4);
    assert_eq!(
        strings(&mut c, "select e from v order by e"),
        ["hi", "lo", "max", "mid"]
    );
    assert_eq!(
        err_of(&mut c, "alter table v modify e enum('hi','lo')"),
        (1265, "Data truncated for column 'e' at row 3".into())
    );
    c.query_drop("set sql_mode = ''").expect("mode");
    c.query_drop("alter table v modify e enum('hi','lo')")
        .expect("to enum");
    assert_eq!(
        strings(&mut c, "select e, e+0 from v order by id"),
        ["hi|1", "lo|2", "|0", "|0"]
    );
    // An added NOT NULL ENUM fills existing rows with its first member.
    c.query_drop("alter table v add column f enum('m','n') not null")
        .expect("add enum");
    assert_eq!(strings(&mut c, "select distinct f from v"), ["m"]);
    // To a number: the member's position.
    c.query_drop("alter table v modify e int").expect("to int");
    assert_eq!(
        strings(&mut c, "select e from v order by id"),
        ["1", "2", "0", "0"]
    );
}

#[test]
fn enum_and_set_survive_restart() {
    let mut b = Basalt::start();
    {
        let mut c = conn(&b);
        setup(&mut c);
    }
    b.restart(true);
    let mut c = conn(&b);
    assert_eq!(
        strings(&mut c, "select id, e, s, e+0 from ct.t order by e"),
        ["1|a|x,y|1", "3|b|x,y|2", "2|C|z|3"]
    );
    assert_eq!(
        strings(&mut c, "select id from ct.t force index(e) where e = 'c'"),
        ["2"]
    );
}

#[test]
fn dump_of_enum_and_set_reloads_identically() {
    if which("mariadb-dump").is_none() || which("mariadb").is_none() {
        eprintln!("mariadb-dump not installed; skipping");
        return;
    }
    let b = Basalt::start();
    let mut c = conn(&b);
    setup(&mut c);
    c.query_drop("create table ct.q (k int primary key, e enum('it''s','b\\\\c','') , s set('1','2','3') not null)")
        .expect("quotes");
    c.query_drop("insert into ct.q values (1,'it''s','3,1'),(2,'b\\\\c',''),(3,'',2)")
        .expect("insert q");
    let dump = |port: u16| {
        let out = Command::new("mariadb-dump")
            .args(["-h127.0.0.1", "-uroot", "--skip-ssl", "--skip-dump-date"])
            .arg(format!("-P{port}"))
            .args(["--databases", "ct"])
            .stdin(Stdio::null())
            .output()
            .expect("run mariadb-dump");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = dump(b.port);
    assert!(first.contains("enum('it''s','b\\\\c','')"), "{first}");
    let other = Basalt::start();
    let (code, _, err) = mariadb_cli(other.port, &[], &first);
    assert_eq!(code, 0, "{err}");
    let second = dump(other.port);
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("-- ") || l.contains("Dumping data"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&first), strip(&second));
}

/// SQLAlchemy reflection reads the member lists back from SHOW CREATE TABLE, and
/// mysql-connector-python turns a SET column (by its SET flag) into a Python set.
#[test]
fn python_drivers_reflect_enum_and_set() {
    let has = |m: &str| {
        Command::new("python3")
            .args(["-c", &format!("import {m}")])
            .status()
            .is_ok_and(|s| s.success())
    };
    if !has("sqlalchemy") || !has("pymysql") || !has("mysql.connector") {
        eprintln!("python3 with SQLAlchemy, PyMySQL and mysql-connector-python needed; skipping");
        return;
    }
    let b = Basalt::start();
    let mut c = conn(&b);
    setup(&mut c);
    let script = r#"
import sys, sqlalchemy as sa, mysql.connector
port = int(sys.argv[1])
insp = sa.inspect(sa.create_engine(f"mysql+pymysql://root@127.0.0.1:{port}/ct"))
for col in insp.get_columns('t'):
    t = col['type']
    print(col['name'], type(t).__name__, list(getattr(t, 'enums', None) or getattr(t, 'values', None) or []), col['nullable'], col.get('default'))
cn = mysql.connector.connect(host='127.0.0.1', port=port, user='root', database='ct')
cur = cn.cursor()
cur.execute("select e, s from t where id = 1")
e, s = cur.fetchone()
print(e, sorted(s), type(s).__name__)
"#;
    let out = Command::new("python3")
        .args(["-c", script, &b.port.to_string()])
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "id INTEGER [] False None",
            "e ENUM ['a', 'b', 'C'] False 'b'",
            "s SET ['x', 'y', 'z'] True None",
            "a ['x', 'y'] set",
        ]
    );
}

/// SERIAL is BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE; YEAR 0 reads `0000`;
/// MEDIUMINT UNSIGNED has 8 digits of precision.
#[test]
fn serial_year_and_mediumint_as_mariadb() {
    let b = Basalt::start();
    let mut c = conn(&b);
    c.query_drop("create database sy").expect("db");
    c.query_drop("use sy").expect("use");
    c.query_drop("create table y1 (id serial, y year, mu mediumint unsigned)")
        .expect("serial");
    let (_, ddl): (String, String) = c
        .query_first("show create table y1")
        .expect("show")
        .expect("row");
    assert!(
        ddl.contains("`id` bigint(20) unsigned NOT NULL AUTO_INCREMENT,")
            && ddl.contains("UNIQUE KEY `id` (`id`)"),
        "{ddl}"
    );
    c.query_drop("insert into y1 (y) values (0), (69)")
        .expect("insert");
    assert_eq!(
        strings(&mut c, "select id, y from y1 order by id"),
        ["1|0000", "2|2069"]
    );
    assert_eq!(
        strings(&mut c, "select numeric_precision from information_schema.columns where table_schema = 'sy' and column_name = 'mu'"),
        ["8"]
    );
}
