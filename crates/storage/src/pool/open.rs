//! Opening a table file: choosing the checkpoint image, reading its page map, and
//! deciding whether that image may be used.
//!
//! Both meta slots are read; the valid one with the higher checkpoint sequence is the
//! candidate image. Two rules decide whether it may be used:
//!
//! 1. **The log must cover it.** Recovery replays the log from its retention point,
//!    `log_start`; a file opened at a checkpoint whose cut LSN lies below it would
//!    silently miss the changes between the two (they were in the file's newer image,
//!    and the log holding them has been recycled). Such an image is refused with
//!    [`StorageError::Corrupt`] naming the file and the damaged meta slot: the table is
//!    unusable, never served rolled back.
//! 2. **A fallback image must be intact.** When one meta slot is damaged, the other
//!    may be the *older* checkpoint (the damaged one was newer: a torn meta write, or
//!    rot). Once a newer checkpoint is complete, the slots only the older one refers to
//!    are free and may have been rewritten, so before using the image every page it
//!    refers to is read and checked, including that no page carries a checkpoint
//!    sequence above the image's (a rewritten slot always does: a slot freed by
//!    checkpoint `n` is next written for a checkpoint above `n`).
//!
//! With both rules met, recovery replays the log from the image's cut and nothing is
//! lost. A damaged slot is logged at WARN either way; the next checkpoint overwrites it
//! (the meta of checkpoint `seq` goes to slot `seq % 2`).

use super::file::corrupt;
use crate::api::Result;
use crate::io::{AlignedBuf, File};
use crate::page::meta::{decode_list, describe, is_blank, Meta, LIST_ENTRIES};
use crate::page::{check, get_u64, PageNo, PageType, H_SEQ, NO_PAGE, PAGE_SIZE};

/// A checkpoint image read from a file: its meta and page map.
pub(super) struct Image {
    pub meta: Meta,
    /// Physical slot of each logical page (or a free marker).
    pub map: Vec<u32>,
    pub map_slots: Vec<u32>,
    pub dir_slots: Vec<u32>,
}

/// A meta slot that failed its checks, and why.
struct Damaged {
    slot: u32,
    detail: String,
}

/// Reads the image the file should be opened at (see the module docs); `log_start`
/// is the first LSN of the log the caller will replay.
pub(super) fn read_image(file: &dyn File, name: &str, log_start: u64) -> Result<Image> {
    let (meta, damaged) = read_best_meta(file, name)?;
    if meta.cut_lsn < log_start {
        let slot = damaged.as_ref().map_or(meta.seq % 2, |d| d.slot as u64);
        let why = damaged.as_ref().map_or_else(
            || format!("the newest checkpoint ({})", describe_meta(&meta)),
            |d| {
                format!(
                    "meta slot {} is damaged ({}) and the other one ({})",
                    d.slot,
                    d.detail,
                    describe_meta(&meta)
                )
            },
        );
        return Err(corrupt(
            name,
            slot,
            format!(
                "{why} is older than the log, which starts at LSN {log_start}: the changes \
                 made since that checkpoint are lost"
            ),
        ));
    }
    let (map, map_slots, dir_slots) = read_map(file, name, &meta)?;
    let image = Image {
        meta,
        map,
        map_slots,
        dir_slots,
    };
    if let Some(d) = damaged {
        verify_image(file, name, &image)?;
        tracing::warn!(
            file = name,
            slot = d.slot,
            "meta slot damaged ({}); opened at {} (every page checked, the log holds \
             every change since)",
            d.detail,
            describe_meta(&image.meta)
        );
    }
    Ok(image)
}

fn describe_meta(m: &Meta) -> String {
    format!("checkpoint {} at LSN {}", m.seq, m.cut_lsn)
}

/// The valid meta slot with the higher sequence, and the damaged slot if there is one.
fn read_best_meta(file: &dyn File, name: &str) -> Result<(Meta, Option<Damaged>)> {
    let mut best: Option<Meta> = None;
    let mut errors = Vec::new();
    let mut buf = AlignedBuf::zeroed(PAGE_SIZE);
    for slot in 0..2u32 {
        if let Err(e) = file.read_at(&mut buf, slot as u64 * PAGE_SIZE as u64) {
            errors.push(Damaged {
                slot,
                detail: e.to_string(),
            });
            continue;
        }
        if is_blank(&buf) {
            continue;
        }
        match check(&buf, &[PageType::Meta], slot).and_then(|_| Meta::decode(&buf)) {
            Ok(m) if best.as_ref().is_none_or(|b| m.seq > b.seq) => best = Some(m),
            Ok(_) => {}
            Err(detail) => errors.push(Damaged { slot, detail }),
        }
    }
    match best {
        Some(m) => Ok((m, errors.into_iter().next())),
        None => {
            let d = errors.into_iter().next().unwrap_or(Damaged {
                slot: 0,
                detail: "both meta slots are blank".into(),
            });
            Err(corrupt(name, d.slot as u64, format!("meta: {}", d.detail)))
        }
    }
}

/// Reads a checkpoint's map: (map, map page slots, directory page slots).
fn read_map(file: &dyn File, name: &str, meta: &Meta) -> Result<(Vec<u32>, Vec<u32>, Vec<u32>)> {
    let mut buf = AlignedBuf::zeroed(PAGE_SIZE);
    let mut read_list = |slot: u32, ty: PageType, index: u32| -> Result<(Vec<u32>, PageNo)> {
        read_slot(file, name, slot, &mut buf, ty, index)?;
        check(&buf, &[ty], index)
            .and_then(|_| decode_list(&buf))
            .map_err(|d| {
                corrupt(
                    name,
                    slot as u64,
                    format!("{} page {index}: {d}", describe(ty)),
                )
            })
    };
    let mut dir_slots = Vec::new();
    let mut map_slots = Vec::new();
    let mut next = meta.dir_first;
    while next != NO_PAGE && map_slots.len() < meta.map_pages as usize {
        let (entries, n) = read_list(next, PageType::MapDir, dir_slots.len() as u32)?;
        dir_slots.push(next);
        map_slots.extend(entries);
        next = n;
    }
    if map_slots.len() != meta.map_pages as usize {
        return Err(corrupt(
            name,
            meta.seq % 2,
            format!(
                "meta lists {} map pages, directory holds {}",
                meta.map_pages,
                map_slots.len()
            ),
        ));
    }
    let mut map = Vec::with_capacity(meta.logical_pages as usize);
    for (k, &slot) in map_slots.iter().enumerate() {
        let (entries, _) = read_list(slot, PageType::Map, k as u32)?;
        map.extend(entries);
    }
    if map.len() != meta.logical_pages as usize
        || map_slots.len() != (map.len()).div_ceil(LIST_ENTRIES)
    {
        return Err(corrupt(
            name,
            meta.seq % 2,
            format!(
                "meta lists {} logical pages, map holds {}",
                meta.logical_pages,
                map.len()
            ),
        ));
    }
    Ok((map, map_slots, dir_slots))
}

/// Reads physical page `slot`, reporting a page past the end of the file as corrupt.
fn read_slot(
    file: &dyn File,
    name: &str,
    slot: u32,
    buf: &mut [u8],
    ty: PageType,
    index: u32,
) -> Result<()> {
    file.read_at(buf, slot as u64 * PAGE_SIZE as u64)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => corrupt(
                name,
                slot as u64,
                format!(
                    "{} page {index} lies beyond the end of the file",
                    describe(ty)
                ),
            ),
            _ => e.into(),
        })
}

/// Checks every page `image` refers to (rule 2 of the module docs).
fn verify_image(file: &dyn File, name: &str, image: &Image) -> Result<()> {
    let seq = image.meta.seq;
    let mut buf = AlignedBuf::zeroed(PAGE_SIZE);
    let lists = image
        .dir_slots
        .iter()
        .enumerate()
        .map(|(i, &s)| (s, vec![PageType::MapDir], i as u32))
        .chain(
            image
                .map_slots
                .iter()
                .enumerate()
                .map(|(k, &s)| (s, vec![PageType::Map], k as u32)),
        );
    let nodes = image
        .map
        .iter()
        .enumerate()
        .filter(|(_, &s)| super::space::is_slot(s))
        .map(|(lpn, &s)| {
            let types = vec![PageType::Leaf, PageType::Inner, PageType::Overflow];
            (s, types, lpn as u32)
        });
    for (slot, types, no) in lists.chain(nodes) {
        read_slot(file, name, slot, &mut buf, types[0], no)?;
        let ty = check(&buf, &types, no)
            .map_err(|d| corrupt(name, slot as u64, format!("page {no}: {d}")))?;
        let page_seq = get_u64(&buf, H_SEQ);
        if page_seq > seq {
            return Err(corrupt(
                name,
                slot as u64,
                format!(
                    "{} page {no} was rewritten after checkpoint {seq} (it holds an image \
                     written for checkpoint {page_seq}): the meta slot of a newer checkpoint \
                     is damaged and the older checkpoint can no longer be read",
                    describe(ty)
                ),
            ));
        }
    }
    Ok(())
}
