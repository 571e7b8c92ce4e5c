//! The recycled task blocks: the memory spawned tasks (`finish.rs`) and task futures
//! (`sync/future.rs`) live in, one size and alignment for all, so that a block freed by any
//! worker serves any later task that fits.
//!
//! Blocks are carved from **chunks** of [`PER_CHUNK`] slots, one allocation each, so a burst
//! of spawns (a loop of 10^6 `Scope::spawn`s, whose tasks all wait until the loop ends on
//! one worker) costs one allocation per chunk rather than one `malloc` and one `free` per
//! task, which dominated a spawn's instructions with glibc's allocator. Each
//! slot starts with a pointer to its chunk, so a block can be given back to its chunk by
//! whoever holds it; a chunk goes back to the allocator when its last block does. A block
//! asked for off every worker (a spawn from outside the pool) is a slot of its own, with a
//! null chunk pointer.
//!
//! Invariants:
//! * A free block is in its worker's free list (`BlockCache::free`, owner only) or in its
//!   pool's spare batches (under a lock, moved a batch at a time): in at most one place,
//!   and in none while a task lives in it. Slots not carved yet belong to the worker whose
//!   cache holds the chunk's carving position (`BlockCache::next`/`left`).
//! * A chunk's `live` count is the number of its slots not yet released: every slot starts
//!   counted, and is released exactly once — a carved block when it leaves every cache
//!   (a full cache, full spare batches, a dropped worker or pool), the uncarved rest when
//!   the worker carving them is dropped. The release that takes the count to zero frees
//!   the chunk; no slot of it is reachable then.
//! * A slot's chunk pointer is written when the slot is carved and never changes.

use std::alloc::Layout;
use std::ptr;
use std::sync::atomic::{fence, AtomicUsize, Ordering};

use super::Worker;

/// What a block offers a task: this size and alignment.
const BLOCK: Layout = match Layout::from_size_align(64, 16) {
    Ok(l) => l,
    Err(_) => panic!("bad block layout"),
};
/// Where a block begins in its slot: after the slot's chunk pointer, padded to
/// [`BLOCK`]'s alignment.
const HEAD: usize = 16;
/// One slot: the chunk pointer, then the block.
const SLOT: Layout = match Layout::from_size_align(HEAD + BLOCK.size(), BLOCK.align()) {
    Ok(l) => l,
    Err(_) => panic!("bad slot layout"),
};
/// Slots per chunk: a chunk (its header and its slots) is 64 KiB.
const PER_CHUNK: usize = (65536 - HEAD) / SLOT.size();
/// One chunk: a header of [`HEAD`] bytes (the `live` count), then [`PER_CHUNK`] slots.
const CHUNK: Layout = match Layout::from_size_align(HEAD + PER_CHUNK * SLOT.size(), 16) {
    Ok(l) => l,
    Err(_) => panic!("bad chunk layout"),
};

/// How many free blocks a worker keeps; more go to its pool's spare batches.
const BLOCK_CACHE: usize = 4096;
/// How many blocks move between a worker's free list and its pool's spare batches at once.
const BLOCK_BATCH: usize = 1024;
/// How many spare batches a pool keeps; more are released to their chunks.
const SPARE_BATCHES: usize = 16;
/// How many free blocks a worker keeps while its whole pool is idle (`trim_blocks`).
const KEEP_IDLE: usize = 256;

const _: () =
    assert!(HEAD >= std::mem::size_of::<*const Chunk>() && HEAD.is_multiple_of(BLOCK.align()));
const _: () = assert!(CHUNK.size() <= 65536);
const _: () = assert!(SLOT.size().is_multiple_of(BLOCK.align()));
const _: () = assert!(HEAD >= std::mem::size_of::<Chunk>() && PER_CHUNK >= 800);

/// Whether a value of this size and alignment fits a block.
pub(crate) const fn fits_block(size: usize, align: usize) -> bool {
    size <= BLOCK.size() && align <= BLOCK.align()
}

/// A chunk's header.
struct Chunk {
    /// Slots not yet released (see the module invariants).
    live: AtomicUsize,
}

/// A worker's free blocks and the chunk it carves new ones from (owner thread only).
pub(crate) struct BlockCache {
    free: Vec<*mut u8>,
    /// The chunk being carved, its next slot and how many slots it has left (valid while
    /// `left > 0`).
    chunk: *const Chunk,
    next: *mut u8,
    left: usize,
}

impl BlockCache {
    pub(crate) fn new() -> BlockCache {
        BlockCache {
            free: Vec::new(),
            chunk: ptr::null(),
            next: ptr::null_mut(),
            left: 0,
        }
    }

    /// A block carved from the current chunk, or from a new one.
    #[inline]
    fn carve(&mut self) -> *mut u8 {
        if self.left == 0 {
            self.new_chunk();
        }
        let slot = self.next;
        // SAFETY: `slot` is an uncarved slot of the current chunk (`left > 0`): a slot's
        // size inside the chunk, with the next slot (or the chunk's end) after it.
        unsafe {
            (slot as *mut *const Chunk).write(self.chunk);
            self.next = slot.add(SLOT.size());
            self.left -= 1;
            slot.add(HEAD)
        }
    }

    /// Starts carving a new chunk (the current one, if any, is all carved).
    #[cold]
    #[inline(never)]
    fn new_chunk(&mut self) {
        debug_assert_eq!(self.left, 0);
        // SAFETY: CHUNK has a non-zero size.
        let c = unsafe { std::alloc::alloc(CHUNK) };
        if c.is_null() {
            std::alloc::handle_alloc_error(CHUNK);
        }
        // SAFETY: the header fits before the slots (HEAD) and the chunk is 16-aligned.
        unsafe {
            (c as *mut Chunk).write(Chunk {
                live: AtomicUsize::new(PER_CHUNK),
            })
        };
        self.chunk = c as *const Chunk;
        // SAFETY: the first slot begins right after the header, inside the chunk.
        self.next = unsafe { c.add(HEAD) };
        self.left = PER_CHUNK;
    }
}

impl Drop for BlockCache {
    fn drop(&mut self) {
        release_blocks(&self.free);
        if self.left > 0 {
            // SAFETY: the chunk being carved counts its uncarved slots, released once, here.
            unsafe { release_to(self.chunk, self.left) };
        }
    }
}

impl Worker {
    /// Gives back what a burst of tasks left cached, once the whole pool is idle: this
    /// worker keeps its [`KEEP_IDLE`] most recently freed blocks, the rest and the pool's
    /// spare batches are released to their chunks. A cached block keeps its whole chunk
    /// allocated, so without this a pool idle after a burst of 10^6 spawns could hold up
    /// to a chunk per cached block. Owner thread only.
    pub(super) fn trim_blocks(&self) {
        // SAFETY: called by the owning thread (the contract), the only one touching it.
        let cache = unsafe { &mut *self.blocks.get() };
        if cache.free.len() > KEEP_IDLE {
            let n = cache.free.len() - KEEP_IDLE;
            release_blocks(&cache.free[..n]);
            cache.free.drain(..n);
        }
        self.registry().spare_blocks.release_all();
    }
}

/// A block for a spawned task: from `w`'s free list if it has one (owner thread only), else
/// a batch of spare blocks moves into that list (one lock for [`BLOCK_BATCH`] blocks), else
/// carved from a chunk. Without a worker, a slot of its own from the allocator.
#[inline]
pub(crate) fn alloc_block(w: Option<&Worker>) -> *mut u8 {
    if let Some(w) = w {
        // SAFETY: only the owning thread calls with `Some(w)` (module invariant).
        let cache = unsafe { &mut *w.blocks.get() };
        if let Some(b) = cache.free.pop() {
            return b;
        }
        return refill(w, cache);
    }
    alloc_lone()
}

/// [`alloc_block`] once `w`'s free list is empty: a batch of spare blocks, else a block
/// carved from a chunk. Out of line, so that a spawn's common path is only the pop.
#[cold]
#[inline(never)]
fn refill(w: &Worker, cache: &mut BlockCache) -> *mut u8 {
    if let Some(batch) = w.registry().spare_blocks.take() {
        cache.free.extend(batch);
        if let Some(b) = cache.free.pop() {
            return b;
        }
    }
    cache.carve()
}

/// A slot of its own (null chunk pointer), for a block asked for off every worker.
#[cold]
fn alloc_lone() -> *mut u8 {
    // SAFETY: SLOT has a non-zero size.
    let s = unsafe { std::alloc::alloc(SLOT) };
    if s.is_null() {
        std::alloc::handle_alloc_error(SLOT);
    }
    // SAFETY: the slot is big enough for its chunk pointer and the block after `HEAD`.
    unsafe {
        (s as *mut *const Chunk).write(ptr::null());
        s.add(HEAD)
    }
}

/// Returns a block (from `alloc_block`, contents already moved out) to `w`'s free list; a
/// full list first passes a batch to its pool's spare batches (tasks spawned on one worker
/// and run on another move blocks one way: the batches carry them back). Without a worker,
/// or when the spare batches are full too, blocks are released to their chunks.
///
/// # Safety
/// `b` came from `alloc_block` and is not used after this.
#[inline]
pub(crate) unsafe fn free_block(w: Option<&Worker>, b: *mut u8) {
    if let Some(w) = w {
        // SAFETY: only the owning thread calls with `Some(w)`.
        let cache = unsafe { &mut *w.blocks.get() };
        if cache.free.len() >= BLOCK_CACHE {
            pass_batch(w, cache);
        }
        cache.free.push(b);
        return;
    }
    release_blocks(&[b]);
}

/// [`free_block`] once `w`'s free list is full: its newest [`BLOCK_BATCH`] blocks go to the
/// pool's spare batches. Out of line, so that a task's common path is only the push.
#[cold]
#[inline(never)]
fn pass_batch(w: &Worker, cache: &mut BlockCache) {
    let n = cache.free.len();
    let batch: Vec<*mut u8> = cache.free.drain(n - BLOCK_BATCH..).collect();
    w.registry().spare_blocks.give(batch);
}

/// The chunk pointer of block `b` (null for a slot of its own).
///
/// # Safety
/// `b` came from `alloc_block`.
unsafe fn chunk_of(b: *mut u8) -> *const Chunk {
    // SAFETY: per the contract, `b` is `HEAD` bytes into a slot that starts with its chunk
    // pointer (written when the block was made, never changed).
    unsafe { (b.sub(HEAD) as *const *const Chunk).read() }
}

/// Releases free blocks, used by nobody, to their chunks (a slot of its own goes back to
/// the allocator); one count update per run of blocks from the same chunk.
fn release_blocks(blocks: &[*mut u8]) {
    let mut run: (*const Chunk, usize) = (ptr::null(), 0);
    for &b in blocks {
        // SAFETY: free blocks came from `alloc_block`.
        let chunk = unsafe { chunk_of(b) };
        if chunk.is_null() {
            // SAFETY: a slot of its own, allocated with SLOT, used by nobody.
            unsafe { std::alloc::dealloc(b.sub(HEAD), SLOT) };
        } else if chunk == run.0 {
            run.1 += 1;
        } else {
            if run.1 > 0 {
                // SAFETY: `run.1` unreleased slots of `run.0`, released once, here.
                unsafe { release_to(run.0, run.1) };
            }
            run = (chunk, 1);
        }
    }
    if run.1 > 0 {
        // SAFETY: as above.
        unsafe { release_to(run.0, run.1) };
    }
}

/// Releases `n` slots of `chunk`; frees the chunk if they were its last.
///
/// # Safety
/// `chunk` is live and counts these `n` slots, which are used by nobody and released once.
unsafe fn release_to(chunk: *const Chunk, n: usize) {
    // SAFETY: the chunk is live while it counts our slots.
    let live = unsafe { &(*chunk).live };
    // Release: our uses of these slots happen before the chunk is freed; pairs with the
    // Acquire fence of whichever release frees it (the pattern of `Arc`'s drop).
    if live.fetch_sub(n, Ordering::Release) == n {
        fence(Ordering::Acquire);
        // SAFETY: the last slot was released: nobody can reach the chunk any more; it was
        // allocated with CHUNK.
        unsafe { std::alloc::dealloc(chunk as *mut u8, CHUNK) };
    }
}

/// A pool's spare batches of free task blocks (Venetis et al.'s recycling queues, one lock per batch).
pub(crate) struct SpareBlocks {
    batches: std::sync::Mutex<Vec<Vec<*mut u8>>>,
    /// How many batches `batches` holds, read without the lock: a worker whose cache is
    /// empty (every spawn of a burst) skips the lock when there are none. A hint: a batch
    /// missed by a stale read only means a block carved instead. Written only under the
    /// lock, with the list, so it is exact for whoever holds the lock or `&mut self`.
    count: AtomicUsize,
}

// SAFETY: the pointers are free blocks that belong to nobody until taken out under the lock.
unsafe impl Send for SpareBlocks {}
// SAFETY: as above; the list is only touched under its mutex.
unsafe impl Sync for SpareBlocks {}

impl SpareBlocks {
    pub(crate) fn new() -> SpareBlocks {
        SpareBlocks {
            batches: std::sync::Mutex::new(Vec::new()),
            count: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Vec<*mut u8>>> {
        self.batches.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[inline]
    fn take(&self) -> Option<Vec<*mut u8>> {
        // Relaxed: a hint (see `count`); the batch itself is handed over under the lock.
        if self.count.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.take_locked()
    }

    #[cold]
    #[inline(never)]
    fn take_locked(&self) -> Option<Vec<*mut u8>> {
        let mut spare = self.lock();
        let batch = spare.pop();
        self.count.store(spare.len(), Ordering::Relaxed);
        batch
    }

    fn give(&self, batch: Vec<*mut u8>) {
        let mut spare = self.lock();
        if spare.len() < SPARE_BATCHES {
            spare.push(batch);
            self.count.store(spare.len(), Ordering::Relaxed);
            return;
        }
        drop(spare);
        release_blocks(&batch);
    }

    /// Releases every spare batch to its chunks.
    fn release_all(&self) {
        if self.count.load(Ordering::Relaxed) == 0 {
            return;
        }
        let batches = {
            let mut spare = self.lock();
            self.count.store(0, Ordering::Relaxed);
            std::mem::take(&mut *spare)
        };
        for batch in &batches {
            release_blocks(batch);
        }
    }
}

impl Drop for SpareBlocks {
    fn drop(&mut self) {
        self.release_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_carved_and_released_in_any_order_free_their_chunks() {
        // Three chunks' worth, released out of order and in runs; Miri checks that every
        // chunk is freed exactly once, after its last block, and nothing is leaked.
        let mut cache = BlockCache::new();
        let n = 2 * PER_CHUNK + 17;
        let blocks: Vec<*mut u8> = (0..n)
            .map(|i| {
                let b = cache.carve();
                assert_eq!(b as usize % BLOCK.align(), 0);
                // SAFETY: a fresh block of BLOCK's size.
                unsafe { b.write_bytes(i as u8, BLOCK.size()) };
                b
            })
            .collect();
        for (i, &b) in blocks.iter().enumerate() {
            // SAFETY: written above; no block overlaps another.
            assert_eq!(unsafe { *b.add(BLOCK.size() - 1) }, i as u8);
        }
        let (evens, odds): (Vec<_>, Vec<_>) =
            blocks.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let odds: Vec<*mut u8> = odds.into_iter().map(|(_, &b)| b).collect();
        release_blocks(&odds);
        let mut evens: Vec<*mut u8> = evens.into_iter().map(|(_, &b)| b).collect();
        evens.reverse();
        release_blocks(&evens[..10]);
        cache.free.extend_from_slice(&evens[10..]);
        let lone = alloc_lone();
        cache.free.push(lone);
        drop(cache);
    }
}
