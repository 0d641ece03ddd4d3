//! basaltd: parses configuration, opens storage and serves MySQL clients until
//! SIGTERM or SIGINT.

use basalt_server::config::{Args, Config};
use clap::Parser;
use std::alloc::{GlobalAlloc, Layout};

/// mimalloc, through its plain entry points whenever they give the alignment
/// asked for (as the standard library's system allocator does with malloc).
/// `mimalloc::MiMalloc` sends every request through `mi_malloc_aligned`, whose
/// fast path gives up when a page's free list needs refilling and then
/// over-allocates by the alignment: a third of the allocator's cost on a point
/// select.
struct Allocator;

/// Whether `mi_malloc` of `size` bytes is aligned to `align`: every mimalloc
/// block is 8-aligned, and blocks of a multiple of 16 bytes are 16-aligned (size
/// classes of 16-byte multiples, pages starting 16-aligned).
#[inline]
fn plain(align: usize, size: usize) -> bool {
    align <= 8 || (align == 16 && size.is_multiple_of(16))
}

// SAFETY: each method forwards to mimalloc: the plain calls only where their
// blocks have the alignment asked for (`plain`), the aligned ones otherwise; every
// block, however allocated, may be freed by `mi_free` and resized by
// `mi_realloc`.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            return libmimalloc_sys::mi_malloc(layout.size()) as *mut u8;
        }
        mimalloc::MiMalloc.alloc(layout)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            return libmimalloc_sys::mi_zalloc(layout.size()) as *mut u8;
        }
        mimalloc::MiMalloc.alloc_zeroed(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        mimalloc::MiMalloc.dealloc(ptr, layout)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if plain(layout.align(), new_size) {
            return libmimalloc_sys::mi_realloc(ptr as *mut std::ffi::c_void, new_size) as *mut u8;
        }
        mimalloc::MiMalloc.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Allocator = Allocator;

fn main() {
    let args = Args::parse();
    let config = match Config::resolve(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("basaltd: {e}");
            std::process::exit(2);
        }
    };
    if let Some(path) = &config.log_error {
        if let Err(e) = basalt_server::error_log::start(path) {
            eprintln!("basaltd: cannot open the error log {}: {e}", path.display());
            std::process::exit(1);
        }
    }
    init_logging(&config.log_level);
    if let Err(e) = basalt_server::run(config) {
        tracing::error!(error = %e, "basaltd stopped");
        std::process::exit(1);
    }
}

fn init_logging(level: &str) {
    // sqlparser's debug records print whole ASTs with a recursive Debug, which would
    // take a statement's depth in stack (and flood the log).
    let quiet_parser = "sqlparser=warn".parse().expect("a valid directive");
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level))
        .add_directive(quiet_parser);
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| basalt_server::error_log::Writer)
        .with_ansi(
            !basalt_server::error_log::active()
                && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        )
        .with_target(false)
        .init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_have_the_alignment_asked_for() {
        let a = Allocator;
        let mut live = Vec::new();
        for size in 1..=600usize {
            for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
                let l = Layout::from_size_align(size, align).expect("layout");
                // SAFETY: non-zero size; freed below with the same layout.
                unsafe {
                    let p = a.alloc(l);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "alloc {size} align {align}");
                    let q = a.realloc(p, l, size * 3);
                    assert_eq!(q as usize % align, 0, "realloc {size} align {align}");
                    live.push((q, Layout::from_size_align(size * 3, align).expect("layout")));
                    let z = a.alloc_zeroed(l);
                    assert_eq!(z as usize % align, 0, "zalloc {size} align {align}");
                    assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                    live.push((z, l));
                }
            }
        }
        for (p, l) in live {
            // SAFETY: allocated above with this layout.
            unsafe { a.dealloc(p, l) };
        }
    }
}
