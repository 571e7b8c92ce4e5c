//! [`Promise`] (002's data-driven future) and [`spawn_when`] (002's data-driven task).
//!
//! Invariants:
//! * A promise is an [`Event`] shared by its clones: put once, read by many.
//! * A data-driven task holds one count of its finish from the moment it is declared, so
//!   the finish cannot end before the task has run (or been dropped because the finish
//!   failed); it becomes a task — is queued — only when the last of its promises is put,
//!   by whoever puts it. Until then it costs no stack and no worker.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::Event;

/// A single-assignment value: `put` once, `get` (parking until it is put) from any number
/// of tasks. Clones share the value.
///
/// ```
/// use offshoot::sync::Promise;
///
/// let p = Promise::new();
/// let q = p.clone();
/// let (a, ()) = offshoot::join(|| *p.get() + 1, move || q.put(41).unwrap());
/// assert_eq!(a, 42);
/// ```
pub struct Promise<T> {
    event: Arc<Event<T>>,
}

impl<T> Clone for Promise<T> {
    fn clone(&self) -> Self {
        Promise {
            event: self.event.clone(),
        }
    }
}

impl<T> Default for Promise<T> {
    fn default() -> Self {
        Promise::new()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Promise<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Promise")
            .field("value", &self.try_get())
            .finish()
    }
}

/// The error of a second [`Promise::put`]: the value that was not stored.
#[derive(Debug, PartialEq, Eq)]
pub struct AlreadyPut<T>(pub T);

impl<T> std::fmt::Display for AlreadyPut<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the promise was put already; a promise takes one value")
    }
}

impl<T: std::fmt::Debug> std::error::Error for AlreadyPut<T> {}

/// The error of [`Promise::put_same`] when the promise holds a different value: the value
/// that was not stored.
#[derive(Debug, PartialEq, Eq)]
pub struct PutConflict<T>(pub T);

impl<T> std::fmt::Display for PutConflict<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the promise holds a different value; a promise takes one value")
    }
}

impl<T: std::fmt::Debug> std::error::Error for PutConflict<T> {}

impl<T> Promise<T> {
    /// A promise with no value yet.
    ///
    /// ```
    /// let p = offshoot::sync::Promise::new();
    /// p.put(1).unwrap();
    /// assert_eq!(*p.get(), 1);
    /// ```
    pub fn new() -> Promise<T> {
        Promise {
            event: Arc::new(Event::new()),
        }
    }

    /// Stores the value and wakes every task waiting in [`Promise::get`]. A second put is
    /// an error that hands the value back.
    ///
    /// ```
    /// let p = offshoot::sync::Promise::new();
    /// p.put(1).unwrap();
    /// assert_eq!(p.put(2), Err(offshoot::sync::AlreadyPut(2)));
    /// ```
    pub fn put(&self, value: T) -> Result<(), AlreadyPut<T>> {
        self.event.set(value).map_err(AlreadyPut)
    }

    /// Like [`Promise::put`], with the single-assignment rule of Imam's thesis (§2.4):
    /// putting a value *equal* to the one already there is a no-op (`Ok`); only an unequal
    /// one is an error. For producers that may race to put the same answer.
    ///
    /// ```
    /// use offshoot::sync::{Promise, PutConflict};
    /// let p = Promise::new();
    /// p.put_same(7).unwrap();
    /// assert_eq!(p.put_same(7), Ok(())); // the same value again: nothing happens
    /// assert_eq!(p.put_same(8), Err(PutConflict(8)));
    /// assert_eq!(*p.get(), 7);
    /// ```
    pub fn put_same(&self, value: T) -> Result<(), PutConflict<T>>
    where
        T: PartialEq,
    {
        match self.event.set(value) {
            Ok(()) => Ok(()),
            // A failed set means the value is initialised (the `OnceLock` in `Event` makes
            // a losing setter wait for the winner's value).
            Err(v) if self.event.get() == Some(&v) => Ok(()),
            Err(v) => Err(PutConflict(v)),
        }
    }

    /// The value, parking the calling task until it is put.
    ///
    /// ```
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let p = offshoot::sync::Promise::new();
    /// let (got, ()) = pool.run(|| offshoot::join(|| *p.get(), || p.put(9).unwrap()));
    /// assert_eq!(got, 9);
    /// ```
    pub fn get(&self) -> &T {
        self.event
            .wait_on(crate::fiber::WaitOn::new("Promise", &*self.event))
    }

    /// The value, if it was put.
    ///
    /// ```
    /// let p = offshoot::sync::Promise::new();
    /// assert_eq!(p.try_get(), None);
    /// p.put('x').unwrap();
    /// assert_eq!(p.try_get(), Some(&'x'));
    /// ```
    pub fn try_get(&self) -> Option<&T> {
        self.event.get()
    }

    /// The event behind the promise.
    ///
    /// ```
    /// let p = offshoot::sync::Promise::new();
    /// p.put(2).unwrap();
    /// assert!(p.event().is_set());
    /// ```
    pub fn event(&self) -> &Event<T> {
        &self.event
    }
}

impl<T: Send + Sync + 'static> Promise<T> {
    /// Registers `f` to run once the value is put (on the putting thread). `f` must not
    /// wait.
    fn when_put(&self, f: impl FnOnce() + Send + 'static) {
        self.event.on_set(move |_| f());
    }
}

/// Something a data-driven task can wait for: a [`Promise`] or an [`Event`].
pub trait Dependency: Send + Sync {
    /// Calls `f` once the value is there (now if it is already).
    fn on_ready(&self, f: Box<dyn FnOnce() + Send>);
}

impl<T: Send + Sync + 'static> Dependency for Promise<T> {
    fn on_ready(&self, f: Box<dyn FnOnce() + Send>) {
        self.when_put(f);
    }
}

impl<T: Send + Sync + 'static> Dependency for Arc<Event<T>> {
    fn on_ready(&self, f: Box<dyn FnOnce() + Send>) {
        self.on_set(move |_| f());
    }
}

/// Spawns `f` as a task of the innermost finish once every dependency is ready (002's
/// `asyncAwait`). Until then nothing runs and no stack is used; the finish waits for the
/// task all the same. If a dependency is never put, the finish never ends.
///
/// # Panics
/// Outside every pool, like [`crate::spawn`].
///
/// ```
/// use offshoot::sync::{spawn_when, Promise};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::sync::Arc;
///
/// let sum = Arc::new(AtomicU32::new(0));
/// offshoot::finish(|| {
///     let (a, b) = (Promise::<u32>::new(), Promise::<u32>::new());
///     let (a2, b2, s) = (a.clone(), b.clone(), sum.clone());
///     spawn_when(&[&a, &b], move || {
///         s.store(a2.get() + b2.get(), Ordering::SeqCst);
///     });
///     offshoot::spawn(move || a.put(1).unwrap());
///     b.put(2).unwrap();
/// });
/// assert_eq!(sum.load(Ordering::SeqCst), 3);
/// ```
pub fn spawn_when<F>(deps: &[&dyn Dependency], f: F)
where
    F: FnOnce() + Send + 'static,
{
    crate::worker::Worker::check_not_isolated("spawn");
    let ticket = crate::finish::Reservation::take();
    let left = Arc::new(AtomicUsize::new(deps.len() + 1));
    let job = Arc::new(std::sync::Mutex::new(Some((ticket, f))));
    let fire = {
        let left = left.clone();
        move || {
            if left.fetch_sub(1, Ordering::AcqRel) == 1 {
                let taken = super::lock(&job).take();
                if let Some((ticket, f)) = taken {
                    ticket.spawn(f);
                }
            }
        }
    };
    for d in deps {
        let fire = fire.clone();
        d.on_ready(Box::new(fire));
    }
    fire();
}
