//! [`EventCount`]: a monotone counter tasks can wait on (Imam's thesis, Fig. 2.8), built on
//! the public [`Event`].
//!
//! Invariants:
//! * `count` only grows. `waiting` maps each value some task waits for to one event, set
//!   when the count reaches that value; the entry is removed then, so the map holds only
//!   values still awaited (the thesis's version keeps an entry per value forever).
//! * No lost wake-up: `advance` raises `count` before it takes the map's lock, and
//!   `wait_until` tests `count` under that lock before adding its entry; so a waiter either
//!   sees the new count or is in the map when `advance` drains it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::Event;

/// A counter that only grows, with waits for it to reach a value: `advance` adds one and
/// wakes every task waiting for a value it reached; `wait_until(v)` parks the calling task
/// until the count is at least `v`; `read` is the count.
///
/// ```
/// use offshoot::sync::EventCount;
///
/// let steps = EventCount::new();
/// let log = std::sync::Mutex::new(Vec::new());
/// offshoot::scope(|s| {
///     for k in (1..=3).rev() {
///         let (steps, log) = (&steps, &log);
///         s.spawn(move |_| {
///             steps.wait_until(k);
///             log.lock().unwrap().push(k);
///         });
///     }
///     for _ in 0..3 {
///         steps.advance();
///     }
/// });
/// assert_eq!(steps.read(), 3);
/// assert_eq!(log.into_inner().unwrap().len(), 3);
/// ```
#[derive(Debug, Default)]
pub struct EventCount {
    count: AtomicU64,
    waiting: Mutex<BTreeMap<u64, Arc<Event<()>>>>,
    /// What the deadlock report calls it besides its address (`named`).
    name: Option<&'static str>,
}

impl EventCount {
    /// A count of 0.
    ///
    /// ```
    /// assert_eq!(offshoot::sync::EventCount::new().read(), 0);
    /// ```
    pub fn new() -> EventCount {
        EventCount::default()
    }

    /// A count of 0, which a deadlock report names `name`: a task that waits on it for ever
    /// is listed as waiting on `EventCount "name" (0x…)` instead of `EventCount 0x…`.
    /// Naming costs nothing until such a report is written.
    ///
    /// ```
    /// let rows = offshoot::sync::EventCount::named("rows done");
    /// rows.advance();
    /// rows.wait_until(1); // reached: returns at once
    /// ```
    pub fn named(name: &'static str) -> EventCount {
        EventCount {
            name: Some(name),
            ..EventCount::default()
        }
    }

    /// Adds one to the count and wakes every task waiting for a value it has now reached;
    /// returns the new count.
    ///
    /// ```
    /// let c = offshoot::sync::EventCount::new();
    /// assert_eq!(c.advance(), 1);
    /// assert_eq!(c.advance(), 2);
    /// ```
    pub fn advance(&self) -> u64 {
        // SeqCst pairs with the load in `wait_until` (see the module invariants; the lock
        // taken below orders the two as well).
        let now = self.count.fetch_add(1, Ordering::SeqCst) + 1;
        let reached = {
            let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            let later = w.split_off(&(now + 1));
            std::mem::replace(&mut *w, later)
        };
        for (_, e) in reached {
            // Each entry is set once: it left the map above, under the lock.
            let _ = e.set(());
        }
        now
    }

    /// Waits until the count is at least `v`: a task parks, a thread outside every pool
    /// blocks. Returns at once if it is already.
    ///
    /// ```
    /// use offshoot::sync::EventCount;
    /// let c = EventCount::new();
    /// offshoot::join(|| c.wait_until(2), || { c.advance(); c.advance(); });
    /// assert_eq!(c.read(), 2);
    /// ```
    #[track_caller]
    pub fn wait_until(&self, v: u64) {
        let at = std::panic::Location::caller();
        // SeqCst: pairs with `advance`'s SeqCst increment; acquire would do here (it makes what
        // the advancer did before visible), and the lock orders the slow path below (module
        // invariants).
        if self.count.load(Ordering::SeqCst) >= v {
            return;
        }
        let e = {
            let mut w = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            // SeqCst: the re-read under the lock that `advance` takes after its increment: the
            // lock alone orders the two (module invariants).
            if self.count.load(Ordering::SeqCst) >= v {
                return;
            }
            w.entry(v).or_default().clone()
        };
        e.wait_on(
            crate::fiber::WaitOn::new("EventCount", self)
                .at(at)
                .named(self.name),
        );
    }

    /// The count now.
    ///
    /// ```
    /// let c = offshoot::sync::EventCount::new();
    /// c.advance();
    /// assert_eq!(c.read(), 1);
    /// ```
    pub fn read(&self) -> u64 {
        // SeqCst: pairs with `advance`'s SeqCst increment, so a reader also sees what the
        // advancer did before; acquire would do.
        self.count.load(Ordering::SeqCst)
    }

    /// How many distinct values tasks wait for now (each has one entry; reached values
    /// have none).
    ///
    /// ```
    /// let c = offshoot::sync::EventCount::new();
    /// c.wait_until(0); // reached already: no entry
    /// assert_eq!(c.waiting_values(), 0);
    /// ```
    pub fn waiting_values(&self) -> usize {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}
