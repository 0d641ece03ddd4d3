//! The threads that serve connections, in one of two ways (`--thread-handling`):
//!
//! - **one-thread-per-connection** (the default): a new or woken connection gets a
//!   thread at once (a cached one, else a new one) and keeps it while it works;
//!   when its client goes quiet for `basalt_idle_connection_park_ms` it leaves the
//!   thread ([`crate::park`]). Threads follow the working connections.
//! - **pool-of-threads**: MariaDB's thread pool. Connections leave their thread
//!   after every command; their commands queue here and run on few threads.
//!   A queued command wakes a thread while fewer than `thread_pool_size` run, or
//!   while fewer than the running limit, `thread_pool_size × (1 +
//!   thread_pool_oversubscribe)`, run and no other command waits (an idle thread
//!   takes a lone command, as an idle listener of MariaDB's pool does). A thread
//!   that blocks in a declared wait ([`basalt_common::wait`]: a row lock, a
//!   commit's log flush, `SLEEP()`, a user or table lock, a replica's dump) stops
//!   counting as running meanwhile, and a thread that finishes a command takes the
//!   next one while fewer than the running limit run. When commands wait
//!   `thread_pool_stall_limit` ms while none was taken from the queue (long
//!   statements that do not wait), one more thread starts. The pool never has
//!   more than `thread_pool_max_threads` threads; idle ones exit after
//!   `thread_pool_idle_timeout` seconds. The settings are re-read from the global
//!   variables every stall period.

use crate::command_loop::{self, Live};
use crate::pool_opts::ThreadHandling;
use crate::stream::Stream;
use crate::{connection, Server};
use basalt_common::wait::{self, WaitHook};
use basalt_common::Value;
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// Idle threads kept at most with one thread per connection.
const MAX_IDLE_THREADS: usize = 64;
/// Stack of a connection thread (address space; pages are committed as touched).
/// Statements up to about 100 KiB run on it whatever their nesting; longer ones,
/// and recursion past it, continue on stack segments of their own (`basalt_sql`'s
/// recursion guards), which are freed after the statement.
const CONNECTION_STACK: usize = 8 << 20;
/// An idle cached thread exits after this long without work (one thread per
/// connection).
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How often the pool re-reads its settings (and idle pool threads look at
/// `thread_pool_idle_timeout`).
const SETTINGS_PERIOD: Duration = Duration::from_millis(100);

/// What a connection thread is given.
pub(crate) enum Work {
    /// A new connection: handshake, then commands.
    Accepted(Stream),
    /// A parked connection woken by its client (`false`) or by `wait_timeout`.
    Resumed(Box<Live>, bool),
}

#[derive(Default)]
struct Queue {
    work: VecDeque<Work>,
    /// Threads waiting for work.
    idle: usize,
    /// Threads woken or started for queued work that have not taken it yet.
    waking: usize,
    /// Pool threads alive.
    threads: usize,
    /// Pool threads running work outside a declared wait.
    active: usize,
    /// Starts allowed past the running limit by the stall check.
    grants: usize,
    /// Work taken so far (the stall check's progress mark).
    taken: u64,
    /// Pool threads waiting in the parker's epoll set.
    in_epoll: usize,
    /// Of those, signalled for queued work and not yet awake.
    signals: usize,
    closed: bool,
}

/// The pool's settings as last read from the global variables.
struct PoolSettings {
    size: AtomicUsize,
    max_threads: AtomicUsize,
    oversubscribe: AtomicUsize,
    stall_ms: AtomicU64,
    idle_secs: AtomicU64,
}

/// The connection threads of a server and the work waiting for them.
pub(crate) struct Threads {
    handling: ThreadHandling,
    queue: Mutex<Queue>,
    cond: Condvar,
    settings: PoolSettings,
    /// Threads started to serve connections (`Threads_created`).
    created: AtomicU64,
}

impl Threads {
    pub fn new(handling: ThreadHandling, s: &crate::pool_opts::ThreadSettings) -> Arc<Threads> {
        Arc::new(Threads {
            handling,
            queue: Mutex::new(Queue::default()),
            cond: Condvar::new(),
            created: AtomicU64::new(0),
            settings: PoolSettings {
                size: AtomicUsize::new(s.pool_size as usize),
                max_threads: AtomicUsize::new(s.pool_max_threads as usize),
                oversubscribe: AtomicUsize::new(s.pool_oversubscribe as usize),
                stall_ms: AtomicU64::new(s.pool_stall_limit),
                idle_secs: AtomicU64::new(s.pool_idle_timeout),
            },
        })
    }

    pub fn is_pool(&self) -> bool {
        self.handling == ThreadHandling::Pool
    }

    /// (threads, idle threads) of the pool, for `Threadpool_threads` and
    /// `Threadpool_idle_threads` (zeros with one thread per connection).
    pub fn pool_counts(&self) -> (usize, usize) {
        if !self.is_pool() {
            return (0, 0);
        }
        let q = self.queue.lock();
        (q.threads, q.idle + q.in_epoll)
    }

    /// (`Threads_created`, `Threads_cached`): threads started so far, and
    /// threads waiting for a connection to serve (per-connection handling; the
    /// pool's idle threads are `Threadpool_idle_threads`).
    pub fn thread_counts(&self) -> (u64, u64) {
        let created = self.created.load(Ordering::Relaxed);
        if self.is_pool() {
            return (created, 0);
        }
        (created, self.queue.lock().idle as u64)
    }

    /// Ends idle threads and lets busy ones end after their work.
    pub fn close(&self) {
        self.queue.lock().closed = true;
        self.cond.notify_all();
    }

    fn size(&self) -> usize {
        self.settings.size.load(Ordering::Relaxed).max(1)
    }

    fn run_limit(&self) -> usize {
        self.size() * (1 + self.settings.oversubscribe.load(Ordering::Relaxed))
    }

    /// Has a thread take queued work: wakes an idle one or starts one (the
    /// returned flag: the caller spawns it once the lock is released).
    fn start_one(&self, q: &mut Queue, parker: &crate::park::Parker) -> bool {
        if self.is_pool() && q.in_epoll > q.signals {
            q.signals += 1;
            parker.signal();
            return false;
        }
        // notify_one wakes nobody when the idle threads are all timing out (they
        // still count as idle until they have the lock back): start one then.
        if q.idle > q.waking && self.cond.notify_one() {
            q.waking += 1;
            return false;
        }
        if q.threads >= self.settings.max_threads.load(Ordering::Relaxed) {
            return false;
        }
        q.threads += 1;
        q.waking += 1;
        true
    }

    /// Whether a thread should be woken for queued work: while fewer than
    /// `thread_pool_size` run; and, for work that found the queue empty, while
    /// fewer than the running limit run (as an idle thread of MariaDB's pool that
    /// listens picks an event up itself).
    fn room(&self, q: &Queue) -> bool {
        let running = q.active + q.waking + q.signals;
        running < self.size() || (q.work.len() == 1 && running < self.run_limit())
    }
}

/// Hands `work` to a connection thread.
pub(crate) fn dispatch(server: &Arc<Server>, work: Work) {
    let t = &server.threads;
    let mut q = t.queue.lock();
    q.work.push_back(work);
    if !t.is_pool() {
        if q.idle > q.work.len() - 1 {
            t.cond.notify_one();
            return;
        }
        drop(q);
        return spawn(server, false);
    }
    let spawn_one = t.room(&q) && t.start_one(&mut q, &server.parker);
    drop(q);
    if spawn_one {
        spawn(server, true);
    }
}

fn spawn(server: &Arc<Server>, pool: bool) {
    let s = server.clone();
    let spawned = std::thread::Builder::new()
        .name(if pool { "basalt-pool" } else { "basalt-conn" }.into())
        .stack_size(CONNECTION_STACK)
        .spawn(move || {
            if pool {
                pool_worker(&s)
            } else {
                cached_worker(&s)
            }
        });
    if spawned.is_ok() {
        server.threads.created.fetch_add(1, Ordering::Relaxed);
    }
    if let Err(e) = spawned {
        server.stats.errors_internal.fetch_add(1, Ordering::Relaxed);
        tracing::error!(error = %e, "cannot start a connection thread");
        if pool {
            let mut q = server.threads.queue.lock();
            q.threads -= 1;
            q.waking = q.waking.saturating_sub(1);
        }
    }
}

fn serve(server: &Arc<Server>, work: Work) {
    match work {
        Work::Accepted(s) => connection::serve(server, s, connection::Port::Main),
        Work::Resumed(live, expired) => command_loop::resume(server, live, expired),
    }
}

/// One thread per connection: serves whatever is queued, waits for more while
/// fewer than [`MAX_IDLE_THREADS`] wait, exits after [`IDLE_TIMEOUT`] idle.
fn cached_worker(server: &Arc<Server>) {
    let t = &server.threads;
    loop {
        let work = {
            let mut q = t.queue.lock();
            loop {
                if let Some(w) = q.work.pop_front() {
                    break Some(w);
                }
                if q.closed || q.idle >= MAX_IDLE_THREADS {
                    break None;
                }
                q.idle += 1;
                let timed_out = t.cond.wait_for(&mut q, IDLE_TIMEOUT).timed_out();
                q.idle -= 1;
                if timed_out && q.work.is_empty() {
                    break None;
                }
            }
        };
        match work {
            Some(w) => serve(server, w),
            None => return,
        }
    }
}

/// Tells the pool when its thread blocks and when it is back.
struct PoolWait(Weak<Server>);

impl WaitHook for PoolWait {
    fn begin(&self) {
        let Some(server) = self.0.upgrade() else {
            return;
        };
        let t = &server.threads;
        let mut q = t.queue.lock();
        q.active = q.active.saturating_sub(1);
        // Someone must run queued work, and listen for parked connections' next
        // commands while this thread waits.
        let needed = !q.work.is_empty() || q.in_epoll == 0;
        let spawn_one = needed && t.room(&q) && t.start_one(&mut q, &server.parker);
        drop(q);
        if spawn_one {
            spawn(&server, true);
        }
    }

    fn end(&self) {
        if let Some(server) = self.0.upgrade() {
            server.threads.queue.lock().active += 1;
        }
    }
}

/// A pool thread: takes queued work while the pool may run more; otherwise waits
/// in the parker's epoll set for a parked connection's next command (and runs it
/// here) or for a signal of queued work; exits after `thread_pool_idle_timeout`.
fn pool_worker(server: &Arc<Server>) {
    let t = &server.threads;
    wait::set_thread_hook(Some(Arc::new(PoolWait(Arc::downgrade(server)))));
    let mut q = t.queue.lock();
    q.waking = q.waking.saturating_sub(1);
    let mut idle_since = Instant::now();
    loop {
        // At shutdown the parked connections are woken to end: serve them first.
        if q.closed && q.work.is_empty() && server.parker.parked() == 0 {
            break;
        }
        if let Some(work) = take(t, &mut q) {
            drop(q);
            serve(server, work);
            q = t.queue.lock();
            q.active -= 1;
            idle_since = Instant::now();
            continue;
        }
        let idle = Duration::from_secs(t.settings.idle_secs.load(Ordering::Relaxed).max(1));
        if !q.work.is_empty() {
            // At the running limit: wait for a grant (slices, so that a new
            // thread_pool_idle_timeout applies to threads already idle).
            q.idle += 1;
            let timed_out = t.cond.wait_for(&mut q, SETTINGS_PERIOD).timed_out();
            q.idle -= 1;
            if !timed_out {
                q.waking = q.waking.saturating_sub(1);
                idle_since = Instant::now();
            }
            continue;
        }
        q.in_epoll += 1;
        drop(q);
        let ready = server.parker.wait_ready(SETTINGS_PERIOD);
        q = t.queue.lock();
        q.in_epoll -= 1;
        match ready {
            crate::park::Ready::Conn(live) => {
                idle_since = Instant::now();
                q.work.push_front(Work::Resumed(live, false));
            }
            crate::park::Ready::Signal => {
                q.signals = q.signals.saturating_sub(1);
                idle_since = Instant::now();
            }
            // The last thread stays, listening for the parked connections.
            crate::park::Ready::Timeout => {
                if q.work.is_empty() && idle_since.elapsed() >= idle && q.threads > 1 {
                    break;
                }
            }
        }
    }
    q.threads -= 1;
    drop(q);
    wait::set_thread_hook(None);
}

/// The next queued work, if this thread may run it now.
fn take(t: &Threads, q: &mut MutexGuard<'_, Queue>) -> Option<Work> {
    if q.work.is_empty() {
        return None;
    }
    if q.active >= t.run_limit() {
        if q.grants == 0 {
            return None;
        }
        q.grants -= 1;
    }
    let work = q.work.pop_front();
    q.active += 1;
    q.taken += 1;
    work
}

/// The pool's stall check until the server stops: re-reads the settings every
/// [`SETTINGS_PERIOD`], and starts a thread when commands wait and none was taken
/// from the queue for `thread_pool_stall_limit` ms.
pub(crate) fn start_stall_check(server: &Arc<Server>) -> std::io::Result<()> {
    if !server.threads.is_pool() {
        return Ok(());
    }
    let weak = Arc::downgrade(server);
    std::thread::Builder::new()
        .name("basalt-pool-timer".into())
        .spawn(move || {
            let mut mark = Progress {
                taken: 0,
                at: Instant::now(),
            };
            while let Some(server) = weak.upgrade() {
                let Some(period) = stall_tick(&server, &mut mark) else {
                    return;
                };
                drop(server);
                std::thread::sleep(period);
            }
        })?;
    Ok(())
}

/// The queue's progress as the stall check last saw it.
struct Progress {
    taken: u64,
    at: Instant,
}

/// One look of the stall check; the time to the next (`None`: the pool closed).
fn stall_tick(server: &Arc<Server>, mark: &mut Progress) -> Option<Duration> {
    let t = &server.threads;
    reload_settings(server);
    let stall = Duration::from_millis(t.settings.stall_ms.load(Ordering::Relaxed));
    let mut q = t.queue.lock();
    if q.closed {
        return None;
    }
    // No pool thread listens: commands that arrived wait in the epoll set, out
    // of the stall check's sight. Queue them.
    let mut spawns = 0;
    if q.in_epoll == 0 {
        let drained = server
            .parker
            .drain_ready(|live| q.work.push_back(Work::Resumed(live, false)));
        spawns += usize::from(drained > 0 && t.room(&q) && t.start_one(&mut q, &server.parker));
    }
    if q.taken != mark.taken || q.work.is_empty() {
        mark.taken = q.taken;
        mark.at = Instant::now();
    }
    if q.work.is_empty() {
        q.grants = 0;
    }
    if mark.at.elapsed() >= stall {
        mark.at = Instant::now();
        q.grants += 1;
        spawns += usize::from(t.start_one(&mut q, &server.parker));
    }
    drop(q);
    for _ in 0..spawns {
        spawn(server, true);
    }
    Some(SETTINGS_PERIOD.min(stall.max(Duration::from_millis(1))))
}

fn reload_settings(server: &Server) {
    let s = &server.threads.settings;
    let global = |name: &str| match server.engine.global_variable(name) {
        Some(Value::UInt(n)) => Some(n),
        Some(Value::Int(n)) => Some(n.max(0) as u64),
        _ => None,
    };
    let set = |a: &AtomicUsize, name: &str| {
        if let Some(v) = global(name) {
            a.store(v as usize, Ordering::Relaxed);
        }
    };
    set(&s.size, "thread_pool_size");
    set(&s.max_threads, "thread_pool_max_threads");
    set(&s.oversubscribe, "thread_pool_oversubscribe");
    if let Some(v) = global("thread_pool_stall_limit") {
        s.stall_ms.store(v, Ordering::Relaxed);
    }
    if let Some(v) = global("thread_pool_idle_timeout") {
        s.idle_secs.store(v, Ordering::Relaxed);
    }
}

/// A connection of the extra port: a thread of its own, outside the pool and the
/// thread cache, and never parked.
pub(crate) fn serve_extra(server: &Arc<Server>, stream: Stream) {
    let s = server.clone();
    let spawned = std::thread::Builder::new()
        .name("basalt-extra".into())
        .stack_size(CONNECTION_STACK)
        .spawn(move || connection::serve(&s, stream, connection::Port::Extra));
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start a thread for an extra-port connection");
    }
}
