//! Functional tests of the B+tree over a real file: point operations, splits and
//! merges, overflow values, scans, several trees per file, drop/clear, reopen.

use basalt_storage::btree::{Action, TableFile, Tree, MAX_KEY};
use basalt_storage::io::os::OsFileSystem;
use basalt_storage::pool::BufferPool;
use basalt_storage::store::Modify;
use std::ops::Bound;
use std::sync::Arc;

fn setup(frames: usize) -> (tempfile::TempDir, Arc<BufferPool>, TableFile) {
    let dir = tempfile::tempdir().unwrap();
    let pool = BufferPool::with_frames(frames);
    let file = TableFile::create(&pool, &OsFileSystem, &dir.path().join("t.bdb")).unwrap();
    (dir, pool, file)
}

fn key(i: u32) -> Vec<u8> {
    format!("key{i:08}").into_bytes()
}

fn all(tree: &Tree, reverse: bool) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    tree.scan(
        Bound::Unbounded,
        Bound::Unbounded,
        reverse,
        usize::MAX,
        &mut out,
    )
    .unwrap();
    out
}

#[test]
fn point_operations() {
    let (_d, _p, file) = setup(64);
    let t = file.create_tree(1).unwrap();
    assert_eq!(t.get(b"a").unwrap(), None);
    assert_eq!(t.put(b"a", b"1").unwrap(), Action::Inserted);
    assert_eq!(t.put(b"a", b"22").unwrap(), Action::Updated);
    assert_eq!(t.get(b"a").unwrap().as_deref(), Some(&b"22"[..]));
    assert_eq!(t.put(b"", b"empty key").unwrap(), Action::Inserted);
    assert_eq!(t.get(b"").unwrap().as_deref(), Some(&b"empty key"[..]));
    assert!(t.delete(b"a").unwrap());
    assert!(!t.delete(b"a").unwrap());
    assert_eq!(t.get(b"a").unwrap(), None);
    assert_eq!(t.len_estimate(), 1);
    let long = vec![7u8; MAX_KEY];
    t.put(&long, b"v").unwrap();
    assert_eq!(t.get(&long).unwrap().as_deref(), Some(&b"v"[..]));
    assert!(t.put(&vec![0u8; MAX_KEY + 1], b"v").is_err());
}

#[test]
fn modify_reports_changes_and_runs_closure_once() {
    let (_d, _p, file) = setup(64);
    let t = file.create_tree(1).unwrap();
    let mut calls = 0;
    let mut logged = Vec::new();
    let a = t
        .modify(
            b"k",
            |old| {
                calls += 1;
                assert_eq!(old, None);
                Modify::Put(b"v1".to_vec())
            },
            |c| {
                logged.push((c.old.map(<[u8]>::to_vec), c.new.map(<[u8]>::to_vec)));
                Ok(())
            },
        )
        .unwrap();
    assert_eq!((a, calls), (Action::Inserted, 1));
    let a = t
        .modify(b"k", |_| Modify::Keep, |_| panic!("nothing to log"))
        .unwrap();
    assert_eq!(a, Action::Kept);
    // A failing log callback leaves the tree unchanged.
    let err = t.modify(
        b"k",
        |_| Modify::Delete,
        |_| Err(basalt_storage::StorageError::Halted("log full".into())),
    );
    assert!(err.is_err());
    assert_eq!(t.get(b"k").unwrap().as_deref(), Some(&b"v1"[..]));
    t.modify(
        b"k",
        |_| Modify::Delete,
        |c| {
            logged.push((c.old.map(<[u8]>::to_vec), c.new.map(<[u8]>::to_vec)));
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(
        logged,
        vec![(None, Some(b"v1".to_vec())), (Some(b"v1".to_vec()), None)]
    );
}

#[test]
fn splits_scans_and_merges() {
    let (_d, _p, file) = setup(256);
    let t = file.create_tree(3).unwrap();
    let n = 20_000u32;
    // Insert in a scrambled order so splits happen everywhere.
    for i in 0..n {
        let k = (i * 7919) % n;
        t.put(&key(k), &k.to_le_bytes().repeat(5)).unwrap();
    }
    let c = t.check().unwrap();
    assert_eq!(c.entries, n as u64);
    assert!(c.height >= 2, "{c:?}");
    let fwd = all(&t, false);
    assert_eq!(fwd.len(), n as usize);
    assert!(fwd.windows(2).all(|w| w[0].0 < w[1].0));
    let mut rev = all(&t, true);
    rev.reverse();
    assert_eq!(fwd, rev);
    // Bounded scans resume from the last key.
    let mut out = Vec::new();
    let lo = key(100);
    let hi = key(200);
    t.scan(
        Bound::Excluded(&lo),
        Bound::Included(&hi),
        false,
        30,
        &mut out,
    )
    .unwrap();
    assert_eq!(out.len(), 30);
    assert_eq!(out[0].0, key(101));
    let last = out.last().unwrap().0.clone();
    t.scan(
        Bound::Excluded(&last),
        Bound::Included(&hi),
        false,
        1000,
        &mut out,
    )
    .unwrap();
    assert_eq!(out.len(), 100);
    assert_eq!(out.last().unwrap().0, key(200));
    let mut out = Vec::new();
    t.scan(
        Bound::Included(&lo),
        Bound::Excluded(&hi),
        true,
        1000,
        &mut out,
    )
    .unwrap();
    assert_eq!(out.len(), 100);
    assert_eq!(out[0].0, key(199));
    // Deleting everything shrinks the tree back to one leaf.
    let before = c.leaves + c.inner_nodes;
    for i in 0..n {
        assert!(t.delete(&key((i * 31) % n)).unwrap());
    }
    let c = t.check().unwrap();
    assert_eq!(c.entries, 0);
    assert!(c.leaves + c.inner_nodes < before / 10, "{c:?}");
    assert!(all(&t, false).is_empty());
}

#[test]
fn ascending_inserts_fill_leaves() {
    let (_d, _p, file) = setup(256);
    let t = file.create_tree(1).unwrap();
    for i in 0..10_000u32 {
        t.put(&key(i), &[1u8; 100]).unwrap();
    }
    let c = t.check().unwrap();
    // 10000 cells of ~121 bytes: about 136 per leaf when full.
    assert!(c.leaves < 80, "{c:?}");
}

#[test]
fn overflow_values() {
    let (_d, _p, file) = setup(64);
    let t = file.create_tree(1).unwrap();
    let big: Vec<u8> = (0..16 * 1024 * 1024 + 123)
        .map(|i| (i * 31 % 251) as u8)
        .collect();
    t.put(b"big", &big).unwrap();
    t.put(b"mid", &vec![5u8; 5000]).unwrap();
    assert_eq!(t.get(b"big").unwrap().unwrap(), big);
    assert_eq!(t.get(b"mid").unwrap().unwrap(), vec![5u8; 5000]);
    let c = t.check().unwrap();
    assert_eq!(c.overflow_pages, 1028 + 1);
    let mut out = Vec::new();
    t.scan(Bound::Unbounded, Bound::Unbounded, false, 10, &mut out)
        .unwrap();
    assert_eq!(out[0].1, big);
    // Replacing and deleting give the pages back.
    let (_, free_before) = file.pages().free_counts();
    t.put(b"big", b"small now").unwrap();
    let (_, free_after) = file.pages().free_counts();
    assert_eq!(free_after - free_before, 1028);
    t.modify(
        b"mid",
        |old| {
            assert_eq!(old.unwrap().len(), 5000);
            Modify::Delete
        },
        |c| {
            assert_eq!(c.old.unwrap().len(), 5000);
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(t.check().unwrap().overflow_pages, 0);
}

#[test]
fn trees_drop_and_clear_reuse_space() {
    let (_d, _p, file) = setup(128);
    let a = file.create_tree(1).unwrap();
    let b = file.create_tree(2).unwrap();
    assert!(file.create_tree(1).is_err());
    for i in 0..5000u32 {
        a.put(&key(i), &[1; 200]).unwrap();
        b.put(&key(i), &[2; 200]).unwrap();
    }
    b.put(b"big", &vec![9; 100_000]).unwrap();
    let (_, free0) = file.pages().free_counts();
    file.drop_tree(2).unwrap();
    assert!(file.tree(2).is_none());
    assert!(b.get(&key(1)).is_err() && b.put(b"x", b"y").is_err());
    let (_, free1) = file.pages().free_counts();
    assert!(free1 > free0 + 60, "{free0} -> {free1}");
    // The freed logical pages are used again.
    let c = file.create_tree(3).unwrap();
    for i in 0..5000u32 {
        c.put(&key(i), &[3; 200]).unwrap();
    }
    let (_, free2) = file.pages().free_counts();
    assert!(free2 < free1 / 2, "{free1} -> {free2}");
    a.clear().unwrap();
    assert_eq!(a.get(&key(1)).unwrap(), None);
    assert_eq!(a.check().unwrap().leaves, 1);
    assert_eq!(a.len_estimate(), 0);
    a.put(b"x", b"y").unwrap();
    assert_eq!(file.tree_ids(), vec![1, 3]);
}

#[test]
fn checkpoint_then_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bdb");
    let pool = BufferPool::with_frames(64);
    {
        let file = TableFile::create(&pool, &OsFileSystem, &path).unwrap();
        let t = file.create_tree(7).unwrap();
        for i in 0..3000u32 {
            t.put(&key(i), &i.to_le_bytes()).unwrap();
        }
        t.put(b"zz-big", &vec![1u8; 40_000]).unwrap();
        file.checkpoint(|| 42).unwrap();
        // Not checkpointed: lost at reopen.
        t.put(b"after", b"x").unwrap();
    }
    let file = TableFile::open(&pool, &OsFileSystem, &path).unwrap();
    assert_eq!(file.checkpoint_lsn(), 42);
    let t = file.tree(7).unwrap();
    assert_eq!(t.len_estimate(), 3001);
    assert_eq!(t.get(&key(1234)).unwrap().unwrap(), 1234u32.to_le_bytes());
    assert_eq!(t.get(b"zz-big").unwrap().unwrap(), vec![1u8; 40_000]);
    assert_eq!(t.get(b"after").unwrap(), None);
    assert_eq!(t.check().unwrap().entries, 3001);
    assert!(file.verify().unwrap() > 10);
}

#[test]
fn files_share_one_pool() {
    let dir = tempfile::tempdir().unwrap();
    let pool = BufferPool::with_frames(32);
    let paths: Vec<_> = (0..3)
        .map(|i| dir.path().join(format!("f{i}.bdb")))
        .collect();
    let files: Vec<TableFile> = paths
        .iter()
        .map(|p| TableFile::create(&pool, &OsFileSystem, p).unwrap())
        .collect();
    let trees: Vec<Tree> = files.iter().map(|f| f.create_tree(1).unwrap()).collect();
    for i in 0..3000u32 {
        for (n, t) in trees.iter().enumerate() {
            let mut v = format!("file{n}-{i}").into_bytes();
            v.resize(300, b' ');
            t.put(&key(i), &v).unwrap();
        }
    }
    for f in &files {
        f.checkpoint(|| 5).unwrap();
    }
    // Closing one file drops its frames; the others keep working.
    drop(trees);
    let mut files = files;
    files.remove(1);
    for (n, f) in [(0, &files[0]), (2, &files[1])] {
        let t = f.tree(1).unwrap();
        let v = t.get(&key(2999)).unwrap().unwrap();
        assert!(v.starts_with(format!("file{n}-2999 ").as_bytes()));
    }
    let reopened = TableFile::open(&pool, &OsFileSystem, &paths[1]).unwrap();
    let t = reopened.tree(1).unwrap();
    assert_eq!(t.check().unwrap().entries, 3000);
    assert!(t.get(&key(7)).unwrap().unwrap().starts_with(b"file1-7 "));
    assert!(pool.stats().evictions > 100);
}
