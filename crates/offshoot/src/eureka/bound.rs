//! `Minima`: branch and bound — the best value offered so far, under any order.
//!
//! Invariant: `best` only ever moves to a value that compares `Less` than the one it
//! replaces (`Chain::push_if`: a compare-and-swap on one pointer, retried while it keeps
//! losing to another offer, re-compared each time); so the bound is monotone, and `get()`
//! after the region is the least of all offers and the initial value. A check or a
//! rejected offer is one load and the comparator.

use std::cmp::Ordering;

use super::chain::Chain;
use super::{Core, Eureka, Verdict};

/// Branch and bound: the least value offered so far under an order (`Minima::new`: `Ord`;
/// [`Minima::maxima`]: the greatest; [`Minima::by`]: any comparator or [`Order`]). `offer(x)` lowers the
/// bound to `x` and returns `true`, or returns `false` when `x` does not beat it;
/// `check(&b)` returns `false` when a branch whose best possible value is `b` cannot beat
/// the bound (prune it). It never resolves by itself: the search runs until every branch
/// is explored or pruned (compose it with [`Or`](super::Or) and a [`Timer`](super::Timer)
/// for a time limit). `get()` is the bound.
///
/// ```
/// use offshoot::eureka::{self, Eureka, Minima};
///
/// // The cheapest subset of `cost` whose size is 3, pruning by a lower bound.
/// fn best(cost: &[u32], i: usize, picked: u32, sum: u32, bound: &Minima<u32>) {
///     if picked == 3 {
///         bound.offer(sum);
///         return;
///     }
///     if i == cost.len() || !bound.check(sum) {
///         return; // no items left, or even adding nothing more cannot beat the bound
///     }
///     offshoot::join(
///         || best(cost, i + 1, picked + 1, sum + cost[i], bound),
///         || best(cost, i + 1, picked, sum, bound),
///     );
/// }
///
/// let cost = [9, 4, 7, 1, 8, 3, 6];
/// let bound = Minima::new(u32::MAX);
/// eureka::finish(&bound, || best(&cost, 0, 0, 0, &bound));
/// assert_eq!(*bound.get(), 1 + 3 + 4);
/// ```
pub struct Minima<T, C = Ascending> {
    core: Core,
    best: Chain<T>,
    cmp: C,
}

impl<T: std::fmt::Debug, C> std::fmt::Debug for Minima<T, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Minima")
            .field("best", self.best.current())
            .field("core", &self.core)
            .finish_non_exhaustive()
    }
}

/// An order for [`Minima`]: `Less` means "better". Implemented by [`Ascending`] (the
/// least value wins), [`Descending`] (the greatest wins) and every
/// `Fn(&T, &T) -> Ordering` closure.
pub trait Order<T>: Sync {
    /// How `a` compares with `b`.
    fn order(&self, a: &T, b: &T) -> Ordering;
}

/// The natural order of `T: Ord`: [`Minima::new`] keeps the least value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ascending;

/// The reversed natural order: [`Minima::maxima`] keeps the greatest value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Descending;

impl<T: Ord> Order<T> for Ascending {
    #[inline]
    fn order(&self, a: &T, b: &T) -> Ordering {
        a.cmp(b)
    }
}

impl<T: Ord> Order<T> for Descending {
    #[inline]
    fn order(&self, a: &T, b: &T) -> Ordering {
        b.cmp(a)
    }
}

impl<T, F: Fn(&T, &T) -> Ordering + Sync> Order<T> for F {
    #[inline]
    fn order(&self, a: &T, b: &T) -> Ordering {
        self(a, b)
    }
}

impl<T: Ord> Minima<T> {
    /// The least value offered, starting from `init` (an upper bound every offer must
    /// beat).
    ///
    /// ```
    /// let m = offshoot::eureka::Minima::new(10);
    /// assert_eq!(*offshoot::eureka::Eureka::get(&m), 10);
    /// ```
    pub fn new(init: T) -> Minima<T> {
        Minima::by(init, Ascending)
    }

    /// The greatest value offered (the Maxima eureka), starting from `init`.
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, Minima};
    /// let most = Minima::maxima(0);
    /// eureka::finish(&most, || offshoot::par_for(0..1000, |i| { most.offer(i % 97); }));
    /// assert_eq!(*most.get(), 96);
    /// ```
    pub fn maxima(init: T) -> Minima<T, Descending> {
        Minima::by(init, Descending)
    }
}

impl<T, C: Order<T>> Minima<T, C> {
    /// The least value offered under `cmp` (a closure `|a, b| -> Ordering`, or an
    /// [`Order`]), starting from `init`.
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, Minima};
    /// // The shortest word, by length.
    /// let m = Minima::by(String::from("initial-bound"), |a: &String, b: &String| a.len().cmp(&b.len()));
    /// eureka::finish(&m, || {
    ///     for w in ["banana", "fig", "cherry"] {
    ///         m.offer(w.to_string());
    ///     }
    /// });
    /// assert_eq!(m.get().as_str(), "fig");
    /// ```
    pub fn by(init: T, cmp: C) -> Minima<T, C> {
        Minima {
            core: Core::new(),
            best: Chain::new(init),
            cmp,
        }
    }
}

impl<T, C> Eureka for Minima<T, C>
where
    T: Send + Sync,
    C: Order<T>,
{
    type Offer = T;
    type Check = T;
    type Value<'a>
        = &'a T
    where
        Self: 'a;

    fn core(&self) -> &Core {
        &self.core
    }

    #[inline]
    fn record(&self, x: T) -> Verdict {
        match self
            .best
            .push_if(x, |x, cur| self.cmp.order(x, cur) == Ordering::Less)
        {
            Ok(_) => Verdict::Go,
            Err(_) => Verdict::Prune,
        }
    }

    #[inline]
    fn test(&self, b: &T) -> Verdict {
        if self.cmp.order(b, self.best.current()) == Ordering::Less {
            Verdict::Go
        } else {
            Verdict::Prune
        }
    }

    fn value(&self) -> &T {
        self.best.current()
    }
}
