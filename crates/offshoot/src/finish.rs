//! `finish` and `spawn`: a dynamically scoped join (HJ's `finish`, OPA's `join` block), and
//! the finish frames that `scope` shares.
//!
//! A finish owns a [`FinishState`] (on the owner's stack) and pushes an owner
//! [`FinishFrame`]. `spawn` boxes the task and appends it to the *current* finish frame of
//! the calling worker — the owner frame, or a **proxy** frame that a thief pushes when it
//! runs work belonging to that finish — so spawning needs no atomic read-modify-write. A
//! thief's request may take the oldest pending task of a frame. When a frame ends, its owner
//! runs the tasks still pending, newest first (or drops them if the finish failed). A
//! *fifo* finish (`scope_fifo`) reverses both ends: its frames run their tasks oldest
//! first, and a thief takes the newest.
//! Futures (`sync::spawn_future`) are pending tasks too; they sit on a second, intrusive
//! list of the frame so that a `get` on the owner can take one back with a pointer compare
//! (`FinishFrame::take_linked`).
//!
//! Counting: `outstanding` counts *proxy frames that hold pending tasks or run a task taken
//! from a frame*, plus tasks parked in the inbox. The owner frame itself is not counted: its
//! owner drains it before waiting. The finish ends when its body and drain are done and
//! `outstanding` is zero.
//!
//! Invariants:
//! * `FinishState` lives in the owner's frame, which waits for `outstanding == 0` on every
//!   path out (return or unwind); whoever takes `outstanding` to zero touches only the
//!   owner worker afterwards, never the state.
//! * A proxy that never received a spawn never touched `outstanding`: it is alive only
//!   while the stolen job it wraps runs, and that job is inside the finish's extent.
//! * The first failure (panic, `Err` of a `try_` task, or a stop from an enclosing region)
//!   is kept; later ones are dropped; every worker is asked to scan for the cancelled region.
//! * Tasks of a failed finish that have not started are dropped, never run.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::frame::{Frame, FrameKind, FrameVTable};
use crate::job::{JobHeader, JobRef, Mode};
use crate::unwind::Payload;
use crate::unwind::{is_stopped, raise_stopped};
use crate::worker::Worker;

/// Why a finish failed.
pub(crate) enum Failure {
    /// A task panicked; the payload resumes in the finish's caller.
    Panic(Payload),
    /// A task of a `try_` construct returned `Err` (boxed).
    Error(Box<dyn Any + Send>),
    /// An enclosing region was cancelled; the finish stops and unwinds as stopped.
    Stopped,
    /// A client ended the region early without a failure — a eureka resolved (`eureka/`):
    /// its tasks stop like a failure's siblings, and the region's caller decides what the
    /// region returns.
    Resolved,
}

/// The shared part of one finish.
pub(crate) struct FinishState {
    outstanding: AtomicUsize,
    /// Set (release) once `failure` holds the first failure; written only under its lock.
    failed: AtomicBool,
    failure: Mutex<FailureSlot>,
    owner: *const Worker,
    inbox: Mutex<VecDeque<JobRef>>,
    inbox_len: AtomicUsize,
    /// Tasks run oldest first (`scope_fifo`); each frame of the finish copies it when it is
    /// made (`FinishFrame::fifo`), and the inbox reads it here.
    fifo: bool,
    /// The finish whose extent this one began in (null for a root finish): the logical
    /// parent, also on a thief, where the worker's current frame belongs to another chain.
    /// It outlives this finish, which ends inside its extent.
    parent: *const FinishState,
    /// What a client attached to this region for its extent (a eureka), uninterpreted
    /// here: see [`Attachment`].
    attachment: Option<Attachment>,
    /// The work and span of the tasks that ended, when the pool measures them (`metrics/`).
    pub(crate) meter: crate::metrics::Acc,
}

/// A finish's failure, behind its lock (see `caught.rs` for the early panics).
#[derive(Default)]
struct FailureSlot {
    /// The first failure, until the finish takes it.
    first: Option<Failure>,
    /// `first` is a panic caught before any region around this one had failed.
    first_early: bool,
    /// Panics caught before a region on this chain failed and passed on after.
    early: Vec<crate::caught::PanicKey>,
}

// SAFETY: the raw pointers are to the owner worker (alive as long as its registry) and to
// jobs that are `Send`; every mutable field is atomic or behind a mutex.
unsafe impl Sync for FinishState {}
// SAFETY: as above.
unsafe impl Send for FinishState {}

impl FinishState {
    fn new(owner: &Worker, root: bool, fifo: bool, attachment: Option<Attachment>) -> FinishState {
        let current = owner.current_finish();
        FinishState {
            outstanding: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            failure: Mutex::new(FailureSlot::default()),
            owner,
            inbox: Mutex::new(VecDeque::new()),
            inbox_len: AtomicUsize::new(0),
            fifo,
            meter: crate::metrics::Acc::new(),
            // A root finish's current frame is the worker's own, unrelated to it.
            parent: if root || current.is_null() {
                ptr::null()
            } else {
                // SAFETY: the current finish frame is live while the code that opens this
                // finish runs.
                unsafe { (*current).state }
            },
            attachment,
        }
    }

    /// The finish whose extent this one began in (null: none).
    pub(crate) fn parent(&self) -> *const FinishState {
        self.parent
    }

    /// What a client attached to this region ([`finish_attached`]).
    pub(crate) fn attachment(&self) -> Option<Attachment> {
        self.attachment
    }

    pub(crate) fn outstanding(&self) -> usize {
        self.outstanding.load(Ordering::Acquire)
    }

    pub(crate) fn inbox_len(&self) -> usize {
        self.inbox_len.load(Ordering::Acquire)
    }

    pub(crate) fn has_failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    fn acquire(&self) {
        self.outstanding.fetch_add(1, Ordering::Relaxed);
    }

    /// Gives back one count. After the count reaches zero the state may vanish at once (its
    /// owner's frame returns), so only the owner worker (read beforehand) is touched — and
    /// the state is reached through a raw pointer, never a `&FinishState` that would have
    /// to stay valid until this function returns (the `Arc::drop` pitfall).
    ///
    /// # Safety
    /// `this` is a live finish state of which the caller holds a count, given back here.
    unsafe fn release(this: *const FinishState) {
        // SAFETY: the caller's count keeps the state alive until the decrement; the places
        // are read through the raw pointer (only the atomic is borrowed, for the call).
        let (owner, last) = unsafe {
            let owner = (*this).owner;
            (
                owner,
                (*this).outstanding.fetch_sub(1, Ordering::AcqRel) == 1,
            )
        };
        if last {
            // SAFETY: workers live as long as their registry, which outlives all work.
            unsafe { (*owner).kick() };
        }
    }

    /// Records `f` if it is the first failure and asks every worker to stop the tasks of
    /// this finish. Returns whether `f` is now the finish's failure: the first, or an early
    /// panic (`caught.rs`) that takes the place of a stop or resolution recorded before it
    /// arrived.
    pub(crate) fn fail(&self, f: Failure) -> bool {
        let mut slot = self.lock_failure();
        // Every writer of `failed` holds the lock.
        if self.failed.load(Ordering::Relaxed) {
            let early_over_stop = match (&f, &slot.first) {
                (Failure::Panic(p), Some(Failure::Stopped | Failure::Resolved)) => {
                    crate::caught::is_noted(&slot.early, p)
                }
                _ => false,
            };
            if early_over_stop {
                // The stops were asked for already; the panic only takes the stop's place.
                slot.first = Some(f);
                slot.first_early = true;
            }
            return early_over_stop;
        }
        slot.first_early = match &f {
            Failure::Panic(p) => {
                crate::caught::is_noted(&slot.early, p) || crate::caught::chain_clean(self.parent)
            }
            _ => false,
        };
        slot.first = Some(f);
        // Release: pairs with the acquire loads of `has_failed`, so code that sees the
        // finish failed sees it failed for good (the failure itself is read under the lock).
        self.failed.store(true, Ordering::Release);
        drop(slot);
        // SAFETY: see `release`.
        unsafe { (*self.owner).registry().broadcast_stop() };
        true
    }

    fn lock_failure(&self) -> std::sync::MutexGuard<'_, FailureSlot> {
        self.failure.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records that the panic with `key` was caught before a region on this chain failed
    /// (`caught::note_early`).
    pub(crate) fn note_early(&self, key: crate::caught::PanicKey) {
        let mut slot = self.lock_failure();
        if !slot.early.contains(&key) {
            slot.early.push(key);
        }
    }

    /// Records a task's panic payload (a stop counts as [`Failure::Stopped`]).
    pub(crate) fn fail_with(&self, p: Payload) {
        if is_stopped(&p) {
            self.fail(Failure::Stopped);
        } else {
            self.fail(Failure::Panic(p));
        }
    }

    /// Cancels the finish because an enclosing region was cancelled.
    pub(crate) fn cancel(&self) {
        self.fail(Failure::Stopped);
    }

    /// Takes the first failure, once every task has ended. An early panic's stamp goes on
    /// to the regions around this one (`caught.rs`), as it is passed on to them.
    fn take_failure(&self) -> Option<Failure> {
        if !self.has_failed() {
            return None;
        }
        let mut slot = self.lock_failure();
        let f = slot.first.take();
        let early = std::mem::take(&mut slot.first_early);
        drop(slot);
        if let (Some(Failure::Panic(p)), true) = (&f, early) {
            crate::caught::note_early(self.parent, p);
        }
        f
    }

    /// The finish state of the code running on this thread (null outside every pool, or
    /// outside every finish).
    pub(crate) fn current() -> *const FinishState {
        let w = Worker::current();
        if w.is_null() {
            return ptr::null();
        }
        // SAFETY: the current worker is run by this thread; its current finish frame, if
        // any, is live while the calling code runs.
        unsafe {
            let fr = (*w).current_finish();
            if fr.is_null() {
                ptr::null()
            } else {
                (*fr).state()
            }
        }
    }

    /// Parks a task whose finish has no frame on the spawning thread.
    ///
    /// # Safety
    /// `this` is a live finish state (the caller runs inside it or holds a handle bound to
    /// it); it may vanish once the task is in (see `push_inbox_counted`).
    unsafe fn push_inbox(this: *const FinishState, job: JobRef) {
        // SAFETY: live per the contract; the new count then keeps it so until the push.
        unsafe {
            (*this).acquire();
            Self::push_inbox_counted(this, job);
        }
    }

    /// Like `push_inbox`, for a task whose count was taken already.
    ///
    /// # Safety
    /// `this` is a live finish state of which the caller holds a count, passed to `job`.
    /// Like [`FinishState::release`], this reaches the state through the raw pointer: once
    /// the task is in, it may run and end the finish, and the state vanish.
    unsafe fn push_inbox_counted(this: *const FinishState, job: JobRef) {
        // SAFETY: the count keeps the state alive until the job is in; after that only the
        // owner (read before) is touched. The inbox lock is borrowed for the push alone.
        let owner = unsafe {
            let owner = (*this).owner;
            let mut inbox = (*this).inbox.lock().unwrap_or_else(|e| e.into_inner());
            inbox.push_back(job);
            (*this).inbox_len.store(inbox.len(), Ordering::Release);
            drop(inbox);
            owner
        };
        // SAFETY: see `release`.
        unsafe {
            let owner = &*owner;
            owner.kick();
            owner.registry().wake_one(None);
        }
    }

    fn pop_inbox(&self) -> Option<JobRef> {
        if self.inbox_len() == 0 {
            return None;
        }
        let mut inbox = self.inbox.lock().unwrap_or_else(|e| e.into_inner());
        let j = if self.fifo {
            inbox.pop_front()
        } else {
            inbox.pop_back()
        };
        self.inbox_len.store(inbox.len(), Ordering::Release);
        j
    }
}

/// A finish's frame on one worker: the owner's, or a proxy on a worker running its work.
#[repr(C)]
pub(crate) struct FinishFrame {
    frame: Frame,
    pub(crate) state: *const FinishState,
    pending: UnsafeCell<VecDeque<JobRef>>,
    /// The newest of the frame's pending *futures* (`sync::spawn_future`), an intrusive
    /// stack through [`LinkedJob::below`]: a `get` takes its future back from the top with
    /// two plain loads and a store. Thieves take the bottom one.
    linked: Cell<*const LinkedJob>,
    /// A proxy holds one count of `outstanding` once it has pending tasks or runs a task
    /// taken from another frame.
    registered: Cell<bool>,
    is_owner: bool,
    /// The finish's `fifo` flag, copied when the frame is made: an empty proxy that holds
    /// no count must not read its state while it leaves (the finish may have ended).
    fifo: bool,
    /// The owner frame of a root finish (`ThreadPool::run` entered from outside the pool):
    /// a stop boundary like a proxy (see `bounds_stops`).
    is_root: bool,
    /// The worker's current finish frame before this one.
    parent: *const FinishFrame,
}

unsafe fn finish_has_work(f: *const Frame) -> bool {
    // SAFETY: the Finish table is only installed on `FinishFrame`s, which are live while
    // in the chain; only the owning worker calls this.
    unsafe {
        let f = &*(f as *const FinishFrame);
        // Tasks of a failed finish are never handed out: their owner drops them.
        !(*f.state).has_failed() && f.has_local_work()
    }
}

unsafe fn finish_offer(
    f: *const Frame,
    _w: &Worker,
    _thief: usize,
    _ctx: *const FinishState,
) -> JobRef {
    // SAFETY: as in `finish_has_work`.
    unsafe {
        let f = &*(f as *const FinishFrame);
        let state = &*f.state;
        let pending = &mut *f.pending.get();
        if pending.len() >= 2 {
            // Stock mode (000 §6.2.2): the thief gets the older half of the pending tasks
            // (the newer half in a fifo finish, whose owner runs the oldest first) as one
            // batch, which it can split again; the batch holds one count.
            // The `Batch` is built here, outside the closure, so that dropping the closure
            // unrun (its finish failed) discards the tasks instead of leaking them.
            let half = pending.len() / 2;
            let batch = if f.fifo {
                Batch(pending.drain(pending.len() - half..).collect())
            } else {
                Batch(pending.drain(..half).collect())
            };
            state.acquire();
            HeapJob::into_job(move || batch.unpack(), Some(_w), f.state)
        } else if let Some(job) = if f.fifo {
            pending.pop_back()
        } else {
            pending.pop_front()
        } {
            // The thief's proxy will hold a count of its own for this task.
            state.acquire();
            job
        } else if let Some(job) = f.take_oldest_linked() {
            state.acquire();
            job
        } else {
            // An inbox task already holds its count: it passes to the thief.
            state
                .pop_inbox()
                .expect("offshoot: finish frame offered work it did not have")
        }
    }
}

unsafe fn finish_cancelled(f: *const Frame) -> bool {
    // SAFETY: as in `finish_has_work`; the state outlives every frame of the finish.
    unsafe { (*(*(f as *const FinishFrame)).state).has_failed() }
}

static FINISH_FRAME: FrameVTable = FrameVTable {
    kind: FrameKind::Finish,
    has_work: finish_has_work,
    offer: finish_offer,
    cancelled: finish_cancelled,
    answer: None,
};

impl FinishFrame {
    /// A frame for `state` on `w`; call [`FinishFrame::enter`] once it sits at its final
    /// address. `is_owner`: the finish's own frame (else a proxy).
    pub(crate) fn new(w: &Worker, state: *const FinishState, is_owner: bool) -> FinishFrame {
        Self::with_root(w, state, is_owner, false)
    }

    fn with_root(
        w: &Worker,
        state: *const FinishState,
        is_owner: bool,
        is_root: bool,
    ) -> FinishFrame {
        FinishFrame {
            frame: Frame {
                prev: w.head(),
                vtable: Cell::new(Some(&FINISH_FRAME)),
            },
            state,
            pending: UnsafeCell::new(VecDeque::new()),
            linked: Cell::new(ptr::null()),
            registered: Cell::new(false),
            is_owner,
            // SAFETY: a frame is made for a live finish (its body or one of its tasks runs).
            fifo: unsafe { (*state).fifo },
            is_root,
            parent: w.current_finish(),
        }
    }

    /// Links the frame into `w`'s chain and makes it the current finish frame.
    pub(crate) fn enter(&self, w: &Worker) {
        w.push(self as *const FinishFrame as *const Frame);
        w.set_current_finish(self);
    }

    /// Whether the frame holds tasks its owner should run: pending ones, or (owner frame)
    /// tasks in the inbox.
    pub(crate) fn has_local_work(&self) -> bool {
        // SAFETY: the frame is linked, so it and its state are live; only its owner calls.
        unsafe {
            !(*self.pending.get()).is_empty()
                || !self.linked.get().is_null()
                || (self.is_owner && (*self.state).inbox_len() > 0)
        }
    }

    /// Ends a proxy: runs (or drops) its pending tasks, unlinks it and gives back its count.
    pub(crate) fn leave(&self, w: &Worker) {
        debug_assert!(!self.is_owner);
        self.drain(w);
        self.unlink(w);
        if self.registered.get() {
            // SAFETY: a registered proxy holds a count, given back here.
            unsafe { FinishState::release(self.state) };
        }
    }

    fn unlink(&self, w: &Worker) {
        w.pop(self as *const FinishFrame as *const Frame);
        w.set_current_finish(self.parent);
        if self.bounds_stops() {
            w.stop_boundary_left();
        }
    }

    /// Whether this frame is a stop boundary (`frame.rs`): a proxy, under which a thief runs
    /// work it took from elsewhere — a spawned task, or a stolen job, of this frame's finish
    /// — or the owner frame of a root finish. What runs above it belongs to this finish, not
    /// to the regions of the frames below it, which are the thief's own (it may have taken
    /// the work while waiting in one of them): their cancellation must not stop it. A
    /// failure of those regions that concerns this work reaches it through this finish, or
    /// through the marker of the stolen job, both of which the boundary's scan includes.
    pub(crate) fn bounds_stops(&self) -> bool {
        !self.is_owner || self.is_root
    }

    /// The finish this frame belongs to.
    pub(crate) fn state(&self) -> *const FinishState {
        self.state
    }

    /// The worker's current finish frame before this one (null for the outermost).
    pub(crate) fn parent(&self) -> *const FinishFrame {
        self.parent
    }

    /// Takes `job` back from this frame's pending futures if it is still there (owner worker
    /// only): the caller then owns the job and must execute it. The newest is looked at
    /// first, so a future got in the order futures were made costs one comparison.
    #[inline]
    pub(crate) fn take_linked(&self, job: *const LinkedJob) -> bool {
        let top = self.linked.get();
        if ptr::eq(top, job) {
            // SAFETY: linked jobs are live while on the list (their task's count).
            self.linked.set(unsafe { (*job).below.get() });
            return true;
        }
        self.take_linked_deeper(top, job)
    }

    #[cold]
    fn take_linked_deeper(&self, mut above: *const LinkedJob, job: *const LinkedJob) -> bool {
        while !above.is_null() {
            // SAFETY: as in `take_linked`.
            unsafe {
                let next = (*above).below.get();
                if ptr::eq(next, job) {
                    (*above).below.set((*job).below.get());
                    return true;
                }
                above = next;
            }
        }
        false
    }

    /// Takes the oldest pending future (owner worker only).
    fn take_oldest_linked(&self) -> Option<JobRef> {
        let mut above: *const LinkedJob = ptr::null();
        let mut j = self.linked.get();
        if j.is_null() {
            return None;
        }
        // SAFETY: as in `take_linked`.
        unsafe {
            while !(*j).below.get().is_null() {
                above = j;
                j = (*j).below.get();
            }
            if above.is_null() {
                self.linked.set(ptr::null());
            } else {
                (*above).below.set(ptr::null());
            }
        }
        Some(JobRef(j as *const JobHeader))
    }

    /// Pushes a future's job onto this frame (owner worker only).
    #[inline]
    pub(crate) fn push_linked(&self, job: *const LinkedJob) {
        self.register();
        // SAFETY: the caller passes a live job that is on no list.
        unsafe { (*job).below.set(self.linked.get()) };
        self.linked.set(job);
    }

    /// A proxy takes a count of its finish before it first holds a task.
    #[inline]
    fn register(&self) {
        if !self.is_owner && !self.registered.get() {
            // SAFETY: a proxy is in the chain only while its finish is alive.
            unsafe { (*self.state).acquire() };
            self.registered.set(true);
        }
    }

    /// Appends a task to this frame (owner worker only); returns how many are pending now.
    pub(crate) fn push_task(&self, job: JobRef) -> usize {
        self.register();
        // SAFETY: only the owning worker touches `pending`.
        let pending = unsafe { &mut *self.pending.get() };
        pending.push_back(job);
        pending.len()
    }

    /// Runs the pending tasks newest first (oldest first in a fifo finish) — and, on the
    /// owner frame, the tasks parked in the inbox — or drops them once the finish has
    /// failed. Tasks that these tasks spawn onto this frame are drained too.
    pub(crate) fn drain(&self, w: &Worker) {
        let fifo = self.fifo;
        loop {
            // SAFETY: only the owning worker touches `pending`; the borrow ends before the
            // task runs (the task may push more).
            let job = unsafe {
                let pending = &mut *self.pending.get();
                if fifo {
                    pending.pop_front()
                } else {
                    pending.pop_back()
                }
            }
            .or_else(|| {
                let top = self.linked.get();
                (!top.is_null()).then(|| {
                    // SAFETY: linked jobs are live while on the list.
                    self.linked.set(unsafe { (*top).below.get() });
                    JobRef(top as *const JobHeader)
                })
            });
            if let Some(job) = job {
                // SAFETY: the state is alive while this frame is linked.
                let mode = if unsafe { (*self.state).has_failed() } {
                    Mode::Discard
                } else {
                    Mode::Inline
                };
                // SAFETY: a pending task belongs to this frame's owner, which is `w`.
                unsafe { job.execute(w, mode) };
                continue;
            }
            if !(self.is_owner && self.run_one_inbox(w)) {
                break;
            }
        }
    }

    /// Runs one task from the finish's inbox, if any. Owner frame only.
    fn run_one_inbox(&self, w: &Worker) -> bool {
        // SAFETY: the owner frame's state lives in the owner's frame, which is running.
        let state = unsafe { &*self.state };
        let Some(job) = state.pop_inbox() else {
            return false;
        };
        let mode = if state.has_failed() {
            Mode::Discard
        } else {
            Mode::Inline
        };
        // SAFETY: popping from the inbox made the job ours.
        unsafe { job.execute(w, mode) };
        // SAFETY: the inbox task's count, given back now that it ran.
        unsafe { FinishState::release(self.state) };
        true
    }
}

/// The start of a job that sits on a frame's intrusive list of pending futures: its
/// `execute` pointer first, like every job (see `job.rs`).
#[repr(C)]
pub(crate) struct LinkedJob {
    pub(crate) execute: unsafe fn(*const JobHeader, &Worker, Mode),
    /// The next older job on the list (owner worker only).
    pub(crate) below: Cell<*const LinkedJob>,
}

/// A spawned task: its `execute` pointer first (every job starts with one, see `job.rs`),
/// then its finish and its closure. Small tasks live in recycled blocks of the workers'
/// block caches (`Worker::alloc_block`), big ones in a plain `Box`.
#[repr(C)]
struct HeapJob<F> {
    execute: unsafe fn(*const JobHeader, &Worker, Mode),
    finish: *const FinishState,
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    /// Whether this task fits a recycled block.
    const IN_BLOCK: bool = crate::worker::fits_block(
        std::mem::size_of::<HeapJob<F>>(),
        std::mem::align_of::<HeapJob<F>>(),
    );

    /// A task for `func` in `state`. `w` is the calling thread's worker, if any (its block
    /// cache is used; from outside a pool blocks come from the allocator).
    fn into_job(func: F, w: Option<&Worker>, state: *const FinishState) -> JobRef {
        // In a pool that measures work and span the task begins a strand of its own, from
        // the spawner's clock if the spawner runs on a worker of that pool (from zero if
        // not: its work still counts).
        // SAFETY: the state is live (the caller holds a count or runs in its extent); its
        // owner worker lives as long as its registry.
        let owner = unsafe { &*(*state).owner };
        if owner.meter().on() {
            let here = w.map_or_else(Worker::current, |w| w as *const Worker);
            // SAFETY: a non-null current worker is run by this thread.
            let start = match unsafe { here.as_ref() } {
                Some(h) if ptr::eq(h.registry(), owner.registry()) => h.meter().checkpoint(),
                _ => crate::metrics::Clock::ZERO,
            };
            return HeapJob::into_job_raw(metered_task(start, state, func), w, state);
        }
        Self::into_job_raw(func, w, state)
    }

    fn into_job_raw(func: F, w: Option<&Worker>, state: *const FinishState) -> JobRef {
        let job = HeapJob {
            execute: Self::execute,
            finish: state,
            func,
        };
        let p: *mut HeapJob<F> = if Self::IN_BLOCK {
            let b = crate::worker::alloc_block(w) as *mut HeapJob<F>;
            // SAFETY: a block is big and aligned enough for `HeapJob<F>` (IN_BLOCK) and
            // unused.
            unsafe { b.write(job) };
            b
        } else {
            Box::into_raw(Box::new(job))
        };
        JobRef(p as *const JobHeader)
    }

    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        let p = h as *mut HeapJob<F>;
        // SAFETY: `h` came from `into_job` and is executed exactly once (pending lists and
        // the inbox hand each job to one owner): move the task out and free its memory.
        let HeapJob { finish, func, .. } = unsafe {
            let job = p.read();
            if Self::IN_BLOCK {
                crate::worker::free_block(Some(w), p as *mut u8);
            } else {
                drop(Box::from_raw(p as *mut std::mem::ManuallyDrop<HeapJob<F>>));
            }
            job
        };
        // SAFETY: the finish waits for this task (it holds a count, or sits in the frame of
        // the running owner), so the state is alive until the task ends.
        let state = unsafe { &*finish };
        match mode {
            Mode::Discard => {
                // The finish has failed already; a panic of the closure's destructor is a
                // later failure, so it is dropped (first failure wins) — but it must not
                // unwind out of the drain that discards the task.
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| drop(func))) {
                    state.fail_with(p);
                }
            }
            Mode::Inline => run_task(w, state, func),
            // SAFETY: handed out, so its count was taken (see `run_stolen_task`).
            Mode::Stolen => unsafe { run_stolen_task(w, finish, func, |_| {}) },
        }
    }
}

/// A task of the finish `state` as a strand of its own that begins at `start` and reports
/// its work and span to the finish when it ends (`metrics/`).
fn metered_task<F: FnOnce() + Send>(
    start: crate::metrics::Clock,
    state: *const FinishState,
    f: F,
) -> impl FnOnce() + Send {
    let state = state as usize;
    move || {
        // SAFETY: the finish waits for this task, so its state is live while it runs.
        unsafe { run_metered(start, state as *const FinishState, f) };
    }
}

/// Runs `f`, a task of the finish `state`, as a strand that begins at `start`; reports its
/// work and span to the finish and returns its value and the clock it ended at (a future's
/// task stamps its value with it).
///
/// # Safety
/// `state` is live until this returns (the finish waits for the task).
pub(crate) unsafe fn run_metered<R>(
    start: crate::metrics::Clock,
    state: *const FinishState,
    f: impl FnOnce() -> R,
) -> (R, crate::metrics::Clock) {
    // SAFETY: a task runs on a worker, which is current on its thread.
    let saved = unsafe { (*Worker::current()).meter() }.begin(start);
    let r = f();
    // SAFETY: as above (a parked task resumes on the worker that ran it).
    let end = unsafe { (*Worker::current()).meter() }.end(saved);
    // SAFETY: per the contract.
    unsafe { (*state).meter.child(&start, &end) };
    (r, end)
}

/// Runs a task that a thief received from a frame of the finish `state`: under a proxy
/// frame of that finish, which takes over the count the frame took when it handed the task
/// out. `then` runs after the task, still inside the proxy's extent, so it may use the
/// state. `state` is a raw pointer because the proxy's `leave` gives that count back, after
/// which the state may vanish while this function still runs (a `&FinishState` argument
/// would have to stay valid until it returns).
///
/// # Safety
/// `state` is live, and its count for the task was taken when the task was handed out.
pub(crate) unsafe fn run_stolen_task(
    w: &Worker,
    state: *const FinishState,
    func: impl FnOnce(),
    then: impl FnOnce(&FinishState),
) {
    let proxy = FinishFrame::new(w, state, false);
    proxy.registered.set(true);
    proxy.enter(w);
    {
        // SAFETY: the proxy's count keeps the state alive until `leave` below.
        let state = unsafe { &*state };
        run_task(w, state, func);
        then(state);
    }
    proxy.leave(w);
}

/// Tasks handed out together. Unpacked on the thief into its frame of the same finish
/// (where further thieves can take half again); if the batch is dropped unrun (its finish
/// failed), every task in it is discarded.
struct Batch(Vec<JobRef>);

impl Batch {
    fn unpack(mut self) {
        let w = Worker::current();
        assert!(!w.is_null(), "offshoot: a task batch ran outside a worker");
        // SAFETY: the current worker is run by this thread; a batch runs as a task of its
        // finish, under that worker's frame for it.
        let frame = unsafe { &*(*w).current_finish() };
        for job in std::mem::take(&mut self.0) {
            let _ = frame.push_task(job);
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let w = Worker::current();
        assert!(
            !w.is_null(),
            "offshoot: a task batch was dropped outside a worker"
        );
        for job in self.0.drain(..) {
            // SAFETY: the batch owns these jobs; discarding runs no user code but drops.
            unsafe { job.execute(&*w, Mode::Discard) };
        }
    }
}

/// Runs a task of the finish `state` on `w` as a new task; its panic fails the finish.
pub(crate) fn run_task(w: &Worker, state: &FinishState, func: impl FnOnce()) {
    if let Err(p) = w.as_new_task(|| {
        catch_unwind(AssertUnwindSafe(|| {
            w.poll();
            func()
        }))
    }) {
        state.fail_with(p);
    }
}

/// Where `spawn` and its relatives may be called, as the panic message says it.
pub(crate) const INSIDE_ANY_FINISH: &str = "offshoot::finish, offshoot::scope or ThreadPool::run";

/// The state of the calling task's innermost finish. Panics, naming `caller` and where it
/// belongs (`inside`), when called outside every pool.
fn innermost_finish(caller: &str, inside: &str) -> *const FinishState {
    let (_, frame) = innermost_frame(caller, inside);
    // SAFETY: see `innermost_frame`: the frame is live while the calling task runs.
    unsafe { (*frame).state }
}

/// The calling thread's worker and its current finish frame. Panics, naming `caller` and
/// where it belongs (`inside`), when called outside every pool.
pub(crate) fn innermost_frame(caller: &str, inside: &str) -> (*const Worker, *const FinishFrame) {
    let w = Worker::current();
    assert!(
        !w.is_null(),
        "{caller} called outside every pool: there is no finish to join the task; call it \
         inside {inside}"
    );
    // SAFETY: the current worker is run by this thread; work always runs inside a finish
    // frame, so the current finish frame is set, and live while the calling task runs.
    (w, unsafe { (*w).current_finish() })
}

/// One count of a finish taken ahead of a task that will be spawned later, from any thread
/// (a data-driven task, `sync::spawn_when`): the finish cannot end while it is held.
pub(crate) struct Reservation {
    state: *const FinishState,
}

// SAFETY: the state outlives the reservation (it holds a count the finish waits for), and
// every operation on it used here is thread-safe (atomics, the inbox mutex).
unsafe impl Send for Reservation {}

impl Reservation {
    /// Reserves a count of the innermost finish of the calling task.
    ///
    /// # Panics
    /// Outside every pool.
    pub(crate) fn take() -> Reservation {
        Reservation::take_for("offshoot::sync::spawn_when")
    }

    /// [`Reservation::take`] for the public function `caller` (named by the panic).
    pub(crate) fn take_for(caller: &str) -> Reservation {
        let state = innermost_finish(caller, INSIDE_ANY_FINISH);
        // SAFETY: the state is live: this task runs inside its finish.
        unsafe { (*state).acquire() };
        Reservation { state }
    }

    /// Spawns `f` with the reserved count (into the finish's inbox, which its owner drains).
    pub(crate) fn spawn<F: FnOnce() + Send>(self, f: F) {
        let state = self.state;
        std::mem::forget(self);
        // SAFETY: the reserved count keeps the state alive; it passes to the queued task.
        unsafe { FinishState::push_inbox_counted(state, HeapJob::into_job(f, None, state)) };
    }
}

impl Reservation {
    /// The reserved finish, as a copyable handle for spawning into it while the
    /// reservation is held (an actor's drain tasks, `actor/`). A copy, so that spawning
    /// borrows nothing of the reservation, which its holder may give back on another
    /// thread as soon as the spawned task runs.
    pub(crate) fn finish(&self) -> ReservedFinish {
        ReservedFinish(self.state)
    }
}

/// A finish that a [`Reservation`] counts in (see [`Reservation::finish`]).
#[derive(Clone, Copy)]
pub(crate) struct ReservedFinish(*const FinishState);

// SAFETY: only a pointer; what `spawn` does with it is thread-safe (see `Reservation`).
unsafe impl Send for ReservedFinish {}
// SAFETY: as above.
unsafe impl Sync for ReservedFinish {}

impl ReservedFinish {
    /// Spawns `f` into the finish, from any thread, as [`spawn_into`] does (onto the
    /// calling worker's frame of that finish if it has one, offered to other workers as
    /// `handoff` says, else into its inbox). Inside an `isolated` section it goes to the
    /// inbox: the task is not a parallel construct of the section (nothing in the section
    /// waits for it; it runs after, as any other task), so the section's check for those
    /// does not apply.
    ///
    /// # Safety
    /// The reservation this came from is held until the call returns, or until the task
    /// spawned here gives it back (the task keeps the finish from ending while it runs).
    pub(crate) unsafe fn spawn<F: FnOnce() + Send>(self, f: F, handoff: Handoff) {
        if Worker::in_isolated() {
            // SAFETY: the held reservation keeps the state live (the caller's contract).
            unsafe { FinishState::push_inbox(self.0, HeapJob::into_job(f, None, self.0)) };
        } else {
            spawn_into(self.0, f, handoff);
        }
    }
}

/// When a task spawned onto the calling worker's frame is offered to other workers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Handoff {
    /// At once: a sleeper is woken with a request posted here, and a waiting request is
    /// answered.
    Now,
    /// Only once the frame holds another pending task: for a task that continues the
    /// calling one, which is about to end (an actor's handler that sent a message: the
    /// receiver's drain comes next). A task alone on the calling worker's frame is then
    /// neither handed to a waiting thief nor announced to a sleeper; it runs on this
    /// worker when the calling task ends, unless the worker polls first (then a thief may
    /// take it).
    WithOthers,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // SAFETY: as in `spawn`: the count kept the state alive until now; given back here.
        unsafe { FinishState::release(self.state) };
    }
}

/// Spawns `f` into the finish `state`: onto the calling worker's frame of that finish if
/// it has one (the common case, no atomic read-modify-write), else into the finish's inbox.
pub(crate) fn spawn_into<F: FnOnce() + Send>(state: *const FinishState, f: F, handoff: Handoff) {
    Worker::check_not_isolated("spawn");
    let w = Worker::current();
    if !w.is_null() {
        // SAFETY: the current worker is run by this thread.
        let w = unsafe { &*w };
        let mut fr = w.current_finish();
        while !fr.is_null() {
            // SAFETY: frames on the current-finish list are live (LIFO with the chain).
            let frame = unsafe { &*fr };
            if ptr::eq(frame.state, state) {
                let pending = frame.push_task(HeapJob::into_job(f, Some(w), state));
                if handoff == Handoff::WithOthers && pending < 2 {
                    return;
                }
                // A spawned task is real work on this frame, not a seed: a worker asleep
                // for lack of work is woken with a request posted here (answered at the poll
                // below, with half the pending tasks once there are two), rather than
                // finding it at the end of its nap — by then a burst of short tasks that
                // park (phaser members) would all have parked here, and a parked task
                // resumes only on the worker that ran it.
                w.registry().wake_one(Some(w));
                w.poll();
                return;
            }
            fr = frame.parent;
        }
    }
    // The calling thread may be no worker of this pool (or none): no block cache.
    // SAFETY: `state` is a live finish (the caller holds a handle bound to it).
    unsafe { FinishState::push_inbox(state, HeapJob::into_job(f, None, state)) };
}

/// Runs `body` as a finish on `w`: returns once the body and every task spawned under it
/// are done. `Err` carries the first failure.
pub(crate) fn finish_core<R>(
    w: &Worker,
    body: impl FnOnce(&FinishState) -> R,
) -> Result<R, Failure> {
    finish_frame_core(w, false, false, None, body)
}

/// Like [`finish_core`], for a fifo finish (`scope_fifo`): its pending tasks run oldest
/// first on every worker.
pub(crate) fn finish_fifo<R>(
    w: &Worker,
    body: impl FnOnce(&FinishState) -> R,
) -> Result<R, Failure> {
    finish_frame_core(w, false, true, None, body)
}

/// Something a client attaches to a region for its extent — a eureka (`eureka/`) — which
/// the core does not interpret: a pointer to the client's data, and the hooks the region
/// calls once its state sits at its final address (`attach`) and once every task of the
/// region has ended (`detach`). A client recognises its own attachments by their `hooks`
/// (one static per kind) and reads its data back through `data`.
///
/// Invariant: `data` outlives the region (the attaching call returns only after it).
#[derive(Clone, Copy)]
pub(crate) struct Attachment {
    pub(crate) data: std::ptr::NonNull<()>,
    pub(crate) hooks: &'static AttachmentHooks,
}

// SAFETY: the data is the client's, shared by the tasks of the region (any worker); a
// client attaches only data that is `Sync` (the eureka's is a `&dyn Registered`).
unsafe impl Send for Attachment {}

/// The calls a region makes to its [`Attachment`].
pub(crate) struct AttachmentHooks {
    /// The region's state is in place (before its body runs).
    pub(crate) attach: unsafe fn(std::ptr::NonNull<()>, &FinishState),
    /// Every task of the region has ended (also when it failed).
    pub(crate) detach: unsafe fn(std::ptr::NonNull<()>, &FinishState),
}

/// Calls an attachment's `detach` when dropped.
struct Attached<'a>(Attachment, &'a FinishState);

impl Drop for Attached<'_> {
    fn drop(&mut self) {
        // SAFETY: the data outlives the region (the `Attachment` invariant), whose state
        // is `self.1`, still in place.
        unsafe { (self.0.hooks.detach)(self.0.data, self.1) }
    }
}

/// Like [`finish_core`], with `attachment` attached to the region (`eureka::finish`).
pub(crate) fn finish_attached<R>(
    w: &Worker,
    attachment: Attachment,
    body: impl FnOnce(&FinishState) -> R,
) -> Result<R, Failure> {
    finish_frame_core(w, false, false, Some(attachment), body)
}

/// Like [`finish_core`], for the root finish of a job injected by `ThreadPool::run` from
/// outside the pool: its owner frame is a stop boundary, because a worker may run such a
/// job on top of frames of its own that wait (`Registry::run_outside`), which the job does
/// not belong to.
pub(crate) fn finish_root<R>(
    w: &Worker,
    body: impl FnOnce(&FinishState) -> R,
) -> Result<R, Failure> {
    finish_frame_core(w, true, false, None, body)
}

fn finish_frame_core<R>(
    w: &Worker,
    root: bool,
    fifo: bool,
    attachment: Option<Attachment>,
    body: impl FnOnce(&FinishState) -> R,
) -> Result<R, Failure> {
    Worker::check_not_isolated("a finish or scope");
    let state = FinishState::new(w, root, fifo, attachment);
    // Attached once the state sits at its final address, detached once every task of the
    // finish has ended (a eureka's resolution after that has nothing to stop).
    let _attached = attachment.map(|a| {
        // SAFETY: the data outlives the region (the `Attachment` invariant); the state is
        // in place.
        unsafe { (a.hooks.attach)(a.data, &state) };
        Attached(a, &state)
    });
    let frame = FinishFrame::with_root(w, &state, true, root);
    frame.enter(w);
    let r = match catch_unwind(AssertUnwindSafe(|| body(&state))) {
        Ok(v) => Some(v),
        Err(p) => {
            state.fail_with(p);
            None
        }
    };
    // Work/span (`metrics/`): the body's strand ends here; what the owner does until every
    // task has ended (running them, each a strand of its own, or waiting) is not its time.
    let body_end = w.meter().on().then(|| w.meter().checkpoint());
    frame.drain(w);
    w.wait_finish(&state, &frame);
    frame.unlink(w);
    if let Some(tail) = body_end {
        // The finish ends after the longest of its tasks.
        w.meter().set(state.meter.merge_into(tail));
    }
    match state.take_failure() {
        None => Ok(r.expect("offshoot: finish body neither returned nor failed")),
        Some(f) => Err(f),
    }
}

/// Resumes a failure in the caller: the panic's payload, or a stop.
pub(crate) fn resume_failure(f: Failure) -> ! {
    match f {
        Failure::Panic(p) => resume_unwind(p),
        // A resolution ends only its own region (`eureka::finish`); one that reaches here
        // came from a region that is gone: stopping is what the code below it expects.
        Failure::Stopped | Failure::Resolved => raise_stopped(),
        Failure::Error(_) => panic!(
            "offshoot: a task spawned with offshoot::try_spawn returned Err inside a plain \
             finish; use offshoot::try_finish to receive the error"
        ),
    }
}

/// Runs `f` on the current worker, or in the global pool from outside every pool.
pub(crate) fn in_worker<R: Send>(f: impl FnOnce(&Worker) -> R + Send) -> R {
    Worker::check_not_isolated("a finish, scope or a parallel loop");
    let w = Worker::current();
    if w.is_null() {
        return crate::pool::ThreadPool::global().run(|| {
            // SAFETY: `run` executes on a worker of the global pool.
            f(unsafe { &*Worker::current() })
        });
    }
    // SAFETY: the current worker is run by this thread.
    f(unsafe { &*w })
}

/// Runs `body` and waits for every task [`spawn`]ed in its dynamic extent — by `body`, by
/// functions it calls, by spawned tasks, on any worker — before returning its value.
///
/// Outside every pool, `finish` runs in the global pool.
///
/// # Panics
///
/// The first panic of the body or of any task wins: the other tasks are stopped at their
/// next poll point, tasks not yet started never start, and the winning panic resumes in
/// the caller once everything under the finish has ended.
///
/// # Example
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// static COUNT: AtomicUsize = AtomicUsize::new(0);
///
/// fn visit(depth: u32) {
///     COUNT.fetch_add(1, Ordering::Relaxed);
///     if depth > 0 {
///         // Joined by the innermost enclosing finish, not by this function.
///         offshoot::spawn(move || visit(depth - 1));
///         offshoot::spawn(move || visit(depth - 1));
///     }
/// }
///
/// offshoot::finish(|| visit(6));
/// assert_eq!(COUNT.load(Ordering::Relaxed), 127);
/// ```
pub fn finish<R, F>(body: F) -> R
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    in_worker(|w| match finish_core(w, |_| body()) {
        Ok(v) => v,
        Err(f) => resume_failure(f),
    })
}

/// Like [`finish`], for a body and tasks that can fail: the first `Err` (from the body or
/// from a task spawned with [`try_spawn`]) or panic wins; the rest is stopped; once
/// everything has ended the error is returned (or the panic resumed).
///
/// # Panics
///
/// Also panics if a task's error is not an `E` (a `try_spawn` with another error type
/// inside this `try_finish`).
///
/// ```
/// let r: Result<(), String> = offshoot::try_finish(|| {
///     offshoot::try_spawn(|| Err::<(), String>("bad input".into()));
///     Ok(())
/// });
/// assert_eq!(r, Err("bad input".to_string()));
/// ```
pub fn try_finish<R, E, F>(body: F) -> Result<R, E>
where
    F: FnOnce() -> Result<R, E> + Send,
    R: Send,
    E: Send + 'static,
{
    in_worker(|w| try_outcome(finish_core(w, |st| record_err(st, body()))))
}

/// Records `r`'s error in `st` (boxed) and turns `r` into an `Option`.
pub(crate) fn record_err<R, E: Send + 'static>(st: &FinishState, r: Result<R, E>) -> Option<R> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            st.fail(Failure::Error(Box::new(e)));
            None
        }
    }
}

/// The result of a `try_` finish: the value, the first error, or a resumed panic / stop.
pub(crate) fn try_outcome<R, E: 'static>(r: Result<Option<R>, Failure>) -> Result<R, E> {
    match r {
        Ok(Some(v)) => Ok(v),
        Ok(None) => unreachable!("offshoot: an error was recorded but the finish did not fail"),
        Err(Failure::Error(e)) => match e.downcast::<E>() {
            Ok(e) => Err(*e),
            Err(_) => panic!(
                "offshoot: a task under try_finish/try_scope failed with an error of another type \
                 than the construct's `E`; give every try_spawn inside it the same error type"
            ),
        },
        Err(f) => resume_failure(f),
    }
}

/// Spawns `f` as a task of the innermost enclosing [`finish`] (or [`scope`](crate::scope())
/// or [`ThreadPool::run`](crate::ThreadPool::run)): the call returns at once and `f` runs
/// later, on this worker or on one that asked for work.
///
/// Outside every pool there is no finish to join it: then, as rayon's `spawn`, `f` starts
/// in the global pool and nothing waits for it (see [`ThreadPool::spawn`](crate::ThreadPool::spawn);
/// its panic aborts the process unless the global pool was built with a
/// [panic handler](crate::ThreadPoolBuilder::panic_handler)). Inside a pool — where rayon's
/// `spawn` would still detach — offshoot's joins at the innermost finish.
///
/// ```
/// // Outside every pool: fire and forget, on the global pool.
/// let (tx, rx) = std::sync::mpsc::channel();
/// offshoot::spawn(move || tx.send("done").unwrap());
/// assert_eq!(rx.recv().unwrap(), "done");
/// ```
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// let hits = AtomicU32::new(0);
/// let hits = &hits;
/// offshoot::scope(|_| {
///     // `spawn` needs a 'static closure; inside a scope, use `Scope::spawn` to borrow.
///     offshoot::spawn(|| println!("hello from a task"));
///     hits.fetch_add(1, Ordering::Relaxed);
/// });
/// assert_eq!(hits.load(Ordering::Relaxed), 1);
/// ```
pub fn spawn<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    crate::worker::Worker::check_not_isolated("spawn");
    if Worker::current().is_null() {
        crate::detached::spawn_detached(crate::pool::ThreadPool::global().registry(), f);
        return;
    }
    spawn_into(
        innermost_finish("offshoot::spawn", INSIDE_ANY_FINISH),
        f,
        Handoff::Now,
    );
}

/// Like [`spawn`], for a task that can fail: an `Err` fails the innermost enclosing
/// [`try_finish`], which stops the other tasks and returns the error.
///
/// # Panics
///
/// Outside every pool, like [`spawn`]. An `Err` under a plain [`finish`] (not a
/// `try_finish`) makes that finish panic with a message saying so.
///
/// ```
/// let r = offshoot::try_finish(|| {
///     for i in 0..10 {
///         offshoot::try_spawn(move || if i == 7 { Err(i) } else { Ok(()) });
///     }
///     Ok(())
/// });
/// assert_eq!(r, Err(7));
/// ```
pub fn try_spawn<F, E>(f: F)
where
    F: FnOnce() -> Result<(), E> + Send + 'static,
    E: Send + 'static,
{
    crate::worker::Worker::check_not_isolated("spawn");
    let state = innermost_finish("offshoot::try_spawn", "offshoot::try_finish");
    let st = state as usize;
    spawn_into(
        state,
        move || {
            if let Err(e) = f() {
                // SAFETY: the task runs while its finish waits for it.
                let st = unsafe { &*(st as *const FinishState) };
                st.fail(Failure::Error(Box::new(e)));
            }
        },
        Handoff::Now,
    );
}

/// How long each part of `spawn` took for a run of tasks; see [`spawn_phases`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SpawnPhases {
    /// Making the descriptors: a block from the worker's free list, the task written in.
    pub create: std::time::Duration,
    /// Putting them on the worker's frame of the finish, with the poll `spawn` does.
    pub enqueue: std::time::Duration,
    /// Taking them off again and running them (empty), freeing their blocks — plus
    /// waiting for tasks that thieves took.
    pub start: std::time::Duration,
}

/// A measurement probe for the benchmark suite (001's cost split of a task: create,
/// enqueue, start): spawns `n` empty tasks in a new finish on the current worker, one
/// phase at a time for all `n`, and times each phase. Together the phases do what `n`
/// calls of [`spawn`] and the end of their finish do, except that the descriptors wait in
/// a vector between creating and enqueueing.
///
/// Outside every pool it runs in the global pool.
///
/// ```
/// let p = offshoot::probe::spawn_phases(1000);
/// assert!(p.create + p.enqueue + p.start > std::time::Duration::ZERO);
/// ```
#[doc(hidden)]
pub fn spawn_phases(n: usize) -> SpawnPhases {
    use std::time::Instant;
    in_worker(|w| {
        let r = finish_core(w, |state| {
            // SAFETY: `finish_core` made its owner frame the current finish frame of `w`.
            let frame = unsafe { &*w.current_finish() };
            let mut jobs = Vec::with_capacity(n);
            let t0 = Instant::now();
            for _ in 0..n {
                jobs.push(HeapJob::into_job(|| {}, Some(w), state));
            }
            let t1 = Instant::now();
            for job in jobs.drain(..) {
                frame.push_task(job);
                w.poll();
            }
            let t2 = Instant::now();
            frame.drain(w);
            w.wait_finish(state, frame);
            SpawnPhases {
                create: t1 - t0,
                enqueue: t2 - t1,
                start: t2.elapsed(),
            }
        });
        match r {
            Ok(v) => v,
            Err(f) => resume_failure(f),
        }
    })
}
