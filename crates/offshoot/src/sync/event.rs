//! [`Event`]: a single-assignment value with waiters and callbacks — the one primitive every
//! waiting construct of this crate is built on (Imam's EventDrivenControl).
//!
//! Invariants:
//! * The value is written once (`OnceLock`); after that it never changes.
//! * The check "is it set?" and the registration of a waiter or callback happen under the
//!   event's lock, and `set` stores the value before it takes that lock to collect them.
//!   So a waiter either sees the value or is collected by the setter: no wake-up is lost.
//! * Each registered waiter is woken exactly once, and each callback runs exactly once, by
//!   the setter after the value is visible (or at once by `on_set` if it already was).
//! * A waker slot (`set_waker`, for `Future::poll`) holds at most one waker: registering
//!   again replaces it, so a future polled many times stays one registration. The setter
//!   wakes the wakers the slots hold when it sets the value.
//! * A waiting task parks its fiber (`fiber/`): its worker goes on with other work. A
//!   thread outside every pool blocks. A wait that a stop or a deadlock ends takes its
//!   token out of the waiters before it unwinds.
//!
//! `set` against `wait` is model-checked by the loom tests at the bottom of this file, on
//! this very code (the lock, the value cell and thread parking come from the `atomics`
//! shim).

use std::task::Waker;

use crate::atomics::{Mutex, OnceLock};
use crate::fiber::{WaitOn, Waiter, Woken};

/// A waker slot not taken yet (see [`Event::set_waker`]).
pub(crate) const NO_WAKER_SLOT: u32 = u32::MAX;

type Callback<T> = Box<dyn FnOnce(&T) + Send>;

struct Pending<T> {
    /// The first waiter is kept inline: most events have at most one, and a fresh event
    /// then costs no allocation to wait on.
    first: Option<Waiter>,
    waiters: Vec<Waiter>,
    callbacks: Vec<Callback<T>>,
    /// The waker slots: one per future polled while the value was not set (`None` once its
    /// handle dropped).
    wakers: Vec<Option<Waker>>,
}

impl<T> Pending<T> {
    const EMPTY: Pending<T> = Pending {
        first: None,
        waiters: Vec::new(),
        callbacks: Vec::new(),
        wakers: Vec::new(),
    };
}

/// A value that is set once and can be waited for.
///
/// `wait` parks the calling task until the value is set, without blocking its worker
/// thread: the worker runs other tasks meanwhile, and the waiting task resumes (on the same
/// thread) once the value is there. Outside a pool, `wait` blocks the calling thread. Many
/// tasks may wait; one `set` wakes them all. Callbacks registered with [`Event::on_set`]
/// run once, right after the value is set, on the setting thread.
///
/// Every other construct of [`crate::sync`] is built on this one; use it to build your own.
///
/// ```
/// use offshoot::sync::Event;
/// use std::sync::Arc;
///
/// let ready = Arc::new(Event::new());
/// let r = ready.clone();
/// offshoot::join(
///     || *ready.wait() * 2,        // parks until the other side sets it
///     move || r.set(21).unwrap(),
/// );
/// assert_eq!(ready.get(), Some(&21));
/// ```
pub struct Event<T> {
    value: OnceLock<T>,
    pending: Mutex<Pending<T>>,
    /// The span at which the value was set (`metrics/`): raised before the value is
    /// published, absorbed by whoever reads it.
    stamp: crate::metrics::Stamp,
    /// What the deadlock report calls it besides its address ([`Event::named`]).
    pub(crate) name: Option<&'static str>,
}

impl<T> Default for Event<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Event<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event").field("value", &self.get()).finish()
    }
}

impl<T> Event<T> {
    crate::atomics::const_unless_loom! {
        /// An event that is not set.
        ///
        /// ```
        /// let e = offshoot::sync::Event::<u8>::new();
        /// assert!(!e.is_set());
        /// ```
        pub fn new() -> Self {
            Event {
                value: OnceLock::new(),
                pending: Mutex::new(Pending::EMPTY),
                stamp: crate::metrics::Stamp::new(),
                name: None,
            }
        }
    }

    crate::atomics::const_unless_loom! {
        /// An event that is not set, which a deadlock report names `name`: a task that waits
        /// on it for ever is listed as waiting on `Event "name" (0x…)` instead of `Event 0x…`.
        /// Naming costs nothing until such a report is written.
        ///
        /// ```
        /// use offshoot::sync::Event;
        /// static READY: Event<()> = Event::named("workers ready");
        /// READY.set(()).unwrap();
        /// assert!(READY.is_set());
        /// ```
        pub fn named(name: &'static str) -> Self {
            Event {
                value: OnceLock::new(),
                pending: Mutex::new(Pending::EMPTY),
                stamp: crate::metrics::Stamp::new(),
                name: Some(name),
            }
        }
    }

    /// Sets the value and wakes every waiter; runs the registered callbacks on this thread.
    /// Returns `Err(value)` if the event was set already (the first value stays).
    ///
    /// ```
    /// let e = offshoot::sync::Event::new();
    /// assert_eq!(e.set(1), Ok(()));
    /// assert_eq!(e.set(2), Err(2));
    /// assert_eq!(e.get(), Some(&1));
    /// ```
    pub fn set(&self, value: T) -> Result<(), T> {
        let mut value = Some(value);
        self.value.get_or_init(|| {
            crate::metrics::raise(&self.stamp);
            value.take().expect("set once")
        });
        if let Some(v) = value {
            return Err(v);
        }
        let Pending {
            first,
            waiters,
            callbacks,
            wakers,
        } = {
            let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::replace(&mut *p, Pending::EMPTY)
        };
        for w in first.iter().chain(&waiters) {
            w.wake();
        }
        for w in wakers.into_iter().flatten() {
            w.wake();
        }
        let v = self.value.get().expect("just set");
        for cb in callbacks {
            cb(v);
        }
        Ok(())
    }

    /// The value, if set.
    ///
    /// ```
    /// let e = offshoot::sync::Event::new();
    /// assert_eq!(e.get(), None);
    /// e.set(3).unwrap();
    /// assert_eq!(e.get(), Some(&3));
    /// ```
    pub fn get(&self) -> Option<&T> {
        let v = self.value.get();
        if v.is_some() {
            crate::metrics::absorb(&self.stamp);
        }
        v
    }

    /// Whether the value is set.
    ///
    /// ```
    /// let e = offshoot::sync::Event::new();
    /// e.set("done").unwrap();
    /// assert!(e.is_set());
    /// assert_eq!(e.set("again"), Err("again")); // single assignment
    /// ```
    pub fn is_set(&self) -> bool {
        self.value.get().is_some()
    }

    /// Waits until the value is set and returns it. A task parks (its worker goes on); a
    /// thread outside every pool blocks.
    ///
    /// A wait that nothing will ever end (nobody sets the event) waits forever.
    ///
    /// ```
    /// use offshoot::sync::Event;
    /// let e = Event::new();
    /// e.set("go").unwrap();
    /// assert_eq!(*e.wait(), "go");
    /// ```
    #[track_caller]
    pub fn wait(&self) -> &T {
        let at = std::panic::Location::caller();
        self.wait_with(|| WaitOn::new("Event", self).at(at))
    }

    /// [`Event::wait`], reported as waiting `on` (the construct built on this event), under
    /// this event's name unless `on` carries one.
    pub(crate) fn wait_on(&self, on: WaitOn) -> &T {
        self.wait_with(|| on)
    }

    /// [`Event::wait_on`], building the report's `on` only if the value is not set yet
    /// (so that a `get` of a set value costs no more for the wait's description).
    #[inline]
    pub(crate) fn wait_with(&self, on: impl FnOnce() -> WaitOn) -> &T {
        let v = match self.value.get() {
            Some(v) => v,
            None => crate::metrics::waiting(|| self.park_on(on())),
        };
        crate::metrics::absorb(&self.stamp);
        v
    }

    /// The waiting part of [`Event::wait_on`].
    #[inline(never)]
    fn park_on(&self, on: WaitOn) -> &T {
        loop {
            if let Some(v) = self.value.get() {
                return v;
            }
            let me = Waiter::prepare();
            {
                let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(v) = self.value.get() {
                    drop(p);
                    me.abandon();
                    return v;
                }
                if p.first.is_none() {
                    p.first = Some(me.clone());
                } else {
                    p.waiters.push(me.clone());
                }
            }
            match me.park(on.or_named(self.name)) {
                Woken::Normal => {}
                interrupted => {
                    let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                    if p.first.as_ref().is_some_and(|w| w.same(&me)) {
                        p.first = None;
                    }
                    p.waiters.retain(|w| !w.same(&me));
                    drop(p);
                    interrupted.raise()
                }
            }
        }
    }

    /// Runs `f` with the value once it is set: now, on this thread, if it is set already;
    /// else on the thread that sets it, right after the value is stored. `f` must not wait.
    ///
    /// ```
    /// use offshoot::sync::Event;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use std::sync::Arc;
    ///
    /// let e = Event::new();
    /// let seen = Arc::new(AtomicU32::new(0));
    /// let s = seen.clone();
    /// e.on_set(move |v: &u32| s.store(*v, Ordering::SeqCst));
    /// e.set(7).unwrap();
    /// assert_eq!(seen.load(Ordering::SeqCst), 7);
    /// ```
    pub fn on_set(&self, f: impl FnOnce(&T) + Send + 'static) {
        if let Some(v) = self.value.get() {
            return f(v);
        }
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = self.value.get() {
            drop(p);
            return f(v);
        }
        p.callbacks.push(Box::new(f));
    }

    /// For `Future::poll`: makes `waker` the one that the slot `*slot` wakes when the value
    /// is set, replacing the waker the slot held; a `*slot` of [`NO_WAKER_SLOT`] gets a
    /// fresh slot. Returns false, registering nothing, if the value is set already.
    pub(crate) fn set_waker(&self, slot: &mut u32, waker: &Waker) -> bool {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if self.value.get().is_some() {
            return false;
        }
        // The replaced waker is dropped after the lock (its drop is foreign code).
        let replaced = match p.wakers.get_mut(*slot as usize) {
            Some(Some(w)) if w.will_wake(waker) => None,
            Some(held) => held.replace(waker.clone()),
            None => {
                *slot = u32::try_from(p.wakers.len())
                    .ok()
                    .filter(|&s| s != NO_WAKER_SLOT)
                    .expect("offshoot: more than 2^32 - 1 futures polled on one event");
                p.wakers.push(Some(waker.clone()));
                None
            }
        };
        drop(p);
        drop(replaced);
        true
    }

    /// Drops the waker the slot `slot` holds (its future is gone), if the value is not set.
    pub(crate) fn clear_waker(&self, slot: u32) {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let cleared = p.wakers.get_mut(slot as usize).and_then(Option::take);
        drop(p);
        drop(cleared);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of `set` against `wait` (the check, the waiter's arm, the registration
    //! under the lock, the re-check, the park): run with `scripts/loom.sh`. The waiting
    //! threads are outside every pool, so they park as threads do; the fiber side of a
    //! park (the driver's `ARMED` → `PARKED` and who queues the fiber) is checked in
    //! `token.rs` on the same token transitions.
    use super::Event;
    use loom::sync::Arc;
    use loom::thread;

    /// A setter races a waiter: the waiter ends with the value, whatever the order (set
    /// before the first check, between the check and the registration, between the
    /// registration and the park, or after the park). A lost wake-up deadlocks the
    /// model, which loom reports.
    #[test]
    fn set_races_wait() {
        loom::model(|| {
            let ev = Arc::new(Event::new());
            let e = ev.clone();
            let setter = thread::spawn(move || e.set(7u32).unwrap());
            assert_eq!(*ev.wait(), 7);
            setter.join().unwrap();
        });
    }

    /// One set wakes two waiters; a second set changes nothing.
    #[test]
    fn one_set_wakes_two_waiters() {
        loom::model(|| {
            let ev = Arc::new(Event::new());
            let e = ev.clone();
            let waiter = thread::spawn(move || *e.wait());
            let e = ev.clone();
            let setter = thread::spawn(move || e.set(1u32).unwrap());
            assert_eq!(*ev.wait(), 1);
            assert_eq!(waiter.join().unwrap(), 1);
            setter.join().unwrap();
            assert_eq!(ev.set(2), Err(2));
        });
    }

    /// A callback registered while the value is being set runs exactly once, with it.
    #[test]
    fn on_set_races_set() {
        loom::model(|| {
            let ev = Arc::new(Event::new());
            let runs = Arc::new(loom::sync::atomic::AtomicUsize::new(0));
            let (e, r) = (ev.clone(), runs.clone());
            let setter = thread::spawn(move || e.set(3u32).unwrap());
            ev.on_set(move |v| {
                assert_eq!(*v, 3);
                r.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            });
            setter.join().unwrap();
            assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);
        });
    }
}
