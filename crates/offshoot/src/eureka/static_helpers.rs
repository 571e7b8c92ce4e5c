//! The free `offer` and `check`: they find the eureka through the calling code's regions,
//! so nothing needs to be passed down.

use super::region::{terminate, RegisteredRef};
use super::Verdict;
use crate::finish::FinishState;

/// The innermost region around the caller that has a eureka, or a panic naming `what`.
pub(super) fn innermost_eureka(what: &str) -> (*const FinishState, RegisteredRef) {
    // SAFETY: the calling code's own region and those around it, used during this call.
    let mut chain = unsafe { FinishState::chain(FinishState::current()) };
    if let Some(found) = chain.find_map(|st| RegisteredRef::of(st).map(|e| (st as *const _, e))) {
        return found;
    }
    panic!(
        "offshoot::eureka::{what} called with no eureka around it; call it inside \
         offshoot::eureka::finish(&eureka, ..) (in its body, or in code and tasks it runs)"
    )
}

/// Offers `x` to the eureka of the innermost enclosing region that has one (see
/// [`Eureka::offer`](super::Eureka::offer) for what it returns and when it stops the caller).
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
/// check takes a `T` tests it (nested [`Engine`](super::Engine)s are all charged), and one that is or
/// becomes resolved stops the caller; an enclosing region stopped for any reason stops it
/// too (the runtime's poll). Returns `false` when some eureka says the caller's branch
/// cannot help (see [`Eureka::check`](super::Eureka::check)).
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
    let (innermost, _) = innermost_eureka("check");
    let mut tested = false;
    let mut go_on = true;
    // Every level is tested (charged) before acting, so nested engines all count this
    // check; the innermost level that resolved or was resolved is the one that stops.
    let mut stop: Option<RegisteredRef> = None;
    // SAFETY: the calling code's region and those around it, used during this call.
    for st in unsafe { FinishState::chain(innermost) } {
        let Some(e) = RegisteredRef::of(st) else {
            continue;
        };
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
