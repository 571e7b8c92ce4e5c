//! A finish's shared state: the count of what is outstanding, the first failure, the
//! inbox of tasks spawned from outside its frames, its logical parent and its attachment.

use std::any::Any;
use std::collections::VecDeque;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::job::JobRef;
use crate::unwind::is_stopped;
use crate::unwind::Payload;
use crate::worker::Worker;

use super::Attachment;

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
    pub(super) outstanding: AtomicUsize,
    /// Set (release) once `failure` holds the first failure; written only under its lock.
    pub(super) failed: AtomicBool,
    pub(super) failure: Mutex<FailureSlot>,
    pub(super) owner: *const Worker,
    pub(super) inbox: Mutex<VecDeque<JobRef>>,
    pub(super) inbox_len: AtomicUsize,
    /// Tasks run oldest first (`scope_fifo`); each frame of the finish copies it when it is
    /// made (`FinishFrame::fifo`), and the inbox reads it here.
    pub(super) fifo: bool,
    /// The finish whose extent this one began in (null for a root finish): the logical
    /// parent, also on a thief, where the worker's current frame belongs to another chain.
    /// It outlives this finish, which ends inside its extent.
    pub(super) parent: *const FinishState,
    /// What a client attached to this region for its extent (a eureka), uninterpreted
    /// here: see [`Attachment`].
    pub(super) attachment: Option<Attachment>,
    /// The work and span of the tasks that ended, when the pool measures them (`metrics/`).
    pub(crate) meter: crate::metrics::Acc,
}

/// A finish's failure, behind its lock (see `caught.rs` for the early panics).
#[derive(Default)]
pub(super) struct FailureSlot {
    /// The first failure, until the finish takes it.
    pub(super) first: Option<Failure>,
    /// `first` is a panic caught before any region around this one had failed.
    pub(super) first_early: bool,
    /// Panics caught before a region on this chain failed and passed on after.
    pub(super) early: Vec<crate::caught::PanicKey>,
}

// SAFETY: the raw pointers are to the owner worker (alive as long as its registry) and to
// jobs that are `Send`; every mutable field is atomic or behind a mutex.
unsafe impl Sync for FinishState {}
// SAFETY: as above.
unsafe impl Send for FinishState {}

impl FinishState {
    pub(super) fn new(
        owner: &Worker,
        root: bool,
        fifo: bool,
        attachment: Option<Attachment>,
    ) -> FinishState {
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

    /// The states from `region` up its parent chain, innermost first (none for null).
    ///
    /// # Safety
    /// `region` is null or the state of a finish whose extent the calling code runs in, and
    /// the items are used only while that code runs: each state encloses the one below it,
    /// which is still running, so all of them are live.
    pub(crate) unsafe fn chain<'a>(region: *const FinishState) -> impl Iterator<Item = &'a Self> {
        let mut st = region;
        std::iter::from_fn(move || {
            // SAFETY: per the contract, `st` is null or a live state of the chain.
            let s: &'a FinishState = unsafe { st.as_ref() }?;
            st = s.parent;
            Some(s)
        })
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

    pub(super) fn acquire(&self) {
        self.outstanding.fetch_add(1, Ordering::Relaxed);
    }

    /// Gives back one count. After the count reaches zero the state may vanish at once (its
    /// owner's frame returns), so only the owner worker (read beforehand) is touched — and
    /// the state is reached through a raw pointer, never a `&FinishState` that would have
    /// to stay valid until this function returns (the `Arc::drop` pitfall).
    ///
    /// # Safety
    /// `this` is a live finish state of which the caller holds a count, given back here.
    pub(super) unsafe fn release(this: *const FinishState) {
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

    pub(super) fn lock_failure(&self) -> std::sync::MutexGuard<'_, FailureSlot> {
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
    pub(super) fn take_failure(&self) -> Option<Failure> {
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
    pub(super) unsafe fn push_inbox(this: *const FinishState, job: JobRef) {
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
    pub(super) unsafe fn push_inbox_counted(this: *const FinishState, job: JobRef) {
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

    pub(super) fn pop_inbox(&self) -> Option<JobRef> {
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
