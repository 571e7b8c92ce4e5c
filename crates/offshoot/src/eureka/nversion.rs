//! `NVersion`: N-version programming (thesis §4.5.3) — resolves once `n` offers agree.
//!
//! Invariant: `tallies` holds one `Tally` per distinct offered value (distinct under `==`),
//! after a sentinel (`None`) that the chain starts with; each is published once, by
//! `Chain::push_unless`, which compares the offer with every value published before it.
//! So an offer either publishes a new tally (its one vote) or adds its vote to the one
//! tally equal to it, with one `fetch_add`. The offer whose `fetch_add` takes a tally's
//! votes to exactly `n`, and that then claims `agreed` (a compare-and-swap from null),
//! alone returns `Resolve`: the eureka resolves at most once, and only once `n` offers
//! equal to the agreed value have been made. An offer that finds `agreed` claimed returns
//! `Terminate` without voting; so does one that takes a tally past `n`, or to `n` after
//! another value won the claim.

use std::ptr;

use super::chain::Chain;
use super::{Core, Eureka, Verdict};
use crate::atomics::{AtomicPtr, AtomicUsize, Ordering};

/// N-version programming (Imam's thesis §4.5.3): several independently written versions
/// of one computation offer their results, and the eureka resolves as soon as any `n` of
/// the offers are equal (`==`) — the agreed value is taken as the result, and the versions
/// still running are stopped. `get()` is the agreed value, or `None` if the region ended
/// with no `n` offers in agreement (the versions disagreed too much, or too few offered).
///
/// Versions that are wrong in the same way can agree too: `n` is the decision rule, as in
/// the thesis ("when any N (≥ 2) agree on their results"); [`votes`](NVersion::votes)
/// shows how the offers split. Which value wins when two values reach `n` votes at the
/// same time depends on the schedule, as the thesis says.
///
/// Lock-free on the paths tasks run: `check` is one load; `offer` compares its value with
/// each distinct value offered before it, then adds its vote with one `fetch_add`, or
/// publishes the value with one compare-and-swap (retried while others publish). Memory:
/// nothing is allocated by [`new`](NVersion::new), whatever `n`; each distinct value
/// offered costs one node, kept until the eureka drops (an offer equal to an earlier one
/// costs nothing and its value is dropped).
///
/// ```
/// use offshoot::eureka::{self, Eureka, NVersion};
///
/// // Five versions of an integer square root, one of them wrong. Any three that agree
/// // decide, and the versions still running then are stopped.
/// let versions: [fn(u64) -> u64; 5] = [
///     |x| (0..=x).take_while(|r| r * r <= x).last().unwrap_or(0),
///     |x| (x as f64).sqrt() as u64,
///     |x| x / 2, // the faulty one
///     |x| {
///         let mut r = x;
///         while r * r > x {
///             r = (r + x / r) / 2;
///         }
///         r
///     },
///     |x| (0..=x).rev().find(|r| r * r <= x).unwrap_or(0),
/// ];
/// let agreed = NVersion::new(3);
/// eureka::finish(&agreed, || {
///     offshoot::par_for(0..versions.len(), |v| {
///         agreed.offer(versions[v](10_000));
///     })
/// });
/// assert_eq!(agreed.get(), Some(&100));
/// ```
pub struct NVersion<T> {
    core: Core,
    n: usize,
    /// A sentinel (`None`), then one tally per distinct offered value, newest first.
    tallies: Chain<Option<Tally<T>>>,
    /// The tally that reached `n` votes first and won the claim; null until then.
    agreed: AtomicPtr<Tally<T>>,
}

/// A distinct offered value and how many offers gave it.
struct Tally<T> {
    value: T,
    votes: AtomicUsize,
}

impl<T: std::fmt::Debug> std::fmt::Debug for NVersion<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NVersion")
            .field("n", &self.n)
            .field("agreed", &self.agreed())
            .field("core", &self.core)
            .finish_non_exhaustive()
    }
}

impl<T> NVersion<T> {
    /// An unresolved N-version eureka that resolves once `n` offers are equal.
    ///
    /// # Panics
    /// If `n` is below 2 (the thesis's N ≥ 2: agreement takes two versions at least; for
    /// the first offer alone, use [`Search`](super::Search)). Any larger `n` is accepted
    /// and allocates nothing (`usize::MAX` never resolves in practice).
    ///
    /// ```
    /// let nv = offshoot::eureka::NVersion::<u32>::new(2);
    /// assert_eq!(nv.n(), 2);
    /// ```
    pub fn new(n: usize) -> NVersion<T> {
        assert!(
            n >= 2,
            "offshoot::eureka::NVersion::new(n = {n}): n must be at least 2 (n versions \
             must agree; for the first offer alone use Search)"
        );
        NVersion {
            core: Core::new(),
            n,
            tallies: Chain::new(None),
            agreed: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// The number of equal offers that resolve it.
    ///
    /// ```
    /// assert_eq!(offshoot::eureka::NVersion::<u8>::new(3).n(), 3);
    /// ```
    pub fn n(&self) -> usize {
        self.n
    }

    /// How the offers split: each distinct value offered, with the number of offers that
    /// gave it, in the order the values were first offered. Final once every region
    /// registered on the eureka has returned. Offers that found the eureka resolved are
    /// not counted; a few racing with the resolution may be, so the agreed value can show
    /// more than `n` votes.
    ///
    /// ```
    /// use offshoot::eureka::{self, Eureka, NVersion};
    /// let nv = NVersion::new(3);
    /// eureka::finish(&nv, || {
    ///     for x in [7, 8, 7] {
    ///         nv.offer(x);
    ///     }
    /// });
    /// assert_eq!(nv.get(), None); // no three agree
    /// assert_eq!(nv.votes(), vec![(&7, 2), (&8, 1)]);
    /// ```
    pub fn votes(&self) -> Vec<(&T, usize)> {
        let mut v: Vec<(&T, usize)> = self
            .tallies
            .iter()
            .flatten()
            // Relaxed: a count only; the tally itself was read through the chain's
            // acquire loads, and after the regions returned every vote happens before.
            .map(|t| (&t.value, t.votes.load(Ordering::Relaxed)))
            .collect();
        v.reverse();
        v
    }

    fn agreed(&self) -> Option<&T> {
        // Acquire: pairs with the claim's compare-and-swap (AcqRel), which the resolving
        // offer made after reading the tally through the chain.
        let p = self.agreed.load(Ordering::Acquire);
        // SAFETY: a non-null `agreed` points to a tally of a node of `tallies`, which
        // lives, unchanged, as long as `self`.
        (!p.is_null()).then(|| unsafe { &(*p).value })
    }
}

impl<T: PartialEq + Send + Sync> NVersion<T> {
    /// [`Eureka::check`] without an argument: stops the caller once `n` offers agreed.
    ///
    /// ```
    /// use offshoot::eureka::{self, NVersion};
    /// let nv = NVersion::<u8>::new(2);
    /// eureka::finish(&nv, || assert!(nv.check()));
    /// ```
    #[inline]
    pub fn check(&self) -> bool {
        Eureka::check(self, ())
    }
}

impl<T: PartialEq + Send + Sync> Eureka for NVersion<T> {
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
        // Acquire on `agreed` is not needed here (only whether it is null): a stale null
        // lets this offer vote, which the invariant allows.
        if self.core.is_resolved() || !self.agreed.load(Ordering::Relaxed).is_null() {
            return Verdict::Terminate;
        }
        let same = |new: &Option<Tally<T>>, old: &Option<Tally<T>>| match (new, old) {
            (Some(a), Some(b)) => a.value == b.value,
            _ => false,
        };
        let fresh = Some(Tally {
            value: x,
            votes: AtomicUsize::new(1),
        });
        let tally = match self.tallies.push_unless(fresh, same) {
            // A value no one offered before: one vote, and `n` ≥ 2.
            Ok(_) => return Verdict::Go,
            Err((_, Some(t))) => t,
            Err((_, None)) => unreachable!("offshoot: an offer matched the sentinel"),
        };
        // Relaxed: read-modify-writes of one counter are totally ordered, so exactly one
        // offer sees `n - 1` before its own; what the claim publishes (the tally) was
        // read through the chain's acquire loads.
        let votes = tally.votes.fetch_add(1, Ordering::Relaxed) + 1;
        if votes < self.n {
            return Verdict::Go;
        }
        let me = tally as *const Tally<T> as *mut Tally<T>;
        // AcqRel: the release pairs with the acquire in `agreed()` (`get`); one claim
        // wins, the one of the first value to reach `n`.
        if votes == self.n
            && self
                .agreed
                .compare_exchange(ptr::null_mut(), me, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            Verdict::Resolve
        } else {
            Verdict::Terminate
        }
    }

    #[inline]
    fn test(&self, _: &()) -> Verdict {
        // One load, as in `Search::test`: the offer that claims `agreed` resolves the
        // core right after.
        self.core.verdict()
    }

    fn value(&self) -> Option<&T> {
        self.agreed()
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::NVersion;
    use crate::eureka::{Eureka, Verdict};
    use loom::sync::Arc;

    /// Three offers race for a 2-version agreement, two of them equal: exactly the second
    /// equal one to vote resolves, the odd one goes on, and a reader sees no value or the
    /// agreed one.
    #[test]
    fn the_nth_equal_offer_alone_resolves() {
        loom::model(|| {
            let nv = Arc::new(NVersion::new(2));
            let offers: Vec<_> = [5u32, 5, 6]
                .into_iter()
                .map(|v| {
                    let nv = nv.clone();
                    loom::thread::spawn(move || nv.record(v))
                })
                .collect();
            if let Some(&v) = nv.value() {
                assert_eq!(v, 5);
            }
            let verdicts: Vec<Verdict> = offers.into_iter().map(|t| t.join().unwrap()).collect();
            let resolved = verdicts.iter().filter(|&&v| v == Verdict::Resolve).count();
            assert_eq!(resolved, 1, "{verdicts:?}");
            assert_ne!(verdicts[2], Verdict::Resolve, "the odd one resolved");
            assert_eq!(nv.value(), Some(&5));
            let mut votes = nv.votes();
            votes.sort();
            assert!(
                votes == [(&5, 2), (&6, 1)] || votes == [(&5, 2)],
                "{votes:?}"
            );
        });
    }
}
