//! Bulk loads: a tree built bottom-up from sorted entries scans like one built by
//! inserts, passes the checker, takes inserts, deletes and updates afterwards, and
//! survives a checkpoint taken in the middle of the load.

use basalt_storage::btree::{TableFile, Tree, MAX_KEY};
use basalt_storage::io::os::OsFileSystem;
use basalt_storage::page::node::MAX_CELL;
use basalt_storage::pool::BufferPool;
use basalt_storage::store::EntrySource;
use basalt_storage::Result;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{mpsc, Arc};

type Map = BTreeMap<Vec<u8>, Vec<u8>>;

/// Entries of a map, lent in order; `on_entry` runs before each.
struct Source<'a> {
    it: std::collections::btree_map::Iter<'a, Vec<u8>, Vec<u8>>,
    on_entry: Box<dyn FnMut(usize) + 'a>,
    n: usize,
}

impl<'a> Source<'a> {
    fn new(m: &'a Map) -> Self {
        Source {
            it: m.iter(),
            on_entry: Box::new(|_| {}),
            n: 0,
        }
    }
}

impl EntrySource for Source<'_> {
    fn next_entry(&mut self) -> Result<Option<(&[u8], &[u8])>> {
        (self.on_entry)(self.n);
        self.n += 1;
        Ok(self.it.next().map(|(k, v)| (&k[..], &v[..])))
    }
}

/// Entries given as a list, in the order given (which may be wrong).
struct ListSource(
    std::vec::IntoIter<(Vec<u8>, Vec<u8>)>,
    Option<(Vec<u8>, Vec<u8>)>,
);

impl EntrySource for ListSource {
    fn next_entry(&mut self) -> Result<Option<(&[u8], &[u8])>> {
        self.1 = self.0.next();
        Ok(self.1.as_ref().map(|(k, v)| (&k[..], &v[..])))
    }
}

fn setup(frames: usize) -> (tempfile::TempDir, Arc<BufferPool>, TableFile) {
    let dir = tempfile::tempdir().unwrap();
    let pool = BufferPool::with_frames(frames);
    let file = TableFile::create(&pool, &OsFileSystem, &dir.path().join("t.bdb")).unwrap();
    (dir, pool, file)
}

fn all(tree: &Tree) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let u = Bound::Unbounded;
    tree.scan(u, u, false, usize::MAX, &mut out).unwrap();
    out
}

fn all_reverse(tree: &Tree) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let u = Bound::Unbounded;
    tree.scan(u, u, true, usize::MAX, &mut out).unwrap();
    out.reverse();
    out
}

fn expected(m: &Map) -> Vec<(Vec<u8>, Vec<u8>)> {
    m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// Loads `m` into tree 1 and inserts it into tree 2 of the same file, and checks
/// that both scan as `m` and pass the checker; returns the loaded tree.
fn load_and_compare(file: &TableFile, m: &Map) -> Tree {
    let bulk = file.create_tree(1).unwrap();
    let n = bulk.bulk_load(&mut Source::new(m)).unwrap();
    assert_eq!(n, m.len() as u64);
    let inserted = file.create_tree(2).unwrap();
    for (k, v) in m {
        inserted.put(k, v).unwrap();
    }
    let want = expected(m);
    assert_eq!(all(&bulk), want);
    assert_eq!(all_reverse(&bulk), want);
    assert_eq!(all(&inserted), want);
    let (cb, ci) = (bulk.check().unwrap(), inserted.check().unwrap());
    assert_eq!((cb.entries, cb.bytes), (ci.entries, ci.bytes));
    assert_eq!(bulk.len_estimate(), m.len() as u64);
    // Ascending inserts fill leaves completely; the load leaves a sixteenth free.
    assert!(
        cb.leaves <= ci.leaves * 17 / 15 + 1,
        "bulk {cb:?} inserted {ci:?}"
    );
    for (k, v) in m.iter().step_by(97) {
        assert_eq!(bulk.get(k).unwrap().as_ref(), Some(v));
    }
    file.drop_tree(2).unwrap();
    bulk
}

/// Random inserts, updates and deletes on `tree`, mirrored in `m`, then compared.
fn churn(
    tree: &Tree,
    m: &mut Map,
    seed: u64,
    ops: usize,
    key: impl Fn(&mut rand::rngs::StdRng) -> Vec<u8>,
) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let existing: Vec<Vec<u8>> = m.keys().cloned().collect();
    for _ in 0..ops {
        let k = if !existing.is_empty() && rng.gen_bool(0.5) {
            existing[rng.gen_range(0..existing.len())].clone()
        } else {
            key(&mut rng)
        };
        if rng.gen_range(0..3) == 0 {
            assert_eq!(tree.delete(&k).unwrap(), m.remove(&k).is_some());
        } else {
            let v = vec![rng.gen::<u8>(); rng.gen_range(0..300)];
            tree.put(&k, &v).unwrap();
            m.insert(k, v);
        }
    }
    assert_eq!(all(tree), expected(m));
    let c = tree.check().unwrap();
    assert_eq!(c.entries, m.len() as u64);
}

fn fixed_keys(n: u32, width: usize) -> Map {
    (0..n)
        .map(|i| {
            let k = format!("{i:0>width$}").into_bytes();
            let v = format!("value {i}").into_bytes();
            (k, v)
        })
        .collect()
}

#[test]
fn empty_and_single_entry() {
    let (_d, _p, file) = setup(256);
    let t = load_and_compare(&file, &Map::new());
    assert_eq!(t.check().unwrap().height, 1);
    let mut m = Map::new();
    churn(&t, &mut m, 1, 500, |r| vec![r.gen::<u8>(); 3]);
    file.drop_tree(1).unwrap();

    let mut one = Map::new();
    one.insert(b"only".to_vec(), b"v".to_vec());
    let t = load_and_compare(&file, &one);
    assert_eq!(t.check().unwrap().height, 1);
    churn(&t, &mut one, 2, 2000, |r| r.gen::<[u8; 4]>().to_vec());
}

#[test]
fn one_leaf_then_two() {
    let (_d, _p, file) = setup(256);
    let m = fixed_keys(100, 8);
    let t = load_and_compare(&file, &m);
    let c = t.check().unwrap();
    assert_eq!((c.height, c.leaves), (1, 1));
    file.drop_tree(1).unwrap();
    let mut m = fixed_keys(800, 8);
    let t = load_and_compare(&file, &m);
    let c = t.check().unwrap();
    assert_eq!(c.height, 2);
    assert!(c.leaves >= 2);
    churn(&t, &mut m, 3, 3000, |r| {
        format!("{:08}", r.gen_range(0..2000)).into_bytes()
    });
}

#[test]
fn many_levels() {
    let (_d, _p, file) = setup(4096);
    // Long keys with long common prefixes make long separators and few children per
    // inner node, so the tree gets four levels.
    let mut m = fixed_keys(60_000, 400);
    let t = load_and_compare(&file, &m);
    let c = t.check().unwrap();
    assert!(c.height >= 4, "{c:?}");
    churn(&t, &mut m, 4, 20_000, |r| {
        format!("{:0>400}", r.gen_range(0..120_000)).into_bytes()
    });
    // Deleting almost everything merges the loaded nodes down again.
    let keys: Vec<Vec<u8>> = m.keys().cloned().collect();
    for k in keys.iter().skip(5) {
        assert!(t.delete(k).unwrap());
        m.remove(k);
    }
    assert_eq!(all(&t), expected(&m));
    t.check().unwrap();
}

#[test]
fn varying_keys_and_large_values() {
    let (_d, _p, file) = setup(2048);
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let mut m = Map::new();
    while m.len() < 5000 {
        let klen = match rng.gen_range(0..10) {
            0 => MAX_KEY,
            1 => rng.gen_range(1000..MAX_KEY),
            _ => rng.gen_range(0..40),
        };
        let k: Vec<u8> = (0..klen).map(|_| rng.gen_range(0..4u8)).collect();
        let vlen = match rng.gen_range(0..20) {
            // At the inline limit, one past it, and well into overflow pages.
            0 => (MAX_CELL - 6).saturating_sub(k.len()),
            1 => (MAX_CELL - 5).saturating_sub(k.len()),
            2 => rng.gen_range(20_000..70_000),
            _ => rng.gen_range(0..200),
        };
        m.insert(k, vec![rng.gen::<u8>(); vlen]);
    }
    let t = load_and_compare(&file, &m);
    assert!(t.check().unwrap().overflow_pages > 0);
    churn(&t, &mut m, 6, 5000, |r| {
        (0..r.gen_range(0..60))
            .map(|_| r.gen_range(0..4u8))
            .collect()
    });
}

#[test]
fn refuses_unordered_entries_and_a_filled_tree() {
    let (_d, _p, file) = setup(256);
    let t = file.create_tree(1).unwrap();
    let mut list: Vec<(Vec<u8>, Vec<u8>)> = (0..20_000u32)
        .map(|i| (i.to_be_bytes().to_vec(), vec![1; 50]))
        .collect();
    list.push((5u32.to_be_bytes().to_vec(), vec![]));
    let free_before = file.pages().free_counts().1;
    let e = t
        .bulk_load(&mut ListSource(list.into_iter(), None))
        .unwrap_err();
    assert!(e.to_string().contains("out of order"), "{e}");
    // A failed load leaves an empty tree and gives its pages back.
    assert_eq!(all(&t), vec![]);
    assert_eq!(t.check().unwrap().entries, 0);
    assert!(file.pages().free_counts().1 >= free_before + 30);
    let dup = vec![(b"a".to_vec(), vec![]), (b"a".to_vec(), vec![])];
    assert!(t.bulk_load(&mut ListSource(dup.into_iter(), None)).is_err());

    t.put(b"x", b"y").unwrap();
    let m = fixed_keys(10, 4);
    let e = t.bulk_load(&mut Source::new(&m)).unwrap_err();
    assert!(e.to_string().contains("not empty"), "{e}");
    assert_eq!(all(&t), vec![(b"x".to_vec(), b"y".to_vec())]);
}

/// A checkpoint cut taken while a load runs happens between two chunks: the file
/// reopens to a valid tree holding a prefix of the entries, and dropping that tree
/// gives back every page the load had allocated by then.
#[test]
fn checkpoint_during_a_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.bdb");
    let pool = BufferPool::with_frames(2048);
    let file = TableFile::create(&pool, &OsFileSystem, &path).unwrap();
    let m = fixed_keys(80_000, 12);
    let t = file.create_tree(1).unwrap();
    file.checkpoint(|| 1).unwrap();
    let (tx, rx) = mpsc::channel::<()>();
    let cutter = {
        let file = file.clone();
        std::thread::spawn(move || {
            rx.recv().unwrap();
            file.begin_cut(|| 2).unwrap()
        })
    };
    let mut source = Source::new(&m);
    let mut tx = Some(tx);
    source.on_entry = Box::new(move |n| {
        if n == 20_000 {
            // The cutter waits for the gate, which the load holds until its chunk
            // ends: give it time to start waiting.
            tx.take().unwrap().send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
    });
    t.bulk_load(&mut source).unwrap();
    file.flush_cut(cutter.join().unwrap()).unwrap();
    assert_eq!(all(&t), expected(&m));
    drop(t);
    drop(file);

    let file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
    let t = file.tree(1).unwrap();
    let c = t.check().unwrap();
    assert!(c.entries > 0 && c.entries < m.len() as u64, "{c:?}");
    let got = all(&t);
    assert_eq!(got, expected(&m)[..got.len()].to_vec());
    let pages = c.leaves + c.inner_nodes + c.overflow_pages;
    let empty = tempfile::tempdir().unwrap();
    let base = TableFile::create(&pool, &OsFileSystem, &empty.path().join("e.bdb"))
        .unwrap()
        .pages()
        .lpns_in_use() as u64;
    // The cut's tree reaches every page the load had allocated: nothing else is in
    // use, and dropping it leaves the file as empty as a new one.
    assert_eq!(file.pages().lpns_in_use() as u64, base + pages);
    file.drop_tree(1).unwrap();
    assert_eq!(file.pages().lpns_in_use() as u64, base);
}
