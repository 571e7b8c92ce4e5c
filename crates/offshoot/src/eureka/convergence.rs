//! `Convergence`: resolves when a sequence of offered values settles.
//!
//! Invariant: each offer pushes itself as the latest value (`Chain::push_if`, always
//! taken: one compare-and-swap on a pointer, retried under contention), so offers form one
//! sequence; the offer whose predecessor and itself satisfy the predicate
//! resolves the eureka. An offer after that returns `Terminate` without entering the
//! sequence; the resolving offer also keeps its value in `settled` (a `Slot`), so `get()`
//! is the value that converged even if offers racing with the resolution swapped in later.

use super::chain::Chain;
use super::slot::Slot;
use super::{Core, Eureka, Verdict};

/// Resolves when `converged(previous, new)` holds for an offered value and the one offered
/// just before it (the first offer is compared with `init`). `get()` is the latest value:
/// the one that converged, once resolved. Iterations launched ahead of need stop once it
/// resolves.
///
/// ```
/// use offshoot::eureka::{self, Convergence, Eureka};
///
/// // Newton's iteration for sqrt(2), one step per task, in order.
/// let x = Convergence::new(1.0f64, |a: &f64, b: &f64| (a - b).abs() < 1e-12);
/// eureka::finish(&x, || {
///     for _ in 0..100 {
///         let cur = *x.get();
///         x.offer((cur + 2.0 / cur) / 2.0);
///     }
/// });
/// assert!(x.is_resolved());
/// assert!((*x.get() - 2f64.sqrt()).abs() < 1e-12);
/// ```
pub struct Convergence<T, P> {
    core: Core,
    latest: Chain<T>,
    settled: Slot<Settled<T>>,
    converged: P,
}

/// The value that converged: a node of `latest`, which lives as long as the eureka.
struct Settled<T>(*const T);

// SAFETY: it stands for a `&T` into the chain, shared like the chain's own references.
unsafe impl<T: Sync> Send for Settled<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Settled<T> {}

impl<T: std::fmt::Debug, P> std::fmt::Debug for Convergence<T, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Convergence")
            .field("latest", self.latest.current())
            .field("core", &self.core)
            .finish_non_exhaustive()
    }
}

impl<T, P: Fn(&T, &T) -> bool> Convergence<T, P> {
    /// A sequence starting at `init`, settled when `converged(previous, new)`.
    ///
    /// ```
    /// let c = offshoot::eureka::Convergence::new(0u32, |a: &u32, b: &u32| a == b);
    /// assert_eq!(*offshoot::eureka::Eureka::get(&c), 0);
    /// ```
    pub fn new(init: T, converged: P) -> Convergence<T, P> {
        Convergence {
            core: Core::new(),
            latest: Chain::new(init),
            settled: Slot::new(),
            converged,
        }
    }
}

impl<T, P> Convergence<T, P>
where
    T: Send + Sync,
    P: Fn(&T, &T) -> bool + Sync,
{
    /// [`Eureka::check`] without an argument: stops the caller once it converged.
    ///
    /// ```
    /// use offshoot::eureka::{self, Convergence};
    /// let c = Convergence::new(0u8, |a: &u8, b: &u8| a == b);
    /// eureka::finish(&c, || assert!(c.check()));
    /// ```
    #[inline]
    pub fn check(&self) -> bool {
        Eureka::check(self, ())
    }
}

impl<T, P> Eureka for Convergence<T, P>
where
    T: Send + Sync,
    P: Fn(&T, &T) -> bool + Sync,
{
    type Offer = T;
    type Check = ();
    type Value<'a>
        = &'a T
    where
        Self: 'a;

    fn core(&self) -> &Core {
        &self.core
    }

    fn record(&self, x: T) -> Verdict {
        if self.core.is_resolved() || self.settled.is_claimed() {
            return Verdict::Terminate;
        }
        let Ok((prev, new)) = self.latest.push_if(x, |_, _| true) else {
            unreachable!("a Convergence offer is always taken")
        };
        if !(self.converged)(prev, new) {
            Verdict::Go
        } else if self.settled.set(Settled(new)).is_ok() {
            Verdict::Resolve
        } else {
            Verdict::Terminate
        }
    }

    #[inline]
    fn test(&self, _: &()) -> Verdict {
        if self.core.is_resolved() || self.settled.is_claimed() {
            Verdict::Terminate
        } else {
            Verdict::Go
        }
    }

    fn value(&self) -> &T {
        match self.settled.get() {
            // SAFETY: a node's value of `latest`, which lives as long as `self`.
            Some(v) => unsafe { &*v.0 },
            None => self.latest.current(),
        }
    }
}
