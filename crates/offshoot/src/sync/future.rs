//! Futures: [`spawn_future`] and its handle [`TaskFuture`].
//!
//! Invariants:
//! * The computation runs exactly once: whoever first flips `claimed` (the spawned task, or
//!   a `get` that finds it not started) runs it; the other finds it claimed and waits on the
//!   event (the task) or returns at once (a task that lost the claim does nothing).
//! * The event is always set once the computation ends, also when it panics (then with no
//!   value), so no getter waits forever on a failed computation.

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use super::Event;

struct Shared<T, F> {
    claimed: AtomicBool,
    func: UnsafeCell<Option<F>>,
    /// `None`: the computation panicked (its panic went to whoever ran it).
    result: Event<Option<T>>,
}

// SAFETY: `func` is taken once, by the single winner of `claimed`; the result is shared
// through the event (which needs `T: Send + Sync` to be shared).
unsafe impl<T: Send + Sync, F: Send> Sync for Shared<T, F> {}

impl<T, F: FnOnce() -> T> Shared<T, F> {
    /// Runs the computation if nobody has; returns whether this call ran it.
    fn run_if_unclaimed(&self) -> bool {
        if self.claimed.swap(true, Ordering::AcqRel) {
            return false;
        }
        // SAFETY: the swap above made this call the only one that takes the closure.
        let f = unsafe { (*self.func.get()).take() }.expect("claimed once");
        struct SetOnUnwind<'a, T>(&'a Event<Option<T>>);
        impl<T> Drop for SetOnUnwind<'_, T> {
            fn drop(&mut self) {
                let _ = self.0.set(None);
            }
        }
        let guard = SetOnUnwind(&self.result);
        let v = f();
        std::mem::forget(guard);
        let _ = self.result.set(Some(v));
        true
    }
}

trait Source<T>: Send + Sync {
    fn result(&self) -> &Event<Option<T>>;
    fn run_if_unclaimed(&self) -> bool;
}

impl<T: Send + Sync, F: FnOnce() -> T + Send> Source<T> for Shared<T, F> {
    fn result(&self) -> &Event<Option<T>> {
        &self.result
    }
    fn run_if_unclaimed(&self) -> bool {
        Shared::run_if_unclaimed(self)
    }
}

/// The handle of a computation started with [`spawn_future`].
///
/// [`TaskFuture::get`] parks until the value is ready — or, if no worker has started the
/// computation yet, runs it right there, like the untaken branch of a `join`. The handle is
/// also a [`std::future::Future`], so async code can `.await` it.
pub struct TaskFuture<T> {
    shared: Arc<dyn Source<T>>,
}

impl<T> Clone for TaskFuture<T> {
    fn clone(&self) -> Self {
        TaskFuture {
            shared: self.shared.clone(),
        }
    }
}

impl<T> std::fmt::Debug for TaskFuture<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskFuture")
            .field("ready", &self.shared.result().is_set())
            .finish()
    }
}

/// Starts `f` as a task of the innermost finish and returns a handle to its value.
///
/// The task is created lazily: it waits in the worker's queue until a thief takes it or
/// someone calls [`TaskFuture::get`]. A `get` by a task that finds it not started runs it
/// inline. A panic in `f` goes to whoever ran it (the finish, or the caller of that `get`);
/// other getters then panic with a message saying the future failed.
///
/// # Panics
/// Outside every pool, like [`crate::spawn`].
///
/// ```
/// use offshoot::sync::spawn_future;
///
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let a = spawn_future(move || fib(n - 1));
///     let b = fib(n - 2);
///     *a.get() + b
/// }
/// assert_eq!(offshoot::finish(|| fib(15)), 610);
/// ```
pub fn spawn_future<T, F>(f: F) -> TaskFuture<T>
where
    T: Send + Sync + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let shared = Arc::new(Shared {
        claimed: AtomicBool::new(false),
        func: UnsafeCell::new(Some(f)),
        result: Event::new(),
    });
    let task = shared.clone();
    crate::spawn(move || {
        task.run_if_unclaimed();
    });
    TaskFuture { shared }
}

impl<T> TaskFuture<T> {
    /// The value: runs the computation here if nobody started it, else parks until it is
    /// ready.
    ///
    /// # Panics
    /// If the computation panicked (the panic itself went to whoever ran it; if that is
    /// this call, it propagates from here).
    pub fn get(&self) -> &T {
        let r = catch_unwind(AssertUnwindSafe(|| self.shared.run_if_unclaimed()));
        if let Err(p) = r {
            resume_unwind(p);
        }
        let result = self.shared.result();
        match result.wait_on(crate::fiber::WaitOn::new("TaskFuture", result)) {
            Some(v) => v,
            None => panic!("offshoot: the future's computation panicked"),
        }
    }

    /// The value, if it is ready.
    pub fn try_get(&self) -> Option<&T> {
        self.shared.result().get().and_then(|v| v.as_ref())
    }

    /// Whether the computation has ended.
    pub fn is_ready(&self) -> bool {
        self.shared.result().is_set()
    }
}

impl<T: Clone + Send + Sync + 'static> std::future::Future for TaskFuture<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let ev = self.shared.result();
        if let Some(r) = ev.get() {
            return match r {
                Some(v) => Poll::Ready(v.clone()),
                None => panic!("offshoot: the future's computation panicked"),
            };
        }
        let waker = cx.waker().clone();
        ev.on_set(move |_| waker.wake());
        Poll::Pending
    }
}
