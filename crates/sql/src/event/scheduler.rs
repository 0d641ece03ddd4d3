//! The event scheduler (`event_scheduler = ON`): one thread that wakes at the
//! next activation of any enabled event (or when event DDL or the variable
//! wakes it), and starts each due event on a thread of its own, as MariaDB's
//! scheduler starts a worker per execution. A run is recorded durably in the
//! catalog before its body starts (see [`basalt_storage::EventRun`]): a crash
//! during a run never repeats it, and an event that finishes (a one-time
//! event, or a recurring one past ENDS) is dropped or disabled then.
//!
//! Activations missed while the scheduler was off (or the server down) are not
//! caught up: a recurring event runs at its first activation from the time the
//! scheduler started or the event was last altered, whichever is later, as
//! MariaDB computes the next time from the present. A one-time event whose
//! time has passed runs once.

use super::schedule::activation_from;
use crate::engine::{Engine, ProcessInfo};
use basalt_storage::{EventDef, EventRun};
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The longest the scheduler sleeps without looking at the catalog again.
const MAX_SLEEP: Duration = Duration::from_secs(60);

#[derive(Default)]
struct State {
    /// The scheduler should run.
    on: bool,
    /// The scheduler thread's process-list id and start.
    daemon: Option<(u64, std::time::Instant)>,
    /// Whether some enabled event waits for its time (the daemon's state).
    waiting: bool,
    /// Bumped by [`Scheduler::wake`]: the catalog's events changed.
    changes: u64,
    /// Bumped for each scheduler thread started: a thread runs only while
    /// it is the current one, so a stop followed at once by a start (before
    /// the stopping session joined the old thread) never leaves two.
    epoch: u64,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The scheduler's switch and its counters, held by the engine.
#[derive(Default)]
pub struct Scheduler {
    state: Mutex<State>,
    cond: Condvar,
    /// `Executed_events`.
    executed: AtomicU64,
    /// Event bodies running now, with their start.
    running: Mutex<Vec<Running>>,
}

/// An event body running: its process-list row, start, and its session's
/// interrupt flag once the session exists (KILL sets it).
struct Running {
    info: ProcessInfo,
    since: std::time::Instant,
    interrupt: Option<Arc<AtomicBool>>,
}

/// Seconds since the epoch now.
pub fn now_seconds() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Scheduler {
    /// Starts the scheduler thread if it is not running.
    pub fn start(&self, engine: &Arc<Engine>) -> std::io::Result<()> {
        let mut st = self.state.lock();
        st.on = true;
        if st.thread.is_some() {
            return Ok(());
        }
        let e = engine.clone();
        st.epoch += 1;
        let epoch = st.epoch;
        st.thread = Some(
            std::thread::Builder::new()
                .name("basalt-event-scheduler".into())
                .spawn(move || main_loop(e, epoch))?,
        );
        st.daemon = Some((engine.hooks().new_thread_id(), std::time::Instant::now()));
        tracing::info!("Event Scheduler: scheduler thread started");
        Ok(())
    }

    /// Stops the scheduler thread and waits for it (runs already started go
    /// on to their end, as MariaDB's do).
    pub fn stop(&self) {
        let handle = {
            let mut st = self.state.lock();
            st.on = false;
            st.daemon = None;
            self.cond.notify_all();
            st.thread.take()
        };
        if let Some(h) = handle {
            let _ = h.join();
            tracing::info!("Event Scheduler: Stopped");
        }
    }

    /// Whether the scheduler thread runs.
    pub fn is_on(&self) -> bool {
        self.state.lock().on
    }

    /// Event DDL changed the catalog: the scheduler looks again.
    pub fn wake(&self) {
        let mut st = self.state.lock();
        st.changes += 1;
        self.cond.notify_all();
    }

    /// `Executed_events`.
    pub fn executed(&self) -> u64 {
        self.executed.load(Ordering::Relaxed)
    }

    /// The process-list rows of the scheduler thread and the runs going on,
    /// as MariaDB shows them.
    pub fn processes(&self) -> Vec<ProcessInfo> {
        let mut out = Vec::new();
        let (daemon, waiting) = {
            let st = self.state.lock();
            (st.daemon, st.waiting)
        };
        if let Some((id, since)) = daemon {
            out.push(ProcessInfo {
                id,
                user: "event_scheduler".into(),
                host: "localhost".into(),
                db: None,
                command: "Daemon".into(),
                time: since.elapsed().as_secs(),
                state: if waiting {
                    "Waiting for next activation"
                } else {
                    "Waiting on empty queue"
                }
                .into(),
                info: None,
            });
        }
        out.extend(self.running.lock().iter().map(|r| ProcessInfo {
            time: r.since.elapsed().as_secs(),
            ..r.info.clone()
        }));
        out
    }

    /// The session of event run `id` can be interrupted with `flag`.
    pub(super) fn started(&self, id: u64, flag: Arc<AtomicBool>) {
        if let Some(r) = self.running.lock().iter_mut().find(|r| r.info.id == id) {
            r.interrupt = Some(flag);
        }
    }

    /// KILL [QUERY] of an event run: its statement is interrupted (the run
    /// ends, its error logged). False when `id` is no event run.
    pub fn kill(&self, id: u64) -> bool {
        let running = self.running.lock();
        let Some(r) = running.iter().find(|r| r.info.id == id) else {
            return false;
        };
        if let Some(flag) = &r.interrupt {
            flag.store(true, Ordering::Relaxed);
        }
        true
    }

    fn set_waiting(&self, waiting: bool) {
        self.state.lock().waiting = waiting;
    }

    /// Sleeps until `until` (seconds since the epoch), a wake or a stop;
    /// false when the thread of `epoch` is to end.
    fn sleep_until(&self, until: i64, seen: &mut u64, epoch: u64) -> bool {
        let mut st = self.state.lock();
        while st.on && st.epoch == epoch && st.changes == *seen {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            let target = Duration::from_secs(until.max(0) as u64);
            let Some(left) = target.checked_sub(now).filter(|d| !d.is_zero()) else {
                break;
            };
            self.cond.wait_for(&mut st, left.min(MAX_SLEEP));
            if left > MAX_SLEEP {
                break;
            }
        }
        *seen = st.changes;
        st.on && st.epoch == epoch
    }
}

/// Where the scheduler stands with one event: the activation it last started.
type Dispatched = HashMap<(String, String), i64>;

fn key_of(e: &EventDef) -> (String, String) {
    (e.schema.clone(), e.name.to_lowercase())
}

fn main_loop(engine: Arc<Engine>, epoch: u64) {
    let started = now_seconds();
    let mut dispatched = Dispatched::new();
    let mut seen = 0;
    loop {
        let now = now_seconds();
        let mut wake_at = now + MAX_SLEEP.as_secs() as i64;
        let mut queued = false;
        let events = engine.storage.all_events();
        let keys: Vec<_> = events.iter().map(|e| key_of(e)).collect();
        dispatched.retain(|k, _| keys.contains(k));
        for (e, key) in events.into_iter().zip(keys) {
            if e.status != "ENABLED" {
                continue;
            }
            match due(&e, started, dispatched.get(&key).copied(), now) {
                Due::At(t) => {
                    queued = true;
                    wake_at = wake_at.min(t);
                }
                Due::Now(run) => {
                    queued = true;
                    dispatched.insert(key, now);
                    if let Some(next) = activation_from(&e, now + 1) {
                        wake_at = wake_at.min(next);
                    }
                    start_run(&engine, e, now, run);
                }
                Due::Never => {}
            }
        }
        engine.events.set_waiting(queued);
        if !engine.events.sleep_until(wake_at, &mut seen, epoch) {
            return;
        }
    }
}

enum Due {
    /// Not yet: its next activation.
    At(i64),
    /// Run now, recording this.
    Now(EventRun),
    /// No activation is left (a one-time event already started, whose run
    /// records its end; a recurring one past ENDS, left as MariaDB leaves it).
    Never,
}

fn completion(e: &EventDef) -> EventRun {
    if e.preserve {
        EventRun::Disable
    } else {
        EventRun::Drop
    }
}

/// What the scheduler does with enabled event `e` at `now`.
fn due(e: &EventDef, started: i64, dispatched: Option<i64>, now: i64) -> Due {
    let last = e.last_executed.max(dispatched);
    // Nothing from before the scheduler started or the event was last altered.
    let floor = started.max(e.last_altered.min(now));
    let after = match (e.execute_at, last) {
        (Some(_), Some(_)) => return Due::Never,
        (Some(_), None) => i64::MIN,
        (None, last) => last.map_or(floor, |l| (l + 1).max(floor)),
    };
    match activation_from(e, after) {
        None => Due::Never,
        Some(t) if t > now => Due::At(t),
        Some(_) => Due::Now(match activation_from(e, now + 1) {
            Some(_) if e.execute_at.is_none() => EventRun::Again,
            _ => completion(e),
        }),
    }
}

/// Records the run, then runs the body on a thread of its own.
fn start_run(engine: &Arc<Engine>, e: Arc<EventDef>, now: i64, run: EventRun) {
    let engine2 = engine.clone();
    let spawned = std::thread::Builder::new()
        .name("basalt-event".into())
        .spawn(move || {
            match engine2.storage.record_event_run(&e, Some(now), run) {
                Ok(true) => {}
                Ok(false) => return,
                Err(err) => {
                    tracing::error!("Event Scheduler: cannot record a run of {}: {err}", e.name);
                    return;
                }
            }
            let s = &engine2.events;
            s.executed.fetch_add(1, Ordering::Relaxed);
            let id = engine2.hooks().new_thread_id();
            let row = ProcessInfo {
                id,
                user: e.definer_user.clone(),
                host: e.definer_host.clone(),
                db: Some(e.schema.clone()),
                command: "Connect".into(),
                time: 0,
                state: "executing".into(),
                info: Some(e.body.clone()),
            };
            s.running.lock().push(Running {
                info: row,
                since: std::time::Instant::now(),
                interrupt: None,
            });
            super::run::execute(&engine2, &e, id);
            s.running.lock().retain(|r| r.info.id != id);
        });
    if let Err(err) = spawned {
        tracing::error!("Event Scheduler: cannot start a thread: {err}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(every: Option<(i64, &str)>, at: Option<i64>, starts: i64) -> EventDef {
        crate::event::schedule::test_event(every, at, starts)
    }

    #[test]
    fn a_new_recurring_event_runs_at_once_then_every_interval() {
        let e = def(Some((10, "SECOND")), None, 1000);
        assert!(matches!(
            due(&e, 900, None, 1000),
            Due::Now(EventRun::Again)
        ));
        assert!(matches!(due(&e, 900, Some(1000), 1001), Due::At(1010)));
        assert!(matches!(
            due(&e, 900, Some(1000), 1010),
            Due::Now(EventRun::Again)
        ));
    }

    #[test]
    fn missed_activations_are_not_caught_up() {
        let mut e = def(Some((3600, "SECOND")), None, 0);
        e.last_executed = Some(3600);
        // The scheduler started at 10,000 s: the next run is at 10,800.
        assert!(matches!(due(&e, 10_000, None, 10_001), Due::At(10_800)));
    }

    #[test]
    fn one_time_events_run_once_then_end() {
        let e = def(None, Some(500), 0);
        assert!(matches!(due(&e, 900, None, 1000), Due::Now(EventRun::Drop)));
        assert!(matches!(due(&e, 900, Some(1000), 1001), Due::Never));
        let mut kept = def(None, Some(2000), 0);
        kept.preserve = true;
        assert!(matches!(due(&kept, 900, None, 1000), Due::At(2000)));
        assert!(matches!(
            due(&kept, 900, None, 2000),
            Due::Now(EventRun::Disable)
        ));
    }

    #[test]
    fn the_last_run_before_ends_ends_the_event() {
        let mut e = def(Some((10, "SECOND")), None, 1000);
        e.ends = Some(1015);
        assert!(matches!(
            due(&e, 900, Some(1000), 1010),
            Due::Now(EventRun::Drop)
        ));
        assert!(matches!(due(&e, 900, Some(1010), 1011), Due::Never));
    }
}
