//! Triggers as the binder leaves them: each trigger of a table bound like a
//! stored function body (see [`super::function`]) whose first variables are
//! the row's columns, `NEW.col` and `OLD.col`. A statement that changes a table
//! carries its triggers in its plan (`Checks::triggers`); `exec/trigger.rs`
//! fires them per row.

use super::function::BoundFunction;

/// The statement kind a trigger fires on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Insert = 0,
    Update = 1,
    Delete = 2,
}

impl Event {
    pub fn from_name(s: &str) -> Event {
        match s {
            "INSERT" => Event::Insert,
            "UPDATE" => Event::Update,
            _ => Event::Delete,
        }
    }

    pub fn name(self) -> &'static str {
        ["INSERT", "UPDATE", "DELETE"][self as usize]
    }

    /// Whether the event has a NEW row (INSERT, UPDATE) / an OLD row
    /// (UPDATE, DELETE).
    pub fn has_new(self) -> bool {
        self != Event::Delete
    }

    pub fn has_old(self) -> bool {
        self != Event::Insert
    }

    /// The first slot of the NEW row's columns / of the OLD row's, for a table
    /// of `width` columns: NEW first, then OLD.
    pub fn new_at(self) -> usize {
        0
    }

    pub fn old_at(self, width: usize) -> usize {
        if self == Event::Update {
            width
        } else {
            0
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    Before = 0,
    After = 1,
}

/// A table's triggers, by event and timing, each list in firing order.
#[derive(Debug, Default)]
pub struct TableTriggers {
    pub width: usize,
    lists: [[Vec<BoundFunction>; 2]; 3],
}

impl TableTriggers {
    pub fn new(width: usize) -> Self {
        TableTriggers {
            width,
            lists: Default::default(),
        }
    }

    pub fn push(&mut self, event: Event, timing: Timing, f: BoundFunction) {
        self.lists[event as usize][timing as usize].push(f);
    }

    pub fn get(&self, event: Event, timing: Timing) -> &[BoundFunction] {
        &self.lists[event as usize][timing as usize]
    }

    pub fn has(&self, event: Event) -> bool {
        !self.lists[event as usize][0].is_empty() || !self.lists[event as usize][1].is_empty()
    }
}
