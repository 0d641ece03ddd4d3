//! Exact statement texts a session ran recently, with their plan and literal
//! values: a repeated identical text skips lexing, literal stripping and the shared
//! plan cache.
//!
//! Most texts never repeat exactly (a point select differs in its key literal each
//! time), and remembering one costs an allocation, a copy and a map insert, more
//! than the lookup it might save. So a text is remembered on its second sighting:
//! the first one only writes its hash into a small direct-mapped table of recently
//! seen texts. A hash collision there only lets a text in early; the map itself is
//! keyed by the whole text.

use crate::plan::cache::{Fx, FxHasher};
use crate::plan::Plan;
use basalt_common::Value;
use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::Arc;

/// Most statement texts a session memoizes.
const CAP: usize = 256;
/// Slots of the seen-once table.
const SEEN: usize = 64;

/// A memoized statement text.
pub(crate) struct Memo {
    pub plan: Arc<Plan>,
    pub params: Arc<[Value]>,
    pub schema_version: u64,
    /// The statement's digest id.
    pub digest: u32,
}

#[derive(Default)]
pub(crate) struct StatementMemo {
    map: HashMap<String, Memo, Fx>,
    seen: Vec<u64>,
}

impl StatementMemo {
    pub fn get(&self, text: &str) -> Option<&Memo> {
        if self.map.is_empty() {
            return None;
        }
        self.map.get(text)
    }

    /// Remembers `text` if it was offered before (see the module docs).
    pub fn offer(
        &mut self,
        text: &str,
        plan: &Arc<Plan>,
        params: &[Value],
        version: u64,
        digest: u32,
    ) {
        let mut h = FxHasher::default();
        h.write(text.as_bytes());
        // Zero marks an empty slot.
        let hash = h.finish() | 1;
        if self.seen.is_empty() {
            self.seen = vec![0; SEEN];
        }
        let slot = &mut self.seen[(hash >> 32) as usize % SEEN];
        if *slot != hash {
            *slot = hash;
            return;
        }
        if self.map.len() >= CAP {
            self.map.clear();
        }
        let m = Memo {
            plan: plan.clone(),
            params: params.into(),
            schema_version: version,
            digest,
        };
        self.map.insert(text.to_string(), m);
    }

    pub fn clear(&mut self) {
        self.map.clear();
    }
}
