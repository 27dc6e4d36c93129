//! The server's memory allocator: jemalloc, with background threads that
//! give freed pages back to the system about a second after they fall free
//! (issue 16).
//!
//! Why not the system's (glibc) malloc: a soak of 1,000 games left the
//! server at 151 MB resident when 6 MB of heap was still in use (glibc's
//! `malloc_stats`, heaptrack: quinn's endpoint buffer and SQLite's page
//! cache, nothing per game). glibc gives each tokio worker thread its own
//! arena, and an arena returns memory to the system only from the top of
//! its heap: one live allocation above a freed game's pages pins them all.
//! `malloc_trim(0)`, which also releases pages in the middle, brought the
//! same process to 23 MB, so the freed games were there and only the
//! allocator kept them. jemalloc purges unused pages in any place, by age,
//! and a background thread does it while the server is idle (nothing else
//! would allocate to trigger it once the games are over). A periodic
//! `malloc_trim` would need `unsafe` FFI (the workspace forbids it) and
//! takes every arena's lock while it walks the heap.
//!
//! The global allocator is declared by the `hexveil-server` binary
//! (`main.rs`, as [`Jemalloc`], re-exported here so every build of that
//! file uses the same one), which calls [`tune`] before it starts its
//! runtime.

use std::sync::atomic::{AtomicBool, Ordering};

use tikv_jemalloc_ctl::{background_thread, epoch, stats, Access, AsName};
pub use tikv_jemallocator::Jemalloc;

/// Whether jemalloc is the process's allocator (set by [`tune`], which only
/// the binary that declares [`Jemalloc`] global calls): only then does its
/// heap figure ([`heap_allocated`]) describe the process.
static IN_USE: AtomicBool = AtomicBool::new(false);

/// How long (ms) a freed page stays with jemalloc before it is given back
/// to the system. jemalloc's default is 10 s: a game's many short-lived
/// buffers (a transcript, a resync, a store batch) would keep their pages
/// for that long; a second still reuses pages within a burst of games.
pub const DIRTY_DECAY_MS: isize = 1_000;

/// jemalloc's setting could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot tune the allocator ({what}): {reason}")]
pub struct TuneError {
    what: &'static str,
    reason: tikv_jemalloc_ctl::Error,
}

/// Turns jemalloc's background purging on and sets [`DIRTY_DECAY_MS`] for
/// every arena, the ones made so far and those made later. Call it
/// early, before the runtime's threads start.
pub fn tune() -> Result<(), TuneError> {
    IN_USE.store(true, Ordering::Relaxed);
    let err = |what| move |reason| TuneError { what, reason };
    background_thread::write(true).map_err(err("background_thread"))?;
    b"arenas.dirty_decay_ms\0"
        .name()
        .write(DIRTY_DECAY_MS)
        .map_err(err("arenas.dirty_decay_ms"))?;
    let arenas = tikv_jemalloc_ctl::arenas::narenas::read().map_err(err("arenas.narenas"))?;
    for i in 0..arenas {
        // An arena not made yet refuses (it takes the default above when
        // a thread first needs it).
        let key = format!("arena.{i}.dirty_decay_ms\0");
        let _ = key.as_bytes().name().write(DIRTY_DECAY_MS);
    }
    Ok(())
}

/// What jemalloc says its settings are now: whether background threads
/// run, and the decay new arenas get.
pub fn settings() -> Result<(bool, isize), TuneError> {
    let err = |what| move |reason| TuneError { what, reason };
    let background = background_thread::read().map_err(err("background_thread"))?;
    let decay: isize = b"arenas.dirty_decay_ms\0"
        .name()
        .read()
        .map_err(err("arenas.dirty_decay_ms"))?;
    Ok((background, decay))
}

/// Bytes of heap the process's code holds now (jemalloc's
/// `stats.allocated`, read after advancing its epoch so the figure is
/// current), or `None` when jemalloc is not the allocator ([`tune`] was
/// not called, e.g. a `system-alloc` build or a test) or cannot say.
/// Unlike the resident size, it falls as soon as a block is freed, even
/// when the block shares its page with live ones (issue 30: the memory of
/// a game without its connections).
pub fn heap_allocated() -> Option<u64> {
    if !IN_USE.load(Ordering::Relaxed) {
        return None;
    }
    epoch::advance().ok()?;
    stats::allocated::read().ok().map(|b| b as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tune_turns_background_purging_on_with_a_one_second_decay() {
        // Issue 16 (the soak: memory back after the games end): the
        // settings the server runs with are the ones jemalloc reports.
        tune().unwrap();
        assert_eq!(settings().unwrap(), (true, DIRTY_DECAY_MS));
        let arena0: isize = b"arena.0.dirty_decay_ms\0".name().read().unwrap();
        assert_eq!(arena0, DIRTY_DECAY_MS);
        // Once tuned, the heap figure is read (jemalloc is linked here,
        // though the test binary allocates with the system's malloc, so
        // only its presence is checked, not its size).
        assert!(heap_allocated().is_some());
    }
}
