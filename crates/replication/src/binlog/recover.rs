//! Start-up: the binlog files get back what a crash kept from them.
//!
//! The files are written at commit without an fsync and made durable at each
//! checkpoint, which records the sync point. After a crash they may lack groups of
//! committed transactions (written after the last sync point, lost with the page
//! cache) and may hold bytes of transactions whose commit never became durable. The
//! log holds every committed group since its last checkpoint, so recovery rewrites
//! each group past the sync point at its recorded place and cuts the files where the
//! last one ends: they then hold exactly the committed transactions.

use super::files::{Files, SyncPoint};
use super::group::{Group, RESET};
use basalt_storage::StorageError;

fn io_error(what: &str, e: std::io::Error) -> StorageError {
    StorageError::Invalid(format!("binary log recovery: {what}: {e}"))
}

/// Rewrites the groups (end LSN, group) found in the recovered log.
pub fn recover(files: &Files, groups: &[(u64, Vec<u8>)]) -> Result<(), StorageError> {
    let point = files.read_sync().map_err(|e| io_error("sync point", e))?;
    let since = point.map_or(0, |p| p.lsn);
    let mut index = files.read_index().map_err(|e| io_error("index", e))?;
    let mut end = point.map(|p| (p.file, p.end));
    let mut last_lsn = since;
    let mut touched = Vec::new();
    for (lsn, bytes) in groups.iter().filter(|(lsn, _)| *lsn > since) {
        let group = Group::decode(bytes).ok_or_else(|| {
            StorageError::Invalid(format!("binary log recovery: damaged group at LSN {lsn}"))
        })?;
        if group.flags & RESET != 0 {
            remove_all(files, &mut index)?;
            end = None;
            touched.clear();
        }
        for c in &group.chunks {
            if index.first().is_some_and(|first| c.file < *first) {
                continue; // purged since
            }
            files
                .write_at(c.file, c.offset, &c.bytes)
                .map_err(|e| io_error("write", e))?;
            if !index.contains(&c.file) {
                index.push(c.file);
            }
            if !touched.contains(&c.file) {
                touched.push(c.file);
            }
            end = Some((c.file, c.offset + c.bytes.len() as u64));
        }
        last_lsn = *lsn;
    }
    let Some((file, end)) = end else {
        return Ok(()); // no binary log, or one reset with nothing after it
    };
    cut(files, &mut index, file, end)?;
    for n in touched {
        if let Ok(f) = files.open(n) {
            f.sync_all().map_err(|e| io_error("fsync", e))?;
        }
    }
    files
        .write_index(&index)
        .map_err(|e| io_error("index", e))?;
    files
        .write_sync(SyncPoint {
            file,
            end,
            lsn: last_lsn,
        })
        .map_err(|e| io_error("sync point", e))?;
    if !groups.is_empty() {
        tracing::info!(file = %files.name(file), end, "binary log recovered");
    }
    Ok(())
}

/// Removes every byte past (`file`, `end`): the rest of that file and later files.
fn cut(files: &Files, index: &mut Vec<u32>, file: u32, end: u64) -> Result<(), StorageError> {
    files
        .truncate(file, end)
        .map_err(|e| io_error("truncate", e))?;
    let present = files.present().map_err(|e| io_error("list", e))?;
    for n in present.into_iter().filter(|n| *n > file) {
        files.remove(n).map_err(|e| io_error("remove", e))?;
    }
    index.retain(|n| *n <= file);
    if !index.contains(&file) {
        index.push(file);
    }
    Ok(())
}

fn remove_all(files: &Files, index: &mut Vec<u32>) -> Result<(), StorageError> {
    let present = files.present().map_err(|e| io_error("list", e))?;
    for n in present.iter().chain(index.iter()) {
        files.remove(*n).map_err(|e| io_error("remove", e))?;
    }
    index.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::group::Chunk;
    use super::*;

    fn group(file: u32, offset: u64, bytes: &[u8]) -> Vec<u8> {
        Group {
            flags: 0,
            chunks: vec![Chunk {
                file,
                offset,
                bytes: bytes.to_vec(),
            }],
        }
        .encode()
    }

    #[test]
    fn rewrites_missing_groups_and_cuts_uncommitted_bytes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let files = Files::new(dir.path(), "b");
        files.write_at(1, 0, b"HEADxxxx").expect("write");
        files.write_index(&[1]).expect("index");
        let p = SyncPoint {
            file: 1,
            end: 4,
            lsn: 10,
        };
        files.write_sync(p).expect("sync point");
        // Group at LSN 20 was lost from the file ("xxxx" is garbage of an
        // uncommitted one); a file 2 was started but its group never became durable.
        files.write_at(2, 0, b"junk").expect("write");
        let groups = vec![(5, group(1, 0, b"OLD!")), (20, group(1, 4, b"AB"))];
        recover(&files, &groups).expect("recovered");
        let bytes = std::fs::read(files.path(1)).expect("read");
        assert_eq!(bytes, b"HEADAB");
        assert!(!files.path(2).exists());
        assert_eq!(files.read_index().expect("index"), vec![1]);
        let p = files.read_sync().expect("read").expect("point");
        assert_eq!((p.file, p.end, p.lsn), (1, 6, 20));
    }

    #[test]
    fn reset_group_removes_old_files() {
        let dir = tempfile::tempdir().expect("temp dir");
        let files = Files::new(dir.path(), "b");
        files.write_at(3, 0, b"old").expect("write");
        files.write_index(&[3]).expect("index");
        let reset = Group {
            flags: RESET,
            chunks: vec![Chunk {
                file: 1,
                offset: 0,
                bytes: b"new".to_vec(),
            }],
        }
        .encode();
        recover(&files, &[(7, reset)]).expect("recovered");
        assert!(!files.path(3).exists());
        assert_eq!(files.read_index().expect("index"), vec![1]);
    }
}
