//! The park/wake token of one waiting task: the state machine behind `fiber::Waiter`, apart
//! from what a wake does to its owner, so that loom can model-check the very transitions the
//! runtime uses (its atomics come from the `atomics` shim; see `scripts/loom.sh`).
//!
//! The word holds `epoch << 2 | state`. Each wait of the owner gets a new epoch:
//! * `arm` (the owner, when the last wait is over): → `ARMED` of a new epoch;
//! * `wake` (any thread holding the epoch): `ARMED` or `PARKED` → `WOKEN`;
//! * `park` (the owner's driver, once the owner's stack is no longer in use): `ARMED` →
//!   `PARKED`; it fails if the wake came first;
//! * `abandon` (the owner, instead of parking): `ARMED` → `IDLE`; it fails if the wake came
//!   first;
//! * `interrupt` (a stop or the deadlock watch, holding the epoch of a parked wait):
//!   `PARKED` → `WOKEN`; it fails on a wait not parked yet, and if the wake came first.
//!
//! Invariants (model-checked by the loom tests at the bottom of this file):
//! 1. Each transition is a compare-and-swap on the whole word, so it applies to one epoch:
//!    a wake for another epoch, or for a wait already woken or abandoned, changes nothing.
//!    At most one wake per epoch succeeds.
//! 2. A parked wait is queued exactly once: by the waker whose wake moved it `PARKED` →
//!    `WOKEN` ([`Woke::Parked`]), else by the driver whose `park` failed because the wake
//!    came first. Never both, never neither.
//! 3. Of `abandon` and a wake of the same epoch exactly one wins, and the owner learns when
//!    the wake did (it may have been handed something it must pass on).
//! 4. An interrupt is one more waker of a parked wait: of it and a wake of the same epoch
//!    exactly one wins, and the loser finds the token woken. It never ends a wait its
//!    driver has not parked yet (that wait's own wake still ends it), nor a later wait.
//!
//! Orderings: every access to the word is `SeqCst`. The transitions themselves need only
//! the word's own modification order (each is a compare-and-swap on the whole word, so two
//! of them on one epoch are ordered whatever their orderings) plus acquire/release for what
//! a wake hands over. `SeqCst` puts them in the single total order that they share with the
//! other side of each handshake they are part of: the queueing a `Woke::Parked` waker does
//! next (`ReadyStack::push`, then `unpark_if_sleeping`: worker/sleep.rs, "The protocol"), a
//! woken thread's `is_woken` after its `unpark`, and the deadlock check's reads (`is_woken`
//! as `Blocking::ended`, an `interrupt` inside its `AWAKE` window). The loom models below
//! check the transitions; loom treats `SeqCst` accesses as `AcqRel` (its README,
//! "Unsupported features"), so they pass under the weaker ordering, which is all the
//! transitions need. The pairings with other words are not in these models, and no access
//! is weakened.

use crate::atomics::{AtomicU64, Ordering};

const IDLE: u64 = 0;
const ARMED: u64 = 1;
const PARKED: u64 = 2;
const WOKEN: u64 = 3;
const STATE_BITS: u32 = 2;
const STATE_MASK: u64 = (1 << STATE_BITS) - 1;

/// What a call to [`Token::wake`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Woke {
    /// Nothing: the wait was woken before, abandoned, or is not the current one.
    No,
    /// Woke a wait that was not parked yet: its owner goes on by itself (its driver finds
    /// the token woken when it tries to park it). The waker queues nothing.
    Armed,
    /// Woke a parked wait: the waker must queue the owner.
    Parked,
}

/// The park/wake state of one fiber or one thread outside every pool.
pub(crate) struct Token {
    word: AtomicU64,
}

impl Token {
    pub(crate) fn new() -> Token {
        Token {
            word: AtomicU64::new(IDLE),
        }
    }

    /// Arms a new wait and returns its epoch. Owner only, when its previous wait is over
    /// (woken or abandoned): no other thread changes the word meanwhile.
    pub(crate) fn arm(&self) -> u64 {
        let epoch = (self.word.load(Ordering::Relaxed) >> STATE_BITS).wrapping_add(1);
        // SeqCst: see "Orderings" in the module docs: the arm precedes the owner's re-check of
        // what it waits for, and a wake of this epoch is a CAS on this same word.
        self.word
            .store((epoch << STATE_BITS) | ARMED, Ordering::SeqCst);
        epoch
    }

    /// Wakes the wait of `epoch` if it is still on.
    pub(crate) fn wake(&self, epoch: u64) -> Woke {
        // SeqCst: see "Orderings" in the module docs; the CAS below is what decides.
        let mut cur = self.word.load(Ordering::SeqCst);
        loop {
            if cur >> STATE_BITS != epoch & (u64::MAX >> STATE_BITS) {
                return Woke::No;
            }
            let st = cur & STATE_MASK;
            if st != ARMED && st != PARKED {
                return Woke::No;
            }
            let new = (cur & !STATE_MASK) | WOKEN;
            // SeqCst: see "Orderings" in the module docs: a `Woke::Parked` is followed by the
            // waker's queueing (`ReadyStack::push`, then `unpark_if_sleeping`) in the sleep
            // handshake's total order, and a woken thread's wait reads `is_woken`.
            match self
                .word
                .compare_exchange(cur, new, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) if st == PARKED => return Woke::Parked,
                Ok(_) => return Woke::Armed,
                Err(c) => cur = c,
            }
        }
    }

    /// Gives up the wait of `epoch` (armed, not parked). Returns true if a wake came first.
    pub(crate) fn abandon(&self, epoch: u64) -> bool {
        let armed = (epoch << STATE_BITS) | ARMED;
        // SeqCst: see "Orderings" in the module docs; against a wake, this word's modification
        // order alone decides (invariant 3).
        self.word
            .compare_exchange(
                armed,
                epoch << STATE_BITS,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_err()
    }

    /// The driver parks the armed wait, once the owner's stack is no longer in use. Returns
    /// true if it is parked (its waker will queue it), false if it was woken first (the
    /// driver queues it itself).
    #[cfg_attr(miri, allow(dead_code))] // under Miri no driver runs fibers
    pub(crate) fn park(&self) -> bool {
        // SeqCst: see "Orderings" in the module docs; the driver's park against a wake is
        // decided by the CAS on this one word (invariant 2).
        let cur = self.word.load(Ordering::SeqCst);
        debug_assert_ne!(cur & STATE_MASK, IDLE, "parking a token that is not armed");
        cur & STATE_MASK == ARMED
            && self
                .word
                .compare_exchange(
                    cur,
                    (cur & !STATE_MASK) | PARKED,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                )
                .is_ok()
    }

    /// Ends the *parked* wait of `epoch` early (a stop interrupting it): wins the same
    /// compare-and-swap a waker would, from `PARKED` only, so a waker that loses finds the
    /// token woken. Returns whether it did (the caller then queues the fiber).
    pub(crate) fn interrupt(&self, epoch: u64) -> bool {
        let parked = (epoch << STATE_BITS) | PARKED;
        // SeqCst: see "Orderings" in the module docs: an interrupt by the deadlock check falls
        // inside its `AWAKE` window, in the same total order as the check's reads.
        self.word
            .compare_exchange(
                parked,
                (epoch << STATE_BITS) | WOKEN,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
    }

    /// The epoch of the current (or last) wait.
    #[cfg_attr(miri, allow(dead_code))] // under Miri no driver runs fibers
    pub(crate) fn epoch(&self) -> u64 {
        // SeqCst: see "Orderings" in the module docs (owner's driver only).
        self.word.load(Ordering::SeqCst) >> STATE_BITS
    }

    /// Whether the current wait has been woken.
    pub(crate) fn is_woken(&self) -> bool {
        // SeqCst: see "Orderings" in the module docs: read by a woken thread's wait loop (after
        // `unpark`) and by the deadlock check as `Blocking::ended`, under `BLOCKED`'s lock and
        // inside its `AWAKE` window.
        self.word.load(Ordering::SeqCst) & STATE_MASK == WOKEN
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of the token with the driver's side modelled: run with
    //! `scripts/loom.sh`. A model fiber logs every time it is queued (by a waker, an
    //! interrupter or its driver) with the epoch of the wait, so "queued exactly once per
    //! park" is an assertion on that log; a wait never queued leaves its worker blocked for
    //! good, which loom reports as a deadlock.
    use super::*;
    use loom::sync::atomic::AtomicBool;
    use loom::sync::{Arc, Condvar, Mutex};
    use loom::thread;

    /// One fiber and the ready list it is queued on.
    struct Fiber {
        token: Token,
        /// Set by an interrupt that won, read and cleared by the resumed task
        /// (`Parker::interrupted`).
        interrupted: AtomicBool,
        queued: Mutex<Vec<u64>>,
        ready: Condvar,
    }

    fn fiber() -> Arc<Fiber> {
        Arc::new(Fiber {
            token: Token::new(),
            interrupted: AtomicBool::new(false),
            queued: Mutex::new(Vec::new()),
            ready: Condvar::new(),
        })
    }

    impl Fiber {
        /// Puts the fiber on its worker's ready list (`Remote::push_ready` and the
        /// worker's wake-up).
        fn queue(&self, epoch: u64) {
            self.queued.lock().unwrap().push(epoch);
            self.ready.notify_all();
        }

        /// What `Waiter::wake` does for a fiber's token: queue it on `Woke::Parked`.
        fn wake(&self, epoch: u64) -> Woke {
            let w = self.token.wake(epoch);
            if w == Woke::Parked {
                self.queue(epoch);
            }
            w
        }

        /// What `Parker::interrupt` and its caller (`Worker::interrupt_remote`,
        /// `Worker::wake_cancelled_parked`) do: win the wake of the parked wait `epoch`,
        /// record why, queue the fiber. Returns whether it won.
        fn interrupt(&self, epoch: u64) -> bool {
            if !self.token.interrupt(epoch) {
                return false;
            }
            self.interrupted.store(true, Ordering::SeqCst);
            self.queue(epoch);
            true
        }

        /// The task parks on its wait `epoch` ([`Fiber::park_token`], then
        /// [`Fiber::resume`]). Returns whether an interrupt ended the wait.
        fn park(&self, epoch: u64) -> bool {
            self.park_token(epoch);
            self.resume(epoch)
        }

        /// The driver's half of a park: it parks the token, queuing the fiber itself if the
        /// wake came first. Returns whether the fiber is parked (it is then listed, and a
        /// stop or the deadlock watch may interrupt it).
        fn park_token(&self, epoch: u64) -> bool {
            let parked = self.token.park();
            if !parked {
                self.queue(epoch);
            }
            parked
        }

        /// The worker's half: it sleeps until the fiber is on its ready list for `epoch`,
        /// then resumes it; the task checks it was woken and learns whether an interrupt
        /// ended the wait (`Parker::woken`), which it returns.
        fn resume(&self, epoch: u64) -> bool {
            let mut q = self.queued.lock().unwrap();
            while !q.contains(&epoch) {
                q = self.ready.wait(q).unwrap();
            }
            drop(q);
            assert!(self.token.is_woken(), "resumed but not woken");
            let interrupted = self.interrupted.load(Ordering::SeqCst);
            if interrupted {
                self.interrupted.store(false, Ordering::SeqCst);
            }
            interrupted
        }

        fn log(&self) -> Vec<u64> {
            self.queued.lock().unwrap().clone()
        }
    }

    /// Starts a thread that wakes `f`'s wait `epoch` once.
    fn spawn_waker(f: &Arc<Fiber>, epoch: u64) -> thread::JoinHandle<Woke> {
        let f = f.clone();
        thread::spawn(move || f.wake(epoch))
    }

    /// Starts a thread that interrupts `f`'s wait `epoch` once (a stop, or the deadlock
    /// watch, that found the wait listed as parked).
    fn spawn_interrupter(f: &Arc<Fiber>, epoch: u64) -> thread::JoinHandle<bool> {
        let f = f.clone();
        thread::spawn(move || f.interrupt(epoch))
    }

    /// Arms a wait of `f`'s task and parks it, nothing waking it meanwhile: the wait is
    /// listed as parked, for a stop or the deadlock watch to find. Returns its epoch.
    fn parked_wait(f: &Fiber) -> u64 {
        let e = f.token.arm();
        assert!(
            f.park_token(e),
            "nothing woke the wait, yet it did not park"
        );
        e
    }

    /// Runs `model` under loom; `model` returns which of two orders the race it checks
    /// took. Checks that both orders were explored.
    fn model_both_orders(model: impl Fn() -> bool + Send + Sync + 'static) {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        let seen = std::sync::Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let counts = seen.clone();
        loom::model(move || {
            counts[usize::from(model())].fetch_add(1, Relaxed);
        });
        assert!(
            seen.iter().all(|n| n.load(Relaxed) > 0),
            "only one order of the race was explored"
        );
    }

    /// A whole wait of `f`'s task: armed, woken by another thread, parked on; nothing
    /// interrupts it. Returns its epoch.
    fn next_wait(f: &Arc<Fiber>) -> u64 {
        let e = f.token.arm();
        let waker = spawn_waker(f, e);
        assert!(!f.park(e), "a wait nothing interrupts ended interrupted");
        let w = waker.join().unwrap();
        assert_ne!(w, Woke::No, "the wait's own wake did nothing");
        e
    }

    /// A waker races the park, the wake landing before it (`Woke::Armed`: the driver
    /// queues) or after it (`Woke::Parked`: the waker queues). The fiber is queued exactly
    /// once. (A wake cannot come before the arm of its own wait: a waker gets the epoch
    /// from the arm. A wake racing an arm is the stale case below.)
    #[test]
    fn wake_races_park() {
        model_both_orders(|| {
            let f = fiber();
            let e = f.token.arm();
            let waker = spawn_waker(&f, e);
            f.park(e);
            let w = waker.join().unwrap();
            assert_eq!(f.log(), vec![e], "queued exactly once");
            match w {
                Woke::Armed => false,
                Woke::Parked => true,
                Woke::No => panic!("the only wake of a wait did nothing"),
            }
        });
    }

    /// Two wakers of the same wait: one wakes it, the fiber is queued once.
    #[test]
    fn two_wakers_queue_once() {
        loom::model(|| {
            let f = fiber();
            let e = f.token.arm();
            let wakers = [spawn_waker(&f, e), spawn_waker(&f, e)];
            f.park(e);
            let woke: Vec<Woke> = wakers.into_iter().map(|h| h.join().unwrap()).collect();
            assert_eq!(woke.iter().filter(|w| **w != Woke::No).count(), 1);
            assert_eq!(f.log(), vec![e], "queued exactly once");
        });
    }

    /// A late wake of an abandoned wait races the next wait (its arm, its wake, its park):
    /// it takes effect only if it beat the abandon (and the owner then knows), and never
    /// wakes or queues the next wait.
    #[test]
    fn stale_wake_after_abandon() {
        loom::model(|| {
            let f = fiber();
            let e1 = f.token.arm();
            let stale = spawn_waker(&f, e1);
            let wake_came_first = f.token.abandon(e1);
            let e2 = next_wait(&f);
            let s = stale.join().unwrap();
            assert_eq!(s != Woke::No, wake_came_first);
            assert_ne!(s, Woke::Parked);
            assert_eq!(f.log(), vec![e2], "queued exactly once, for the next wait");
        });
    }

    /// A second wake of a wait that was woken and has resumed races the next wait: it
    /// does nothing to it.
    #[test]
    fn stale_wake_after_resume() {
        loom::model(|| {
            let f = fiber();
            let e1 = f.token.arm();
            let late = spawn_waker(&f, e1);
            let mine = f.wake(e1); // the wait is woken while the task registers
            f.park(e1);
            let e2 = next_wait(&f);
            let l = late.join().unwrap();
            assert_eq!([mine, l].iter().filter(|w| **w != Woke::No).count(), 1);
            assert_ne!(l, Woke::Parked);
            assert_eq!(f.log(), vec![e1, e2], "each wait queued exactly once");
        });
    }

    /// The owner abandons a wait while a waker wakes it: exactly one wins, the owner knows
    /// which, nothing is queued, and the next wait starts clean.
    #[test]
    fn abandon_races_wake() {
        loom::model(|| {
            let f = fiber();
            let e1 = f.token.arm();
            let waker = spawn_waker(&f, e1);
            let wake_came_first = f.token.abandon(e1);
            let w = waker.join().unwrap();
            assert_eq!(w != Woke::No, wake_came_first);
            assert_ne!(w, Woke::Parked);
            assert!(f.log().is_empty(), "an abandoned wait was queued");
            let e2 = f.token.arm();
            assert!(!f.token.is_woken());
            assert_eq!(f.wake(e2), Woke::Armed);
        });
    }

    /// A stop interrupts a parked wait while its waker wakes it: exactly one of them wins,
    /// the fiber is queued once, the resumed task learns whether it was interrupted, and
    /// the loser finds the token woken (a waker that loses passes its wake on).
    #[test]
    fn interrupt_races_wake() {
        model_both_orders(|| {
            let f = fiber();
            let e = parked_wait(&f);
            let waker = {
                let f = f.clone();
                thread::spawn(move || (f.wake(e), f.token.is_woken()))
            };
            let interrupter = {
                let f = f.clone();
                thread::spawn(move || (f.interrupt(e), f.token.is_woken()))
            };
            let interrupted = f.resume(e);
            let (w, waker_saw_woken) = waker.join().unwrap();
            let (i, interrupter_saw_woken) = interrupter.join().unwrap();
            assert_ne!(w, Woke::Armed, "the wait was parked");
            assert_eq!(i, w == Woke::No, "exactly one of them wins");
            assert_eq!(interrupted, i, "the task misread how its wait ended");
            assert_eq!(f.log(), vec![e], "queued exactly once");
            assert!(waker_saw_woken, "the waker found the token not woken");
            assert!(
                interrupter_saw_woken,
                "the interrupter found the token not woken"
            );
            i
        });
    }

    /// A stop read the listing of a parked wait, but its interrupt lands late, racing the
    /// wait's own wake, the resume and the next wait (its arm, its wake, its park): it ends
    /// the old wait only if it beat the wake (and the task knows), and never touches the
    /// next wait.
    #[test]
    fn stale_interrupt_after_wake() {
        loom::model(|| {
            let f = fiber();
            let e1 = parked_wait(&f);
            let stale = spawn_interrupter(&f, e1);
            let mine = f.wake(e1); // the wait's own waker
            let interrupted = f.resume(e1);
            let e2 = next_wait(&f); // asserts that nothing interrupts it
            let i = stale.join().unwrap();
            assert_eq!(i, mine == Woke::No, "exactly one of them ends the old wait");
            assert_eq!(interrupted, i, "the task misread how its wait ended");
            assert_eq!(f.log(), vec![e1, e2], "each wait queued exactly once");
        });
    }

    /// A stop's interrupt races the park itself, the wait's own wake following it on the
    /// same thread. Before the driver parks the token the interrupt fails (were it to win,
    /// the driver, finding the token woken, would queue the fiber too), and the real wake
    /// still ends the wait, before the park or after it; once the token is parked the
    /// interrupt wins and the wake does nothing.
    #[test]
    fn interrupt_races_park() {
        model_both_orders(|| {
            let f = fiber();
            let e = f.token.arm();
            let stop_then_wake = {
                let f = f.clone();
                thread::spawn(move || (f.interrupt(e), f.wake(e)))
            };
            let interrupted = f.park(e);
            let (i, w) = stop_then_wake.join().unwrap();
            assert_eq!(i, w == Woke::No, "exactly one of them ends the wait");
            assert_eq!(interrupted, i, "the task misread how its wait ended");
            assert_eq!(f.log(), vec![e], "queued exactly once");
            i // whether the interrupt came after the park
        });
    }
}
