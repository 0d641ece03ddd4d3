//! A minimal server on this crate's API, for trying real clients by hand:
//! `cargo run -p basalt-protocol --example mini_server [port]`, then e.g.
//! `mariadb -h127.0.0.1 -P<port> -uroot` or `-unat -pnatpw` or `-usha -pshapw`.
//! Every query answers one row describing itself; `error` answers an ERR packet.

use basalt_common::{ColumnMeta, ColumnType, MySqlError, Value};
use basalt_protocol::{
    change_user, parse_command, server_handshake, status, Account, AccountStore, AuthPlugin,
    Command, ConnInfo, HandshakeConfig, OkPacket, PacketConn, ResultSet, RowFormat, RsaKeyPair,
    Statistics,
};
use std::sync::Arc;
use tokio::net::{TcpListener, TcpStream};

struct Accounts;

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
            "ed" => Some(Account::with_password(AuthPlugin::Ed25519, b"edpw")),
            _ => None,
        }
    }
    fn sha2_fast_auth_allowed(&self, _user: &str, _host: &str, _account: &Account) -> bool {
        // FULL_AUTH=1 exercises the full (RSA) path on every login.
        std::env::var_os("FULL_AUTH").is_none()
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    println!("listening on {}", listener.local_addr()?);
    let key = RsaKeyPair::generate(2048).map_err(std::io::Error::other)?;
    let cfg = Arc::new(HandshakeConfig {
        rsa_key: Some(Arc::new(key)),
        ..HandshakeConfig::default()
    });
    let mut id = 0;
    loop {
        let (stream, _) = listener.accept().await?;
        id += 1;
        tokio::spawn(serve(stream, cfg.clone(), id));
    }
}

async fn serve(stream: TcpStream, cfg: Arc<HandshakeConfig>, id: u32) {
    let mut conn = PacketConn::new(stream);
    let st = status::SERVER_STATUS_AUTOCOMMIT;
    let info = ConnInfo {
        connection_id: id,
        client_host: "localhost",
        secure_transport: false,
        status: st,
    };
    let login = match server_handshake(&mut conn, &cfg, &info, &Accounts).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("handshake: {e}");
            if let Some(m) = e.client_error() {
                conn.write_err(&m);
                let _ = conn.flush().await;
            }
            return;
        }
    };
    eprintln!(
        "login {:?} plugin {:?} attrs {:?}",
        login.user, login.auth_plugin, login.attributes
    );
    conn.write_ok(&OkPacket::with_status(st));
    let mut buf = Vec::new();
    while conn.flush().await.is_ok() && conn.read_command(&mut buf).await.is_ok() {
        let cmd = match parse_command(&buf, conn.capabilities()) {
            Ok(c) => c,
            Err(e) => {
                conn.write_err(&e.client_error().expect("malformed is client-visible"));
                continue;
            }
        };
        eprintln!("{cmd:?}");
        match cmd {
            Command::Quit => return,
            Command::Query(b"error") => conn.write_err(&MySqlError::no_such_table("test", "t")),
            Command::Query(sql) => {
                let cols = [
                    ColumnMeta::text("query", 200),
                    ColumnMeta::expr("length", ColumnType::LongLong, 20),
                    ColumnMeta::expr("half", ColumnType::Double, 22),
                    ColumnMeta::text("nothing", 10),
                ];
                let rows = vec![vec![
                    Value::Bytes(sql.to_vec()),
                    Value::Int(sql.len() as i64),
                    Value::Double(sql.len() as f64 / 2.0),
                    Value::Null,
                ]];
                let rs = ResultSet {
                    columns: &cols,
                    rows: &rows,
                    status: st,
                    warnings: 0,
                };
                conn.write_result_set(&rs, RowFormat::Text);
            }
            Command::Statistics => conn.write_statistics(&Statistics::default().to_text()),
            Command::FieldList { .. } => {
                conn.write_field_list(&[ColumnMeta::text("c", 10)], &[None], st)
            }
            Command::ChangeUser(cu) => {
                match change_user(&mut conn, &cfg, &info, &Accounts, &cu, &login.scramble).await {
                    Ok(_) => conn.write_ok(&OkPacket::with_status(st)),
                    Err(e) => {
                        conn.write_err(&e.client_error().expect("auth errors are client-visible"))
                    }
                }
            }
            Command::SetOption { .. } | Command::Debug => conn.write_end_marker(0, st),
            Command::StmtClose(_) | Command::StmtSendLongData { .. } => {}
            Command::Unknown(_) => conn.write_err(&MySqlError::unknown_command()),
            _ => conn.write_ok(&OkPacket::with_status(st)),
        }
    }
}
