//! [`RwLock`]: many readers or one writer; waiters park.
//!
//! Invariants:
//! * The lock is an [`RwWord`] (`rw_word.rs`: the reader count or the writer, and who
//!   waits); the data is reached only through a guard, which holds a read share or the
//!   write lock until it is dropped. A writer excludes readers and other writers.
//! * Writers are preferred: once a writer waits, new readers wait too, so a stream of
//!   readers cannot starve a writer. A release that frees the lock wakes one waiting
//!   writer, else every waiting reader; the woken compete again (no hand-off, no lost
//!   wake-up). Without contention a read or a write is one compare-and-swap to take the
//!   lock and one read-modify-write to give it back.

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use super::{holder_id, RwWord, WaitOn, OUTSIDE_THREAD};

/// A reader-writer lock for tasks: [`RwLock::read`] shares, [`RwLock::write`] excludes;
/// a task that must wait parks.
///
/// ```
/// use offshoot::sync::RwLock;
///
/// let table = RwLock::new(vec![0u32; 8]);
/// offshoot::par_for(0..8, |i| {
///     if i % 4 == 0 {
///         table.write()[i] += 1;
///     } else {
///         let _sum: u32 = table.read().iter().sum();
///     }
/// });
/// assert_eq!(table.read().iter().sum::<u32>(), 2);
/// ```
pub struct RwLock<T: ?Sized> {
    lock: RwWord,
    /// What the deadlock report calls it besides its address (`named`).
    name: Option<&'static str>,
    data: UnsafeCell<T>,
}

// SAFETY: like `std::sync::RwLock`: readers share `&T` across threads (`T: Sync`), a writer
// gets `&mut T` (`T: Send`).
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}
// SAFETY: owning the lock owns the data.
unsafe impl<T: ?Sized + Send> Send for RwLock<T> {}

impl<T: ?Sized> std::fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (readers, writer) = self.lock.state();
        f.debug_struct("RwLock")
            .field("readers", &readers)
            .field("writer", &writer)
            .finish_non_exhaustive()
    }
}

impl<T> RwLock<T> {
    crate::atomics::const_unless_loom! {
        /// A new, unlocked lock.
        ///
        /// ```
        /// let lock = offshoot::sync::RwLock::new(5);
        /// assert_eq!(*lock.read(), 5);
        /// ```
        pub fn new(value: T) -> RwLock<T> {
            RwLock {
                lock: RwWord::new(),
                name: None,
                data: UnsafeCell::new(value),
            }
        }
    }

    crate::atomics::const_unless_loom! {
        /// A new, unlocked lock, which a deadlock report names `name`: a task that waits for it
        /// for ever is listed as waiting on `RwLock::read "name" (0x…)` (or `RwLock::write`)
        /// instead of `RwLock::read 0x…`. Naming costs nothing until such a report is written.
        ///
        /// ```
        /// use offshoot::sync::RwLock;
        /// static ROUTES: RwLock<Vec<&str>> = RwLock::named("routes", Vec::new());
        /// ROUTES.write().push("/");
        /// assert_eq!(ROUTES.read().len(), 1);
        /// ```
        pub fn named(name: &'static str, value: T) -> RwLock<T> {
            let mut l = RwLock::new(value);
            l.name = Some(name);
            l
        }
    }

    /// The data, consuming the lock.
    ///
    /// ```
    /// let lock = offshoot::sync::RwLock::new(String::from("x"));
    /// lock.write().push('y');
    /// assert_eq!(lock.into_inner(), "xy");
    /// ```
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Shared access, parking while a writer holds or waits for the lock. A task that reads
    /// twice while a writer waits deadlocks (as with any writer-preferring lock).
    ///
    /// ```
    /// let lock = offshoot::sync::RwLock::new(vec![1, 2]);
    /// let (a, b) = offshoot::join(|| lock.read().len(), || lock.read().iter().sum::<i32>());
    /// assert_eq!((a, b), (2, 3));
    /// ```
    #[inline]
    #[track_caller]
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        self.read_at(std::panic::Location::caller())
    }

    /// [`Self::read`], called from `at` in the program (what a deadlock report prints).
    #[inline]
    pub(crate) fn read_at(
        &self,
        at: &'static std::panic::Location<'static>,
    ) -> RwLockReadGuard<'_, T> {
        let outside = holder_id() & OUTSIDE_THREAD != 0;
        self.lock.read(outside, || {
            WaitOn::new("RwLock::read", self).at(at).named(self.name)
        });
        RwLockReadGuard {
            lock: self,
            outside,
            _not_send: PhantomData,
        }
    }

    /// Shared access if it can be had without waiting: `None` while a writer holds the lock
    /// or waits for it.
    ///
    /// ```
    /// let lock = offshoot::sync::RwLock::new(1);
    /// let r = lock.try_read().expect("free");
    /// assert_eq!(*r, 1);
    /// assert!(lock.try_read().is_some(), "readers share");
    /// assert!(lock.try_write().is_none(), "a reader holds it");
    /// ```
    #[inline]
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, T>> {
        let outside = holder_id() & OUTSIDE_THREAD != 0;
        self.lock.try_read(outside).then(|| RwLockReadGuard {
            lock: self,
            outside,
            _not_send: PhantomData,
        })
    }

    /// Exclusive access if it can be had without waiting: `None` while anyone holds the
    /// lock or waits for it.
    ///
    /// ```
    /// let lock = offshoot::sync::RwLock::new(1);
    /// let mut w = lock.try_write().expect("free");
    /// *w += 1;
    /// assert!(lock.try_read().is_none(), "the writer holds it");
    /// drop(w);
    /// assert_eq!(*lock.read(), 2);
    /// ```
    #[inline]
    pub fn try_write(&self) -> Option<RwLockWriteGuard<'_, T>> {
        self.lock.try_write(holder_id()).then(|| RwLockWriteGuard {
            lock: self,
            _not_send: PhantomData,
        })
    }

    /// Exclusive access, parking while anyone else holds the lock.
    ///
    /// ```
    /// let lock = offshoot::sync::RwLock::new(0);
    /// offshoot::join(|| *lock.write() += 1, || *lock.write() += 2);
    /// assert_eq!(*lock.read(), 3);
    /// ```
    #[inline]
    #[track_caller]
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.write_at(std::panic::Location::caller())
    }

    /// [`Self::write`], called from `at` in the program (what a deadlock report prints).
    #[inline]
    pub(crate) fn write_at(
        &self,
        at: &'static std::panic::Location<'static>,
    ) -> RwLockWriteGuard<'_, T> {
        self.lock.write(holder_id(), || {
            WaitOn::new("RwLock::write", self).at(at).named(self.name)
        });
        RwLockWriteGuard {
            lock: self,
            _not_send: PhantomData,
        }
    }
}

/// Shared access to a [`RwLock`]'s data.
pub struct RwLockReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    /// Whether a thread outside every pool took it (the deadlock watch counts those).
    outside: bool,
    _not_send: PhantomData<*const ()>,
}

impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// Exclusive access to a [`RwLock`]'s data.
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    _not_send: PhantomData<*const ()>,
}

impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: while a read guard lives, no writer holds the lock, so no `&mut` exists.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the write guard is the only guard.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the write guard is the only guard, and it is borrowed mutably.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.lock.lock.read_release(self.outside);
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.lock.lock.write_release();
    }
}
