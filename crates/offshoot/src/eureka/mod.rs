//! Eureka: speculative search that stops itself (Imam's Eureka Programming Model, thesis
//! ch. 4; `docs/REFERENCES.md`).
//!
//! A *eureka* is registered on a region — [`finish`]`(&eureka, body)`, a [`finish()`]
//! that takes it. Code in the region's dynamic extent — the body, its callees, tasks it
//! spawns or joins, on any worker, however deep — reports events with `offer` and tests
//! with `check`. Once the eureka is **resolved** (a search found its target, K solutions
//! came in, time or fuel ran out, a sequence converged), everything still running in every
//! region registered on it is stopped, exactly as the siblings of a failed task are: tasks
//! not yet started never start, parked tasks end, and running code stops (its destructors
//! run) at its next `check`, `offer` or runtime poll point — never in the middle of
//! other code. The region's call then returns normally, and [`Eureka::get`] holds the
//! final value.
//!
//! ```
//! use offshoot::eureka::{self, Eureka, Search};
//!
//! // Where in a big array is this value? Any hit will do; the rest of the search stops.
//! let data: Vec<u64> = (0..1_000_000u64).map(|i| (i * 7919) % 1_000_003).collect();
//! let found = Search::new();
//! eureka::finish(&found, || {
//!     offshoot::par_for(0..data.len(), |i| {
//!         found.check(); // stops this piece once another one found it
//!         if data[i] == 7919 * 777 % 1_000_003 {
//!             found.offer(i); // resolves the search (and stops this caller too)
//!         }
//!     });
//! });
//! let i = *found.get().expect("it is in the array");
//! assert_eq!(i, 777);
//! ```
//!
//! # Variants
//!
//! | eureka | resolves | `offer(x)` | `check(c)` | `get()` |
//! |---|---|---|---|---|
//! | [`Search<T>`] | at the first offer | keeps the first `x` | — | the first `x` |
//! | [`Count<T>`] | after exactly `k` offers | keeps the first `k` | — | those `k` (fewer if the region ended first) |
//! | [`Minima<T, C>`] | never by itself (runs to the end; compose it to stop early) | lowers the bound, or returns `false` | `false` if `c` cannot beat the bound | the bound |
//! | [`Timer<T>`] | at the first offer, or when its time since creation is up | keeps the first `x` | — | the offer, if any |
//! | [`Engine<T>`] | at the first offer, or when the fuel (sum of `check` arguments) is spent | keeps the first `x` | charges `c` units | the offer, if any |
//! | [`Convergence<T, P>`] | when `converged(previous, new)` holds | becomes the latest value | — | the latest value |
//! | [`NVersion<T>`] | once `n` offers are equal (`n` ≥ 2; thesis §4.5.3) | a vote for `x` (compared with each distinct value so far, then one atomic add or compare-and-swap) | — | the agreed value, if `n` agreed |
//! | [`And<A, B>`], [`Or<A, B>`] | when both / either part has | a pair of optional offers | a pair of optional checks | both parts' values |
//!
//! Each is lock-free on the paths tasks run: `check` is a load and a branch, and `offer`
//! a compare-and-swap on one word (Minima and
//! Convergence: on one pointer to an immutable node, kept until the eureka drops). A
//! resolution takes one lock to reach the regions registered on the eureka, once.
//!
//! # Static helpers and nesting
//!
//! [`offer`] and [`check`] (the free functions) find the eureka through the calling code's
//! innermost enclosing region that has one, so nothing needs to be passed down. `offer`
//! goes to that innermost eureka only. `check` walks every enclosing region with a
//! eureka, innermost first, and tests each whose `check` takes the argument's type (so
//! nested [`Engine`]s are all charged); an enclosing region that resolved stops the caller
//! in any case, through the runtime's stop. So resolving an outer eureka stops the inner
//! searches, at their next check. The methods ([`Eureka::offer`], [`Eureka::check`])
//! address one eureka directly and skip the walk (they must be called inside a region
//! registered on that eureka): they see that eureka's resolution at once, and an
//! enclosing region's stop at the runtime's next poll point (a `join`, a `spawn`, a loop
//! step, [`poll`](crate::poll())), not at the check itself — the price of a check that is
//! one load.
//!
//! # Errors
//!
//! * [`offer`] / [`check`] with no region with a eureka around the caller, or with an
//!   argument of a type the eureka does not take, panic with a message naming both.
//! * [`Eureka::offer`] from code outside every region registered on that eureka panics
//!   before the offer is recorded, so a misplaced offer changes nothing.
//!   [`Eureka::check`] there panics when it would stop the caller (in debug builds:
//!   always); a check that finds nothing to do stays a load and a branch, so a check that
//!   charges (an [`Engine`]'s) is charged before that test.
//!
//! # How this differs from HJlib's eurekas
//!
//! * **Everything in the extent of the region is under the eureka, the body too.** In
//!   offshoot a `join`'s second half runs on the caller until a worker asks for it, so
//!   "which code is a task" depends on timing; a rule that exempted the owner task would
//!   make termination depend on the schedule. The *caller* of [`finish`] is not stopped:
//!   the call returns (with the body's value, or `None` if the body was stopped).
//! * **Plain regions inside inherit the eureka**: a [`scope`](crate::scope()) or
//!   [`finish()`] inside a eureka region does not hide it (HJlib registers only tasks whose
//!   immediately enclosing finish has the eureka), so `scope`s for borrowing and parallel
//!   iterators work inside a search.
//! * **Rejections return `false` instead of ending the caller's task**: a [`Minima`] offer
//!   that does not lower the bound, or a check whose bound cannot beat it. Ending "the
//!   task" would have to end the `join` it sits in, and with it sibling work that may
//!   still improve the bound; the caller prunes its branch by returning instead.
//!
//! # Stops, locks and panics
//!
//! A stop unwinds the stopped code like a panic that nothing can catch for good. Guards
//! of [`sync::Mutex`](crate::sync::Mutex) and `std` locks are released by the unwinding as
//! by any panic; a `std::sync::Mutex` held across the stop is *poisoned* (a
//! `sync::Mutex` is not), so prefer `sync` locks in code that checks, or do not check
//! while holding a `std` lock. The first failure of a region wins: a panic before the
//! resolution resumes in the caller of [`finish`] — also when a `join`, loop or scope
//! held it until its other side ended, after the resolution (a panic counts from where
//! the runtime caught it) — while a panic of a task that was being stopped after it is
//! dropped, like a stopped sibling's.

mod bound;
mod budget;
mod chain;
mod compose;
mod convergence;
mod nversion;
mod region;
mod search;
mod slot;
mod static_helpers;

use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub use bound::{Ascending, Descending, Minima, Order};
pub use budget::{Engine, Timer};
pub use compose::{And, Or};
pub use convergence::Convergence;
pub use nversion::NVersion;
pub use region::finish;
pub use search::{Count, Search};
pub use static_helpers::{check, offer};

use region::{region_of, settle};

use crate::finish::{Failure, FinishState};

/// What a eureka makes of one `offer` or `check` ([`Eureka::record`], [`Eureka::test`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing to do: the caller goes on.
    Go,
    /// The caller's branch cannot help (a bound it cannot beat): `offer`/`check` return
    /// `false`, and the caller should give the branch up.
    Prune,
    /// This call resolved the eureka: every region registered on it stops, the caller too.
    Resolve,
    /// The eureka was resolved already: the caller stops.
    Terminate,
}

/// The part every eureka shares: whether it is resolved, and the regions registered on it
/// (to stop them when it resolves). A custom eureka holds one and returns it from
/// [`Eureka::core`].
///
/// Invariant: `resolved` goes from false to true once, under the `regions` lock, and every
/// region in the list then — and every one registered later — is failed with
/// `Failure::Resolved` under that lock; a region leaves the list before its state is gone.
pub struct Core {
    resolved: AtomicBool,
    regions: Mutex<Vec<*const FinishState>>,
}

// SAFETY: the pointers are to finish states that stay registered only while they are live
// (see the invariant), and are only used under the mutex, through `FinishState::fail`,
// which is thread-safe.
unsafe impl Send for Core {}
// SAFETY: as above; `resolved` is atomic.
unsafe impl Sync for Core {}

impl Default for Core {
    fn default() -> Self {
        Core::new()
    }
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core")
            .field("resolved", &self.is_resolved())
            .finish_non_exhaustive()
    }
}

impl Core {
    /// An unresolved core with no region registered.
    ///
    /// ```
    /// let core = offshoot::eureka::Core::new();
    /// assert!(!core.is_resolved());
    /// ```
    pub const fn new() -> Core {
        Core {
            resolved: AtomicBool::new(false),
            regions: Mutex::new(Vec::new()),
        }
    }

    /// Whether the eureka is resolved. Never stops the caller.
    ///
    /// ```
    /// use offshoot::eureka::{Eureka, Search};
    /// let s = Search::<u8>::new();
    /// assert!(!s.core().is_resolved());
    /// ```
    #[inline]
    pub fn is_resolved(&self) -> bool {
        // Acquire: pairs with the store in `resolve`, so a caller that sees it resolved
        // also sees what the resolving offer wrote.
        self.resolved.load(Ordering::Acquire)
    }

    /// The verdict of a check that has nothing to test but the resolution: `Terminate` once
    /// the eureka is resolved, else `Go` (one load). The `test` of most variants.
    ///
    /// ```
    /// use offshoot::eureka::{Core, Verdict};
    /// assert_eq!(Core::new().verdict(), Verdict::Go);
    /// ```
    #[inline]
    pub fn verdict(&self) -> Verdict {
        if self.is_resolved() {
            Verdict::Terminate
        } else {
            Verdict::Go
        }
    }

    /// Resolves: stops every region registered on the eureka, now and later, as a
    /// resolving offer does, but records no value. Returns whether this call resolved it.
    ///
    /// Callable from any thread, inside a region or not: this is how a resolution that
    /// happened elsewhere — another process of a distributed search, a user's cancel button
    /// — reaches the tasks of this one.
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, Search};
    /// let s = Search::<u32>::new();
    /// assert!(s.core().resolve(), "the first resolution");
    /// assert!(!s.core().resolve());
    /// // A region registered after the resolution stops at once.
    /// let ran = eureka::finish(&s, || {
    ///     offshoot::poll();
    ///     1
    /// });
    /// assert_eq!(ran, None);
    /// ```
    pub fn resolve(&self) -> bool {
        let regions = self.regions.lock().unwrap_or_else(|e| e.into_inner());
        if self.resolved.swap(true, Ordering::AcqRel) {
            return false;
        }
        for &st in regions.iter() {
            // SAFETY: a registered state is live while it is in the list (invariant).
            unsafe { (*st).fail(Failure::Resolved) };
        }
        true
    }

    fn register(&self, st: *const FinishState) {
        let mut regions = self.regions.lock().unwrap_or_else(|e| e.into_inner());
        regions.push(st);
        if self.resolved.load(Ordering::Acquire) {
            // SAFETY: the state is being registered by its owner, so it is live.
            unsafe { (*st).fail(Failure::Resolved) };
        }
    }

    fn unregister(&self, st: *const FinishState) {
        let mut regions = self.regions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = regions.iter().position(|&r| ptr::eq(r, st)) {
            regions.swap_remove(i);
        }
    }
}

/// A eureka: an object that tasks report events to ([`offer`](Eureka::offer)) and test
/// ([`check`](Eureka::check)), and that stops every region registered on it once it is
/// resolved (see the [module docs](self)).
///
/// The built-in variants implement it; a custom eureka implements the four required
/// methods — its own state change per offer (`record`) and per check (`test`), lock-free
/// if it can — and gets registration and termination from the provided ones.
///
/// ```
/// use offshoot::eureka::{self, Core, Eureka, Verdict};
/// use std::sync::atomic::{AtomicU32, Ordering};
///
/// /// Resolves once the offers add up to at least 100.
/// struct Quota { core: Core, sum: AtomicU32 }
///
/// impl Eureka for Quota {
///     type Offer = u32;
///     type Check = ();
///     type Value<'a> = u32;
///     fn core(&self) -> &Core { &self.core }
///     fn record(&self, x: u32) -> Verdict {
///         if self.core.is_resolved() { return Verdict::Terminate; }
///         let before = self.sum.fetch_add(x, Ordering::AcqRel);
///         if before < 100 && before + x >= 100 { Verdict::Resolve } else { Verdict::Go }
///     }
///     fn test(&self, _: &()) -> Verdict {
///         self.core.verdict()
///     }
///     fn value(&self) -> u32 { self.sum.load(Ordering::Acquire) }
/// }
///
/// let q = Quota { core: Core::new(), sum: AtomicU32::new(0) };
/// eureka::finish(&q, || offshoot::par_for(0..1000, |_| { q.offer(1); }));
/// assert!(q.is_resolved());
/// assert!(q.get() >= 100);
/// ```
pub trait Eureka: Sync {
    /// What `offer` takes.
    type Offer;
    /// What `check` takes (`()` when a check has nothing to say).
    type Check;
    /// What `get` returns.
    type Value<'a>
    where
        Self: 'a;

    /// The shared part: resolution and registered regions.
    fn core(&self) -> &Core;

    /// The eureka's own reaction to an offer, without stopping anyone (the provided
    /// [`offer`](Eureka::offer) does that from the verdict).
    fn record(&self, x: Self::Offer) -> Verdict;

    /// The eureka's own reaction to a check, without stopping anyone.
    fn test(&self, c: &Self::Check) -> Verdict;

    /// The value so far (final once every registered region has returned).
    fn value(&self) -> Self::Value<'_>;

    /// Reports an event. Returns `true` when the offer was taken, `false` when the eureka
    /// rejected it (a [`Minima`] offer that does not lower the bound: give the branch up).
    /// Stops the caller (it unwinds to the region, destructors running) when this offer
    /// resolved the eureka or it was resolved already, and also when an enclosing region
    /// was stopped.
    ///
    /// # Panics
    /// Outside every region registered on this eureka, before the offer is recorded (the
    /// eureka is left as it was). The region is found by a walk up the caller's regions
    /// (a few loads when the caller runs in the region itself).
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, Count};
    /// let first3 = Count::new(3);
    /// eureka::finish(&first3, || {
    ///     offshoot::par_for(0..100, |i| {
    ///         if i % 7 == 0 {
    ///             first3.offer(i);
    ///         }
    ///     })
    /// });
    /// assert_eq!(first3.get().len(), 3);
    /// ```
    fn offer(&self, x: Self::Offer) -> bool
    where
        Self: Sized,
    {
        // Looked up before the offer is recorded, so that a misplaced offer changes
        // nothing: it panics with the eureka as it was.
        let region = region_of(self.core(), "offer");
        settle(self.core(), self.record(x), Some(region))
    }

    /// Tests whether the caller should go on: returns `true` to go on, `false` when its
    /// branch cannot help (a bound that cannot beat a [`Minima`]'s); stops the caller when
    /// the eureka is resolved — also by this check ([`Timer`], [`Engine`]). A stop of an
    /// enclosing region is seen at the runtime's next poll point, not here (see
    /// [`check`] for the form that walks the enclosing regions).
    ///
    /// # Panics
    /// Outside every region registered on this eureka, when it would stop the caller (in
    /// debug builds: always).
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, Minima};
    /// let best = Minima::new(u32::MAX);
    /// eureka::finish(&best, || {
    ///     assert!(best.check(7)); // 7 could beat u32::MAX
    ///     best.offer(7);
    ///     assert!(!best.check(9)); // 9 cannot beat 7: prune
    /// });
    /// assert_eq!(*best.get(), 7);
    /// ```
    fn check(&self, c: Self::Check) -> bool
    where
        Self: Sized,
    {
        #[cfg(debug_assertions)]
        region_of(self.core(), "check");
        settle(self.core(), self.test(&c), None)
    }

    /// Whether the eureka is resolved. Never stops the caller.
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, Search};
    /// let s = Search::new();
    /// eureka::finish(&s, || { s.offer(1u8); });
    /// assert!(s.is_resolved());
    /// ```
    fn is_resolved(&self) -> bool {
        self.core().is_resolved()
    }

    /// The value: final once every region registered on the eureka has returned; inside
    /// one, what it holds at this moment.
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, Search};
    /// let s = Search::new();
    /// assert_eq!(s.get(), None);
    /// eureka::finish(&s, || { s.offer("here"); });
    /// assert_eq!(s.get(), Some(&"here"));
    /// ```
    fn get(&self) -> Self::Value<'_> {
        self.value()
    }
}
