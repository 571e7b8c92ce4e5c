//! The end of a computation that others may wait for: a phase word and an event installed
//! only by the first waiter that has to park. Both kinds of future (`future.rs`,
//! `scoped_future.rs`) end through this; each keeps the two words where its layout wants
//! them (a `TaskFuture` block header has no room for a padded struct), so this is a trait
//! over the two words.
//!
//! Invariants:
//! * `phase` leaves [`PENDING`] exactly once, to [`DONE`] (the value was written first) or
//!   [`FAILED`]; only the computation's runner writes it.
//! * No wake-up is lost: a waiter installs the event (or reads the one installed), then
//!   re-reads `phase`; the completer writes `phase` (release), then does a read-modify-write
//!   on the event word (a compare-and-swap of null for null, acquire-release). Installs and
//!   that swap are read-modify-writes of one word, so they are totally ordered and each
//!   reads the one before: if the completer's comes first, the installing waiter's swap
//!   reads it and synchronises with it (and a waiter that reads the installed event does
//!   too, through the installer's swap: a release sequence), so it sees the new phase and
//!   does not park; else the completer's reads the event and sets it. (No sequentially
//!   consistent access is needed, which loom — which treats those as acquire-release —
//!   can check: `sync/handle.rs`'s models run this.)
//! * An installed event lives until [`Completion::free_event`] (called by the owner of the
//!   memory once nobody can wait or complete any more). A fresh completion has `phase`
//!   [`PENDING`] and a null event.

use crate::atomics::{AtomicPtr, AtomicU8, Ordering};
use std::ptr;

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
        // Release: publishes the value written before; pairs with the waiters' acquire reads
        // of `phase`.
        self.phase_word().store(phase, Ordering::Release);
        // The completer's half of the handshake (module invariants): a read-modify-write on
        // the event word after the store of `phase`. AcqRel: its release makes `phase` visible
        // to a waiter whose install reads it (`event`); its acquire (and the failure's, which
        // reads an installed event) pairs with the install's release, so the event's contents
        // are visible here.
        let e = match self.event_word().compare_exchange(
            ptr::null_mut(),
            ptr::null_mut(),
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => ptr::null_mut(),
            Err(e) => e,
        };
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
        // Acquire: the waiter's re-read of `phase` after installing or reading the event
        // (`event`); `complete`'s swap on the event word, if it came first, is read by the
        // install and releases its store of `phase` to here (module invariants).
        if self.phase_word().load(Ordering::Acquire) == PENDING {
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
            // Acquire: as in `wait`: the re-read after the event (and the waker in it) is
            // installed; pairs with `complete`'s swap through the install.
            return self.phase_word().load(Ordering::Acquire);
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
        // Acquire: an event another waiter installed is read with its contents (the
        // install's release). Reading it is this waiter's half of the handshake with
        // `complete` through the installer's swap (module invariants).
        let mut e = self.event_word().load(Ordering::Acquire);
        if e.is_null() {
            let mine = Box::into_raw(Box::new(Event::new()));
            e = match self.event_word().compare_exchange(
                ptr::null_mut(),
                mine,
                // AcqRel: the install is this waiter's half of the handshake with `complete`
                // (module invariants): its acquire reads `complete`'s swap if that came
                // first, its release publishes the new event. The failure reads another
                // waiter's event with its contents.
                Ordering::AcqRel,
                Ordering::Acquire,
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
