//! offshoot's finish-joined spawn: [`finish::spawn`](spawn()) and
//! [`finish::try_spawn`](try_spawn()), the tasks that the innermost enclosing [`finish`](crate::finish()) (or
//! [`scope`](crate::scope()), or [`ThreadPool::run`](crate::ThreadPool::run)) waits for —
//! HJlib's and X10's `async`.
//!
//! They are not rayon's [`spawn`](crate::spawn()): that one is detached (nothing waits for
//! it), as in rayon. Call these by their path, `offshoot::finish::spawn`, so that the
//! name says which of the two it is.
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! static DONE: AtomicUsize = AtomicUsize::new(0);
//!
//! offshoot::finish(|| {
//!     for _ in 0..4 {
//!         offshoot::finish::spawn(|| {
//!             DONE.fetch_add(1, Ordering::Relaxed);
//!         });
//!     }
//! });
//! // The finish waited for its four tasks.
//! assert_eq!(DONE.load(Ordering::Relaxed), 4);
//! ```

// How it works.
//
// `finish` and `finish::spawn`: a dynamically scoped join (HJ's `finish`, OPA's `join` block), and
// the finish frames that `scope` shares.
//
// A finish owns a [`FinishState`] (on the owner's stack) and pushes an owner
// [`FinishFrame`]. `spawn` boxes the task and appends it to the *current* finish frame of
// the calling worker — the owner frame, or a **proxy** frame that a thief pushes when it
// runs work belonging to that finish — so spawning needs no atomic read-modify-write. A
// thief's request may take the oldest pending task of a frame. When a frame ends, its owner
// runs the tasks still pending, newest first (or drops them if the finish failed). A
// *fifo* finish (`scope_fifo`) reverses both ends: its frames run their tasks oldest
// first, and a thief takes the newest.
// Futures (`sync::spawn_future`) are pending tasks too; they sit on a second, intrusive
// list of the frame so that a `get` on the owner can take one back with a pointer compare
// (`FinishFrame::take_linked`).
//
// Counting: `outstanding` counts *proxy frames that hold pending tasks or run a task taken
// from a frame*, plus tasks parked in the inbox. The owner frame itself is not counted: its
// owner drains it before waiting. The finish ends when its body and drain are done and
// `outstanding` is zero.
//
// Invariants:
// * `FinishState` lives in the owner's frame, which waits for `outstanding == 0` on every
//   path out (return or unwind); whoever takes `outstanding` to zero touches only the
//   owner worker afterwards, never the state.
// * A proxy that never received a spawn never touched `outstanding`: it is alive only
//   while the stolen job it wraps runs, and that job is inside the finish's extent.
// * The first failure (panic, `Err` of a `try_` task, or a stop from an enclosing region)
//   is kept; later ones are dropped; every worker is asked to scan for the cancelled region.
// * Tasks of a failed finish that have not started are dropped, never run.
//
// Files: the shared state and its failure (`state.rs`), a frame of the finish on one
// worker (`frame.rs`), a spawned task's block and how tasks run (`task.rs`), spawning from
// any thread and counts held ahead of a spawn (`spawn.rs`: reservations for actors and
// data-driven tasks), what a client attaches to a region (`attach.rs`), the entries the
// rest of the crate opens a finish by (`region.rs`), the public `finish`/`finish::spawn`
// API (`api.rs`), and the benchmark suite's probe of a spawn's phases (`probe.rs`).

pub(crate) mod api;
mod attach;
mod frame;
pub(crate) mod probe;
mod region;
mod spawn;
mod state;
mod task;

pub(crate) use api::finish;
pub(crate) use api::{record_err, try_outcome};
pub use api::{spawn, try_spawn};
pub(crate) use attach::{Attachment, AttachmentHooks};
pub(crate) use frame::FinishFrame;
pub(crate) use region::{finish_attached, finish_core, finish_fifo, finish_root, resume_failure};
pub(crate) use spawn::{
    innermost_frame, spawn_into, Handoff, Reservation, ReservedFinish, INSIDE_ANY_FINISH,
};
pub(crate) use state::{Failure, FinishState};
pub(crate) use task::{run_metered, run_stolen_task, run_task, LinkedJob};
