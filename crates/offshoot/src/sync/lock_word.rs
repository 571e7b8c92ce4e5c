//! [`LockWord`]: the exclusive lock under [`Mutex`](super::Mutex) and
//! [`Monitor`](super::Monitor): one atomic word that says who holds it, and a list of the
//! tasks that wait for it.
//!
//! Invariants (model-checked by the loom tests at the bottom of this file):
//! * `word` is 0 when the lock is free, else the identity of the holding task (for
//!   deadlock reports and a monitor's re-entry), with [`QUEUED`] set while tasks may wait in
//!   `waiters`. Task identities and those of outside threads never have bit 62 set
//!   (`sync::task`). Only the CAS that takes `word` from 0 acquires the lock, and only
//!   [`LockWord::release`], by its holder, frees it. The deadlock watch reads the holder
//!   from `word` at a check (`HoldsLock`): a lock that a thread outside every pool holds
//!   is not a deadlock unless that thread is blocked in an offshoot wait itself.
//! * Acquiring and releasing without contention touch only `word` (a CAS, a swap). A task
//!   that finds the lock taken spins briefly on `word`, then, under `waiters`' lock, either
//!   takes it (0) or sets `QUEUED` and queues its token before it releases that lock and
//!   parks. Releasing swaps `word` to 0 and, only if the old value had `QUEUED`, wakes the
//!   oldest waiter under `waiters`' lock. Both are read-modify-writes of `word`, so either
//!   the release sees `QUEUED` (and then, taking `waiters`' lock after the waiter released
//!   it, finds the token) or the waiter's CAS fails and it looks again: no lost wake-up.
//! * A woken waiter competes for the lock again (no hand-off: a task acquiring meanwhile
//!   may take it first), taking it with `QUEUED` set if others still wait, or setting
//!   `QUEUED` again when it queues anew. So while tasks wait in `waiters`, either `QUEUED`
//!   is set or a woken waiter is on its way to look at `word` under `waiters`' lock. A
//!   waiter that a stop or a deadlock interrupts leaves the list without the lock (see
//!   `sync::wait_for`); a `QUEUED` left with nobody queued costs the next release one look
//!   at an empty list.
//! * Orderings: the CAS that takes the lock is acquire and the release's swap is release
//!   (they pair, publishing what the holders did between them); setting `QUEUED` is relaxed
//!   (the queued token is published by `waiters`' lock, which the release then takes).

use crate::atomics::{AtomicU64, Ordering};

use super::{wait_locked, WaitList, WaitOn};
use crate::deadlock::{Holder, HolderProbe, HoldsLock};

/// Set in `word` while tasks may wait in `waiters` (module invariants).
const QUEUED: u64 = 1 << 62;

/// How many times a task that finds the lock taken looks at it again before it queues: a
/// holder in a short critical section on another worker releases it within that time,
/// while parking costs a fiber switch and a wake. (One under loom, to keep models small.)
const SPINS: u32 = if cfg!(loom) { 1 } else { 100 };

/// See the module docs.
pub(crate) struct LockWord {
    /// 0, or the holder's identity with `QUEUED` (module invariants).
    word: AtomicU64,
    /// The tasks waiting for the lock.
    waiters: crate::atomics::Mutex<WaitList>,
}

impl LockWord {
    crate::atomics::const_unless_loom! {
        /// A free lock.
        pub(crate) fn new() -> LockWord {
            LockWord {
                word: AtomicU64::new(0),
                waiters: crate::atomics::Mutex::new(WaitList::new()),
            }
        }
    }

    /// The identity of the holder, or 0 if the lock is free: exact when the caller holds
    /// it (a monitor's re-entry test), a snapshot otherwise.
    #[inline]
    pub(crate) fn holder(&self) -> u64 {
        self.word.load(Ordering::Relaxed) & !QUEUED
    }

    /// Takes the lock for task `me` if it is free.
    #[inline]
    pub(crate) fn try_acquire(&self, me: u64) -> bool {
        debug_assert!(me != 0 && me & QUEUED == 0, "not a task identity: {me:#x}");
        // Acquire: pairs with the release swap of the holder before (module invariants).
        self.word
            .compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Takes the lock for task `me`, parking while another task holds it; `on` says what
    /// the deadlock watch reports the task as waiting on (and whether a stop may end the
    /// wait: then the task unwinds without the lock).
    #[inline]
    pub(crate) fn acquire(&self, me: u64, on: impl Fn() -> WaitOn) {
        if !self.try_acquire(me) {
            self.acquire_contended(me, on);
        }
    }

    /// The lock was taken: spin briefly, then queue and park until it is free and ours.
    #[cold]
    #[inline(never)]
    fn acquire_contended(&self, me: u64, on: impl Fn() -> WaitOn) {
        for _ in 0..SPINS {
            std::hint::spin_loop();
            if self.word.load(Ordering::Relaxed) == 0 && self.try_acquire(me) {
                return;
            }
        }
        wait_locked(
            || self.lock_waiters(),
            || on().probed(HolderProbe::of(self)),
            |queued: &mut WaitList| {
                let mut word = self.word.load(Ordering::Relaxed);
                loop {
                    let (new, order) = if word == 0 {
                        // Free: take it, keeping QUEUED for those still queued.
                        let q = if queued.is_empty() { 0 } else { QUEUED };
                        (me | q, Ordering::Acquire)
                    } else if word & QUEUED != 0 {
                        return None;
                    } else {
                        // Held: say that a task waits before queuing (relaxed: the token is
                        // published by the lock on `waiters`, which the release takes).
                        (word | QUEUED, Ordering::Relaxed)
                    };
                    match self
                        .word
                        .compare_exchange(word, new, order, Ordering::Relaxed)
                    {
                        Ok(_) if word == 0 => return Some(()),
                        Ok(_) => return None,
                        Err(now) => word = now,
                    }
                }
            },
            |queued| queued,
            |_| {},
        )
    }

    /// Frees the lock, which the caller holds, and wakes the oldest waiter if any.
    #[inline]
    pub(crate) fn release(&self) {
        // Release: pairs with the acquire CAS of the next holder.
        if self.word.swap(0, Ordering::Release) & QUEUED != 0 {
            self.wake_waiter();
        }
    }

    /// Wakes the oldest queued task (the release saw `QUEUED`).
    #[cold]
    #[inline(never)]
    fn wake_waiter(&self) {
        self.lock_waiters().wake_one();
    }

    /// Locks the wait list, ignoring poisoning as `sync::lock` does (no critical section on
    /// it runs user code); that helper takes a std mutex, this one loom's under loom.
    fn lock_waiters(&self) -> impl std::ops::DerefMut<Target = WaitList> + '_ {
        self.waiters.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl HoldsLock for LockWord {
    fn holder_now(&self) -> Holder {
        Holder::of(self.holder())
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of the lock word against the wait list (the fast CAS, the spin, the
    //! `QUEUED` flag set under the list's lock, the release's swap and its wake): run with
    //! `scripts/loom.sh`. The threads are outside every pool, so they park as threads do.
    //! A lost wake-up deadlocks the model, which loom reports; two holders at once trip
    //! the `inside` count, and the count of entries checks that each got in once.
    use super::LockWord;
    use crate::fiber::WaitOn;
    use loom::sync::atomic::{AtomicUsize, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    struct Guarded {
        lock: LockWord,
        inside: AtomicUsize,
        entries: AtomicUsize,
    }

    fn enter(g: &Guarded, me: u64) {
        g.lock.acquire(me, || WaitOn::new("LockWord", g));
        assert_eq!(g.lock.holder(), me);
        assert_eq!(
            g.inside.fetch_add(1, Ordering::SeqCst),
            0,
            "two holders at once"
        );
        g.entries.fetch_add(1, Ordering::SeqCst);
        g.inside.fetch_sub(1, Ordering::SeqCst);
        g.lock.release();
    }

    fn guarded() -> Arc<Guarded> {
        Arc::new(Guarded {
            lock: LockWord::new(),
            inside: AtomicUsize::new(0),
            entries: AtomicUsize::new(0),
        })
    }

    /// Two threads contend, one of them twice: every entry happens, nobody waits for ever.
    #[test]
    fn two_threads_contend() {
        loom::model(|| {
            let g = guarded();
            let g2 = g.clone();
            let t = thread::spawn(move || enter(&g2, 2));
            enter(&g, 1);
            enter(&g, 1);
            t.join().unwrap();
            assert_eq!(g.entries.load(Ordering::SeqCst), 3);
            assert_eq!(g.lock.holder(), 0);
        });
    }

    /// Two waiters queue behind a holder, while the release's wake races a new holder's
    /// fast path: the `QUEUED` flag must survive for the waiter still queued.
    #[test]
    fn two_waiters_and_a_barger() {
        loom::model(|| {
            let g = guarded();
            let waiters: Vec<_> = (2..4)
                .map(|me| {
                    let g = g.clone();
                    thread::spawn(move || enter(&g, me))
                })
                .collect();
            enter(&g, 1);
            for w in waiters {
                w.join().unwrap();
            }
            assert_eq!(g.entries.load(Ordering::SeqCst), 3);
            assert!(g.lock.try_acquire(1));
        });
    }
}
