//! The end of a computation that others may wait for: a phase word and an event installed
//! only by the first waiter that has to park. Both kinds of future (`future.rs`,
//! `scoped_future.rs`) end through this; each keeps the two words where its layout wants
//! them (a `TaskFuture` block header has no room for a padded struct), so this is a trait
//! over the two words.
//!
//! Invariants:
//! * `phase` leaves [`PENDING`] exactly once, to [`DONE`] (the value was written first) or
//!   [`FAILED`]; only the computation's runner writes it.
//! * No wake-up is lost: a waiter installs the event, then re-reads `phase`; the completer
//!   writes `phase`, then reads whether an event is installed. Both sides are sequentially
//!   consistent, so at least one sees the other: either the waiter sees the new phase and
//!   does not park, or the completer sees the event and sets it.
//! * An installed event lives until [`Completion::free_event`] (called by the owner of the
//!   memory once nobody can wait or complete any more). A fresh completion has `phase`
//!   [`PENDING`] and a null event.

use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};

use super::Event;
use crate::fiber::WaitOn;

/// Not ended yet.
pub(crate) const PENDING: u8 = 0;
/// Ended with a value.
pub(crate) const DONE: u8 = 1;
/// Ended without one: the computation panicked, was stopped, or was dropped unrun.
pub(crate) const FAILED: u8 = 2;

/// See the module docs. Implementors give access to their two words; everything else is
/// provided.
pub(crate) trait Completion {
    fn phase_word(&self) -> &AtomicU8;
    fn event_word(&self) -> &AtomicPtr<Event<()>>;

    /// The phase (acquire: a `DONE` read makes the value visible).
    #[inline]
    fn phase(&self) -> u8 {
        self.phase_word().load(Ordering::Acquire)
    }

    /// The phase, for the memory's owner that needs no ordering (nobody else writes it).
    #[inline]
    fn phase_relaxed(&self) -> u8 {
        self.phase_word().load(Ordering::Relaxed)
    }

    /// Whether a waiter ever installed an event.
    #[inline]
    fn has_event(&self) -> bool {
        !self.event_word().load(Ordering::Acquire).is_null()
    }

    /// Ends the computation with `phase` and wakes the waiters, if any. The runner calls it
    /// once, after writing the value (for `DONE`).
    #[inline]
    fn complete(&self, phase: u8) {
        debug_assert_ne!(phase, PENDING);
        // SeqCst: the completer's half of the Dekker pair (module invariants): store `phase`,
        // then read `event`; pairs with the waiter's SeqCst install (or SeqCst read) of the
        // event in `event` and its SeqCst re-read of `phase` in `wait`/`wake_on_complete`: one
        // of the two sees the other. The store also releases the value written before.
        self.phase_word().store(phase, Ordering::SeqCst);
        let e = self.event_word().load(Ordering::SeqCst);
        if !e.is_null() {
            // SAFETY: an installed event lives until `free_event`, which the memory's owner
            // calls only after the computation ended and nobody waits (module invariants).
            let _ = unsafe { (*e).set(()) };
        }
    }

    /// Waits (parks, or blocks outside every pool) until the phase is not `PENDING`, and
    /// returns it. `on` names the wait for deadlock reports (built only if it waits); a stop
    /// ends it by unwinding.
    fn wait(&self, on: impl FnOnce() -> WaitOn) -> u8 {
        let phase = self.phase();
        if phase != PENDING {
            return phase;
        }
        let e = self.event();
        // SeqCst: the waiter's re-read of `phase` after installing or reading the event
        // (`event`, SeqCst); pairs with `complete`'s SeqCst store of `phase` and read of
        // `event`.
        if self.phase_word().load(Ordering::SeqCst) == PENDING {
            e.wait_with(on);
        }
        self.phase()
    }

    /// For `Future::poll`: if the computation has not ended, arranges for `waker` to be
    /// woken when it does, in the waker slot `*slot` of the event (see `Event::set_waker`:
    /// a later poll replaces the waker). Returns the phase read after arranging it (a
    /// completion that raced with the registration shows here; the waker may then be woken
    /// once more).
    fn wake_on_complete(&self, waker: &std::task::Waker, slot: &mut u32) -> u8 {
        if self.phase() == PENDING {
            self.event().set_waker(slot, waker);
            // SeqCst: as in `wait`: the re-read after the event (and the waker in it) is
            // installed; pairs with `complete`.
            return self.phase_word().load(Ordering::SeqCst);
        }
        self.phase()
    }

    /// Drops the waker a future left in the slot `slot` (the future is gone).
    fn forget_waker(&self, slot: u32) {
        let e = self.event_word().load(Ordering::Acquire);
        if !e.is_null() {
            // SAFETY: an installed event lives until `free_event` (module invariants), and
            // the caller's future still keeps the memory alive.
            unsafe { (*e).clear_waker(slot) };
        }
    }

    /// The event, installing one if there is none.
    fn event(&self) -> &Event<()> {
        // SeqCst: the waiter's write of the Dekker pair with `complete` (module invariants):
        // the event it installs, or one another waiter installed and it reads here, precedes
        // its re-read of `phase` in the total order, and `complete` reads the event after its
        // store of `phase`. The failure ordering is SeqCst for the same reason (it reads the
        // installed event).
        let mut e = self.event_word().load(Ordering::SeqCst);
        if e.is_null() {
            let mine = Box::into_raw(Box::new(Event::new()));
            e = match self.event_word().compare_exchange(
                ptr::null_mut(),
                mine,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => mine,
                Err(theirs) => {
                    // SAFETY: `mine` was never shared.
                    drop(unsafe { Box::from_raw(mine) });
                    theirs
                }
            };
        }
        // SAFETY: installed events live until `free_event`, which the memory's owner calls
        // only once nobody can wait any more.
        unsafe { &*e }
    }

    /// Frees the installed event, if any.
    ///
    /// # Safety
    /// Nobody waits on, completes or touches this completion any more.
    unsafe fn free_event(&self) {
        // No read-modify-write: per the contract nobody else touches the word now.
        let e = self.event_word().load(Ordering::Acquire);
        if !e.is_null() {
            self.event_word().store(ptr::null_mut(), Ordering::Relaxed);
            // SAFETY: installed by `event` from a box; per the contract nobody uses it.
            drop(unsafe { Box::from_raw(e) });
        }
    }
}
