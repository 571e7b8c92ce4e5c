//! A eureka's regions: how a finish carries its eureka (an `Attachment` whose hooks register
//! the region on the eureka's core), how code finds the region of a eureka around it, how a
//! verdict stops the caller, and `eureka::finish`.

use std::any::Any;
use std::ptr::{self, NonNull};

use super::{Core, Eureka, Verdict};
use crate::finish::{
    finish_attached, resume_failure, Attachment, AttachmentHooks, Failure, FinishState,
};
use crate::pool::in_worker;

/// Acts on a verdict: stops the caller for `Resolve` / `Terminate` (after making sure every
/// registered region, the caller's among them, is failed, so the stop ends in a region);
/// otherwise returns at once — no poll of the runtime, whose cost (a thread-local and a
/// load) doubled that of a branch-and-bound node's check. `region`: the caller's
/// registered region, if already looked up.
#[inline]
pub(super) fn settle(core: &Core, v: Verdict, region: Option<*const FinishState>) -> bool {
    match v {
        Verdict::Go => true,
        Verdict::Prune => false,
        Verdict::Resolve | Verdict::Terminate => settle_stop(core, region),
    }
}

#[cold]
#[inline(never)]
pub(super) fn settle_stop(core: &Core, region: Option<*const FinishState>) -> bool {
    if region.is_none() {
        region_of(core, "check");
    }
    terminate(core)
}

/// Resolves `core` (idempotent) and stops the caller — unless the caller is unwinding
/// already (a destructor that checks): a stop raised there would abort; the region is
/// failed anyway, and the next poll after the unwinding stops it.
#[cold]
pub(super) fn terminate(core: &Core) -> bool {
    core.resolve();
    if std::thread::panicking() {
        return false;
    }
    crate::unwind::raise_stopped()
}

/// The caller's innermost region registered on `core`, or a panic naming `what` (the
/// operation) that says how to fix the call.
pub(super) fn region_of(core: &Core, what: &str) -> *const FinishState {
    // SAFETY: the calling code's own region and those around it, used during this call.
    let mut chain = unsafe { FinishState::chain(FinishState::current()) };
    if let Some(st) =
        chain.find(|st| RegisteredRef::of(st).is_some_and(|e| ptr::eq(e.get().core(), core)))
    {
        return st;
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
/// and the body — stop once the eureka is resolved (see the [module docs](crate::eureka)). Returns
/// once everything in the region has ended: `Some` with the body's value, or `None` if the
/// body was stopped. Read the eureka's result with [`Eureka::get`].
///
/// Several regions may share one eureka, and regions nest (see [`check`](super::check)). A region whose
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
