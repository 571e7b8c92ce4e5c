//! Finish accumulators: a reduction bound to a `finish` (Imam's thesis §2, HJlib's
//! `FinishAccumulator`). [`Accumulator::finish`] runs a body under a finish and hands it a
//! [`Puts`]; every task under that finish may `put` values; when the finish has ended, the
//! puts are combined into the accumulator's value, which [`Accumulator::get`] reads.
//!
//! A put costs no read-modify-write shared with other workers: each worker of the pool
//! keeps a partial (its own cache line) that only it touches, and the partials are combined
//! in worker order when the finish ends. Puts from threads that are not the pool's workers
//! (a `std::thread::scope` inside the body, a nested pool's workers) go to one shared
//! partial under a lock.
//!
//! The per-worker partials, the region protocol (one region at a time, combine after the
//! finish, discard on a panic) and the invariants that make them sound are in
//! `partials.rs`, shared with the order-preserving variant, [`OrderedAccumulator`]
//! (`ordered.rs`), whose puts carry an index and are combined in index order.

mod ordered;
mod partials;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub use ordered::{OrderedAccumulator, OrderedPuts};
use partials::Partials;

/// A reduction bound to a finish: [`Accumulator::finish`] runs a body whose tasks
/// [`put`](Puts::put) values; once every task under it has ended, the values are combined
/// with the accumulator's operator into its value.
///
/// The operator `op(&mut acc, x)` folds `x` into `acc`; it must be associative and
/// commutative (SUM, PROD, MIN, MAX, ANY, a set union, …) — the puts of different workers
/// are combined in an order that depends on the schedule, so with such an operator the
/// result is deterministic (exactly, for integers; up to rounding for floats).
///
/// Inside the region, [`get`](Accumulator::get) is the value at the start of the region
/// (as in HJlib: the new value appears when the finish ends). If the body or a task
/// panics, the region's puts are discarded, the value stays what it was, and the panic
/// resumes in the caller. A stop counts as such a failure: when the region is stopped —
/// by a sibling's failure, or by a [`eureka`](crate::eureka) that resolves around it — its
/// puts are discarded too, and the stop goes on. To keep what a search put before its
/// eureka resolved, open the eureka region inside the accumulator's region
/// (`acc.finish(|p| eureka::finish(&e, || …))`): a resolved eureka region returns
/// normally, so the accumulator's region ends normally.
///
/// ```
/// use offshoot::accumulator::Accumulator;
///
/// let sum = Accumulator::sum();
/// let evens = Accumulator::new(0u32, |a: &mut u32, x: u32| *a += x);
/// sum.finish(|total| {
///     evens.finish(|count| {
///         offshoot::par_for(0..1000, |i| {
///             total.put(i as u64);
///             if i % 2 == 0 {
///                 count.put(1);
///             }
///         });
///     })
/// });
/// assert_eq!(sum.get(), 499_500);
/// assert_eq!(evens.get(), 500);
/// ```
pub struct Accumulator<T, Op = fn(&mut T, T)> {
    value: Mutex<T>,
    op: Op,
    open: AtomicBool,
}

impl<T: std::fmt::Debug, Op> std::fmt::Debug for Accumulator<T, Op> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accumulator")
            .field(
                "value",
                &*self.value.lock().unwrap_or_else(|e| e.into_inner()),
            )
            .field("open", &self.open.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<T, Op> Accumulator<T, Op>
where
    T: Send,
    Op: Fn(&mut T, T) + Sync,
{
    /// An accumulator starting at `init`, folding puts with `op` (associative and
    /// commutative; see the type's docs).
    ///
    /// ```
    /// use offshoot::accumulator::Accumulator;
    /// // The bitwise OR of everything put.
    /// let bits = Accumulator::new(0u64, |a: &mut u64, x: u64| *a |= x);
    /// bits.finish(|p| offshoot::par_for(0..64, |i| p.put(1 << i)));
    /// assert_eq!(bits.get(), u64::MAX);
    /// ```
    pub fn new(init: T, op: Op) -> Self {
        Accumulator {
            value: Mutex::new(init),
            op,
            open: AtomicBool::new(false),
        }
    }

    /// Runs `body` under a finish (every task spawned in its extent is waited for) with a
    /// [`Puts`] its tasks put values into; then combines the puts into the value. Outside
    /// every pool, runs in the global pool.
    ///
    /// Tasks that put need the `Puts` reference, so they are the body's `join`s, loops,
    /// parallel iterators and [`scope`](crate::scope) spawns (a plain
    /// [`finish::spawn`](crate::finish::spawn()) takes `'static` closures, which cannot hold
    /// it).
    ///
    /// # Panics
    ///
    /// If a region of this accumulator is already open (nested in this one or running on
    /// another thread): one region at a time. A panic of the body or of a task resumes here
    /// after the puts were discarded.
    ///
    /// ```
    /// use offshoot::accumulator::Accumulator;
    /// let most = Accumulator::max(0u32);
    /// let r = most.finish(|p| {
    ///     offshoot::scope(|s| {
    ///         for x in [3, 41, 7] {
    ///             s.spawn(move |_| p.put(x));
    ///         }
    ///     });
    ///     "done"
    /// });
    /// assert_eq!((r, most.get()), ("done", 41));
    /// ```
    pub fn finish<R, F>(&self, body: F) -> R
    where
        F: FnOnce(&Puts<'_, T, Op>) -> R + Send,
        R: Send,
    {
        partials::region(
            &self.open,
            "Accumulator",
            |w| Puts {
                acc: self,
                partials: Partials::new(w),
            },
            |puts| body(puts),
            |puts| {
                let mut value = self.value.lock().unwrap_or_else(|e| e.into_inner());
                for partial in puts.partials.into_slots().flatten() {
                    (self.op)(&mut value, partial);
                }
            },
        )
    }
}

impl<T: Clone, Op> Accumulator<T, Op> {
    /// The value: after a region, everything put in it combined with the value before; while
    /// a region is open, the value from before it.
    ///
    /// ```
    /// use offshoot::accumulator::Accumulator;
    /// let sum = Accumulator::sum();
    /// sum.finish(|p| {
    ///     p.put(5u32);
    ///     assert_eq!(sum.get(), 0); // the start-of-region value
    /// });
    /// assert_eq!(sum.get(), 5);
    /// ```
    pub fn get(&self) -> T {
        self.value.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl<T, Op> Accumulator<T, Op> {
    /// The value, moved out.
    ///
    /// ```
    /// let any = offshoot::accumulator::Accumulator::any();
    /// any.finish(|p| offshoot::par_for(0..100, |i| p.put(i == 42)));
    /// assert!(any.into_inner());
    /// ```
    pub fn into_inner(self) -> T {
        self.value.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T: Default + std::ops::AddAssign + Send> Accumulator<T> {
    /// SUM, starting at `T::default()` (zero).
    ///
    /// ```
    /// let sum = offshoot::accumulator::Accumulator::sum();
    /// sum.finish(|p| offshoot::par_for(1..11, |i| p.put(i as u32)));
    /// assert_eq!(sum.get(), 55);
    /// ```
    pub fn sum() -> Self {
        Accumulator::new(T::default(), |a, x| *a += x)
    }
}

impl<T: std::ops::MulAssign + Send> Accumulator<T> {
    /// PROD, starting at `one`.
    ///
    /// ```
    /// let prod = offshoot::accumulator::Accumulator::product(1u64);
    /// prod.finish(|p| offshoot::par_for(1..11, |i| p.put(i as u64)));
    /// assert_eq!(prod.get(), 3_628_800);
    /// ```
    pub fn product(one: T) -> Self {
        Accumulator::new(one, |a, x| *a *= x)
    }
}

impl<T: PartialOrd + Send> Accumulator<T> {
    /// MIN, starting at `init` (an upper bound: `T::MAX`, `f64::INFINITY`, …).
    ///
    /// ```
    /// let least = offshoot::accumulator::Accumulator::min(f64::INFINITY);
    /// least.finish(|p| offshoot::par_for(0..100, |i| p.put((i as f64 - 30.5).abs())));
    /// assert_eq!(least.get(), 0.5);
    /// ```
    pub fn min(init: T) -> Self {
        Accumulator::new(init, |a, x| {
            if x < *a {
                *a = x;
            }
        })
    }

    /// MAX, starting at `init` (a lower bound).
    ///
    /// ```
    /// let most = offshoot::accumulator::Accumulator::max(i32::MIN);
    /// most.finish(|p| offshoot::par_for(0..100, |i| p.put(-(i as i32 - 30).abs())));
    /// assert_eq!(most.get(), 0);
    /// ```
    pub fn max(init: T) -> Self {
        Accumulator::new(init, |a, x| {
            if x > *a {
                *a = x;
            }
        })
    }
}

impl Accumulator<bool> {
    /// ANY: whether any put was `true`, starting at `false`.
    ///
    /// ```
    /// let any = offshoot::accumulator::Accumulator::any();
    /// any.finish(|p| offshoot::par_for(0..100, |i| p.put(i > 1000)));
    /// assert!(!any.get());
    /// ```
    pub fn any() -> Self {
        Accumulator::new(false, |a, x| *a |= x)
    }
}

/// Where the tasks of an [`Accumulator::finish`] region put their values; handed to the
/// body by reference.
///
/// ```compile_fail
/// use offshoot::accumulator::Accumulator;
/// let sum = Accumulator::<u32>::sum();
/// let mut kept = None;
/// sum.finish(|p| kept = Some(p)); // a Puts cannot leave its region
/// ```
pub struct Puts<'a, T, Op> {
    acc: &'a Accumulator<T, Op>,
    /// One `Option<T>` per worker (`None` until its first put), and one shared.
    partials: Partials<Option<T>>,
}

impl<T, Op> std::fmt::Debug for Puts<'_, T, Op> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Puts")
            .field("workers", &self.partials.workers())
            .finish_non_exhaustive()
    }
}

impl<T, Op> Puts<'_, T, Op>
where
    T: Send,
    Op: Fn(&mut T, T) + Sync,
{
    /// Folds `x` into the region's result. On a worker of the region's pool this touches
    /// only that worker's partial (no lock, no atomic read-modify-write).
    ///
    /// ```
    /// use offshoot::accumulator::Accumulator;
    /// let sum = Accumulator::sum();
    /// sum.finish(|p| {
    ///     offshoot::join(|| p.put(1u64), || p.put(2));
    /// });
    /// assert_eq!(sum.get(), 3);
    /// ```
    #[inline]
    pub fn put(&self, x: T) {
        let op = &self.acc.op;
        self.partials.with(|slot| match slot {
            Some(a) => op(a, x),
            None => *slot = Some(x),
        });
    }

    /// The value at the start of the region (see [`Accumulator::get`]).
    pub fn get(&self) -> T
    where
        T: Clone,
    {
        self.acc.get()
    }
}
