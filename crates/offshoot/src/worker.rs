//! A worker: its frame chain, its polls, how it answers requests, how it steals, waits and
//! sleeps.
//!
//! Invariants:
//! * The `Cell` fields (`head`, `current_finish`, `rng`, the block cache) are touched only by the thread that
//!   runs this worker; other threads only use `mailbox`, `sleep_state`, `thread` and the
//!   statistics counters (which the owner alone writes, with plain relaxed stores).
//! * A worker never runs unrelated work on top of a waiting frame: while it waits at a join
//!   it runs only jobs taken back from the thief of that join (`Target::Job`), while it waits
//!   at a finish only work of that finish (`Target::Finish`). Idle workers (empty chain)
//!   take anything.
//! * Every request this worker takes is answered before the worker does anything else that
//!   could wait (see `answer_request`), and a worker that waits for a reply keeps answering
//!   requests sent to it, so two workers asking each other cannot deadlock.
//! * A worker sleeps only with its mailbox closed and nothing offerable on its chain, so no
//!   request waits on a sleeper and no work is trapped behind one.

use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;
use std::time::Duration;

use crossbeam_utils::CachePadded;

use crate::finish::{FinishFrame, FinishState};
use crate::frame::{Frame, FrameKind, StolenJobFrame};
use crate::job::{JobHeader, JobRef, Mode, FAILED_A, NOT_FAILED};
use crate::mailbox::{Mailbox, Target, REPLY_NOTHING, REPLY_PENDING};
use crate::pool::Registry;
use crate::stats::WorkerStats;

const RUNNING: u8 = 0;
/// Sleeping because there was nothing to steal: new work may wake it.
const IDLE_SLEEP: u8 = 1;
/// Sleeping while waiting for a join or a finish: only that event (or a stop) wakes it.
const WAIT_SLEEP: u8 = 2;

/// How many times a thief looks at its reply slot (spinning) before it starts yielding its
/// core between looks.
const SPIN_LOOKS: u32 = 64;
/// How many looks in all before a thief tries to withdraw a request that a victim did not
/// pick up. The yields matter: after an idle period the OS may wake the thief on the same
/// core as its victim, and a thief that only spun would keep the victim from ever running
/// its next poll.
const WITHDRAW_AFTER: u32 = SPIN_LOOKS + 32;

/// Escalating patience of a worker that keeps failing to find work: spin, then yield the
/// core, then nap for 20 µs doubling up to about 1.3 ms (while other workers are busy; an
/// idle pool sleeps without a timeout). Any success resets it.
struct Patience {
    fails: u32,
}

impl Patience {
    const SPINS: u32 = 16;
    const YIELDS: u32 = 1024;

    fn new() -> Patience {
        Patience { fails: 0 }
    }

    fn reset(&mut self) {
        self.fails = 0;
    }

    /// Records one more failure and waits a little; returns how long to nap when it is
    /// time to sleep instead.
    fn fail(&mut self) -> Option<Duration> {
        self.fails = self.fails.saturating_add(1);
        if self.fails <= Self::SPINS {
            for _ in 0..(1u32 << self.fails.min(6)) {
                std::hint::spin_loop();
            }
            None
        } else if self.fails <= Self::YIELDS {
            std::thread::yield_now();
            None
        } else {
            Some(Duration::from_micros(
                20u64 << (self.fails - Self::YIELDS - 1).min(6),
            ))
        }
    }
}

thread_local! {
    static CURRENT: Cell<*const Worker> = const { Cell::new(ptr::null()) };
}

/// The recycled blocks spawned tasks live in: one size and alignment for all, so a block
/// freed by any worker can serve any later task of the right size.
const BLOCK: std::alloc::Layout = match std::alloc::Layout::from_size_align(64, 16) {
    Ok(l) => l,
    Err(_) => panic!("bad block layout"),
};
/// How many free blocks a worker keeps; more go back to the allocator.
const BLOCK_CACHE: usize = 4096;

/// Whether a value of this size and alignment fits a block.
pub(crate) const fn fits_block(size: usize, align: usize) -> bool {
    size <= BLOCK.size() && align <= BLOCK.align()
}

/// A block for a spawned task: from `w`'s cache if it has one (owner thread only), else
/// from the allocator.
pub(crate) fn alloc_block(w: Option<&Worker>) -> *mut u8 {
    if let Some(w) = w {
        // SAFETY: only the owning thread calls with `Some(w)` (module invariant).
        if let Some(b) = unsafe { (*w.blocks.get()).pop() } {
            return b;
        }
    }
    // SAFETY: BLOCK has a non-zero size.
    let b = unsafe { std::alloc::alloc(BLOCK) };
    if b.is_null() {
        std::alloc::handle_alloc_error(BLOCK);
    }
    b
}

/// Returns a block (from `alloc_block`, contents already moved out) to `w`'s cache, or to
/// the allocator.
///
/// # Safety
/// `b` came from `alloc_block` and is not used after this.
pub(crate) unsafe fn free_block(w: Option<&Worker>, b: *mut u8) {
    if let Some(w) = w {
        // SAFETY: only the owning thread calls with `Some(w)`.
        let cache = unsafe { &mut *w.blocks.get() };
        if cache.len() < BLOCK_CACHE {
            cache.push(b);
            return;
        }
    }
    // SAFETY: per the contract; allocated with BLOCK.
    unsafe { std::alloc::dealloc(b, BLOCK) }
}

impl Drop for Worker {
    fn drop(&mut self) {
        for &b in self.blocks.get_mut().iter() {
            // SAFETY: cached blocks are free and came from the allocator with BLOCK.
            unsafe { std::alloc::dealloc(b, BLOCK) };
        }
    }
}

/// One worker of a pool. Lives in its pool's registry for as long as the registry.
pub(crate) struct Worker {
    pub(crate) index: usize,
    registry: *const Registry,
    head: Cell<*const Frame>,
    /// Join seeds on the chain that were not handed out.
    seeds: Cell<u32>,
    current_finish: Cell<*const FinishFrame>,
    rng: Cell<u64>,
    /// Free task blocks (owner only); see `alloc_block`.
    blocks: std::cell::UnsafeCell<Vec<*mut u8>>,
    pub(crate) stats: WorkerStats,
    mailbox: CachePadded<Mailbox>,
    sleep_state: AtomicU8,
    thread: OnceLock<Thread>,
}

// SAFETY: the `Cell`s are accessed only by the owning worker thread (module invariant);
// everything other threads touch is atomic or set once (`OnceLock`).
unsafe impl Sync for Worker {}
// SAFETY: the registry pointer is to the `Arc<Registry>` that owns this worker; see above.
unsafe impl Send for Worker {}

impl Worker {
    pub(crate) fn new(index: usize, registry: *const Registry) -> Worker {
        Worker {
            index,
            registry,
            head: Cell::new(ptr::null()),
            seeds: Cell::new(0),
            current_finish: Cell::new(ptr::null()),
            rng: Cell::new(
                0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
            ),
            blocks: std::cell::UnsafeCell::new(Vec::new()),
            stats: WorkerStats::default(),
            mailbox: CachePadded::new(Mailbox::new()),
            sleep_state: AtomicU8::new(RUNNING),
            thread: OnceLock::new(),
        }
    }

    /// The worker the calling thread runs, or null outside every pool.
    #[inline(always)]
    pub(crate) fn current() -> *const Worker {
        CURRENT.with(|c| c.get())
    }

    #[inline(always)]
    pub(crate) fn registry(&self) -> &Registry {
        // SAFETY: the registry owns this worker, so it is alive while `self` is.
        unsafe { &*self.registry }
    }

    // ----- the chain ------------------------------------------------------------------

    /// The youngest frame, to be stored as a new frame's `prev`.
    #[inline(always)]
    pub(crate) fn head(&self) -> *const Frame {
        self.head.get()
    }

    /// Pushes `frame`, whose `prev` must be the current head. The pointer must be derived
    /// from a reference to the *whole* concrete frame (not to its `Frame` field), so that
    /// casting it back to the concrete type keeps the provenance of every field.
    #[inline(always)]
    pub(crate) fn push(&self, frame: *const Frame) {
        // SAFETY: callers pass a live frame.
        debug_assert!(ptr::eq(unsafe { (*frame).prev }, self.head.get()));
        self.head.set(frame);
    }

    /// Pops `frame`, which must be the youngest.
    #[inline(always)]
    pub(crate) fn pop(&self, frame: *const Frame) {
        debug_assert!(ptr::eq(self.head.get(), frame), "frame chain out of order");
        // SAFETY: callers pass the live frame they pushed.
        self.head.set(unsafe { (*frame).prev });
    }

    /// Whether the chain holds enough unstolen join seeds that one more is not worth
    /// planting (see `join.rs`).
    #[inline(always)]
    pub(crate) fn seeds_full(&self) -> bool {
        self.seeds.get() >= crate::join::SEED_LIMIT
    }

    /// One more (`+1`) or one fewer (`-1`) unstolen join seed on the chain.
    #[inline(always)]
    pub(crate) fn count_seed(&self, d: i32) {
        self.seeds.set(self.seeds.get().wrapping_add_signed(d));
    }

    pub(crate) fn current_finish(&self) -> *const FinishFrame {
        self.current_finish.get()
    }

    pub(crate) fn set_current_finish(&self, f: *const FinishFrame) {
        self.current_finish.set(f);
    }

    // ----- polling --------------------------------------------------------------------

    /// A poll point: answers a pending request and honours a stop. The fast path is one
    /// relaxed load and a branch.
    #[inline(always)]
    pub(crate) fn poll(&self) {
        if self.mailbox.needs_attention() {
            self.poll_slow();
        }
    }

    #[cold]
    #[inline(never)]
    fn poll_slow(&self) {
        self.answer_request();
        // A destructor that runs while its task unwinds may use the runtime; a stop raised
        // there would be a panic during unwinding, which aborts. The stop bit stays set and
        // the next poll after the unwinding honours it.
        if !std::thread::panicking() && self.stop_requested() {
            crate::unwind::raise_stopped();
        }
    }

    /// Clears the stop bit and reports whether a region on this worker's chain is
    /// cancelled; if so the bit is raised again, so the stop cannot be lost or swallowed:
    /// every later poll stops again until the cancelled frame is unwound.
    pub(crate) fn stop_requested(&self) -> bool {
        if !self.mailbox.take_stop() {
            return false;
        }
        if self.chain_cancelled() {
            self.mailbox.raise_stop();
            true
        } else {
            false
        }
    }

    fn chain_cancelled(&self) -> bool {
        let mut f = self.head.get();
        while !f.is_null() {
            // SAFETY: frames in the chain are live (frame.rs invariant).
            unsafe {
                if ((*f).table().cancelled)(f) {
                    return true;
                }
                f = (*f).prev;
            }
        }
        false
    }

    /// Raises the stop bit of this worker and wakes it if it sleeps.
    pub(crate) fn signal_stop(&self) {
        self.mailbox.raise_stop();
        self.unpark_if_sleeping();
    }

    // ----- answering requests ---------------------------------------------------------

    /// Takes and answers the pending request, if any.
    pub(crate) fn answer_request(&self) {
        let reg = self.registry();
        let Some((thief, target)) = self
            .mailbox
            .take_request(|i| &*reg.worker(i).mailbox as *const Mailbox)
        else {
            return;
        };
        // A thread that unwinds (a destructor using the runtime) gives no work away: what it
        // runs now belongs to a region being torn down, and a stolen part could be stopped,
        // which the unwinding destructor could not honour.
        let work = if std::thread::panicking() {
            None
        } else {
            self.find_work(target, thief)
        };
        let answer = match work {
            Some(job) => {
                self.stats.answered_work.bump();
                self.stats.materialized.bump();
                job.0 as u64
            }
            None => {
                self.stats.answered_empty.bump();
                REPLY_NOTHING
            }
        };
        reg.worker(thief).mailbox.answer(answer);
    }

    /// Finds the oldest frame with work in the region `target` allows and takes work from
    /// it for `thief`.
    fn find_work(&self, target: Target, thief: usize) -> Option<JobRef> {
        let mut best: *const Frame = ptr::null();
        let mut best_ctx: *const FinishState = ptr::null();
        // While true, frames are inside the allowed region.
        let mut in_region = true;
        let mut found_boundary = matches!(target, Target::Any);
        let mut f = self.head.get();
        while !f.is_null() {
            // SAFETY: frames in the chain are live and only this worker touches them.
            unsafe {
                let vt = (*f).table();
                let mut boundary_here = false;
                match (target, vt.kind) {
                    (Target::Job(j), FrameKind::StolenJob)
                        if in_region && (*(f as *const StolenJobFrame)).job as usize == j =>
                    {
                        in_region = false;
                        found_boundary = true;
                    }
                    (Target::Finish(s), FrameKind::Finish)
                        if in_region && (*(f as *const FinishFrame)).state as usize == s =>
                    {
                        boundary_here = true;
                        found_boundary = true;
                    }
                    _ => {}
                }
                if in_region && (vt.has_work)(f) {
                    best = f;
                    best_ctx = ptr::null();
                }
                if boundary_here {
                    in_region = false;
                }
                if vt.kind == FrameKind::Finish && !best.is_null() && best_ctx.is_null() {
                    best_ctx = (*(f as *const FinishFrame)).state;
                }
                f = (*f).prev;
            }
        }
        if best.is_null() || !found_boundary {
            return None;
        }
        debug_assert!(!best_ctx.is_null(), "work outside every finish");
        // SAFETY: `best` is a live frame of this worker.
        if unsafe { (*best).table().kind } == FrameKind::Handler {
            // The oldest candidate is a spawn-request handler, which may decline: the search
            // module asks it and, failing that, the younger frames in order (004 Fig. 6).
            // SAFETY: `best` is a live handler frame of this worker, in the allowed region,
            // and every frame between it and the head is too.
            return unsafe { crate::search::answer(self, thief, best, best_ctx) };
        }
        // SAFETY: `best` is a live frame of this worker whose table said it has work.
        Some(unsafe { ((*best).table().offer)(best, self, thief, best_ctx) })
    }

    /// Whether some frame on the chain could give work to a thief.
    fn has_offerable_work(&self) -> bool {
        let mut f = self.head.get();
        while !f.is_null() {
            // SAFETY: frames in the chain are live.
            unsafe {
                if ((*f).table().has_work)(f) {
                    return true;
                }
                f = (*f).prev;
            }
        }
        false
    }

    // ----- stealing -------------------------------------------------------------------

    fn next_random(&self) -> u64 {
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.set(x);
        x
    }

    /// A random worker other than this one, or `None` in a one-worker pool.
    pub(crate) fn random_victim(&self) -> Option<usize> {
        let n = self.registry().num_workers();
        if n < 2 {
            return None;
        }
        let r = (self.next_random() % (n as u64 - 1)) as usize;
        Some(if r >= self.index { r + 1 } else { r })
    }

    /// Sends one request to `victim` and waits for its answer, answering requests sent to
    /// this worker meanwhile. Withdraws the request if the victim does not pick it up soon.
    pub(crate) fn steal_from(&self, victim: usize, target: Target) -> Option<JobRef> {
        let reg = self.registry();
        let v = reg.worker(victim);
        if !self.mailbox.send_request(self.index, &v.mailbox, target) {
            return None;
        }
        self.stats.requests_sent.bump();
        let mut looks = 0u32;
        let mut may_withdraw = true;
        loop {
            match self.mailbox.reply() {
                REPLY_PENDING => {}
                REPLY_NOTHING => return None,
                p => return Some(JobRef(p as usize as *const JobHeader)),
            }
            if self.mailbox.has_request() {
                self.answer_request();
            }
            looks += 1;
            if may_withdraw && looks >= WITHDRAW_AFTER {
                if Mailbox::try_withdraw(self.index, &v.mailbox) {
                    self.stats.withdrawn.bump();
                    return None;
                }
                may_withdraw = false; // taken: the answer is on its way
            }
            if looks < SPIN_LOOKS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Runs a job received from a thief's reply (or popped from the injector).
    ///
    /// The job may belong to a region that was cancelled while this worker was idle and
    /// cleared its stop bit; raising the bit makes the job's first poll scan the new frames,
    /// so such a job stops at once instead of running unstopped.
    ///
    /// The job starts with a seed count of its own: seeds held below it (this worker may be
    /// waiting at a join) must not stop it from planting the seeds that a worker waiting for
    /// *it* can take back.
    pub(crate) fn run_stolen(&self, job: JobRef) {
        self.mailbox.raise_stop();
        let held = self.seeds.replace(0);
        // SAFETY: the job came through a reply to this worker's request, so this worker
        // owns it (mailbox invariant 3) and it is live until it signals completion.
        unsafe { job.execute(self, Mode::Stolen) };
        debug_assert_eq!(self.seeds.get(), 0, "a finished job left seeds counted");
        self.seeds.set(held);
    }

    // ----- waiting --------------------------------------------------------------------

    /// Waits at a join until the thief of `job` has finished it, taking work back from that
    /// thief only (leapfrogging). A stop that reaches this worker meanwhile is passed on to
    /// the thief (the join's `a` side counts as failed) and honoured by the caller after the
    /// wait.
    pub(crate) fn wait_for_job(&self, job: &JobHeader) {
        let thief = job.thief.get();
        let mut patience = Patience::new();
        loop {
            if job.done.load(Ordering::Acquire) {
                return;
            }
            if self.mailbox.needs_attention() {
                self.answer_request();
                if self.stop_requested()
                    && job
                        .failed
                        .compare_exchange(NOT_FAILED, FAILED_A, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                {
                    self.registry().worker(thief).signal_stop();
                }
            }
            if let Some(back) =
                self.steal_from(thief, Target::Job(job as *const JobHeader as usize))
            {
                self.stats.steal_backs.bump();
                self.run_stolen(back);
                patience.reset();
                continue;
            }
            if let Some(d) = patience.fail() {
                self.nap(|| job.done.load(Ordering::SeqCst), d);
            }
        }
    }

    /// Waits until every task of the finish `state` is done. Runs tasks that other workers
    /// put in the finish's inbox and tasks taken from workers that hold work of this finish.
    /// A stop that reaches this worker meanwhile cancels the finish; the caller honours it.
    pub(crate) fn wait_finish(&self, state: &FinishState, frame: &FinishFrame) {
        let mut patience = Patience::new();
        loop {
            if state.outstanding() == 0 {
                return;
            }
            if frame.has_local_work() {
                frame.drain(self);
                patience.reset();
                continue;
            }
            if self.mailbox.needs_attention() {
                self.answer_request();
                if self.stop_requested() {
                    state.cancel();
                }
            }
            if let Some(v) = self.random_victim() {
                if let Some(job) =
                    self.steal_from(v, Target::Finish(state as *const FinishState as usize))
                {
                    self.stats.steal_backs.bump();
                    self.run_stolen(job);
                    patience.reset();
                    continue;
                }
            }
            if let Some(d) = patience.fail() {
                self.nap(|| state.outstanding() == 0 || state.inbox_len() > 0, d);
            }
        }
    }

    /// Sleeps until `ready()` may have become true, or `nap` passed, unless this worker
    /// still has work to offer (then it only yields, so thieves can take that work).
    pub(crate) fn nap(&self, ready: impl Fn() -> bool, nap: Duration) {
        if self.has_offerable_work() {
            std::thread::yield_now();
            return;
        }
        self.close_mailbox();
        self.sleep_state.store(WAIT_SLEEP, Ordering::SeqCst);
        if !ready() {
            std::thread::park_timeout(nap);
        }
        self.sleep_state.store(RUNNING, Ordering::SeqCst);
        self.mailbox.open();
    }

    /// Closes the mailbox, answering requests that race with the close.
    fn close_mailbox(&self) {
        while !self.mailbox.close() {
            self.answer_request();
        }
    }

    /// Wakes this worker if it sleeps (for any reason).
    pub(crate) fn unpark_if_sleeping(&self) {
        if self.sleep_state.load(Ordering::SeqCst) != RUNNING {
            if let Some(t) = self.thread.get() {
                t.unpark();
            }
        }
    }

    /// Wakes this worker if it sleeps for lack of work. Returns whether it did.
    pub(crate) fn wake_if_idle(&self) -> bool {
        if self
            .sleep_state
            .compare_exchange(IDLE_SLEEP, RUNNING, Ordering::SeqCst, Ordering::Relaxed)
            .is_ok()
        {
            if let Some(t) = self.thread.get() {
                t.unpark();
            }
            true
        } else {
            false
        }
    }

    // ----- the worker thread ----------------------------------------------------------

    /// The body of a worker thread: take injected work, else steal, else sleep.
    pub(crate) fn main_loop(&self) {
        let _ = self.thread.set(std::thread::current());
        CURRENT.with(|c| c.set(self));
        let reg = self.registry();
        let mut patience = Patience::new();
        loop {
            if let Some(job) = reg.pop_injected() {
                // An injected job is owned by whoever pops it from the injector.
                reg.busy(|| self.run_stolen(job));
                patience.reset();
                continue;
            }
            if reg.is_terminating() {
                break;
            }
            if self.mailbox.needs_attention() {
                self.answer_request();
                // Nothing runs here, so no region can be cancelled: clear a stray stop.
                let _ = self.stop_requested();
            }
            if let Some(v) = self.random_victim() {
                if let Some(job) = self.steal_from(v, Target::Any) {
                    reg.busy(|| self.run_stolen(job));
                    patience.reset();
                    continue;
                }
            }
            if let Some(d) = patience.fail() {
                self.idle_sleep(d);
            }
        }
        CURRENT.with(|c| c.set(ptr::null()));
    }

    /// Sleeps for lack of work: without a timeout when the whole pool is idle, else for a
    /// short nap (a busy worker may plant seeds at any time without telling anyone).
    fn idle_sleep(&self, nap: Duration) {
        let reg = self.registry();
        self.close_mailbox();
        self.sleep_state.store(IDLE_SLEEP, Ordering::SeqCst);
        reg.sleepers_add(1);
        if !reg.has_injected() && !reg.is_terminating() && !self.mailbox.has_request() {
            if reg.busy_workers() == 0 {
                std::thread::park();
            } else {
                std::thread::park_timeout(nap);
            }
        }
        reg.sleepers_add(-1);
        self.sleep_state.store(RUNNING, Ordering::SeqCst);
        self.mailbox.open();
    }
}
