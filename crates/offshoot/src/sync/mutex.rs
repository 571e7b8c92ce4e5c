//! [`Mutex`]: a lock whose waiters park instead of blocking their worker.
//!
//! Invariants:
//! * The lock is a [`LockWord`] (`lock_word.rs`: who holds it, who waits); the data is
//!   reached only through a guard, a guard is made only when the calling task acquired the
//!   lock word, and the guard's drop releases it: at most one guard exists at a time.
//! * A woken waiter competes for the lock again (no hand-off); a waiter that a stop or a
//!   deadlock interrupts leaves without the lock (see `sync::wait_for`).
//! * A task that is stopped or panics while holding the guard releases the lock in the
//!   guard's destructor; the lock is not poisoned (the data's invariants are the caller's).

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};

use super::{holder_id, LockWord, WaitOn};

/// A mutual-exclusion lock for tasks. A task that finds it taken parks (its worker runs
/// other tasks) until the holder unlocks it; outside a pool, the thread blocks.
///
/// Holding the guard across a nested parallel computation is fine: tasks that contend for
/// the lock park, and the pool's workers run the nested computation (the deadlock of rayon
/// issue #592 does not happen).
///
/// ```
/// use offshoot::sync::Mutex;
///
/// let total = Mutex::new(0u64);
/// offshoot::par_for(0..1000, |i| *total.lock() += i as u64);
/// assert_eq!(total.into_inner(), 499_500);
/// ```
pub struct Mutex<T: ?Sized> {
    lock: LockWord,
    /// What the deadlock report calls it besides its address (`named`).
    name: Option<&'static str>,
    data: UnsafeCell<T>,
}

// SAFETY: the guard gives access to the data to one task at a time (the lock word), so sharing
// the mutex between threads needs only `T: Send`, as for `std::sync::Mutex`.
unsafe impl<T: ?Sized + Send> Sync for Mutex<T> {}
// SAFETY: owning the mutex owns the data.
unsafe impl<T: ?Sized + Send> Send for Mutex<T> {}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Self {
        Mutex::new(T::default())
    }
}

impl<T: ?Sized> std::fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mutex")
            .field("locked", &(self.lock.holder() != 0))
            .finish_non_exhaustive()
    }
}

impl<T> Mutex<T> {
    crate::atomics::const_unless_loom! {
        /// A new, unlocked mutex.
        ///
        /// ```
        /// static COUNT: offshoot::sync::Mutex<u32> = offshoot::sync::Mutex::new(0);
        /// *COUNT.lock() += 1;
        /// assert_eq!(*COUNT.lock(), 1);
        /// ```
        pub fn new(value: T) -> Mutex<T> {
            Mutex {
                lock: LockWord::new(),
                name: None,
                data: UnsafeCell::new(value),
            }
        }
    }

    crate::atomics::const_unless_loom! {
        /// A new, unlocked mutex, which a deadlock report names `name`: a task that waits for
        /// it for ever is listed as waiting on `Mutex "name" (0x…)` instead of `Mutex 0x…`.
        /// Naming costs nothing until such a report is written.
        ///
        /// ```
        /// use offshoot::sync::Mutex;
        /// static ACCOUNTS: Mutex<Vec<u64>> = Mutex::named("accounts", Vec::new());
        /// ACCOUNTS.lock().push(100);
        /// assert_eq!(*ACCOUNTS.lock(), [100]);
        /// ```
        pub fn named(name: &'static str, value: T) -> Mutex<T> {
            let mut m = Mutex::new(value);
            m.name = Some(name);
            m
        }
    }

    /// The data, consuming the mutex.
    ///
    /// ```
    /// let m = offshoot::sync::Mutex::new(vec![1]);
    /// m.lock().push(2);
    /// assert_eq!(m.into_inner(), [1, 2]);
    /// ```
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Locks the mutex, parking the calling task while another holds it.
    ///
    /// Not reentrant: a task that locks a mutex it holds waits forever (use
    /// [`super::Monitor`] for a reentrant lock).
    ///
    /// ```
    /// let m = offshoot::sync::Mutex::new(0);
    /// offshoot::join(|| *m.lock() += 1, || *m.lock() += 10); // a waiting task parks
    /// assert_eq!(*m.lock(), 11);
    /// ```
    #[inline]
    #[track_caller]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.lock_at(std::panic::Location::caller())
    }

    /// [`Self::lock`], called from `at` in the program (what a deadlock report prints).
    #[inline]
    pub(crate) fn lock_at(&self, at: &'static std::panic::Location<'static>) -> MutexGuard<'_, T> {
        self.lock.acquire(holder_id(), || {
            WaitOn::new("Mutex", self).at(at).named(self.name)
        });
        MutexGuard {
            mutex: self,
            _not_send: std::marker::PhantomData,
        }
    }

    /// Locks the mutex if it is free.
    ///
    /// ```
    /// let m = offshoot::sync::Mutex::new(1);
    /// let g = m.lock();
    /// assert!(m.try_lock().is_none());
    /// drop(g);
    /// assert!(m.try_lock().is_some());
    /// ```
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        self.lock.try_acquire(holder_id()).then(|| MutexGuard {
            mutex: self,
            _not_send: std::marker::PhantomData,
        })
    }

    /// The data, through a unique borrow (no locking needed).
    ///
    /// ```
    /// let mut m = offshoot::sync::Mutex::new(1);
    /// *m.get_mut() += 1; // no locking: `&mut` proves nobody else holds it
    /// assert_eq!(*m.lock(), 2);
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }

    #[inline]
    pub(crate) fn unlock(&self) {
        self.lock.release();
    }
}

/// Access to the data of a locked [`Mutex`]; unlocks when dropped. Not `Send`: it stays
/// with the task that locked (which resumes on its own thread after parking).
pub struct MutexGuard<'a, T: ?Sized> {
    pub(crate) mutex: &'a Mutex<T>,
    _not_send: std::marker::PhantomData<*const ()>,
}

// SAFETY: sharing the guard shares `&T` only.
unsafe impl<T: ?Sized + Sync> Sync for MutexGuard<'_, T> {}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard is the only one (the lock word), so no `&mut` to the data exists.
        unsafe { &*self.mutex.data.get() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard is the only one, and it is borrowed mutably.
        unsafe { &mut *self.mutex.data.get() }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.mutex.unlock();
    }
}

impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}
