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
mod search;
mod slot;

use std::any::Any;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub use bound::{Ascending, Descending, Minima, Order};
pub use budget::{Engine, Timer};
pub use compose::{And, Or};
pub use convergence::Convergence;
pub use nversion::NVersion;
pub use search::{Count, Search};

use crate::finish::{
    finish_attached, resume_failure, Attachment, AttachmentHooks, Failure, FinishState,
};
use crate::pool::in_worker;

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

    /// Resolves: stops every registered region. Returns whether this call resolved it.
    pub(crate) fn resolve(&self) -> bool {
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
///         if self.core.is_resolved() { Verdict::Terminate } else { Verdict::Go }
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

/// Acts on a verdict: stops the caller for `Resolve` / `Terminate` (after making sure every
/// registered region, the caller's among them, is failed, so the stop ends in a region);
/// otherwise returns at once — no poll of the runtime, whose cost (a thread-local and a
/// load) doubled that of a branch-and-bound node's check. `region`: the caller's
/// registered region, if already looked up.
#[inline]
fn settle(core: &Core, v: Verdict, region: Option<*const FinishState>) -> bool {
    match v {
        Verdict::Go => true,
        Verdict::Prune => false,
        Verdict::Resolve | Verdict::Terminate => settle_stop(core, region),
    }
}

#[cold]
#[inline(never)]
fn settle_stop(core: &Core, region: Option<*const FinishState>) -> bool {
    if region.is_none() {
        region_of(core, "check");
    }
    terminate(core)
}

/// Resolves `core` (idempotent) and stops the caller — unless the caller is unwinding
/// already (a destructor that checks): a stop raised there would abort; the region is
/// failed anyway, and the next poll after the unwinding stops it.
#[cold]
fn terminate(core: &Core) -> bool {
    core.resolve();
    if std::thread::panicking() {
        return false;
    }
    crate::unwind::raise_stopped()
}

/// The caller's innermost region registered on `core`, or a panic naming `what` (the
/// operation) that says how to fix the call.
fn region_of(core: &Core, what: &str) -> *const FinishState {
    let mut st = FinishState::current();
    while !st.is_null() {
        // SAFETY: the states on the parent chain of the calling code's finish are live:
        // each encloses the one below it, which is still running.
        unsafe {
            if let Some(e) = RegisteredRef::of(&*st) {
                if ptr::eq(e.get().core(), core) {
                    return st;
                }
            }
            st = (*st).parent();
        }
    }
    panic!(
        "offshoot::eureka: {what} called outside every region registered on this eureka; \
         call it inside offshoot::eureka::finish(&eureka, ..) (in its body, or in code and \
         tasks it runs)"
    )
}

/// A eureka as a finish holds it: type-erased, lifetime-erased (see `RegisteredRef`).
pub(crate) trait Registered: Sync {
    fn core(&self) -> &Core;
    /// Offers `x`, an `&mut Option<Offer>`; `None` if it is another type.
    fn offer_any(&self, x: &mut dyn Any, region: *const FinishState) -> Option<bool>;
    /// The verdict of a check with `c`, a `&Check`; `None` if it is another type.
    fn test_any(&self, c: &dyn Any) -> Option<Verdict>;
    fn offer_type(&self) -> &'static str;
}

impl<E> Registered for E
where
    E: Eureka,
    E::Offer: 'static,
    E::Check: 'static,
{
    fn core(&self) -> &Core {
        Eureka::core(self)
    }
    fn offer_any(&self, x: &mut dyn Any, region: *const FinishState) -> Option<bool> {
        let x = x.downcast_mut::<Option<E::Offer>>()?.take()?;
        Some(settle(Eureka::core(self), self.record(x), Some(region)))
    }
    fn test_any(&self, c: &dyn Any) -> Option<Verdict> {
        Some(self.test(c.downcast_ref::<E::Check>()?))
    }
    fn offer_type(&self) -> &'static str {
        std::any::type_name::<E::Offer>()
    }
}

/// The eureka registered on a finish state.
///
/// Invariant: made only by [`finish`] from a borrow that outlives the region; the region
/// unregisters (and its state, which holds this, is gone) before that borrow ends, so the
/// erased lifetime is never outlived.
#[derive(Clone, Copy)]
pub(crate) struct RegisteredRef(NonNull<dyn Registered>);

// SAFETY: it stands for a `&dyn Registered`, and `Registered: Sync`.
unsafe impl Send for RegisteredRef {}

impl RegisteredRef {
    fn new<'a>(e: &'a (dyn Registered + 'a)) -> RegisteredRef {
        let p: *const (dyn Registered + 'a) = e;
        // SAFETY: only the lifetime bound of the trait object changes (same layout); see
        // the invariant for why it is never outlived.
        let p: *const (dyn Registered + 'static) = unsafe { std::mem::transmute(p) };
        RegisteredRef(NonNull::new(p as *mut dyn Registered).expect("a reference is not null"))
    }

    pub(crate) fn get(&self) -> &dyn Registered {
        // SAFETY: live per the invariant while a state that holds it exists.
        unsafe { self.0.as_ref() }
    }

    /// The region's attachment that stands for this eureka: its data is `self`, which the
    /// caller keeps in place for the whole region.
    fn attachment(&self) -> Attachment {
        Attachment {
            data: NonNull::from(self).cast(),
            hooks: &HOOKS,
        }
    }

    /// The eureka attached to region `st`, if its attachment is a eureka's.
    pub(crate) fn of(st: &FinishState) -> Option<RegisteredRef> {
        let a = st.attachment()?;
        // SAFETY: an attachment with these hooks was made by `attachment`, whose data is a
        // `RegisteredRef` that outlives the region.
        ptr::eq(a.hooks, &HOOKS).then(|| unsafe { *a.data.cast::<RegisteredRef>().as_ref() })
    }
}

/// How a region calls its eureka: it registers on the eureka's core when it begins, and
/// leaves it when every task has ended (a resolution after that has nothing to stop).
static HOOKS: AttachmentHooks = AttachmentHooks {
    attach: attach_region,
    detach: detach_region,
};

/// # Safety
/// `data` is a live `RegisteredRef` (the `Attachment` invariant).
unsafe fn attach_region(data: NonNull<()>, st: &FinishState) {
    // SAFETY: per the contract.
    unsafe { data.cast::<RegisteredRef>().as_ref() }
        .get()
        .core()
        .register(st);
}

/// # Safety
/// As for [`attach_region`].
unsafe fn detach_region(data: NonNull<()>, st: &FinishState) {
    // SAFETY: per the contract.
    unsafe { data.cast::<RegisteredRef>().as_ref() }
        .get()
        .core()
        .unregister(st);
}

/// Runs `body` as a region with `eureka` registered on it: a [`finish()`] whose tasks —
/// and the body — stop once the eureka is resolved (see the [module docs](self)). Returns
/// once everything in the region has ended: `Some` with the body's value, or `None` if the
/// body was stopped. Read the eureka's result with [`Eureka::get`].
///
/// Several regions may share one eureka, and regions nest (see [`check`]). A region whose
/// eureka never resolves ends like a `finish`. One registered on a eureka that is resolved
/// already stops at once. Outside every pool it runs in the global pool.
///
/// # Panics
///
/// A panic of the body or a task that came first (before the resolution) resumes here,
/// once everything has ended; a stop of an enclosing region goes on unwinding.
///
/// ```
/// use offshoot::eureka::{self, Eureka, Search};
///
/// fn find(lo: u64, hi: u64, target: u64, found: &Search<u64>) {
///     found.check();
///     if hi - lo <= 1000 {
///         if (lo..hi).contains(&target) {
///             found.offer(target);
///         }
///         return;
///     }
///     let mid = lo + (hi - lo) / 2;
///     offshoot::join(|| find(lo, mid, target, found), || find(mid, hi, target, found));
/// }
///
/// let found = Search::new();
/// let body_ended = eureka::finish(&found, || find(0, 1 << 30, 123_456_789, &found));
/// assert_eq!(found.get(), Some(&123_456_789));
/// assert_eq!(body_ended, None); // the body was stopped by the resolution
/// ```
pub fn finish<E, R, F>(eureka: &E, body: F) -> Option<R>
where
    E: Eureka,
    E::Offer: 'static,
    E::Check: 'static,
    F: FnOnce() -> R + Send,
    R: Send,
{
    // Kept here, in place, for the whole region: the region's attachment points to it.
    let reg = RegisteredRef::new(eureka);
    let attachment = reg.attachment();
    in_worker(move |w| {
        let mut out = None;
        match finish_attached(w, attachment, |_| out = Some(body())) {
            Ok(()) | Err(Failure::Resolved) => out,
            Err(f) => resume_failure(f),
        }
    })
}

/// The innermost region around the caller that has a eureka, or a panic naming `what`.
fn innermost_eureka(what: &str) -> (*const FinishState, RegisteredRef) {
    let mut st = FinishState::current();
    while !st.is_null() {
        // SAFETY: as in `region_of`.
        unsafe {
            if let Some(e) = RegisteredRef::of(&*st) {
                return (st, e);
            }
            st = (*st).parent();
        }
    }
    panic!(
        "offshoot::eureka::{what} called with no eureka around it; call it inside \
         offshoot::eureka::finish(&eureka, ..) (in its body, or in code and tasks it runs)"
    )
}

/// Offers `x` to the eureka of the innermost enclosing region that has one (see
/// [`Eureka::offer`] for what it returns and when it stops the caller).
///
/// # Panics
/// With no region with a eureka around the caller, or when that eureka's offers are not
/// `T`s.
///
/// ```
/// use offshoot::eureka::{self, Eureka, Search};
///
/// fn walk(depth: u32, path: u64) {
///     eureka::check(()); // no eureka passed around: the region's is found
///     if depth == 0 {
///         if path % 1000 == 999 {
///             eureka::offer(path);
///         }
///         return;
///     }
///     offshoot::join(|| walk(depth - 1, path * 2), || walk(depth - 1, path * 2 + 1));
/// }
///
/// let found = Search::<u64>::new();
/// eureka::finish(&found, || walk(16, 1));
/// assert_eq!(found.get().map(|p| p % 1000), Some(999));
/// ```
pub fn offer<T: 'static>(x: T) -> bool {
    let (st, e) = innermost_eureka("offer");
    let mut slot = Some(x);
    match e.get().offer_any(&mut slot, st) {
        Some(taken) => taken,
        None => panic!(
            "offshoot::eureka::offer: the innermost region's eureka takes offers of type {}, \
             not {}",
            e.get().offer_type(),
            std::any::type_name::<T>()
        ),
    }
}

/// Checks with `c` every enclosing region that has a eureka, innermost first: each whose
/// check takes a `T` tests it (nested [`Engine`]s are all charged), and one that is or
/// becomes resolved stops the caller; an enclosing region stopped for any reason stops it
/// too (the runtime's poll). Returns `false` when some eureka says the caller's branch
/// cannot help (see [`Eureka::check`]).
///
/// # Panics
/// With no region with a eureka around the caller, or when none of them takes checks of
/// type `T`.
///
/// ```
/// use offshoot::eureka::{self, Engine};
///
/// // At most 10,000 units of work, counted by the checks, across all workers.
/// let fuel = Engine::<()>::new(10_000);
/// eureka::finish(&fuel, || {
///     offshoot::par_for(0..1_000_000, |_| {
///         eureka::check(1u64);
///     })
/// });
/// assert!(fuel.used() >= 10_000);
/// ```
pub fn check<T: 'static>(c: T) -> bool {
    let (mut st, _) = innermost_eureka("check");
    let mut tested = false;
    let mut go_on = true;
    // Every level is tested (charged) before acting, so nested engines all count this
    // check; the innermost level that resolved or was resolved is the one that stops.
    let mut stop: Option<RegisteredRef> = None;
    while !st.is_null() {
        // SAFETY: as in `region_of`.
        let (eureka, parent) = unsafe { (RegisteredRef::of(&*st), (*st).parent()) };
        if let Some(e) = eureka {
            if let Some(v) = e.get().test_any(&c) {
                tested = true;
                match v {
                    Verdict::Go => {}
                    Verdict::Prune => go_on = false,
                    Verdict::Resolve | Verdict::Terminate => {
                        if v == Verdict::Resolve {
                            e.get().core().resolve();
                        }
                        stop.get_or_insert(e);
                    }
                }
            }
        }
        st = parent;
    }
    assert!(
        tested,
        "offshoot::eureka::check: no enclosing region's eureka takes checks of type {}",
        std::any::type_name::<T>()
    );
    if let Some(e) = stop {
        return terminate(e.get().core());
    }
    crate::poll();
    go_on
}
