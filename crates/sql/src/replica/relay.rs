//! The in-memory relay queue between the I/O thread (which receives and decodes
//! the primary's events) and the SQL thread (which applies them).
//!
//! Basalt keeps no relay log on disk: what is received but not applied is
//! fetched again after a restart, from the applied position that commits with
//! the data. The queue holds at most [`CAPACITY`] bytes of events (one event is
//! always let in, however large), so a slow applier slows the reader instead of
//! growing memory.

use basalt_replication::event::EventHeader;
use basalt_replication::replica::decode::Event;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

/// Bytes of queued events at which the I/O thread waits.
pub const CAPACITY: usize = 64 << 20;

/// One entry of the queue.
#[derive(Debug)]
pub enum Item {
    /// A primary's event, with where it ends in the primary's log.
    Event {
        header: EventHeader,
        event: Box<Event>,
        /// The primary's log file the event is in.
        file: Arc<str>,
        len: usize,
    },
    /// The I/O thread lost its connection or stopped: a transaction received in
    /// part will not be completed (it is fetched again whole).
    Restart,
}

impl Item {
    fn bytes(&self) -> usize {
        match self {
            Item::Event { len, .. } => *len,
            Item::Restart => 0,
        }
    }
}

#[derive(Default)]
struct Inner {
    items: VecDeque<Item>,
    bytes: usize,
    /// Bumped by [`Relay::resync`]: items pushed for an older epoch are dropped.
    epoch: u64,
}

/// The queue (see the module doc).
#[derive(Default)]
pub struct Relay {
    inner: Mutex<Inner>,
    readable: Condvar,
    writable: Condvar,
}

impl Relay {
    /// Queues `item` read in `epoch`, waiting while the queue is full and `stop()`
    /// is false. False when it gave up because of `stop`; an item of an older
    /// epoch is dropped (true).
    pub fn push(&self, item: Item, epoch: u64, stop: &dyn Fn() -> bool) -> bool {
        let mut g = self.inner.lock();
        while item.bytes() > 0 && g.bytes > 0 && g.bytes + item.bytes() > CAPACITY {
            if stop() {
                return false;
            }
            self.writable.wait_for(&mut g, Duration::from_millis(100));
        }
        if g.epoch != epoch {
            return true;
        }
        g.bytes += item.bytes();
        g.items.push_back(item);
        self.readable.notify_one();
        true
    }

    /// The next item, waiting up to `wait` for one.
    pub fn pop(&self, wait: Duration) -> Option<Item> {
        let mut g = self.inner.lock();
        if g.items.is_empty() {
            self.readable.wait_for(&mut g, wait);
        }
        let item = g.items.pop_front()?;
        g.bytes -= item.bytes();
        self.writable.notify_one();
        Some(item)
    }

    /// Bytes queued (`Relay_Log_Space`).
    pub fn bytes(&self) -> usize {
        self.inner.lock().bytes
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.inner.lock().items.is_empty()
    }

    /// Drops everything queued (both threads stopped, or RESET SLAVE).
    pub fn clear(&self) {
        let mut g = self.inner.lock();
        g.items.clear();
        g.bytes = 0;
        self.writable.notify_all();
    }

    /// The current epoch (an I/O connection's items carry the one it began in).
    pub fn epoch(&self) -> u64 {
        self.inner.lock().epoch
    }

    /// Drops everything queued and starts a new epoch: the I/O thread fetches
    /// again from the applied position (after the SQL thread failed mid-stream).
    pub fn resync(&self) {
        let mut g = self.inner.lock();
        g.items.clear();
        g.bytes = 0;
        g.epoch += 1;
        self.writable.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(len: usize) -> Item {
        Item::Event {
            header: EventHeader {
                timestamp: 0,
                type_code: 0,
                server_id: 1,
                event_len: len as u32,
                log_pos: 0,
                flags: 0,
            },
            event: Box::new(Event::Stop),
            file: "f".into(),
            len,
        }
    }

    #[test]
    fn full_queue_refuses_when_stopping_and_lets_one_large_event_in() {
        let r = Relay::default();
        assert!(r.push(ev(CAPACITY * 2), 0, &|| false));
        assert!(!r.push(ev(1), 0, &|| true));
        assert!(r.pop(Duration::ZERO).is_some());
        assert!(r.push(ev(1), 0, &|| true));
        assert_eq!(r.bytes(), 1);
        r.clear();
        assert!(r.is_empty());
        assert!(r.pop(Duration::from_millis(1)).is_none());
    }

    #[test]
    fn items_of_an_older_epoch_are_dropped() {
        let r = Relay::default();
        assert!(r.push(ev(3), 0, &|| false));
        r.resync();
        assert!(r.is_empty());
        assert_eq!(r.epoch(), 1);
        assert!(r.push(ev(5), 0, &|| false));
        assert!(r.is_empty(), "a stale connection's event is not queued");
        assert!(r.push(ev(5), 1, &|| false));
        assert_eq!(r.bytes(), 5);
    }
}
