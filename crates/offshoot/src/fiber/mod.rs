//! Fibers: the stacks tasks run on, and parking a task without blocking its worker.
//!
//! This file is the driver (`Fiber`, `Sched`, `drive_fibers`, `next_fiber`, parking on a
//! condition); beside it, `wait.rs` is the waiting interface `sync/` uses (`Waiter`,
//! `WaitOn`, `Woken`, `Parker`; the token's state machine is `token.rs`), and `remote.rs`
//! the part other threads touch (`Remote`: cross-thread wakes, kicks, counted stops, the
//! published list of token-parked fibers the deadlock watch reads, interrupts). The
//! invariants of those two parts are written there.
//!
//! Every worker thread runs a small **driver** on its own (native) stack. The driver never
//! runs user code: it resumes one fiber at a time. A fiber's body is the worker's scheduler
//! loop (`Worker::schedule`): it takes injected work, steals, and runs tasks on its stack,
//! exactly as a worker without fibers would. Nothing is switched on the fast path: a fork,
//! a join that was not stolen, a steal and the run of a stolen task all happen on the one
//! running fiber.
//!
//! A task that must wait **parks** its fiber: the fiber suspends back to the driver, which
//! records it as parked and resumes another fiber — a ready one if there is one, else a
//! recycled free fiber, else a new one — so the worker goes on with other work while the
//! parked stack keeps every frame of the waiting task intact (lazy stacklets, Goldstein et al.'s lazy threads: a stack
//! is taken from the pool only when a task actually parks). A parked fiber becomes ready
//! when what it waits for happens, and the driver resumes it when the running fiber reaches
//! its scheduler loop with nothing on it (a fiber never resumes on top of another task).
//!
//! Two ways to wait:
//! * **on a condition** (`Worker::park_until`): used by the runtime's own waits (a stolen
//!   join, a finish, a root job of another pool). The code that makes the condition true
//!   *kicks* the owner worker (`Worker::kick`), which re-tests the conditions of its parked
//!   fibers. The condition reads memory on the parked stack, which stays alive.
//! * **on a token** ([`Waiter`]): used by events and every construct built on them. A
//!   waker may run on any thread; it moves the fiber to its worker's ready list. A token
//!   wait records what it waits on (`WaitOn`), listed while the fiber is parked so that
//!   the deadlock watch (`deadlock.rs`) can report it. Two things besides its waker may end
//!   it early, by *interrupting* the token: a stop of a region on the task's chain (the wait
//!   then unwinds as stopped, like a poll), and a declared deadlock (it then panics with the
//!   report). The waiting construct sees how the wait ended ([`Woken`]) and takes its token
//!   off its wait list before it unwinds.
//!
//! Invariants:
//! * A fiber is resumed only by the driver of the worker that created it, on that worker's
//!   OS thread: thread-locals and `!Send` values on a parked stack stay on their thread.
//! * A fiber is running, free, ready, or parked, and in exactly one of the driver's lists
//!   accordingly (the running one in none); only the owner thread touches those lists. The
//!   only cross-thread entry is `Remote::ready`, fed by token wakes (and interrupts) from
//!   other threads without a lock (`ready_stack.rs`).
//! * Unwinding never crosses a switch: every task catches its panics on its own fiber; a
//!   fiber body that panicked would be a runtime bug and aborts the worker thread.
//! * While a fiber is parked, its frame chain is saved with it and the worker runs with an
//!   empty chain. Work on a parked chain stays offerable: requests to this worker, and the
//!   worker itself when it runs out of work, take from parked chains (no work is trapped
//!   behind a waiting task). A parked chain gains work only through the inbox of a finish
//!   whose body waits on a token; the push kicks the owner, which puts the chain back among
//!   those it offers before it sleeps (`reclaim_parked_work`).
//! * A task that overflows its fiber's stack hits the stack's guard page, and the process
//!   aborts with a message that names `Builder::stack_size` (`overflow.rs`, Linux): the
//!   driver installs the fault handler and makes sure its thread has an alternate signal
//!   stack before it runs a fiber, and it records the guard page of the fiber it resumes
//!   (`overflow::enter`) before every resume and clears it (`overflow::leave`) after.

use std::cell::{Cell, UnsafeCell};
use std::collections::VecDeque;
use std::ptr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use corosensei::{Coroutine, CoroutineResult, Yielder};

use crate::atomics::AtomicPtr;
use crate::finish::FinishFrame;
use crate::frame::Frame;
use crate::overflow;
use crate::ready_stack::Linked;
use crate::stack::{FiberStack, Stacks};
use crate::tsan::TsanFiber;
use crate::worker::Worker;

mod remote;
mod wait;

pub(crate) use remote::{Remote, TokenParked};
use wait::WakeTarget;
pub(crate) use wait::{Parker, WaitOn, Waiter, Woken};

/// What the driver tells a fiber when it resumes it.
pub(crate) enum Resume {
    /// Go on.
    Go,
    /// The worker is shutting down: return (only sent to free fibers).
    Exit,
}

/// Why a fiber gave control back to the driver.
pub(crate) enum Suspend {
    /// Its scheduler loop found a ready fiber: this one is free now.
    Idle,
    /// A task on it waits on the condition stored in the fiber, described for the trace.
    ParkCond(&'static str),
    /// A task on it waits on its token, for this.
    ParkToken(WaitOn),
}

type Co = Coroutine<Resume, Suspend, (), FiberStack>;

/// How many free fibers a worker keeps for reuse; more are unmapped.
const FREE_FIBERS: usize = 16;

/// The frame-chain state of a parked fiber, saved while another fiber runs.
#[derive(Clone, Copy)]
pub(crate) struct Saved {
    pub(crate) head: *const Frame,
    pub(crate) seeds: u32,
    /// The worker's `held_limit` for this chain (`worker/mod.rs`).
    pub(crate) held_limit: bool,
    pub(crate) finish: *const FinishFrame,
    pub(crate) task: u64,
}

impl Saved {
    const EMPTY: Saved = Saved {
        head: ptr::null(),
        seeds: 0,
        held_limit: false,
        finish: ptr::null(),
        task: 0,
    };
}

/// One stack with the scheduler loop at its base.
pub(crate) struct Fiber {
    co: Co,
    /// ThreadSanitizer's context for this stack (`tsan.rs`; nothing in other builds).
    tsan: TsanFiber,
    /// The guard page at the end of `co`'s stack, for the overflow handler.
    guard: overflow::Guard,
    pub(crate) saved: Cell<Saved>,
    /// While parked on a condition: the condition (it lives on this fiber's stack).
    cond: Cell<Option<*const (dyn Fn() -> bool + 'static)>>,
    /// The token this fiber parks on.
    pub(crate) parker: Arc<Parker>,
    /// Index in the driver's list of parked fibers whose chain may hold work.
    work_slot: Cell<usize>,
    /// Already woken once because a region on its chain was cancelled (see
    /// `wake_cancelled_parked`); cleared when the fiber becomes free.
    cancel_woken: Cell<bool>,
    /// Index in the driver's `token_parked` list while parked on a token.
    token_slot: Cell<usize>,
    /// Index in the worker's published list (`Remote::token_shared`), if it is in it.
    shared_slot: Cell<usize>,
    /// Index in the driver's `unpublished` list, if it is in it.
    unpublished_slot: Cell<usize>,
    /// The link in `Remote::ready` while queued there by another thread.
    ready_link: AtomicPtr<Fiber>,
    /// While parked in a traced pool: the tasks that were open on it (`trace.rs`).
    trace_open: Cell<Vec<u64>>,
    /// The work/span clock of the strand that parked on this fiber (`metrics/strand.rs`).
    meter_saved: Cell<crate::metrics::strand::Saved>,
}

impl Linked for Fiber {
    fn link(&self) -> &AtomicPtr<Fiber> {
        &self.ready_link
    }
}

const NO_SLOT: usize = usize::MAX;

/// The driver's bookkeeping; owner thread only.
pub(crate) struct Sched {
    /// The yielder of the running fiber.
    yielder: *const Yielder<Resume, Suspend>,
    /// The running fiber (null on the driver).
    running: *mut Fiber,
    // Boxed: a fiber's address is in its token (`Parker`), so it must not move.
    #[allow(clippy::vec_box)]
    free: Vec<Box<Fiber>>,
    ready: VecDeque<*mut Fiber>,
    /// Fibers parked on a condition.
    cond_parked: Vec<*mut Fiber>,
    /// Parked fibers whose chain had offerable work when they parked.
    with_work: Vec<*mut Fiber>,
    /// Fibers parked on a token (see the module invariants).
    token_parked: Vec<TokenParked>,
    /// Fibers in `token_parked` not yet in the published list.
    unpublished: Vec<*mut Fiber>,
    /// A kick came since token-parked chains were last checked for work (see
    /// `reclaim_parked_work`).
    recheck_parked: bool,
    /// Fibers parked in all.
    parked: usize,
    /// The value of `Remote::stops` when the parked fibers were last scanned for cancelled
    /// regions (`wake_cancelled_parked`).
    scanned_stops: u64,
    /// Size of every fiber's stack.
    stack_size: usize,
    /// Where new fibers' stacks come from (`stack.rs`).
    stacks: Stacks,
    /// ThreadSanitizer's context of the driver, which fibers switch back to (`tsan.rs`).
    tsan_driver: TsanFiber,
}

impl Sched {
    pub(crate) fn new(stack_size: usize) -> Sched {
        Sched {
            yielder: ptr::null(),
            running: ptr::null_mut(),
            free: Vec::new(),
            ready: VecDeque::new(),
            cond_parked: Vec::new(),
            with_work: Vec::new(),
            token_parked: Vec::new(),
            unpublished: Vec::new(),
            recheck_parked: false,
            parked: 0,
            scanned_stops: 0,
            stack_size,
            stacks: Stacks::new(stack_size),
            tsan_driver: TsanFiber::current(),
        }
    }
}

// ----- the driver -------------------------------------------------------------------------

impl Sched {
    fn new_fiber(&mut self, w: *const Worker) -> std::io::Result<Box<Fiber>> {
        let stack = self.stacks.take()?;
        let guard = overflow::Guard::of(&stack, self.stack_size);
        let wp = w as usize;
        let co = Co::with_stack(stack, move |yielder, mut input| {
            // SAFETY: the worker outlives its driver and every fiber the driver resumes.
            let w = unsafe { &*(wp as *const Worker) };
            w.tsan_to_fiber();
            loop {
                if let Resume::Exit = input {
                    w.tsan_to_driver();
                    return;
                }
                w.set_yielder(yielder);
                if !w.schedule() {
                    w.tsan_to_driver();
                    return;
                }
                w.tsan_to_driver();
                input = yielder.suspend(Suspend::Idle);
                w.tsan_to_fiber();
            }
        });
        // The token names the fiber, so the box is allocated before the fiber is built in it.
        let mut slot = Box::<Fiber>::new_uninit();
        let fp = slot.as_mut_ptr();
        slot.write(Fiber {
            co,
            tsan: TsanFiber::new(),
            guard,
            saved: Cell::new(Saved::EMPTY),
            cond: Cell::new(None),
            parker: Arc::new(Parker::new(WakeTarget::Fiber {
                fiber: fp,
                worker: w,
            })),
            work_slot: Cell::new(NO_SLOT),
            cancel_woken: Cell::new(false),
            token_slot: Cell::new(NO_SLOT),
            shared_slot: Cell::new(NO_SLOT),
            unpublished_slot: Cell::new(NO_SLOT),
            ready_link: AtomicPtr::new(ptr::null_mut()),
            trace_open: Cell::new(Vec::new()),
            meter_saved: Cell::new(Default::default()),
        });
        // SAFETY: the line above initialised the box.
        Ok(unsafe { slot.assume_init() })
    }
}

impl Worker {
    /// Lends the driver's bookkeeping of this worker to `f`. Every access to the `Sched`
    /// goes through here, so its soundness rests on one rule, kept by every caller:
    ///
    /// * only the owner thread calls it (the `Sched` is per worker, and a worker runs on
    ///   one thread);
    /// * `f` neither switches fibers nor reaches another `with_sched` (directly, or through
    ///   code it calls: a waker, `retire`, a condition), so the `&mut Sched` it gets is the
    ///   only reference while it runs.
    ///
    /// Debug builds check the second part: a nested loan panics.
    #[inline]
    fn with_sched<R>(&self, f: impl FnOnce(&mut Sched) -> R) -> R {
        #[cfg(debug_assertions)]
        let _lent = Lent::take(&self.fibers().lent);
        // SAFETY: the rule above: the owner thread, and no other reference to the `Sched`
        // exists while `f` runs.
        f(unsafe { &mut *self.fibers().sched.get() })
    }

    fn set_yielder(&self, y: &Yielder<Resume, Suspend>) {
        self.with_sched(|s| s.yielder = y);
    }

    /// The token of the running fiber, if this thread runs one.
    pub(crate) fn running_parker(&self) -> Option<Arc<Parker>> {
        let f = self.with_sched(|s| s.running);
        // SAFETY: the running fiber is live while it runs (this thread runs it).
        (!f.is_null()).then(|| unsafe { (*f).parker.clone() })
    }

    /// Makes sure a fiber is there to run when the running one parks. False if none is and
    /// no stack can be mapped.
    fn ensure_next_fiber(&self) -> bool {
        self.with_sched(|s| {
            if !s.ready.is_empty() || !s.free.is_empty() {
                return true;
            }
            match s.new_fiber(self) {
                Ok(f) => {
                    s.free.push(f);
                    true
                }
                Err(_) => false,
            }
        })
    }

    /// Whether the calling task runs on a fiber (always true for tasks of a pool, but
    /// under Miri).
    pub(crate) fn on_fiber(&self) -> bool {
        self.with_sched(|s| !s.running.is_null())
    }

    /// Tells ThreadSanitizer that the running fiber switches back to the driver now. Called
    /// on the fiber, right before it suspends or returns; `tsan_to_fiber` right after it
    /// gains control. Both switches are announced on the fiber's side, so the frames of the
    /// switch itself (the driver's `resume`, the fiber's `suspend`) enter and leave TSan's
    /// shadow stack of the driver alike: every resume-suspend round trip is balanced on both
    /// contexts (see `tsan.rs`). Inlined, so that no frame of their own is split across.
    #[inline(always)]
    fn tsan_to_driver(&self) {
        // The context is read first and the switch announced after `with_sched` (and, in
        // debug builds, its guard) returned: those frames must leave the shadow stack they
        // entered.
        let driver = self.with_sched(|s| s.tsan_driver.ctx());
        driver.switch_to();
    }

    /// See `tsan_to_driver`: the running fiber has just gained control.
    #[inline(always)]
    fn tsan_to_fiber(&self) {
        let f = self.with_sched(|s| s.running);
        // SAFETY: the driver sets `running` before it resumes a fiber (also one it
        // retires), so this is the live fiber that runs this code.
        unsafe { (*f).tsan.ctx().switch_to() };
    }

    fn suspend(&self, why: Suspend) {
        // The yielder is the running fiber's, which is the caller.
        let y = self.with_sched(|s| s.yielder);
        self.tsan_to_driver();
        // SAFETY: the yielder belongs to the fiber this code runs on and lives on its stack.
        let input = unsafe { (*y).suspend(why) };
        self.tsan_to_fiber();
        debug_assert!(matches!(input, Resume::Go));
        // Back on this fiber: it may have been resumed after another fiber set its yielder.
        self.with_sched(|s| s.yielder = y);
    }

    /// Parks the running task until `cond()` holds, letting the worker run other work
    /// meanwhile. Whoever makes `cond` true must then call `kick` on this worker. Returns
    /// false (without waiting) if the task cannot park: not on a fiber, or no stack.
    /// `what` says what the condition waits for (the trace shows it).
    pub(crate) fn park_until(&self, what: &'static str, cond: &dyn Fn() -> bool) -> bool {
        if !self.on_fiber() || !self.ensure_next_fiber() {
            return false;
        }
        // SAFETY: the condition outlives the park: this frame stays on the parked stack
        // until the driver resumes it, and the driver drops the pointer before that.
        let c: *const (dyn Fn() -> bool + 'static) = unsafe { std::mem::transmute(cond) };
        let f = self.with_sched(|s| s.running);
        // SAFETY: `on_fiber` said a fiber runs: this one, live.
        unsafe { (*f).cond.set(Some(c)) };
        self.suspend(Suspend::ParkCond(what));
        self.resumed();
        true
    }

    /// Parks the running fiber on its armed token. False if no stack is there to go on with.
    fn park_token(&self, on: WaitOn) -> bool {
        if !self.ensure_next_fiber() {
            return false;
        }
        self.suspend(Suspend::ParkToken(on));
        self.resumed();
        true
    }

    /// A parked task runs again: regions on its chain may have been cancelled meanwhile, so
    /// its next poll must look (a raised stop bit makes it scan the chain).
    fn resumed(&self) {
        self.mailbox_raise_stop();
    }

    /// At the top of the scheduler loop: whether a parked fiber is ready to go on (the
    /// running fiber should then give way).
    pub(crate) fn has_ready_fiber(&self) -> bool {
        self.with_sched(|s| {
            self.remote().take_ready(&mut s.ready);
            // Read first: the swap (a read-modify-write) only when there is a kick to take.
            // SeqCst: pairs with the SeqCst store in `Remote::kick`, which the kicker makes
            // after it made a condition true (e.g. `thief_done`'s store of `done`). Acquire
            // would be enough to see that condition; SeqCst keeps the load and the clearing
            // swap in the single total order of the sleep handshake, where `Remote::has_news`
            // reads `kicked` (worker/sleep.rs, "The protocol"); a kick stored after the swap
            // stays set for the next look.
            if self.remote().kicked.load(Ordering::SeqCst)
                && self.remote().kicked.swap(false, Ordering::SeqCst)
            {
                s.recheck_parked = true;
                let mut i = 0;
                while i < s.cond_parked.len() {
                    let f = s.cond_parked[i];
                    // SAFETY: a parked fiber's condition lives on its stack, alive while parked.
                    let ready = unsafe { (*(*f).cond.get().expect("parked without condition"))() };
                    if ready {
                        s.cond_parked.swap_remove(i);
                        s.ready.push_back(f);
                    } else {
                        i += 1;
                    }
                }
            }
            !s.ready.is_empty()
        })
    }

    /// After a kick, before the worker goes idle: puts fibers parked on a token whose chain
    /// has work again back among the chains `find_work` looks at, and returns whether there
    /// were any. A chain gains work while parked in one way only: a task arrives in the
    /// inbox of a finish whose body waits on a token (a data-driven task fired, or a task
    /// spawned from outside the pool), and the inbox push kicks the owner.
    pub(crate) fn reclaim_parked_work(&self) -> bool {
        self.with_sched(|s| {
            if !std::mem::take(&mut s.recheck_parked) {
                return false;
            }
            let mut found = false;
            for e in s.token_parked.iter() {
                // SAFETY: listed fibers are parked and alive, their chains too.
                unsafe {
                    if (*e.fiber).work_slot.get() == NO_SLOT
                        && self.parked_chain_has_work((*e.fiber).saved.get().head)
                    {
                        (*e.fiber).work_slot.set(s.with_work.len());
                        s.with_work.push(e.fiber);
                        found = true;
                    }
                }
            }
            found
        })
    }

    /// Queues a fiber woken on this worker's own thread (by the task running here) on the
    /// driver's ready list.
    fn push_ready_local(&self, f: *mut Fiber) {
        // The caller checked that this thread runs this worker. The driver lends its
        // `Sched` only briefly and never across a switch, and no loan wakes a token, so
        // none is out now (`with_sched` checks it in debug builds).
        self.with_sched(|s| s.ready.push_back(f));
    }

    /// Whether the driver's own ready list holds a fiber (owner thread only).
    pub(crate) fn has_local_ready(&self) -> bool {
        self.with_sched(|s| !s.ready.is_empty())
    }

    /// Whether some parked fiber's chain may hold work (`parked_chains` would visit one).
    pub(crate) fn has_parked_work(&self) -> bool {
        self.with_sched(|s| !s.with_work.is_empty())
    }

    /// The saved chains of parked fibers that may hold work, for `find_work`; prunes those
    /// that have none left (a parked chain gains no work until it runs again, but for the
    /// inbox of a finish whose owner frame is on it: see `reclaim_parked_work`).
    pub(crate) fn parked_chains(&self, mut visit: impl FnMut(&Cell<Saved>) -> bool) -> bool {
        self.with_sched(|s| {
            let mut i = 0;
            while i < s.with_work.len() {
                let f = s.with_work[i];
                // SAFETY: fibers in `with_work` are parked, so their saved chain is live.
                let saved = unsafe { &(*f).saved };
                let head = saved.get().head;
                if visit(saved) {
                    return true;
                }
                // SAFETY: as above.
                if unsafe { self.parked_chain_has_work(head) } {
                    i += 1;
                } else {
                    s.with_work.swap_remove(i);
                    if i < s.with_work.len() {
                        // SAFETY: as above.
                        unsafe { (*s.with_work[i]).work_slot.set(i) };
                    }
                    // SAFETY: as above.
                    unsafe { (*f).work_slot.set(NO_SLOT) };
                }
            }
            false
        })
    }

    /// The body of a worker thread: resumes fibers until the pool terminates.
    pub(crate) fn drive(&self, stack_size: usize) {
        // Miri cannot run corosensei's stack switch: under Miri the scheduler runs on the
        // thread's own stack and waits fall back to spinning (runtime waits) or blocking
        // the thread (`sync` waits), which is enough for the smoke tests.
        #[cfg(miri)]
        {
            let _ = stack_size;
            self.registry().report_start(self.index, Ok(()));
            while self.schedule() {}
            return;
        }
        #[cfg(not(miri))]
        self.drive_fibers(stack_size);
    }

    #[cfg(not(miri))]
    fn drive_fibers(&self, stack_size: usize) {
        // A task that overflows its stack must get a clear message (see `overflow.rs`).
        overflow::install();
        let _altstack = overflow::AltStack::ensure();
        // The Sched is lent only between resumes below, never across one.
        self.with_sched(|s| *s = Sched::new(stack_size));
        let first = self.with_sched(|s| s.new_fiber(self));
        let mut cur = match first {
            Ok(f) => f,
            Err(e) => {
                // `build` reports it and stops the pool; this thread just ends.
                self.registry().report_start(
                    self.index,
                    Err(format!(
                        "cannot map a {stack_size}-byte fiber stack ({e}); lower \
                         Builder::stack_size (or RUST_MIN_STACK)"
                    )),
                );
                return;
            }
        };
        self.registry().report_start(self.index, Ok(()));
        loop {
            let fp: *mut Fiber = &mut *cur;
            let saved = cur.saved.get();
            self.restore_chain(saved);
            self.trace_resume(&cur.trace_open);
            if self.meter().on() {
                self.meter().resume(cur.meter_saved.get());
            }
            self.with_sched(|s| s.running = fp);
            overflow::enter(cur.guard);
            let r = cur.co.resume(Resume::Go);
            overflow::leave();
            // The fiber is suspended; nothing else runs here.
            self.with_sched(|s| s.running = ptr::null_mut());
            cur.saved.set(self.take_chain());
            if self.meter().on() {
                cur.meter_saved.set(self.meter().suspend());
            }
            match r {
                CoroutineResult::Return(()) => break,
                CoroutineResult::Yield(Suspend::Idle) => {
                    cur.saved.set(Saved::EMPTY);
                    cur.cancel_woken.set(false);
                    // Kept for reuse, or retired (after the loan: `retire` resumes it).
                    let extra = self.with_sched(|s| {
                        if s.free.len() < FREE_FIBERS {
                            s.free.push(cur);
                            None
                        } else {
                            Some(cur)
                        }
                    });
                    if let Some(f) = extra {
                        self.retire(f);
                    }
                }
                CoroutineResult::Yield(why) => {
                    let what = match why {
                        Suspend::ParkToken(on) => on.what,
                        Suspend::ParkCond(what) => what,
                        Suspend::Idle => unreachable!("handled above"),
                    };
                    self.trace_suspend(what, &cur.trace_open);
                    // SAFETY: `cur` just suspended to park, and `take_chain` above moved this
                    // worker's chain into its `saved`: the chain's frames live on its stack,
                    // which is neither unwound nor unmapped while it is parked (frame.rs:
                    // a frame's storage outlives its presence in the chain). This is the
                    // owner thread, the only one that reads the chain.
                    let has_work = unsafe { self.parked_chain_has_work(cur.saved.get().head) };
                    let raw = Box::into_raw(cur);
                    // The loan's code wakes no token and switches no fiber: conditions are
                    // plain loads, interrupts only mark the token (the caller queues).
                    self.with_sched(|s| {
                        s.parked += 1;
                        if has_work {
                            // SAFETY: `raw` is a live parked fiber.
                            unsafe { (*raw).work_slot.set(s.with_work.len()) };
                            s.with_work.push(raw);
                        }
                        // A stop pending now may be for this fiber's chain (see
                        // `wake_cancelled_parked`).
                        let stop = self.stop_raised();
                        match why {
                            Suspend::ParkCond(_) => {
                                // The condition may hold already (its maker kicks only after
                                // this fiber is listed, or before this test).
                                // SAFETY: the condition lives on the parked stack; `raw` is a
                                // parked fiber of this worker.
                                let go = unsafe {
                                    (*(*raw).cond.get().expect("parked without condition"))()
                                        || (stop && self.cancel_wakes(raw))
                                };
                                if go {
                                    s.ready.push_back(raw);
                                } else {
                                    s.cond_parked.push(raw);
                                }
                            }
                            Suspend::ParkToken(on) => {
                                // SAFETY: `raw` is a live parked fiber, owned by this driver.
                                let p = unsafe { &(*raw).parker };
                                // Its token was armed by the parking task, whose stack is no
                                // longer in use.
                                let epoch = p.token.epoch();
                                if !p.token.park() {
                                    s.ready.push_back(raw); // woken before it was parked
                                } else {
                                    // SAFETY: `raw` is live and parked.
                                    unsafe {
                                        (*raw).token_slot.set(s.token_parked.len());
                                        (*raw).unpublished_slot.set(s.unpublished.len());
                                    }
                                    s.unpublished.push(raw);
                                    s.token_parked.push(TokenParked {
                                        fiber: raw,
                                        parker: &**p,
                                        epoch,
                                        on,
                                        // SAFETY: as above.
                                        task: unsafe { (*raw).saved.get().task },
                                        reported: false,
                                        // SAFETY: as above.
                                        past_seed_limit: unsafe {
                                            let saved = (*raw).saved.get();
                                            saved.held_limit
                                                || crate::worker::at_seed_limit(saved.seeds)
                                        },
                                    });
                                    if stop
                                        && on.interruptible
                                        // SAFETY: `raw` is parked, its chain live.
                                        && unsafe { self.chain_cancelled((*raw).saved.get().head) }
                                        && p.interrupt(epoch, Woken::Stopped)
                                    {
                                        s.ready.push_back(raw);
                                    }
                                }
                            }
                            Suspend::Idle => unreachable!("handled above"),
                        }
                    });
                }
            }
            cur = self.next_fiber();
        }
        // Shutting down: every run has returned, so no fiber is parked (unless a task waits
        // forever, whose stack is then leaked rather than unwound). Free fibers return.
        let free = self.with_sched(|s| std::mem::take(&mut s.free));
        for f in free {
            self.retire(f);
        }
    }

    /// Ends a fiber suspended idle at its base: its body returns (rather than being unwound
    /// by the coroutine's drop, a switch ThreadSanitizer would not be told of), then it is
    /// freed. It runs as the running fiber meanwhile, like every resumed fiber.
    #[cfg(not(miri))]
    fn retire(&self, mut f: Box<Fiber>) {
        let fiber: &mut Fiber = &mut f; // still boxed: the fiber's address is in its token
        self.with_sched(|s| s.running = fiber);
        overflow::enter(fiber.guard);
        let _ = fiber.co.resume(Resume::Exit);
        overflow::leave();
        self.with_sched(|s| s.running = ptr::null_mut());
    }

    /// The fiber to resume next: a ready one, else a free one, else a new one.
    fn next_fiber(&self) -> Box<Fiber> {
        self.has_ready_fiber();
        self.with_sched(|s| {
            if let Some(raw) = s.ready.pop_front() {
                s.parked -= 1;
                // SAFETY: a ready fiber is parked and owned by this driver through the raw
                // pointer taken in `drive`; it leaves every list here.
                let f = unsafe { Box::from_raw(raw) };
                let slot = f.token_slot.replace(NO_SLOT);
                if slot != NO_SLOT {
                    s.token_parked.swap_remove(slot);
                    if let Some(moved) = s.token_parked.get(slot) {
                        // SAFETY: listed fibers are live.
                        unsafe { (*moved.fiber).token_slot.set(slot) };
                    }
                }
                let slot = f.unpublished_slot.replace(NO_SLOT);
                if slot != NO_SLOT {
                    s.unpublished.swap_remove(slot);
                    if let Some(&moved) = s.unpublished.get(slot) {
                        // SAFETY: listed fibers are live.
                        unsafe { (*moved).unpublished_slot.set(slot) };
                    }
                }
                let slot = f.shared_slot.replace(NO_SLOT);
                if slot != NO_SLOT {
                    // Published: the deadlock watch may be reading it; leave under the lock.
                    let mut shared = self.token_parked();
                    shared.swap_remove(slot);
                    if let Some(moved) = shared.get(slot) {
                        // SAFETY: listed fibers are live.
                        unsafe { (*moved.fiber).shared_slot.set(slot) };
                    }
                }
                let slot = f.work_slot.replace(NO_SLOT);
                if slot != NO_SLOT {
                    s.with_work.swap_remove(slot);
                    if slot < s.with_work.len() {
                        // SAFETY: fibers in `with_work` are live.
                        unsafe { (*s.with_work[slot]).work_slot.set(slot) };
                    }
                }
                f.cond.set(None);
                return f;
            }
            if let Some(f) = s.free.pop() {
                return f;
            }
            match s.new_fiber(self) {
                Ok(f) => f,
                // `ensure_next_fiber` ran before every park, and an idle fiber leaves only when
                // a ready one exists.
                Err(e) => panic!("offshoot: cannot map a stack for a worker ({e})"),
            }
        })
    }
}

/// The per-worker state as a field of `Worker`.
pub(crate) struct FiberState {
    sched: UnsafeCell<Sched>,
    remote: Remote,
    /// Set while `Worker::with_sched` lends the `Sched` (debug builds).
    #[cfg(debug_assertions)]
    lent: Cell<bool>,
}

/// A loan of the `Sched` (debug builds): panics if one is already out.
#[cfg(debug_assertions)]
struct Lent<'a>(&'a Cell<bool>);

#[cfg(debug_assertions)]
impl<'a> Lent<'a> {
    fn take(flag: &'a Cell<bool>) -> Lent<'a> {
        assert!(
            !flag.replace(true),
            "offshoot: internal error: the scheduler state was lent twice at once"
        );
        Lent(flag)
    }
}

#[cfg(debug_assertions)]
impl Drop for Lent<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

impl FiberState {
    pub(crate) fn new() -> FiberState {
        FiberState {
            sched: UnsafeCell::new(Sched::new(0)),
            remote: Remote::new(),
            #[cfg(debug_assertions)]
            lent: Cell::new(false),
        }
    }

    pub(crate) fn remote(&self) -> &Remote {
        &self.remote
    }
}
