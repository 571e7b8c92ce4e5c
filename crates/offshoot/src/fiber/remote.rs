//! The part of fiber scheduling that other threads touch: a worker's `Remote` (fibers
//! woken from other threads, kicks, stops counted for the stop scan, the list of
//! token-parked fibers the deadlock watch reads) and the owner's side of it (publishing
//! its parked fibers, interrupting a parked wait for a stop or a declared deadlock).
//!
//! Invariants:
//! * A fiber parked on a token is in its driver's `token_parked` list (owner only) from the
//!   moment the driver moved its token to `PARKED` until the driver resumes it. Before the
//!   worker counts itself idle for the deadlock watch, it *publishes* into
//!   `Remote::token_shared` (under its mutex) the fibers that parked since it last did and
//!   are still parked (`unpublished`: a fiber resumed first leaves it); a published fiber
//!   leaves the shared list, under the lock, before it is resumed. Each park is published
//!   at most once, so publishing costs O(1) per park. So whenever a worker is idle its
//!   shared list is exact, and a fiber in it stays alive while the watch, which reads the
//!   entries and interrupts their tokens, holds the lock. A park and a resume between two
//!   idle periods take no lock.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::{Fiber, Parker, WaitOn, Woken, NO_SLOT};
use crate::ready_stack::ReadyStack;
use crate::worker::Worker;

/// A fiber parked on a token, as listed for the stop scan and the deadlock watch.
#[derive(Clone, Copy)]
pub(crate) struct TokenParked {
    pub(super) fiber: *mut Fiber,
    pub(super) parker: *const Parker,
    /// The epoch of the park.
    pub(super) epoch: u64,
    pub(crate) on: WaitOn,
    /// The identity of the waiting task.
    pub(crate) task: u64,
    /// Reported by the deadlock watch as a wait nothing can end (see `deadlock.rs`).
    pub(crate) reported: bool,
    /// Its worker held `SEED_LIMIT` unstolen seeds when the task parked, or when a seed of
    /// its chain was handed out (a thief's request at a poll after a join that planted
    /// none): joins it entered then may have planted no seed, so their second closures
    /// start only after their first ones return (the deadlock report says so).
    pub(crate) past_seed_limit: bool,
}

/// The part of a worker's scheduling that other threads touch.
pub(crate) struct Remote {
    /// Fibers woken through their token by other threads, not yet moved to the driver's
    /// ready list (lock-free: `ready_stack.rs`).
    pub(super) ready: ReadyStack<Fiber>,
    /// Set when a condition a parked fiber waits on may have become true.
    pub(super) kicked: std::sync::atomic::AtomicBool,
    /// The fibers parked on a token as last published; see the module invariants.
    pub(super) token_shared: Mutex<Vec<TokenParked>>,
    /// How many stops other code raised on this worker for a region it cancelled
    /// (`Worker::signal_stop`); see `wake_cancelled_parked`.
    pub(super) stops: AtomicU64,
}

// SAFETY: the raw pointers in `token_shared` name parked fibers of the owner worker; other
// threads only read the entries and interrupt their tokens under the list's lock (module
// invariants), never touch the fibers.
unsafe impl Send for Remote {}
// SAFETY: as above.
unsafe impl Sync for Remote {}

impl Remote {
    pub(crate) fn new() -> Remote {
        Remote {
            ready: ReadyStack::new(),
            kicked: std::sync::atomic::AtomicBool::new(false),
            token_shared: Mutex::new(Vec::new()),
            stops: AtomicU64::new(0),
        }
    }

    /// Counts a stop raised for a region that was cancelled (before the stop bit is
    /// raised). Release: pairs with the acquire load in `wake_cancelled_parked`, so a scan
    /// that sees the count sees the region cancelled.
    pub(crate) fn count_stop(&self) {
        self.stops.fetch_add(1, Ordering::Release);
    }

    pub(crate) fn kick(&self) {
        // SeqCst: news for a sleeping owner (worker/sleep.rs, "The protocol").
        self.kicked.store(true, Ordering::SeqCst);
    }

    pub(crate) fn has_news(&self) -> bool {
        // SeqCst: the sleeper's reads of the news after its SeqCst store of `sleep_state`
        // (`idle_sleep`'s `quiet`, the deadlock check's `Registry::has_news`); pair with
        // `kick`'s SeqCst store and `ReadyStack::push`'s SeqCst CAS, each made before the waker
        // reads `sleep_state`.
        self.kicked.load(Ordering::SeqCst) || !self.ready.is_empty()
    }

    /// Queues the parked fiber `f`, whose wake (or interrupt) this caller won, for its
    /// driver.
    pub(super) fn push_ready(&self, f: *mut Fiber) {
        // SAFETY: the token queues a parked fiber once per park (`token.rs`), so it is in
        // no list; a parked fiber stays alive until its driver resumes it, which is after
        // the driver took it out of this stack.
        unsafe { self.ready.push(f) };
    }

    pub(super) fn take_ready(&self, into: &mut VecDeque<*mut Fiber>) {
        self.ready.take_all(|f| into.push_back(f));
    }
}

impl Worker {
    /// Called when a condition some fiber of this worker may wait on has become true.
    pub(crate) fn kick(&self) {
        self.remote().kick();
        self.unpark_if_sleeping();
    }

    /// A stop reached this worker: a task parked on a condition inside a cancelled region
    /// runs again (once), so that its wait loop passes the stop on (e.g. to the thief of
    /// the join it waits at) instead of sleeping through it; a task parked on a token inside
    /// a cancelled region is interrupted, so that its wait unwinds as stopped.
    ///
    /// The parked fibers are scanned once per stop that other code counted for a region it
    /// cancelled (`Remote::count_stop`), not at every take of the stop bit: the bit is also
    /// raised for the running chain alone (a resumed task, a stolen job, a stop re-raised
    /// while the running chain stays cancelled), and a scan per resume would make parking N
    /// tasks cost O(N²). A fiber that parks while the bit is raised — its chain may have
    /// been found cancelled while it ran, after the scan of that stop — is checked alone as
    /// it parks (`check_parking`). So every parked fiber in a cancelled region is found:
    /// by the scan of the cancel's count if it was parked by then, else by its own check.
    pub(crate) fn wake_cancelled_parked(&self) {
        self.with_sched(|s| {
            // Acquire: pairs with `count_stop`, so the cancelled regions counted are seen.
            let stops = self.remote().stops.load(Ordering::Acquire);
            if stops == s.scanned_stops {
                return;
            }
            s.scanned_stops = stops;
            for e in s.token_parked.iter().filter(|e| e.on.interruptible) {
                // SAFETY: listed fibers are parked and alive, their chains too (module
                // invariants); the owner (this thread) alone removes them.
                let stop = unsafe { self.chain_cancelled((*e.fiber).saved.get().head) };
                // SAFETY: as above: the token lives as long as its fiber.
                if stop && unsafe { (*e.parker).interrupt(e.epoch, Woken::Stopped) } {
                    s.ready.push_back(e.fiber);
                }
            }
            let mut i = 0;
            while i < s.cond_parked.len() {
                let f = s.cond_parked[i];
                // SAFETY: parked fibers and their saved chains are live.
                if unsafe { self.cancel_wakes(f) } {
                    s.cond_parked.swap_remove(i);
                    s.ready.push_back(f);
                } else {
                    i += 1;
                }
            }
        })
    }

    /// Whether the fiber `f`, parked on a condition, must run again because a region on its
    /// chain was cancelled (once per time it became free; marks it).
    ///
    /// # Safety
    /// `f` is a parked fiber of this worker (owner thread).
    pub(super) unsafe fn cancel_wakes(&self, f: *mut Fiber) -> bool {
        // SAFETY: per the contract, `f` and its saved chain are live.
        unsafe {
            let wake = !(*f).cancel_woken.get() && self.chain_cancelled((*f).saved.get().head);
            if wake {
                (*f).cancel_woken.set(true);
            }
            wake
        }
    }

    /// The fibers of this worker parked on a token as last published, locked. Exact while
    /// the worker is idle (module invariants).
    pub(crate) fn token_parked(&self) -> std::sync::MutexGuard<'_, Vec<TokenParked>> {
        self.remote()
            .token_shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes the fibers parked on a token since the last time for the deadlock watch
    /// (owner thread, before it counts itself idle). Resumed fibers left both lists.
    pub(crate) fn publish_token_parked(&self) {
        self.with_sched(|s| {
            if s.unpublished.is_empty() {
                return;
            }
            let mut shared = self.token_parked();
            for f in s.unpublished.drain(..) {
                // SAFETY: fibers in `unpublished` are token-parked and alive (a resumed one
                // left the list), so their `token_slot` names their entry.
                unsafe {
                    (*f).unpublished_slot.set(NO_SLOT);
                    (*f).shared_slot.set(shared.len());
                    shared.push(s.token_parked[(*f).token_slot.get()]);
                }
            }
        })
    }

    /// Interrupts the listed token wait `e` of this worker for `why` (from any thread) and
    /// queues its fiber. Returns whether it did (false if a waker came first).
    ///
    /// # Safety
    /// `e` is an entry of this worker's published list ([`Worker::token_parked`]), which
    /// the caller holds locked.
    pub(crate) unsafe fn interrupt_remote(&self, e: &TokenParked, why: Woken) -> bool {
        // SAFETY: per the contract, the fiber is listed, so parked and alive, and its
        // token too; the owner cannot remove it while the list is locked.
        if !unsafe { (*e.parker).interrupt(e.epoch, why) } {
            return false;
        }
        self.remote().push_ready(e.fiber);
        self.unpark_if_sleeping();
        true
    }
}
