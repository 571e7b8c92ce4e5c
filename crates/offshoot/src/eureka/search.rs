//! `Search` (the first offer resolves) and `Count` (the first `k` offers resolve).
//!
//! Invariant: an offer claims a slot with one atomic operation (`Slot::set`'s
//! compare-and-swap; `Count`: a `fetch_add` on the next free index); the offer that fills
//! the last slot — the `k`-th write to finish — and only it returns `Resolve`. An offer
//! that finds no slot free returns `Terminate`. So exactly `k` values are kept, and the
//! eureka is resolved only once all of them are readable.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::slot::Slot;
use super::{Core, Eureka, Verdict};
use crate::segments::Segments;

/// Find *a* solution: the first offer resolves the eureka (and stops its caller); every
/// later check or offer stops the caller. `get()` is the first offer.
///
/// ```
/// use offshoot::eureka::{self, Eureka, Search};
///
/// // Any word that contains "4242".
/// let words: Vec<String> = (0..50_000).map(|i| format!("w{i}")).collect();
/// let hit = Search::new();
/// eureka::finish(&hit, || {
///     offshoot::par_for(0..words.len(), |i| {
///         hit.check();
///         if words[i].contains("4242") {
///             hit.offer(i);
///         }
///     })
/// });
/// let i = *hit.get().expect("some word contains 4242");
/// assert!(words[i].contains("4242"));
/// ```
#[derive(Debug)]
pub struct Search<T> {
    core: Core,
    first: Slot<T>,
}

impl<T> Default for Search<T> {
    fn default() -> Self {
        Search::new()
    }
}

impl<T> Search<T> {
    /// An unresolved search.
    ///
    /// ```
    /// let s = offshoot::eureka::Search::<u32>::new();
    /// assert!(s.into_inner().is_none());
    /// ```
    pub fn new() -> Search<T> {
        Search {
            core: Core::new(),
            first: Slot::new(),
        }
    }

    /// The found value, moved out.
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, Search};
    /// let s = Search::new();
    /// eureka::finish(&s, || { s.offer(String::from("x")); });
    /// assert_eq!(s.into_inner(), Some(String::from("x")));
    /// ```
    pub fn into_inner(self) -> Option<T> {
        self.first.into_inner()
    }
}

impl<T: Send + Sync> Search<T> {
    /// [`Eureka::check`] without an argument: stops the caller once the search is resolved.
    ///
    /// ```
    /// use offshoot::eureka::{self, Search};
    /// let s = Search::<u8>::new();
    /// eureka::finish(&s, || assert!(s.check()));
    /// ```
    #[inline]
    pub fn check(&self) -> bool {
        Eureka::check(self, ())
    }
}

impl<T: Send + Sync> Eureka for Search<T> {
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

    #[inline]
    fn test(&self, _: &()) -> Verdict {
        // One load: the offer that claimed the slot resolves the core right after, and
        // the stop that resolution raises reaches the caller's poll (`check`) anyway.
        self.core.verdict()
    }

    fn value(&self) -> Option<&T> {
        self.first.get()
    }
}

/// Find the first `k` solutions (any `k`, in the order their offers claimed a place):
/// resolves after exactly `k` offers; later checks and offers stop their callers. `get()`
/// is the kept values (fewer than `k` if the region ended first). `Count::new(1)` is a
/// [`Search`] whose `get` is a list.
///
/// ```
/// use offshoot::eureka::{self, Count, Eureka};
/// let some = Count::new(5);
/// eureka::finish(&some, || {
///     offshoot::par_for(0..1_000_000, |i| {
///         some.check();
///         if i % 9_999 == 0 {
///             some.offer(i);
///         }
///     })
/// });
/// let got = some.get();
/// assert_eq!(got.len(), 5);
/// assert!(got.iter().all(|&&i| i % 9_999 == 0));
/// ```
#[derive(Debug)]
pub struct Count<T> {
    core: Core,
    next: AtomicUsize,
    filled: AtomicUsize,
    slots: Segments<Slot<T>>,
}

impl<T> Count<T> {
    /// An unresolved count of `k` offers. Any `k` is fine: the places for the kept
    /// offers are allocated as offers claim them (in segments of doubling size: at most
    /// about twice the offers taken), not `k` of them up front.
    ///
    /// # Panics
    /// If `k` is 0 (nothing to wait for: it could never resolve by an offer).
    ///
    /// ```
    /// let c = offshoot::eureka::Count::<u8>::new(2);
    /// assert!(c.into_inner().is_empty());
    /// ```
    pub fn new(k: usize) -> Count<T> {
        assert!(
            k > 0,
            "offshoot::eureka::Count::new(0): a count needs at least one offer to resolve"
        );
        Count {
            core: Core::new(),
            next: AtomicUsize::new(0),
            filled: AtomicUsize::new(0),
            slots: Segments::new(k),
        }
    }

    /// The `k` this count resolves at.
    ///
    /// ```
    /// assert_eq!(offshoot::eureka::Count::<u8>::new(4).k(), 4);
    /// ```
    pub fn k(&self) -> usize {
        self.slots.capacity()
    }

    /// The kept values, moved out, in the order their offers claimed a place.
    ///
    /// ```
    /// use offshoot::eureka::{self, Count, Eureka};
    /// let c = Count::new(2);
    /// eureka::finish(&c, || { c.offer('a'); });
    /// assert_eq!(c.into_inner(), vec!['a']);
    /// ```
    pub fn into_inner(self) -> Vec<T> {
        self.slots
            .into_elements()
            .into_iter()
            .filter_map(Slot::into_inner)
            .collect()
    }
}

impl<T: Send + Sync> Count<T> {
    /// [`Eureka::check`] without an argument: stops the caller once `k` offers came in.
    ///
    /// ```
    /// use offshoot::eureka::{self, Count};
    /// let c = Count::<u8>::new(1);
    /// eureka::finish(&c, || assert!(c.check()));
    /// ```
    #[inline]
    pub fn check(&self) -> bool {
        Eureka::check(self, ())
    }
}

impl<T: Send + Sync> Eureka for Count<T> {
    type Offer = T;
    type Check = ();
    type Value<'a>
        = Vec<&'a T>
    where
        T: 'a;

    fn core(&self) -> &Core {
        &self.core
    }

    fn record(&self, x: T) -> Verdict {
        let k = self.slots.capacity();
        // A cheap refusal once full, so late offers do not push `next` forever.
        if self.next.load(Ordering::Relaxed) >= k {
            return Verdict::Terminate;
        }
        let i = self.next.fetch_add(1, Ordering::AcqRel);
        if i >= k {
            return Verdict::Terminate;
        }
        let slot = self.slots.get_or_make(i, Slot::new).expect("below k");
        if slot.set(x).is_err() {
            unreachable!("offshoot: a Count slot was claimed twice");
        }
        // AcqRel: the offer that completes the k-th write sees every other write done.
        if self.filled.fetch_add(1, Ordering::AcqRel) + 1 == k {
            Verdict::Resolve
        } else {
            Verdict::Go
        }
    }

    #[inline]
    fn test(&self, _: &()) -> Verdict {
        // One load, as in `Search::test`.
        self.core.verdict()
    }

    fn value(&self) -> Vec<&T> {
        self.slots.iter().filter_map(Slot::get).collect()
    }
}
