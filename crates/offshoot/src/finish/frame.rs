//! A finish's frame on one worker — the owner's, or a proxy on a thief running work of
//! the finish — with its pending tasks and futures, and its table of frame operations.

use std::cell::{Cell, UnsafeCell};
use std::collections::VecDeque;
use std::ptr;

use crate::frame::{Frame, FrameKind, FrameVTable};
use crate::job::{JobHeader, JobRef, Mode};
use crate::worker::Worker;

use super::task::{Batch, HeapJob};
use super::{FinishState, LinkedJob};

/// A finish's frame on one worker: the owner's, or a proxy on a worker running its work.
#[repr(C)]
pub(crate) struct FinishFrame {
    pub(super) frame: Frame,
    pub(crate) state: *const FinishState,
    pub(super) pending: UnsafeCell<VecDeque<JobRef>>,
    /// The newest of the frame's pending *futures* (`sync::spawn_future`), an intrusive
    /// stack through [`LinkedJob::below`]: a `get` takes its future back from the top with
    /// two plain loads and a store. Thieves take the bottom one.
    pub(super) linked: Cell<*const LinkedJob>,
    /// A proxy holds one count of `outstanding` once it has pending tasks or runs a task
    /// taken from another frame.
    pub(super) registered: Cell<bool>,
    pub(super) is_owner: bool,
    /// The finish's `fifo` flag, copied when the frame is made: an empty proxy that holds
    /// no count must not read its state while it leaves (the finish may have ended).
    pub(super) fifo: bool,
    /// The owner frame of a root finish (`ThreadPool::run` entered from outside the pool):
    /// a stop boundary like a proxy (see `bounds_stops`).
    pub(super) is_root: bool,
    /// The worker's current finish frame before this one.
    pub(super) parent: *const FinishFrame,
}

/// # Safety
/// `f` is a `FinishFrame` (this table is installed on no other frame) that is linked in the
/// calling worker's chain, running or parked; called by that worker only.
unsafe fn finish_has_work(f: *const Frame) -> bool {
    // SAFETY: the Finish table is only installed on `FinishFrame`s, which are live while
    // in the chain; only the owning worker calls this.
    unsafe {
        let f = &*(f as *const FinishFrame);
        // Tasks of a failed finish are never handed out: their owner drops them.
        !(*f.state).has_failed() && f.has_local_work()
    }
}

/// # Safety
/// As for `finish_has_work`, which has just said yes for `f` (the frame holds a pending or
/// inbox task).
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
            // Stock mode (Umatani's OPA thesis §6.2.2): the thief gets the older half of the pending tasks
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

/// # Safety
/// As for `finish_has_work`.
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
    export: None,
};

impl FinishFrame {
    /// A frame for `state` on `w`; call [`FinishFrame::enter`] once it sits at its final
    /// address. `is_owner`: the finish's own frame (else a proxy).
    pub(crate) fn new(w: &Worker, state: *const FinishState, is_owner: bool) -> FinishFrame {
        Self::with_root(w, state, is_owner, false)
    }

    pub(super) fn with_root(
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

    pub(super) fn unlink(&self, w: &Worker) {
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
    pub(super) fn take_linked_deeper(
        &self,
        mut above: *const LinkedJob,
        job: *const LinkedJob,
    ) -> bool {
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
    pub(super) fn take_oldest_linked(&self) -> Option<JobRef> {
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
    pub(super) fn register(&self) {
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
    pub(super) fn run_one_inbox(&self, w: &Worker) -> bool {
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
