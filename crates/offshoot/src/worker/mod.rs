//! A worker: its frame chain, its polls and its stops, and the worker thread's scheduler
//! loop. The rest of a worker lives beside this file, one concept each: the task-block
//! allocator (`blocks.rs`), its queue of detached jobs started on it (`local_jobs.rs`),
//! answering and stealing (`steal.rs`), package requests from
//! outside the pool (`export.rs`), waiting at a join or a
//! finish (`wait.rs`), sleeping and backoff (`sleep.rs`); the fibers it runs tasks on and
//! parking are `fiber/`.
//!
//! Invariants:
//! * The `Cell` fields (`current_finish`, `rng`, the block cache, the local jobs) are touched only
//!   by the thread that runs this worker, and so is the worker's count of unstolen join seeds, which lives in
//!   that thread's `LOCAL` (so that `join` can test it before it loads the worker); other
//!   threads only use `mailbox`, `sleep_state`, `thread` and the statistics counters
//!   (which the owner alone writes, with plain relaxed stores), and the limit word in
//!   `LOCAL`, which they only raise, through the mailbox, while it is attached
//!   (`limit_word.rs`; `thread_main` attaches it and detaches it before the thread ends).
//! * The limit word is at [`SEED_LIMIT`] only while the count carries no mark and nothing
//!   raised it since the owner re-armed it (`rearm_limit`) and read its mailbox: every
//!   change of the count other than one seed more or less raises it.
//! * Free task blocks: see `blocks.rs`.
//! * A worker never runs unrelated work on top of a waiting frame: while it waits at a join
//!   it runs only jobs taken back from the thief of that join (`Target::Job`), while it waits
//!   at a finish only work of that finish (`Target::Finish`). Idle workers (empty chain)
//!   take anything.
//! * Every request this worker takes is answered before the worker does anything else that
//!   could wait (see `answer_request`), and a worker that waits for a reply keeps answering
//!   requests sent to it, so two workers asking each other cannot deadlock.
//! * A worker sleeps only with its mailbox closed and nothing offerable on its chain, so no
//!   request waits on a sleeper and no work is trapped behind one.
//! * A worker counts as idle for the deadlock watch (`deadlock.rs`) only inside
//!   `idle_sleep`, after a full pass of its scheduler found nothing to run, with no fiber
//!   on its own ready list, no parked chain that gained work since it was pruned, and its
//!   token-parked fibers published (`fiber/remote.rs`); it counts itself awake again before it
//!   looks at any news.

use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;

use crossbeam_utils::CachePadded;

use crate::fiber::Saved;
use crate::finish::FinishFrame;
use crate::frame::{Frame, FrameKind};
use crate::mailbox::Mailbox;
use crate::pool::Registry;
use crate::stats::WorkerStats;

/// How many unstolen join seeds a worker keeps on its chain at most. A `join` that finds
/// this many plants none and runs `a` and `b` as plain calls: requests take the *oldest*
/// seed, so the older seeds always go first, and a worker that has this many never runs out
/// of work to give before it plants again (every join it reaches after a steal or a pop
/// plants). `docs/DESIGN-NOTES.md` says how the value was chosen and how to re-measure it.
pub(crate) const SEED_LIMIT: u32 = 4;

/// The seed count an `isolated` section sets on its thread: far above [`SEED_LIMIT`], with
/// the thread's limit word raised, so every `join` takes `join_raised`, which checks for it
/// first.
pub(crate) const ISOLATED: u32 = 1 << 30;

/// The base of the seed count on the workers of a pool that measures work and span
/// (`metrics/`): far above [`SEED_LIMIT`], and a marked count keeps the limit word raised,
/// so that every `join` takes `join_raised`, where the one test that finds an `isolated`
/// section's mark finds this one too and takes the measuring path. The count proper is the thread-local value minus the worker's base
/// (`seed_count`, `set_seed_count`), so every other use of it is unchanged.
pub(crate) const METERED: u32 = 1 << 29;

/// Whether a chain holding `seeds` unstolen seeds is at the seed limit, where a `join`
/// plants none (the marks [`METERED`] and [`ISOLATED`] are not counts).
pub(crate) fn at_seed_limit(seeds: u32) -> bool {
    (SEED_LIMIT..METERED).contains(&seeds)
}

/// The error of a parallel construct inside an `isolated` section.
#[cold]
#[inline(never)]
fn nested_in_isolated(what: &str) -> ! {
    panic!(
        "offshoot: {what} inside an isolated section; an isolated section runs serially — \
         start the parallel work outside it, and keep only the shared update inside"
    )
}

/// In a pool of more than two workers, the scheduler loop moves its request to another
/// victim after this many passes without an answer (each waits `await_reply`'s while).
const RETARGET_AFTER: u32 = 2;

mod blocks;
mod export;
mod local_jobs;
mod schedule;
mod sleep;
mod steal;
pub(crate) mod task_id;
pub(crate) mod trace_log;
mod wait;

pub(crate) use blocks::{alloc_block, fits_block, free_block, BlockCache, SpareBlocks};
pub(crate) use export::PackageCell;
use sleep::RUNNING;

/// Where a stop scan found the youngest cancelled frame (`Worker::stop_requested`).
enum ChainStop {
    /// In a region the running code belongs to: it must stop.
    Here,
    /// Only below the running code's stop boundary: the code beneath must stop once the
    /// boundary has left the chain.
    Below,
    /// Nowhere.
    None,
}

/// Whether `f` is a stop boundary: code above it belongs to a finish whose cancellation
/// reaches it through that frame, not to the regions of the frames below (frame.rs).
///
/// # Safety
/// `f` is a live frame of the calling worker's chain.
unsafe fn is_stop_boundary(f: *const Frame) -> bool {
    // SAFETY: per the contract; the Finish table is installed only on `FinishFrame`s.
    unsafe { (*f).table().kind == FrameKind::Finish && (*(f as *const FinishFrame)).bounds_stops() }
}

/// What a thread knows about the worker it runs. One thread-local, so that `join` reaches
/// both fields from one address.
struct Local {
    /// The worker this thread runs, or null.
    worker: Cell<*const Worker>,
    /// Join seeds on the running chain of that worker that were not handed out
    /// (`Worker::count_seed`); 0 on every thread that runs no worker, so a count of at least
    /// one means `worker` is set. Here rather than in the `Worker` so that `join`'s
    /// commonest path (enough seeds planted: plant none) is a compare of two words of this
    /// thread-local, before it needs the worker's address.
    seeds: Cell<u32>,
    /// The number `join` compares `seeds` with (`limit_word.rs`): [`SEED_LIMIT`] while the
    /// worker's mailbox holds nothing for it and the count carries no mark, else
    /// [`RAISED`](crate::limit_word::RAISED). Other threads raise it through the worker's
    /// mailbox, which links to it while this thread runs the worker.
    limit: crate::atomics::AtomicU32,
    /// The youngest frame of the chain that this thread's worker runs (null when it runs
    /// none, and on every thread that runs no worker). Here rather than in the `Worker` so
    /// that linking and unlinking a frame (`Worker::push`, `Worker::pop`) reach it from this
    /// thread-local, as `join` does its count: after its first side, a join that planted a
    /// seed needs no load of the worker's address.
    head: Cell<*const Frame>,
}

impl Local {
    crate::atomics::const_unless_loom! {
        fn new() -> Local {
            Local {
                worker: Cell::new(ptr::null()),
                seeds: Cell::new(0),
                limit: crate::atomics::AtomicU32::new(crate::limit_word::RAISED),
                head: Cell::new(ptr::null()),
            }
        }
    }

    /// Sets the seed count to `n` and returns the old one. Every change of the count other
    /// than one seed more or less (`Worker::count_seed`) comes here, and raises this
    /// thread's limit word (owner), so the next `join` takes the path that polls and
    /// computes the limit for the count it finds (`join_raised`).
    #[inline(always)]
    fn replace_seeds(&self, n: u32) -> u32 {
        crate::limit_word::LimitWord::raise(&self.limit);
        self.seeds.replace(n)
    }
}

#[cfg(not(loom))]
thread_local! {
    static LOCAL: Local = const { Local::new() };
}
// A loom build runs only the loom tests, which never touch this (and whose atomics cannot
// be made in a `const`).
#[cfg(loom)]
thread_local! {
    static LOCAL: Local = Local::new();
}

/// One worker of a pool. Lives in its pool's registry for as long as the registry.
pub(crate) struct Worker {
    pub(crate) index: usize,
    registry: *const Registry,
    /// A stop scan found a cancelled frame below the running code's stop boundary: raise
    /// the stop bit again when that boundary leaves (see `stop_requested`). Shared by the
    /// worker's fibers: a fiber that resumes rescans anyway, and a stray raise only costs
    /// one scan.
    stop_below: Cell<bool>,
    /// Set while this worker looks for work on the chains of its parked fibers (see
    /// [`Worker::scanning_parked`]).
    scanning_parked: Cell<bool>,
    /// A join seed was handed out from the running chain while it held [`SEED_LIMIT`]
    /// unstolen seeds: joins entered then planted none, and one of them may still be open
    /// (a hint for the deadlock report; saved with the chain).
    pub(super) held_limit: Cell<bool>,
    current_finish: Cell<*const FinishFrame>,
    rng: Cell<u64>,
    /// Free task blocks (owner only); see `alloc_block`.
    blocks: std::cell::UnsafeCell<BlockCache>,
    /// Detached jobs started on this worker (owner only); see `local_jobs.rs`.
    local_jobs: local_jobs::LocalJobs,
    pub(crate) stats: WorkerStats,
    mailbox: CachePadded<Mailbox>,
    sleep_state: AtomicU8,
    /// How many jobs this worker's fibers run (inside `Registry::busy`; a parked job counts
    /// until it returns): a hint for thieves choosing a victim (`random_victim`). Written
    /// by this worker only.
    jobs: AtomicU32,
    /// Package requests from outside the pool waiting for this worker (`export.rs`).
    exports: export::ExportQueue,
    thread: OnceLock<Thread>,
    /// The kernel's identity of that thread (0: unknown), for the blocked-worker report
    /// (`deadlock/blocked.rs`); set once, when the thread starts the worker.
    os_thread: AtomicU32,
    /// The identity of the task this worker runs now (see `task_id`), and how many
    /// identities it handed out.
    task: Cell<u64>,
    task_seq: Cell<u64>,
    /// The fibers this worker runs tasks on (`fiber/`).
    fibers: crate::fiber::FiberState,
    /// 0, or [`METERED`] on the workers of a pool that measures work and span.
    seed_base: u32,
    /// The work/span clock of the running strand (`metrics/strand.rs`).
    meter: crate::metrics::strand::Strand,
}

// SAFETY: the `Cell`s are accessed only by the owning worker thread (module invariant);
// everything other threads touch is atomic or set once (`OnceLock`).
unsafe impl Sync for Worker {}
// SAFETY: the registry pointer is to the `Arc<Registry>` that owns this worker; see above.
unsafe impl Send for Worker {}

impl Worker {
    pub(crate) fn new(
        index: usize,
        registry: *const Registry,
        metrics: Option<crate::metrics::Mode>,
    ) -> Worker {
        Worker {
            index,
            registry,
            stop_below: Cell::new(false),
            scanning_parked: Cell::new(false),
            held_limit: Cell::new(false),
            current_finish: Cell::new(ptr::null()),
            rng: Cell::new(
                0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
            ),
            blocks: std::cell::UnsafeCell::new(BlockCache::new()),
            local_jobs: local_jobs::LocalJobs::new(),
            stats: WorkerStats::default(),
            mailbox: CachePadded::new(Mailbox::new()),
            sleep_state: AtomicU8::new(RUNNING),
            jobs: AtomicU32::new(0),
            exports: export::ExportQueue::default(),
            thread: OnceLock::new(),
            os_thread: AtomicU32::new(0),
            task: Cell::new(0),
            task_seq: Cell::new(0),
            fibers: crate::fiber::FiberState::new(),
            seed_base: if metrics.is_some() { METERED } else { 0 },
            meter: crate::metrics::strand::Strand::new(metrics),
        }
    }

    /// The work/span clock of the strand this worker runs (`metrics/strand.rs`).
    #[inline(always)]
    pub(crate) fn meter(&self) -> &crate::metrics::strand::Strand {
        &self.meter
    }

    /// The worker the calling thread runs, or null outside every pool.
    #[inline(always)]
    pub(crate) fn current() -> *const Worker {
        LOCAL.with(|l| l.worker.get())
    }

    #[inline(always)]
    pub(crate) fn registry(&self) -> &Registry {
        // SAFETY: the registry owns this worker, so it is alive while `self` is.
        unsafe { &*self.registry }
    }

    /// Whether the frame tables called now are asked about a *parked* fiber's chain: its
    /// code waits in the middle of its work, so a loop frame there may hand out all of its
    /// remaining range — not only half, and not only two iterations or more — since its
    /// own piece runs none of it until it resumes (which may wait for those very
    /// iterations: a loop whose bodies wait on each other).
    pub(crate) fn scanning_parked(&self) -> bool {
        self.scanning_parked.get()
    }

    /// Runs `f` with [`Worker::scanning_parked`] set.
    pub(crate) fn on_parked_chains<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Reset<'a>(&'a Cell<bool>, bool);
        impl Drop for Reset<'_> {
            fn drop(&mut self) {
                self.0.set(self.1);
            }
        }
        let _reset = Reset(&self.scanning_parked, self.scanning_parked.replace(true));
        f()
    }

    /// The fibers this worker runs tasks on (`fiber/`).
    pub(crate) fn fibers(&self) -> &crate::fiber::FiberState {
        &self.fibers
    }

    pub(crate) fn remote(&self) -> &crate::fiber::Remote {
        self.fibers.remote()
    }

    pub(crate) fn mailbox_raise_stop(&self) {
        self.mailbox.raise_stop();
    }

    // ----- the chain ------------------------------------------------------------------

    /// Installs the chain state of the fiber about to run (driver only).
    pub(crate) fn restore_chain(&self, s: Saved) {
        self.with_head(|h| h.set(s.head));
        self.set_seed_count(s.seeds);
        self.held_limit.set(s.held_limit);
        self.current_finish.set(s.finish);
        self.task.set(s.task);
    }

    /// Takes the chain state of the fiber that just suspended, leaving an empty chain
    /// (driver only).
    pub(crate) fn take_chain(&self) -> Saved {
        Saved {
            head: self.with_head(|h| h.replace(ptr::null())),
            seeds: self.replace_seed_count(0),
            held_limit: self.held_limit.replace(false),
            finish: self.current_finish.replace(ptr::null()),
            task: self.task.replace(0),
        }
    }

    /// The identity of the task running now.
    #[inline]
    pub(crate) fn task_id(&self) -> u64 {
        self.task.get()
    }

    /// Runs `f` as a new task: with a fresh identity, unique in the process. Identities
    /// come from a per-worker block of 2^20 taken from one global counter, so giving one
    /// out is a local increment.
    #[inline]
    pub(crate) fn as_new_task<R>(&self, f: impl FnOnce() -> R) -> R {
        static NEXT_BLOCK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        const BLOCK_IDS: u64 = 1 << 20;
        let mut id = self.task_seq.get();
        if id.is_multiple_of(BLOCK_IDS) {
            id = NEXT_BLOCK.fetch_add(1, Ordering::Relaxed) * BLOCK_IDS + 1;
        }
        self.task_seq.set(id + 1);
        let prev = self.task.replace(id);
        let r = f();
        self.task.set(prev);
        r
    }

    /// Runs `f` on the cell of the chain's head: in the thread-local (`Local::head`), as this
    /// worker is run only by the calling thread.
    #[inline(always)]
    fn with_head<R>(&self, f: impl FnOnce(&Cell<*const Frame>) -> R) -> R {
        debug_assert!(
            ptr::eq(self, Worker::current()),
            "chain touched off its worker"
        );
        LOCAL.with(|l| f(&l.head))
    }

    /// The youngest frame, to be stored as a new frame's `prev`.
    #[inline(always)]
    pub(crate) fn head(&self) -> *const Frame {
        self.with_head(|h| h.get())
    }

    /// Pushes `frame`, whose `prev` must be the current head. The pointer must be derived
    /// from a reference to the *whole* concrete frame (not to its `Frame` field), so that
    /// casting it back to the concrete type keeps the provenance of every field.
    #[inline(always)]
    pub(crate) fn push(&self, frame: *const Frame) {
        // SAFETY: callers pass a live frame.
        debug_assert!(ptr::eq(unsafe { (*frame).prev }, self.head()));
        self.with_head(|h| h.set(frame));
    }

    /// Pops `frame`, which must be the youngest.
    #[inline(always)]
    pub(crate) fn pop(&self, frame: *const Frame) {
        debug_assert!(ptr::eq(self.head(), frame), "frame chain out of order");
        // SAFETY: callers pass the live frame they pushed.
        self.with_head(|h| h.set(unsafe { (*frame).prev }));
    }

    /// `join`'s first test: whether it may run its two sides as plain calls right away
    /// (no seed, no poll). True when the chain that the calling thread's worker runs holds
    /// [`SEED_LIMIT`] unstolen seeds or more (one more is not worth planting; see
    /// `join.rs`), its count carries no mark, and nothing was sent to the worker since it
    /// last polled: the count has reached the thread's limit word (`limit_word.rs`), which
    /// is [`SEED_LIMIT`] only then. Never true on a thread that runs no worker.
    #[inline(always)]
    pub(crate) fn plants_none() -> bool {
        LOCAL.with(|l| l.seeds.get() >= l.limit.load(Ordering::Relaxed))
    }

    /// Whether the chain holds [`SEED_LIMIT`] unstolen seeds or more, or its count carries a
    /// mark ([`Worker::marked`]): `join`'s second test, once [`Worker::plants_none`] was
    /// false. Never true on a thread that runs no worker, except inside an `isolated`
    /// section; otherwise, when true, [`Worker::current`] is not null.
    #[inline(always)]
    pub(crate) fn seeds_full() -> bool {
        LOCAL.with(|l| l.seeds.get()) >= SEED_LIMIT
    }

    /// Lowers the thread's limit word to [`SEED_LIMIT`] (it was raised: a request, a stop,
    /// or a change of the count), before a poll that reads the mailbox (`limit_word.rs`,
    /// invariant 2). Only on the thread that runs this worker, with an unmarked count.
    #[inline]
    pub(crate) fn rearm_limit(&self) {
        debug_assert!(
            ptr::eq(self, Worker::current()),
            "limit re-armed off its worker"
        );
        LOCAL.with(|l| {
            debug_assert!(l.seeds.get() < METERED, "limit re-armed under a mark");
            crate::limit_word::rearm(&l.limit, SEED_LIMIT);
        });
    }

    /// Whether the thread's seed count carries a mark ([`METERED`] or [`ISOLATED`]): `join`
    /// tests this first in `join_raised` (where a count at or above [`SEED_LIMIT`] and a
    /// raised limit word sent it).
    #[inline(always)]
    pub(crate) fn marked() -> bool {
        LOCAL.with(|l| l.seeds.get()) >= METERED
    }

    /// Panics, naming `what`, if the calling code runs inside an `isolated` section (which
    /// marks itself by setting the thread's seed count to [`ISOLATED`]).
    #[inline(always)]
    pub(crate) fn check_not_isolated(what: &str) {
        if LOCAL.with(|l| l.seeds.get()) >= ISOLATED {
            nested_in_isolated(what);
        }
    }

    /// Marks the calling thread's running code as inside an `isolated` section; returns
    /// what [`Worker::leave_isolated`] restores. Fibers carry the mark with their chain
    /// (`take_chain` / `restore_chain`), and a stolen job run meanwhile starts with a count
    /// of its own (`run_stolen`), so only the section's own code sees it.
    pub(crate) fn enter_isolated() -> u32 {
        LOCAL.with(|l| l.replace_seeds(ISOLATED))
    }

    /// Ends the mark of [`Worker::enter_isolated`].
    pub(crate) fn leave_isolated(saved: u32) {
        LOCAL.with(|l| l.replace_seeds(saved));
    }

    /// Whether the calling code runs inside an `isolated` section.
    pub(crate) fn in_isolated() -> bool {
        LOCAL.with(|l| l.seeds.get()) >= ISOLATED
    }

    /// One more (`+1`) or one fewer (`-1`) unstolen join seed on the chain. Only on the
    /// thread that runs this worker.
    #[inline(always)]
    pub(crate) fn count_seed(&self, d: i32) {
        debug_assert!(
            ptr::eq(self, Worker::current()),
            "seed counted off its worker"
        );
        LOCAL.with(|l| l.seeds.set(l.seeds.get().wrapping_add_signed(d)));
    }

    /// Notes that a seed of the running chain is about to be handed out (before it is
    /// uncounted): if the chain holds [`SEED_LIMIT`] seeds, joins entered meanwhile planted
    /// none (see `held_limit`). Cold: only on a hand-out.
    pub(crate) fn note_hand_out(&self) {
        if at_seed_limit(self.seed_count()) {
            self.held_limit.set(true);
        }
    }

    /// The seed count of the running chain (owner thread only).
    pub(crate) fn seed_count(&self) -> u32 {
        debug_assert!(
            ptr::eq(self, Worker::current()),
            "seed count read off its worker"
        );
        LOCAL.with(|l| l.seeds.get()).wrapping_sub(self.seed_base)
    }

    fn set_seed_count(&self, n: u32) {
        debug_assert!(
            ptr::eq(self, Worker::current()),
            "seed count set off its worker"
        );
        LOCAL.with(|l| l.replace_seeds(n.wrapping_add(self.seed_base)));
    }

    pub(super) fn replace_seed_count(&self, n: u32) -> u32 {
        debug_assert!(
            ptr::eq(self, Worker::current()),
            "seed count set off its worker"
        );
        LOCAL
            .with(|l| l.replace_seeds(n.wrapping_add(self.seed_base)))
            .wrapping_sub(self.seed_base)
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

    /// Clears the stop bit and reports whether a region that the running code belongs to is
    /// cancelled (see [`Worker::chain_cancelled`]); if so the bit is raised again, so the
    /// stop cannot be lost or swallowed: every later poll stops again until the cancelled
    /// frame is unwound. A cancelled region *below* the running job's boundary is not the
    /// job's to honour; it is remembered and the bit raised again when the boundary leaves
    /// the chain (`stop_boundary_left`), so the code below sees it then.
    pub(crate) fn stop_requested(&self) -> bool {
        if !self.mailbox.take_stop() {
            return false;
        }
        self.wake_cancelled_parked();
        match self.chain_stop(self.head()) {
            ChainStop::Here => {
                self.mailbox.raise_stop();
                true
            }
            ChainStop::Below => {
                self.stop_below.set(true);
                false
            }
            ChainStop::None => false,
        }
    }

    /// Whether a region that the code at `head` (a live chain of this worker) belongs to is
    /// cancelled: a frame from `head` down to the nearest stop boundary, that boundary
    /// included (see `frame.rs`).
    pub(crate) fn chain_cancelled(&self, head: *const Frame) -> bool {
        let mut f = head;
        while !f.is_null() {
            // SAFETY: frames in the chain are live (frame.rs invariant).
            unsafe {
                if ((*f).table().cancelled)(f) {
                    return true;
                }
                if is_stop_boundary(f) {
                    return false;
                }
                f = (*f).prev;
            }
        }
        false
    }

    /// Where the youngest cancelled frame of the chain from `head` is: within the running
    /// code's regions (down to and including the nearest stop boundary), below that
    /// boundary, or nowhere.
    fn chain_stop(&self, head: *const Frame) -> ChainStop {
        let mut f = head;
        let mut past_boundary = false;
        while !f.is_null() {
            // SAFETY: frames in the chain are live (frame.rs invariant).
            unsafe {
                if ((*f).table().cancelled)(f) {
                    return if past_boundary {
                        ChainStop::Below
                    } else {
                        ChainStop::Here
                    };
                }
                past_boundary = past_boundary || is_stop_boundary(f);
                f = (*f).prev;
            }
        }
        ChainStop::None
    }

    /// A stop boundary leaves the chain: a stop that was held back for the frames below it
    /// is raised again for them.
    pub(crate) fn stop_boundary_left(&self) {
        if self.stop_below.replace(false) {
            self.mailbox.raise_stop();
        }
    }

    /// Raises the stop bit of this worker for a region that was cancelled (counted, so that
    /// its parked fibers are scanned once for it: `wake_cancelled_parked`) and wakes it if
    /// it sleeps.
    pub(crate) fn signal_stop(&self) {
        self.remote().count_stop();
        self.mailbox.raise_stop();
        self.unpark_if_sleeping();
    }

    /// Whether a stop is raised on this worker and not yet taken.
    pub(crate) fn stop_raised(&self) -> bool {
        self.mailbox.stop_raised()
    }

    /// Whether a thief's request waits in this worker's mailbox (any thread; a hint).
    pub(crate) fn asked(&self) -> bool {
        self.mailbox.has_request()
    }

    /// How many requests this worker has answered (any thread; its own counters, bumped
    /// only on the request slow path).
    pub(crate) fn answered(&self) -> u64 {
        self.stats.answered_work.get() + self.stats.answered_empty.get()
    }

    /// Records the calling thread's kernel identity as this worker's (its thread, once).
    pub(super) fn set_os_thread(&self) {
        // Relaxed: a hint for the blocked-worker report, which reads 0 as "unknown".
        self.os_thread
            .store(crate::deadlock::current_os_thread(), Ordering::Relaxed);
    }

    /// The kernel's identity of this worker's thread, 0 if unknown.
    pub(crate) fn os_thread(&self) -> u32 {
        // Relaxed: see `set_os_thread`.
        self.os_thread.load(Ordering::Relaxed)
    }

    /// Whether this worker sleeps with a job in the reply to its posted request (see
    /// `Mailbox::holds_answered_job`).
    pub(crate) fn holds_answered_job(&self) -> bool {
        self.mailbox.holds_answered_job()
    }

    /// The name of this worker's thread, for reports.
    pub(crate) fn thread_name(&self) -> String {
        match self.thread.get().and_then(|t| t.name()) {
            Some(n) => n.to_string(),
            None => format!("worker {}", self.index),
        }
    }
}
