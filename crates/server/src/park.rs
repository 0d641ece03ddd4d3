//! Idle connections without threads.
//!
//! A connection whose client has sent nothing for the park delay
//! (`basalt_idle_connection_park_ms`) is parked here: its session and socket wait
//! in one map, its socket in one `epoll` set, and its thread goes back to the
//! thread cache. When the client sends its next command (or closes, or is killed:
//! KILL shuts the socket down, which wakes it), the connection goes to a cached
//! thread and carries on where it stopped; a parked connection idle past
//! `wait_timeout` is closed, as MariaDB closes it.
//!
//! So the server's threads follow the connections that are working, not those
//! that are connected: 10,000 idle clients cost their sessions, one epoll thread
//! and the cached threads, instead of 10,000 thread stacks and allocator heaps.
//! A connection that is busy never comes here: its reads find the next command
//! before the timeout, and the timeout costs no syscall (it is the socket's
//! receive timeout, set once).
//!
//! With the thread pool ([`Parker::set_direct`]) the idle pool threads wait in
//! the epoll set themselves ([`Parker::wait_ready`]) and run the connection whose
//! command arrives on the thread that saw it, as the listener of MariaDB's pool
//! does, without a hand-over; the parker's own thread then only enforces
//! `wait_timeout`. An eventfd in the set wakes a waiting pool thread for queued
//! work ([`Parker::signal`]).

use crate::command_loop::{Live, Parking};
use crate::Server;
use basalt_common::Value;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The system variable holding the park delay in milliseconds.
pub const PARK_DELAY_VAR: &str = "basalt_idle_connection_park_ms";
/// How often parked connections are checked against `wait_timeout`.
const EXPIRY_CHECK: Duration = Duration::from_millis(500);
/// The epoll token of the eventfd that wakes a pool thread.
const SIGNAL: u64 = u64::MAX;

/// What a pool thread waiting in the epoll set got.
pub(crate) enum Ready {
    /// A parked connection's client sent something (or closed).
    Conn(Box<Live>),
    /// Work was queued for the pool.
    Signal,
    /// Nothing before the timeout.
    Timeout,
}

/// Takes a parked connection back: `true` when it expired (`wait_timeout`).
pub(crate) type Resume = Box<dyn Fn(Box<Live>, bool) + Send + Sync>;

struct Parked {
    live: Box<Live>,
    deadline: Option<Instant>,
}

pub(crate) struct Parker {
    epoll: OwnedFd,
    /// An eventfd (semaphore mode) in the epoll set, level-triggered.
    signal: OwnedFd,
    /// Pool threads take the ready connections (the parker's thread does not).
    direct: AtomicBool,
    parked: Mutex<HashMap<u64, Parked>>,
    resume: OnceLock<Resume>,
    stopping: AtomicBool,
}

impl Parker {
    pub fn new() -> io::Result<Parker> {
        // SAFETY: epoll_create1 has no memory arguments; the result is checked.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a new descriptor owned by nothing else.
        let epoll = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: eventfd has no memory arguments; the result is checked.
        let efd = unsafe {
            libc::eventfd(
                0,
                libc::EFD_CLOEXEC | libc::EFD_NONBLOCK | libc::EFD_SEMAPHORE,
            )
        };
        if efd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `efd` is a new descriptor owned by nothing else.
        let signal = unsafe { OwnedFd::from_raw_fd(efd) };
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: SIGNAL,
        };
        // SAFETY: both descriptors are open; `ev` is valid for the call.
        let rc = unsafe {
            libc::epoll_ctl(
                epoll.as_raw_fd(),
                libc::EPOLL_CTL_ADD,
                signal.as_raw_fd(),
                &mut ev,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Parker {
            epoll,
            signal,
            direct: AtomicBool::new(false),
            parked: Mutex::new(HashMap::new()),
            resume: OnceLock::new(),
            stopping: AtomicBool::new(false),
        })
    }

    /// Starts the thread that waits for parked connections; `resume` runs a woken
    /// connection on a connection thread. Until this is called nothing is parked.
    pub fn start(self: &Arc<Self>, resume: Resume) -> io::Result<()> {
        if self.resume.set(resume).is_err() {
            return Ok(());
        }
        let me = self.clone();
        std::thread::Builder::new()
            .name("basalt-parked".into())
            .spawn(move || me.wait_loop())?;
        Ok(())
    }

    /// From now on pool threads take ready connections with [`Parker::wait_ready`].
    pub fn set_direct(&self) {
        self.direct.store(true, Ordering::SeqCst);
    }

    /// Wakes one pool thread waiting in [`Parker::wait_ready`] (it returns
    /// [`Ready::Signal`]).
    pub fn signal(&self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from `one` to the eventfd.
        let _ = unsafe { libc::write(self.signal.as_raw_fd(), (&one as *const u64).cast(), 8) };
    }

    /// Waits up to `timeout` for a parked connection's next command or a signal.
    pub fn wait_ready(&self, timeout: Duration) -> Ready {
        let mut ev = libc::epoll_event { events: 0, u64: 0 };
        // SAFETY: room for one event.
        let n = unsafe {
            libc::epoll_wait(
                self.epoll.as_raw_fd(),
                &mut ev,
                1,
                timeout.as_millis() as i32,
            )
        };
        if n != 1 {
            return Ready::Timeout;
        }
        if ev.u64 == SIGNAL {
            let mut v: u64 = 0;
            // SAFETY: reads 8 bytes into `v` (EAGAIN when another thread took it).
            let r = unsafe { libc::read(self.signal.as_raw_fd(), (&mut v as *mut u64).cast(), 8) };
            return if r == 8 {
                Ready::Signal
            } else {
                Ready::Timeout
            };
        }
        let id = ev.u64;
        match self.parked.lock().remove(&id) {
            Some(p) => Ready::Conn(p.live),
            None => Ready::Timeout,
        }
    }

    /// The connections whose clients spoke, without waiting (for the pool's stall
    /// check when no pool thread is waiting in the set).
    /// Returns how many it handed to `take`.
    pub fn drain_ready(&self, mut take: impl FnMut(Box<Live>)) -> usize {
        let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 64];
        // SAFETY: `events` has room for `events.len()` entries.
        let n = unsafe {
            libc::epoll_wait(
                self.epoll.as_raw_fd(),
                events.as_mut_ptr(),
                events.len() as i32,
                0,
            )
        };
        let mut map = self.parked.lock();
        let mut taken = 0;
        for ev in events.iter().take(n.max(0) as usize) {
            // The eventfd is level-triggered: it stays ready for a pool thread.
            let id = ev.u64;
            if let Some(p) = (id != SIGNAL).then(|| map.remove(&id)).flatten() {
                take(p.live);
                taken += 1;
            }
        }
        taken
    }

    /// Lets the waiting thread end once no connection is parked.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// Number of connections parked now.
    pub fn parked(&self) -> usize {
        self.parked.lock().len()
    }

    /// Parks an idle connection; `remaining` is the time left before
    /// `wait_timeout` ends it. Gives the connection back if it cannot be parked.
    pub fn park(&self, mut live: Box<Live>, remaining: Option<Duration>) -> Result<(), Box<Live>> {
        if self.resume.get().is_none() || self.stopping.load(Ordering::SeqCst) {
            return Err(live);
        }
        live.shrink_for_idle();
        let fd = live.conn.get_ref().0.raw_fd();
        let id = live.id();
        let op = if live.registered {
            libc::EPOLL_CTL_MOD
        } else {
            libc::EPOLL_CTL_ADD
        };
        live.registered = true;
        let deadline = remaining.map(|r| Instant::now() + r);
        // In the map before the socket is armed: its event may come at once.
        self.parked.lock().insert(id, Parked { live, deadline });
        let mut ev = libc::epoll_event {
            events: (libc::EPOLLIN | libc::EPOLLRDHUP | libc::EPOLLONESHOT) as u32,
            u64: id,
        };
        // SAFETY: `ev` is a valid epoll_event for the duration of the call.
        let rc = unsafe { libc::epoll_ctl(self.epoll.as_raw_fd(), op, fd, &mut ev) };
        if rc == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        match self.parked.lock().remove(&id) {
            Some(p) => {
                tracing::warn!("connection {id}: cannot wait for it in epoll: {err}");
                Err(p.live)
            }
            // Woken already (cannot happen without the fd armed, but harmless).
            None => Ok(()),
        }
    }

    fn wait_loop(&self) {
        let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; 256];
        let mut last_check = Instant::now();
        loop {
            if self.direct.load(Ordering::SeqCst) {
                std::thread::sleep(EXPIRY_CHECK);
                self.expire(Instant::now());
                if self.stopping.load(Ordering::SeqCst) && self.parked.lock().is_empty() {
                    return;
                }
                continue;
            }
            // SAFETY: `events` has room for `events.len()` entries.
            let n = unsafe {
                libc::epoll_wait(
                    self.epoll.as_raw_fd(),
                    events.as_mut_ptr(),
                    events.len() as i32,
                    EXPIRY_CHECK.as_millis() as i32,
                )
            };
            for ev in events.iter().take(n.max(0) as usize) {
                let id = ev.u64;
                if id == SIGNAL {
                    continue;
                }
                let woken = self.parked.lock().remove(&id);
                if let Some(p) = woken {
                    self.wake(p.live, false);
                }
            }
            if last_check.elapsed() >= EXPIRY_CHECK {
                last_check = Instant::now();
                self.expire(last_check);
            }
            if self.stopping.load(Ordering::SeqCst) && self.parked.lock().is_empty() {
                return;
            }
        }
    }

    /// Closes the connections idle past `wait_timeout`.
    fn expire(&self, now: Instant) {
        let expired: Vec<Parked> = {
            let mut map = self.parked.lock();
            let ids: Vec<u64> = map
                .iter()
                .filter(|(_, p)| p.deadline.is_some_and(|d| d <= now))
                .map(|(&id, _)| id)
                .collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        for p in expired {
            self.wake(p.live, true);
        }
    }

    fn wake(&self, live: Box<Live>, expired: bool) {
        if let Some(resume) = self.resume.get() {
            resume(live, expired);
        }
    }
}

/// When a new connection of `server` leaves its thread: after each command with
/// the thread pool; else once silent for the park delay, read from the global
/// variable when it logs in; never when nothing can wait for it.
pub(crate) fn parking(server: &Server) -> Parking {
    if server.parker.resume.get().is_none() {
        return Parking::Never;
    }
    if server.threads.is_pool() {
        return Parking::AfterEachCommand;
    }
    match server.engine.global_variable(PARK_DELAY_VAR) {
        Some(Value::UInt(n)) => Parking::After(Duration::from_millis(n)),
        Some(Value::Int(n)) => Parking::After(Duration::from_millis(n.max(0) as u64)),
        _ => Parking::Never,
    }
}
