//! Spawn-request handlers: `do { body } handle_spawn_req(req) { ... }` of 004, as
//! [`handle`] and [`State::handle`].
//!
//! `handle` pushes a [`HandlerFrame`] on the worker's chain, polls, runs the body and pops
//! the frame. A request answered while the frame is on the chain may call the handler
//! (`search::answer` decides when); a handler that spawns gets a [`Task`] built here, handed
//! to the thief like a loop piece (`job.rs`: `run_as_thief` on the thief, `settle_job` on
//! the owner). When the body is done, `handle` waits for each task (taking work back from
//! its thief) and returns the body's value with the tasks' values, in spawn order.
//!
//! Invariants:
//! * The handler runs only inside `search::answer`, that is at a poll point of the thread
//!   that runs the body, while the frame is on the chain (so while the body runs), and only
//!   with its state at rest; it never runs re-entrantly (`answer` sets a per-thread flag).
//! * A task is boxed and owned by the frame's list from the moment it is handed out until
//!   its thief set `done`; every path out of `handle` (return or unwind) settles every task
//!   before freeing it.
//! * A panic of the handler never unwinds into the runtime: it is caught, kept in the frame
//!   (the first only), and the frame reports itself cancelled, so the body is stopped at its
//!   next poll and `handle` resumes the handler's payload once everything is settled.
//! * First failure wins, as for loops: the body's failure cancels every task; a task that
//!   failed first (its `failed` CAS won) stops the body, and its payload is resumed.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;

use super::state::State;
use super::{fail_in_frame, SearchFrame, SearchOps};
use crate::caught::Caught;
use crate::finish::FinishState;
use crate::frame::{Frame, FrameKind, FrameVTable};
use crate::job::{
    cancel_job, run_as_thief, settle_job, thief_done, thief_proxy, JobHeader, JobRef, Mode,
    Settled, FAILED_B,
};
use crate::unwind::raise_stopped;
use crate::worker::Worker;

/// What a handler is given when an idle worker asks for work: consume it with
/// [`spawn`](Request::spawn) or [`decline`](Request::decline) to make the handler's
/// [`Reply`].
///
/// `'r` is the lifetime of one handler call (a fresh one for every call, so neither the
/// request nor the reply can be kept for a later one); `'a` bounds what spawned tasks may
/// borrow (anything that outlives the `handle` call); `T` is the tasks' result type.
pub struct Request<'r, 'a, T> {
    thief: usize,
    /// Invariant in `'r` and `'a`.
    marker: PhantomData<Brand<'r, 'a, T>>,
}

impl<T> std::fmt::Debug for Request<'_, '_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("thief", &self.thief)
            .finish()
    }
}

/// Invariant in `'r` and `'a`; `T` only as a result type.
type Brand<'r, 'a, T> = (Invariant<'r>, Invariant<'a>, fn() -> T);

/// Makes a type invariant in `'x`.
type Invariant<'x> = fn(&'x ()) -> &'x ();

/// A handler's answer to a [`Request`]: a task, or nothing. Made only by consuming the
/// request, so a handler answers each request exactly once.
pub struct Reply<'r, 'a, T> {
    task: Option<Box<dyn FnOnce() -> T + Send + 'a>>,
    marker: PhantomData<Invariant<'r>>,
}

impl<T> std::fmt::Debug for Reply<'_, '_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("spawns", &self.task.is_some())
            .finish()
    }
}

impl<T> Request<'_, '_, T> {
    fn new(thief: usize) -> Self {
        Request {
            thief,
            marker: PhantomData,
        }
    }
}

impl<'r, 'a, T: Send + 'a> Request<'r, 'a, T> {
    /// Answers with a task: `f` runs on the worker that asked, and its value is returned by
    /// the `handle` call whose handler spawned it. `f` must own what it works on — copy the
    /// part of the state it needs now, while the handler sees the state as it was when its
    /// block was entered.
    ///
    /// ```
    /// use std::cell::Cell;
    /// let given = Cell::new(false);
    /// let (a, rest) = offshoot::search::handle(
    ///     || 1,
    ///     |req| {
    ///         if given.replace(true) {
    ///             req.decline()
    ///         } else {
    ///             req.spawn(|| 2)
    ///         }
    ///     },
    /// );
    /// // Without a request, nothing was spawned; with one, the task's value is here.
    /// let b = if given.get() { rest[0] } else { 2 };
    /// assert_eq!(a + b, 3);
    /// ```
    pub fn spawn<F>(self, f: F) -> Reply<'r, 'a, T>
    where
        F: FnOnce() -> T + Send + 'a,
    {
        Reply {
            task: Some(Box::new(f)),
            marker: PhantomData,
        }
    }

    /// Answers "nothing from this handler": the request passes to the next younger frame
    /// that can give work.
    ///
    /// ```
    /// let (v, spawned) = offshoot::search::handle(|| 7, |req| req.decline());
    /// let _: Vec<()> = spawned;
    /// assert_eq!(v, 7);
    /// ```
    pub fn decline(self) -> Reply<'r, 'a, T> {
        Reply {
            task: None,
            marker: PhantomData,
        }
    }

    /// The index of the worker that asked (for tracing; the pool's workers are numbered from 0).
    ///
    /// ```
    /// let (_, _t): ((), Vec<()>) = offshoot::search::handle(|| (), |req| {
    ///     let _who = req.thief();
    ///     req.decline()
    /// });
    /// ```
    pub fn thief(&self) -> usize {
        self.thief
    }
}

/// How a handler frame calls its handler; implemented for handlers with and without a
/// [`State`].
pub(crate) trait Ask<'a, T> {
    /// Whether the handler could be called now (its state, if any, is at rest).
    fn ready(&self) -> bool;
    /// Calls the handler with its state lent, or returns `None` if the state is not at rest.
    fn ask<'r>(&mut self, req: Request<'r, 'a, T>) -> Option<Reply<'r, 'a, T>>;
    /// Whether this handler has an exporter (it can answer another process's request).
    const EXPORTS: bool = false;
    /// Calls the exporter with the state lent: `None` if the state is not at rest or the
    /// exporter declined (or there is none).
    fn export(&mut self) -> Option<Vec<u8>> {
        None
    }
}

/// A handler of [`handle`], which sees no state of the runtime's.
pub(crate) struct Plain<H>(pub(crate) H);

impl<'a, T, H> Ask<'a, T> for Plain<H>
where
    H: for<'r> FnMut(Request<'r, 'a, T>) -> Reply<'r, 'a, T>,
{
    fn ready(&self) -> bool {
        true
    }
    fn ask<'r>(&mut self, req: Request<'r, 'a, T>) -> Option<Reply<'r, 'a, T>> {
        Some((self.0)(req))
    }
}

/// A handler of [`State::handle`], called with the state lent to it.
pub(crate) struct OnState<'s, S, H> {
    pub(crate) state: &'s State<S>,
    pub(crate) handler: H,
}

impl<'a, S, T, H> Ask<'a, T> for OnState<'_, S, H>
where
    H: for<'r> FnMut(&'r S, Request<'r, 'a, T>) -> Reply<'r, 'a, T>,
{
    fn ready(&self) -> bool {
        self.state.at_rest()
    }
    fn ask<'r>(&mut self, req: Request<'r, 'a, T>) -> Option<Reply<'r, 'a, T>> {
        let g = self.state.try_lend()?;
        // The state is lent for a shorter call than `'r`: brand the request for that call and
        // carry its task back out (a reply is only its task).
        let inner = (self.handler)(&g, Request::new(req.thief));
        Some(Reply {
            task: inner.task,
            marker: PhantomData,
        })
    }
}

/// A handler of [`State::handle_with_export`]: [`OnState`]'s handler, and an exporter that
/// packages work for another process.
pub(crate) struct OnStateExport<'s, S, H, E> {
    pub(crate) on: OnState<'s, S, H>,
    pub(crate) exporter: E,
}

impl<'a, S, T, H, E> Ask<'a, T> for OnStateExport<'_, S, H, E>
where
    H: for<'r> FnMut(&'r S, Request<'r, 'a, T>) -> Reply<'r, 'a, T>,
    E: FnMut(&S) -> Option<Vec<u8>>,
{
    fn ready(&self) -> bool {
        self.on.ready()
    }
    fn ask<'r>(&mut self, req: Request<'r, 'a, T>) -> Option<Reply<'r, 'a, T>> {
        self.on.ask(req)
    }
    const EXPORTS: bool = true;
    fn export(&mut self) -> Option<Vec<u8>> {
        let g = self.on.state.try_lend()?;
        (self.exporter)(&g)
    }
}

/// A task spawned by a handler and handed to a thief. `#[repr(C)]` with the header first.
#[repr(C)]
struct Task<'a, T> {
    header: JobHeader,
    func: UnsafeCell<Option<Box<dyn FnOnce() -> T + Send + 'a>>>,
    /// Written by the thief before `done`.
    result: UnsafeCell<Option<T>>,
}

impl<T: Send> Task<'_, T> {
    /// # Safety
    /// `h` is the header (first field) of a live `Task<T>` that its handler frame handed to the
    /// calling thief `w`, in `Mode::Stolen`, executed once; the frame waits for `done` before
    /// it frees the task.
    unsafe fn execute(h: *const JobHeader, w: &Worker, mode: Mode) {
        debug_assert_eq!(
            mode,
            Mode::Stolen,
            "a handler's task is only run by a thief"
        );
        // SAFETY: `h` is the first field of a live `Task<T>` handed to `w`; its handle frame
        // waits for `done` before freeing it. The closure is taken once, here.
        unsafe {
            let t = &*(h as *const Self);
            let f = (*t.func.get())
                .take()
                .expect("offshoot: a handler's task ran twice");
            let proxy = thief_proxy(h, w);
            proxy.enter(w);
            run_as_thief(h, w, f, |v| *t.result.get() = Some(v));
            thief_done(h, w, &proxy);
        }
    }
}

/// The frame of one `handle` call. `#[repr(C)]` with the [`SearchFrame`] first.
#[repr(C)]
pub(crate) struct HandlerFrame<'a, T, X> {
    link: SearchFrame,
    asker: UnsafeCell<X>,
    /// Made at the first spawn or panic of the handler; most blocks never need it, so the
    /// fast path only stores and tests one null pointer.
    extra: UnsafeCell<Option<Box<Extra<'a, T>>>>,
}

/// What a handle block has to settle when its body is done.
struct Extra<'a, T> {
    /// Tasks handed out, in spawn order; raw pointers from `Box::into_raw` (see loops.rs
    /// for why not `Box`), freed by `settle`.
    tasks: Vec<*mut Task<'a, T>>,
    /// The handler's panic, if it panicked (the first one only).
    failure: Option<Caught>,
}

impl<T> Extra<'_, T> {
    fn boxed() -> Box<Self> {
        Box::new(Extra {
            tasks: Vec::new(),
            failure: None,
        })
    }
}

impl<'a, T: Send + 'a, X: Ask<'a, T>> HandlerFrame<'a, T, X> {
    const VTABLE: FrameVTable = FrameVTable {
        kind: FrameKind::Client(&super::HANDLER),
        has_work: Self::has_work,
        offer: super::never_offer,
        cancelled: Self::cancelled,
        answer: Some(crate::search::answer),
        export: if X::EXPORTS {
            Some(crate::search::export)
        } else {
            None
        },
    };
    const OPS: SearchOps = SearchOps::Handler {
        ask: Self::ask,
        export: Self::export,
    };

    /// # Safety
    /// `f` is a live `HandlerFrame<T, X>` (the only frame this table is installed on), linked
    /// in the calling worker's chain (running or parked); called by that worker only.
    unsafe fn has_work(f: *const Frame) -> bool {
        // SAFETY: the Handler table is only installed on `HandlerFrame<T, X>`s, live while
        // linked; only the owning worker calls.
        let fr = unsafe { &*(f as *const Self) };
        // SAFETY: as above: only the owner touches the cells, and not re-entrantly here.
        !super::answering() && !unsafe { fr.failed() } && unsafe { (*fr.asker.get()).ready() }
    }

    /// Whether the handler panicked.
    ///
    /// # Safety
    /// Owner only, not while a reference into `extra` is held.
    unsafe fn failed(&self) -> bool {
        // SAFETY: per the contract.
        unsafe { (*self.extra.get()).as_ref() }.is_some_and(|e| e.failure.is_some())
    }

    /// # Safety
    /// As for `has_work`.
    unsafe fn cancelled(f: *const Frame) -> bool {
        // SAFETY: as in `has_work`; the tasks are live until `settle` frees them, after the
        // frame left the chain.
        unsafe {
            let fr = &*(f as *const Self);
            (*fr.extra.get()).as_ref().is_some_and(|e| {
                e.failure.is_some()
                    || e.tasks
                        .iter()
                        .any(|&t| (*t).header.failed.load(Ordering::Acquire) == FAILED_B)
            })
        }
    }

    /// Calls the exporter (from `search::export`, at a poll point of the owner); a panic of
    /// the exporter fails the frame as a handler's panic does.
    ///
    /// # Safety
    /// As for `has_work`; called from `search::export`, which is not re-entrant, with `ctx`
    /// the finish enclosing the frame.
    unsafe fn export(f: *const Frame, w: &Worker, ctx: *const FinishState) -> Option<Vec<u8>> {
        // SAFETY: as in `has_work`.
        let fr = unsafe { &*(f as *const Self) };
        // SAFETY: only the owner touches the cell; `export` is not re-entrant.
        if !X::EXPORTS || unsafe { fr.failed() } {
            return None;
        }
        // SAFETY: the exporter is only called from here, never re-entrantly (the answering
        // flag), so this is the only reference to it.
        let asker = unsafe { &mut *fr.asker.get() };
        match catch_unwind(AssertUnwindSafe(|| asker.export())) {
            Ok(p) => p,
            Err(p) => {
                // SAFETY: only the owner touches the cell.
                let e = unsafe { (*fr.extra.get()).get_or_insert_with(Extra::boxed) };
                fail_in_frame(w, &mut e.failure, p, ctx);
                None
            }
        }
    }

    /// Calls the handler for `thief` (from `search::answer`, at a poll point of the owner).
    ///
    /// # Safety
    /// As for `has_work`; called from `search::answer` at the owner's poll, which is not
    /// re-entrant, with `thief` and `ctx` as for `FrameVTable::offer`.
    unsafe fn ask(
        f: *const Frame,
        w: &Worker,
        thief: usize,
        ctx: *const FinishState,
    ) -> Option<JobRef> {
        // SAFETY: as in `has_work`.
        let fr = unsafe { &*(f as *const Self) };
        // SAFETY: only the owner touches the cell; `answer` is not re-entrant.
        if unsafe { fr.failed() } {
            return None;
        }
        // SAFETY: the handler is only called from here, never re-entrantly (`answer` sets the
        // per-thread flag), so this is the only reference to it.
        let asker = unsafe { &mut *fr.asker.get() };
        let reply = match catch_unwind(AssertUnwindSafe(|| asker.ask(Request::new(thief)))) {
            Ok(r) => r?,
            Err(p) => {
                // SAFETY: only the owner touches the cell.
                let e = unsafe { (*fr.extra.get()).get_or_insert_with(Extra::boxed) };
                fail_in_frame(w, &mut e.failure, p, ctx);
                return None;
            }
        };
        let func = reply.task?;
        let task = Box::into_raw(Box::new(Task {
            header: JobHeader::new(Task::<T>::execute, w),
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
        }));
        // SAFETY: just allocated; nobody else has it yet. Only the owner touches the list.
        unsafe {
            (*task).header.thief.set(thief);
            (*task).header.finish.set(ctx);
            (*fr.extra.get())
                .get_or_insert_with(Extra::boxed)
                .tasks
                .push(task);
        }
        // The header is the first field (repr(C)); the pointer covers the whole task.
        Some(JobRef(task as *const JobHeader))
    }
}

/// The body of every `handle`: see the module docs.
pub(crate) fn run<'a, R, T, X>(asker: X, body: impl FnOnce() -> R) -> (R, Vec<T>)
where
    T: Send + 'a,
    X: Ask<'a, T>,
{
    let w = Worker::current();
    if w.is_null() {
        // Outside every pool nobody can ask: the body is the whole search.
        return (body(), Vec::new());
    }
    // SAFETY: a non-null current worker is live and run by this thread.
    let w = unsafe { &*w };
    let frame = HandlerFrame::<'a, T, X> {
        link: SearchFrame {
            frame: Frame {
                prev: w.head(),
                vtable: Cell::new(Some(&HandlerFrame::<'a, T, X>::VTABLE)),
            },
            ops: &HandlerFrame::<'a, T, X>::OPS,
        },
        asker: UnsafeCell::new(asker),
        extra: UnsafeCell::new(None),
    };
    // Derived from the whole frame (repr(C), link first), so it casts back to it.
    let fp = &frame as *const HandlerFrame<'a, T, X> as *const Frame;
    w.push(fp);
    let own = catch_unwind(AssertUnwindSafe(|| {
        w.poll();
        body()
    }));
    w.pop(fp);
    // SAFETY: the frame is unlinked: nothing else touches its cells any more.
    match unsafe { (*frame.extra.get()).take() } {
        None => match own {
            Ok(v) => (v, Vec::new()),
            Err(p) => resume_unwind(p),
        },
        Some(e) => settle(w, own, e.tasks, e.failure),
    }
}

/// Waits for every task of a handle block and decides its outcome (first failure wins).
#[cold]
#[inline(never)]
fn settle<R, T: Send>(
    w: &Worker,
    own: Result<R, Box<dyn Any + Send>>,
    tasks: Vec<*mut Task<'_, T>>,
    handler_failure: Option<Caught>,
) -> (R, Vec<T>) {
    // SAFETY: every task is live until freed below, after it was settled.
    let hdrs: Vec<&JobHeader> = tasks.iter().map(|&t| unsafe { &(*t).header }).collect();
    // Stamped before the wait (`caught.rs`).
    let own = own.map_err(Caught::here);
    if own.is_err() || handler_failure.is_some() {
        for h in &hdrs {
            cancel_job(w, h);
        }
    }
    let mut failure: Option<Caught> = None;
    let mut stopped = false;
    let mut values = Vec::with_capacity(tasks.len());
    for (i, h) in hdrs.iter().enumerate() {
        match settle_job(w, h) {
            // SAFETY: `done` was set; the thief wrote the result before that.
            Settled::Value => values.extend(unsafe { (*(*tasks[i]).result.get()).take() }),
            Settled::Failed(p) => {
                if failure.is_none() {
                    failure = Some(p);
                    for q in &hdrs {
                        cancel_job(w, q);
                    }
                }
            }
            Settled::Stopped => stopped = true,
        }
    }
    drop(hdrs);
    for t in tasks {
        // SAFETY: every task came from `Box::into_raw` in `ask` and is settled (its thief
        // no longer touches it).
        drop(unsafe { Box::from_raw(t) });
    }
    // A task that failed first wins; then the handler's own panic; then the body's.
    let first = failure.or(handler_failure);
    match own {
        Err(p) => {
            drop(values);
            first.unwrap_or(p).resume()
        }
        Ok(v) => {
            if let Some(p) = first {
                drop((v, values));
                p.resume()
            }
            if stopped {
                drop((v, values));
                raise_stopped()
            }
            (v, values)
        }
    }
}

/// Runs `body` with a spawn-request handler for its dynamic extent (LBTC's
/// `do { body } handle_spawn_req(req) { handler }`), and returns the body's value with the
/// values of the tasks the handler spawned, in spawn order.
///
/// Whenever an idle worker's request reaches this worker while `body` runs — at any poll
/// point, however deep in the body's calls — the runtime asks the **oldest** frame that can
/// give work: a join seed, a loop, a finish's pending task, or a handler. Handlers may
/// decline; the request then passes to the next younger frame, and so on until one gives
/// work or none does. The handler is called with a [`Request`] and answers it with
/// [`Request::spawn`] (a task computing part of the remaining work, which runs on the
/// worker that asked) or [`Request::decline`]. Typically the handler takes work away from
/// the body through shared `Cell`s (a loop bound, a flag), and the body does the rest.
///
/// The handler runs on the body's thread, at a poll point, and never re-entrantly (a poll
/// inside a handler answers requests without asking handlers). It needs not be `Send`; the
/// tasks it spawns must be. A handler should be short: a thief waits for its answer. Like
/// any callback, a handler that takes a lock (or a `RefCell` borrow) that the body may hold
/// across a poll point deadlocks (or panics); the search's own state is safe from this,
/// since the runtime lends a [`State`] only when it is at rest.
///
/// Use [`State::handle`] when the handler needs the search's shared state.
///
/// Outside every pool, nobody can ask: `handle` runs the body and returns no task values.
///
/// # Panics
///
/// The first panic of the body, the handler or a spawned task wins: the rest is stopped at
/// its next poll point, and the panic resumes here once every task has ended.
///
/// # Example
///
/// LBTC's Fig. 8: fib, with `fib(n - 2)` offered to a thief by a handler.
///
/// ```
/// use std::cell::Cell;
///
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let taken = Cell::new(false);
///     let (x, stolen) = offshoot::search::handle(
///         || fib(n - 1),
///         |req| {
///             if taken.replace(true) {
///                 req.decline()
///             } else {
///                 req.spawn(move || fib(n - 2))
///             }
///         },
///     );
///     // Not taken: `fib(n - 2)` runs here, like the second half of a join.
///     let y = if taken.get() { stolen[0] } else { fib(n - 2) };
///     x + y
/// }
///
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// assert_eq!(pool.run(|| fib(20)), 6765);
/// ```
pub fn handle<'a, R, T, B, H>(body: B, handler: H) -> (R, Vec<T>)
where
    B: FnOnce() -> R,
    H: for<'r> FnMut(Request<'r, 'a, T>) -> Reply<'r, 'a, T>,
    T: Send + 'a,
{
    run(Plain(handler), body)
}

impl<S> State<S> {
    /// Runs `body` with a spawn-request handler for its dynamic extent, like [`handle`],
    /// whose handler is given this state as it was when this block was entered: the
    /// undo-redo clauses entered inside the block since (see [`undo_redo`](State::undo_redo))
    /// are rolled back around the call. The handler copies what a task needs and spawns it.
    ///
    /// The handler is called only while the state is at rest: if the body holds a borrow of
    /// it at the poll point where a request arrives, the handler counts as declining.
    ///
    /// # Panics
    ///
    /// As [`handle`].
    ///
    /// # Example
    ///
    /// Counting the subsets of a list with sum below a bound: the body walks the choices on
    /// one shared vector; a request takes the remaining items of the oldest loop that has
    /// some, and the thief continues on a copy.
    ///
    /// ```
    /// use std::cell::Cell;
    /// use offshoot::search::State;
    ///
    /// fn count(st: &State<Vec<u32>>, items: &[u32], from: usize, bound: u32) -> u64 {
    ///     let end = Cell::new(items.len());
    ///     let next = Cell::new(from);
    ///     let (mut n, stolen) = st.handle(
    ///         || {
    ///             let mut n = 1; // the current subset
    ///             while next.get() < end.get() {
    ///                 let i = next.get();
    ///                 next.set(i + 1);
    ///                 let sum: u32 = st.with(|v| v.iter().sum());
    ///                 if sum + items[i] < bound {
    ///                     st.with(|v| v.push(items[i]));
    ///                     n += st.undo_redo(
    ///                         || count(st, items, i + 1, bound),
    ///                         |v| { v.pop(); },
    ///                         |v| v.push(items[i]),
    ///                     );
    ///                     st.with(|v| v.pop());
    ///                 }
    ///             }
    ///             n
    ///         },
    ///         |v, req| {
    ///             if end.get() - next.get() < 2 {
    ///                 return req.decline();
    ///             }
    ///             let i = end.get() - 1;
    ///             end.set(i);
    ///             let mine = v.clone();
    ///             req.spawn(move || {
    ///                 let st = State::new(mine);
    ///                 let sum: u32 = st.with(|v| v.iter().sum());
    ///                 if sum + items[i] >= bound {
    ///                     return 0;
    ///                 }
    ///                 st.with(|v| v.push(items[i]));
    ///                 count(&st, items, i + 1, bound)
    ///             })
    ///         },
    ///     );
    ///     n += stolen.iter().sum::<u64>();
    ///     n
    /// }
    ///
    /// let items: Vec<u32> = (1..=12).collect();
    /// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    /// let (n, after) = pool.run(|| {
    ///     // A `State` is `!Sync`: it is made on the worker that runs the search.
    ///     let st = State::new(Vec::new());
    ///     (count(&st, &items, 0, 20), st.into_inner())
    /// });
    /// let serial = (0u32..1 << 12)
    ///     .filter(|m| (0..12).filter(|b| m >> b & 1 == 1).map(|b| b + 1).sum::<u32>() < 20)
    ///     .count() as u64;
    /// assert_eq!(n, serial);
    /// assert!(after.is_empty(), "the state ends as it began");
    /// ```
    pub fn handle<'a, R, T, B, H>(&self, body: B, handler: H) -> (R, Vec<T>)
    where
        B: FnOnce() -> R,
        H: for<'r> FnMut(&'r S, Request<'r, 'a, T>) -> Reply<'r, 'a, T>,
        T: Send + 'a,
    {
        run(
            OnState {
                state: self,
                handler,
            },
            body,
        )
    }

    /// [`handle`](State::handle), with an **exporter** as well: a function that packages
    /// part of the remaining work as bytes that another process can run, for distribution
    /// layers (such as `offshoot-mpi`) that ship work between processes.
    ///
    /// A local thief's request is answered by `handler`, as in [`handle`](State::handle). A
    /// *package request* — made by [`ThreadPool::request_package`](crate::ThreadPool::request_package)
    /// from a thread outside the pool, when another process asks for work — is answered at
    /// this worker's next poll by the **oldest** block on its running chain that has an
    /// exporter, with the state as that block saw it on entry (the undo-redo clauses are
    /// rolled back around the call, as for a handler). The exporter takes work away from the
    /// body as a handler does and returns its package, or `None` to decline; join seeds,
    /// loops and handlers without an exporter never answer package requests.
    ///
    /// Whatever the exporter gives away is the caller's to account for: the package's
    /// result comes back through the distribution layer, not through this call's `Vec`.
    ///
    /// # Panics
    ///
    /// As [`handle`]; a panic of the exporter counts as one of the handler.
    ///
    /// # Example
    ///
    /// ```
    /// use std::cell::Cell;
    /// use offshoot::export::Answer;
    /// use offshoot::search::State;
    ///
    /// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    /// let asked = std::sync::Barrier::new(2);
    /// std::thread::scope(|s| {
    ///     // Another process's agent: asks the pool for a package once the search runs.
    ///     let agent = s.spawn(|| {
    ///         asked.wait();
    ///         let mut req = pool.request_package();
    ///         loop {
    ///             match req.wait(std::time::Duration::from_secs(10)) {
    ///                 Answer::Pending => continue,
    ///                 other => return other,
    ///             }
    ///         }
    ///     });
    ///     let left = pool.run(|| {
    ///         let st = State::new(());
    ///         let next = Cell::new(0u32);
    ///         let end = Cell::new(100u32);
    ///         let (_, _): ((), Vec<()>) = st.handle_with_export(
    ///             || {
    ///                 asked.wait();
    ///                 while next.get() < end.get() {
    ///                     next.set(next.get() + 1);
    ///                     offshoot::poll(); // where requests are answered
    ///                 }
    ///             },
    ///             |_, req| req.decline(),
    ///             |_| {
    ///                 // Give away the upper half of what is left, as bytes.
    ///                 let mid = next.get() + (end.get() - next.get()) / 2;
    ///                 let pkg = [mid.to_le_bytes(), end.get().to_le_bytes()].concat();
    ///                 end.set(mid);
    ///                 Some(pkg)
    ///             },
    ///         );
    ///         next.get()
    ///     });
    ///     match agent.join().unwrap() {
    ///         Answer::Package(p) => {
    ///             let from = u32::from_le_bytes(p[0..4].try_into().unwrap());
    ///             assert_eq!(from, left, "the body stopped where the package begins");
    ///         }
    ///         Answer::Nothing => assert_eq!(left, 100, "asked after the body ended"),
    ///         Answer::Pending => unreachable!(),
    ///     }
    /// });
    /// ```
    pub fn handle_with_export<'a, R, T, B, H, E>(
        &self,
        body: B,
        handler: H,
        exporter: E,
    ) -> (R, Vec<T>)
    where
        B: FnOnce() -> R,
        H: for<'r> FnMut(&'r S, Request<'r, 'a, T>) -> Reply<'r, 'a, T>,
        E: FnMut(&S) -> Option<Vec<u8>>,
        T: Send + 'a,
    {
        run(
            OnStateExport {
                on: OnState {
                    state: self,
                    handler,
                },
                exporter,
            },
            body,
        )
    }
}
