//! Waiting without blocking: synchronization whose waits park the waiting task, not its
//! worker thread.
//!
//! In a pool, a task that must wait (for a lock, a value, a message, a permit) parks its
//! stack — a fiber — and its worker goes on with other tasks; the task resumes on the same
//! thread once what it waits for happens. So a pool whose tasks all wait on each other does
//! not lose its workers, and a lock held around a nested parallel computation (rayon issue
//! #592) does not deadlock the pool: tasks that contend for the lock park, and the workers
//! run the nested computation. What waits is a task: a spawned task, a future, or a side of
//! a `join` — but a join's second closure is not guaranteed to start before its first returns (see
//! [`join`](crate::join#waiting-between-the-two-sides)), so the side that another waits
//! for is started as a task.
//!
//! Everything here rests on one mechanism: a task arms a one-shot parking token, registers
//! it with the thing it waits on under that thing's lock, and parks; the waker wakes the
//! token exactly once. [`Event`] is the public form of it — a
//! single-assignment value with waiters and callbacks — and [`Promise`], futures, barriers
//! and data-driven tasks are built on it.
//!
//! Outside every pool, waits block the calling thread, so the same values can be shared
//! with plain threads.
//!
//! **Two kinds of future.** [`spawn_future`] returns a handle that may outlive its caller,
//! be cloned, sent anywhere and `.await`ed; its closure lives in a small heap block (a
//! recycled task block). [`with_future`] lends a handle to a body and keeps the closure and
//! the value in the caller's stack frame, planted like the untaken branch of a `join`: no
//! allocation, the closure may borrow, and a future its creator gets in call order costs
//! about half of a `spawn_future` one. Both run the closure inline when the creating task
//! asks for the value before anyone took it. For async code (a tokio task, any executor, a
//! plain thread), [`spawn_async`] returns an owned [`Handle`]: `T: Send` only, the value
//! moved out once, the computation detached in the current (or the global) pool, a drop
//! that never waits, and a poll on a pool worker that never returns `Pending` (so
//! `futures::executor::block_on` in a task cannot hang its worker).
//!
//! **Stops.** A wait is a stop point: when a sibling of the waiting task fails (a panic in
//! its `join`, `scope` or `finish`), the wait ends at once and the task unwinds as stopped,
//! as at a poll, running its destructors — it does not keep the failing region from
//! finishing by waiting for something that will not come. The construct forgets the
//! waiter (a wake meant for it goes to the next one). A wait begun while its task unwinds
//! is not stopped.
//!
//! **Deadlocks.** When no task can make progress — every worker of every pool idle, and
//! tasks waiting here on things that nothing running can wake — each such wait panics with
//! a report that starts `offshoot: deadlock:` and lists the waiting tasks, what each waits
//! on (under the name it was created with, if any: [`Mutex::named`], [`Promise::named`],
//! …) and, for locks and monitors, who holds it (see
//! [`Builder`](crate::Builder#deadlocks); [`Builder::deadlock_detection`](crate::Builder::deadlock_detection)
//! turns it off). A pool cannot see threads outside every pool: a thread that will still set
//! a value, add permits, signal, or start work that does, while tasks may wait for it, must
//! hold an [`ExternalWaker`] meanwhile. Locks are the exception: a task waiting for a
//! [`Mutex`], [`Monitor`] or [`RwLock`] held by such a thread is reported only while that
//! thread is itself blocked in an offshoot wait (such as `pool.run` of a job that waits for
//! the lock). A task that re-enters a [`Monitor`] to unwind from
//! [`MonitorGuard::wait`] waits for the monitor even when stopped (its guards must hold it
//! while they drop).
//!
//! **Do not hold a `std::sync::Mutex` guard across a wait or a parallel call in a pool.** A
//! worker may run other tasks while one parks; if one of them locks the same std mutex on
//! the same thread, it deadlocks. Use [`Mutex`] from this module instead.

mod barrier;
mod channel;
mod completion;
mod condvar;
mod event;
mod event_count;
mod future;
mod handle;
mod lock_word;
mod monitor;
mod mutex;
mod object;
mod op_body;
pub mod opa;
mod promise;
mod refcount;
mod rw_word;
mod rwlock;
mod scoped_future;
mod semaphore;
mod shared;

pub use crate::deadlock::ExternalWaker;
pub(crate) use crate::worker::task_id::{holder_id, OUTSIDE_THREAD};
pub use crate::worker::task_id::{task_id, TaskId};
pub use barrier::{Barrier, BarrierWaitResult};
pub use channel::{
    bounded, bounded_named, unbounded, unbounded_named, Receiver, RecvError, SendError, Sender,
};
pub use condvar::Condvar;
pub use event::Event;
pub use event_count::EventCount;
pub use future::{spawn_future, TaskFuture};
pub use handle::{spawn_async, Handle};
pub use monitor::{Monitor, MonitorGuard};
pub use mutex::{Mutex, MutexGuard};
pub use object::{Call, Exclusive, Object, ObjectBuilder, Op};
pub use promise::{spawn_when, AlreadyPut, Dependency, Promise, PutConflict};
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use scoped_future::{with_future, ScopedFuture};
pub use semaphore::{Semaphore, SemaphorePermit};
pub use shared::{Draft, Shared, Snapshot};

pub(crate) use crate::fiber::{WaitOn, Woken};
use lock_word::LockWord;
use rw_word::RwWord;

/// A wait list of parked tasks, kept under the lock of the construct that owns it: first in,
/// first out.
///
/// The oldest token is kept inline (`first`), the others in a deque behind it: most lists
/// hold at most one token at a time (an I-store's one reader, a lock's one contender), and
/// one then costs no allocation — a short-lived construct that a task waits on once (an
/// `opa::IStore`) used to pay a heap block for its deque at that wait. `first` is `None`
/// only while `rest` is empty, so `first`, then `rest` in order, is the queue.
pub(crate) struct WaitList {
    first: Option<crate::fiber::Waiter>,
    rest: std::collections::VecDeque<crate::fiber::Waiter>,
}

impl WaitList {
    pub(crate) const fn new() -> WaitList {
        WaitList {
            first: None,
            rest: std::collections::VecDeque::new(),
        }
    }

    /// Arms a token for the calling task and queues it; park on it after releasing the
    /// lock that guards this list.
    pub(crate) fn enqueue(&mut self) -> crate::fiber::Waiter {
        let w = crate::fiber::Waiter::prepare();
        if self.first.is_none() {
            self.first = Some(w.clone());
        } else {
            self.rest.push_back(w.clone());
        }
        w
    }

    /// Takes the oldest token off the list.
    fn pop_front(&mut self) -> Option<crate::fiber::Waiter> {
        let w = self.first.take()?;
        self.first = self.rest.pop_front();
        Some(w)
    }

    /// Whether no token is queued (woken or abandoned ones included until they leave).
    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// How many tokens are queued (woken or abandoned ones included until they leave).
    pub(crate) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    /// Wakes the oldest waiter still waiting. Returns whether one was woken.
    pub(crate) fn wake_one(&mut self) -> bool {
        while let Some(w) = self.pop_front() {
            if w.wake() {
                return true;
            }
        }
        false
    }

    /// Wakes every waiter.
    pub(crate) fn wake_all(&mut self) {
        for w in self.first.take().into_iter().chain(self.rest.drain(..)) {
            w.wake();
        }
    }

    /// Takes `w` off the list, if it is still there (a wait that was interrupted).
    pub(crate) fn remove(&mut self, w: &crate::fiber::Waiter) {
        if self.first.as_ref().is_some_and(|x| x.same(w)) {
            self.first = self.rest.pop_front();
        } else {
            self.rest.retain(|x| !x.same(w));
        }
    }
}

/// The wait loop of every lock-like construct: under `state`'s lock, `attempt` either
/// succeeds (`Some`) or must wait (`None`), and the calling task queues itself on the list `queue` picks, releases the lock and parks
/// (reported as waiting on what `on` builds, only then); when woken it tries again. Queuing before releasing the lock is what keeps a wake-up from
/// being lost.
///
/// A park that a stop or a deadlock interrupts takes its token off the list and calls
/// `abandon` under the lock (to undo what earlier attempts recorded), then unwinds. An
/// interrupt wins the token's wake only from a parked token, so a wake that raced with it
/// found the token woken and woke the next waiter instead: no wake-up is swallowed.
pub(crate) fn wait_for<S, R>(
    state: &std::sync::Mutex<S>,
    on: impl Fn() -> WaitOn,
    attempt: impl FnMut(&mut S) -> Option<R>,
    queue: impl Fn(&mut S) -> &mut WaitList,
    abandon: impl FnOnce(&mut S),
) -> R {
    wait_locked(|| lock(state), on, attempt, queue, abandon)
}

/// [`wait_for`] with the state behind any lock: `lock_state` locks it and returns the guard
/// (a loom model's mutex in the loom tests of [`Mutex`]).
pub(crate) fn wait_locked<S, G, R>(
    lock_state: impl Fn() -> G,
    on: impl Fn() -> WaitOn,
    mut attempt: impl FnMut(&mut S) -> Option<R>,
    queue: impl Fn(&mut S) -> &mut WaitList,
    abandon: impl FnOnce(&mut S),
) -> R
where
    G: std::ops::DerefMut<Target = S>,
{
    loop {
        let w = {
            let mut s = lock_state();
            match attempt(&mut s) {
                Some(r) => return r,
                None => queue(&mut s).enqueue(),
            }
        };
        match w.park(on()) {
            Woken::Normal => {}
            interrupted => {
                let mut s = lock_state();
                queue(&mut s).remove(&w);
                abandon(&mut s);
                drop(s);
                interrupted.raise()
            }
        }
    }
}

/// Locks a std mutex used internally, ignoring poisoning: the guarded state is kept
/// consistent by every critical section (none of them runs user code).
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::WaitList;

    /// The inline first token and the deque behind it keep one queue, oldest first, also
    /// when tokens leave from the front, the middle or the back.
    #[test]
    fn wait_list_keeps_its_order_across_the_inline_slot() {
        let mut q = WaitList::new();
        assert!(q.is_empty());
        let (a, b, c) = (q.enqueue(), q.enqueue(), q.enqueue());
        assert_eq!(q.len(), 3);
        q.remove(&a);
        assert_eq!(q.len(), 2);
        assert!(q.pop_front().is_some_and(|w| w.same(&b)));
        let d = q.enqueue();
        q.remove(&d);
        assert!(q.pop_front().is_some_and(|w| w.same(&c)));
        assert!(q.is_empty() && q.pop_front().is_none());
        let e = q.enqueue();
        assert!(!q.is_empty() && q.len() == 1);
        q.wake_all();
        assert!(q.is_empty());
        // `e` was the latest token armed on this thread: `wake_all` woke it.
        assert!(!e.wake());
    }
}
