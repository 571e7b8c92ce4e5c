//! `Timer` and `Engine`: a search with a budget — time since creation, or units of work
//! counted by the checks — that also resolves at the first offer.
//!
//! Invariant: the budget is spent once a check sees it so (a clock read past the deadline;
//! the sum of check arguments reaching the fuel, one `fetch_add` per check); that check
//! returns `Resolve`, as does the first offer (a `Slot` claim); after either, checks and
//! offers return `Terminate`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::slot::Slot;
use super::{Core, Eureka, Verdict};

/// A search with a deadline: resolves at the first offer, or once `limit` has passed since
/// the timer was made, as seen by a check (tasks notice at their next check; code that
/// never checks runs on). `get()` is the offer, if one came first.
///
/// ```
/// use std::time::Duration;
/// use offshoot::eureka::{self, Eureka, Timer};
///
/// let t = Timer::<u64>::new(Duration::from_millis(20));
/// eureka::finish(&t, || {
///     offshoot::par_for(0..usize::MAX, |_| {
///         t.check(); // the loop would take forever: the timer stops it
///     })
/// });
/// assert!(t.is_resolved());
/// assert_eq!(t.get(), None);
/// ```
#[derive(Debug)]
pub struct Timer<T> {
    core: Core,
    deadline: Instant,
    first: Slot<T>,
}

impl<T> Timer<T> {
    /// A timer that runs out `limit` from now.
    ///
    /// ```
    /// let t = offshoot::eureka::Timer::<()>::new(std::time::Duration::from_secs(1));
    /// assert!(t.remaining() > std::time::Duration::ZERO);
    /// ```
    pub fn new(limit: Duration) -> Timer<T> {
        let now = Instant::now();
        Timer {
            core: Core::new(),
            deadline: now
                .checked_add(limit)
                .unwrap_or(now + Duration::from_secs(1 << 40)),
            first: Slot::new(),
        }
    }

    /// The time left before the deadline (zero once it passed).
    ///
    /// ```
    /// let t = offshoot::eureka::Timer::<()>::new(std::time::Duration::ZERO);
    /// assert_eq!(t.remaining(), std::time::Duration::ZERO);
    /// ```
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
}

impl<T: Send + Sync> Timer<T> {
    /// [`Eureka::check`] without an argument: stops the caller once the time is up or an
    /// offer came in.
    ///
    /// ```
    /// use offshoot::eureka::{self, Timer};
    /// let t = Timer::<u8>::new(std::time::Duration::from_secs(60));
    /// eureka::finish(&t, || assert!(t.check()));
    /// ```
    #[inline]
    pub fn check(&self) -> bool {
        Eureka::check(self, ())
    }
}

impl<T: Send + Sync> Eureka for Timer<T> {
    type Offer = T;
    type Check = ();
    type Value<'a>
        = Option<&'a T>
    where
        T: 'a;

    fn core(&self) -> &Core {
        &self.core
    }

    fn record(&self, x: T) -> Verdict {
        self.first.offer_first(&self.core, x)
    }

    fn test(&self, _: &()) -> Verdict {
        if self.core.is_resolved() || self.first.is_claimed() {
            Verdict::Terminate
        } else if Instant::now() >= self.deadline {
            Verdict::Resolve
        } else {
            Verdict::Go
        }
    }

    fn value(&self) -> Option<&T> {
        self.first.get()
    }
}

/// A search with fuel: each `check(n)` spends `n` units (a comparison, a node visited);
/// resolves when the sum reaches the fuel, or at the first offer. Engines nest: the free
/// function [`check`](super::check) charges every enclosing engine. `get()` is the offer,
/// if one came first.
///
/// ```
/// use offshoot::eureka::{self, Engine, Eureka};
///
/// // Stop after about 50,000 nodes, whatever the schedule.
/// let fuel = Engine::<u32>::new(50_000);
/// eureka::finish(&fuel, || {
///     offshoot::par_for(0..10_000_000, |_| {
///         fuel.check(1);
///     })
/// });
/// assert!(fuel.is_resolved());
/// assert!(fuel.used() >= 50_000);
/// ```
#[derive(Debug)]
pub struct Engine<T> {
    core: Core,
    fuel: u64,
    used: AtomicU64,
    first: Slot<T>,
}

impl<T> Engine<T> {
    /// An engine with `fuel` units.
    ///
    /// ```
    /// assert_eq!(offshoot::eureka::Engine::<()>::new(10).fuel(), 10);
    /// ```
    pub fn new(fuel: u64) -> Engine<T> {
        Engine {
            core: Core::new(),
            fuel,
            used: AtomicU64::new(0),
            first: Slot::new(),
        }
    }

    /// The fuel it started with.
    ///
    /// ```
    /// assert_eq!(offshoot::eureka::Engine::<()>::new(7).fuel(), 7);
    /// ```
    pub fn fuel(&self) -> u64 {
        self.fuel
    }

    /// The units spent so far (at least the fuel once it resolved by spending).
    ///
    /// ```
    /// assert_eq!(offshoot::eureka::Engine::<()>::new(7).used(), 0);
    /// ```
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Acquire)
    }
}

impl<T: Send + Sync> Eureka for Engine<T> {
    type Offer = T;
    type Check = u64;
    type Value<'a>
        = Option<&'a T>
    where
        T: 'a;

    fn core(&self) -> &Core {
        &self.core
    }

    fn record(&self, x: T) -> Verdict {
        self.first.offer_first(&self.core, x)
    }

    fn test(&self, n: &u64) -> Verdict {
        if self.core.is_resolved() || self.first.is_claimed() {
            return Verdict::Terminate;
        }
        let before = self.used.fetch_add(*n, Ordering::AcqRel);
        if before.saturating_add(*n) >= self.fuel {
            Verdict::Resolve
        } else {
            Verdict::Go
        }
    }

    fn value(&self) -> Option<&T> {
        self.first.get()
    }
}
