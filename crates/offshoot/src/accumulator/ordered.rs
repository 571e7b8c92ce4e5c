//! The order-preserving finish accumulator: each put carries an index, and the region's
//! result is the fold of the puts in index order, whatever the schedule — deterministic for
//! any associative operator, commutative or not (concatenation, matrix products, "last
//! writer by index wins").
//!
//! A put costs no lock and no shared read-modify-write: it lands in the calling worker's
//! partial (`partials.rs`), a list of *runs*. A run is a block of consecutive indices
//! already folded together: a put whose index is one past the end of the worker's last run
//! extends it (one operator call), any other starts a new run. A loop split on demand puts
//! its iterations in ascending order within each block a worker runs, so a worker keeps
//! about one run per block it ran, not one per put. When the finish has ended, the runs of
//! every worker are sorted by their first index, checked for overlaps (an index put twice
//! is a broken contract: a panic that names it) and folded in order into the value.
//!
//! Invariants:
//! * Within a run, the value is the fold of the puts of indices `first..=last`, in index
//!   order (a run only grows at its end, by the next index).
//! * Runs of one region never overlap once checked; folding them sorted by `first` is the
//!   fold of all puts in index order (associativity).
//! * The partials' own invariants (who touches which, one region at a time) are
//!   `partials.rs`'s.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::partials::{self, Partials};

/// A finish accumulator for operators that are associative but not commutative: each
/// [`put`](OrderedPuts::put) carries an index, and when the region's finish has ended the
/// puts are folded into the value **in index order** — the same result as a serial loop
/// that folds them by ascending index, on any number of workers and any schedule.
///
/// The operator `op(&mut acc, x)` folds `x` into `acc` (`acc = acc ⊕ x`); it must be
/// associative. Indices need not be contiguous or start at zero, but each may be put once
/// per region. Puts of consecutive ascending indices on one worker are folded at once, so
/// the memory a region holds is one entry per run of consecutive indices a worker put (for
/// a loop that puts its index `i`, about one per block of iterations a worker took), not
/// one per put.
///
/// As with [`Accumulator`](super::Accumulator): inside the region,
/// [`get`](OrderedAccumulator::get) is the value at the start of the region; one region at
/// a time; a panic in the region discards its puts.
///
/// ```
/// use offshoot::accumulator::OrderedAccumulator;
///
/// // Concatenation is not commutative: the result follows the indices, not the schedule.
/// let text = OrderedAccumulator::new(String::new(), |a: &mut String, x: String| a.push_str(&x));
/// text.finish(|p| offshoot::par_for(0..10, |i| p.put(i, i.to_string())));
/// assert_eq!(text.get(), "0123456789");
/// ```
pub struct OrderedAccumulator<T, Op = fn(&mut T, T)> {
    value: Mutex<T>,
    op: Op,
    open: AtomicBool,
}

impl<T: std::fmt::Debug, Op> std::fmt::Debug for OrderedAccumulator<T, Op> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderedAccumulator")
            .field(
                "value",
                &*self.value.lock().unwrap_or_else(|e| e.into_inner()),
            )
            .field("open", &self.open.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<T, Op> OrderedAccumulator<T, Op>
where
    T: Send,
    Op: Fn(&mut T, T) + Sync,
{
    /// An accumulator starting at `init`, folding puts with `op` (associative) in index
    /// order.
    ///
    /// ```
    /// use offshoot::accumulator::OrderedAccumulator;
    /// // 2×2 matrix products do not commute; the product follows the indices.
    /// type M = [[u64; 2]; 2];
    /// fn mul(a: &mut M, b: M) {
    ///     let c = *a;
    ///     for i in 0..2 {
    ///         for j in 0..2 {
    ///             a[i][j] = (c[i][0] * b[0][j] + c[i][1] * b[1][j]) % 1_000_007;
    ///         }
    ///     }
    /// }
    /// let fib = OrderedAccumulator::new([[1, 0], [0, 1]], mul);
    /// fib.finish(|p| offshoot::par_for(0..30, |i| p.put(i, [[1, 1], [1, 0]])));
    /// assert_eq!(fib.get()[0][1], 832_040); // F(30)
    /// ```
    pub fn new(init: T, op: Op) -> Self {
        OrderedAccumulator {
            value: Mutex::new(init),
            op,
            open: AtomicBool::new(false),
        }
    }

    /// Runs `body` under a finish (every task spawned in its extent is waited for) with an
    /// [`OrderedPuts`] its tasks put indexed values into; then folds the puts into the
    /// value in index order. Outside every pool, runs in the global pool.
    ///
    /// # Panics
    ///
    /// If a region of this accumulator is already open (one region at a time); if an index
    /// was put twice in the region (after the finish ends; the value is then left as it
    /// was). A panic of the body or of a task resumes here after the puts were discarded.
    ///
    /// ```
    /// use offshoot::accumulator::OrderedAccumulator;
    /// let path = OrderedAccumulator::new(Vec::new(), |a: &mut Vec<u32>, x: Vec<u32>| a.extend(x));
    /// path.finish(|p| {
    ///     offshoot::scope(|s| {
    ///         for (i, step) in [[1, 2], [3, 4], [5, 6]].into_iter().enumerate().rev() {
    ///             s.spawn(move |_| p.put(i, step.to_vec()));
    ///         }
    ///     })
    /// });
    /// assert_eq!(path.into_inner(), [1, 2, 3, 4, 5, 6]);
    /// ```
    pub fn finish<R, F>(&self, body: F) -> R
    where
        F: FnOnce(&OrderedPuts<'_, T, Op>) -> R + Send,
        R: Send,
    {
        partials::region(
            &self.open,
            "OrderedAccumulator",
            |w| OrderedPuts {
                acc: self,
                partials: Partials::new(w),
            },
            |puts| body(puts),
            |puts| {
                let mut runs: Vec<Run<T>> = puts.partials.into_slots().flatten().collect();
                runs.sort_unstable_by_key(|r| r.first);
                if let Some(i) = runs
                    .windows(2)
                    .find(|w| w[1].first <= w[0].last)
                    .map(|w| w[1].first)
                {
                    panic!(
                        "offshoot: OrderedAccumulator: index {i} was put more than once in \
                         one region; each index takes one put (give every put its own \
                         index, or use an Accumulator if the operator is commutative)"
                    );
                }
                let mut value = self.value.lock().unwrap_or_else(|e| e.into_inner());
                for run in runs {
                    (self.op)(&mut value, run.value);
                }
            },
        )
    }
}

impl<T: Clone, Op> OrderedAccumulator<T, Op> {
    /// The value: after a region, the value before it folded with the region's puts in
    /// index order; while a region is open, the value from before it.
    ///
    /// ```
    /// use offshoot::accumulator::OrderedAccumulator;
    /// let last = OrderedAccumulator::new(0, |a: &mut i32, x: i32| *a = x); // by index, the last put wins
    /// last.finish(|p| {
    ///     offshoot::join(|| p.put(7, 70), || p.put(3, 30));
    ///     assert_eq!(last.get(), 0); // the start-of-region value
    /// });
    /// assert_eq!(last.get(), 70);
    /// ```
    pub fn get(&self) -> T {
        self.value.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl<T, Op> OrderedAccumulator<T, Op> {
    /// The value, moved out.
    ///
    /// ```
    /// use offshoot::accumulator::OrderedAccumulator;
    /// let s = OrderedAccumulator::new(String::new(), |a: &mut String, x: String| *a += &x);
    /// s.finish(|p| offshoot::par_for(0..3, |i| p.put(i, ["a", "b", "c"][i].to_string())));
    /// assert_eq!(s.into_inner(), "abc");
    /// ```
    pub fn into_inner(self) -> T {
        self.value.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// A block of consecutive indices `first..=last`, already folded in index order.
struct Run<T> {
    first: usize,
    last: usize,
    value: T,
}

/// Where the tasks of an [`OrderedAccumulator::finish`] region put their indexed values;
/// handed to the body by reference.
///
/// ```compile_fail
/// use offshoot::accumulator::OrderedAccumulator;
/// let acc = OrderedAccumulator::new(0u32, |a: &mut u32, x: u32| *a += x);
/// let mut kept = None;
/// acc.finish(|p| kept = Some(p)); // an OrderedPuts cannot leave its region
/// ```
pub struct OrderedPuts<'a, T, Op> {
    acc: &'a OrderedAccumulator<T, Op>,
    /// Each worker's runs, in the order it started them.
    partials: Partials<Vec<Run<T>>>,
}

impl<T, Op> std::fmt::Debug for OrderedPuts<'_, T, Op> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderedPuts")
            .field("workers", &self.partials.workers())
            .finish_non_exhaustive()
    }
}

impl<T, Op> OrderedPuts<'_, T, Op>
where
    T: Send,
    Op: Fn(&mut T, T) + Sync,
{
    /// Puts `x` at `index`: in the region's result it is folded after every put of a
    /// smaller index and before every put of a larger one. On a worker of the region's
    /// pool this touches only that worker's partial (no lock, no atomic read-modify-write);
    /// a put of the index after the worker's previous one is folded into it at once.
    ///
    /// Each index may be put once per region; a second put of an index is reported (a
    /// panic) when the region's finish ends.
    ///
    /// ```
    /// use offshoot::accumulator::OrderedAccumulator;
    /// let digits = OrderedAccumulator::new(0u64, |a: &mut u64, d: u64| *a = *a * 10 + d);
    /// digits.finish(|p| {
    ///     offshoot::join(|| p.put(1, 2), || p.put(0, 1));
    /// });
    /// assert_eq!(digits.get(), 12);
    /// ```
    #[inline]
    pub fn put(&self, index: usize, x: T) {
        let op = &self.acc.op;
        self.partials.with(|runs| match runs.last_mut() {
            Some(run) if run.last.checked_add(1) == Some(index) => {
                op(&mut run.value, x);
                run.last = index;
            }
            _ => runs.push(Run {
                first: index,
                last: index,
                value: x,
            }),
        });
    }

    /// The value at the start of the region (see [`OrderedAccumulator::get`]).
    pub fn get(&self) -> T
    where
        T: Clone,
    {
        self.acc.get()
    }
}
