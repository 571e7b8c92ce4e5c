//! The reference count of a shared block that its last holder frees (a `TaskFuture`
//! block, `future.rs`): the handles and the task each hold counts.
//!
//! Invariants (model-checked by the loom tests at the bottom of this file):
//! * A holder that gives counts back reads nothing of the block after its decrement: the
//!   decrement's own result says whether those were the last counts, and only then may the
//!   caller touch the block again (to free it). Any other holder may free the block the
//!   moment the decrement is done — a field read afterwards would be a use after free.
//! * A holder whose counts are all there is (`load == held`) is the only holder: counts are
//!   added only through a holder (a clone of a handle), so nobody can add one concurrently,
//!   and it may free the block without a decrement.
//! * Every decrement releases what its holder did to the block, and the last holder's
//!   decrement (or its `is_only` load) acquires all of them: the free comes after every
//!   other holder's last access.

use crate::atomics::{AtomicU32, Ordering};

/// See the module docs.
pub(crate) struct RefCount(AtomicU32);

/// Above this many counts a clone aborts rather than risk wrapping the count (a wrapped
/// count would free the block under live handles).
const MAX_COUNT: u32 = u32::MAX / 2;

impl RefCount {
    /// A count of `n` holders' counts.
    pub(crate) fn new(n: u32) -> RefCount {
        RefCount(AtomicU32::new(n))
    }

    /// Adds one count for a new handle; the caller holds a count already.
    pub(crate) fn add_one(&self) {
        // Relaxed: the caller's own count keeps the block alive; the new handle's accesses
        // are ordered by whatever hands it to another thread (as for `Arc::clone`).
        if self.0.fetch_add(1, Ordering::Relaxed) > MAX_COUNT {
            // Billions of leaked handles (`mem::forget` in a loop): stop before it wraps.
            std::process::abort();
        }
    }

    /// Gives back the `held` counts of a handle that goes away. Returns true if they were
    /// all there was: the caller is then the only party left and frees the block; otherwise
    /// it must not touch the block again.
    ///
    /// # Safety
    /// `this` points to a live count of which the caller holds `held`.
    pub(crate) unsafe fn drop_handle(this: *const RefCount, held: u32) -> bool {
        // SAFETY: the caller's counts keep the block alive until they are given back.
        let only = unsafe { (*this).0.load(Ordering::Acquire) } == held;
        // Nobody else holds a count, so nobody can add one: no decrement is needed
        // (this skips the read-modify-write on the common path, a handle got in call order).
        // The acquire pairs with the release of every earlier decrement.
        // SAFETY: as above.
        only || unsafe { Self::release(this, held) }
    }

    /// Gives back `n` counts. Returns true if they were the last ones: the caller then
    /// frees the block; otherwise it must not touch the block again.
    ///
    /// # Safety
    /// `this` points to a live count of which the caller holds `n`.
    pub(crate) unsafe fn release(this: *const RefCount, n: u32) -> bool {
        // AcqRel: the release publishes this holder's accesses to whoever frees the block;
        // the acquire (when this is the last decrement) takes in every other holder's.
        // Nothing of `*this` is read after this line.
        // SAFETY: the caller's counts keep the block alive until the decrement.
        unsafe { (*this).0.fetch_sub(n, Ordering::AcqRel) == n }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of the release protocol as `TaskFuture` uses it (run with
    //! `scripts/loom.sh`). A block holds a count and a value cell; the party that frees the
    //! block drops the value through the cell, so loom reports any access of the value
    //! that the free is not ordered after, and the frees are counted (exactly one, or none
    //! while a count is leaked).
    use super::RefCount;
    use loom::cell::UnsafeCell;
    use loom::sync::atomic::{AtomicBool, AtomicUsize};
    use loom::sync::Arc;
    use loom::thread;
    use std::sync::atomic::Ordering;

    struct Block {
        refs: RefCount,
        done: AtomicBool,
        value: UnsafeCell<Option<u64>>,
    }

    /// Shares a block between model threads by address, as the runtime does.
    #[derive(Clone, Copy)]
    struct Ptr(*const Block);
    // SAFETY: the model's protocol (the counts) is what keeps the block alive.
    unsafe impl Send for Ptr {}

    fn block(refs: u32) -> Ptr {
        Ptr(Box::into_raw(Box::new(Block {
            refs: RefCount::new(refs),
            done: AtomicBool::new(false),
            value: UnsafeCell::new(None),
        })))
    }

    /// The freeing party: drops the value (a write loom orders against every read) and
    /// the block.
    fn free(b: Ptr, frees: &AtomicUsize) {
        assert_eq!(frees.fetch_add(1, Ordering::SeqCst), 0, "freed twice");
        // SAFETY: the protocol says this party is the last: nobody else touches it.
        unsafe {
            (*b.0).value.with_mut(|v| *v = None);
            drop(Box::from_raw(b.0 as *mut Block));
        }
    }

    /// The task, run by another worker: writes the value, completes, gives its count back.
    fn task(b: Ptr, frees: &AtomicUsize) {
        // SAFETY: the task's count keeps the block alive; the one run writes the value.
        unsafe {
            (*b.0).value.with_mut(|v| *v = Some(42));
            (*b.0).done.store(true, Ordering::SeqCst);
            if RefCount::release(&(*b.0).refs, 1) {
                free(b, frees);
            }
        }
    }

    /// A handle holding `held` counts: reads the value if the task is done, then drops.
    fn handle(b: Ptr, held: u32, frees: &AtomicUsize) {
        // SAFETY: the handle's counts keep the block alive until `drop_handle`.
        unsafe {
            if (*b.0).done.load(Ordering::Acquire) {
                assert_eq!((*b.0).value.with(|v| *v), Some(42));
            }
            if RefCount::drop_handle(&(*b.0).refs, held) {
                free(b, frees);
            }
        }
    }

    /// A handle dropped while another worker completes the task (a race found in review,
    /// which this model checks stays fixed).
    #[test]
    fn handle_drop_races_the_task_completing() {
        loom::model(|| {
            let frees = Arc::new(AtomicUsize::new(0));
            let b = block(2);
            let f = frees.clone();
            let t = thread::spawn(move || task(b, &f));
            handle(b, 1, &frees);
            t.join().unwrap();
            assert_eq!(frees.load(Ordering::SeqCst), 1);
        });
    }

    /// A clone dropped on a third thread while the task completes and the first handle
    /// drops.
    #[test]
    fn two_handles_and_the_task_release_at_once() {
        loom::model(|| {
            let frees = Arc::new(AtomicUsize::new(0));
            let b = block(2);
            // SAFETY: the first handle's count keeps the block alive for the clone.
            unsafe { (*b.0).refs.add_one() };
            let (f1, f2) = (frees.clone(), frees.clone());
            let t = thread::spawn(move || task(b, &f1));
            let c = thread::spawn(move || handle(b, 1, &f2));
            handle(b, 1, &frees);
            t.join().unwrap();
            c.join().unwrap();
            assert_eq!(frees.load(Ordering::SeqCst), 1);
        });
    }

    /// A `get` took the task back and ran it: its handle holds the task's count too (two),
    /// while a clone of it is dropped on another thread.
    #[test]
    fn a_handle_holding_the_task_count_races_a_clone() {
        loom::model(|| {
            let frees = Arc::new(AtomicUsize::new(0));
            let b = block(2);
            // SAFETY: the block is alive; this thread runs the task it took back.
            unsafe {
                (*b.0).value.with_mut(|v| *v = Some(42));
                (*b.0).done.store(true, Ordering::SeqCst);
                (*b.0).refs.add_one();
            }
            let f = frees.clone();
            let c = thread::spawn(move || handle(b, 1, &f));
            handle(b, 2, &frees);
            c.join().unwrap();
            assert_eq!(frees.load(Ordering::SeqCst), 1);
        });
    }

    /// A handle leaked with `mem::forget` while the task completes: its count stays, so the
    /// block is never freed under it.
    #[test]
    fn a_forgotten_handle_keeps_the_block() {
        loom::model(|| {
            let frees = Arc::new(AtomicUsize::new(0));
            let b = block(2);
            let f = frees.clone();
            let t = thread::spawn(move || task(b, &f));
            t.join().unwrap();
            assert_eq!(frees.load(Ordering::SeqCst), 0);
            // The forgotten count is still there; give it back to end the model cleanly.
            handle(b, 1, &frees);
            assert_eq!(frees.load(Ordering::SeqCst), 1);
        });
    }
}
