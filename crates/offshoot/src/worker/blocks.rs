//! The recycled task blocks: the memory spawned tasks (`finish.rs`) and task futures
//! (`sync/future.rs`) live in, one size and alignment for all, so that a block freed by any
//! worker serves any later task that fits.
//!
//! Invariants:
//! * A free block is in its worker's free list (`Worker::blocks`, owner only) or in its
//!   pool's spare batches (under a lock, moved a batch at a time): in at most one place,
//!   and in none while a task lives in it.
//! * Every block came from the global allocator with [`BLOCK`]'s layout and goes back to it
//!   with the same layout (when a worker or the spare batches are dropped).

use super::Worker;

/// The recycled blocks spawned tasks live in: one size and alignment for all, so a block
/// freed by any worker can serve any later task of the right size.
const BLOCK: std::alloc::Layout = match std::alloc::Layout::from_size_align(64, 16) {
    Ok(l) => l,
    Err(_) => panic!("bad block layout"),
};
/// How many free blocks a worker keeps; more go to its pool's spare batches.
const BLOCK_CACHE: usize = 4096;

/// Whether a value of this size and alignment fits a block.
pub(crate) const fn fits_block(size: usize, align: usize) -> bool {
    size <= BLOCK.size() && align <= BLOCK.align()
}

/// How many blocks move between a worker's free list and its pool's spare batches at once.
const BLOCK_BATCH: usize = 1024;
/// How many spare batches a pool keeps; more go back to the allocator.
const SPARE_BATCHES: usize = 16;

/// A block for a spawned task: from `w`'s free list if it has one (owner thread only), else
/// a batch of spare blocks moves into that list (one lock for [`BLOCK_BATCH`] blocks), else
/// from the allocator.
#[inline]
pub(crate) fn alloc_block(w: Option<&Worker>) -> *mut u8 {
    if let Some(w) = w {
        // SAFETY: only the owning thread calls with `Some(w)` (module invariant).
        let cache = unsafe { &mut *w.blocks.get() };
        if let Some(b) = cache.pop() {
            return b;
        }
        if let Some(batch) = w.registry().spare_blocks.take() {
            cache.extend(batch);
            if let Some(b) = cache.pop() {
                return b;
            }
        }
    }
    // SAFETY: BLOCK has a non-zero size.
    let b = unsafe { std::alloc::alloc(BLOCK) };
    if b.is_null() {
        std::alloc::handle_alloc_error(BLOCK);
    }
    b
}

/// Returns a block (from `alloc_block`, contents already moved out) to `w`'s free list; a
/// full list first passes a batch to its pool's spare batches (tasks spawned on one worker
/// and run on another move blocks one way: the batches carry them back). Without a worker,
/// or when the spare batches are full too, blocks go back to the allocator.
///
/// # Safety
/// `b` came from `alloc_block` and is not used after this.
#[inline]
pub(crate) unsafe fn free_block(w: Option<&Worker>, b: *mut u8) {
    if let Some(w) = w {
        // SAFETY: only the owning thread calls with `Some(w)`.
        let cache = unsafe { &mut *w.blocks.get() };
        if cache.len() >= BLOCK_CACHE {
            let batch: Vec<*mut u8> = cache.drain(cache.len() - BLOCK_BATCH..).collect();
            w.registry().spare_blocks.give(batch);
        }
        cache.push(b);
        return;
    }
    // SAFETY: per the contract; allocated with BLOCK.
    unsafe { std::alloc::dealloc(b, BLOCK) }
}

/// A pool's spare batches of free task blocks (001's recycling queues, one lock per batch).
pub(crate) struct SpareBlocks(std::sync::Mutex<Vec<Vec<*mut u8>>>);

// SAFETY: the pointers are free blocks that belong to nobody until taken out under the lock.
unsafe impl Send for SpareBlocks {}
// SAFETY: as above; the list is only touched under its mutex.
unsafe impl Sync for SpareBlocks {}

impl SpareBlocks {
    pub(crate) fn new() -> SpareBlocks {
        SpareBlocks(std::sync::Mutex::new(Vec::new()))
    }

    fn take(&self) -> Option<Vec<*mut u8>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    fn give(&self, batch: Vec<*mut u8>) {
        let mut spare = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if spare.len() < SPARE_BATCHES {
            spare.push(batch);
            return;
        }
        drop(spare);
        dealloc_blocks(&batch);
    }
}

impl Drop for SpareBlocks {
    fn drop(&mut self) {
        for batch in self.0.get_mut().unwrap_or_else(|e| e.into_inner()).iter() {
            dealloc_blocks(batch);
        }
    }
}

/// Gives free blocks back to the allocator.
fn dealloc_blocks(blocks: &[*mut u8]) {
    for &b in blocks {
        // SAFETY: free blocks (in a free list or a spare batch) came from the allocator
        // with BLOCK and are used by nobody.
        unsafe { std::alloc::dealloc(b, BLOCK) };
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        dealloc_blocks(self.blocks.get_mut());
    }
}
