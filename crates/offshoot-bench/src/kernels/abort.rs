//! `abort-panic`, `abort-eureka`: abort latency, the OPA thesis' Table 9.5 (seed 000,
//! §9.3): the time from a failure, or a eureka's resolution, to the return of the caller
//! that started the computation — how long the rest of a parallel computation takes to
//! stop once its answer is known. The harness records that interval (a timestamp taken
//! just before the failure or resolution, another when the caller's call returns; see
//! [`crate::kernels::Work::timed`]) instead of the whole call: its median and spread over
//! the rounds, and its ratio to serial's, where the interval is the plain unwinding (or
//! returning) through the tree's `depth` frames.
//!
//! The tree: a complete binary tree of depth `d` with a `join` per inner node (node `i` in
//! heap numbering has children `2i` and `2i + 1`); a leaf runs [`leaf`](super::grain::leaf) with 16
//! iterations, except leaf `at`, 5/16 of the way along the leaves in depth-first order
//! (the first leaf of the second half of the second quarter: a path that turns both ways),
//! where the computation fails or resolves.
//!
//! - `abort-panic`: leaf `at` panics with the payload [`Failed`]`(at)`
//!   (`std::panic::resume_unwind`, which skips the panic hook: its printing is not what is
//!   measured); the caller catches it (`catch_unwind`). offshoot's `join` drops a second
//!   half nobody took and stops one a thief runs at its next poll; rayon's `join` runs or
//!   waits for the other half before it resumes the panic — rayon has no cancellation, so
//!   its latency is the rest of the tree's work. chili has no version: its `join` is not
//!   unwind-safe (chili 0.2.1 `Scope::join_heartbeat` unwinds out of the half it runs
//!   itself with the other half's job still in its queue, pointing into the unwound frame).
//! - `abort-eureka`: leaf `at` resolves a search. offshoot: an `offshoot::eureka::Search`
//!   whose region is the tree (`eureka::finish`), checked at every node (`Search::check`)
//!   and offered at the hit; offshoot-ct, rayon and chili: the way a user writes it without
//!   eurekas, a token (a `OnceLock` the hit sets) tested at every node, a node that finds
//!   it set returning at once. Serial: the same search, each node returning as soon as a
//!   child found it.
//!
//! Inputs: depth test 10, quick 20 (2^20 leaves), full 24.
//! Cutoff: none.
//! Source: OPA thesis (Umatani 2004, seed 000) Table 9.5, nqueens(30)'s time from the
//! exception's throw to its catch, at 1–6 PEs; here a binary tree whose failing leaf is
//! known, so every contender fails at the same node after the same work.
//! Check: the failure surfaces at the caller with the right payload (`Failed(at)`; any
//! other payload, or a normal return, is wrong), or the search's answer is `at`; and the
//! failure's timestamp was taken (the interval exists).

use std::any::Any;
use std::hint::black_box;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use offshoot::eureka::{self, Eureka, Search};

use super::grain::leaf;
use super::{About, Kernel, KernelInfo, Size, Work};

/// What the panic kernel is.
pub const ABOUT_PANIC: About = About {
    name: "abort-panic",
    about: "time from a leaf's panic to the caller's return, in a binary tree of depth d \
            with a join per node (times are that latency, not the whole call)",
    cutoff: "none",
    source: "OPA thesis (000) Table 9.5, abort time",
};

/// What the eureka kernel is.
pub const ABOUT_EUREKA: About = About {
    name: "abort-eureka",
    about: "time from a search's hit to the caller's return, in a binary tree of depth d \
            with a join per node: a eureka (offshoot) or a token tested per node (times are \
            that latency, not the whole call)",
    cutoff: "none",
    source: "OPA thesis (000) Table 9.5, abort time; Imam's eurekas (002) ch. 4",
};

/// Iterations of a leaf's loop ([`leaf`](super::grain::leaf)).
const LEAF_GRAIN: u64 = 16;

/// The panic payload of the failing leaf: its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failed(pub u64);

/// The tree, where it fails, and the failure's timestamp.
#[derive(Debug)]
pub struct Tree {
    /// Levels below the root: `2^depth` leaves.
    pub depth: u32,
    /// The failing (or resolving) leaf, in heap numbering.
    pub at: u64,
    /// Taken just before the failure or resolution.
    stamp: OnceLock<Instant>,
}

impl Tree {
    /// The tree of `depth` levels (at least 4) failing at the leaf 5/16 along.
    ///
    /// # Panics
    /// If `depth` is below 4 or above 40.
    pub fn new(depth: u32) -> Tree {
        assert!(
            (4..=40).contains(&depth),
            "abort tree depth {depth} is outside 4..=40"
        );
        let leaves = 1u64 << depth;
        Tree {
            depth,
            at: leaves + 5 * (leaves / 16),
            stamp: OnceLock::new(),
        }
    }

    /// At leaf `i`: whether it is the failing one (the timestamp then taken); otherwise the
    /// leaf's work is done.
    #[inline]
    fn hit(&self, i: u64) -> bool {
        if i == self.at {
            let _ = self.stamp.set(Instant::now());
            true
        } else {
            black_box(leaf(LEAF_GRAIN, i));
            false
        }
    }

    /// A token search's test at node `i` with `depth` levels below it: whether the node is
    /// done without forking — the token is set (someone found the hit), or it is a leaf
    /// (whose work is done here, and which sets the token if it is the hit).
    #[inline]
    fn token_stops(&self, depth: u32, i: u64, token: &OnceLock<u64>) -> bool {
        if token.get().is_some() {
            return true;
        }
        if depth == 0 && self.hit(i) {
            let _ = token.set(i);
        }
        depth == 0
    }

    /// At leaf `i`: its value, or the panic of the failing leaf.
    #[inline]
    fn value_or_fail(&self, i: u64) -> u64 {
        if self.hit(i) {
            resume_unwind(Box::new(Failed(i)));
        }
        i
    }
}

/// What reached the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Surfaced {
    /// The panic with the failing leaf's payload.
    Failed(u64),
    /// The search's answer.
    Found(u64),
    /// A normal return (the panic kernel's sum, or a search that found nothing): wrong.
    Returned(Option<u64>),
    /// A panic with another payload: wrong.
    Other(String),
}

/// What a panic that reached the caller carried.
fn surfaced(r: Result<u64, Box<dyn Any + Send>>) -> Surfaced {
    match r {
        Ok(sum) => Surfaced::Returned(Some(sum)),
        Err(p) => match p.downcast::<Failed>() {
            Ok(f) => Surfaced::Failed(f.0),
            Err(p) => Surfaced::Other(crate::harness::panic_message(&*p)),
        },
    }
}

/// The caller of the panic kernel: runs `body`, catches what it throws, and notes when it
/// returned.
fn caught(body: impl FnOnce() -> u64) -> (Surfaced, Instant) {
    let r = catch_unwind(AssertUnwindSafe(body));
    (surfaced(r), Instant::now())
}

/// The caller of a search with a token: runs `search` with a fresh one, and notes what it
/// found and when it returned.
fn with_token(search: impl FnOnce(&OnceLock<u64>)) -> (Surfaced, Instant) {
    let hit = OnceLock::new();
    search(&hit);
    (found(hit.get().copied()), Instant::now())
}

/// A search's answer as it reached the caller.
fn found(hit: Option<u64>) -> Surfaced {
    match hit {
        Some(i) => Surfaced::Found(i),
        None => Surfaced::Returned(None),
    }
}

// --- abort-panic: each runtime's version is its own plain function, as a user writes it
// (see `fib.rs`); the caller catches the panic.

/// Plain recursion.
pub fn serial_rec(depth: u32, i: u64, t: &Tree) -> u64 {
    if depth == 0 {
        t.value_or_fail(i)
    } else {
        serial_rec(depth - 1, 2 * i, t).wrapping_add(serial_rec(depth - 1, 2 * i + 1, t))
    }
}

/// The serial caller: what surfaced, and when it returned.
pub fn serial(t: &Tree) -> (Surfaced, Instant) {
    caught(|| serial_rec(t.depth, 1, t))
}

/// Forks the two subtrees with `offshoot::join`.
pub fn offshoot_rec(depth: u32, i: u64, t: &Tree) -> u64 {
    if depth == 0 {
        t.value_or_fail(i)
    } else {
        let (a, b) = offshoot::join(
            || offshoot_rec(depth - 1, 2 * i, t),
            || offshoot_rec(depth - 1, 2 * i + 1, t),
        );
        a.wrapping_add(b)
    }
}

/// offshoot's caller.
pub fn offshoot(t: &Tree) -> (Surfaced, Instant) {
    caught(|| offshoot_rec(t.depth, 1, t))
}

/// Forks the two subtrees with `rayon::join`.
pub fn rayon_rec(depth: u32, i: u64, t: &Tree) -> u64 {
    if depth == 0 {
        t.value_or_fail(i)
    } else {
        let (a, b) = rayon::join(
            || rayon_rec(depth - 1, 2 * i, t),
            || rayon_rec(depth - 1, 2 * i + 1, t),
        );
        a.wrapping_add(b)
    }
}

/// rayon's caller.
pub fn rayon(t: &Tree) -> (Surfaced, Instant) {
    caught(|| rayon_rec(t.depth, 1, t))
}

// --- abort-eureka.

/// Plain search: a node returns as soon as a child found the hit.
pub fn serial_find_rec(depth: u32, i: u64, t: &Tree) -> Option<u64> {
    if depth == 0 {
        t.hit(i).then_some(i)
    } else {
        serial_find_rec(depth - 1, 2 * i, t).or_else(|| serial_find_rec(depth - 1, 2 * i + 1, t))
    }
}

/// The serial searcher's caller.
pub fn serial_find(t: &Tree) -> (Surfaced, Instant) {
    let hit = serial_find_rec(t.depth, 1, t);
    (found(hit), Instant::now())
}

/// Searches both subtrees with `offshoot::join` under a `Search` eureka, checked per node.
pub fn offshoot_find_rec(depth: u32, i: u64, t: &Tree, hit: &Search<u64>) {
    hit.check();
    if depth == 0 {
        if t.hit(i) {
            hit.offer(i);
        }
    } else {
        offshoot::join(
            || offshoot_find_rec(depth - 1, 2 * i, t, hit),
            || offshoot_find_rec(depth - 1, 2 * i + 1, t, hit),
        );
    }
}

/// offshoot's caller: the tree as the eureka's region.
pub fn offshoot_find(t: &Tree) -> (Surfaced, Instant) {
    let hit = Search::new();
    eureka::finish(&hit, || offshoot_find_rec(t.depth, 1, t, &hit));
    let returned = Instant::now();
    (found(hit.get().copied()), returned)
}

/// Searches both subtrees with `offshoot::join`, a token tested per node.
pub fn offshoot_ct_find_rec(depth: u32, i: u64, t: &Tree, hit: &OnceLock<u64>) {
    if !t.token_stops(depth, i, hit) {
        offshoot::join(
            || offshoot_ct_find_rec(depth - 1, 2 * i, t, hit),
            || offshoot_ct_find_rec(depth - 1, 2 * i + 1, t, hit),
        );
    }
}

/// offshoot-ct's caller.
pub fn offshoot_ct_find(t: &Tree) -> (Surfaced, Instant) {
    with_token(|hit| offshoot_ct_find_rec(t.depth, 1, t, hit))
}

/// Searches both subtrees with `rayon::join`, a token tested per node.
pub fn rayon_find_rec(depth: u32, i: u64, t: &Tree, hit: &OnceLock<u64>) {
    if !t.token_stops(depth, i, hit) {
        rayon::join(
            || rayon_find_rec(depth - 1, 2 * i, t, hit),
            || rayon_find_rec(depth - 1, 2 * i + 1, t, hit),
        );
    }
}

/// rayon's caller.
pub fn rayon_find(t: &Tree) -> (Surfaced, Instant) {
    with_token(|hit| rayon_find_rec(t.depth, 1, t, hit))
}

/// Searches both subtrees with chili's `Scope::join`, a token tested per node.
pub fn chili_find_rec(s: &mut chili::Scope<'_>, depth: u32, i: u64, t: &Tree, hit: &OnceLock<u64>) {
    if !t.token_stops(depth, i, hit) {
        // chili runs its second closure first: keep serial's order.
        s.join(
            |s| chili_find_rec(s, depth - 1, 2 * i + 1, t, hit),
            |s| chili_find_rec(s, depth - 1, 2 * i, t, hit),
        );
    }
}

/// chili's caller.
pub fn chili_find(s: &mut chili::Scope<'_>, t: &Tree) -> (Surfaced, Instant) {
    with_token(|hit| chili_find_rec(s, t.depth, 1, t, hit))
}

/// A kernel's state: the tree, what must surface, and the last run's outcome and latency.
pub struct Abort {
    tree: Tree,
    want: Surfaced,
    last: Option<(Surfaced, Option<Duration>)>,
    reference: Option<Surfaced>,
}

impl Abort {
    /// The state of a tree of `depth` levels, which must surface `want(at)`.
    fn new(depth: u32, want: fn(u64) -> Surfaced) -> Abort {
        let tree = Tree::new(depth);
        Abort {
            want: want(tree.at),
            tree,
            last: None,
            reference: None,
        }
    }

    /// Records what surfaced at the caller, which returned at `returned`.
    fn record(&mut self, what: Surfaced, returned: Instant) {
        let latency = self
            .tree
            .stamp
            .get()
            .map(|t0| returned.saturating_duration_since(*t0));
        self.last = Some((what, latency));
    }
}

impl Work for Abort {
    fn input(&self) -> String {
        format!(
            "depth {} ({} leaves of {LEAF_GRAIN} xor-multiplies), fails at leaf {} of them \
             (5/16 along)",
            self.tree.depth,
            1u64 << self.tree.depth,
            self.tree.at - (1u64 << self.tree.depth)
        )
    }
    fn reset(&mut self) {
        self.tree.stamp.take();
        self.last = None;
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        let want = self.want.clone();
        self.reference = Some(want);
        self.check().inspect_err(|_| self.reference = None)
    }
    fn check(&self) -> Result<(), String> {
        let want = self
            .reference
            .as_ref()
            .ok_or("no reference answer (serial run missing)")?;
        match &self.last {
            None => Err("the run recorded no answer".to_string()),
            Some((got, _)) if got != want => Err(format!("{got:?} surfaced, expected {want:?}")),
            Some((_, None)) => Err("the failure's timestamp was never taken".to_string()),
            Some((_, Some(_))) => Ok(()),
        }
    }
    fn timed(&self) -> Option<Duration> {
        self.last.as_ref().and_then(|(_, latency)| *latency)
    }
}

/// A contender that runs `f` on the tree and records its outcome.
fn run(f: fn(&Tree) -> (Surfaced, Instant)) -> impl Fn(&mut Abort) + Send + Sync + 'static {
    move |a| {
        let (what, returned) = f(black_box(&a.tree));
        a.record(what, returned);
    }
}

/// Like [`run`], for chili's version (given the pool's scope).
fn run_scoped(
    f: fn(&mut chili::Scope<'_>, &Tree) -> (Surfaced, Instant),
) -> impl Fn(&mut Abort, &mut chili::Scope<'_>) + Send + Sync + 'static {
    move |a, s| {
        let (what, returned) = f(s, black_box(&a.tree));
        a.record(what, returned);
    }
}

fn depth_of(size: Size) -> u32 {
    match size {
        Size::Test => 10,
        Size::Quick => 20,
        Size::Full => 24,
    }
}

/// The registry entry of `abort-panic`.
pub fn info_panic() -> KernelInfo {
    let prepare = |size| Abort::new(depth_of(size), Surfaced::Failed);
    Kernel::new(ABOUT_PANIC, prepare, run(serial))
        .offshoot(run(offshoot))
        .rayon(run(rayon))
        .build()
}

/// The registry entry of `abort-eureka`.
pub fn info_eureka() -> KernelInfo {
    let prepare = |size| Abort::new(depth_of(size), Surfaced::Found);
    Kernel::new(ABOUT_EUREKA, prepare, run(serial_find))
        .offshoot(run(offshoot_find))
        .offshoot_ct(run(offshoot_ct_find))
        .rayon(run(rayon_find))
        .chili(run_scoped(chili_find))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failing_leaf_is_five_sixteenths_along() {
        let t = Tree::new(4);
        assert_eq!(t.at, 16 + 5);
        assert_eq!(Tree::new(20).at - (1 << 20), 5 << 16);
    }

    #[test]
    fn both_kernels_agree_with_serial() {
        super::super::verify(&info_panic());
        super::super::verify(&info_eureka());
    }

    #[test]
    fn the_check_rejects_a_wrong_failure_a_normal_return_and_no_timestamp() {
        let mut a = Abort::new(6, Surfaced::Failed);
        run(serial)(&mut a);
        a.accept_reference().unwrap();
        assert!(a.timed().is_some());
        let wrong = |a: &mut Abort, what: Surfaced, stamp: bool| {
            a.reset();
            if stamp {
                a.tree.stamp.set(Instant::now()).unwrap();
            }
            a.record(what, Instant::now());
            a.check()
        };
        let at = a.tree.at;
        assert!(wrong(&mut a, Surfaced::Failed(at + 1), true).is_err());
        assert!(wrong(&mut a, Surfaced::Returned(Some(7)), true).is_err());
        assert!(wrong(&mut a, Surfaced::Other("boom".to_string()), true).is_err());
        assert!(wrong(&mut a, Surfaced::Found(at), true).is_err());
        let e = wrong(&mut a, Surfaced::Failed(at), false).unwrap_err();
        assert!(e.contains("timestamp"), "{e}");
        wrong(&mut a, Surfaced::Failed(at), true).unwrap();
        // A serial answer that is not the planted failure is refused.
        let mut b = Abort::new(6, Surfaced::Found);
        run(serial)(&mut b);
        assert!(b.accept_reference().is_err());
    }

    #[test]
    fn another_panic_surfaces_as_itself() {
        let r = catch_unwind(|| -> u64 { panic!("not the leaf") });
        assert_eq!(surfaced(r), Surfaced::Other("not the leaf".to_string()));
    }
}
