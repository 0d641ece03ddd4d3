//! Opening the log: find the end of the valid log from the checkpoint, classify
//! what lies beyond it, and start a new run (invariant 4 of the module docs).

use super::buffer::LogBuffer;
use super::format::BLOCK;
use super::reader::{Beyond, ReadStop, WalReader};
use super::segments::{ControlFile, Geometry, Segments};
use super::writer::{FlushState, IoState};
use super::{BgState, Inner, LogEnd, Lsn, Recovery, Stats, WalConfig};
use crate::api::Result;
use crate::error::StorageError;
use crate::io::{AlignedBuf, FileSystem};
use parking_lot::{Condvar, Mutex};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

static WARNED_BUFFERED: AtomicBool = AtomicBool::new(false);

pub(super) fn open(
    fs: Arc<dyn FileSystem>,
    dir: &Path,
    cfg: WalConfig,
) -> Result<(Inner, Recovery)> {
    if !fs.exists(dir) {
        fs.create_dir_all(dir)?;
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs.sync_dir(parent)?;
        }
    }
    let (control, created) =
        ControlFile::open_or_create(&fs, dir, cfg.segment_size, cfg.direct_io)?;
    let direct = control.is_direct();
    if cfg.direct_io && !direct && !WARNED_BUFFERED.swap(true, Relaxed) {
        tracing::warn!(dir = %dir.display(), "O_DIRECT refused; the log uses buffered I/O");
    }
    if control.current.segment_size != cfg.segment_size {
        tracing::info!(
            existing = control.current.segment_size,
            configured = cfg.segment_size,
            "log keeps the segment size it was created with"
        );
    }
    let geo = Geometry::new(control.current.segment_size);
    let segs = Segments::open(fs.clone(), dir, geo, cfg.direct_io, cfg.zero_fill_segments)?;
    let checkpoint = control.current.checkpoint;

    let mut reader = WalReader::new(geo, segs.snapshot(), checkpoint, u64::MAX);
    let mut records = 0;
    for rec in reader.by_ref() {
        rec?;
        records += 1;
    }
    let stop = reader
        .stop()
        .cloned()
        .expect("the reader stops when iteration ends");
    let damaged_end = reader.damaged_stop()?;
    let end = classify(stop.lsn, damaged_end, reader.scan_beyond(stop.lsn)?);
    judge_end(dir, &stop, end, cfg.allow_corrupt_tail)?;
    let chain = reader.visited().to_vec();
    sync_chain(&segs, &chain)?;
    segs.free_all_but(&chain);

    let (buffer, start) = start_run(&segs, &geo, stop.lsn)?;
    let inner = Inner {
        cfg: cfg.clone(),
        geo,
        segs,
        direct,
        policy: AtomicU8::new(cfg.flush_log_at_trx_commit),
        buf: Mutex::new(buffer),
        flush: Mutex::new(FlushState {
            written: stop.lsn,
            durable: stop.lsn,
            ..FlushState::default()
        }),
        flush_cv: Condvar::new(),
        writer_cv: Condvar::new(),
        io: Mutex::new(IoState::default()),
        durable_mirror: AtomicU64::new(stop.lsn),
        halted: AtomicBool::new(false),
        writer_running: AtomicBool::new(false),
        control: Mutex::new(control),
        checkpoint: AtomicU64::new(checkpoint),
        bg: Mutex::new(BgState::default()),
        bg_cv: Condvar::new(),
        stats: Stats::default(),
        fatal_hook: Mutex::new(None),
    };
    // Writes the jump (if any) and makes it durable before anything else is written.
    inner.wait_for(start, true)?;
    let recovery = Recovery {
        created,
        checkpoint_lsn: checkpoint,
        end_lsn: stop.lsn,
        records,
        stop: stop.reason,
        end,
        start_lsn: start,
        direct_io: direct,
    };
    Ok((inner, recovery))
}

fn classify(end: Lsn, damaged_end: Option<Lsn>, beyond: Beyond) -> LogEnd {
    match beyond.first_valid {
        None => match damaged_end {
            Some(to) => LogEnd::DamagedTail { discarded_to: to },
            None => LogEnd::Clean,
        },
        Some(next_valid) if beyond.max_synced > end => LogEnd::Corrupt {
            next_valid,
            durable_at_least: beyond.max_synced,
            records: beyond.records,
            last_end: beyond.last_end,
        },
        Some(next_valid) => LogEnd::TornTail {
            next_valid,
            records: beyond.records,
            last_end: beyond.last_end,
        },
    }
}

/// Says what the end of the log means: a damaged last record is logged (WARN) and
/// cut; valid records after damage are refused unless `allow` (the operator accepts
/// their loss), because among them may be acknowledged commits.
fn judge_end(dir: &Path, stop: &ReadStop, end: LogEnd, allow: bool) -> Result<()> {
    let at = stop.lsn;
    let (records, last_end, proof) = match end {
        LogEnd::Clean => return Ok(()),
        LogEnd::DamagedTail { discarded_to } => {
            tracing::warn!(
                log = %dir.display(),
                reason = ?stop.reason,
                "the log ends with a damaged record: discarding LSN {at}..{discarded_to} \
                 (1 record). After a power loss this is the torn write of a commit that was \
                 never acknowledged; otherwise the last acknowledged commit is lost"
            );
            return Ok(());
        }
        LogEnd::TornTail {
            records, last_end, ..
        } => (
            records,
            last_end,
            "they may be an unsynced write torn by a power loss, or acknowledged commits \
             after a damaged record"
                .to_string(),
        ),
        LogEnd::Corrupt {
            records,
            last_end,
            durable_at_least,
            ..
        } => (
            records,
            last_end,
            format!(
                "the log was durable up to at least LSN {durable_at_least}, so acknowledged \
                 commits are among them"
            ),
        ),
    };
    let what = format!(
        "log damaged at LSN {at} ({:?}), and valid records follow the damage ({records} of \
         them, ending at LSN {last_end}): discarding LSN {at}..{last_end} would lose them; \
         {proof}",
        stop.reason
    );
    if allow {
        tracing::warn!(log = %dir.display(), "{what}; discarding them as configured");
        return Ok(());
    }
    tracing::error!(log = %dir.display(), "{what}");
    Err(StorageError::Corrupt {
        file: dir.display().to_string(),
        page: at,
        detail: format!(
            "{what}. Nothing was changed. To start anyway and accept the loss of those \
             records, restart once with --discard-damaged-log-tail"
        ),
    })
}

/// After a process crash (not a power loss) the chain may still be in the page
/// cache, unsynced; recovery is about to act on it, so make it durable first.
fn sync_chain(segs: &Segments, chain: &[u64]) -> Result<()> {
    for &seq in chain {
        if let Some(file) = segs.file(seq) {
            file.sync_data()?;
        }
    }
    Ok(())
}

/// Sets up the buffer for the new run. When the segment holding `end` exists it
/// may hold frames of the crashed run past `end`, so the run continues in a fresh
/// segment, numbered above every header ever written, behind a jump at `end`.
fn start_run(segs: &Segments, geo: &Geometry, end: Lsn) -> Result<(LogBuffer, Lsn)> {
    let seq_end = geo.seq(end);
    let fresh = segs.max_seq().map_or(0, |s| s + 1).max(seq_end);
    let exists = segs.file(seq_end).is_some();
    let tail_len = (end % BLOCK as u64) as usize;
    let mut tail = vec![0u8; tail_len];
    if exists {
        let file = segs.file(seq_end).expect("checked above");
        let mut block = AlignedBuf::zeroed(BLOCK);
        file.read_at(&mut block, geo.file_offset(end - tail_len as u64))?;
        tail.copy_from_slice(&block[..tail_len]);
    } else {
        segs.prepare(seq_end).map_err(StorageError::from)?;
    }
    let mut buf = LogBuffer::new(geo, end, &tail, geo.start(seq_end + 1));
    if fresh > seq_end {
        segs.prepare(fresh).map_err(StorageError::from)?;
        buf.put_jump(geo, geo.start(fresh), end);
        buf.capacity_end = geo.start(fresh + 1);
    }
    let start = buf.next;
    Ok((buf, start))
}
