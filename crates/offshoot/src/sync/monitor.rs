//! [`Monitor`]: a reentrant lock per task identity with `wait`, `notify` and `notify_all`
//! (Java's monitors, OPA's `synchronized` with cooperative waiting).
//!
//! Invariants:
//! * Who holds the monitor is a [`LockWord`] (`lock_word.rs`), taken with the holder's
//!   [`TaskId`]; `depth` is how many guards the holder holds (re-entries) and is read and
//!   written only by the holder (the lock word's acquire and release order it between
//!   holders). A task re-enters when the lock word names it: only it can have set that.
//! * `wait` queues the caller on the condition list *before* it gives the monitor up (all
//!   its re-entries at once), so a notify after that (which only a holder can send) finds
//!   it; it re-enters with the same depth when woken — also when a stop or a deadlock ends
//!   its wait, before it unwinds: the task's guards hold the monitor whenever the task runs
//!   (their `Deref` and their drops rely on it), so that re-entry cannot be interrupted.
//! * Guards give shared access only (`&T`): a task may hold several guards at once. Use
//!   `Cell`/`RefCell` inside for mutation; only the owning task (on its own thread) reaches
//!   the data while it holds the monitor.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::Deref;

use super::{lock, task_id, LockWord, TaskId, WaitList, WaitOn, Woken};

/// A reentrant monitor: [`Monitor::enter`] locks it for the calling task (again and again
/// if that task holds it already); [`MonitorGuard::wait`] gives it up and parks until
/// notified.
///
/// Re-entry is by task identity ([`task_id`]): the branch of a `join` that runs inline
/// shares its parent's identity and may re-enter; a stolen branch or a spawned task is
/// another task and waits.
///
/// ```
/// use offshoot::sync::Monitor;
/// use std::cell::RefCell;
/// use std::collections::VecDeque;
///
/// // A bounded buffer of 2 slots.
/// let buf = Monitor::new(RefCell::new(VecDeque::new()));
/// let got = offshoot::join(
///     || {
///         for i in 0..10 {
///             let g = buf.enter();
///             while g.borrow().len() == 2 {
///                 g.wait();
///             }
///             g.borrow_mut().push_back(i);
///             g.notify_all();
///         }
///     },
///     || {
///         let mut sum = 0;
///         for _ in 0..10 {
///             let g = buf.enter();
///             while g.borrow().is_empty() {
///                 g.wait();
///             }
///             sum += g.borrow_mut().pop_front().unwrap();
///             g.notify_all();
///         }
///         sum
///     },
/// );
/// assert_eq!(got.1, 45);
/// ```
pub struct Monitor<T: ?Sized> {
    /// Who holds the monitor, and who waits to enter it.
    lock: LockWord,
    /// The holder's guards (module invariants: only the holder touches it).
    depth: Cell<usize>,
    /// The tasks parked in [`MonitorGuard::wait`].
    cond: std::sync::Mutex<WaitList>,
    /// What the deadlock report calls it besides its address (`named`).
    name: Option<&'static str>,
    data: T,
}

// SAFETY: the data and `depth` are reached only by the task holding the monitor, on its
// thread, one task at a time (the lock word's acquire and release order the holders); so
// sharing needs `T: Send` (as `std`'s reentrant lock).
unsafe impl<T: ?Sized + Send> Sync for Monitor<T> {}

impl<T: ?Sized> std::fmt::Debug for Monitor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let owner = self.lock.holder();
        f.debug_struct("Monitor")
            .field("owner", &(owner != 0).then_some(TaskId(owner)))
            .finish_non_exhaustive()
    }
}

impl<T> Monitor<T> {
    crate::atomics::const_unless_loom! {
        /// A new monitor around `data`.
        ///
        /// ```
        /// let m = offshoot::sync::Monitor::new(std::cell::Cell::new(0));
        /// m.enter().set(1);
        /// assert_eq!(m.into_inner().get(), 1);
        /// ```
        pub fn new(data: T) -> Monitor<T> {
            Monitor {
                lock: LockWord::new(),
                depth: Cell::new(0),
                cond: std::sync::Mutex::new(WaitList::new()),
                name: None,
                data,
            }
        }
    }

    crate::atomics::const_unless_loom! {
        /// A new monitor around `data`, which a deadlock report names `name`: a task that waits
        /// for it for ever is listed as waiting on `Monitor "name" (0x…)` (or `Monitor::wait`)
        /// instead of `Monitor 0x…`. Naming costs nothing until such a report is written.
        ///
        /// ```
        /// use offshoot::sync::Monitor;
        /// let queue = Monitor::named("job queue", std::cell::RefCell::new(vec![1]));
        /// queue.enter().borrow_mut().push(2);
        /// assert_eq!(queue.into_inner().into_inner(), [1, 2]);
        /// ```
        pub fn named(name: &'static str, data: T) -> Monitor<T> {
            let mut m = Monitor::new(data);
            m.name = Some(name);
            m
        }
    }

    /// The data, consuming the monitor.
    ///
    /// ```
    /// let m = offshoot::sync::Monitor::new(vec![1]);
    /// assert_eq!(m.into_inner(), [1]);
    /// ```
    pub fn into_inner(self) -> T {
        self.data
    }
}

impl<T: ?Sized> Monitor<T> {
    /// Enters the monitor, parking while another task holds it.
    ///
    /// ```
    /// use std::cell::Cell;
    /// let m = offshoot::sync::Monitor::new(Cell::new(0));
    /// let outer = m.enter();
    /// let inner = m.enter(); // re-entrant: the same task may enter again
    /// inner.set(inner.get() + 1);
    /// drop((inner, outer));
    /// assert_eq!(m.enter().get(), 1);
    /// ```
    #[track_caller]
    pub fn enter(&self) -> MonitorGuard<'_, T> {
        let at = std::panic::Location::caller();
        self.acquire(task_id(), 1, || {
            WaitOn::new("Monitor", self).at(at).named(self.name)
        });
        MonitorGuard {
            monitor: self,
            _not_send: PhantomData,
        }
    }

    fn acquire(&self, me: TaskId, depth: usize, on: impl Fn() -> WaitOn) {
        if self.lock.holder() == me.as_u64() {
            // Re-entry: only this task can have stored its identity there.
            self.depth.set(self.depth.get() + depth);
        } else {
            self.lock.acquire(me.as_u64(), on);
            self.depth.set(depth);
        }
    }
}

/// One entry of a task into a [`Monitor`]; leaves it when dropped.
pub struct MonitorGuard<'a, T: ?Sized> {
    monitor: &'a Monitor<T>,
    _not_send: PhantomData<*const ()>,
}

impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for MonitorGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized> Deref for MonitorGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.monitor.data
    }
}

impl<T: ?Sized> MonitorGuard<'_, T> {
    /// Gives the monitor up (all of this task's entries), parks until notified, and
    /// enters again as deep as before. Wake-ups can be spurious: wait in a loop.
    ///
    /// A stop (or a deadlock) ends the wait, but the task enters the monitor again before
    /// it unwinds, waiting for it as long as it takes.
    ///
    /// ```
    /// use std::cell::Cell;
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let m = offshoot::sync::Monitor::new(Cell::new(false));
    /// pool.run(|| {
    ///     offshoot::join(
    ///         || {
    ///             let g = m.enter();
    ///             while !g.get() {
    ///                 g.wait(); // parks; the task below can enter meanwhile
    ///             }
    ///         },
    ///         || {
    ///             let g = m.enter();
    ///             g.set(true);
    ///             g.notify_all();
    ///         },
    ///     )
    /// });
    /// ```
    #[track_caller]
    pub fn wait(&self) {
        let at = std::panic::Location::caller();
        let m = self.monitor;
        let me = task_id();
        assert_eq!(
            m.lock.holder(),
            me.as_u64(),
            "offshoot: Monitor::wait by a task that does not hold the monitor"
        );
        let w = lock(&m.cond).enqueue();
        let depth = m.depth.replace(0);
        m.lock.release();
        let woken = w.park(WaitOn::new("Monitor::wait", m).at(at).named(m.name));
        if !matches!(woken, Woken::Normal) {
            lock(&m.cond).remove(&w);
        }
        m.acquire(me, depth, || {
            WaitOn::new("Monitor", m)
                .at(at)
                .named(m.name)
                .uninterruptible()
        });
        if !matches!(woken, Woken::Normal) {
            woken.raise();
        }
    }

    /// Wakes one task waiting in [`MonitorGuard::wait`].
    ///
    /// ```
    /// use std::cell::Cell;
    /// let m = offshoot::sync::Monitor::new(Cell::new(0));
    /// let g = m.enter();
    /// g.set(1);
    /// g.notify(); // wakes one waiting task, if any; none waits here
    /// ```
    pub fn notify(&self) {
        lock(&self.monitor.cond).wake_one();
    }

    /// Wakes every task waiting in [`MonitorGuard::wait`].
    ///
    /// ```
    /// use std::cell::Cell;
    /// let m = offshoot::sync::Monitor::new(Cell::new(0));
    /// let g = m.enter();
    /// g.set(1);
    /// g.notify_all(); // wakes every waiting task, if any
    /// ```
    pub fn notify_all(&self) {
        lock(&self.monitor.cond).wake_all();
    }
}

impl<T: ?Sized> Drop for MonitorGuard<'_, T> {
    fn drop(&mut self) {
        let m = self.monitor;
        // The task holds the monitor (module invariants), so `depth` is its own.
        let depth = m.depth.get() - 1;
        m.depth.set(depth);
        if depth == 0 {
            m.lock.release();
        }
    }
}
