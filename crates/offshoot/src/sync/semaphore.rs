//! [`Semaphore`]: a counting semaphore whose waiters park.
//!
//! Invariants:
//! * `permits` and the wait list change only under `state`'s lock.
//! * A release adds a permit and wakes the oldest waiter, which competes for it again; a
//!   wake is never lost (the waiter queued before it released the lock).

use super::{lock, wait_for, WaitList, WaitOn};

struct State {
    permits: usize,
    waiters: WaitList,
}

/// A counting semaphore for tasks.
///
/// ```
/// use offshoot::sync::Semaphore;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// let sem = Semaphore::new(2);
/// let inside = AtomicUsize::new(0);
/// offshoot::par_for(0..100, |_| {
///     let _p = sem.acquire();
///     assert!(inside.fetch_add(1, Ordering::SeqCst) < 2);
///     inside.fetch_sub(1, Ordering::SeqCst);
/// });
/// ```
pub struct Semaphore {
    state: std::sync::Mutex<State>,
    /// What the deadlock report calls it besides its address (`named`).
    name: Option<&'static str>,
}

impl std::fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Semaphore")
            .field("permits", &lock(&self.state).permits)
            .finish()
    }
}

impl Semaphore {
    /// A semaphore with `permits` permits.
    ///
    /// ```
    /// let s = offshoot::sync::Semaphore::new(2);
    /// assert_eq!(s.available_permits(), 2);
    /// ```
    pub const fn new(permits: usize) -> Semaphore {
        Semaphore {
            state: std::sync::Mutex::new(State {
                permits,
                waiters: WaitList::new(),
            }),
            name: None,
        }
    }

    /// A semaphore with `permits` permits, which a deadlock report names `name`: a task
    /// that waits for a permit for ever is listed as waiting on `Semaphore "name" (0x…)`
    /// instead of `Semaphore 0x…`. Naming costs nothing until such a report is written.
    ///
    /// ```
    /// use offshoot::sync::Semaphore;
    /// static CONNECTIONS: Semaphore = Semaphore::named("connections", 4);
    /// let _c = CONNECTIONS.acquire();
    /// assert_eq!(CONNECTIONS.available_permits(), 3);
    /// ```
    pub const fn named(name: &'static str, permits: usize) -> Semaphore {
        let mut s = Semaphore::new(permits);
        s.name = Some(name);
        s
    }

    /// Takes a permit, parking while there is none; the permit returns when the guard drops.
    ///
    /// ```
    /// let s = offshoot::sync::Semaphore::new(1);
    /// let permit = s.acquire();
    /// assert_eq!(s.available_permits(), 0);
    /// drop(permit); // gives the permit back
    /// assert_eq!(s.available_permits(), 1);
    /// ```
    #[track_caller]
    pub fn acquire(&self) -> SemaphorePermit<'_> {
        let at = std::panic::Location::caller();
        wait_for(
            &self.state,
            || WaitOn::new("Semaphore", self).at(at).named(self.name),
            |s| {
                s.permits = s.permits.checked_sub(1)?;
                Some(SemaphorePermit { sem: self })
            },
            |s| &mut s.waiters,
            |_| {},
        )
    }

    /// Takes a permit if one is free.
    ///
    /// ```
    /// let s = offshoot::sync::Semaphore::new(1);
    /// let p = s.try_acquire().expect("one permit is free");
    /// assert!(s.try_acquire().is_none());
    /// drop(p);
    /// ```
    pub fn try_acquire(&self) -> Option<SemaphorePermit<'_>> {
        let mut s = lock(&self.state);
        if s.permits > 0 {
            s.permits -= 1;
            Some(SemaphorePermit { sem: self })
        } else {
            None
        }
    }

    /// Adds `n` permits (waking up to `n` waiters).
    ///
    /// ```
    /// let s = offshoot::sync::Semaphore::new(0);
    /// s.add_permits(1);
    /// assert!(s.try_acquire().is_some());
    /// ```
    pub fn add_permits(&self, n: usize) {
        let mut s = lock(&self.state);
        s.permits += n;
        for _ in 0..n {
            if !s.waiters.wake_one() {
                break;
            }
        }
    }

    /// The number of free permits now.
    ///
    /// ```
    /// let s = offshoot::sync::Semaphore::new(3);
    /// let _p = s.acquire();
    /// assert_eq!(s.available_permits(), 2);
    /// ```
    pub fn available_permits(&self) -> usize {
        lock(&self.state).permits
    }
}

/// A permit of a [`Semaphore`]; returned when dropped.
#[derive(Debug)]
pub struct SemaphorePermit<'a> {
    sem: &'a Semaphore,
}

impl SemaphorePermit<'_> {
    /// Keeps the permit taken for good (it is not returned).
    ///
    /// ```
    /// let s = offshoot::sync::Semaphore::new(2);
    /// s.acquire().forget(); // the permit is gone for good
    /// assert_eq!(s.available_permits(), 1);
    /// ```
    pub fn forget(self) {
        std::mem::forget(self);
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        self.sem.add_permits(1);
    }
}
