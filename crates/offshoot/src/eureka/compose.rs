//! `And` and `Or`: two eurekas composed into one, registered on regions as one.
//!
//! Invariant: the parts are never registered on a region themselves; an offer or check
//! goes to the parts given a value, a part's `Resolve` marks that part resolved (its core
//! has no region to stop), and the composite resolves — once, by whichever call first sees
//! its condition hold (both parts / either part resolved). Resolution is monotone: a
//! resolved part stays resolved.

use super::{Core, Eureka, Verdict};

/// The part of a composite's verdict that one part contributes.
fn part<E: Eureka>(e: &E, v: Verdict) -> Verdict {
    if v == Verdict::Resolve {
        // The part has no regions: this only marks it resolved.
        e.core().resolve();
    }
    v
}

macro_rules! composite {
    ($(#[$doc:meta])* $name:ident, $what:literal, |$a:ident, $b:ident| $cond:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<A, B> {
            core: Core,
            a: A,
            b: B,
        }

        impl<A: Eureka, B: Eureka> $name<A, B> {
            #[doc = concat!("The composite that resolves when ", $what, " resolved.")]
            ///
            /// ```
            /// use offshoot::eureka::*;
            #[doc = concat!("let e = ", stringify!($name), "::new(Search::<u8>::new(), Search::<u8>::new());")]
            /// assert!(!e.is_resolved());
            /// ```
            pub fn new(a: A, b: B) -> Self {
                $name { core: Core::new(), a, b }
            }

            /// The two parts.
            ///
            /// ```
            /// use offshoot::eureka::*;
            #[doc = concat!("let e = ", stringify!($name), "::new(Search::<u8>::new(), Count::<u8>::new(2));")]
            /// assert_eq!(e.parts().1.k(), 2);
            /// ```
            pub fn parts(&self) -> (&A, &B) {
                (&self.a, &self.b)
            }

            fn holds(&self) -> bool {
                let ($a, $b) = (self.a.core().is_resolved(), self.b.core().is_resolved());
                $cond
            }

            fn combine(&self, va: Option<Verdict>, vb: Option<Verdict>) -> Verdict {
                if self.holds() {
                    return if va == Some(Verdict::Resolve) || vb == Some(Verdict::Resolve) {
                        Verdict::Resolve
                    } else if self.core.is_resolved() {
                        Verdict::Terminate
                    } else {
                        // Both parts were resolved by earlier calls, whose own verdicts
                        // resolved the composite; a racing caller gets there first here.
                        Verdict::Resolve
                    };
                }
                if va == Some(Verdict::Prune) || vb == Some(Verdict::Prune) {
                    Verdict::Prune
                } else {
                    Verdict::Go
                }
            }
        }

        impl<A: Eureka, B: Eureka> Eureka for $name<A, B> {
            type Offer = (Option<A::Offer>, Option<B::Offer>);
            type Check = (Option<A::Check>, Option<B::Check>);
            type Value<'v>
                = (A::Value<'v>, B::Value<'v>)
            where
                Self: 'v;

            fn core(&self) -> &Core {
                &self.core
            }

            fn record(&self, (xa, xb): Self::Offer) -> Verdict {
                if self.core.is_resolved() {
                    return Verdict::Terminate;
                }
                let va = xa.map(|x| part(&self.a, self.a.record(x)));
                let vb = xb.map(|x| part(&self.b, self.b.record(x)));
                self.combine(va, vb)
            }

            fn test(&self, (ca, cb): &Self::Check) -> Verdict {
                if self.core.is_resolved() {
                    return Verdict::Terminate;
                }
                let va = ca.as_ref().map(|c| part(&self.a, self.a.test(c)));
                let vb = cb.as_ref().map(|c| part(&self.b, self.b.test(c)));
                self.combine(va, vb)
            }

            fn value(&self) -> Self::Value<'_> {
                (self.a.value(), self.b.value())
            }
        }
    };
}

composite!(
    /// Resolves when **both** parts have (possibly through different offers and tasks).
    /// `offer` and `check` take a pair of optional values, one per part; `get()` is both
    /// parts' values.
    ///
    /// ```
    /// use offshoot::eureka::{self, And, Eureka, Search};
    ///
    /// // Find where 17 and where 42 are; stop once both are found.
    /// let data: Vec<u32> = (0..100_000).map(|i| (i * 31) % 100_003).collect();
    /// let both = And::new(Search::new(), Search::new());
    /// eureka::finish(&both, || {
    ///     offshoot::par_for(0..data.len(), |i| {
    ///         both.check((Some(()), Some(())));
    ///         match data[i] {
    ///             17 => { both.offer((Some(i), None)); }
    ///             42 => { both.offer((None, Some(i))); }
    ///             _ => {}
    ///         }
    ///     })
    /// });
    /// let (a, b) = both.get();
    /// assert_eq!(data[*a.unwrap()], 17);
    /// assert_eq!(data[*b.unwrap()], 42);
    /// ```
    And, "both parts have", |a, b| a && b
);

composite!(
    /// Resolves when **either** part has. `offer` and `check` take a pair of optional
    /// values, one per part; `get()` is both parts' values.
    ///
    /// ```
    /// use std::time::Duration;
    /// use offshoot::eureka::{self, Eureka, Or, Search, Timer};
    ///
    /// // A search with a time limit: whichever comes first.
    /// let e = Or::new(Search::<usize>::new(), Timer::<()>::new(Duration::from_millis(10)));
    /// eureka::finish(&e, || {
    ///     offshoot::par_for(0..usize::MAX, |i| {
    ///         e.check((Some(()), Some(())));
    ///         if i == usize::MAX - 1 {
    ///             e.offer((Some(i), None)); // never reached: the timer wins
    ///         }
    ///     })
    /// });
    /// assert!(e.is_resolved());
    /// assert_eq!(e.get().0, None);
    /// ```
    Or, "either part has", |a, b| a || b
);
