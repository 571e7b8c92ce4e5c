//! A worker: its frame chain, its polls, how it answers requests, how it steals, waits and
//! sleeps.
//!
//! Invariants:
//! * The `Cell` fields (`head`, `current_finish`, `rng`, the block cache) are touched only by the thread that
//!   runs this worker, and so is the worker's count of unstolen join seeds, which lives in
//!   that thread's `LOCAL` (so that `join` can test it before it loads the worker); other
//!   threads only use `mailbox`, `sleep_state`, `thread` and the statistics counters
//!   (which the owner alone writes, with plain relaxed stores).
//! * Free task blocks live in the owner's free list, or in the pool's spare batches (under
//!   a lock, moved a batch at a time); a block is in at most one place, and in none while a
//!   task lives in it.
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
//!   token-parked fibers published (`fiber.rs`); it counts itself awake again before it
//!   looks at any news.

use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;
use std::time::Duration;

use crossbeam_utils::CachePadded;

use crate::fiber::Saved;
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

/// Escalating patience of a worker that keeps failing to find work: spin, then yield the
/// core, then nap for 20 µs doubling up to about 1.3 ms (while other workers are busy; an
/// idle pool sleeps without a timeout). Any success resets it.
struct Patience {
    fails: u32,
}

impl Patience {
    const SPINS: u32 = 16;
    const YIELDS: u32 = 1024;
    /// Looks at its news an idle worker takes before each yield (a few microseconds).
    const WATCH_SPINS: u32 = 128;

    fn new() -> Patience {
        Patience { fails: 0 }
    }

    fn reset(&mut self) {
        self.fails = 0;
    }

    /// Still in the first, spinning phase (a waiter parks only after it).
    fn spinning(&self) -> bool {
        self.fails < Self::SPINS
    }

    /// Records one more failure and waits a little; returns how long to nap when it is
    /// time to sleep instead.
    fn fail(&mut self) -> Option<Duration> {
        self.fail_watching(|| false)
    }

    /// Like `fail`, for an idle worker: before each yield of its core it spins a while
    /// watching `news` (a fiber woken for it, a request, injected work) and goes back to
    /// its loop as soon as there is some. A wake from another worker is then picked up
    /// within a cache-line transfer rather than after a system call or a time slice.
    fn fail_watching(&mut self, news: impl Fn() -> bool) -> Option<Duration> {
        self.fails = self.fails.saturating_add(1);
        if self.fails <= Self::SPINS {
            for _ in 0..(1u32 << self.fails.min(6)) {
                std::hint::spin_loop();
            }
            None
        } else if self.fails <= Self::YIELDS {
            for _ in 0..Self::WATCH_SPINS {
                if news() {
                    return None;
                }
                std::hint::spin_loop();
            }
            std::thread::yield_now();
            None
        } else {
            Some(Duration::from_micros(
                20u64 << (self.fails - Self::YIELDS - 1).min(6),
            ))
        }
    }
}

/// What a thread knows about the worker it runs. One thread-local, so that `join` reaches
/// both fields from one address.
struct Local {
    /// The worker this thread runs, or null.
    worker: Cell<*const Worker>,
    /// Join seeds on the running chain of that worker that were not handed out
    /// (`Worker::count_seed`); 0 on every thread that runs no worker, so a count of at least
    /// one means `worker` is set. Here rather than in the `Worker` so that `join`'s
    /// commonest path (enough seeds planted: plant none) is a thread-local load and a
    /// compare, before it needs the worker's address.
    seeds: Cell<u32>,
}

thread_local! {
    static LOCAL: Local = const {
        Local {
            worker: Cell::new(ptr::null()),
            seeds: Cell::new(0),
        }
    };
}

/// The recycled blocks spawned tasks live in: one size and alignment for all, so a block
/// freed by any worker can serve any later task of the right size.
const BLOCK: std::alloc::Layout = match std::alloc::Layout::from_size_align(64, 16) {
    Ok(l) => l,
    Err(_) => panic!("bad block layout"),
};
/// How many free blocks a worker keeps; more go to its pool's spare batches.
const BLOCK_CACHE: usize = 4096;

/// Whether a value of this size and alignment fits a block.
pub(crate) const fn fits_block(size: usize, align: usize) -> bool {
    size <= BLOCK.size() && align <= BLOCK.align()
}

/// How many blocks move between a worker's free list and its pool's spare batches at once.
const BLOCK_BATCH: usize = 1024;
/// How many spare batches a pool keeps; more go back to the allocator.
const SPARE_BATCHES: usize = 16;

/// A block for a spawned task: from `w`'s free list if it has one (owner thread only), else
/// a batch of spare blocks moves into that list (one lock for [`BLOCK_BATCH`] blocks), else
/// from the allocator.
#[inline]
pub(crate) fn alloc_block(w: Option<&Worker>) -> *mut u8 {
    if let Some(w) = w {
        // SAFETY: only the owning thread calls with `Some(w)` (module invariant).
        let cache = unsafe { &mut *w.blocks.get() };
        if let Some(b) = cache.pop() {
            return b;
        }
        if let Some(batch) = w.registry().spare_blocks.take() {
            cache.extend(batch);
            if let Some(b) = cache.pop() {
                return b;
            }
        }
    }
    // SAFETY: BLOCK has a non-zero size.
    let b = unsafe { std::alloc::alloc(BLOCK) };
    if b.is_null() {
        std::alloc::handle_alloc_error(BLOCK);
    }
    b
}

/// Returns a block (from `alloc_block`, contents already moved out) to `w`'s free list; a
/// full list first passes a batch to its pool's spare batches (tasks spawned on one worker
/// and run on another move blocks one way: the batches carry them back). Without a worker,
/// or when the spare batches are full too, blocks go back to the allocator.
///
/// # Safety
/// `b` came from `alloc_block` and is not used after this.
#[inline]
pub(crate) unsafe fn free_block(w: Option<&Worker>, b: *mut u8) {
    if let Some(w) = w {
        // SAFETY: only the owning thread calls with `Some(w)`.
        let cache = unsafe { &mut *w.blocks.get() };
        if cache.len() >= BLOCK_CACHE {
            let batch: Vec<*mut u8> = cache.drain(cache.len() - BLOCK_BATCH..).collect();
            w.registry().spare_blocks.give(batch);
        }
        cache.push(b);
        return;
    }
    // SAFETY: per the contract; allocated with BLOCK.
    unsafe { std::alloc::dealloc(b, BLOCK) }
}

/// A pool's spare batches of free task blocks (001's recycling queues, one lock per batch).
pub(crate) struct SpareBlocks(std::sync::Mutex<Vec<Vec<*mut u8>>>);

// SAFETY: the pointers are free blocks that belong to nobody until taken out under the lock.
unsafe impl Send for SpareBlocks {}
// SAFETY: as above; the list is only touched under its mutex.
unsafe impl Sync for SpareBlocks {}

impl SpareBlocks {
    pub(crate) fn new() -> SpareBlocks {
        SpareBlocks(std::sync::Mutex::new(Vec::new()))
    }

    fn take(&self) -> Option<Vec<*mut u8>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    fn give(&self, batch: Vec<*mut u8>) {
        let mut spare = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if spare.len() < SPARE_BATCHES {
            spare.push(batch);
            return;
        }
        drop(spare);
        dealloc_blocks(&batch);
    }
}

impl Drop for SpareBlocks {
    fn drop(&mut self) {
        for batch in self.0.get_mut().unwrap_or_else(|e| e.into_inner()).iter() {
            dealloc_blocks(batch);
        }
    }
}

/// Gives free blocks back to the allocator.
fn dealloc_blocks(blocks: &[*mut u8]) {
    for &b in blocks {
        // SAFETY: free blocks (in a free list or a spare batch) came from the allocator
        // with BLOCK and are used by nobody.
        unsafe { std::alloc::dealloc(b, BLOCK) };
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        dealloc_blocks(self.blocks.get_mut());
    }
}

/// One worker of a pool. Lives in its pool's registry for as long as the registry.
pub(crate) struct Worker {
    pub(crate) index: usize,
    registry: *const Registry,
    head: Cell<*const Frame>,
    /// A stop scan found a cancelled frame below the running code's stop boundary: raise
    /// the stop bit again when that boundary leaves (see `stop_requested`). Shared by the
    /// worker's fibers: a fiber that resumes rescans anyway, and a stray raise only costs
    /// one scan.
    stop_below: Cell<bool>,
    current_finish: Cell<*const FinishFrame>,
    rng: Cell<u64>,
    /// Free task blocks (owner only); see `alloc_block`.
    blocks: std::cell::UnsafeCell<Vec<*mut u8>>,
    pub(crate) stats: WorkerStats,
    mailbox: CachePadded<Mailbox>,
    sleep_state: AtomicU8,
    thread: OnceLock<Thread>,
    /// The identity of the task this worker runs now (see `task_id`), and how many
    /// identities it handed out.
    task: Cell<u64>,
    task_seq: Cell<u64>,
    /// The fibers this worker runs tasks on (`fiber.rs`).
    fibers: crate::fiber::FiberState,
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
            stop_below: Cell::new(false),
            current_finish: Cell::new(ptr::null()),
            rng: Cell::new(
                0x9E37_79B9_7F4A_7C15 ^ (index as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
            ),
            blocks: std::cell::UnsafeCell::new(Vec::new()),
            stats: WorkerStats::default(),
            mailbox: CachePadded::new(Mailbox::new()),
            sleep_state: AtomicU8::new(RUNNING),
            thread: OnceLock::new(),
            task: Cell::new(0),
            task_seq: Cell::new(0),
            fibers: crate::fiber::FiberState::new(),
        }
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

    pub(crate) fn sched_cell(&self) -> &std::cell::UnsafeCell<crate::fiber::Sched> {
        self.fibers.sched()
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
        self.head.set(s.head);
        self.set_seed_count(s.seeds);
        self.current_finish.set(s.finish);
        self.task.set(s.task);
    }

    /// Takes the chain state of the fiber that just suspended, leaving an empty chain
    /// (driver only).
    pub(crate) fn take_chain(&self) -> Saved {
        Saved {
            head: self.head.replace(ptr::null()),
            seeds: self.replace_seed_count(0),
            finish: self.current_finish.replace(ptr::null()),
            task: self.task.replace(0),
        }
    }

    /// The identity of the task running now.
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

    /// Whether the chain that the calling thread's worker runs holds enough unstolen join
    /// seeds that one more is not worth planting (see `join.rs`). Never true on a thread
    /// that runs no worker; when true, [`Worker::current`] is not null.
    #[inline(always)]
    pub(crate) fn seeds_full() -> bool {
        LOCAL.with(|l| l.seeds.get()) >= crate::join::SEED_LIMIT
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

    /// The seed count of the running chain (owner thread only).
    fn seed_count(&self) -> u32 {
        debug_assert!(
            ptr::eq(self, Worker::current()),
            "seed count read off its worker"
        );
        LOCAL.with(|l| l.seeds.get())
    }

    fn set_seed_count(&self, n: u32) {
        debug_assert!(
            ptr::eq(self, Worker::current()),
            "seed count set off its worker"
        );
        LOCAL.with(|l| l.seeds.set(n));
    }

    fn replace_seed_count(&self, n: u32) -> u32 {
        debug_assert!(
            ptr::eq(self, Worker::current()),
            "seed count set off its worker"
        );
        LOCAL.with(|l| l.seeds.replace(n))
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
        match self.chain_stop(self.head.get()) {
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
    /// it for `thief`: on the running chain first, then on the chains of parked fibers
    /// (whose work would otherwise wait as long as they do).
    pub(crate) fn find_work(&self, target: Target, thief: usize) -> Option<JobRef> {
        // SAFETY: the running chain is live and only this worker touches it.
        if let Some((f, ctx)) = unsafe { Self::find_in_chain(self.head.get(), target) } {
            // SAFETY: `f` is a live frame of this worker.
            if unsafe { (*f).table().kind } == FrameKind::Handler {
                // The oldest candidate is a spawn-request handler, which may decline: the
                // search module asks it and, failing that, the younger frames in order (004
                // Fig. 6).
                // SAFETY: `f` is a live handler frame of this worker, in the allowed region,
                // and every frame between it and the head is too.
                return unsafe { crate::search::answer(self, thief, f, ctx) };
            }
            // SAFETY: `f` is a live frame of this worker whose table said it has work.
            return Some(unsafe { ((*f).table().offer)(f, self, thief, ctx) });
        }
        let mut found = None;
        self.parked_chains(|saved| {
            // SAFETY: a parked fiber's chain is live while it is parked, and only this
            // worker's thread touches it.
            let found_here = unsafe { Self::find_in_chain(saved.get().head, target) };
            // A handler on a parked chain is not asked: its undo/redo would run on the state
            // of a task that is not running. The parked task's own polls ask it when it runs.
            // SAFETY: frames of a parked chain are live.
            let found_here =
                found_here.filter(|&(f, _)| unsafe { (*f).table().kind } != FrameKind::Handler);
            if let Some((f, ctx)) = found_here {
                // Handing out a join seed uncounts it from the running chain's count: move
                // that to the parked chain it belongs to.
                let before = self.seed_count();
                // SAFETY: as above.
                found = Some(unsafe { ((*f).table().offer)(f, self, thief, ctx) });
                let uncounted = before.wrapping_sub(self.seed_count());
                self.set_seed_count(before);
                let mut s = saved.get();
                s.seeds = s.seeds.wrapping_sub(uncounted);
                saved.set(s);
                true
            } else {
                false
            }
        });
        found
    }

    /// The oldest frame of the chain from `head` that has work in the region `target`
    /// allows, with the state of the innermost finish around it.
    ///
    /// # Safety
    /// `head` starts a live chain of this worker.
    unsafe fn find_in_chain(
        head: *const Frame,
        target: Target,
    ) -> Option<(*const Frame, *const FinishState)> {
        let mut best: *const Frame = ptr::null();
        let mut best_ctx: *const FinishState = ptr::null();
        // While true, frames are inside the allowed region.
        let mut in_region = true;
        let mut found_boundary = matches!(target, Target::Any);
        let mut f = head;
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
        Some((best, best_ctx))
    }

    /// Whether some frame on the running chain could give work to a thief.
    fn has_offerable_work(&self) -> bool {
        // SAFETY: the running chain is live.
        unsafe { self.chain_has_work(self.head.get()) }
    }

    /// Whether some frame of the chain from `head` could give work to a thief.
    ///
    /// # Safety
    /// `head` starts a live chain of this worker.
    pub(crate) unsafe fn chain_has_work(&self, head: *const Frame) -> bool {
        let mut f = head;
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
            // A fiber woken for this worker (or a kick) meanwhile: go and run it rather
            // than wait for a victim that may have nothing.
            if may_withdraw && (looks >= WITHDRAW_AFTER || self.remote().has_news()) {
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
        let held = self.replace_seed_count(0);
        // SAFETY: the job came through a reply to this worker's request, so this worker
        // owns it (mailbox invariant 3) and it is live until it signals completion.
        self.as_new_task(|| unsafe { job.execute(self, Mode::Stolen) });
        debug_assert_eq!(self.seed_count(), 0, "a finished job left seeds counted");
        self.set_seed_count(held);
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
            // A job this worker took from one of its own parked chains has no other worker
            // to take work back from.
            if thief != self.index {
                if let Some(back) =
                    self.steal_from(thief, Target::Job(job as *const JobHeader as usize))
                {
                    self.stats.steal_backs.bump();
                    self.run_stolen(back);
                    patience.reset();
                    continue;
                }
            }
            if (thief == self.index || !patience.spinning())
                && self.park_until(&|| job.done.load(Ordering::SeqCst))
            {
                patience.reset();
                continue;
            }
            if let Some(d) = patience.fail() {
                self.nap(|| job.done.load(Ordering::SeqCst), d);
            }
        }
    }

    /// Waits until every task of the finish `state` is done. Runs tasks that other workers
    /// put in the finish's inbox and tasks taken from workers that hold work of this finish;
    /// when there are none, parks (the last task, or a new inbox task, kicks this worker).
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
            let ready = || state.outstanding() == 0 || state.inbox_len() > 0;
            if !patience.spinning() && self.park_until(&ready) {
                patience.reset();
                continue;
            }
            if let Some(d) = patience.fail() {
                self.nap(ready, d);
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

    /// Whether a stop is raised on this worker and not yet taken.
    pub(crate) fn stop_raised(&self) -> bool {
        self.mailbox.stop_raised()
    }

    /// The name of this worker's thread, for reports.
    pub(crate) fn thread_name(&self) -> String {
        match self.thread.get().and_then(|t| t.name()) {
            Some(n) => n.to_string(),
            None => format!("worker {}", self.index),
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

    /// The body of a worker thread: the fiber driver (`fiber.rs`), which runs `schedule` on
    /// a fiber.
    pub(crate) fn thread_main(&self, stack_size: usize) {
        /// Counts the worker out of the deadlock watch's awake workers however it ends.
        struct Awake;
        impl Drop for Awake {
            fn drop(&mut self) {
                crate::deadlock::went_idle();
            }
        }
        /// Tells `build` that the worker died before it started, if it unwinds that early
        /// (a report that came first stands).
        struct Starting<'a>(&'a Worker);
        impl Drop for Starting<'_> {
            fn drop(&mut self) {
                let w = self.0;
                w.registry().report_start(
                    w.index,
                    Err("its thread ended before it could run tasks".to_string()),
                );
            }
        }
        let _ = self.thread.set(std::thread::current());
        crate::deadlock::woke();
        let _awake = Awake;
        let _starting = Starting(self);
        LOCAL.with(|l| l.worker.set(self));
        self.drive(stack_size);
        debug_assert_eq!(self.seed_count(), 0, "a worker ended with seeds counted");
        // Both together: a count of at least one must never outlive the worker it implies.
        LOCAL.with(|l| {
            l.seeds.set(0);
            l.worker.set(ptr::null());
        });
    }

    /// The scheduler loop, at the base of every fiber: take injected work, else work on
    /// this worker's parked chains, else steal, else sleep. Returns true when a parked fiber
    /// is ready (this fiber then gives way to it), false when the pool terminates.
    pub(crate) fn schedule(&self) -> bool {
        let reg = self.registry();
        let mut patience = Patience::new();
        loop {
            if self.has_ready_fiber() {
                return true;
            }
            if let Some(job) = reg.pop_injected() {
                // An injected job is owned by whoever pops it from the injector.
                reg.busy(|| self.run_stolen(job));
                patience.reset();
                continue;
            }
            if reg.is_terminating() {
                return false;
            }
            if self.mailbox.needs_attention() {
                self.answer_request();
                // Nothing runs on this fiber, so no region here can be cancelled: clear a
                // stray stop (a parked fiber rescans its own chain when it resumes).
                let _ = self.stop_requested();
            }
            if self.has_parked() {
                // Work left on the chains of this worker's parked tasks: run it here.
                if let Some(job) = self.find_work(Target::Any, self.index) {
                    self.stats.materialized.bump();
                    reg.busy(|| self.run_stolen(job));
                    patience.reset();
                    continue;
                }
            }
            if let Some(v) = self.random_victim() {
                if let Some(job) = self.steal_from(v, Target::Any) {
                    reg.busy(|| self.run_stolen(job));
                    patience.reset();
                    continue;
                }
            }
            let news =
                || self.remote().has_news() || self.mailbox.has_request() || reg.has_injected();
            if let Some(d) = patience.fail_watching(news) {
                self.idle_sleep(d);
            }
        }
    }

    /// Sleeps for lack of work: without a timeout when the whole pool is idle, else for a
    /// short nap (a busy worker may plant seeds at any time without telling anyone).
    ///
    /// Asleep, the worker counts as idle for the deadlock watch; before it sleeps and when
    /// it wakes up it runs the watch, which looks for a deadlock once no worker of any pool
    /// is awake. (A pool with parked tasks has a busy count above zero — a parked task's job
    /// has not returned — so its idle workers nap and run the watch again and again.)
    fn idle_sleep(&self, nap: Duration) {
        // A stop scan may have readied a fiber in this very pass, or a kick brought work to a
        // parked chain: run it, do not sleep.
        if self.has_local_ready() || self.reclaim_parked_work() {
            return;
        }
        let reg = self.registry();
        self.close_mailbox();
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
        };
        if quiet() && !crate::deadlock::watch() {
            if reg.busy_workers() == 0 {
                std::thread::park();
            } else {
                std::thread::park_timeout(nap);
            }
            if quiet() {
                crate::deadlock::watch();
            }
        }
        crate::deadlock::woke();
        reg.sleepers_add(-1);
        self.sleep_state.store(RUNNING, Ordering::SeqCst);
        self.mailbox.open();
    }
}
