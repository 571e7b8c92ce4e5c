//! `Slot`: a cell written at most once, by whichever caller claims it first, lock-free.
//!
//! Invariant: `state` goes EMPTY → CLAIMED (one winner of a compare-and-swap, which alone
//! writes the value) → FULL (release, after the write); the value is read only in FULL and
//! dropped with the slot only if FULL. No one waits for a claimed slot to fill: a reader
//! that finds it CLAIMED sees it as empty.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;

use crate::atomics::{AtomicU8, Ordering};

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
    pub(super) fn new() -> Slot<T> {
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
        // Owned: no other thread can touch the state any more.
        let full = me.state.load(Ordering::Relaxed) == FULL;
        // SAFETY: FULL means written; the slot is never dropped (ManuallyDrop), so the
        // value is moved out once.
        // Under loom the atomic must still be dropped: take it out too.
        let v = full.then(|| unsafe { me.value.get_mut().assume_init_read() });
        // SAFETY: the state is dropped once, here, and never used again.
        unsafe { std::ptr::drop_in_place(&mut me.state) };
        v
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
        // `&mut self`: no other thread can touch the state any more.
        if self.state.load(Ordering::Relaxed) == FULL {
            // SAFETY: FULL means written, and the slot is dropped once.
            unsafe { self.value.get_mut().assume_init_drop() };
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::Slot;
    use loom::sync::Arc;

    /// Two offers race for the slot while a reader looks: exactly one wins, the reader
    /// sees nothing or the winner's whole value, and the loser gets its value back.
    #[test]
    fn one_writer_wins_and_readers_see_all_or_nothing() {
        loom::model(|| {
            let s = Arc::new(Slot::new());
            let writers: Vec<_> = [1u64, 2]
                .into_iter()
                .map(|v| {
                    let s = s.clone();
                    loom::thread::spawn(move || s.set(v).is_ok())
                })
                .collect();
            if let Some(&v) = s.get() {
                assert!(v == 1 || v == 2);
            }
            let won: Vec<bool> = writers.into_iter().map(|t| t.join().unwrap()).collect();
            assert_eq!(won.iter().filter(|&&w| w).count(), 1);
            let v = *s.get().expect("written");
            assert!(won[v as usize - 1]);
        });
    }
}
