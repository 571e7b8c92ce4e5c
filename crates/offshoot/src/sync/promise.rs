//! [`Promise`] (Imam's data-driven future) and [`spawn_when`] (Imam's data-driven task).
//!
//! Invariants:
//! * A promise is an [`Event`] shared by its clones: put once, read by many.
//! * A data-driven task holds one count of its finish from the moment it is declared, so
//!   the finish cannot end before the task has run (or been dropped because the finish
//!   failed); it becomes a task — is queued — only when the last of its promises is put,
//!   by whoever puts it. Until then it costs no stack and no worker.
//! * A data-driven task's job (its finish count and its body) sits in one mutex until it is
//!   taken, exactly once: by the last dependency's callback, which spawns it, or by the
//!   deadlock watch (it is registered there as pending, Imam's thesis §2.4), which spawns a task that
//!   raises the deadlock report instead.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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

    /// A promise with no value yet, which a deadlock report names `name`: a task (or a
    /// data-driven task) that waits on it for ever is listed as waiting on
    /// `Promise "name" (0x…)` instead of `Promise 0x…`. Clones share the name. Naming costs
    /// nothing until such a report is written.
    ///
    /// ```
    /// use offshoot::sync::Promise;
    /// let config = Promise::named("config loaded");
    /// config.put("debug = true").unwrap();
    /// assert_eq!(*config.clone().get(), "debug = true");
    /// ```
    pub fn named(name: &'static str) -> Promise<T> {
        Promise {
            event: Arc::new(Event::named(name)),
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
    #[track_caller]
    pub fn get(&self) -> &T {
        let at = std::panic::Location::caller();
        self.event
            .wait_with(|| crate::fiber::WaitOn::new("Promise", &*self.event).at(at))
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

    /// What the deadlock report calls it: a name and an address. The default is
    /// `"dependency"` and the object's own address.
    ///
    /// ```
    /// use offshoot::sync::{Dependency, Promise};
    /// let p = Promise::<u8>::new();
    /// assert_eq!(p.describe(), ("Promise", p.event() as *const _ as usize));
    /// ```
    fn describe(&self) -> (&'static str, usize) {
        ("dependency", self as *const Self as *const () as usize)
    }

    /// The name its creator gave it, which the deadlock report prints after what
    /// [`describe`](Dependency::describe) says (`Promise "name" (0x…)`). The default is
    /// `None`: no name.
    ///
    /// ```
    /// use offshoot::sync::{Dependency, Promise};
    /// assert_eq!(Promise::<u8>::named("input").name(), Some("input"));
    /// assert_eq!(Promise::<u8>::new().name(), None);
    /// ```
    fn name(&self) -> Option<&'static str> {
        None
    }
}

impl<T: Send + Sync + 'static> Dependency for Promise<T> {
    fn on_ready(&self, f: Box<dyn FnOnce() + Send>) {
        self.when_put(f);
    }
    fn describe(&self) -> (&'static str, usize) {
        ("Promise", Arc::as_ptr(&self.event) as *const () as usize)
    }
    fn name(&self) -> Option<&'static str> {
        self.event.name
    }
}

impl<T: Send + Sync + 'static> Dependency for Arc<Event<T>> {
    fn on_ready(&self, f: Box<dyn FnOnce() + Send>) {
        self.on_set(move |_| f());
    }
    fn describe(&self) -> (&'static str, usize) {
        ("Event", Arc::as_ptr(self) as *const () as usize)
    }
    fn name(&self) -> Option<&'static str> {
        self.name
    }
}

/// Spawns `f` as a task of the innermost finish once every dependency is ready (Imam's
/// `asyncAwait`). Until then nothing runs and no stack is used; the finish waits for the
/// task all the same.
///
/// Imam's rules for `asyncAwait`, and how they hold here:
/// * The task starts only after every dependency is ready, so a `get` of one of them
///   inside it returns at once. A `get` of a promise *not* in the list is allowed (Imam's thesis
///   calls it an error): it parks the task until that promise is put, as anywhere else.
/// * A task that is declared but not started counts as blocked for the deadlock watch (Imam's thesis
///   §2.4): if every worker is idle and nothing can put its missing dependencies — a cycle
///   of data-driven tasks each waiting for another's put (Imam's thesis Fig. 2.13), or a promise
///   nobody will put — the report names it and what it waits on, and it runs as a task that
///   panics with the report, so the finish that waits for it fails instead of hanging (see
///   [`Builder::deadlock_detection`](crate::Builder::deadlock_detection)).
/// * The task belongs to the finish it was declared in; if that finish fails before the
///   dependencies are ready, the task never runs.
///
/// # Panics
/// Outside every pool, like [`finish::spawn`](crate::finish::spawn()).
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
///     offshoot::finish::spawn(move || a.put(1).unwrap());
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
    let w = crate::worker::Worker::current();
    // SAFETY: `Reservation::take` returned, so this thread is a worker of a pool, and its
    // worker lives in that pool's registry.
    let pool = unsafe { std::ptr::from_ref((*w).registry()) };
    let task = crate::deadlock::add_pending(|key| {
        Arc::new(DataDriven {
            pool: pool as usize,
            key,
            declared_by: super::task_id().as_u64(),
            deps: deps
                .iter()
                .map(|d| {
                    let (what, addr) = d.describe();
                    let name = d.name();
                    (
                        crate::deadlock::Object { what, name, addr },
                        AtomicBool::new(false),
                    )
                })
                .collect(),
            left: AtomicUsize::new(deps.len() + 1),
            stamp: crate::metrics::Stamp::new(),
            job: std::sync::Mutex::new(Some((ticket, f))),
        })
    });
    for (i, d) in deps.iter().enumerate() {
        let task = task.clone();
        d.on_ready(Box::new(move || {
            task.deps[i].1.store(true, Ordering::Relaxed);
            task.fire();
        }));
    }
    task.fire();
}

/// A declared data-driven task: its dependencies, and its job until it starts.
struct DataDriven<F> {
    /// The registry of the pool it runs in (an address, only compared).
    pool: usize,
    /// Its entry in the deadlock watch's pending list, removed when the job is taken.
    key: crate::deadlock::PendingKey,
    /// The task that declared it (for the report).
    declared_by: u64,
    /// Each dependency as the report names it, and whether it is ready (for the report
    /// only: `left` decides).
    deps: Box<[(crate::deadlock::Object, AtomicBool)]>,
    /// Dependencies not ready yet, plus one for the declaration itself.
    left: AtomicUsize,
    /// The latest span among the dependencies' puts and the declaration (`metrics/`).
    stamp: crate::metrics::Stamp,
    /// The finish count and the body, until started or failed.
    job: std::sync::Mutex<Option<(crate::finish::Reservation, F)>>,
}

impl<F: FnOnce() + Send + 'static> DataDriven<F> {
    /// One dependency (or the declaration) is done; the last one starts the task.
    fn fire(&self) {
        // Work/span: the task starts after the latest of the puts and the declaration.
        crate::metrics::raise(&self.stamp);
        // AcqRel: the last decrement sees every other callback's (and the declaration's)
        // writes before it starts the task.
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            let taken = super::lock(&self.job).take();
            if let Some((ticket, f)) = taken {
                crate::deadlock::remove_pending(self.key);
                let after = self.stamp.get();
                ticket.spawn(move || {
                    crate::metrics::absorb_span(after);
                    f()
                });
            }
        }
    }
}

impl<F: FnOnce() + Send + 'static> crate::deadlock::Pending for DataDriven<F> {
    fn pool(&self) -> *const crate::pool::Registry {
        self.pool as *const crate::pool::Registry
    }
    fn is_pending(&self) -> bool {
        super::lock(&self.job).is_some()
    }
    fn describe(&self, text: &mut String) {
        use std::fmt::Write as _;
        let _ = write!(
            text,
            "\n  a data-driven task (spawn_when, declared by task {}, not started) waits on",
            self.declared_by
        );
        let mut first = true;
        for (dep, ready) in &*self.deps {
            if !ready.load(Ordering::Relaxed) {
                let _ = write!(text, "{} {dep}", if first { "" } else { "," });
                first = false;
            }
        }
    }
    fn fail(self: Arc<Self>, report: Arc<crate::deadlock::Report>) -> bool {
        let taken = super::lock(&self.job).take();
        match taken {
            Some((ticket, f)) => {
                crate::deadlock::remove_pending(self.key);
                drop(f);
                ticket.spawn(move || report.raise());
                true
            }
            None => false,
        }
    }
}
