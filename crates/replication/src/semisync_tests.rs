//! Semi-sync state machine: waits, acknowledgements, timeouts and switching back on.

use super::*;
use std::thread;

fn at(pos: u64) -> Coord {
    Coord::new("basalt-bin.000001", pos)
}

fn ack(pos: u64) -> Vec<u8> {
    let mut p = vec![SYNC_MAGIC];
    p.extend_from_slice(&pos.to_le_bytes());
    p.extend_from_slice(b"basalt-bin.000001");
    p
}

fn enabled(timeout_ms: u64) -> Arc<SemiSync> {
    let s = SemiSync::new();
    s.set_timeout_ms(timeout_ms);
    s.set_enabled(true);
    s
}

#[test]
fn parses_acks_and_quit() {
    assert_eq!(parse_reply(&ack(1234)), Ok(Reply::Ack(at(1234))));
    assert_eq!(parse_reply(&[0x01]), Ok(Reply::Quit));
    assert_eq!(parse_reply(&[0x02, 0]), Err(ReplyError::Magic));
    assert_eq!(parse_reply(&[SYNC_MAGIC, 1, 2]), Err(ReplyError::TooSmall));
    let mut long = vec![SYNC_MAGIC; 9];
    long.extend(std::iter::repeat_n(b'x', 512));
    assert_eq!(parse_reply(&long), Err(ReplyError::NameTooLong));
}

#[test]
fn disabled_never_waits_or_asks() {
    let s = SemiSync::new();
    assert!(!s.logged(&at(100)));
    assert!(!s.need_reply("basalt-bin.000001", 100));
    s.commit_wait(&at(100));
    assert_eq!(s.counter("no_tx"), Some(0));
    assert!(!s.is_on());
}

#[test]
fn a_commit_waits_for_its_ack() {
    let s = enabled(10_000);
    let d = s.dump_session(2);
    d.start(&at(4));
    assert_eq!(s.clients(), 1);
    assert!(s.logged(&at(300)));
    // Only the transaction's last event asks for a reply.
    assert!(!d.need_reply("basalt-bin.000001", 200));
    assert!(d.need_reply("basalt-bin.000001", 300));
    d.asked(at(300));
    let waiter = {
        let s = s.clone();
        thread::spawn(move || s.commit_wait(&at(300)))
    };
    while s.counter("wait_sessions") != Some(1) {
        thread::sleep(Duration::from_millis(1));
    }
    assert!(d.packet(&ack(300)));
    waiter.join().expect("waiter");
    assert_eq!(s.counter("yes_tx"), Some(1));
    assert_eq!(s.counter("get_ack"), Some(1));
    assert_eq!(s.counter("net_waits"), Some(1));
    assert!(s.is_on());
    // Already acknowledged: no more requests for it, no wait.
    assert!(!d.need_reply("basalt-bin.000001", 300));
    s.commit_wait(&at(300));
    assert_eq!(s.counter("yes_tx"), Some(2));
}

#[test]
fn a_timeout_switches_off_and_a_caught_up_replica_switches_on() {
    let s = enabled(50);
    let d = s.dump_session(2);
    d.start(&at(4));
    s.logged(&at(300));
    let t = Instant::now();
    s.commit_wait(&at(300));
    assert!(t.elapsed() >= Duration::from_millis(50));
    assert!(!s.is_on());
    assert_eq!(s.counter("no_tx"), Some(1));
    assert_eq!(s.counter("no_times"), Some(1));
    // Off: later commits do not wait.
    s.logged(&at(500));
    let t = Instant::now();
    s.commit_wait(&at(500));
    assert!(t.elapsed() < Duration::from_millis(50));
    assert_eq!(s.counter("no_tx"), Some(2));
    // A replica behind asks for nothing below the last commit; at it, it does.
    assert!(!d.need_reply("basalt-bin.000001", 300));
    assert!(d.need_reply("basalt-bin.000001", 500));
    d.packet(&ack(300));
    assert!(!s.is_on());
    d.packet(&ack(500));
    assert!(s.is_on());
}

#[test]
fn without_wait_no_slave_commits_do_not_wait_for_absent_replicas() {
    let s = enabled(10_000);
    s.set_wait_no_slave(false);
    s.logged(&at(300));
    let t = Instant::now();
    s.commit_wait(&at(300));
    assert!(t.elapsed() < Duration::from_secs(1));
    assert_eq!(s.counter("no_tx"), Some(1));
    assert!(s.is_on());
}

#[test]
fn the_last_replica_leaving_releases_waiters_without_wait_no_slave() {
    let s = enabled(10_000);
    s.set_wait_no_slave(false);
    let d = s.dump_session(2);
    d.start(&at(4));
    s.logged(&at(300));
    let waiter = {
        let s = s.clone();
        thread::spawn(move || s.commit_wait(&at(300)))
    };
    while s.counter("wait_sessions") != Some(1) {
        thread::sleep(Duration::from_millis(1));
    }
    drop(d);
    waiter.join().expect("waiter");
    assert_eq!(s.clients(), 0);
    assert_eq!(s.counter("no_tx"), Some(1));
}

#[test]
fn disabling_wakes_waiters_and_reset_clears_counters() {
    let s = enabled(10_000);
    let d = s.dump_session(2);
    d.start(&at(4));
    s.logged(&at(300));
    let waiter = {
        let s = s.clone();
        thread::spawn(move || s.commit_wait(&at(300)))
    };
    while s.counter("wait_sessions") != Some(1) {
        thread::sleep(Duration::from_millis(1));
    }
    s.set_enabled(false);
    waiter.join().expect("waiter");
    assert!(!s.is_on());
    assert_eq!(s.counter("no_tx"), Some(1));
    s.set_enabled(true);
    assert!(s.is_on());
    s.reset_master();
    assert_eq!(s.counter("no_tx"), Some(0));
    assert_eq!(s.counter("clients"), Some(1));
}

#[test]
fn wait_point_names() {
    assert_eq!(
        WaitPoint::from_name("after_commit"),
        Some(WaitPoint::AfterCommit)
    );
    assert_eq!(WaitPoint::AfterSync.name(), "AFTER_SYNC");
    let s = SemiSync::new();
    assert_eq!(s.wait_point(), WaitPoint::AfterSync);
    s.set_wait_point(WaitPoint::AfterCommit);
    assert_eq!(s.wait_point(), WaitPoint::AfterCommit);
}

#[test]
fn a_killed_commit_stops_waiting() {
    let s = enabled(60_000);
    let d = s.dump_session(2);
    d.start(&at(4));
    assert!(s.logged(&at(300)));
    let killed = Arc::new(AtomicBool::new(false));
    let waiter = {
        let (s, k) = (s.clone(), killed.clone());
        thread::spawn(move || {
            let start = Instant::now();
            s.commit_wait_killable(&at(300), Some(&k));
            start.elapsed()
        })
    };
    while s.counter("wait_sessions") != Some(1) {
        thread::sleep(Duration::from_millis(1));
    }
    killed.store(true, Ordering::Relaxed);
    let took = waiter.join().expect("waiter");
    assert!(took < Duration::from_secs(10), "waited {took:?}");
    assert_eq!(s.counter("no_tx"), Some(1));
    assert_eq!(s.counter("wait_sessions"), Some(0));
    assert!(s.is_on(), "a kill does not switch semi-sync off");
    // Killed before it starts: no wait at all.
    s.commit_wait_killable(&at(400), Some(&killed));
    assert_eq!(s.counter("no_tx"), Some(2));
}
