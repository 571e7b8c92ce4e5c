//! Spawning into a finish from outside its frames: the innermost finish of the caller,
//! counts held ahead of a spawn (`Reservation`, for actors and `spawn_when`), and
//! `spawn_into` with its hand-off policy.

use std::ptr;

use crate::worker::Worker;

use super::task::HeapJob;
use super::{FinishFrame, FinishState};

/// Where `spawn` and its relatives may be called, as the panic message says it.
pub(crate) const INSIDE_ANY_FINISH: &str = "offshoot::finish, offshoot::scope or ThreadPool::run";

/// The state of the calling task's innermost finish. Panics, naming `caller` and where it
/// belongs (`inside`), when called outside every pool.
pub(super) fn innermost_finish(caller: &str, inside: &str) -> *const FinishState {
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
