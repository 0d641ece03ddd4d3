//! Change capture for an online table copy: while ALTER TABLE copies a table
//! that writers go on changing, every clustered write records the primary key it
//! changed and the id of the transaction that changed it, so the copy can read
//! those rows again once their writers have ended (see `facade::alter_online`).

use super::TableCore;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Primary keys changed since the last [`TableCore::take_captured`], each with
/// its latest writer.
pub(crate) type Captured = HashMap<Vec<u8>, u64>;

#[derive(Default)]
pub(crate) struct ChangeCapture {
    /// Checked on every write without taking the mutex.
    on: AtomicBool,
    keys: Mutex<Captured>,
}

impl TableCore {
    /// Starts recording the keys writers change. The caller holds writers out
    /// while it starts, so no write can be half done across the start.
    pub(crate) fn start_capture(&self) {
        self.capture.keys.lock().clear();
        self.capture.on.store(true, Ordering::SeqCst);
    }

    /// Stops recording and forgets what was recorded.
    pub(crate) fn stop_capture(&self) {
        self.capture.on.store(false, Ordering::SeqCst);
        self.capture.keys.lock().clear();
    }

    /// Called by a writer once its change of the clustered record `key` is done,
    /// before its transaction can commit. Rows are changed by one transaction at a
    /// time (row locks), so the latest writer is the only one that can still be
    /// open.
    pub(crate) fn capture_change(&self, key: &[u8], writer: u64) {
        if self.capture.on.load(Ordering::Relaxed) {
            self.capture.keys.lock().insert(key.to_vec(), writer);
        }
    }

    /// Takes what was recorded so far; recording goes on.
    pub(crate) fn take_captured(&self) -> Captured {
        std::mem::take(&mut *self.capture.keys.lock())
    }

    /// Records `key` again for a later round unless a newer change already did.
    pub(crate) fn recapture(&self, key: Vec<u8>, writer: u64) {
        self.capture.keys.lock().entry(key).or_insert(writer);
    }

    pub(crate) fn captured_len(&self) -> usize {
        self.capture.keys.lock().len()
    }
}
