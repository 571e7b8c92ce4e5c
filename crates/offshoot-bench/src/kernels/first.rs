//! "Find any one": the eureka and token drivers of the tree searches that stop at their
//! first hit (`uts-goal`, `sudoku`). A kernel's search takes `go()` (called per node;
//! false: stop this branch) and `hit(x)` (called per solution); these wrap them with a
//! [`Search`] eureka or a hand-threaded `AtomicBool`, and count visits (see `visits`).
//!
//! Invariant: a node is counted only once it passed its contender's test, and the
//! resolution is marked before the hit is offered or stored.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use offshoot::eureka::{self, Eureka, Search};

use super::visits::Tally;

/// A search given its `go` and `hit`.
pub(crate) trait Driven<T>: FnOnce(&(dyn Fn() -> bool + Sync), &(dyn Fn(T) + Sync)) {}
impl<T, F: FnOnce(&(dyn Fn() -> bool + Sync), &(dyn Fn(T) + Sync))> Driven<T> for F {}

/// The eureka version (EU): `check` per node, `offer` per hit, in a region.
pub(crate) fn eureka<T: Send + Sync + 'static>(
    count: Option<&Tally>,
    search: impl Driven<T> + Send,
) -> Option<T> {
    let found = Search::new();
    eureka::finish(&found, || {
        search(
            &|| {
                found.check();
                Tally::visit(count);
                true
            },
            &|x| {
                Tally::resolved(count);
                found.offer(x);
            },
        )
    });
    found.into_inner()
}

/// The token version (CT), or with `stop` false no termination (AF): the first hit kept.
pub(crate) fn token<T: Send>(
    stop: bool,
    count: Option<&Tally>,
    search: impl Driven<T>,
) -> Option<T> {
    let done = AtomicBool::new(false);
    let first = Mutex::new(None);
    search(
        &|| {
            let go = !(stop && done.load(Ordering::Relaxed));
            if go {
                Tally::visit(count);
            }
            go
        },
        &|x| {
            Tally::resolved(count);
            first.lock().unwrap().get_or_insert(x);
            done.store(true, Ordering::Relaxed);
        },
    );
    first.into_inner().unwrap()
}
