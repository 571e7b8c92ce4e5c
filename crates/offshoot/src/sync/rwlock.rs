//! [`RwLock`]: many readers or one writer; waiters park.
//!
//! Invariants:
//! * `readers` (count of read guards), `writer` (the writing task, or 0) and the wait lists
//!   change only under `state`'s lock; a writer excludes readers and other writers.
//! * Writers are preferred: once a writer waits, new readers wait too, so a stream of
//!   readers cannot starve a writer. A release wakes waiting writers first (one), else every
//!   waiting reader; the woken compete again (no hand-off, no lost wake-up).
//! * `writers_waiting` counts the writers between their first failed attempt and their
//!   success or their interrupted wait (a stop or a deadlock); the last one to leave that
//!   way wakes the readers it held back.

use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use super::{holder_id, lock, wait_for, WaitList, WaitOn};

struct State {
    readers: usize,
    /// The identity of the writing task; 0 when none writes.
    writer: u64,
    writers_waiting: usize,
    read_waiters: WaitList,
    write_waiters: WaitList,
}

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
    state: std::sync::Mutex<State>,
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
        let s = lock(&self.state);
        f.debug_struct("RwLock")
            .field("readers", &s.readers)
            .field("writer", &(s.writer != 0))
            .finish_non_exhaustive()
    }
}

impl<T> RwLock<T> {
    /// A new, unlocked lock.
    ///
    /// ```
    /// let lock = offshoot::sync::RwLock::new(5);
    /// assert_eq!(*lock.read(), 5);
    /// ```
    pub const fn new(value: T) -> RwLock<T> {
        RwLock {
            state: std::sync::Mutex::new(State {
                readers: 0,
                writer: 0,
                writers_waiting: 0,
                read_waiters: WaitList::new(),
                write_waiters: WaitList::new(),
            }),
            name: None,
            data: UnsafeCell::new(value),
        }
    }

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
    pub const fn named(name: &'static str, value: T) -> RwLock<T> {
        let mut l = RwLock::new(value);
        l.name = Some(name);
        l
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
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        wait_for(
            &self.state,
            || WaitOn::new("RwLock::read", self).named(self.name),
            |s| {
                if s.writer != 0 || s.writers_waiting > 0 {
                    return Err(s.writer);
                }
                s.readers += 1;
                Ok(RwLockReadGuard {
                    lock: self,
                    _not_send: PhantomData,
                })
            },
            |s| &mut s.read_waiters,
            |_| {},
        )
    }

    /// Exclusive access, parking while anyone else holds the lock.
    ///
    /// ```
    /// let lock = offshoot::sync::RwLock::new(0);
    /// offshoot::join(|| *lock.write() += 1, || *lock.write() += 2);
    /// assert_eq!(*lock.read(), 3);
    /// ```
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        let waiting = Cell::new(false);
        wait_for(
            &self.state,
            || WaitOn::new("RwLock::write", self).named(self.name),
            |s| {
                if s.writer != 0 || s.readers > 0 {
                    if !waiting.replace(true) {
                        s.writers_waiting += 1;
                    }
                    return Err(s.writer);
                }
                s.writer = holder_id();
                if waiting.get() {
                    s.writers_waiting -= 1;
                }
                Ok(RwLockWriteGuard {
                    lock: self,
                    _not_send: PhantomData,
                })
            },
            |s| &mut s.write_waiters,
            |s| {
                if waiting.get() {
                    s.writers_waiting -= 1;
                    if s.writers_waiting == 0 && s.writer == 0 {
                        s.read_waiters.wake_all();
                    }
                }
            },
        )
    }

    fn release(&self, writer: bool) {
        let mut s = lock(&self.state);
        if writer {
            s.writer = 0;
        } else {
            s.readers -= 1;
        }
        if s.readers == 0 && !s.write_waiters.wake_one() {
            s.read_waiters.wake_all();
        }
    }
}

/// Shared access to a [`RwLock`]'s data.
pub struct RwLockReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
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
    fn drop(&mut self) {
        self.lock.release(false);
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.release(true);
    }
}
