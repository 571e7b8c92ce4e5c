//! `ExternalWaker`: a thread outside the pools announces that it may still wake tasks.

use std::sync::atomic::Ordering;

use super::watch::EXTERNAL;

/// Announces that the holder — a thread outside every pool, typically — may still wake
/// tasks of a pool: set a [`Promise`](crate::sync::Promise) or an [`Event`](crate::sync::Event),
/// send on a channel, add permits, or start work in a pool
/// ([`ThreadPool::run`](crate::ThreadPool::run)) that does so (releasing a lock needs no
/// guard, see below). While any `ExternalWaker` is
/// alive, no pool declares a deadlock.
///
/// A pool sees its own workers (and those of every other pool), not other threads. Without
/// a guard, a task that waits for such a thread while every worker is idle looks exactly
/// like a task that waits forever, and its wait ends with an `offshoot: deadlock` panic
/// (see [`Builder::deadlock_detection`](crate::Builder::deadlock_detection)). Locks are the
/// exception: a thread that only holds an offshoot [`Mutex`](crate::sync::Mutex),
/// [`Monitor`](crate::sync::Monitor) or [`RwLock`](crate::sync::RwLock) that tasks wait
/// for needs no guard — the watch sees the holder, and reports the wait only while that
/// thread is itself blocked in an offshoot wait (a lock held across `pool.run` that the job
/// waits for). A third thread that will end such a holder's wait (put the promise it
/// waits for) wakes the tasks through it, and needs a guard. Create the
/// guard *before* the tasks could start waiting for the outside thread — before handing
/// the pool the work, or before the handshake that lets it go on — and drop it once the
/// wake is done (dropping it after the wake is what makes the wake visible to the watch).
/// Clones count separately, so each of several outside threads can hold one.
///
/// ```
/// use offshoot::sync::{ExternalWaker, Promise};
///
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// let answer = Promise::new();
/// let setter = {
///     let (answer, guard) = (answer.clone(), ExternalWaker::new());
///     std::thread::spawn(move || {
///         std::thread::sleep(std::time::Duration::from_millis(10));
///         answer.put(42).unwrap();
///         drop(guard); // after the put
///     })
/// };
/// // The pool goes idle while its task waits; the guard says the value is coming.
/// assert_eq!(pool.run(|| *answer.get()), 42);
/// setter.join().unwrap();
/// ```
#[derive(Debug)]
pub struct ExternalWaker {
    _private: (),
}

impl ExternalWaker {
    /// Announces an outside waker until the guard is dropped.
    ///
    /// ```
    /// let guard = offshoot::sync::ExternalWaker::new();
    /// // ... hand a promise to a thread outside every pool, which puts it, then:
    /// drop(guard);
    /// ```
    pub fn new() -> ExternalWaker {
        // SeqCst: pairs with the deadlock check's SeqCst reads of `EXTERNAL` (`watch::check`,
        // after its first read of `AWAKE`): in their single total order a check that reads the
        // count after this increment declares nothing, and one that read it before finished its
        // window before this guard existed (the guard must be up before the tasks it will wake
        // can look stuck). A store-then-load across `AWAKE`, `EXTERNAL` and the news:
        // acquire/release cannot order it.
        EXTERNAL.fetch_add(1, Ordering::SeqCst);
        ExternalWaker { _private: () }
    }
}

impl Default for ExternalWaker {
    fn default() -> Self {
        ExternalWaker::new()
    }
}

impl Clone for ExternalWaker {
    fn clone(&self) -> Self {
        ExternalWaker::new()
    }
}

impl Drop for ExternalWaker {
    fn drop(&mut self) {
        // SeqCst: dropped after the guarded wake was queued (`deadlock` invariants): a check
        // whose SeqCst read sees the lower count comes after this decrement in the total order,
        // so its later SeqCst reads of the news (`Registry::has_news`: the ready stack's head,
        // `kicked`, `injected`) see that wake.
        EXTERNAL.fetch_sub(1, Ordering::SeqCst);
    }
}
