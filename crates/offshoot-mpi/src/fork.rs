//! The two shapes a distributed program is written in: [`join`], a fork whose second half
//! is a [`Task`] another rank may run, and [`handle`], a spawn-request handler that can
//! also answer another rank with a package.
//!
//! Invariants:
//! * Lazy, as offshoot's own `join`: nothing is serialized while nobody asks. The second
//!   half is offered to local thieves as a closure (run on this rank, no bytes) and to
//!   other ranks as a package (only when another rank's steal reaches this block, as the
//!   oldest on its worker that can package), and otherwise runs here after the first.
//! * A half given away is waited for before the call returns — a local thief's as offshoot
//!   waits, a remote one's by parking on its promise (the worker runs other tasks
//!   meanwhile). A failure of the remote half resumes here as a panic that names the rank.
//! * Outside a distributed run (or outside a pool), and in a run of one rank, both shapes
//!   run as their local forms: no other rank can ask, so a one-rank run costs what plain
//!   offshoot costs (a handler block that can export is not a seed, so the joins below it
//!   would plant more).

use std::cell::{Cell, RefCell};

use offshoot::search::{Reply, Request, State};
use offshoot::sync::Promise;

use crate::node::{current, Node};
use crate::task::Task;
use crate::wire::Outcome;

/// Runs `a` here and `b` here or elsewhere, and returns both results: offshoot's
/// [`join`](offshoot::join) with a second half that can travel.
///
/// While `a` runs, an idle worker of this rank may take `b` (run as a closure), or, when
/// this rank is asked by another rank for work and this call is the oldest on its worker
/// that can package, `b` is serialized and runs there; otherwise `b` runs here after `a`.
/// Use it in the upper levels of a recursion, where tasks are big enough to be worth a
/// message, and plain [`offshoot::join`] below (each call here costs a handler block).
///
/// # Panics
///
/// When `a` or `b` panics, wherever it ran (a remote panic resumes here with the rank and
/// the message in its text).
///
/// # Example
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// struct Fib(u64);
/// impl offshoot_mpi::Task for Fib {
///     const NAME: &'static str = "fib";
///     type Output = u64;
///     fn run(self) -> u64 { fib(self.0) }
/// }
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     if n < 20 {
///         let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
///         return a + b;
///     }
///     let (a, b) = offshoot_mpi::join(|| fib(n - 1), Fib(n - 2));
///     a + b
/// }
/// // Outside a distributed run this is a plain offshoot join.
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// assert_eq!(pool.run(|| fib(24)), 46368);
/// ```
pub fn join<A, RA, T>(a: A, b: T) -> (RA, T::Output)
where
    A: FnOnce() -> RA + Send,
    RA: Send,
    T: Task,
{
    let node = match current() {
        Some(node) if !node.alone => node,
        // Outside a run, or alone in it: nobody else can take `b`.
        _ => return offshoot::join(a, move || b.run()),
    };
    let b = Cell::new(Some(b));
    let sent: RefCell<Option<Promise<Outcome>>> = RefCell::new(None);
    let st = State::new(());
    let (ra, mut local) = st.handle_with_export(
        a,
        |_, req: Request<'_, '_, T::Output>| match b.take() {
            Some(t) => req.spawn(move || t.run()),
            None => req.decline(),
        },
        |_| {
            let t = b.take()?;
            let (bytes, promise) = node.export(&t);
            *sent.borrow_mut() = Some(promise);
            Some(bytes)
        },
    );
    let rb = if let Some(t) = b.take() {
        t.run()
    } else if let Some(v) = local.pop() {
        v
    } else {
        let promise = sent.take().expect("offshoot-mpi: b was taken by nobody");
        wait_remote::<T>(&node, &promise)
    };
    (ra, rb)
}

/// Runs `body` with a spawn-request handler that can give work to local thieves
/// (`handler`, as in [`State::handle`]) **and** to other ranks (`exporter`, which returns a
/// [`Task`] holding part of the remaining work, or `None`). Returns the body's value, the
/// values of the local tasks, and the outputs of the exported tasks, each in the order
/// they were given away.
///
/// The exporter is called only when another rank asks this rank for work and this block
/// is the oldest on its worker that can package; it sees the state as the block saw it on
/// entry (undo-redo clauses rolled back), like the handler.
///
/// # Panics
///
/// As [`State::handle`]; a task that failed on another rank resumes here as a panic whose
/// text names the rank.
///
/// # Example
///
/// ```
/// use std::cell::Cell;
/// use offshoot::search::State;
/// use serde::{Deserialize, Serialize};
///
/// /// Sums `lo..hi`, giving away the upper half of what is left when asked.
/// #[derive(Serialize, Deserialize)]
/// struct Range(u64, u64);
/// impl offshoot_mpi::Task for Range {
///     const NAME: &'static str = "range-sum";
///     type Output = u64;
///     fn run(self) -> u64 { sum(self.0, self.1) }
/// }
/// fn sum(lo: u64, hi: u64) -> u64 {
///     let st = State::new(());
///     let (next, end) = (Cell::new(lo), Cell::new(hi));
///     let (mine, local, remote) = offshoot_mpi::handle(
///         &st,
///         || {
///             let mut s = 0;
///             while next.get() < end.get() {
///                 s += next.get();
///                 next.set(next.get() + 1);
///                 offshoot::poll();
///             }
///             s
///         },
///         |_, req| {
///             let (n, e) = (next.get(), end.get());
///             if e - n < 2 { return req.decline(); }
///             end.set(n + (e - n) / 2);
///             let from = end.get();
///             req.spawn(move || sum(from, e))
///         },
///         |_| {
///             let (n, e) = (next.get(), end.get());
///             if e - n < 2 { return None; }
///             end.set(n + (e - n) / 2);
///             Some(Range(end.get(), e))
///         },
///     );
///     mine + local.iter().sum::<u64>() + remote.iter().sum::<u64>()
/// }
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// assert_eq!(pool.run(|| sum(0, 10_000)), 10_000 * 9_999 / 2);
/// ```
pub fn handle<'a, S, R, L, T, B, H, E>(
    state: &State<S>,
    body: B,
    handler: H,
    mut exporter: E,
) -> (R, Vec<L>, Vec<T::Output>)
where
    B: FnOnce() -> R,
    H: for<'r> FnMut(&'r S, Request<'r, 'a, L>) -> Reply<'r, 'a, L>,
    E: FnMut(&S) -> Option<T>,
    L: Send + 'a,
    T: Task,
{
    let node = match current() {
        Some(node) if !node.alone => node,
        _ => {
            let (r, local) = state.handle(body, handler);
            return (r, local, Vec::new());
        }
    };
    let sent: RefCell<Vec<Promise<Outcome>>> = RefCell::new(Vec::new());
    let (r, local) = state.handle_with_export(body, handler, |s| {
        let t = exporter(s)?;
        let (bytes, promise) = node.export(&t);
        sent.borrow_mut().push(promise);
        Some(bytes)
    });
    let remote = sent
        .into_inner()
        .iter()
        .map(|p| wait_remote::<T>(&node, p))
        .collect();
    (r, local, remote)
}

/// Waits (parked) for the result of an exported task and decodes it.
fn wait_remote<T: Task>(node: &Node, promise: &Promise<Outcome>) -> T::Output {
    match promise.get() {
        Outcome::Value(bytes) => postcard::from_bytes(bytes).unwrap_or_else(|e| {
            panic!(
                "offshoot-mpi: the output of a {:?} task did not decode on rank {} ({e}); \
                 every rank must run the same build",
                T::NAME,
                node.rank
            )
        }),
        Outcome::Failed(why) => panic!("offshoot-mpi: a {:?} task failed {why}", T::NAME),
        Outcome::Stopped => {
            // The run's stop reached the thief; it reaches this region too, here.
            offshoot::poll();
            panic!(
                "offshoot-mpi: a {:?} task was stopped on its rank while the region that \
                 gave it away was not",
                T::NAME
            )
        }
    }
}
