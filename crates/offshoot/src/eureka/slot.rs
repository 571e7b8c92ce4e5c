//! `Slot`: a cell written at most once, by whichever caller claims it first, lock-free.
//!
//! Invariant: `state` goes EMPTY → CLAIMED (one winner of a compare-and-swap, which alone
//! writes the value) → FULL (release, after the write); the value is read only in FULL and
//! dropped with the slot only if FULL. No one waits for a claimed slot to fill: a reader
//! that finds it CLAIMED sees it as empty.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU8, Ordering};

const EMPTY: u8 = 0;
const CLAIMED: u8 = 1;
const FULL: u8 = 2;

pub(super) struct Slot<T> {
    state: AtomicU8,
    value: UnsafeCell<MaybeUninit<T>>,
}

// SAFETY: the value is written by one thread (the claim's winner) before the release store
// of FULL and only read after an acquire load of FULL; it moves between threads (Send).
unsafe impl<T: Send + Sync> Sync for Slot<T> {}
// SAFETY: owning the slot owns the value.
unsafe impl<T: Send> Send for Slot<T> {}

impl<T> Slot<T> {
    pub(super) const fn new() -> Slot<T> {
        Slot {
            state: AtomicU8::new(EMPTY),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Whether someone claimed the slot (it may not be readable yet).
    #[inline]
    pub(super) fn is_claimed(&self) -> bool {
        self.state.load(Ordering::Acquire) != EMPTY
    }

    /// Writes `x` if the slot was empty; otherwise gives `x` back.
    pub(super) fn set(&self, x: T) -> Result<(), T> {
        if self
            .state
            .compare_exchange(EMPTY, CLAIMED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(x);
        }
        // SAFETY: the claim makes this thread the only writer, and no reader looks at the
        // value before FULL.
        unsafe { (*self.value.get()).write(x) };
        // Release: pairs with the acquire loads in `get`.
        self.state.store(FULL, Ordering::Release);
        Ok(())
    }

    /// The verdict of an offer that resolves a eureka by being first (`Search`, `Timer`,
    /// `Engine`): `Resolve` for the offer that fills the slot, `Terminate` for any other
    /// or once `core` is resolved (by a timer or fuel).
    pub(super) fn offer_first(&self, core: &super::Core, x: T) -> super::Verdict {
        if core.is_resolved() {
            return super::Verdict::Terminate;
        }
        match self.set(x) {
            Ok(()) => super::Verdict::Resolve,
            Err(_) => super::Verdict::Terminate,
        }
    }

    /// The value, once written.
    pub(super) fn get(&self) -> Option<&T> {
        if self.state.load(Ordering::Acquire) == FULL {
            // SAFETY: FULL: written once, never again, and live as long as the slot.
            Some(unsafe { (*self.value.get()).assume_init_ref() })
        } else {
            None
        }
    }

    /// The value, taking it out of an owned slot.
    pub(super) fn into_inner(self) -> Option<T> {
        let mut me = std::mem::ManuallyDrop::new(self);
        let full = *me.state.get_mut() == FULL;
        // SAFETY: FULL means written; the slot is never dropped (ManuallyDrop), so the
        // value is moved out once.
        full.then(|| unsafe { me.value.get_mut().assume_init_read() })
    }
}

impl<T> std::fmt::Debug for Slot<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_claimed() {
            "Slot(claimed)"
        } else {
            "Slot(empty)"
        })
    }
}

impl<T> Drop for Slot<T> {
    fn drop(&mut self) {
        if *self.state.get_mut() == FULL {
            // SAFETY: FULL means written, and the slot is dropped once.
            unsafe { self.value.get_mut().assume_init_drop() };
        }
    }
}
