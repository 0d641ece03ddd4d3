//! The dump stream against MariaDB 10.11's own answers.
//!
//! `tests/data/mariadb-bin.00000[1-5]` are binlog files written by MariaDB 10.11
//! (server_id 1; files 1-3 and 5 with CRC32, 4 with `binlog_checksum=NONE`), and
//! `tests/data/mariadb_dump/*.txt` the packets that MariaDB sent, one hex payload a
//! line, for dump requests made while file 4 was the last file and 588 bytes long
//! (replica server id 77). Every test here replays a request against a
//! [`DirSource`] with that durable end and wants the same bytes.

use super::*;
use crate::DumpSource;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// The log as it was when the captures were made.
fn golden_source() -> DirSource {
    let s = DirSource::open(&data_dir(), "mariadb-bin.index", 1).expect("golden files");
    s.set_end("mariadb-bin.000004", 588);
    s
}

#[derive(Default)]
struct Capture {
    packets: Vec<Vec<u8>>,
    flushes: usize,
    /// Fail every write once this many packets were taken (a client that left).
    fail_after: Option<usize>,
}

impl DumpSink for Capture {
    fn event(&mut self, ev: &[u8]) -> io::Result<()> {
        if self.fail_after.is_some_and(|n| self.packets.len() >= n) {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "client gone"));
        }
        self.packets.push([&[0u8][..], ev].concat());
        Ok(())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.flushes += 1;
        Ok(())
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// What the connection would carry: the packets, then EOF or the ERR packet.
fn run(src: &dyn DumpSource, req: &DumpRequest, vars: &DumpVars) -> Vec<String> {
    let mut sink = Capture::default();
    let stop = AtomicBool::new(false);
    let end = dump(src, req, vars, &mut sink, &stop);
    let mut lines: Vec<String> = sink.packets.iter().map(|p| hex(p)).collect();
    match end {
        Ok(()) => lines.push("fe00000000".into()),
        Err(e) => {
            let m = e.client_error().expect("a client-visible error");
            let mut p = vec![0xff];
            p.extend_from_slice(&m.code.to_le_bytes());
            p.push(b'#');
            p.extend_from_slice(m.state.as_bytes());
            p.extend_from_slice(m.message.as_bytes());
            lines.push(hex(&p));
        }
    }
    lines
}

fn golden(name: &str) -> Vec<String> {
    let path = data_dir().join("mariadb_dump").join(format!("{name}.txt"));
    std::fs::read_to_string(path)
        .expect("capture file")
        .lines()
        .map(str::to_string)
        .collect()
}

fn req(pos: u64, flags: u16, file: &str) -> DumpRequest {
    DumpRequest {
        pos,
        flags,
        server_id: 77,
        file: file.into(),
    }
}

fn crc32_vars() -> DumpVars {
    DumpVars {
        master_binlog_checksum: Some("CRC32".into()),
        ..DumpVars::default()
    }
}

fn gtid_vars(state: &str, capability: i64) -> DumpVars {
    DumpVars {
        slave_connect_state: Some(state.into()),
        mariadb_slave_capability: capability,
        ..crc32_vars()
    }
}

fn assert_same(name: &str, got: Vec<String>) {
    let want = golden(name);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{name}: packet {i} differs");
    }
    assert_eq!(got.len(), want.len(), "{name}: packet count");
}

#[test]
fn file_and_position_dumps_match_mariadb() {
    let src = golden_source();
    let f = |n: u32| format!("mariadb-bin.{n:06}");
    let none = DumpVars {
        master_binlog_checksum: Some("NONE".into()),
        ..DumpVars::default()
    };
    let cases: Vec<(&str, DumpRequest, DumpVars)> = vec![
        ("f2_pos4_nb", req(4, 1, &f(2)), crc32_vars()),
        ("f2_mid_nb", req(344, 1, &f(2)), crc32_vars()),
        ("f3_nock", req(4, 1, &f(3)), DumpVars::default()),
        ("f3_none", req(4, 1, &f(3)), none),
        ("f4_nock", req(4, 1, &f(4)), DumpVars::default()),
        ("nofile", req(4, 1, &f(99)), crc32_vars()),
        ("pos_big", req(100000, 1, &f(2)), crc32_vars()),
        ("pos_3", req(3, 1, &f(2)), crc32_vars()),
        ("pos_notboundary", req(300, 1, &f(2)), crc32_vars()),
        ("emptyname", req(4, 1, ""), crc32_vars()),
    ];
    for (name, r, v) in cases {
        assert_same(name, run(&src, &r, &v));
    }
}

#[test]
fn gtid_dumps_match_mariadb() {
    let src = golden_source();
    let cases = [
        ("gtid_0-1-4", "0-1-4", 4),
        ("gtid_0-1-5", "0-1-5", 4),
        ("gtid_empty", "", 4),
        ("gtid_ahead", "0-1-20", 4),
        ("gtid_diverged", "0-2-3", 4),
        ("gtid_otherdomain", "0-1-8,5-1-3", 4),
        ("gtid_cap0", "0-1-6", 0),
        ("gtid_cap2", "0-1-6", 2),
    ];
    for (name, state, cap) in cases {
        assert_same(name, run(&src, &req(4, 1, ""), &gtid_vars(state, cap)));
    }
}

#[test]
fn checksum_variable_values_match_mariadb() {
    // Captured with the whole log (files 1-5, file 5 in use with CRC32).
    let src = DirSource::open(&data_dir(), "mariadb-bin.index", 1).expect("golden files");
    for (name, value) in [("ck_all", "ALL"), ("ck_lower", "crc32"), ("ck_null", "")] {
        let vars = DumpVars {
            master_binlog_checksum: Some(value.into()),
            ..DumpVars::default()
        };
        assert_same(name, run(&src, &req(4, 1, "mariadb-bin.000004"), &vars));
    }
}

#[test]
fn server_id_zero_does_not_wait() {
    let src = golden_source();
    let mut r = req(4, 0, "mariadb-bin.000004");
    r.server_id = 0;
    assert_same("sid0_block", run(&src, &r, &crc32_vars()));
}

#[test]
fn purged_gtid_state_is_1236() {
    // Without file 1 in the index, 0-1-2 (in file 1) is gone.
    let dir = tempfile::tempdir().expect("temp dir");
    for n in 2..=4 {
        let name = format!("mariadb-bin.{n:06}");
        std::fs::copy(data_dir().join(&name), dir.path().join(&name)).expect("copy");
    }
    std::fs::write(
        dir.path().join("i.index"),
        "./mariadb-bin.000002\n./mariadb-bin.000003\n./mariadb-bin.000004\n",
    )
    .expect("index");
    let src = DirSource::open(dir.path(), "i.index", 1).expect("source");
    src.set_end("mariadb-bin.000004", 588);
    let got = run(&src, &req(4, 1, ""), &gtid_vars("0-1-2", 4));
    let last = got.last().expect("an answer");
    let want = hex(
        b"Could not find GTID state requested by slave in any binlog files. Probably the slave \
          state is too old and required binlog files have been purged.",
    );
    assert_eq!(got.len(), 1);
    assert!(last.starts_with("ffd404234859303030"), "1236 HY000: {last}");
    assert!(last.ends_with(&want));
}

#[test]
fn strict_mode_without_a_hole_streams_and_until_is_refused() {
    // The log has 0-1-1..0-1-8 without holes: strict mode changes nothing.
    let src = golden_source();
    let mut v = gtid_vars("0-1-5", 4);
    v.slave_gtid_strict_mode = true;
    assert_same("gtid_0-1-5", run(&src, &req(4, 1, ""), &v));
    v.slave_until_gtid = Some("0-1-7".into());
    let got = run(&src, &req(4, 1, ""), &v);
    assert!(got[0].starts_with("ff5104"), "UNTIL is refused with 1105");
}

#[test]
fn corrupted_event_is_never_sent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let name = "mariadb-bin.000002";
    let mut bytes = std::fs::read(data_dir().join(name)).expect("read");
    bytes[520] ^= 0x40; // inside the WRITE_ROWS event at 502..545
    std::fs::write(dir.path().join(name), &bytes).expect("write");
    std::fs::write(dir.path().join("x.index"), format!("./{name}\n")).expect("index");
    let src = DirSource::open(dir.path(), "x.index", 1).expect("source");
    let got = run(&src, &req(4, 1, name), &crc32_vars());
    let err = got.last().expect("an answer");
    let text = format!(
        "event read from binlog did not pass crc check; the first event '{name}' at 4, the last \
         event read from '{name}' at 502, the last byte read from '{name}' at 545."
    );
    assert!(err.ends_with(&hex(text.as_bytes())), "{err}");
    // Everything before the damaged event went out (GTID_LIST, BINLOG_CHECKPOINT,
    // GTID and ANNOTATE_ROWS as the queries a capability-0 replica gets), nothing
    // from it on.
    let types: Vec<u8> = got[..got.len() - 1]
        .iter()
        .map(|p| u8::from_str_radix(&p[10..12], 16).expect("hex"))
        .collect();
    assert_eq!(types, vec![4, 15, 2, 2, 2, 2, 19]);
}

#[test]
fn waits_at_the_end_with_heartbeats_then_follows_new_events() {
    let src = Arc::new(golden_source());
    src.set_end("mariadb-bin.000004", 336);
    let stop = Arc::new(AtomicBool::new(false));
    let vars = DumpVars {
        heartbeat_period_ns: 50_000_000,
        mariadb_slave_capability: 4,
        ..crc32_vars()
    };
    let (t, rx) = spawn_dump(src.clone(), "mariadb-bin.000004", vars, stop.clone());
    let next = || rx.recv_timeout(Duration::from_secs(5)).expect("a packet");
    let ty = |p: &[u8]| p[1 + event::TYPE_OFFSET];
    let (rot, fd, gl, cp) = (next(), next(), next(), next());
    assert_eq!((ty(&rot), ty(&fd), ty(&gl), ty(&cp)), (4, 15, 163, 161));
    let hb = next();
    assert_eq!(ty(&hb), event::types::HEARTBEAT);
    assert_eq!(event::u32_at(&hb[1..], event::LOG_POS_OFFSET), 336);
    assert_eq!(&hb[1 + event::HEADER_LEN..], b"mariadb-bin.000004");
    assert_eq!(ty(&next()), event::types::HEARTBEAT);
    src.set_end("mariadb-bin.000004", 588);
    let mut after = Vec::new();
    loop {
        let p = next();
        if ty(&p) != event::types::HEARTBEAT {
            after.push(ty(&p));
        }
        if after.len() == 5 {
            break;
        }
    }
    assert_eq!(after, vec![162, 19, 23, 16, 161]);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let end = t.join().expect("dump thread");
    assert!(matches!(end, Err(DumpError::Killed)));
}

#[test]
fn a_client_that_leaves_ends_the_dump() {
    let src = golden_source();
    let mut sink = Capture {
        fail_after: Some(3),
        ..Capture::default()
    };
    let stop = AtomicBool::new(false);
    let end = dump(&src, &req(4, 1, ""), &crc32_vars(), &mut sink, &stop);
    assert!(matches!(end, Err(DumpError::Disconnected(_))));
    assert_eq!(sink.packets.len(), 3);
    assert!(end
        .as_ref()
        .err()
        .and_then(DumpError::client_error)
        .is_none());
}

#[test]
fn parses_com_binlog_dump() {
    let mut p = 344u32.to_le_bytes().to_vec();
    p.extend_from_slice(&1u16.to_le_bytes());
    p.extend_from_slice(&77u32.to_le_bytes());
    p.extend_from_slice(b"mariadb-bin.000002");
    assert_eq!(
        parse_dump_request(&p),
        Some(req(344, 1, "mariadb-bin.000002"))
    );
    assert_eq!(parse_dump_request(&p[..9]), None);
}

/// Runs a blocking dump on a thread; its packets arrive on the returned channel.
fn spawn_dump(
    src: Arc<DirSource>,
    file: &str,
    vars: DumpVars,
    stop: Arc<AtomicBool>,
) -> (
    std::thread::JoinHandle<Result<(), DumpError>>,
    std::sync::mpsc::Receiver<Vec<u8>>,
) {
    struct Chan(std::sync::mpsc::Sender<Vec<u8>>);
    impl DumpSink for Chan {
        fn event(&mut self, ev: &[u8]) -> io::Result<()> {
            self.0
                .send([&[0u8][..], ev].concat())
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let r = req(4, 0, file);
    let t = std::thread::spawn(move || dump(&*src, &r, &vars, &mut Chan(tx), &stop));
    (t, rx)
}

#[test]
fn a_waiting_dump_follows_a_new_file_and_stops_when_killed() {
    let src = Arc::new(golden_source());
    src.set_end("mariadb-bin.000003", 662);
    let stop = Arc::new(AtomicBool::new(false));
    let vars = DumpVars {
        mariadb_slave_capability: 4,
        ..crc32_vars()
    };
    let (t, rx) = spawn_dump(src.clone(), "mariadb-bin.000003", vars, stop.clone());
    let next = || rx.recv_timeout(Duration::from_secs(5)).expect("a packet");
    let ty = |p: &[u8]| p[1 + event::TYPE_OFFSET];
    let first: Vec<u8> = (0..10).map(|_| ty(&next())).collect();
    // File 3 to its end, its own ROTATE last; then nothing (no heartbeats asked).
    assert_eq!(first, vec![4, 15, 163, 161, 162, 19, 25, 16, 161, 4]);
    assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    src.set_end("mariadb-bin.000004", 588);
    let rotate = next();
    assert_eq!(ty(&rotate), event::types::ROTATE);
    assert_eq!(
        &rotate[1 + event::HEADER_LEN + 8..rotate.len() - 4],
        b"mariadb-bin.000004"
    );
    let rest: Vec<u8> = (0..7).map(|_| ty(&next())).collect();
    assert_eq!(rest, vec![15, 163, 161, 162, 19, 23, 16]);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let end = t.join().expect("dump thread");
    assert!(matches!(end, Err(DumpError::Killed)));
}

#[test]
fn a_missing_next_file_is_1236() {
    // The index lists file 2 only, but the end says file 3: file 2 is complete and
    // nothing follows it in the index.
    let dir = tempfile::tempdir().expect("temp dir");
    let name = "mariadb-bin.000002";
    std::fs::copy(data_dir().join(name), dir.path().join(name)).expect("copy");
    std::fs::write(dir.path().join("x.index"), format!("./{name}\n")).expect("index");
    let src = DirSource::open(dir.path(), "x.index", 1).expect("source");
    src.set_end("mariadb-bin.000003", 4);
    let got = run(&src, &req(4, 1, name), &crc32_vars());
    let text = format!(
        "could not find next log; the first event '{name}' at 4, the last event read from \
         '{name}' at 858, the last byte read from '{name}' at 907."
    );
    assert!(got.last().expect("answer").ends_with(&hex(text.as_bytes())));
}

/// A semi-sync dump: every packet is the plain one with `0xEF flag` after the
/// `0x00`, and only the event ending a logged transaction asks for a reply, after
/// which the sink flushes and restarts its sequence.
#[test]
fn semisync_dump_carries_the_header_and_asks_for_the_logged_end() {
    struct Semi {
        packets: Vec<Vec<u8>>,
        restarts: Vec<usize>,
    }
    impl DumpSink for Semi {
        fn event(&mut self, ev: &[u8]) -> io::Result<()> {
            self.packets.push([&[0u8][..], ev].concat());
            Ok(())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn restart_sequence(&mut self) {
            self.restarts.push(self.packets.len());
        }
    }
    let src = golden_source();
    let f4 = "mariadb-bin.000004";
    let semi = crate::semisync::SemiSync::new();
    semi.set_enabled(true);
    let session = semi.dump_session(77);
    let plain = run(&src, &req(4, 1, f4), &crc32_vars());
    assert!(semi.logged(&crate::semisync::Coord::new(f4, 588)));
    let mut sink = Semi {
        packets: Vec::new(),
        restarts: Vec::new(),
    };
    let stop = AtomicBool::new(false);
    dump_with(
        &src,
        &req(4, 1, f4),
        &crc32_vars(),
        &mut sink,
        &stop,
        Some(&session),
    )
    .expect("dump to the end");
    assert_eq!(semi.clients(), 1);
    assert_eq!(
        sink.packets.len() + 1,
        plain.len(),
        "same packets, then EOF"
    );
    let last = sink.packets.len() - 1;
    for (i, (p, want)) in sink.packets.iter().zip(&plain).enumerate() {
        let flag = if i == last { "01" } else { "00" };
        assert_eq!(
            hex(p),
            format!("00ef{flag}{}", &want[2..]),
            "packet {i} with the semi-sync header"
        );
    }
    assert_eq!(sink.restarts, vec![sink.packets.len()]);
    assert_eq!(semi.counter("net_waits"), Some(1));
    drop(session);
    assert_eq!(semi.clients(), 0);
}
