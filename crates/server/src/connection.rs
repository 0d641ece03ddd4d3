//! One client connection: the handshake on a connection thread, then the command
//! loop ([`crate::command_loop`]), which runs on a thread while the client is
//! working and leaves it while the client is idle ([`crate::park`]).
//!
//! A client can only hurt its own connection: a malformed or oversized packet, or a
//! client that vanishes mid-result, ends this loop and nothing else. Every response
//! is staged in the packet buffer and written with one syscall, except result sets
//! too big for one 16 KiB chunk, which stream while the statement runs (see
//! [`crate::results`]); writes wait at most `net_write_timeout` for the client.

use crate::blocking::{self, Blocking};
use crate::command_loop::Live;
use crate::registry::ConnState;
use crate::results::WireSink;
use crate::statements::Statements;
use crate::stream::Stream;
use crate::tls::SessionTls;
use crate::Server;
use basalt_common::{MySqlError, Value};
use basalt_protocol::{
    authenticate_client, capability, com, read_client_hello, send_greeting, status, Account,
    AccountStore, AuthPlugin, ClientHello, Command, ConnInfo, HandshakeResponse, OkPacket,
    PacketConn, ProtoError, RowFormat,
};
use basalt_sql::stats::{Counters, Stat};
use basalt_sql::Session;
use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

pub(crate) type Conn = PacketConn<Blocking<Stream>>;

/// What COM_REGISTER_SLAVE and COM_BINLOG_DUMP need.
const REPL_SLAVE: basalt_acl::Privs = basalt_acl::Privs::REPL_SLAVE;
/// What COM_SHUTDOWN needs, as the SHUTDOWN statement.
const SHUTDOWN: basalt_acl::Privs = basalt_acl::Privs::SHUTDOWN;

/// The accounts logins are checked against (the engine's accounts and grants),
/// and the `caching_sha2_password` fast-path cache.
pub(crate) struct Accounts<'a> {
    engine: &'a basalt_sql::Engine,
    sha2_cache: &'a Sha2Cache,
}

impl<'a> Accounts<'a> {
    pub fn of(server: &'a Server) -> Accounts<'a> {
        Accounts {
            engine: &server.engine,
            sha2_cache: &server.sha2_cache,
        }
    }
}

impl AccountStore for Accounts<'_> {
    fn lookup(&self, user: &str, host: &str) -> Option<Account> {
        let a = self.engine.login_account(user, host)?;
        let plugin = AuthPlugin::from_name(&a.plugin)?;
        let auth_string = match (plugin, a.auth.as_str()) {
            (_, "") => Vec::new(),
            (AuthPlugin::MysqlNativePassword, hash) => {
                basalt_protocol::native_hash_from_hex(hash)?.to_vec()
            }
            (AuthPlugin::Ed25519, key) => basalt_acl::auth::ed25519_key(key)?.to_vec(),
            (AuthPlugin::CachingSha2Password, hash) => basalt_acl::auth::sha2_hash(hash)?.to_vec(),
        };
        Some(Account {
            plugin,
            auth_string,
        })
    }

    fn sha2_fast_auth_allowed(&self, user: &str, _host: &str, account: &Account) -> bool {
        self.sha2_cache.contains(user, &account.auth_string)
    }

    fn sha2_full_auth_succeeded(&self, user: &str, _host: &str, account: &Account) {
        self.sha2_cache.insert(user, &account.auth_string);
    }
}

/// The `caching_sha2_password` accounts that authenticated fully (TLS or RSA)
/// since the server started, as MySQL keeps them: only they may take the fast
/// path. Keyed by user and stored hash, so that a password change drops the
/// account out (its hash changes).
#[derive(Default)]
pub(crate) struct Sha2Cache(parking_lot::Mutex<HashSet<(String, Vec<u8>)>>);

impl Sha2Cache {
    /// Entries kept at most: only successful logins add one, and a password
    /// change leaves the old one behind, so the set is emptied when it is full.
    const CAPACITY: usize = 1 << 16;

    fn contains(&self, user: &str, hash: &[u8]) -> bool {
        self.0.lock().contains(&(user.to_string(), hash.to_vec()))
    }

    fn insert(&self, user: &str, hash: &[u8]) {
        let mut set = self.0.lock();
        if set.len() >= Self::CAPACITY {
            set.clear();
        }
        set.insert((user.to_string(), hash.to_vec()));
    }
}

/// What the account checks see of a connection's transport.
pub(crate) struct Transport {
    /// Through the Unix socket.
    pub local: bool,
    pub tls: Option<SessionTls>,
}

impl Transport {
    pub fn of(conn: &Conn) -> Transport {
        let stream = &conn.get_ref().0;
        Transport {
            local: stream.is_local_socket(),
            tls: stream.tls().and_then(crate::tls::session_info),
        }
    }

    /// TLS or the Unix socket: what `require_secure_transport` asks for, and
    /// where a password may travel in clear.
    pub fn secure(&self) -> bool {
        self.local || self.tls.is_some()
    }

    fn peer(&self) -> Option<basalt_acl::PeerTls<'_>> {
        self.tls.as_ref().map(|t| basalt_acl::PeerTls {
            cipher: t.cipher,
            cert: t.cert.as_ref().map(|(s, i)| (s.as_str(), i.as_str())),
        })
    }
}

/// The account a successful login uses, or the error that refuses it: 1045 when
/// the transport is not what `require_secure_transport` or the account's
/// `REQUIRE` asks for (as MariaDB answers both), 4151 for a locked account,
/// 1862 for an expired password the client cannot change.
pub(crate) fn login_account(
    server: &Server,
    user: &str,
    host: &str,
    capabilities: u32,
    transport: &Transport,
    using_password: bool,
) -> Result<basalt_acl::Account, MySqlError> {
    let denied = || MySqlError::access_denied(user, host, using_password);
    let account = server.engine.login_account(user, host).ok_or_else(denied)?;
    let insecure_refused = !transport.secure()
        && matches!(
            server.engine.global_variable("require_secure_transport"),
            Some(Value::Int(1) | Value::UInt(1))
        );
    if insecure_refused || !account.tls.admits(transport.peer().as_ref()) {
        return Err(denied());
    }
    if account.locked {
        return Err(MySqlError::new(
            4151,
            "HY000",
            "Access denied, this account is locked",
        ));
    }
    if account.password_expired
        && capabilities & capability::CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS == 0
    {
        return Err(MySqlError::new(
            1862,
            "HY000",
            "Your password has expired. To log in you must change it using a client that supports expired passwords.",
        ));
    }
    Ok(account)
}

/// `max_allowed_packet` for a new connection: the global value now (SET GLOBAL
/// changes it for connections made after).
pub(crate) fn max_allowed_packet(server: &Server) -> usize {
    match server.engine.global_variable("max_allowed_packet") {
        Some(Value::UInt(n)) => n as usize,
        _ => server.config.max_allowed_packet as usize,
    }
}

/// Which listener a connection came in on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Port {
    /// The TCP port or the Unix socket.
    Main,
    /// `--extra-port`: limited by `extra_max_connections`, never parked.
    Extra,
}

/// Serves one client until it quits, is killed, or breaks the protocol.
pub(crate) fn serve(server: &Arc<Server>, stream: Stream, port: Port) {
    stream.set_nodelay();
    let host = stream.peer_host();
    let admission = Admission::of(server, port);
    // Every read of the handshake waits at most connect_timeout. Its writes (the
    // greeting, an auth switch, an RSA key, OK or ERR) are far smaller than a
    // socket's send buffer, so they never wait for the client; the command loop
    // sets both timeouts to the session's values before its first read and
    // write, so each connection costs two setsockopt calls for them, not six.
    let _ = stream.set_read_timeout(Some(admission.connect_timeout));
    let id = server.registry.next_id();
    let state = ConnState::new(
        id,
        host.clone(),
        stream.try_clone().ok(),
        port == Port::Extra,
    );
    let mut conn = PacketConn::new(Blocking::new(stream));
    conn.set_max_allowed_packet(max_allowed_packet(server));
    let pending_limit = crate::registry::Registry::pending_limit(admission.max_connections);
    server.registry.admit(state.clone(), pending_limit);
    server.stats.connections.fetch_add(1, Ordering::Relaxed);
    match login(server, conn, &state, &admission) {
        Some((conn, session)) => {
            state.set_command("Sleep", None);
            let parking = match port {
                Port::Main => crate::park::parking(server),
                Port::Extra => crate::command_loop::Parking::Never,
            };
            let live = Live::new(conn, session, state, parking);
            crate::command_loop::run(server, Box::new(live));
        }
        None => {
            server.replicas.unregister(id);
            server.registry.remove(id);
        }
    }
}

/// The limits a new connection is admitted under, read from the global variables
/// when it connects (so `SET GLOBAL` applies to the next connection).
pub(crate) struct Admission {
    pub max_connections: usize,
    pub connect_timeout: Duration,
}

impl Admission {
    fn of(server: &Server, port: Port) -> Admission {
        let global = |name: &str, default: u64| match server.engine.global_variable(name) {
            Some(Value::UInt(n)) => n,
            Some(Value::Int(n)) => n.max(0) as u64,
            _ => default,
        };
        let max_connections = match port {
            Port::Main => global("max_connections", server.config.max_connections as u64),
            Port::Extra => global(
                "extra_max_connections",
                server.config.threads.extra_max_connections,
            ),
        };
        Admission {
            max_connections: max_connections as usize,
            // MariaDB's range for connect_timeout starts at 2 seconds.
            connect_timeout: Duration::from_secs(global("connect_timeout", 10).max(2)),
        }
    }

    /// Logins allowed at once for `user`: `max_connections`, plus one kept for
    /// an account with CONNECTION ADMIN (root) as MariaDB keeps it, so that an
    /// administrator can still get in when the server is full.
    fn login_limit(&self, user: &str) -> usize {
        self.max_connections + usize::from(user == "root")
    }
}

fn login(
    server: &Arc<Server>,
    conn: Conn,
    state: &Arc<ConnState>,
    admission: &Admission,
) -> Option<(Conn, Session)> {
    let info = ConnInfo {
        connection_id: state.id as u32,
        client_host: &state.host,
        secure_transport: false,
        status: status::SERVER_STATUS_AUTOCOMMIT,
    };
    let Greeted {
        mut conn,
        hello,
        scramble,
    } = greet(server, conn, &info)?;
    let transport = Transport::of(&conn);
    let info = ConnInfo {
        secure_transport: transport.secure(),
        ..info
    };
    let using_password = !hello.auth_response.is_empty();
    let accounts = Accounts::of(server);
    let auth = authenticate_client(
        &mut conn,
        &server.handshake,
        &info,
        &accounts,
        hello,
        scramble,
    );
    let login = match blocking::run(auth) {
        Ok(l) => l,
        Err(e) => {
            if e.client_error().is_some_and(|c| c.code == ACCESS_DENIED) {
                count_denied(server);
            }
            return aborted(server, conn, &e);
        }
    };
    // MariaDB's ed25519 plugin reports every login as using a password.
    let using_password = using_password || login.auth_plugin == AuthPlugin::Ed25519;
    let checked = login_account(
        server,
        &login.user,
        &state.host,
        login.capabilities,
        &transport,
        using_password,
    );
    let account = match checked {
        Ok(a) => a,
        Err(e) => {
            if e.code == ACCESS_DENIED {
                count_denied(server);
            }
            conn.write_err(&e);
            let _ = blocking::run(conn.flush());
            return None;
        }
    };
    if !enter(server, &mut conn, state, admission, &login.user) {
        return None;
    }
    *state.scramble.lock() = login.scramble;
    let session = server
        .engine
        .client_session(state.id, &login.user, &state.host, &account);
    let mut session = match session {
        Ok(s) => s,
        Err(e) => {
            conn.write_err(&e);
            let _ = blocking::run(conn.flush());
            return None;
        }
    };
    adopt_interrupt(state, &session);
    if let Some(t) = &transport.tls {
        session.set_tls(t.version, t.cipher);
    }
    session.set_client_collation(login.collation as u16);
    if login.capabilities & capability::CLIENT_INTERACTIVE != 0 {
        session.set_interactive();
    }
    session.set_multi_statements(login.capabilities & capability::CLIENT_MULTI_STATEMENTS != 0);
    session.set_client_found_rows(login.capabilities & capability::CLIENT_FOUND_ROWS != 0);
    session
        .set_client_ps_multi_results(login.capabilities & capability::CLIENT_PS_MULTI_RESULTS != 0);
    if let Some(db) = login.database.as_deref().filter(|d| !d.is_empty()) {
        if let Err(e) = session.use_database(db) {
            conn.write_err(&e);
            let _ = blocking::run(conn.flush());
            return None;
        }
    }
    {
        let mut i = state.info.lock();
        i.user = login.user.clone();
        i.db = session.current_database().map(str::to_string);
    }
    session.log_command(
        "Connect",
        &format!(
            "{}@{} on {} using {}",
            login.user,
            state.host,
            session.current_database().unwrap_or(""),
            conn.get_ref().0.transport()
        ),
    );
    let _ = session.take_tracked();
    conn.write_ok(&OkPacket::with_status(session.status_flags()));
    blocking::run(conn.flush()).ok()?;
    Some((conn, session))
}

/// The greeting and the client's answer to it.
struct Greeted {
    conn: Conn,
    hello: HandshakeResponse,
    scramble: [u8; basalt_protocol::SCRAMBLE_LEN],
}

/// Sends the greeting and reads the client's answer; after an SSLRequest, runs
/// the TLS handshake and reads the answer again inside TLS. `None` when the
/// connection must close (counted in `Aborted_connects`).
fn greet(server: &Server, mut conn: Conn, info: &ConnInfo<'_>) -> Option<Greeted> {
    let scramble = match blocking::run(send_greeting(&mut conn, &server.handshake, info)) {
        Ok(s) => s,
        Err(e) => return aborted(server, conn, &e),
    };
    let (conn, hello) = match blocking::run(read_client_hello(&mut conn)) {
        Ok(ClientHello::Response(r)) => (conn, r),
        Ok(ClientHello::SslRequest { .. }) => start_tls(server, conn)?,
        Err(e) => return aborted(server, conn, &e),
    };
    Some(Greeted {
        conn,
        hello,
        scramble,
    })
}

/// The TLS handshake after an SSLRequest, then the client's answer (sent
/// encrypted). A client that asked for TLS never continues in plain text.
fn start_tls(server: &Server, conn: Conn) -> Option<(Conn, HandshakeResponse)> {
    let Some(tls) = &server.tls else {
        return aborted(
            server,
            conn,
            &ProtoError::Handshake("TLS is not configured"),
        );
    };
    let (stream, seq, caps, early) = match conn.into_parts() {
        Ok(parts) => parts,
        Err(conn) => return aborted(server, conn, &ProtoError::Handshake("output pending")),
    };
    let stream = match tls.accept(stream.0, &early) {
        Ok(s) => s,
        Err(e) => {
            tracing::debug!("TLS handshake failed: {e}");
            count_aborted(server);
            return None;
        }
    };
    let mut conn = PacketConn::new(Blocking::new(stream));
    conn.set_max_allowed_packet(max_allowed_packet(server));
    conn.set_sequence_id(seq);
    conn.set_capabilities(caps);
    match blocking::run(read_client_hello(&mut conn)) {
        Ok(ClientHello::Response(r)) => Some((conn, r)),
        Ok(ClientHello::SslRequest { .. }) => {
            aborted(server, conn, &ProtoError::Handshake("second SSLRequest"))
        }
        Err(e) => aborted(server, conn, &e),
    }
}

/// ER_ACCESS_DENIED_ERROR.
const ACCESS_DENIED: u16 = 1045;

/// A login refused (`Access_denied_errors`).
fn count_denied(server: &Server) {
    server.stats.access_denied.fetch_add(1, Ordering::Relaxed);
}

fn count_aborted(server: &Server) {
    server
        .stats
        .aborted_connects
        .fetch_add(1, Ordering::Relaxed);
}

/// A failed connection phase: the error goes to the client if it has one.
fn aborted<T>(server: &Server, mut conn: Conn, e: &ProtoError) -> Option<T> {
    count_aborted(server);
    send_fatal(&mut conn, e);
    None
}

/// Counts an authenticated connection against `max_connections` (1040 when the
/// server is full) and lifts the handshake's time limit; false when it must close.
fn enter(
    server: &Server,
    conn: &mut Conn,
    state: &ConnState,
    admission: &Admission,
    user: &str,
) -> bool {
    let Ok(connected) = server
        .registry
        .try_login(state, admission.login_limit(user))
    else {
        let st = &server.stats;
        st.aborted_connects.fetch_add(1, Ordering::Relaxed);
        st.errors_max_connections.fetch_add(1, Ordering::Relaxed);
        conn.write_err(&MySqlError::too_many_connections());
        let _ = blocking::run(conn.flush());
        return false;
    };
    server
        .stats
        .max_used_connections
        .fetch_max(connected as u64, Ordering::Relaxed);
    // Logged in: the command loop replaces connect_timeout with wait_timeout
    // before it reads the first command.
    true
}

/// Sends the ERR for a fatal protocol error if it has one.
pub(crate) fn send_fatal(conn: &mut Conn, e: &ProtoError) {
    if let Some(err) = e.client_error() {
        conn.discard_output();
        conn.write_err(&err);
        let _ = blocking::run(conn.flush());
    }
}

/// COM_STMT_CLOSE and COM_STMT_SEND_LONG_DATA get no response, even when malformed:
/// the client is not reading one.
pub(crate) fn expects_no_reply(payload: &[u8]) -> bool {
    matches!(
        payload.first(),
        Some(&com::COM_STMT_CLOSE | &com::COM_STMT_SEND_LONG_DATA)
    )
}

pub(crate) fn is_disconnect(e: &ProtoError) -> bool {
    matches!(
        e,
        ProtoError::Io(_) | ProtoError::Closed | ProtoError::UnexpectedEof
    )
}

/// Runs one command; returns false when the connection must close.
pub(crate) fn dispatch(
    server: &Arc<Server>,
    conn: &mut Conn,
    state: &Arc<ConnState>,
    session: &mut Session,
    stmts: &mut Statements,
    cmd: Command<'_>,
) -> bool {
    count_command(session.stats(), &cmd);
    match cmd {
        Command::Quit => {
            session.log_command("Quit", "");
            return false;
        }
        Command::Query(sql) => {
            let mut sink = WireSink::new(conn, RowFormat::Text);
            match std::str::from_utf8(sql) {
                Ok(text) => {
                    state.set_command("Query", Some(text));
                    session.log_command("Query", text);
                    session.execute_into(text, &mut sink);
                }
                Err(_) => {
                    let text = String::from_utf8_lossy(sql);
                    state.set_command("Query", Some(&text));
                    session.log_command("Query", &text);
                    session.execute_bytes_into(sql, &mut sink);
                }
            }
            let (flushed, broken) = (sink.flushed, sink.broken().is_some());
            session.stats().add(Stat::BytesSent, flushed);
            update_db(state, session);
            if broken {
                server.stats.aborted_clients.fetch_add(1, Ordering::Relaxed);
                return false;
            }
            if session.close_requested() {
                let _ = blocking::run(conn.flush());
                return false;
            }
        }
        Command::InitDb(db) => {
            state.set_command("Init DB", None);
            let db = session.client_name(db);
            session.log_command("Init DB", &db);
            match session.use_database(&db) {
                Ok(()) => {
                    let tracked = session.take_tracked();
                    let changes = crate::results::state_changes(&tracked);
                    conn.write_ok(&OkPacket {
                        status: session.status_flags(),
                        state_changes: &changes,
                        ..OkPacket::with_status(0)
                    });
                }
                Err(e) => conn.write_err(&e),
            }
            update_db(state, session);
        }
        Command::Ping => write_ok(conn, session, 0, 0, ""),
        Command::Shutdown => match session.require_global_privilege(SHUTDOWN, "SHUTDOWN") {
            Ok(()) => {
                server.request_stop(&format!("COM_SHUTDOWN from connection {}", state.id));
                write_ok(conn, session, 0, 0, "");
            }
            Err(e) => conn.write_err(&e),
        },
        Command::Statistics => conn.write_statistics(&statistics(server)),
        Command::FieldList { table, wildcard } => {
            state.set_command("Field List", None);
            let table = session.client_name(table);
            session.log_command("Field List", &format!("{table} "));
            let wildcard = session.client_name(wildcard);
            let wildcard = (!wildcard.is_empty()).then_some(&*wildcard);
            match session.field_list(&table, wildcard) {
                Ok(cols) => conn.write_field_list(&cols, &[], session.status_flags()),
                Err(e) => conn.write_err(&e),
            }
        }
        Command::ResetConnection => {
            session.reset();
            stmts.clear();
            write_ok(conn, session, 0, 0, "");
        }
        Command::ChangeUser(req) => {
            return crate::statements::change_user(server, conn, state, session, stmts, req)
        }
        Command::ProcessKill(id) => match session.kill_connection(id as u64) {
            Ok(()) => write_ok(conn, session, 0, 0, ""),
            Err(e) => conn.write_err(&e),
        },
        Command::SetOption { multi_statements } => {
            session.set_multi_statements(multi_statements);
            conn.write_end_marker(0, session.status_flags());
        }
        Command::Debug => conn.write_end_marker(0, session.status_flags()),
        Command::Refresh(bits) => refresh(conn, session, bits),
        Command::StmtPrepare(_)
        | Command::StmtExecute { .. }
        | Command::StmtSendLongData { .. }
        | Command::StmtClose(_)
        | Command::StmtReset(_)
        | Command::StmtFetch { .. } => {
            return stmts.dispatch(server, conn, state, session, cmd);
        }
        Command::RegisterSlave(body) => {
            match session.require_global_privilege(REPL_SLAVE, "REPLICATION SLAVE") {
                Ok(()) => crate::dump::register_slave(server, conn, state, session, body),
                Err(e) => conn.write_err(&e),
            }
        }
        Command::BinlogDump(body) => {
            match session.require_global_privilege(REPL_SLAVE, "REPLICATION SLAVE") {
                // A dump mostly waits for the next event: as a declared wait it
                // does not hold one of the thread pool's running slots.
                Ok(()) => {
                    return basalt_common::wait::waiting(|| {
                        crate::dump::binlog_dump(server, conn, state, session, body)
                    })
                }
                Err(e) => conn.write_err(&e),
            }
        }
        Command::BinlogDumpGtid | Command::Unknown(_) => {
            conn.write_err(&MySqlError::unknown_command())
        }
    }
    true
}

/// Counts a command in `Questions` and its `Com_*` counter, as MariaDB's
/// dispatch does (statements a COM_QUERY carries count in their own `Com_*`
/// as they run; COM_REFRESH's in `Com_flush` through the FLUSH it runs).
fn count_command(stats: &Counters, cmd: &Command<'_>) {
    let com = match cmd {
        Command::Quit | Command::Query(_) | Command::Refresh(_) => None,
        Command::InitDb(_) => Some(Stat::ComChangeDb),
        Command::FieldList { .. } => Some(Stat::ComShowFields),
        Command::ProcessKill(_) => Some(Stat::ComKill),
        Command::SetOption { .. } => Some(Stat::ComSetOption),
        Command::StmtPrepare(_) => Some(Stat::ComStmtPrepare),
        Command::StmtExecute { .. } => Some(Stat::ComStmtExecute),
        Command::StmtSendLongData { .. } => Some(Stat::ComStmtSendLongData),
        Command::StmtClose(_) => Some(Stat::ComStmtClose),
        Command::StmtReset(_) => Some(Stat::ComStmtReset),
        Command::StmtFetch { .. } => Some(Stat::ComStmtFetch),
        _ => Some(Stat::ComAdminCommands),
    };
    if let Some(c) = com {
        stats.bump(c);
    }
    // MariaDB leaves these out of Questions (CF_SKIP_QUESTIONS).
    if !matches!(
        cmd,
        Command::Quit
            | Command::Ping
            | Command::Statistics
            | Command::StmtPrepare(_)
            | Command::StmtClose(_)
            | Command::StmtReset(_)
    ) {
        stats.bump(Stat::Questions);
    }
}

/// Lets KILL QUERY reach the session's running statement.
pub(crate) fn adopt_interrupt(state: &ConnState, session: &Session) {
    state.set_interrupt(session.interrupt_flag());
}

fn update_db(state: &ConnState, session: &Session) {
    let db = session.current_database();
    let mut info = state.info.lock();
    if info.db.as_deref() != db {
        info.db = db.map(str::to_string);
    }
}

/// COM_REFRESH: the FLUSH statement of each `REFRESH_*` bit, in order; the first
/// error is the answer. REFRESH_THREADS (flush the thread cache) needs nothing:
/// cached connection threads keep no session state, and idle ones exit on their
/// own. REFRESH_SLAVE / REFRESH_MASTER are RESET SLAVE / RESET MASTER, which need
/// replication.
fn refresh(conn: &mut Conn, session: &mut Session, bits: u8) {
    const FLUSHES: [(u8, &str); 5] = [
        (0x01, "FLUSH PRIVILEGES"),
        (0x02, "FLUSH LOGS"),
        (0x04, "FLUSH TABLES"),
        (0x08, "FLUSH HOSTS"),
        (0x10, "FLUSH STATUS"),
    ];
    if bits & 0xc0 != 0 {
        let what = if bits & 0x40 != 0 {
            "RESET SLAVE"
        } else {
            "RESET MASTER"
        };
        conn.write_err(&MySqlError::not_supported(what));
        return;
    }
    for (bit, sql) in FLUSHES {
        if bits & bit == 0 {
            continue;
        }
        for r in session.execute(sql) {
            if let Err(e) = r {
                conn.write_err(&e);
                return;
            }
        }
    }
    write_ok(conn, session, 0, 0, "");
}

pub(crate) fn write_ok(
    conn: &mut Conn,
    session: &Session,
    affected: u64,
    last_id: u64,
    info: &str,
) {
    conn.write_ok(&OkPacket {
        affected_rows: affected,
        last_insert_id: last_id,
        status: session.status_flags(),
        warnings: session.warning_count(),
        info,
        ..OkPacket::with_status(0)
    });
}

fn statistics(server: &Server) -> String {
    let uptime = server.started.elapsed().as_secs().max(1);
    let questions = server.engine.status_total(Stat::Questions);
    format!(
        "Uptime: {uptime}  Threads: {}  Questions: {questions}  Slow queries: 0  Opens: 0  Open tables: 0  Queries per second avg: {:.3}",
        server.registry.count(),
        questions as f64 / uptime as f64
    )
}

#[cfg(test)]
mod tests {
    use super::Sha2Cache;

    #[test]
    fn the_fast_path_needs_a_full_login_with_the_current_password() {
        let cache = Sha2Cache::default();
        assert!(!cache.contains("u", &[1; 32]));
        cache.insert("u", &[1; 32]);
        assert!(cache.contains("u", &[1; 32]));
        // Another user, or the same one after a password change: full again.
        assert!(!cache.contains("v", &[1; 32]));
        assert!(!cache.contains("u", &[2; 32]));
    }
}
