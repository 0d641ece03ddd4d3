//! The client against a scripted primary on a loopback socket: handshake with an
//! auth switch, a text result set with NULLs and several result sets, the dump
//! stream with an event split over 16 MiB packets, ERR 1236, EOF and read timeouts.

use super::*;
use std::net::TcpListener;
use std::thread::JoinHandle;

const PASSWORD: &[u8] = b"s3cret";

fn write_pkt(s: &mut TcpStream, seq: &mut u8, payload: &[u8]) {
    let mut chunks: Vec<&[u8]> = payload.chunks(MAX_PAYLOAD).collect();
    if payload.len().is_multiple_of(MAX_PAYLOAD) {
        chunks.push(&[]);
    }
    for c in chunks {
        let mut head = (c.len() as u32).to_le_bytes();
        head[3] = *seq;
        *seq = seq.wrapping_add(1);
        s.write_all(&head).expect("write header");
        s.write_all(c).expect("write payload");
    }
}

fn read_pkt(s: &mut TcpStream, seq: &mut u8) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let mut head = [0u8; 4];
        s.read_exact(&mut head).expect("read header");
        *seq = head[3].wrapping_add(1);
        let n = u32::from_le_bytes([head[0], head[1], head[2], 0]) as usize;
        let start = out.len();
        out.resize(start + n, 0);
        s.read_exact(&mut out[start..]).expect("read payload");
        if n < MAX_PAYLOAD {
            return out;
        }
    }
}

fn handshake_packet(scramble: &[u8; 20], plugin: &str) -> Vec<u8> {
    let mut p = vec![10];
    p.extend_from_slice(b"10.11.19-MariaDB-log\0");
    p.extend_from_slice(&42u32.to_le_bytes());
    p.extend_from_slice(&scramble[..8]);
    p.push(0);
    let caps: u32 = 0xffff_f7ff;
    p.extend_from_slice(&(caps as u16).to_le_bytes());
    p.push(8);
    p.extend_from_slice(&2u16.to_le_bytes());
    p.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
    p.push(21);
    p.extend_from_slice(&[0; 10]);
    p.extend_from_slice(&scramble[8..]);
    p.push(0);
    p.extend_from_slice(plugin.as_bytes());
    p.push(0);
    p
}

/// Checks a native-password response as a server does: SHA1 of (response XOR
/// SHA1(scramble + stored)) must be the stored SHA1(SHA1(pw)).
fn check_native(scramble: &[u8], response: &[u8]) -> bool {
    let stored = Sha1::digest(Sha1::digest(PASSWORD));
    let mut h = Sha1::new();
    h.update(scramble);
    h.update(stored);
    let mask = h.finalize();
    let stage1: Vec<u8> = response
        .iter()
        .zip(mask.iter())
        .map(|(a, b)| a ^ b)
        .collect();
    response.len() == 20 && Sha1::digest(&stage1) == stored
}

fn ok() -> Vec<u8> {
    vec![0, 0, 0, 2, 0, 0, 0]
}

/// Accepts one connection, authenticates it through an auth switch, then runs `script`.
fn primary(script: impl FnOnce(&mut TcpStream) + Send + 'static) -> (u16, JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    let h = std::thread::spawn(move || {
        let (mut s, _) = l.accept().expect("accept");
        let mut seq = 0;
        write_pkt(
            &mut s,
            &mut seq,
            &handshake_packet(&[7; 20], "caching_sha2_password"),
        );
        let resp = read_pkt(&mut s, &mut seq);
        let caps = u32::from_le_bytes(resp[..4].try_into().expect("caps"));
        assert_eq!(caps, CLIENT_FLAGS);
        assert!(resp[32..].starts_with(b"repl\0"));
        let switch_scramble = [9u8; 20];
        let mut sw = vec![0xfe];
        sw.extend_from_slice(b"mysql_native_password\0");
        sw.extend_from_slice(&switch_scramble);
        sw.push(0);
        write_pkt(&mut s, &mut seq, &sw);
        let answer = read_pkt(&mut s, &mut seq);
        assert!(check_native(&switch_scramble, &answer), "native answer");
        write_pkt(&mut s, &mut seq, &ok());
        script(&mut s);
    });
    (port, h)
}

fn opts(port: u16) -> ConnectOptions {
    let mut o = ConnectOptions::new("127.0.0.1", port, "repl", "s3cret");
    o.read_timeout = Some(Duration::from_secs(10));
    o
}

fn lenenc_str(out: &mut Vec<u8>, s: &[u8]) {
    out.push(s.len() as u8);
    out.extend_from_slice(s);
}

fn column_def(name: &str) -> Vec<u8> {
    let mut p = Vec::new();
    for part in ["def", "", "", ""] {
        lenenc_str(&mut p, part.as_bytes());
    }
    lenenc_str(&mut p, name.as_bytes());
    lenenc_str(&mut p, name.as_bytes());
    p.extend_from_slice(&[0x0c, 8, 0, 0, 0, 0, 0xfd, 0, 0, 0, 0, 0]);
    p
}

fn eof(status: u16) -> Vec<u8> {
    let mut p = vec![0xfe, 0, 0];
    p.extend_from_slice(&status.to_le_bytes());
    p
}

#[test]
fn handshake_queries_register_and_dump() {
    let (port, h) = primary(|s| {
        // SELECT: two columns, a NULL; then a second result set (MULTI_RESULTS).
        let mut seq = 0;
        let q = read_pkt(s, &mut seq);
        assert_eq!(q, b"\x03SELECT 1, NULL; SELECT 2");
        write_pkt(s, &mut seq, &[2]);
        write_pkt(s, &mut seq, &column_def("a"));
        write_pkt(s, &mut seq, &column_def("b"));
        write_pkt(s, &mut seq, &eof(2));
        write_pkt(s, &mut seq, b"\x011\xfb");
        write_pkt(s, &mut seq, &eof(2 | 8));
        write_pkt(s, &mut seq, &[1]);
        write_pkt(s, &mut seq, &column_def("c"));
        write_pkt(s, &mut seq, &eof(2));
        write_pkt(s, &mut seq, b"\x012");
        write_pkt(s, &mut seq, &eof(2));
        // An error.
        let mut seq = 0;
        read_pkt(s, &mut seq);
        write_pkt(s, &mut seq, b"\xff\x28\x04#42000You have an error");
        // COM_REGISTER_SLAVE.
        let mut seq = 0;
        let reg = read_pkt(s, &mut seq);
        assert_eq!(reg[0], 0x15);
        assert_eq!(u32::from_le_bytes(reg[1..5].try_into().expect("id")), 77);
        assert_eq!(reg[5..15], *b"\x09replica-1");
        write_pkt(s, &mut seq, &ok());
        // COM_BINLOG_DUMP: one event of 17 MiB split over two packets, then 1236.
        let mut seq = 0;
        let dump = read_pkt(s, &mut seq);
        assert_eq!(dump[0], 0x12);
        assert_eq!(u32::from_le_bytes(dump[1..5].try_into().expect("pos")), 4);
        assert_eq!(u32::from_le_bytes(dump[7..11].try_into().expect("id")), 77);
        assert_eq!(&dump[11..], b"mariadb-bin.000001");
        let mut big = vec![0u8];
        big.extend((0..17 << 20).map(|k| k as u8));
        write_pkt(s, &mut seq, &big);
        write_pkt(s, &mut seq, b"\x00tiny");
        write_pkt(
            s,
            &mut seq,
            b"\xff\xd4\x04#HY000Could not find first log file name in binary log index file",
        );
    });
    let mut c = PrimaryConn::connect(&opts(port)).expect("connect");
    assert_eq!(c.server().version, "10.11.19-MariaDB-log");
    assert_eq!(c.server().connection_id, 42);
    let rs = c.query("SELECT 1, NULL; SELECT 2").expect("query");
    assert_eq!(rs.columns, vec!["c"]);
    assert_eq!(rs.rows, vec![vec![Some("2".to_string())]]);
    let err = c.query("SELEC").expect_err("syntax error");
    assert_eq!(err.errno(), Some(1064));
    assert!(!err.is_retriable());
    c.register_slave(77, "replica-1", 3306).expect("register");
    let req = DumpRequest {
        server_id: 77,
        file: "mariadb-bin.000001".into(),
        pos: 4,
        flags: 0,
    };
    let mut stream = c.dump(&req).expect("dump");
    let big = stream.next_event().expect("big event").expect("not EOF");
    assert_eq!(big.len(), 17 << 20);
    assert!(big.iter().enumerate().all(|(k, b)| *b == k as u8));
    assert_eq!(
        stream.next_event().expect("small").as_deref(),
        Some(&b"tiny"[..])
    );
    let err = stream.next_event().expect_err("1236");
    assert_eq!(err.errno(), Some(1236));
    assert!(!err.is_retriable(), "1236 is fatal");
    h.join().expect("primary thread");
}

#[test]
fn a_first_result_set_with_nulls_after_a_16_mib_statement() {
    let (port, h) = primary(|s| {
        let mut seq = 0;
        let q = read_pkt(s, &mut seq);
        assert_eq!(
            q.len(),
            MAX_PAYLOAD,
            "joined from a full packet and an empty one"
        );
        assert_eq!(seq, 2);
        write_pkt(s, &mut seq, &[2]);
        write_pkt(s, &mut seq, &column_def("x"));
        write_pkt(s, &mut seq, &column_def("y"));
        write_pkt(s, &mut seq, &eof(2));
        write_pkt(s, &mut seq, b"\x011\xfb");
        write_pkt(s, &mut seq, &eof(2));
    });
    let mut c = PrimaryConn::connect(&opts(port)).expect("connect");
    // COM_QUERY + text: exactly 0xFFFFFF bytes, so an empty packet must follow.
    let sql = format!("SELECT 1, NULL -- {}", "x".repeat(MAX_PAYLOAD - 1 - 18));
    let rs = c.query(&sql).expect("query");
    assert_eq!(rs.columns, vec!["x", "y"]);
    assert_eq!(rs.rows, vec![vec![Some("1".to_string()), None]]);
    h.join().expect("primary thread");
}

#[test]
fn eof_timeout_and_a_closed_connection() {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let (port, h) = primary(move |s| {
        let mut seq = 0;
        read_pkt(s, &mut seq);
        write_pkt(s, &mut seq, b"\x00ev");
        write_pkt(s, &mut seq, &eof(0));
        // Silence until the client timed out, then hang up.
        rx.recv().expect("client timed out");
        let _ = s.shutdown(std::net::Shutdown::Both);
    });
    let c = PrimaryConn::connect(&opts(port)).expect("connect");
    let req = DumpRequest {
        server_id: 5,
        file: String::new(),
        pos: 4,
        flags: DUMP_NON_BLOCK,
    };
    let mut stream = c.dump(&req).expect("dump");
    assert_eq!(
        stream.next_event().expect("event").as_deref(),
        Some(&b"ev"[..])
    );
    assert_eq!(stream.next_event().expect("EOF"), None);
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");
    let err = stream.next_event().expect_err("times out");
    assert!(matches!(err, ClientError::Timeout), "{err:?}");
    assert!(err.is_retriable());
    tx.send(()).expect("primary waits");
    let err = stream.next_event().expect_err("closed");
    assert!(matches!(err, ClientError::Closed), "{err:?}");
    assert!(err.is_retriable());
    h.join().expect("primary thread");
}

#[test]
fn refused_connection_is_retriable() {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    drop(l);
    let err = PrimaryConn::connect(&opts(port)).expect_err("refused");
    assert!(err.is_retriable(), "{err:?}");
}

#[test]
fn native_password_known_answer() {
    // The empty password answers nothing.
    assert!(native_password_response(b"", &[1; 20]).is_empty());
    let r = native_password_response(PASSWORD, &[3; 20]);
    assert!(check_native(&[3; 20], &r));
}
