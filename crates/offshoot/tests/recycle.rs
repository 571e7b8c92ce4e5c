//! Task descriptors are recycled: spawning 10^7 empty tasks does not make memory grow.
//!
//! This file installs a counting `#[global_allocator]` (so it is its own test binary) that
//! counts every allocation, the allocations of the task-block layout (64 bytes, 16-aligned:
//! what `spawn` stores a small task in), and the bytes live. The spawns run in rounds of
//! [`ROUND`] tasks, one `scope` per round (a scope's tasks stay pending until it ends, so
//! the round bounds what is live at once). After a few warm-up rounds:
//! * on 1 worker, no task block is allocated any more (every block comes from the worker's
//!   free list), and the bytes live at the end of a round never exceed those at the end of
//!   warm-up;
//! * on 2 workers, tasks also run (and free their blocks) on the thief, so blocks travel
//!   from the thief's free list back to the spawner's in spare batches; after warm-up at
//!   most as many blocks are allocated as the free lists, the spare batches and one round
//!   can hold, and the bytes live at the end of a round stay below the warm-up level plus
//!   what the free lists and spare batches may hold: bounds independent of the number of
//!   spawns, whatever the interleaving.
//!
//! Everything asserted is a count, never a time. 10^7 spawns on each pool size (a few
//! seconds in all in a debug build).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

use common::{bounded, pool};

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static BLOCK_ALLOCS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicIsize = AtomicIsize::new(0);

fn is_block(l: Layout) -> bool {
    l.size() == 64 && l.align() == 16
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and only
// updates counters besides.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        if is_block(l) {
            BLOCK_ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded unchanged (the caller upholds `alloc`'s contract).
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        LIVE.fetch_add(new as isize - l.size() as isize, Ordering::Relaxed);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Live bytes that one-time allocations elsewhere in the process may add after warm-up.
const ONE_OFF: isize = 64 * 1024;

/// Tasks per round (one scope each).
const ROUND: usize = 1000;
/// Rounds before counting starts.
const WARM_UP: usize = 20;
/// What the workers' free lists may hold at most: 4096 blocks of 64 bytes each (see
/// `worker/blocks.rs`), per worker.
const FREE_LIST_BLOCKS: usize = 4096;
/// What a pool's spare batches may hold at most: 16 batches of 1024 blocks.
const SPARE_BLOCKS: usize = 16 * 1024;

/// Runs `rounds` rounds of [`ROUND`] empty spawns on a pool of `workers`; returns the block
/// allocations after warm-up and the largest excess of live bytes at a round's end over the
/// level at the end of warm-up.
fn spawn_rounds(workers: usize, rounds: usize) -> (usize, isize) {
    let p = pool(workers);
    p.run(|| {
        let mut blocks_at_warm_up = 0;
        let mut live_at_warm_up = 0;
        let mut excess = isize::MIN;
        for r in 0..rounds {
            offshoot::scope(|s| {
                for _ in 0..ROUND {
                    s.spawn(|_| {});
                }
            });
            let live = LIVE.load(Ordering::Relaxed);
            if r + 1 == WARM_UP {
                blocks_at_warm_up = BLOCK_ALLOCS.load(Ordering::Relaxed);
                live_at_warm_up = live;
            } else if r >= WARM_UP {
                excess = excess.max(live - live_at_warm_up);
            }
        }
        (
            BLOCK_ALLOCS.load(Ordering::Relaxed) - blocks_at_warm_up,
            excess,
        )
    })
}

#[test]
fn ten_million_spawns_reuse_their_descriptors() {
    bounded(|| {
        // One worker: exact. (The tests of this binary run one after another: see `LOCK`.)
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let before = ALLOCS.load(Ordering::Relaxed);
        let (blocks, excess) = spawn_rounds(1, 10_000_000 / ROUND);
        let allocs = ALLOCS.load(Ordering::Relaxed) - before;
        assert_eq!(blocks, 0, "task blocks allocated after warm-up on 1 worker");
        // A one-time allocation elsewhere in the process (the test harness, a lazily grown
        // buffer) may land after warm-up; a leak per spawn would be hundreds of megabytes.
        assert!(
            excess <= ONE_OFF,
            "live memory grew by {excess} bytes over 10^7 spawns on 1 worker"
        );
        // Whatever else a round allocates (a scope's list of pending tasks), it is far
        // less than one allocation per spawn.
        assert!(
            allocs < 10_000_000 / 20,
            "{allocs} allocations for 10^7 spawns"
        );
    })
}

#[test]
fn spawns_on_two_workers_keep_memory_bounded() {
    bounded(|| {
        let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let (blocks, excess) = spawn_rounds(2, 10_000_000 / ROUND);
        let most = 2 * FREE_LIST_BLOCKS + SPARE_BLOCKS + ROUND;
        assert!(
            blocks <= most,
            "{blocks} task blocks allocated after warm-up over 10^7 spawns on 2 workers"
        );
        // Blocks, plus the spare list's and the free lists' own buffers.
        let bytes = (2 * FREE_LIST_BLOCKS + SPARE_BLOCKS) as isize * 72 + 4096;
        assert!(
            excess <= bytes + ONE_OFF,
            "live memory grew by {excess} bytes over 10^7 spawns on 2 workers"
        );
    })
}

/// The counters are global: the two tests must not overlap.
static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
