//! `Minima`: branch and bound — the best value offered so far, under any order.
//!
//! Invariant: `best` only ever moves to a value that compares `Less` than the one it
//! replaces (a compare-and-swap on the pointer, retried while it keeps losing to
//! another offer that was not better); so the bound is monotone, and `get()` after the
//! region is the least of all offers and the initial value.

use std::cmp::Ordering;
use std::sync::Arc;

use arc_swap::ArcSwap;

use super::{Core, Eureka, Verdict};

/// Branch and bound: the least value offered so far under an order (`Minima::new`: `Ord`;
/// [`Minima::maxima`]: the greatest; [`Minima::by`]: any comparator). `offer(x)` lowers the
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
pub struct Minima<T, C = fn(&T, &T) -> Ordering> {
    core: Core,
    best: ArcSwap<T>,
    cmp: C,
}

impl<T: std::fmt::Debug, C> std::fmt::Debug for Minima<T, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Minima")
            .field("best", &self.best.load())
            .field("core", &self.core)
            .finish_non_exhaustive()
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
        Minima::by(init, T::cmp)
    }

    /// The greatest value offered (the Maxima eureka), starting from `init`.
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, Minima};
    /// let most = Minima::maxima(0);
    /// eureka::finish(&most, || offshoot::par_for(0..1000, |i| { most.offer(i % 97); }));
    /// assert_eq!(*most.get(), 96);
    /// ```
    pub fn maxima(init: T) -> Minima<T> {
        Minima::by(init, |a: &T, b: &T| b.cmp(a))
    }
}

impl<T, C: Fn(&T, &T) -> Ordering> Minima<T, C> {
    /// The least value offered under `cmp`, starting from `init`.
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
            best: ArcSwap::from_pointee(init),
            cmp,
        }
    }
}

impl<T, C> Eureka for Minima<T, C>
where
    T: Send + Sync,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    type Offer = T;
    type Check = T;
    type Value<'a>
        = Arc<T>
    where
        Self: 'a;

    fn core(&self) -> &Core {
        &self.core
    }

    fn record(&self, x: T) -> Verdict {
        let mut new: Option<Arc<T>> = None;
        let mut x = Some(x);
        loop {
            let cur = self.best.load();
            let better = match (&new, &x) {
                (Some(n), _) => (self.cmp)(n, &cur),
                (None, Some(v)) => (self.cmp)(v, &cur),
                (None, None) => unreachable!(),
            };
            if better != Ordering::Less {
                return Verdict::Prune;
            }
            let n = new.get_or_insert_with(|| Arc::new(x.take().expect("moved once")));
            let prev = self.best.compare_and_swap(&*cur, Arc::clone(n));
            if Arc::ptr_eq(&prev, &cur) {
                return Verdict::Go;
            }
        }
    }

    #[inline]
    fn test(&self, b: &T) -> Verdict {
        if (self.cmp)(b, &self.best.load()) == Ordering::Less {
            Verdict::Go
        } else {
            Verdict::Prune
        }
    }

    fn value(&self) -> Arc<T> {
        self.best.load_full()
    }
}
