//! The public `finish`, `try_finish`, `finish::spawn` and `finish::try_spawn`.

use crate::worker::Worker;

use super::spawn::innermost_finish;
use super::{finish_core, resume_failure, spawn_into, Failure, FinishState, Handoff};
use crate::pool::in_worker;

/// Runs `body` and waits for every task spawned with [`finish::spawn`](spawn()) in its
/// dynamic extent — by `body`, by functions it calls, by spawned tasks, on any worker —
/// before returning its value. Detached tasks ([`offshoot::spawn`](crate::spawn()), rayon's)
/// are not waited for.
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
///         offshoot::finish::spawn(move || visit(depth - 1));
///         offshoot::finish::spawn(move || visit(depth - 1));
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
/// from a task spawned with [`finish::try_spawn`](try_spawn())) or panic wins; the rest is
/// stopped; once everything has ended the error is returned (or the panic resumed).
///
/// # Panics
///
/// Also panics if a task's error is not an `E` (a `finish::try_spawn` with another error type
/// inside this `try_finish`).
///
/// ```
/// let r: Result<(), String> = offshoot::try_finish(|| {
///     offshoot::finish::try_spawn(|| Err::<(), String>("bad input".into()));
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

/// Where `finish::spawn` belongs, and the spawn to use where nothing should wait.
const DETACHED_HINT: &str = "offshoot::finish, offshoot::scope or ThreadPool::run, or use \
                             offshoot::spawn (rayon's) for a task nothing waits for";

/// offshoot's finish-joined spawn (HJlib's `async`): spawns `f` as a task of the innermost
/// enclosing [`finish`] (or [`scope`](crate::scope()) or
/// [`ThreadPool::run`](crate::ThreadPool::run)), which waits for it; the call returns at once
/// and `f` runs later, on this worker or on one that asked for work.
///
/// This is not rayon's `spawn`: [`offshoot::spawn`](crate::spawn()) is rayon's, detached
/// (nothing waits for it). Call this one by its path, `offshoot::finish::spawn`, so that the
/// name says which it is.
///
/// # Panics
///
/// Outside every pool, where there is no finish to join the task (use
/// [`offshoot::spawn`](crate::spawn()) for a task nothing waits for), and inside an
/// [`isolated`](crate::isolated()) section.
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// static HITS: AtomicU32 = AtomicU32::new(0);
///
/// offshoot::scope(|_| {
///     // Joined by the scope; a 'static closure (inside a scope, `Scope::spawn` borrows).
///     offshoot::finish::spawn(|| {
///         HITS.fetch_add(1, Ordering::Relaxed);
///     });
/// });
/// assert_eq!(HITS.load(Ordering::Relaxed), 1);
/// ```
pub fn spawn<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    Worker::check_not_isolated("spawn");
    spawn_into(
        innermost_finish("offshoot::finish::spawn", DETACHED_HINT),
        f,
        Handoff::Now,
    );
}

/// Like [`finish::spawn`](spawn()), for a task that can fail: an `Err` fails the innermost
/// enclosing [`try_finish`], which stops the other tasks and returns the error.
///
/// # Panics
///
/// Outside every pool, like [`finish::spawn`](spawn()). An `Err` under a plain [`finish`]
/// (not a `try_finish`) makes that finish panic with a message saying so.
///
/// ```
/// let r = offshoot::try_finish(|| {
///     for i in 0..10 {
///         offshoot::finish::try_spawn(move || if i == 7 { Err(i) } else { Ok(()) });
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
    Worker::check_not_isolated("spawn");
    let state = innermost_finish("offshoot::finish::try_spawn", "offshoot::try_finish");
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
