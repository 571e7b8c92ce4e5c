//! Opening a finish: the entries the rest of the crate uses (plain, fifo, with an
//! attachment, a pool's root), the body and the wait for every task, and resuming the
//! failure in the caller.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use crate::unwind::raise_stopped;
use crate::worker::Worker;

use super::attach::Attached;
use super::{Attachment, Failure, FinishFrame, FinishState};

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

pub(super) fn finish_frame_core<R>(
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
            "offshoot: a task spawned with offshoot::finish::try_spawn returned Err inside a \
             plain finish; use offshoot::try_finish to receive the error"
        ),
    }
}
