//! Sleeping and backoff: how a worker that finds nothing to do spins, yields, naps and
//! sleeps, and how others wake it.
//!
//! Invariants:
//! * A worker sleeps only with its mailbox closed (`close_mailbox` answers the requests
//!   that race with the close) and nothing offerable on its chain, so no request waits on
//!   a sleeper and no work is trapped behind one.
//! * `sleep_state` says why a worker sleeps: `IDLE_SLEEP` (nothing to steal: new work may
//!   wake it, `wake_if_idle`) or `WAIT_SLEEP` (waiting at a join or a finish: only that
//!   event or a stop wakes it, `unpark_if_sleeping`).
//! * No lost wake-up: see "The protocol" below.
//! * An idle sleeper is counted in its pool's sleeper count (`Registry::sleepers_add`) from
//!   before its last look for news until it is awake again.
//!
//! # The protocol
//!
//! A worker that goes to sleep and a thread that brings it news race like the two sides of
//! Dekker's algorithm: each writes its own flag, then reads the other's. Every access on
//! both sides is `SeqCst`, so in the single total order of `SeqCst` operations one of the
//! two reads comes after the other side's write: either the sleeper sees the news and does
//! not sleep, or the waker sees the sleeper and unparks it (a `std::thread::park` returns
//! at once after an earlier `unpark`, so the unpark may even come before the park).
//!
//! The sleeper (`idle_sleep`; `nap` likewise with `WAIT_SLEEP` and its own `ready()`):
//! 1. closes its mailbox (a CAS on `attention`: no request can be pending or arrive);
//! 2. stores `sleep_state = IDLE_SLEEP` and adds itself to `Registry::sleepers`;
//! 3. reads every kind of news (`quiet`), and parks only if there is none.
//!
//! An idle sleeper may have a request of its own posted at a victim (`Mailbox::posted_at`):
//! the scheduler loop's, kept from before it slept, or one posted on its behalf by the
//! worker that wakes it (`wake_if_idle` with a poster: it claims the sleeper by a CAS from
//! `IDLE_SLEEP` to `WAKING`, posts, then stores `RUNNING` with release and unparks; the
//! sleeper, awake, waits out `WAKING` and reads `posted_at` after an acquire). On waking, the sleeper
//! settles the request before anything else (`settle_request`).
//!
//! The news, each published by a `SeqCst` write before the waker reads the sleeper's state:
//!
//! | news | written by | then the waker | the sleeper reads |
//! |---|---|---|---|
//! | a job injected (`ThreadPool::run`, detached spawns) | `Registry::inject`: `injected += 1` | `wake_one`: reads `sleepers`, claims an `IDLE_SLEEP` worker by CAS, unparks it | `has_injected` |
//! | a fiber woken from another thread | `ReadyStack::push` (CAS on the head) | `unpark_if_sleeping`: reads `sleep_state` | `Remote::has_news` (the stack's head) |
//! | a kick (a condition a parked fiber waits on may hold) | `Remote::kick`: `kicked = true` | `unpark_if_sleeping` | `Remote::has_news` (`kicked`) |
//! | a stop | `Mailbox::raise_stop`: `fetch_or(STOP)` | `unpark_if_sleeping` | `Mailbox::stop_raised` |
//! | a package request (`export.rs`) | `Mailbox::raise_export`: `fetch_or(EXPORT)` | `unpark_if_sleeping` | `Mailbox::export_raised` |
//! | the pool terminates | `terminating = true` | unparks every worker | `Registry::is_terminating` |
//! | the answer to the request the sleeper left posted | `Mailbox::answer` (the victim) | `unpark_if_sleeping` (`answer_request`) | `Mailbox::reply_before_sleep` |
//!
//! Requests need no such pairing: a thief's request and the sleeper's close are CASes on
//! the same `attention` word, so one of them fails (a refused thief goes elsewhere; a
//! close that finds a request answers it first). What is *not* news: a busy worker
//! planting seeds tells nobody, which is why an idle worker naps with a timeout while any
//! worker of its pool is busy (`busy_workers`), and sleeps without one only when none is.
//! The handshakes are model-checked with loom: fibers woken from other threads in
//! `ready_stack.rs` (a waker's push against the owner's drain-then-sleep), injected work
//! against a worker going to sleep below, and a thief sleeping with its request posted
//! (and `wake_if_idle`) in `mailbox.rs`.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::steal::Settled;
use super::Worker;
use crate::mailbox::{Target, REPLY_PENDING};

pub(super) const RUNNING: u8 = 0;
/// Sleeping because there was nothing to steal: new work may wake it.
pub(super) const IDLE_SLEEP: u8 = 1;
/// Sleeping while waiting for a join or a finish: only that event (or a stop) wakes it.
pub(super) const WAIT_SLEEP: u8 = 2;
/// Claimed out of `IDLE_SLEEP` by a worker that posts a request on its behalf before it
/// sets `RUNNING` and wakes it (`wake_if_idle`).
pub(super) const WAKING: u8 = 3;

/// How many times a thief looks at its reply slot (spinning) before it starts yielding its
/// core between looks.
pub(super) const SPIN_LOOKS: u32 = 64;
/// How many looks in all before a thief tries to withdraw a request that a victim did not
/// pick up. The yields matter: after an idle period the OS may wake the thief on the same
/// core as its victim, and a thief that only spun would keep the victim from ever running
/// its next poll.
pub(super) const WITHDRAW_AFTER: u32 = SPIN_LOOKS + 32;

/// Escalating patience of a worker that keeps failing to find work: spin, then yield the
/// core for at most [`Patience::LINGER`] of wall time, then nap for 20 µs doubling up to
/// about 1.3 ms (while other workers are busy; an idle pool sleeps without a timeout). Any
/// success resets it.
///
/// The yielding phase is bounded by time, not only by a count: a count of yields lasts
/// as long as the machine makes each yield last, and on a loaded machine (or one where the
/// caller runs serial code next to the pool, the common case after a parallel call) a
/// count of yields can take milliseconds of CPU per worker from whatever runs next
/// (`docs/DESIGN-NOTES.md`). The linger is the classic spin-then-block trade: spin for
/// about what a sleep and a wake cost, then block.
pub(super) struct Patience {
    fails: u32,
    /// When the yielding phase began (set on its first failure).
    yielding_since: Option<Instant>,
}

impl Patience {
    const SPINS: u32 = 16;
    /// Upper bound on the yields, whatever their length.
    const YIELDS: u32 = 1024;
    /// How long the yielding phase lasts at most before the naps begin.
    const LINGER: Duration = Duration::from_micros(200);
    /// Looks at its news an idle worker takes before each yield (a few microseconds).
    const WATCH_SPINS: u32 = 128;

    pub(super) fn new() -> Patience {
        Patience {
            fails: 0,
            yielding_since: None,
        }
    }

    pub(super) fn reset(&mut self) {
        self.fails = 0;
        self.yielding_since = None;
    }

    /// Still in the first, spinning phase (a waiter parks only after it).
    pub(super) fn spinning(&self) -> bool {
        self.fails < Self::SPINS
    }

    /// Records one more failure and waits a little; returns how long to nap when it is
    /// time to sleep instead.
    pub(super) fn fail(&mut self) -> Option<Duration> {
        self.fail_watching(|| false)
    }

    /// Like `fail`, for an idle worker: before each yield of its core it spins a while
    /// watching `news` (a fiber woken for it, a request, injected work) and goes back to
    /// its loop as soon as there is some. A wake from another worker is then picked up
    /// within a cache-line transfer rather than after a system call or a time slice.
    pub(super) fn fail_watching(&mut self, news: impl Fn() -> bool) -> Option<Duration> {
        self.fails = self.fails.saturating_add(1);
        if self.fails <= Self::SPINS {
            for _ in 0..(1u32 << self.fails.min(6)) {
                std::hint::spin_loop();
            }
            return None;
        }
        if self.fails <= Self::YIELDS {
            let since = *self.yielding_since.get_or_insert_with(Instant::now);
            if since.elapsed() < Self::LINGER {
                for _ in 0..Self::WATCH_SPINS {
                    if news() {
                        return None;
                    }
                    std::hint::spin_loop();
                }
                std::thread::yield_now();
                return None;
            }
            // Lingered long enough: on to the naps.
            self.fails = Self::YIELDS + 1;
        }
        Some(Duration::from_micros(
            20u64 << (self.fails - Self::YIELDS - 1).min(6),
        ))
    }
}

/// Backoff of posted sleeps after refusals: a victim that answers "nothing" at its polls
/// (it runs tasks that give no work, or switches between parked ones) would otherwise wake
/// a thief sleeping with its request posted at every poll. After `n` refusals in a row the
/// next `2^n` sleeps (at most 64) go unposted; work received, or a posted sleep whose
/// request the victim never picked up, ends the backoff.
#[derive(Default)]
pub(super) struct Refusals {
    in_a_row: u32,
    skip: u32,
}

impl Refusals {
    pub(super) fn note(&mut self) {
        self.in_a_row = (self.in_a_row + 1).min(6);
        self.skip = 1 << self.in_a_row;
    }

    pub(super) fn reset(&mut self) {
        *self = Refusals::default();
    }

    /// Whether the next sleep goes without a request (and counts it).
    pub(super) fn skip_posted_sleep(&mut self) -> bool {
        if self.skip == 0 {
            return false;
        }
        self.skip -= 1;
        true
    }
}

impl Worker {
    /// Sleeps until `ready()` may have become true, or `nap` passed, unless this worker
    /// still has work to offer (then it only yields, so thieves can take that work).
    pub(crate) fn nap(&self, ready: impl Fn() -> bool, nap: Duration) {
        if self.has_offerable_work() {
            std::thread::yield_now();
            return;
        }
        self.close_mailbox();
        // SeqCst: the sleeper's side of the handshake ("The protocol" above).
        self.sleep_state.store(WAIT_SLEEP, Ordering::SeqCst);
        if !ready() {
            std::thread::park_timeout(nap);
        }
        // SeqCst: back to `RUNNING` in the total order of the wakers' reads
        // (`unpark_if_sleeping`); a waker that reads it after this sends no unpark, and the
        // worker reads its news again before any later sleep.
        self.sleep_state.store(RUNNING, Ordering::SeqCst);
        self.mailbox.open();
    }

    /// Closes the mailbox, answering requests that race with the close.
    pub(super) fn close_mailbox(&self) {
        while !self.mailbox.close() {
            self.answer_request();
        }
    }

    /// Whether this worker runs a job and is awake (not asleep in its scheduler, nor at a
    /// join or a finish): read by the blocked-worker report from another thread (a hint).
    pub(crate) fn awake_in_job(&self) -> bool {
        // Relaxed: a hint, looked at again at the report's next look.
        self.sleep_state.load(Ordering::Relaxed) == RUNNING && self.runs_jobs()
    }

    /// Wakes this worker if it sleeps (for any reason).
    pub(crate) fn unpark_if_sleeping(&self) {
        // SeqCst: read after the caller published its news ("The protocol" above).
        if self.sleep_state.load(Ordering::SeqCst) != RUNNING {
            if let Some(t) = self.thread.get() {
                t.unpark();
            }
        }
    }

    /// Sleeps for lack of work: without a timeout when the whole pool is idle, else for a
    /// short nap (a busy worker may plant seeds at any time without telling anyone).
    ///
    /// The worker may sleep with a request posted (`Mailbox::posted_at`): its own, still
    /// waiting at a victim from the scheduler loop, or one that a worker waking it posts
    /// on its behalf (`wake_if_idle`). A victim polls only at its joins and loop splits, which
    /// may be milliseconds apart; it answers at its next poll and wakes the sleeper
    /// (`answer_request`). On waking, a request still unanswered is withdrawn, or its
    /// answer awaited when the victim took it meanwhile; a job in the answer is returned.
    ///
    /// Asleep, the worker counts as idle for the deadlock watch; before it sleeps and when
    /// it wakes up it runs the watch, which looks for a deadlock once no worker of any pool
    /// is awake. (A pool with parked tasks has a busy count above zero — a parked task's job
    /// has not returned — so its idle workers nap and run the watch again and again.)
    pub(super) fn idle_sleep(&self, nap: Duration) -> Settled {
        // A stop scan may have readied a fiber in this very pass, or a kick brought work to a
        // parked chain: run it, do not sleep.
        if self.has_local_ready() || self.reclaim_parked_work() {
            return self.settle_posted();
        }
        let reg = self.registry();
        self.close_mailbox();
        // The own request was posted before `sleep_state` says IDLE_SLEEP, so no waker posts
        // one on this worker's behalf besides it (`wake_if_idle` checks `posted_at`).
        let own_post = self.mailbox.posted_at().is_some();
        // SeqCst: the sleeper's side of the handshake ("The protocol" above).
        self.sleep_state.store(IDLE_SLEEP, Ordering::SeqCst);
        reg.sleepers_add(1);
        self.publish_token_parked();
        crate::deadlock::went_idle();
        let quiet = || {
            !reg.has_injected()
                && !reg.is_terminating()
                && !self.mailbox.has_request()
                && !self.remote().has_news()
                && !self.mailbox.stop_raised()
                && !self.mailbox.export_raised()
                && (!own_post || self.mailbox.reply_before_sleep() == REPLY_PENDING)
        };
        if quiet() && !crate::deadlock::watch() {
            self.trace_sleep(true);
            if reg.busy_workers() == 0 && !own_post {
                // The whole pool is idle: give back what a burst of tasks left cached.
                self.trim_blocks();
                std::thread::park();
            } else {
                std::thread::park_timeout(nap);
            }
            self.trace_sleep(false);
            if quiet() {
                crate::deadlock::watch();
            }
        }
        reg.sleepers_add(-1);
        // Back to RUNNING, unless a waker claimed this worker (then it is RUNNING already,
        // or WAKING while the waker posts a request for it: wait the few instructions that
        // takes). Acquire on failure: pairs with the waker's release store of RUNNING, so
        // the request it posted (`posted_at`, the reply slot) is seen below.
        let claimed = loop {
            // SeqCst on success: leaves `IDLE_SLEEP` in the total order of the wakers' claims
            // (`wake_if_idle`'s SeqCst CAS, which this CAS races on the same word) and
            // `unpark_if_sleeping`'s reads; a waker that reads `RUNNING` after this is one
            // whose news the awake worker reads at its next look, before any later sleep.
            match self.sleep_state.compare_exchange(
                IDLE_SLEEP,
                RUNNING,
                Ordering::SeqCst,
                Ordering::Acquire,
            ) {
                Ok(_) => break false,
                Err(WAKING) => std::hint::spin_loop(),
                Err(_) => break true,
            }
        };
        // Counted awake by whoever ended the sleep, exactly once: a claimer counted this
        // worker when it claimed it (`wake_if_idle`), before the work it brings could be
        // handed over; otherwise this worker counts itself, before it takes any news.
        if !claimed {
            crate::deadlock::woke();
        }
        self.mailbox.open();
        self.settle_posted()
    }

    /// Settles the request recorded in `posted_at`, if any (see `settle_request`).
    fn settle_posted(&self) -> Settled {
        let Some(v) = self.mailbox.posted_at() else {
            return Settled::NotPosted;
        };
        self.mailbox.set_posted_at(None);
        self.settle_request(v)
    }

    /// Whether this worker sleeps for lack of work (a hint: it may wake any moment).
    pub(crate) fn is_idle_sleeping(&self) -> bool {
        // Relaxed: a hint for choosing a victim; the request handshake decides.
        self.sleep_state.load(Ordering::Relaxed) == IDLE_SLEEP
    }

    /// Wakes this worker if it sleeps for lack of work. Returns whether it did.
    ///
    /// With a `poster`, a request to it is posted on this worker's behalf when this worker
    /// has none posted and `poster`'s mailbox is free: `poster` is about to run a job, and
    /// answers the request at the job's first join, typically before this worker is even
    /// running again (`Registry::busy`).
    pub(crate) fn wake_if_idle(&self, poster: Option<&Worker>) -> bool {
        // A poster claims the sleeper as WAKING while it fills the request slot.
        let claimed = if poster.is_some() { WAKING } else { RUNNING };
        // SeqCst: the waker's read of the sleeper's state after its news was published ("The
        // protocol"): pairs with the sleeper's SeqCst store of `IDLE_SLEEP` before its reads of
        // the news. As a CAS it also claims the sleeper against other wakers and its own return
        // to `RUNNING`.
        if self
            .sleep_state
            .compare_exchange(IDLE_SLEEP, claimed, Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        // Count the claimed worker awake now, on its behalf (it does not count itself, see
        // `idle_sleep`): between this claim and the moment its thread runs again, work is
        // handed to it (a reply to the request posted below, answered by the poster; an
        // injected job), and a deadlock check that saw it idle then would find every worker
        // idle with that work unseen — a false report (pingpong on 2 workers did).
        crate::deadlock::woke();
        if let Some(poster) = poster {
            // While WAKING, this worker waits in `idle_sleep` before it touches its
            // mailbox, so its request slot is the poster's to fill.
            if self.mailbox.posted_at().is_none()
                && self
                    .mailbox
                    .send_request(self.index, &poster.mailbox, Target::Any)
            {
                self.mailbox.set_posted_at(Some(poster.index));
                poster.stats.requests_sent.bump();
            }
            // SeqCst: at least release, pairing with the sleeper's acquire in `idle_sleep`
            // to publish the request written above; SeqCst keeps it in the handshake's total
            // order with the wakers' reads of `sleep_state` (`unpark_if_sleeping`).
            self.sleep_state.store(RUNNING, Ordering::SeqCst);
        }
        if let Some(t) = self.thread.get() {
            t.unpark();
        }
        true
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Patience;

    /// The yielding phase ends when `LINGER` has passed, long before `YIELDS` yields, so
    /// an idle worker stops taking CPU from whatever runs next after about that long.
    #[test]
    fn the_yields_end_after_the_linger_not_after_a_count() {
        let mut p = Patience::new();
        for _ in 0..Patience::SPINS {
            assert_eq!(p.fail(), None, "spinning");
        }
        assert_eq!(p.fail(), None, "the first yield starts the linger");
        std::thread::sleep(Patience::LINGER * 2);
        let nap = p.fail().expect("a nap once the linger has passed");
        assert_eq!(
            nap,
            std::time::Duration::from_micros(20),
            "the first nap is the shortest"
        );
        p.reset();
        assert!(p.spinning(), "a success starts over");
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The injector's side of "The protocol" against a worker going to sleep: the counters
    //! and the sleep state as `Registry::inject`/`wake_one` and `idle_sleep` use them (the
    //! registry itself is not built for loom, so the model repeats their few lines). A lost
    //! wake-up leaves the sleeper parked for good, which loom reports as a deadlock. As in
    //! `ready_stack.rs`'s model, a `SeqCst` fence stands between each side's store and load,
    //! since loom treats `SeqCst` accesses as `AcqRel`.
    use super::{IDLE_SLEEP, RUNNING};
    use crate::atomics::{Ordering, Permit};
    use loom::sync::atomic::{fence, AtomicIsize, AtomicU8, AtomicUsize};
    use loom::sync::Arc;
    use loom::thread;

    struct Pool {
        injected: AtomicUsize,
        sleepers: AtomicIsize,
        state: AtomicU8,
        permit: Permit,
    }

    /// `Registry::inject` then `wake_one`, for a pool of one worker.
    fn inject(p: &Pool) {
        p.injected.fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        if p.sleepers.load(Ordering::SeqCst) > 0
            && p.state
                .compare_exchange(IDLE_SLEEP, RUNNING, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
        {
            p.permit.unpark();
        }
    }

    /// Work injected while the worker goes to sleep is seen before it parks, or the
    /// injector wakes it; either way the worker takes the job.
    #[test]
    fn work_injected_as_a_worker_goes_to_sleep_wakes_it() {
        loom::model(|| {
            let p = Arc::new(Pool {
                injected: AtomicUsize::new(0),
                sleepers: AtomicIsize::new(0),
                state: AtomicU8::new(RUNNING),
                permit: Permit::default(),
            });
            let injector = {
                let p = p.clone();
                thread::spawn(move || inject(&p))
            };
            // The worker: nothing to do, so it sleeps until there is (`idle_sleep`).
            loop {
                if p.injected.load(Ordering::SeqCst) > 0 {
                    break; // `pop_injected`: it runs the job
                }
                p.state.store(IDLE_SLEEP, Ordering::SeqCst);
                p.sleepers.fetch_add(1, Ordering::SeqCst);
                fence(Ordering::SeqCst);
                if p.injected.load(Ordering::SeqCst) == 0 {
                    p.permit.park();
                }
                p.sleepers.fetch_sub(1, Ordering::SeqCst);
                p.state.store(RUNNING, Ordering::SeqCst);
            }
            injector.join().unwrap();
        });
    }
}
