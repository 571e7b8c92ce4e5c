//! [`Condvar`]: wait for a condition under a [`Mutex`](crate::sync::Mutex), parking instead
//! of blocking.
//!
//! Invariants:
//! * A waiter queues its token *before* it unlocks the mutex, so a notify that comes after
//!   the unlock finds it (and a wake that lands before the park makes the park return at
//!   once): no notification is lost between the unlock and the park.
//! * A wait that a stop or a deadlock ends takes its token off the list and unwinds
//!   without locking the mutex again (the caller gave its guard up and gets none back); a
//!   notify that raced with it found the token woken and woke another waiter.
//! * Wake-ups may be spurious from the caller's point of view (another task may take the
//!   mutex first): callers wait in a loop on their condition, as with `std::sync::Condvar`.

use super::{lock, MutexGuard, WaitList, WaitOn, Woken};

/// A condition variable for [`super::Mutex`].
///
/// ```
/// use offshoot::sync::{Condvar, Mutex};
///
/// let ready = Mutex::new(false);
/// let cv = Condvar::new();
/// offshoot::join(
///     || {
///         let mut g = ready.lock();
///         while !*g {
///             g = cv.wait(g);
///         }
///     },
///     || {
///         *ready.lock() = true;
///         cv.notify_all();
///     },
/// );
/// ```
pub struct Condvar {
    waiters: std::sync::Mutex<WaitList>,
    /// What the deadlock report calls it besides its address (`named`).
    name: Option<&'static str>,
}

impl Default for Condvar {
    fn default() -> Self {
        Condvar::new()
    }
}

impl std::fmt::Debug for Condvar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}

impl Condvar {
    /// A condition variable with no waiters.
    ///
    /// ```
    /// let cv = offshoot::sync::Condvar::new();
    /// cv.notify_all(); // nobody waits: nothing happens
    /// ```
    pub const fn new() -> Condvar {
        Condvar {
            waiters: std::sync::Mutex::new(WaitList::new()),
            name: None,
        }
    }

    /// A condition variable with no waiters, which a deadlock report names `name`: a task
    /// that waits on it for ever is listed as waiting on `Condvar "name" (0x…)` instead of
    /// `Condvar 0x…`. Naming costs nothing until such a report is written.
    ///
    /// ```
    /// use offshoot::sync::Condvar;
    /// static NOT_EMPTY: Condvar = Condvar::named("queue not empty");
    /// NOT_EMPTY.notify_one(); // nobody waits: nothing happens
    /// ```
    pub const fn named(name: &'static str) -> Condvar {
        Condvar {
            waiters: std::sync::Mutex::new(WaitList::new()),
            name: Some(name),
        }
    }

    /// Unlocks the guard's mutex, parks until notified, and locks it again.
    ///
    /// ```
    /// use offshoot::sync::{Condvar, Mutex};
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let (ready, cv) = (Mutex::new(false), Condvar::new());
    /// pool.run(|| {
    ///     offshoot::join(
    ///         || {
    ///             let mut g = ready.lock();
    ///             while !*g {
    ///                 g = cv.wait(g); // parks, the lock released meanwhile
    ///             }
    ///         },
    ///         || {
    ///             *ready.lock() = true;
    ///             cv.notify_all();
    ///         },
    ///     )
    /// });
    /// ```
    #[track_caller]
    pub fn wait<'a, T: ?Sized>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        let at = std::panic::Location::caller();
        let mutex = guard.mutex;
        let w = lock(&self.waiters).enqueue();
        drop(guard);
        match w.park(WaitOn::new("Condvar", self).at(at).named(self.name)) {
            Woken::Normal => mutex.lock(),
            interrupted => {
                lock(&self.waiters).remove(&w);
                interrupted.raise()
            }
        }
    }

    /// Parks until `condition` is false, re-checking after every notification.
    ///
    /// ```
    /// use offshoot::sync::{Condvar, Mutex};
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let (count, cv) = (Mutex::new(0), Condvar::new());
    /// pool.run(|| {
    ///     offshoot::join(
    ///         || drop(cv.wait_while(count.lock(), |c| *c < 2)),
    ///         || {
    ///             for _ in 0..2 {
    ///                 *count.lock() += 1;
    ///                 cv.notify_one();
    ///             }
    ///         },
    ///     )
    /// });
    /// assert_eq!(*count.lock(), 2);
    /// ```
    #[track_caller]
    pub fn wait_while<'a, T: ?Sized>(
        &self,
        mut guard: MutexGuard<'a, T>,
        mut condition: impl FnMut(&mut T) -> bool,
    ) -> MutexGuard<'a, T> {
        while condition(&mut guard) {
            guard = self.wait(guard);
        }
        guard
    }

    /// Wakes one waiting task, if any.
    ///
    /// ```
    /// let cv = offshoot::sync::Condvar::new();
    /// cv.notify_one(); // wakes one waiting task, if any
    /// ```
    pub fn notify_one(&self) {
        lock(&self.waiters).wake_one();
    }

    /// Wakes every waiting task.
    ///
    /// ```
    /// let cv = offshoot::sync::Condvar::new();
    /// cv.notify_all(); // wakes every waiting task, if any
    /// ```
    pub fn notify_all(&self) {
        lock(&self.waiters).wake_all();
    }
}
