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
//! Invariants (what makes the unsynchronised partials sound):
//! * Partial `i` is touched only by worker `i` of the registry the region runs in, while
//!   the region is open, and by the region's owner after the finish has ended (the finish's
//!   end orders every task's puts before it).
//! * A `Puts` is handed out only by reference to the body, for a higher-ranked lifetime: it
//!   cannot outlive the body, so every `put` happens before the finish ends — nothing can
//!   write a partial while the owner combines them.
//! * A worker runs one task at a time, but a task may park inside the user's operator (if
//!   it waits on a `sync` primitive) and let another task of the same worker put: the
//!   partial's `busy` flag (a plain `Cell`, only its worker reads it) sends such a nested
//!   put to the shared partial instead of aliasing the first.
//! * One region at a time per accumulator (`open`): a second, concurrent or nested, is a
//!   panic, so two regions never share partials.

use std::cell::{Cell, UnsafeCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crossbeam_utils::CachePadded;

use crate::pool::Registry;
use crate::worker::Worker;

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
/// resumes in the caller.
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
    /// [`spawn`](crate::spawn) takes `'static` closures, which cannot hold it).
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
        crate::finish::in_worker(|w| {
            if self.open.swap(true, Ordering::Acquire) {
                panic!(
                    "offshoot: this Accumulator is already bound to a finish (nested in it, or \
                     on another thread); an accumulator takes one region at a time — use a \
                     second accumulator, or put into the open region's Puts"
                );
            }
            let puts = Puts::new(self, w);
            let out = catch_unwind(AssertUnwindSafe(|| crate::finish::finish(|| body(&puts))));
            if out.is_ok() {
                let mut value = self.value.lock().unwrap_or_else(|e| e.into_inner());
                for partial in puts.into_partials() {
                    (self.op)(&mut value, partial);
                }
            }
            // Pairs with the `swap` above: the next region starts after this one's combine.
            self.open.store(false, Ordering::Release);
            out.unwrap_or_else(|p| resume_unwind(p))
        })
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

/// One worker's partial: `None` until its first put.
struct Partial<T> {
    busy: Cell<bool>,
    value: UnsafeCell<Option<T>>,
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
    /// The registry whose workers own `partials` (compared by address; it outlives the
    /// region, which runs on one of its workers).
    registry: *const Registry,
    partials: Box<[CachePadded<Partial<T>>]>,
    /// Puts from any other thread.
    shared: Mutex<Option<T>>,
}

impl<T, Op> std::fmt::Debug for Puts<'_, T, Op> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Puts")
            .field("workers", &self.partials.len())
            .finish_non_exhaustive()
    }
}

// SAFETY: partial `i` is touched only by worker `i` of `registry` (module invariants), so
// sharing a `Puts` between threads shares no partial; `shared` is a `Mutex`; values move
// between threads (put on a worker, combined on the owner): `T: Send`.
unsafe impl<T: Send, Op: Sync> Sync for Puts<'_, T, Op> {}

impl<'a, T, Op> Puts<'a, T, Op>
where
    T: Send,
    Op: Fn(&mut T, T) + Sync,
{
    fn new(acc: &'a Accumulator<T, Op>, w: &Worker) -> Self {
        let registry = w.registry();
        Puts {
            acc,
            registry: ptr::from_ref(registry),
            partials: (0..registry.num_workers())
                .map(|_| {
                    CachePadded::new(Partial {
                        busy: Cell::new(false),
                        value: UnsafeCell::new(None),
                    })
                })
                .collect(),
            shared: Mutex::new(None),
        }
    }

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
        let w = Worker::current();
        // SAFETY: a non-null current worker is this thread's and lives in its registry.
        if !w.is_null() && ptr::eq(unsafe { (*w).registry() }, self.registry) {
            // SAFETY: as above.
            let i = unsafe { (*w).index };
            let p = &self.partials[i];
            if !p.busy.get() {
                p.busy.set(true);
                let _free = Free(&p.busy);
                // SAFETY: this thread is worker `i` of the region's registry, the only one
                // that touches partial `i` while the region is open, and `busy` shows no
                // other put of this worker is inside it (module invariants).
                let slot = unsafe { &mut *p.value.get() };
                match slot {
                    Some(a) => (self.acc.op)(a, x),
                    None => *slot = Some(x),
                }
                return;
            }
        }
        self.put_shared(x);
    }

    #[cold]
    #[inline(never)]
    fn put_shared(&self, x: T) {
        let mut s = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        match &mut *s {
            Some(a) => (self.acc.op)(a, x),
            None => *s = Some(x),
        }
    }

    /// The value at the start of the region (see [`Accumulator::get`]).
    pub fn get(&self) -> T
    where
        T: Clone,
    {
        self.acc.get()
    }

    /// The partials, in worker order, then the shared one. Called by the owner once the
    /// region's finish has ended.
    fn into_partials(self) -> impl Iterator<Item = T> {
        let shared = self.shared.into_inner().unwrap_or_else(|e| e.into_inner());
        self.partials
            .into_vec()
            .into_iter()
            .filter_map(|p| CachePadded::into_inner(p).value.into_inner())
            .chain(shared)
    }
}

/// Clears a partial's `busy` flag when its put ends (also if the operator panics).
struct Free<'a>(&'a Cell<bool>);

impl Drop for Free<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}
