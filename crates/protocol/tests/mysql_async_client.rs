//! End-to-end: a tiny server loop built from this crate's API, driven by the real
//! `mysql_async` client over TCP on 127.0.0.1 (ephemeral port).

use basalt_common::{ColumnMeta, ColumnType, Date, DateTime, Decimal, MySqlError, Time, Value};
use basalt_protocol::{
    change_user, decode_stmt_execute, parse_command, server_handshake, status, Account,
    AccountStore, AuthPlugin, Command, ConnInfo, HandshakeConfig, OkPacket, PacketConn, ParamType,
    Response, ResultSet, RowFormat, RsaKeyPair,
};
use mysql_async::prelude::*;
use mysql_async::{Conn, OptsBuilder, Row};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::net::{TcpListener, TcpStream};

const AUTOCOMMIT: u16 = status::SERVER_STATUS_AUTOCOMMIT;

/// Accounts: root (no password), nat (native), sha (caching_sha2). The sha2 cache
/// mimics MySQL: fast path only after one full authentication.
#[derive(Default)]
struct Accounts {
    cached: Mutex<HashSet<String>>,
    full_auths: Mutex<u32>,
}

impl AccountStore for Accounts {
    fn lookup(&self, user: &str, _host: &str) -> Option<Account> {
        match user {
            "root" => Some(Account::with_password(AuthPlugin::MysqlNativePassword, b"")),
            "nat" => Some(Account::with_password(
                AuthPlugin::MysqlNativePassword,
                b"natpw",
            )),
            "sha" => Some(Account::with_password(
                AuthPlugin::CachingSha2Password,
                b"shapw",
            )),
            "sha_empty" => Some(Account::with_password(AuthPlugin::CachingSha2Password, b"")),
            _ => None,
        }
    }
    fn sha2_fast_auth_allowed(&self, user: &str, _host: &str, _account: &Account) -> bool {
        self.cached.lock().expect("lock").contains(user)
    }
    fn sha2_full_auth_succeeded(&self, user: &str, _host: &str, _account: &Account) {
        self.cached.lock().expect("lock").insert(user.to_string());
        *self.full_auths.lock().expect("lock") += 1;
    }
}

fn rsa_key() -> Arc<RsaKeyPair> {
    static KEY: OnceLock<Arc<RsaKeyPair>> = OnceLock::new();
    KEY.get_or_init(|| Arc::new(RsaKeyPair::generate(2048).expect("rsa key")))
        .clone()
}

struct TestServer {
    port: u16,
    accounts: Arc<Accounts>,
}

async fn start_server(default_plugin: AuthPlugin, max_allowed_packet: usize) -> TestServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let cfg = Arc::new(HandshakeConfig {
        default_auth_plugin: default_plugin,
        rsa_key: Some(rsa_key()),
        ..HandshakeConfig::default()
    });
    let accounts = Arc::new(Accounts::default());
    let acc = accounts.clone();
    tokio::spawn(async move {
        let mut id = 0;
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            id += 1;
            let (cfg, acc) = (cfg.clone(), acc.clone());
            tokio::spawn(serve(stream, cfg, acc, id, max_allowed_packet));
        }
    });
    TestServer { port, accounts }
}

struct Stmt {
    sql: String,
    num_params: usize,
    types: Vec<ParamType>,
    long_data: Vec<Option<Vec<u8>>>,
}

async fn serve(
    stream: TcpStream,
    cfg: Arc<HandshakeConfig>,
    acc: Arc<Accounts>,
    id: u32,
    max: usize,
) {
    let mut conn = PacketConn::new(stream);
    conn.set_max_allowed_packet(max);
    let info = ConnInfo {
        connection_id: id,
        client_host: "127.0.0.1",
        secure_transport: false,
        status: AUTOCOMMIT,
    };
    let login = match server_handshake(&mut conn, &cfg, &info, &*acc).await {
        Ok(login) => login,
        Err(e) => return fail(&mut conn, e).await,
    };
    conn.write_ok(&OkPacket::with_status(AUTOCOMMIT));
    if conn.flush().await.is_err() {
        return;
    }
    let mut stmts: HashMap<u32, Stmt> = HashMap::new();
    let mut next_stmt = 1;
    let mut buf = Vec::new();
    loop {
        if let Err(e) = conn.read_command(&mut buf).await {
            return fail(&mut conn, e).await;
        }
        let cmd = match parse_command(&buf, conn.capabilities()) {
            Ok(cmd) => cmd,
            Err(e) => {
                conn.write_err(&e.client_error().expect("visible"));
                let _ = conn.flush().await;
                continue;
            }
        };
        match cmd {
            Command::Quit => return,
            Command::Ping | Command::ResetConnection | Command::InitDb(_) => {
                conn.write_ok(&OkPacket::with_status(AUTOCOMMIT))
            }
            Command::Query(sql) => answer_query(&mut conn, sql),
            Command::StmtPrepare(sql) => {
                let sql = String::from_utf8_lossy(sql).into_owned();
                let num_params = sql.matches('?').count();
                let params = vec![ColumnMeta::text("?", 0); num_params];
                let cols = vec![ColumnMeta::text("c", 0); num_params];
                conn.write_prepare_ok(next_stmt, &params, &cols, 0, AUTOCOMMIT);
                let long_data = vec![None; num_params];
                let types = Vec::new();
                stmts.insert(
                    next_stmt,
                    Stmt {
                        sql,
                        num_params,
                        types,
                        long_data,
                    },
                );
                next_stmt += 1;
            }
            Command::StmtExecute { stmt_id, payload } => {
                let Some(st) = stmts.get_mut(&stmt_id) else {
                    conn.write_err(&MySqlError::unknown_stmt_handler(
                        &stmt_id.to_string(),
                        "EXECUTE",
                    ));
                    let _ = conn.flush().await;
                    continue;
                };
                match decode_stmt_execute(payload, st.num_params, &mut st.types, &mut st.long_data)
                {
                    Ok(exec) => answer_execute(&mut conn, &st.sql, exec.params),
                    Err(e) => conn.write_err(&e.client_error().expect("visible")),
                }
            }
            Command::StmtSendLongData {
                stmt_id,
                param,
                data,
            } => {
                if let Some(slot) = stmts
                    .get_mut(&stmt_id)
                    .and_then(|s| s.long_data.get_mut(param as usize))
                {
                    slot.get_or_insert_with(Vec::new).extend_from_slice(data);
                }
                continue;
            }
            Command::StmtClose(id) => {
                stmts.remove(&id);
                continue;
            }
            Command::ChangeUser(cu) => {
                match change_user(&mut conn, &cfg, &info, &*acc, &cu, &login.scramble).await {
                    Ok(_) => {
                        stmts.clear();
                        conn.write_ok(&OkPacket::with_status(AUTOCOMMIT));
                    }
                    Err(e) => return fail(&mut conn, e).await,
                }
            }
            _ => conn.write_err(&MySqlError::unknown_command()),
        }
        if conn.flush().await.is_err() {
            return;
        }
    }
}

async fn fail(conn: &mut PacketConn<TcpStream>, e: basalt_protocol::ProtoError) {
    if let Some(m) = e.client_error() {
        conn.write_err(&m);
        let _ = conn.flush().await;
    }
}

fn meta(name: &str, t: ColumnType, unsigned: bool, decimals: u8) -> ColumnMeta {
    let mut c = ColumnMeta::expr(name, t, 20);
    c.decimals = decimals;
    if unsigned {
        c.flags |= basalt_common::column::flags::UNSIGNED;
    }
    c
}

fn typed_row() -> (Vec<ColumnMeta>, Vec<Value>) {
    let cols = vec![
        meta("i", ColumnType::LongLong, false, 0),
        meta("u", ColumnType::LongLong, true, 0),
        meta("d", ColumnType::Double, false, 31),
        meta("f", ColumnType::Float, false, 31),
        meta("dec", ColumnType::NewDecimal, false, 2),
        ColumnMeta::text("s", 40),
        meta("dt", ColumnType::DateTime, false, 6),
        meta("day", ColumnType::Date, false, 0),
        meta("t", ColumnType::Time, false, 0),
        ColumnMeta::text("n", 10),
    ];
    let row = vec![
        Value::Int(-5),
        Value::UInt(u64::MAX),
        Value::Double(1.5),
        Value::Double(0.1f32 as f64),
        Value::Decimal(Decimal::new(12345, 2)),
        Value::str("héllo"),
        Value::DateTime(DateTime::parse("2024-01-02 03:04:05.000007").expect("dt")),
        Value::Date(Date::new(1999, 12, 31)),
        Value::Time(Time::parse("-12:34:56").expect("time")),
        Value::Null,
    ];
    (cols, row)
}

fn answer_query(conn: &mut PacketConn<TcpStream>, sql: &[u8]) {
    match sql {
        b"SELECT types" => {
            let (cols, row) = typed_row();
            let rows = vec![row];
            let rs = ResultSet {
                columns: &cols,
                rows: &rows,
                status: AUTOCOMMIT,
                warnings: 0,
            };
            conn.write_result_set(&rs, RowFormat::Text);
        }
        b"MULTI" => {
            let cols = vec![meta("x", ColumnType::Long, false, 0)];
            let rows = vec![vec![Value::Int(1)], vec![Value::Int(2)]];
            let rs = ResultSet {
                columns: &cols,
                rows: &rows,
                status: AUTOCOMMIT,
                warnings: 0,
            };
            let ok = OkPacket {
                affected_rows: 3,
                status: AUTOCOMMIT,
                ..Default::default()
            };
            let responses = [
                Response::ResultSet(rs),
                Response::Ok(ok),
                Response::ResultSet(rs),
            ];
            conn.write_responses(&responses, RowFormat::Text);
        }
        b"INSERT" => conn.write_ok(&OkPacket {
            affected_rows: 2,
            last_insert_id: 42,
            status: AUTOCOMMIT,
            warnings: 1,
            info: "Records: 2  Duplicates: 0  Warnings: 1",
            state_changes: &[],
        }),
        _ => conn.write_err(&MySqlError::no_such_table("test", "nope")),
    }
}

fn echo_column(v: &Value) -> ColumnMeta {
    match v {
        Value::Null => meta("c", ColumnType::Null, false, 0),
        Value::Int(_) => meta("c", ColumnType::LongLong, false, 0),
        Value::UInt(_) => meta("c", ColumnType::LongLong, true, 0),
        Value::Double(_) => meta("c", ColumnType::Double, false, 31),
        Value::Decimal(d) => meta("c", ColumnType::NewDecimal, false, d.scale),
        Value::Bytes(_) | Value::Enum(..) => ColumnMeta::text("c", 100),
        Value::Date(_) => meta("c", ColumnType::Date, false, 0),
        Value::DateTime(_) => meta("c", ColumnType::DateTime, false, 6),
        Value::Time(_) => meta("c", ColumnType::Time, false, 6),
    }
}

/// `ECHO ?, ...` returns the parameters with columns typed after them;
/// `DOUBLE_OF ?` returns the parameter in a DOUBLE column (server-side conversion).
fn answer_execute(conn: &mut PacketConn<TcpStream>, sql: &str, params: Vec<Value>) {
    let cols: Vec<ColumnMeta> = if sql.starts_with("DOUBLE_OF") {
        vec![meta("c", ColumnType::Double, false, 31)]
    } else {
        params.iter().map(echo_column).collect()
    };
    let rows = vec![params];
    let rs = ResultSet {
        columns: &cols,
        rows: &rows,
        status: AUTOCOMMIT,
        warnings: 0,
    };
    conn.write_result_set(&rs, RowFormat::Binary);
}

fn opts(port: u16, user: &str, pass: Option<&str>) -> OptsBuilder {
    OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(port)
        .user(Some(user))
        .pass(pass)
        .prefer_socket(false)
        .max_allowed_packet(Some(64 << 20))
        .wait_timeout(Some(28800))
}

async fn connect(port: u16, user: &str, pass: Option<&str>) -> mysql_async::Result<Conn> {
    Conn::new(opts(port, user, pass)).await
}

fn server_code(e: mysql_async::Error) -> u16 {
    match e {
        mysql_async::Error::Server(s) => s.code,
        other => panic!("expected a server error, got {other:?}"),
    }
}

#[tokio::test]
async fn native_logins_and_text_queries() {
    let srv = start_server(AuthPlugin::MysqlNativePassword, 64 << 20).await;
    let mut conn = connect(srv.port, "root", None)
        .await
        .expect("root, empty password");
    assert_eq!(conn.server_version(), (10, 11, 99));
    conn.ping().await.expect("ping");

    let row: Row = conn
        .query_first("SELECT types")
        .await
        .expect("query")
        .expect("one row");
    let texts: Vec<Option<String>> = (0..row.len())
        .map(|i| row.get(i).expect("column"))
        .collect();
    let expect = [
        Some("-5"),
        Some("18446744073709551615"),
        Some("1.5"),
        Some("0.1"),
        Some("123.45"),
        Some("héllo"),
        Some("2024-01-02 03:04:05.000007"),
        Some("1999-12-31"),
        Some("-12:34:56"),
        None,
    ];
    let expect: Vec<Option<String>> = expect.iter().map(|s| s.map(String::from)).collect();
    assert_eq!(texts, expect);
    let columns = row.columns_ref();
    assert_eq!(
        columns[1].column_type(),
        mysql_async::consts::ColumnType::MYSQL_TYPE_LONGLONG
    );
    assert!(columns[1]
        .flags()
        .contains(mysql_async::consts::ColumnFlags::UNSIGNED_FLAG));

    conn.query_drop("INSERT").await.expect("ok packet");
    assert_eq!(conn.affected_rows(), 2);
    assert_eq!(conn.last_insert_id(), Some(42));
    assert_eq!(conn.get_warnings(), 1);
    assert_eq!(
        conn.info().as_ref(),
        "Records: 2  Duplicates: 0  Warnings: 1"
    );

    let err = conn
        .query_drop("SELECT * FROM nope")
        .await
        .expect_err("error packet");
    match err {
        mysql_async::Error::Server(s) => {
            assert_eq!((s.code, s.state.as_str()), (1146, "42S02"));
            assert_eq!(s.message, "Table 'test.nope' doesn't exist");
        }
        other => panic!("unexpected {other:?}"),
    }
    // The connection is still usable after an error.
    conn.ping().await.expect("ping after error");

    let mut result = conn.query_iter("MULTI").await.expect("multi");
    let first: Vec<i64> = result.collect().await.expect("first set");
    assert_eq!(first, vec![1, 2]);
    let second: Vec<Row> = result.collect().await.expect("ok in the middle");
    assert!(second.is_empty());
    let third: Vec<i64> = result.collect().await.expect("third set");
    assert_eq!(third, vec![1, 2]);
    drop(result);
    conn.reset().await.expect("COM_RESET_CONNECTION");
    conn.disconnect().await.expect("quit");

    let mut nat = connect(srv.port, "nat", Some("natpw"))
        .await
        .expect("native password");
    nat.ping().await.expect("ping");
    nat.change_user(
        mysql_async::ChangeUserOpts::default()
            .with_user(Some("sha".into()))
            .with_pass(Some("shapw".into())),
    )
    .await
    .expect("change user to a caching_sha2 account");
    nat.ping().await.expect("ping after change user");
    nat.disconnect().await.expect("quit");

    let err = connect(srv.port, "nat", Some("wrong"))
        .await
        .expect_err("bad password");
    assert_eq!(server_code(err), 1045);
    let err = connect(srv.port, "ghost", None)
        .await
        .expect_err("unknown user");
    assert_eq!(server_code(err), 1045);
}

#[tokio::test]
async fn caching_sha2_full_then_fast_and_switches() {
    let srv = start_server(AuthPlugin::CachingSha2Password, 64 << 20).await;
    // First login: cache miss -> full authentication with the RSA public key.
    let mut c = connect(srv.port, "sha", Some("shapw"))
        .await
        .expect("sha2 full auth");
    c.ping().await.expect("ping");
    c.disconnect().await.expect("quit");
    assert_eq!(*srv.accounts.full_auths.lock().expect("lock"), 1);
    // Second login: fast path (no new full authentication).
    let c = connect(srv.port, "sha", Some("shapw"))
        .await
        .expect("sha2 fast auth");
    c.disconnect().await.expect("quit");
    assert_eq!(*srv.accounts.full_auths.lock().expect("lock"), 1);
    // Wrong password on the fast path.
    let err = connect(srv.port, "sha", Some("nope"))
        .await
        .expect_err("bad password");
    assert_eq!(server_code(err), 1045);
    // Native account behind a caching_sha2 greeting: auth switch.
    let c = connect(srv.port, "nat", Some("natpw"))
        .await
        .expect("switch to native");
    c.disconnect().await.expect("quit");
    // Empty passwords under both plugins.
    let c = connect(srv.port, "root", None).await.expect("root");
    c.disconnect().await.expect("quit");
    let c = connect(srv.port, "sha_empty", None)
        .await
        .expect("sha2, empty password");
    c.disconnect().await.expect("quit");
    let err = connect(srv.port, "sha_empty", Some("x"))
        .await
        .expect_err("password given, none set");
    assert_eq!(server_code(err), 1045);
}

#[tokio::test]
async fn native_greeting_switches_to_caching_sha2_full_auth() {
    let srv = start_server(AuthPlugin::MysqlNativePassword, 64 << 20).await;
    let mut c = connect(srv.port, "sha", Some("shapw"))
        .await
        .expect("switch + full auth");
    c.ping().await.expect("ping");
    c.disconnect().await.expect("quit");
    assert_eq!(*srv.accounts.full_auths.lock().expect("lock"), 1);
}

#[tokio::test]
async fn prepared_statements_binary_both_ways() {
    use mysql_async::Value as V;
    let srv = start_server(AuthPlugin::MysqlNativePassword, 64 << 20).await;
    let mut conn = connect(srv.port, "root", None).await.expect("connect");
    let params = vec![
        V::Int(-7),
        V::UInt(u64::MAX),
        V::Double(2.25),
        V::Float(1.5),
        V::Bytes(b"bin\0ary".to_vec()),
        V::NULL,
        V::Date(2024, 2, 29, 13, 14, 15, 16),
        V::Date(2024, 2, 29, 0, 0, 0, 0),
        V::Time(true, 2, 3, 4, 5, 6),
        V::Time(false, 0, 0, 0, 0, 0),
    ];
    let row: Row = conn
        .exec_first("ECHO ?,?,?,?,?,?,?,?,?,?", params.clone())
        .await
        .expect("execute")
        .expect("row");
    let got = row.unwrap();
    let mut expect = params;
    expect[3] = V::Double(1.5); // FLOAT params come back in a DOUBLE column
    assert_eq!(got, expect);

    // Second execution of the cached statement (types not re-sent or re-sent: both
    // are handled), then a server-side conversion Int -> DOUBLE column.
    let again: Option<(i64, String)> = conn
        .exec_first("ECHO ?,?", (5i64, "x"))
        .await
        .expect("exec");
    assert_eq!(again, Some((5, "x".to_string())));
    let again: Option<(i64, String)> = conn
        .exec_first("ECHO ?,?", (6i64, "y"))
        .await
        .expect("exec");
    assert_eq!(again, Some((6, "y".to_string())));
    let d: Option<f64> = conn.exec_first("DOUBLE_OF ?", (7i64,)).await.expect("exec");
    assert_eq!(d, Some(7.0));
    let d: Option<V> = conn
        .exec_first("DOUBLE_OF ?", (V::NULL,))
        .await
        .expect("exec");
    assert_eq!(d, Some(V::NULL));
    conn.disconnect().await.expect("quit");
}

#[tokio::test]
async fn long_data_and_packets_over_16_mib() {
    let srv = start_server(AuthPlugin::MysqlNativePassword, 64 << 20).await;
    let mut conn = connect(srv.port, "root", None).await.expect("connect");
    // > 16 MiB makes mysql_async send the parameter with COM_STMT_SEND_LONG_DATA
    // (chunks that themselves span two packets) and the echoed row spans two packets.
    let big: Vec<u8> = (0..(17usize << 20)).map(|i| (i % 253) as u8).collect();
    let got: Option<Vec<u8>> = conn
        .exec_first("ECHO ?", (big.clone(),))
        .await
        .expect("exec");
    assert!(got == Some(big), "17 MiB value round-trips");
    conn.ping().await.expect("ping");
    conn.disconnect().await.expect("quit");
}

#[tokio::test]
async fn packet_too_large_gets_1153() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let srv = start_server(AuthPlugin::MysqlNativePassword, 1 << 20).await;
    let mut s = TcpStream::connect(("127.0.0.1", srv.port))
        .await
        .expect("tcp");
    let mut hdr = [0u8; 4];
    s.read_exact(&mut hdr).await.expect("greeting header");
    let mut greeting = vec![0u8; u32::from_le_bytes([hdr[0], hdr[1], hdr[2], 0]) as usize];
    s.read_exact(&mut greeting).await.expect("greeting");
    // Announce a 128 KiB handshake response (over the 64 KiB connection-phase
    // limit, under max_allowed_packet); send only the header.
    s.write_all(&[0x00, 0x00, 0x02, 0x01]).await.expect("write");
    let mut reply = Vec::new();
    s.read_to_end(&mut reply).await.expect("read until close");
    assert_eq!(reply[4], 0xff, "ERR packet");
    assert_eq!(u16::from_le_bytes([reply[5], reply[6]]), 1153);
    assert_eq!(&reply[7..13], b"#08S01");
}

/// What libmariadb/libmysqlclient do with `--default-auth` other than the greeting's
/// plugin: an empty placeholder response, then they wait for an AuthSwitchRequest.
#[tokio::test]
async fn client_plugin_other_than_greeting_gets_auth_switch() {
    use basalt_protocol::capability as cap;
    let srv = start_server(AuthPlugin::MysqlNativePassword, 1 << 20).await;
    let stream = TcpStream::connect(("127.0.0.1", srv.port))
        .await
        .expect("tcp");
    let mut client = PacketConn::new(stream);
    let mut buf = Vec::new();
    client.read_packet(&mut buf).await.expect("greeting");
    let caps = cap::CLIENT_PROTOCOL_41
        | cap::CLIENT_SECURE_CONNECTION
        | cap::CLIENT_PLUGIN_AUTH
        | cap::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
    client.push_packet(|out| {
        out.extend_from_slice(&caps.to_le_bytes());
        out.extend_from_slice(&(1u32 << 24).to_le_bytes());
        out.push(45);
        out.extend_from_slice(&[0; 23]);
        out.extend_from_slice(b"root\0\0caching_sha2_password\0");
    });
    client.flush().await.expect("send response");
    client.read_packet(&mut buf).await.expect("switch request");
    assert_eq!(buf[0], 0xfe, "AuthSwitchRequest, not OK");
    assert!(buf.starts_with(b"\xfemysql_native_password\0"));
    client.push_payload(b"");
    client.flush().await.expect("send empty password");
    client.read_packet(&mut buf).await.expect("final packet");
    assert_eq!(buf[0], 0x00, "OK");
}
