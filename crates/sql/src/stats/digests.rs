//! Statement digests and statement events: what performance_schema's
//! `events_statements_summary_by_digest`, `events_statements_current` and
//! `events_statements_history` show.
//!
//! A digest is registered once per distinct (schema, digest text) in the
//! [`DigestRegistry`] and named by a small id from then on: the plan cache and
//! a session's memo keep the id with the plan, so the statement path never
//! computes a digest for a statement it has planned before. Each session adds
//! its statements' figures to its own map under its own mutex (which only a
//! reader of the tables also takes), as table statistics do; readers sum the
//! live maps and the ended sessions' totals. A session's map holds at most
//! [`SESSION_DIGESTS`] digests: past that it is folded into the totals, so the
//! memory is bounded by sessions × that, plus the registry.

use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

/// Digests a session keeps before folding them into the totals (28 fill a
/// hash table of 32 buckets: at most 16 KB a session).
pub const SESSION_DIGESTS: usize = 28;
/// `performance_schema_digests_size`.
pub const DIGESTS_SIZE: usize = 10_000;
/// `performance_schema_events_statements_history_size`.
pub const HISTORY_SIZE: usize = 10;
/// `performance_schema_max_sql_text_length`.
pub const MAX_SQL_TEXT: usize = 1024;
/// Latency histogram buckets (power-of-two microseconds; the last is +Inf).
pub const BUCKETS: usize = 32;
/// The id of the row that counts statements past `DIGESTS_SIZE` (NULL digest).
pub const LOST: u32 = 0;

/// One registered digest.
#[derive(Debug)]
pub struct DigestKey {
    pub schema: Option<String>,
    pub hash: [u8; 32],
    pub text: String,
}

/// A digest's schema and the MD5 of its text (hex).
type IdKey = (Option<String>, [u8; 32]);

/// Every digest seen since start (or the last TRUNCATE), found by schema and
/// hash (the text is kept once, in its key).
pub struct DigestRegistry {
    ids: RwLock<HashMap<IdKey, u32, foldhash::fast::RandomState>>,
    keys: RwLock<Vec<Arc<DigestKey>>>,
    lost: AtomicU64,
}

impl Default for DigestRegistry {
    fn default() -> Self {
        DigestRegistry {
            ids: RwLock::new(HashMap::default()),
            keys: RwLock::new(vec![Arc::new(DigestKey {
                schema: None,
                hash: [0; 32],
                text: String::new(),
            })]),
            lost: AtomicU64::new(0),
        }
    }
}

impl DigestRegistry {
    /// The id of `sql`'s digest in `schema`, registering it.
    pub fn id_of(&self, schema: Option<&str>, sql: &str) -> u32 {
        let text = crate::perfschema::digest::digest_text(sql);
        let hash = crate::perfschema::digest::digest_hash(&text);
        let key = (schema.map(str::to_string), hash);
        if let Some(id) = self.ids.read().get(&key) {
            return *id;
        }
        let mut ids = self.ids.write();
        if let Some(id) = ids.get(&key) {
            return *id;
        }
        let mut keys = self.keys.write();
        if keys.len() > DIGESTS_SIZE {
            self.lost.fetch_add(1, Relaxed);
            return LOST;
        }
        let id = keys.len() as u32;
        keys.push(Arc::new(DigestKey {
            schema: key.0.clone(),
            hash,
            text,
        }));
        ids.insert(key, id);
        id
    }

    pub fn key(&self, id: u32) -> Option<Arc<DigestKey>> {
        self.keys.read().get(id as usize).cloned()
    }

    /// `Performance_schema_digest_lost`.
    pub fn lost(&self) -> u64 {
        self.lost.load(Relaxed)
    }

    /// How many digests are registered (the NULL row not counted).
    pub fn len(&self) -> usize {
        self.keys.read().len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one statement did, as the digest and event tables count it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Facts {
    pub elapsed_ns: u64,
    pub lock_ns: u64,
    pub errors: u64,
    pub warnings: u64,
    pub rows_affected: u64,
    pub rows_sent: u64,
    pub rows_examined: u64,
    pub tmp_tables: u64,
    pub tmp_disk_tables: u64,
    pub select_full_join: u64,
    pub select_full_range_join: u64,
    pub select_range: u64,
    pub select_range_check: u64,
    pub select_scan: u64,
    pub sort_merge_passes: u64,
    pub sort_range: u64,
    pub sort_rows: u64,
    pub sort_scan: u64,
    pub no_index_used: u64,
    pub no_good_index_used: u64,
}

impl Facts {
    fn add(&mut self, o: &Facts) {
        self.elapsed_ns += o.elapsed_ns;
        self.lock_ns += o.lock_ns;
        self.errors += o.errors;
        self.warnings += o.warnings;
        self.rows_affected += o.rows_affected;
        self.rows_sent += o.rows_sent;
        self.rows_examined += o.rows_examined;
        self.tmp_tables += o.tmp_tables;
        self.tmp_disk_tables += o.tmp_disk_tables;
        self.select_full_join += o.select_full_join;
        self.select_full_range_join += o.select_full_range_join;
        self.select_range += o.select_range;
        self.select_range_check += o.select_range_check;
        self.select_scan += o.select_scan;
        self.sort_merge_passes += o.sort_merge_passes;
        self.sort_range += o.sort_range;
        self.sort_rows += o.sort_rows;
        self.sort_scan += o.sort_scan;
        self.no_index_used += o.no_index_used;
        self.no_good_index_used += o.no_good_index_used;
    }
}

/// A digest's figures (one session's, or summed).
#[derive(Clone, Debug)]
pub struct DigestStats {
    pub count: u64,
    /// Sums; `elapsed_ns` is SUM_TIMER_WAIT.
    pub sums: Facts,
    pub min_ns: u64,
    pub max_ns: u64,
    pub first_seen: Instant,
    pub last_seen: Instant,
    /// Statements per latency bucket (see [`bucket_of`]).
    pub buckets: [u64; BUCKETS],
}

impl DigestStats {
    fn new(at: Instant) -> Self {
        DigestStats {
            count: 0,
            sums: Facts::default(),
            min_ns: u64::MAX,
            max_ns: 0,
            first_seen: at,
            last_seen: at,
            buckets: [0; BUCKETS],
        }
    }

    fn record(&mut self, f: &Facts, ended: Instant) {
        self.count += 1;
        self.sums.add(f);
        self.min_ns = self.min_ns.min(f.elapsed_ns);
        self.max_ns = self.max_ns.max(f.elapsed_ns);
        self.last_seen = ended;
        self.buckets[bucket_of(f.elapsed_ns)] += 1;
    }

    fn merge(&mut self, o: &DigestStats) {
        self.count += o.count;
        self.sums.add(&o.sums);
        self.min_ns = self.min_ns.min(o.min_ns);
        self.max_ns = self.max_ns.max(o.max_ns);
        self.first_seen = self.first_seen.min(o.first_seen);
        self.last_seen = self.last_seen.max(o.last_seen);
        for (a, b) in self.buckets.iter_mut().zip(o.buckets.iter()) {
            *a += b;
        }
    }
}

/// The latency bucket of `ns`: bucket `i` holds `2^(i-1) < µs <= 2^i`
/// (bucket 0 up to 1 µs), the last one everything above.
pub fn bucket_of(ns: u64) -> usize {
    let us = ns.div_ceil(1000);
    if us <= 1 {
        return 0;
    }
    ((64 - (us - 1).leading_zeros()) as usize).min(BUCKETS - 1)
}

/// The upper bound of bucket `i` in nanoseconds (None for the last).
pub fn bucket_upper_ns(i: usize) -> Option<u64> {
    (i < BUCKETS - 1).then(|| (1u64 << i) * 1000)
}

type Map = HashMap<u32, DigestStats, foldhash::fast::RandomState>;

/// One finished statement, for the history tables.
#[derive(Clone, Debug)]
pub struct StatementEvent {
    pub event_id: u64,
    pub event_name: &'static str,
    pub text: String,
    pub digest: u32,
    pub schema: Option<String>,
    /// When it ended (it started `facts.elapsed_ns` earlier).
    pub ended: Instant,
    pub facts: Facts,
    /// errno, SQLSTATE, message.
    pub error: Option<(u16, &'static str, String)>,
}

/// A session's digests and recent statements, under one lock that only the
/// session and readers of the tables take.
#[derive(Default)]
pub struct SessionDigests {
    /// The session's connection id (THREAD_ID in the event tables).
    pub thread: u64,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    map: Map,
    /// The last [`HISTORY_SIZE`] statements; `next` is the oldest once full.
    ring: Vec<StatementEvent>,
    next: usize,
    events: u64,
}

impl SessionDigests {
    /// Adds one statement of digest `id` that ended at `ended`, and keeps it
    /// in the history: the ring's oldest entry is overwritten in place (its
    /// text buffer reused), `fill` writing the fields the session knows.
    pub fn record(
        &self,
        hub: &DigestHub,
        id: u32,
        f: &Facts,
        ended: Instant,
        fill: impl FnOnce(&mut StatementEvent),
    ) {
        let (digests, history) = (hub.digests_on(), hub.history_on());
        let mut g = self.inner.lock();
        if digests {
            if g.map.len() >= SESSION_DIGESTS && !g.map.contains_key(&id) {
                hub.fold(&mut g.map);
            }
            g.map
                .entry(id)
                .or_insert_with(|| DigestStats::new(ended))
                .record(f, ended);
        }
        g.events += 1;
        if !history {
            return;
        }
        let event_id = g.events;
        let at = g.next;
        g.next = if at + 1 == HISTORY_SIZE { 0 } else { at + 1 };
        if g.ring.len() < HISTORY_SIZE {
            g.ring.push(empty_event());
        }
        let e = &mut g.ring[at];
        e.event_id = event_id;
        e.digest = id;
        e.ended = ended;
        e.facts = *f;
        fill(e);
    }

    /// The session's recent statements, oldest first.
    pub fn history(&self) -> Vec<StatementEvent> {
        let g = self.inner.lock();
        let (newer, older) = g.ring.split_at(g.next.min(g.ring.len()));
        older.iter().chain(newer).cloned().collect()
    }

    fn add_into(&self, out: &mut Map) {
        for (k, s) in self.inner.lock().map.iter() {
            merge_into(out, *k, s);
        }
    }
}

fn empty_event() -> StatementEvent {
    StatementEvent {
        event_id: 0,
        event_name: "",
        text: String::new(),
        digest: LOST,
        schema: None,
        ended: Instant::now(),
        facts: Facts::default(),
        error: None,
    }
}

fn merge_into(out: &mut Map, k: u32, s: &DigestStats) {
    match out.get_mut(&k) {
        Some(e) => e.merge(s),
        None => {
            out.insert(k, s.clone());
        }
    }
}

/// The live sessions' digests, the ended ones' totals and the registry.
#[derive(Default)]
pub struct DigestHub {
    pub registry: DigestRegistry,
    inner: Mutex<Hub>,
    /// `performance_schema` is on (`--performance-schema`, default ON).
    enabled: AtomicBool,
    /// The `setup_consumers` rows that are on (bits `CONSUMER_*`): the
    /// statement path records digests and events only for these.
    consumers: AtomicU8,
}

/// `statements_digest`.
pub const CONSUMER_DIGEST: u8 = 1;
/// `events_statements_current`.
pub const CONSUMER_CURRENT: u8 = 2;
/// `events_statements_history`.
pub const CONSUMER_HISTORY: u8 = 4;
/// `global_instrumentation`.
pub const CONSUMER_GLOBAL: u8 = 8;
/// `thread_instrumentation`.
pub const CONSUMER_THREAD: u8 = 16;
/// `events_transactions_current`.
pub const CONSUMER_TRANSACTIONS: u8 = 32;
const ALL_CONSUMERS: u8 = 63;
const DIGESTS: u8 = CONSUMER_GLOBAL | CONSUMER_DIGEST;
const HISTORY: u8 = CONSUMER_GLOBAL | CONSUMER_THREAD | CONSUMER_CURRENT | CONSUMER_HISTORY;

#[derive(Default)]
struct Hub {
    live: Vec<Option<Arc<SessionDigests>>>,
    free: Vec<usize>,
    ended: Map,
}

impl DigestHub {
    /// At start: performance_schema on (every consumer Basalt has) or off.
    pub fn set_on(&self, on: bool) {
        self.enabled.store(on, Relaxed);
        self.consumers
            .store(if on { ALL_CONSUMERS } else { 0 }, Relaxed);
    }

    /// Whether performance_schema was started on.
    pub fn enabled(&self) -> bool {
        self.enabled.load(Relaxed)
    }

    /// Whether a statement is recorded at all (its digest or its event).
    #[inline]
    pub fn on(&self) -> bool {
        let c = self.consumers.load(Relaxed);
        c & DIGESTS == DIGESTS || c & HISTORY == HISTORY
    }

    /// Whether statements count in their digests.
    #[inline]
    pub fn digests_on(&self) -> bool {
        self.consumers.load(Relaxed) & DIGESTS == DIGESTS
    }

    /// Whether statements enter their session's current and history events.
    #[inline]
    pub fn history_on(&self) -> bool {
        self.consumers.load(Relaxed) & HISTORY == HISTORY
    }

    /// Whether consumer `bit` is on (its own row, whatever the others say).
    pub fn consumer(&self, bit: u8) -> bool {
        self.consumers.load(Relaxed) & bit != 0
    }

    /// Whether a per-thread consumer `bit` collects (it, the global and the
    /// thread switches on).
    pub fn collects(&self, bit: u8) -> bool {
        let want = CONSUMER_GLOBAL | CONSUMER_THREAD | bit;
        self.consumers.load(Relaxed) & want == want
    }

    /// UPDATE setup_consumers (only while performance_schema is enabled).
    pub fn set_consumer(&self, bit: u8, on: bool) {
        if on {
            self.consumers.fetch_or(bit, Relaxed);
        } else {
            self.consumers.fetch_and(!bit, Relaxed);
        }
    }

    pub(super) fn join(&self, thread: u64) -> (usize, Arc<SessionDigests>) {
        let s = Arc::new(SessionDigests {
            thread,
            ..Default::default()
        });
        let mut h = self.inner.lock();
        let i = match h.free.pop() {
            Some(i) => {
                h.live[i] = Some(s.clone());
                i
            }
            None => {
                h.live.push(Some(s.clone()));
                h.live.len() - 1
            }
        };
        (i, s)
    }

    pub(super) fn leave(&self, index: usize) {
        let mut h = self.inner.lock();
        if let Some(s) = h.live[index].take() {
            let mut ended = std::mem::take(&mut h.ended);
            s.add_into(&mut ended);
            h.ended = ended;
        }
        h.free.push(index);
    }

    /// Moves a session's map into the totals (the session holds its lock).
    fn fold(&self, map: &mut Map) {
        let mut h = self.inner.lock();
        for (k, s) in map.drain() {
            merge_into(&mut h.ended, k, &s);
        }
    }

    /// Every digest's figures, summed over sessions.
    pub fn snapshot(&self) -> Vec<(u32, DigestStats)> {
        let h = self.inner.lock();
        let mut all = h.ended.clone();
        for s in h.live.iter().flatten() {
            s.add_into(&mut all);
        }
        let mut v: Vec<_> = all.into_iter().collect();
        v.sort_by_key(|(k, _)| *k);
        v
    }

    /// The live sessions' digest blocks (for the history tables).
    pub fn sessions(&self) -> Vec<Arc<SessionDigests>> {
        self.inner.lock().live.iter().flatten().cloned().collect()
    }

    /// TRUNCATE TABLE events_statements_summary_by_digest.
    pub fn truncate(&self) {
        let mut h = self.inner.lock();
        h.ended.clear();
        for s in h.live.iter().flatten() {
            s.inner.lock().map.clear();
        }
    }

    /// TRUNCATE TABLE events_statements_history.
    pub fn truncate_history(&self) {
        for s in self.sessions() {
            let mut g = s.inner.lock();
            g.ring.clear();
            g.next = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_powers_of_two_microseconds() {
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(1000), 0);
        assert_eq!(bucket_of(1001), 1);
        assert_eq!(bucket_of(2000), 1);
        assert_eq!(bucket_of(3000), 2);
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
        assert_eq!(bucket_upper_ns(1), Some(2000));
        assert_eq!(bucket_upper_ns(BUCKETS - 1), None);
    }

    #[test]
    fn sessions_fold_into_totals_and_registry_is_bounded_by_id() {
        let hub = DigestHub::default();
        hub.set_on(true);
        let a = hub.registry.id_of(Some("d"), "select 1");
        let b = hub.registry.id_of(Some("d"), "select 2");
        assert_eq!(a, b, "literals do not make digests");
        let c = hub.registry.id_of(None, "select 2");
        assert_ne!(a, c, "the schema is part of the key");
        let (i, s) = hub.join(7);
        let f = Facts {
            elapsed_ns: 5_000,
            rows_sent: 1,
            ..Facts::default()
        };
        let now = Instant::now();
        s.record(&hub, a, &f, now, |_| {});
        s.record(&hub, a, &f, now, |_| {});
        for id in 100..100 + SESSION_DIGESTS as u32 + 1 {
            s.record(&hub, id, &f, now, |e| e.text = format!("{id}"));
        }
        let h = s.history();
        assert_eq!(h.len(), HISTORY_SIZE);
        assert!(h.windows(2).all(|w| w[0].event_id < w[1].event_id));
        assert_eq!(
            h[HISTORY_SIZE - 1].text,
            format!("{}", 100 + SESSION_DIGESTS)
        );
        hub.leave(i);
        let snap = hub.snapshot();
        let (_, st) = snap.iter().find(|(k, _)| *k == a).expect("digest a");
        assert_eq!(st.count, 2);
        assert_eq!(st.sums.rows_sent, 2);
        assert_eq!(st.min_ns, 5_000);
        assert_eq!(snap.len(), SESSION_DIGESTS + 2);
        hub.truncate();
        assert!(hub.snapshot().is_empty());
    }

    #[test]
    fn consumers_choose_what_is_recorded() {
        let hub = DigestHub::default();
        hub.set_on(true);
        let (_, s) = hub.join(7);
        let f = Facts::default();
        hub.set_consumer(CONSUMER_HISTORY, false);
        assert!(hub.on() && hub.digests_on() && !hub.history_on());
        s.record(&hub, 1, &f, Instant::now(), |_| {});
        assert!(s.history().is_empty());
        assert_eq!(hub.snapshot().len(), 1);
        hub.set_consumer(CONSUMER_HISTORY, true);
        hub.set_consumer(CONSUMER_DIGEST, false);
        s.record(&hub, 2, &f, Instant::now(), |_| {});
        assert_eq!(s.history().len(), 1);
        assert_eq!(hub.snapshot().len(), 1);
        // global_instrumentation stops both.
        hub.set_consumer(CONSUMER_DIGEST, true);
        hub.set_consumer(CONSUMER_GLOBAL, false);
        assert!(!hub.on());
        hub.set_on(false);
        hub.set_consumer(CONSUMER_GLOBAL, true);
        assert!(!hub.on() && !hub.enabled());
    }
}
