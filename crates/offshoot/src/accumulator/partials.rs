//! The per-worker partials of a finish accumulator, and the region protocol both kinds of
//! finish accumulator follow ([`Accumulator`](super::Accumulator) and
//! [`OrderedAccumulator`](super::OrderedAccumulator)).
//!
//! A partial is any state `S` a put folds into (an `Option<T>`, a list of runs): one per
//! worker of the pool the region runs in, each on its own cache line, plus one shared under
//! a lock for puts from any other thread (a `std::thread::scope` inside the body, a nested
//! pool's workers).
//!
//! Invariants (what makes the unsynchronised partials sound):
//! * Partial `i` is touched only by worker `i` of the registry the region runs in, while
//!   the region is open, and by the region's owner after the finish has ended (the finish's
//!   end orders every task's puts before it).
//! * The puts handle that owns the `Partials` is handed out only by reference to the body,
//!   for a higher-ranked lifetime: it cannot outlive the body, so every put happens before
//!   the finish ends — nothing can write a partial while the owner combines them.
//! * A worker runs one task at a time, but a task may park inside the user's operator (if
//!   it waits on a `sync` primitive) and let another task of the same worker put: the
//!   partial's `busy` flag (a plain `Cell`, only its worker reads it) sends such a nested
//!   put to the shared partial instead of aliasing the first.
//! * One region at a time per accumulator (its `open` flag, [`region`]): a second,
//!   concurrent or nested, is a panic, so two regions never share partials.

use std::cell::{Cell, UnsafeCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crossbeam_utils::CachePadded;

use crate::pool::Registry;
use crate::worker::Worker;

/// Runs one region of an accumulator: marks it open (a second open region is a panic),
/// builds the puts state with `state`, runs `body` under a finish with it, and — if the
/// body and every task under it returned normally — hands the state to `combine` before
/// the region closes. On a panic the state is dropped (the region's puts discarded) and the
/// panic resumes in the caller. Outside every pool, runs in the global pool.
pub(super) fn region<S, R>(
    open: &AtomicBool,
    kind: &str,
    state: impl FnOnce(&Worker) -> S + Send,
    body: impl FnOnce(&S) -> R + Send,
    combine: impl FnOnce(S) + Send,
) -> R
where
    S: Sync,
    R: Send,
{
    crate::pool::in_worker(|w| {
        // Pairs with the release store in `Close`: this region starts after the last one's
        // combine.
        if open.swap(true, Ordering::Acquire) {
            panic!(
                "offshoot: this {kind} is already bound to a finish (nested in it, or on \
                 another thread); an accumulator takes one region at a time — use a second \
                 accumulator, or put into the open region's handle"
            );
        }
        let _close = Close(open);
        let puts = state(w);
        let out = catch_unwind(AssertUnwindSafe(|| crate::finish::finish(|| body(&puts))));
        match out {
            Ok(r) => {
                combine(puts);
                r
            }
            Err(p) => resume_unwind(p),
        }
    })
}

/// Closes a region when it ends, also if `combine` panics (a user's operator, or a broken
/// contract of the ordered variant): the accumulator stays usable.
struct Close<'a>(&'a AtomicBool);

impl Drop for Close<'_> {
    fn drop(&mut self) {
        // Pairs with the acquire swap in `region`: the next region starts after this one.
        self.0.store(false, Ordering::Release);
    }
}

/// One worker's partial.
struct Slot<S> {
    busy: Cell<bool>,
    value: UnsafeCell<S>,
}

/// The partials of one region: one per worker of its pool, one shared.
pub(super) struct Partials<S> {
    /// The registry whose workers own `slots` (compared by address; it outlives the
    /// region, which runs on one of its workers).
    registry: *const Registry,
    slots: Box<[CachePadded<Slot<S>>]>,
    /// Puts from any other thread.
    shared: Mutex<S>,
}

// SAFETY: slot `i` is touched only by worker `i` of `registry` (module invariants), so
// sharing the partials between threads shares no slot; `shared` is a `Mutex`; states move
// between threads (filled on a worker, combined on the owner): `S: Send`.
unsafe impl<S: Send> Sync for Partials<S> {}

impl<S> Partials<S> {
    /// How many workers have a partial.
    pub(super) fn workers(&self) -> usize {
        self.slots.len()
    }
}

impl<S: Default + Send> Partials<S> {
    /// Empty partials for the workers of `w`'s pool.
    pub(super) fn new(w: &Worker) -> Self {
        let registry = w.registry();
        Partials {
            registry: ptr::from_ref(registry),
            slots: (0..registry.num_workers())
                .map(|_| {
                    CachePadded::new(Slot {
                        busy: Cell::new(false),
                        value: UnsafeCell::new(S::default()),
                    })
                })
                .collect(),
            shared: Mutex::new(S::default()),
        }
    }

    /// Runs `f` on the calling worker's own partial (no lock, no atomic read-modify-write),
    /// or on the shared one under its lock from any other thread or while the worker's
    /// partial is in use by a parked put.
    #[inline]
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        let w = Worker::current();
        // SAFETY: a non-null current worker is this thread's and lives in its registry.
        if !w.is_null() && ptr::eq(unsafe { (*w).registry() }, self.registry) {
            // SAFETY: as above.
            let i = unsafe { (*w).index };
            let p = &self.slots[i];
            if !p.busy.get() {
                p.busy.set(true);
                let _free = Free(&p.busy);
                // SAFETY: this thread is worker `i` of the region's registry, the only one
                // that touches slot `i` while the region is open, and `busy` shows no other
                // put of this worker is inside it (module invariants).
                return f(unsafe { &mut *p.value.get() });
            }
        }
        self.with_shared(f)
    }

    #[cold]
    #[inline(never)]
    fn with_shared<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        f(&mut self.shared.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The partials, in worker order, then the shared one. Called by the owner once the
    /// region's finish has ended.
    pub(super) fn into_slots(self) -> impl Iterator<Item = S> {
        let shared = self.shared.into_inner().unwrap_or_else(|e| e.into_inner());
        self.slots
            .into_vec()
            .into_iter()
            .map(|p| CachePadded::into_inner(p).value.into_inner())
            .chain(std::iter::once(shared))
    }
}

/// Clears a partial's `busy` flag when its put ends (also if the operator panics).
struct Free<'a>(&'a Cell<bool>);

impl Drop for Free<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}
