//! Opening the log: find the end of the valid log from the checkpoint, classify
//! what lies beyond it, and start a new run (invariant 4 of the module docs).

use super::buffer::LogBuffer;
use super::format::BLOCK;
use super::reader::{Beyond, WalReader};
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
    let end = classify(stop.lsn, reader.scan_beyond(stop.lsn)?);
    if let LogEnd::Corrupt {
        next_valid,
        durable_at_least,
    } = end
    {
        tracing::error!(end = stop.lsn, next_valid, durable_at_least, reason = ?stop.reason, "durable log is damaged");
        if !cfg.allow_corrupt_tail {
            return Err(StorageError::Corrupt {
                file: dir.display().to_string(),
                page: stop.lsn,
                detail: format!(
                    "log damaged at LSN {} ({:?}) although durable up to at least {durable_at_least}; \
                     valid records follow at {next_valid}",
                    stop.lsn, stop.reason
                ),
            });
        }
    }
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

fn classify(end: Lsn, beyond: Beyond) -> LogEnd {
    match beyond.first_valid {
        None => LogEnd::Clean,
        Some(next_valid) if beyond.max_synced > end => LogEnd::Corrupt {
            next_valid,
            durable_at_least: beyond.max_synced,
        },
        Some(next_valid) => LogEnd::TornTail { next_valid },
    }
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
