//! Unwinding payloads the runtime uses for itself.
//!
//! * [`Stopped`]: raised at a poll point of a task whose region was cancelled because a
//!   sibling failed first. It travels up to the frame that owns the cancelled region, which
//!   drops it and resumes the winner's payload instead. `resume_unwind` does not run the
//!   panic hook, so a stop prints nothing.
//! * [`ErrMarker`]: carries "this side of a `try_join` returned `Err`" through the join
//!   machinery; the error itself waits in a slot of the `try_join` frame.
//!
//! Invariant: neither payload ever reaches user code through a `join`, `scope`, `finish` or
//! `ThreadPool::run` boundary: each boundary converts it back.

use std::panic::resume_unwind;

/// A panic payload.
pub(crate) type Payload = Box<dyn std::any::Any + Send>;

/// The payload of a stop.
pub(crate) struct Stopped;

/// Unwinds the current task because its region was cancelled.
pub(crate) fn raise_stopped() -> ! {
    resume_unwind(Box::new(Stopped))
}

/// Whether `p` is a stop rather than a real panic.
pub(crate) fn is_stopped(p: &Payload) -> bool {
    p.is::<Stopped>()
}

/// A `try_join` side returned `Err`; the value is the address of the slot holding it.
pub(crate) struct ErrMarker(pub(crate) usize);
