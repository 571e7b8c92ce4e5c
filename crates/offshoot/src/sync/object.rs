//! [`Object`]: a [`Shared`] state with named operations that can be replaced at run time
//! (OPA's `setmethod(m1, m2)` with the special targets `suspends` and `initial`, Umatani's
//! thesis §3.2).
//!
//! The user declares each operation once ([`ObjectBuilder::op`]) and gives it a body: a
//! *read* operation runs on a snapshot of the state and never waits for a writer; a *write*
//! operation runs on a private copy ([`Call`]) and commits it at its end or at
//! [`Call::flush`], as [`Shared::write`] does; an *exclusive* operation (OPA's
//! `synchronized` method) runs under the same writer lock on the current state itself
//! ([`Exclusive`]), changing it through interior mutability, with no copy and no commit. A call of an operation first looks the
//! operation up in the object's table, which says, per operation, one of: its own body
//! (`initial`), another operation's body (re-pointed), or *suspended*: the caller waits,
//! before anything of the operation starts, until some write restores the operation.
//!
//! Invariants ("a write" includes an exclusive operation: it holds the writer lock too, and
//! its table changes take effect when it returns, as a write's at its commit):
//! * `route[k]` is the table's entry for operation `k`: `k` itself (initial), another index
//!   (re-pointed: the call runs that operation's own body, whatever that operation is routed
//!   to), or `SUSPENDED`. The word holds the target's index and, in its low two bits, the
//!   target's kind (`Route`; `SUSPENDED` has both bits set), so a call dispatches on the one
//!   word it loads without reading the target's entry. It changes only under the state's
//!   writer lock, and a write's replacements take effect at its commit (or flush), after
//!   the new version is published: a write that panics before its commit replaces nothing,
//!   and a caller that sees an operation restored sees the state the restoring write
//!   published.
//! * A call of a read operation that is open (not suspended) is one acquire load of its
//!   route and the body on the current state: no lock, no task identity, no wait list. Every
//!   other call looks up its identity once and takes the writer lock with one CAS when
//!   uncontended (a re-entrant write is recognised only when that CAS fails).
//! * Each operation has its own wait list in `queues[k]`. A caller queues itself on it only
//!   while `route[k]` is `SUSPENDED`: under the `queues` mutex it announces itself in
//!   `waiters[k]`, then loads the route, and queues if it is still suspended (a caller
//!   holds no writer lock while it waits: one that finds the route changed once it has the
//!   lock gives it up and looks again). A restore swaps the route, then loads
//!   `waiters[k]`, and only if it is not 0 takes the mutex and wakes one (a `SeqCst` fence
//!   between the write and the load on each side): one of the two loads sees the
//!   other side's write, so either the caller finds the operation restored or the restore
//!   finds the caller, who holds the mutex until it has queued; no restore is missed, and a
//!   restore that nobody waits for takes no lock. `waiters[k]` counts a caller from its
//!   announcement to the end of its wait, so it is never 0 while a caller waits on `k`.
//! * Without a write operation (only read and exclusive ones) an object never commits: its
//!   first version is its only one, held in `fixed`, and reads and exclusive operations use
//!   it directly instead of `arc-swap`'s protected load (exclusive operations change the
//!   state in place, through its interior mutability). That version's span stamp is the
//!   build's, which every caller comes after, so they do not absorb it.
//! * Work and span (`metrics/`): a version carries the span of the write that committed it
//!   (`Shared`); an exclusive operation, which changes the state in place, raises the
//!   object's `ends` stamp to its span when its body returns, *before* its table changes
//!   take effect, and every call absorbs `ends` before its body runs: a call comes after
//!   every exclusive operation whose changes it can see (for an I-store's `get`, the `put`
//!   that restored it), as a read comes after the commit it saw. A table change made from
//!   outside any operation (`Object::restore`, …) raises `ends` too.
//! * Restoring a suspended operation wakes **one** of its waiters; a waiter that was woken
//!   and gets through (finds the operation still open: for a write, at its commit) wakes the
//!   next. So while an operation is open and callers wait for it, one of them is woken and
//!   has not yet looked, and a waiter is never woken by another operation's restore: waking
//!   consumers never wakes producers.
//! * A write operation of an object cannot call a write operation of the same object (it
//!   would wait for itself: a panic, as in `Shared::write`), nor a suspended operation of it
//!   (only a write of the object could restore it, and this one is still running: a panic).

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

use crate::atomics::{fence, AtomicUsize, Ordering};

use super::op_body::{Body, ExclusiveCall, ReadCall, WriteCall};
use super::shared::{Draft, Shared, Snapshot, WriterLock};
use super::{holder_id, WaitList, WaitOn, Woken};
use crate::metrics::Stamp;

/// The route of a suspended operation: every bit set, so its kind bits are 3, no kind's.
const SUSPENDED: usize = usize::MAX;

/// A route word (module invariants): the target operation's index shifted left by
/// `KIND_BITS`, with the target's kind below it; or `SUSPENDED`.
struct Route;

const KIND_BITS: u32 = 2;
const READ_BITS: usize = 0;
const WRITE_BITS: usize = 1;
const EXCLUSIVE_BITS: usize = 2;
/// Operations an object can have: every index has a route word below `SUSPENDED`.
const MAX_OPERATIONS: usize = SUSPENDED >> KIND_BITS;

impl Route {
    /// The word of a route to operation `to` (below `MAX_OPERATIONS`, which `build`
    /// checks), of kind `kind`.
    #[inline(always)]
    fn to(to: usize, kind: Kind) -> usize {
        debug_assert!(to < MAX_OPERATIONS);
        let bits = match kind {
            Kind::Read => READ_BITS,
            Kind::Write => WRITE_BITS,
            Kind::Exclusive => EXCLUSIVE_BITS,
        };
        (to << KIND_BITS) | bits
    }

    /// The target operation's index of a word that is not `SUSPENDED`.
    #[inline(always)]
    fn target(word: usize) -> usize {
        word >> KIND_BITS
    }

    /// The kind bits of a word (3, no kind's, for `SUSPENDED`).
    #[inline(always)]
    fn bits(word: usize) -> usize {
        word & ((1 << KIND_BITS) - 1)
    }
}

/// A body found with another signature than its handle's: cannot happen, as `replace`
/// takes two handles of one signature and handles are checked against their object.
pub(super) const RESIGNED: &str =
    "offshoot::sync::Object: an operation re-pointed to another signature";

/// A handle naming one operation of one [`Object`]: it takes an `A` and returns an `R`.
/// Made by [`ObjectBuilder::op`]; cheap to copy. Only operations of the same signature can
/// be re-pointed to each other ([`Call::replace`]), and a handle is refused by any object
/// but its own.
///
/// ```
/// use offshoot::sync::{Object, Op};
/// let mut b = Object::builder(0u32);
/// let get: Op<(), u32> = b.op("get");
/// b.read(get, |s, ()| *s);
/// assert_eq!(b.build().call(get, ()), 0);
/// ```
pub struct Op<A, R> {
    object: usize,
    index: usize,
    _signature: PhantomData<fn(A) -> R>,
}

impl<A, R> Clone for Op<A, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A, R> Copy for Op<A, R> {}

impl<A, R> fmt::Debug for Op<A, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Op")
            .field("object", &self.object)
            .field("index", &self.index)
            .finish()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Read,
    Write,
    Exclusive,
}

/// One operation of the table.
struct Operation {
    name: &'static str,
    kind: Kind,
    /// A read, write or exclusive body, as `kind` says, of the signature of the
    /// operation's handle.
    body: Body,
    /// Module invariants: a route word to its own index, to another's, or `SUSPENDED`.
    route: AtomicUsize,
    /// Callers between announcing a wait for this operation and the end of that wait
    /// (module invariants): a restore takes the `queues` mutex only if it is not 0.
    waiters: AtomicUsize,
    /// Callers woken from this operation's wait list (a statistic).
    woken: AtomicU64,
}

/// Declares the operations of an [`Object`]: first their names and signatures
/// ([`op`](ObjectBuilder::op)), then their bodies ([`read`](ObjectBuilder::read),
/// [`write`](ObjectBuilder::write)), so that a body may name any operation, also one
/// declared after it.
///
/// ```
/// use offshoot::sync::Object;
/// let mut b = Object::builder(Vec::<u32>::new()).named("log");
/// let push = b.op::<u32, ()>("push");
/// let len = b.op::<(), usize>("len");
/// b.write(push, |log, x| log.push(x));
/// b.read(len, |log, ()| log.len());
/// let log = b.build();
/// log.call(push, 7);
/// assert_eq!(log.call(len, ()), 1);
/// ```
pub struct ObjectBuilder<T> {
    value: T,
    name: Option<&'static str>,
    id: usize,
    names: Vec<&'static str>,
    bodies: Vec<Option<(Kind, Body)>>,
    suspended: Vec<usize>,
}

impl<T> fmt::Debug for ObjectBuilder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectBuilder")
            .field("name", &self.name)
            .field("operations", &self.names)
            .finish_non_exhaustive()
    }
}

impl<T: Clone + Send + Sync + 'static> ObjectBuilder<T> {
    /// The object's name in deadlock reports and panics (`Object::call "name"`).
    ///
    /// ```
    /// let b = offshoot::sync::Object::builder(0u8).named("counter");
    /// # drop(b);
    /// ```
    pub fn named(mut self, name: &'static str) -> Self {
        self.name = Some(name);
        self
    }

    /// Declares an operation called `name`, which takes an `A` and returns an `R`; give it
    /// its body with [`read`](Self::read) or [`write`](Self::write) before
    /// [`build`](Self::build).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(1i64);
    /// let neg = b.op::<(), i64>("neg");
    /// b.read(neg, |v, ()| -v);
    /// assert_eq!(b.build().call(neg, ()), -1);
    /// ```
    pub fn op<A: 'static, R: 'static>(&mut self, name: &'static str) -> Op<A, R> {
        self.names.push(name);
        self.bodies.push(None);
        Op {
            object: self.id,
            index: self.names.len() - 1,
            _signature: PhantomData,
        }
    }

    /// Makes `op` a read operation (OPA's `instant readonly` method): `body` runs on the
    /// state as it is when the call starts, without waiting for writers.
    ///
    /// # Panics
    /// If `op` is another builder's, or has a body already.
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder([1, 2, 3]);
    /// let sum = b.op::<(), i32>("sum");
    /// b.read(sum, |v, ()| v.iter().sum());
    /// assert_eq!(b.build().call(sum, ()), 6);
    /// ```
    pub fn read<A: 'static, R: 'static>(
        &mut self,
        op: Op<A, R>,
        body: impl Fn(&T, A) -> R + Send + Sync + 'static,
    ) -> &mut Self {
        self.define(op, Kind::Read, Body::read(body))
    }

    /// Makes `op` a write operation (OPA's `instant` method): `body` runs on a private copy
    /// of the latest state and commits it when it returns (or at [`Call::flush`]); writers
    /// exclude each other by parking. Inside, [`Call::suspend`], [`Call::restore`] and
    /// [`Call::replace`] change the table, with effect at the commit.
    ///
    /// # Panics
    /// If `op` is another builder's, or has a body already.
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(0u32);
    /// let add = b.op::<u32, u32>("add");
    /// b.write(add, |v, x| { **v += x; **v });
    /// let o = b.build();
    /// offshoot::par_for(0..10, |_| { o.call(add, 1); });
    /// assert_eq!(o.call(add, 0), 10);
    /// ```
    pub fn write<A: 'static, R: 'static>(
        &mut self,
        op: Op<A, R>,
        body: impl Fn(&mut Call<'_, T>, A) -> R + Send + Sync + 'static,
    ) -> &mut Self {
        self.define(op, Kind::Write, Body::write(body))
    }

    /// Makes `op` an exclusive operation (OPA's `synchronized` method): `body` runs under
    /// the writer lock, like a write, but on the current state itself (`&T`), with no
    /// private copy and no commit — for state that changes in place through interior
    /// mutability (a queue behind a mutex, a `OnceLock`), which a write would copy at every
    /// call. Its table changes ([`Exclusive::suspend`], …) take effect when it returns; if
    /// it panics, none does, but what it changed in place stays.
    ///
    /// # Panics
    /// If `op` is another builder's, or has a body already.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use std::sync::Arc;
    /// let mut b = offshoot::sync::Object::builder(Arc::new(AtomicU32::new(0)));
    /// let tick = b.op::<(), u32>("tick");
    /// b.exclusive(tick, |c, ()| c.fetch_add(1, Ordering::Relaxed) + 1);
    /// let o = b.build();
    /// offshoot::par_for(0..10, |_| { o.call(tick, ()); });
    /// assert_eq!(o.call(tick, ()), 11);
    /// ```
    pub fn exclusive<A: 'static, R: 'static>(
        &mut self,
        op: Op<A, R>,
        body: impl Fn(&mut Exclusive<'_, T>, A) -> R + Send + Sync + 'static,
    ) -> &mut Self {
        self.define(op, Kind::Exclusive, Body::exclusive(body))
    }

    /// Starts the object with `op` suspended (OPA's `setmethod(op, suspends)` in a
    /// constructor): its callers wait until a write restores it.
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(None::<u32>);
    /// let get = b.op::<(), u32>("get");
    /// let put = b.op::<u32, ()>("put");
    /// b.read(get, |v, ()| v.unwrap());
    /// b.write(put, move |v, x| { **v = Some(x); v.restore(get); });
    /// b.suspended(get);
    /// let cell = b.build();
    /// let got = offshoot::scope(|s| {
    ///     s.spawn(|_| cell.call(put, 5));
    ///     cell.call(get, ()) // waits, if it comes first, until `put` restores `get`
    /// });
    /// assert_eq!(got, 5);
    /// ```
    pub fn suspended<A, R>(&mut self, op: Op<A, R>) -> &mut Self {
        assert_eq!(
            op.object, self.id,
            "offshoot::sync::Object: another object's operation"
        );
        self.suspended.push(op.index);
        self
    }

    fn define<A, R>(&mut self, op: Op<A, R>, kind: Kind, body: Body) -> &mut Self {
        assert_eq!(
            op.object, self.id,
            "offshoot::sync::Object: another object's operation"
        );
        let slot = &mut self.bodies[op.index];
        assert!(
            slot.is_none(),
            "offshoot::sync::Object: operation {:?} has a body already",
            self.names[op.index]
        );
        *slot = Some((kind, body));
        self
    }

    /// The object.
    ///
    /// # Panics
    /// If an operation was declared without a body (or more than `usize::MAX / 4` were
    /// declared).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(());
    /// let nop = b.op::<(), ()>("nop");
    /// b.read(nop, |_, ()| ());
    /// b.build().call(nop, ());
    /// ```
    pub fn build(self) -> Object<T> {
        assert!(
            self.names.len() <= MAX_OPERATIONS,
            "offshoot::sync::Object: more than {MAX_OPERATIONS} operations"
        );
        let ops: Box<[Operation]> = self
            .names
            .iter()
            .zip(self.bodies)
            .enumerate()
            .map(|(k, (&name, body))| {
                let (kind, body) = body.unwrap_or_else(|| {
                    panic!(
                        "offshoot::sync::Object: operation {name:?} was declared but given no body"
                    )
                });
                let route = if self.suspended.contains(&k) {
                    SUSPENDED
                } else {
                    Route::to(k, kind)
                };
                Operation {
                    name,
                    kind,
                    body,
                    route: AtomicUsize::new(route),
                    waiters: AtomicUsize::new(0),
                    woken: AtomicU64::new(0),
                }
            })
            .collect();
        let queues = (0..ops.len()).map(|_| WaitList::new()).collect();
        let state = match self.name {
            Some(n) => Shared::named(n, self.value),
            None => Shared::new(self.value),
        };
        // Without a write operation nothing ever commits: the first version is the only one.
        let fixed = ops
            .iter()
            .all(|o| o.kind != Kind::Write)
            .then(|| state.snapshot());
        Object {
            state,
            id: self.id,
            ops,
            queues: crate::atomics::Mutex::new(queues),
            fixed,
            ends: Stamp::new(),
        }
    }
}

/// A shared object whose operations are named entries of a table that can be changed at run
/// time: OPA's objects with instant methods and dynamic method replacement.
///
/// Its state is a [`Shared`]: read operations take a snapshot and never wait; write
/// operations work on a private copy and commit at their end. The table maps each
/// operation to its own body (initially), to another operation's body
/// ([`replace`](Call::replace): e.g. a read-write operation becomes a read-only one once the
/// object stops changing), or to *suspended* ([`suspend`](Call::suspend)): callers park
/// before the operation starts, on that operation's own queue, until a write
/// [`restore`](Call::restore)s it. Outside a pool, a waiting caller blocks its thread.
///
/// The I-store, the FIFO and the barrier of [`opa`](crate::sync::opa) are built on it.
///
/// ```
/// use offshoot::sync::Object;
/// // A counter that can be frozen: `add` becomes a no-op, readers never wait.
/// let mut b = Object::builder(0u64).named("counter");
/// let add = b.op::<u64, u64>("add");
/// let ignore = b.op::<u64, u64>("ignore");
/// let freeze = b.op::<(), ()>("freeze");
/// b.write(add, |v, x| { **v += x; **v });
/// b.read(ignore, |v, _| *v);
/// b.write(freeze, move |v, ()| v.replace(add, ignore));
/// let c = b.build();
/// offshoot::par_for(0..100, |_| { c.call(add, 1); });
/// c.call(freeze, ());
/// assert_eq!(c.call(add, 5), 100); // runs `ignore`: a read, no lock
/// assert_eq!(*c.snapshot(), 100);
/// ```
pub struct Object<T> {
    state: Shared<T>,
    /// The builder's id, which the handles carry.
    id: usize,
    ops: Box<[Operation]>,
    /// One wait list per operation (module invariants).
    queues: crate::atomics::Mutex<Box<[WaitList]>>,
    /// The state's one version, held here, if the object has no write operation (module
    /// invariants): read and exclusive operations use it without `arc-swap`'s load.
    fixed: Option<Snapshot<T>>,
    /// The span at which the latest exclusive operation (or table change from outside any
    /// operation) ended: absorbed by every call (module invariants).
    ends: Stamp,
}

impl<T: Clone + Send + Sync + 'static> Object<T> {
    /// A builder for an object whose state starts as `value`.
    ///
    /// ```
    /// let b = offshoot::sync::Object::builder(String::new());
    /// # drop(b);
    /// ```
    pub fn builder(value: T) -> ObjectBuilder<T> {
        static IDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        ObjectBuilder {
            value,
            name: None,
            // Relaxed: a unique number, ordered with nothing.
            id: IDS.fetch_add(1, Ordering::Relaxed),
            names: Vec::new(),
            bodies: Vec::new(),
            suspended: Vec::new(),
        }
    }

    /// Calls operation `op` with `arg`: looks it up in the table, waits while it is
    /// suspended (parking the task, on `op`'s own queue), and runs the body it is routed
    /// to: its own, or the one [`Call::replace`] pointed it at.
    ///
    /// # Panics
    /// If `op` is another object's; if the caller is inside a write operation of this
    /// object and `op` runs as a write (it would wait for itself) or is suspended (only a
    /// write of this object could restore it); and whatever the body panics with (a write
    /// that panics before its commit changes nothing, its replacements included).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(2u32);
    /// let double = b.op::<(), u32>("double");
    /// b.write(double, |v, ()| { **v *= 2; **v });
    /// let o = b.build();
    /// assert_eq!(o.call(double, ()), 4);
    /// ```
    #[track_caller]
    #[inline(always)]
    pub fn call<A: 'static, R: 'static>(&self, op: Op<A, R>, arg: A) -> R {
        let k = self.index(op);
        // Acquire: pairs with the swap of `set_routes`, so a caller that finds the operation
        // restored (or re-pointed) reads the version the write that did it published.
        let to = self.ops[k].route.load(Ordering::Acquire);
        match Route::bits(to) {
            // An open read: no lock, no task identity, no wait list.
            READ_BITS => self.run_read::<A, R>(Route::target(to), arg),
            EXCLUSIVE_BITS => self.call_exclusive(holder_id(), k, to, arg, Location::caller()),
            _ => self.call_as(holder_id(), k, to, arg, Location::caller()),
        }
    }

    /// [`Object::call`] of operation `k`, found routed (route word `to`) to an exclusive
    /// operation: runs it if the writer lock is free and `k` still routed there once it is
    /// taken, else goes the general way ([`call_as`](Self::call_as)).
    #[inline(never)]
    fn call_exclusive<A: 'static, R: 'static>(
        &self,
        me: u64,
        k: usize,
        to: usize,
        arg: A,
        at: &'static Location<'static>,
    ) -> R {
        if let Some(held) = self.state.try_lock_writer(me) {
            // Relaxed: as in `call_as`.
            if self.ops[k].route.load(Ordering::Relaxed) == to {
                let r = self.run_exclusive::<A, R>(Route::target(to), arg);
                drop(held);
                return r;
            }
        }
        self.call_as(me, k, to, arg, at)
    }

    /// Runs exclusive operation `to`'s body and then its table changes; the caller holds the
    /// writer lock.
    #[inline(always)]
    fn run_exclusive<A: 'static, R: 'static>(&self, to: usize, arg: A) -> R {
        let body = self.ops[to].body.entry::<ExclusiveCall<T, A, R>>();
        crate::metrics::absorb(&self.ends);
        // Not through `with_state`'s closure: the body's call is inlined on each path.
        match &self.fixed {
            Some(v) => self.exclusive_on(v, body, arg),
            None => self.state.read(|v| self.exclusive_on(v, body, arg)),
        }
    }

    /// [`run_exclusive`](Self::run_exclusive) on the state `value`, with the entry of the
    /// body (`Body::entry`).
    #[inline(always)]
    fn exclusive_on<A, R>(
        &self,
        value: &T,
        (body, data): (ExclusiveCall<T, A, R>, NonNull<()>),
        arg: A,
    ) -> R {
        let mut ex = Exclusive {
            value,
            object: self,
            pending: Changes::default(),
        };
        // SAFETY: the entry of this operation's body, which its table keeps alive.
        let r = unsafe { body(data, &mut ex, arg) };
        // Before the routes: a caller that finds an operation restored by this one reads the
        // raised stamp (the routes' release swap orders it).
        crate::metrics::raise(&self.ends);
        self.set_routes(&ex.pending);
        r
    }

    /// Runs write operation `to`'s body on a private copy, commits it and then its table
    /// changes; the caller holds the writer lock (`held`).
    #[inline(never)]
    fn run_write<A: 'static, R: 'static>(&self, to: usize, arg: A, held: &WriterLock<'_>) -> R {
        let (body, data) = self.ops[to].body.entry::<WriteCall<T, A, R>>();
        crate::metrics::absorb(&self.ends);
        let mut call = Call {
            draft: self.state.draft(held),
            object: self,
            pending: Changes::default(),
        };
        // SAFETY: the entry of this operation's body, which its table keeps alive.
        let r = unsafe { body(data, &mut call, arg) };
        let Call { draft, pending, .. } = call;
        self.state.commit(draft);
        self.set_routes(&pending);
        r
    }

    // Not inlined: it keeps `call` (the open read) small enough to inline at its callers.

    /// [`Object::call`] of operation `k`, first found with route word `to`, by the task (or
    /// thread) whose identity is `me` (the loom models give their threads theirs): waits
    /// while `k` is suspended, takes the writer lock for a write or an exclusive operation.
    #[inline(never)]
    fn call_as<A: 'static, R: 'static>(
        &self,
        me: u64,
        k: usize,
        mut to: usize,
        arg: A,
        at: &'static Location<'static>,
    ) -> R {
        let mut woken = false;
        loop {
            if to == SUSPENDED {
                self.wait_restored(me, k, at);
                woken = true;
                // Acquire: as in `call`.
                to = self.ops[k].route.load(Ordering::Acquire);
                continue;
            }
            if Route::bits(to) == READ_BITS {
                if woken {
                    self.pass_on(k);
                }
                return self.run_read::<A, R>(Route::target(to), arg);
            }
            let held = self
                .state
                .lock_writer(me, || self.wait_on().at(at))
                .unwrap_or_else(|| {
                    panic!(
                        "offshoot::sync::Object::call: write operation {:?} of {} was called by \
                         a write operation of the same object (at {at}); it would wait for \
                         itself",
                        self.ops[Route::target(to)].name,
                        self.label()
                    )
                });
            // Relaxed: routes change only under the writer lock, which this task holds (the
            // acquire of taking it orders this load after every change).
            let now = self.ops[k].route.load(Ordering::Relaxed);
            if now != to {
                // Changed while this caller waited for the lock: look again without it.
                drop(held);
                to = now;
                continue;
            }
            let r = if Route::bits(to) == EXCLUSIVE_BITS {
                self.run_exclusive::<A, R>(Route::target(to), arg)
            } else {
                debug_assert_eq!(Route::bits(to), WRITE_BITS);
                self.run_write::<A, R>(Route::target(to), arg, &held)
            };
            if woken {
                self.pass_on(k);
            }
            drop(held);
            return r;
        }
    }

    /// The state as it is now, kept for as long as the handle lives.
    ///
    /// ```
    /// let o = offshoot::sync::Object::builder(vec![1]).build();
    /// assert_eq!(*o.snapshot(), [1]);
    /// ```
    pub fn snapshot(&self) -> Snapshot<T> {
        self.state.snapshot()
    }

    /// Suspends `op` now, from outside any operation: later callers wait until a write
    /// restores it. Takes the writer lock (waiting for a write in progress).
    ///
    /// # Panics
    /// Inside a write operation of this object (use [`Call::suspend`] there).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(0);
    /// let get = b.op::<(), i32>("get");
    /// b.read(get, |v, ()| *v);
    /// let o = b.build();
    /// o.suspend(get);
    /// o.restore(get);
    /// assert_eq!(o.call(get, ()), 0);
    /// ```
    #[track_caller]
    pub fn suspend<A, R>(&self, op: Op<A, R>) {
        let k = self.index(op);
        self.set_now(holder_id(), k, SUSPENDED, Location::caller());
    }

    /// Restores `op` to its own body now (OPA's `setmethod(op, initial)`), from outside any
    /// operation, and wakes one of its waiters (who wakes the next once through).
    ///
    /// # Panics
    /// Inside a write operation of this object (use [`Call::restore`] there).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(1);
    /// let get = b.op::<(), i32>("get");
    /// b.read(get, |v, ()| *v).suspended(get);
    /// let o = b.build();
    /// o.restore(get);
    /// assert_eq!(o.call(get, ()), 1);
    /// ```
    #[track_caller]
    pub fn restore<A, R>(&self, op: Op<A, R>) {
        let k = self.index(op);
        self.set_now(holder_id(), k, k, Location::caller());
    }

    /// Re-points `op` at `with`'s own body now (OPA's `setmethod(op, with)`), from outside
    /// any operation.
    ///
    /// # Panics
    /// Inside a write operation of this object (use [`Call::replace`] there).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(3);
    /// let (a, b2) = (b.op::<(), i32>("a"), b.op::<(), i32>("b"));
    /// b.read(a, |v, ()| *v).read(b2, |v, ()| -v);
    /// let o = b.build();
    /// o.replace(a, b2);
    /// assert_eq!(o.call(a, ()), -3);
    /// ```
    #[track_caller]
    pub fn replace<A, R>(&self, op: Op<A, R>, with: Op<A, R>) {
        let (k, to) = (self.index(op), self.index(with));
        self.set_now(holder_id(), k, to, Location::caller());
    }

    /// How many callers of `op` have been woken from its wait list so far (a statistic: one
    /// per waiter per restore that reached it).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(());
    /// let go = b.op::<(), ()>("go");
    /// b.read(go, |_, ()| ());
    /// assert_eq!(b.build().woken(go), 0);
    /// ```
    pub fn woken<A, R>(&self, op: Op<A, R>) -> u64 {
        // Relaxed: a statistic.
        self.ops[self.index(op)].woken.load(Ordering::Relaxed)
    }

    /// How many callers wait for `op` to be restored now.
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(());
    /// let go = b.op::<(), ()>("go");
    /// b.read(go, |_, ()| ());
    /// assert_eq!(b.build().waiting(go), 0);
    /// ```
    pub fn waiting<A, R>(&self, op: Op<A, R>) -> usize {
        self.lock_queues()[self.index(op)].len()
    }

    fn index<A, R>(&self, op: Op<A, R>) -> usize {
        assert_eq!(
            op.object,
            self.id,
            "offshoot::sync::Object: an operation handle of another object was used on {}",
            self.label()
        );
        op.index
    }

    #[inline(always)]
    fn run_read<A: 'static, R: 'static>(&self, to: usize, arg: A) -> R {
        let (body, data) = self.ops[to].body.entry::<ReadCall<T, A, R>>();
        // SAFETY: the entry of this operation's body, which its table keeps alive.
        self.with_state(|v| unsafe { body(data, v, arg) })
    }

    /// Runs `f` on the current state: the one version of an object without write
    /// operations, else the one `Shared::read` loads.
    /// Either way the call comes after the latest exclusive operation (`ends`).
    #[inline(always)]
    fn with_state<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        crate::metrics::absorb(&self.ends);
        match &self.fixed {
            Some(v) => f(v),
            None => self.state.read(f),
        }
    }

    /// Locks the wait lists, ignoring poisoning as `sync::lock` does (no critical section on
    /// them runs user code); that helper takes a std mutex, this one loom's under loom.
    fn lock_queues(&self) -> impl DerefMut<Target = Box<[WaitList]>> + '_ {
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Parks task `me` on operation `k`'s queue until a restore wakes it, unless `k` was
    /// restored meanwhile.
    #[cold]
    #[inline(never)]
    fn wait_restored(&self, me: u64, k: usize, at: &'static Location<'static>) {
        if self.state.is_writer(me) {
            panic!(
                "offshoot::sync::Object::call: operation {:?} of {} is suspended and was called \
                 by a write operation of the same object (at {at}); only a write of the object \
                 could restore it",
                self.ops[k].name,
                self.label()
            );
        }
        let op = &self.ops[k];
        let w = {
            let mut q = self.lock_queues();
            // SeqCst fence between this add and the route's load: with the one between the
            // swap and the `waiters` load of `apply_routes` they make a store-fence-load pair
            // on each side, so one of the two loads sees the other side's write: this caller
            // finds the operation restored, or the restore finds this caller announced and
            // takes the mutex, which this caller holds until it has queued (module
            // invariants). (Fences, not only SeqCst accesses: loom checks the pattern only
            // with fences.)
            op.waiters.fetch_add(1, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            if op.route.load(Ordering::SeqCst) != SUSPENDED {
                // Relaxed: an extra count only costs a restore one look at the wait list.
                op.waiters.fetch_sub(1, Ordering::Relaxed);
                return;
            }
            q[k].enqueue()
        };
        let woke = w.park(self.wait_on().for_operation(op.name).at(at));
        if let Woken::Normal = woke {
            // Relaxed: as above; `woken` is a statistic.
            op.waiters.fetch_sub(1, Ordering::Relaxed);
            op.woken.fetch_add(1, Ordering::Relaxed);
        } else {
            self.lock_queues()[k].remove(&w);
            // Relaxed: as above.
            op.waiters.fetch_sub(1, Ordering::Relaxed);
            woke.raise()
        }
    }

    /// A woken caller got through operation `k`: wakes the next waiter if `k` is still open.
    #[cold]
    #[inline(never)]
    fn pass_on(&self, k: usize) {
        let op = &self.ops[k];
        // SeqCst: as in `set_routes`. A waiter still parked on `k` announced itself under the
        // mutex before the restore that woke this caller took it, so this load counts it.
        if op.waiters.load(Ordering::SeqCst) == 0 {
            return;
        }
        let mut q = self.lock_queues();
        // Relaxed: a suspension this load misses only makes the woken caller find the
        // operation suspended and queue itself again.
        if op.route.load(Ordering::Relaxed) != SUSPENDED {
            q[k].wake_one();
        }
    }

    /// Applies the table changes `routes`, in order; the caller holds the writer lock and
    /// has published the state they go with.
    #[inline]
    fn set_routes(&self, routes: &Changes) {
        if routes.n != 0 {
            self.apply_routes(routes.as_slice());
        }
    }

    /// [`set_routes`](Self::set_routes) of a non-empty list: (operation, new route) pairs.
    #[inline(never)]
    fn apply_routes(&self, routes: &[(usize, usize)]) {
        for &(k, to) in routes {
            let op = &self.ops[k];
            let to = if to == SUSPENDED {
                SUSPENDED
            } else {
                Route::to(to, self.ops[to].kind)
            };
            // SeqCst: a release that pairs with the acquire loads in `call`, so a caller that
            // sees the new route sees the version published before it; and the first half of
            // the store-then-load pair with `wait_restored` (there).
            let was = op.route.swap(to, Ordering::SeqCst);
            if was == SUSPENDED && to != SUSPENDED {
                // SeqCst fence: the second half of the pair with `wait_restored` (there).
                fence(Ordering::SeqCst);
                if op.waiters.load(Ordering::SeqCst) != 0 {
                    // A caller that found the operation suspended under the mutex has
                    // queued itself, and is woken here.
                    self.lock_queues()[k].wake_one();
                }
            }
        }
    }

    fn set_now(&self, me: u64, k: usize, to: usize, at: &'static Location<'static>) {
        let _held = self
            .state
            .lock_writer(me, || self.wait_on().at(at))
            .unwrap_or_else(|| {
                panic!(
                    "offshoot::sync::Object: the table of {} was changed directly inside a \
                     write operation of it (at {at}); use the Call's suspend, restore or replace",
                    self.label()
                )
            });
        crate::metrics::raise(&self.ends);
        self.apply_routes(&[(k, to)]);
    }

    fn wait_on(&self) -> WaitOn {
        WaitOn::new("Object::call", self).named(self.state.name())
    }

    fn label(&self) -> String {
        match self.state.name() {
            Some(n) => format!("object {n:?}"),
            None => format!("object {:p}", self),
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Object<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let routes: Vec<String> = self
            .ops
            .iter()
            .map(|o| {
                // Relaxed: a look for a person, ordered with nothing.
                match o.route.load(Ordering::Relaxed) {
                    SUSPENDED => format!("{}: suspended", o.name),
                    to => format!("{} -> {}", o.name, self.ops[Route::target(to)].name),
                }
            })
            .collect();
        f.debug_struct("Object")
            .field("state", &self.state)
            .field("operations", &routes)
            .finish()
    }
}

/// What an exclusive operation of an [`Object`] works on: the current state itself
/// (dereferences to `&T`; change it through its interior mutability), and the table changes
/// it makes, which take effect when it returns.
pub struct Exclusive<'a, T> {
    value: &'a T,
    object: &'a Object<T>,
    pending: Changes,
}

impl<T: Clone + Send + Sync + 'static> Exclusive<'_, T> {
    /// Suspends `op` from this operation's end on (see [`Call::suspend`]).
    ///
    /// ```
    /// use std::sync::Mutex;
    /// let mut b = offshoot::sync::Object::builder(std::sync::Arc::new(Mutex::new(0)));
    /// let (get, close) = (b.op::<(), i32>("get"), b.op::<(), ()>("close"));
    /// b.read(get, |v, ()| *v.lock().unwrap()).exclusive(close, move |c, ()| c.suspend(get));
    /// b.build().call(close, ());
    /// ```
    pub fn suspend<A, R>(&mut self, op: Op<A, R>) {
        let k = self.object.index(op);
        self.pending.push((k, SUSPENDED));
    }

    /// Restores `op` to its own body from this operation's end on (see
    /// [`Call::restore`]).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(());
    /// let (get, open) = (b.op::<(), ()>("get"), b.op::<(), ()>("open"));
    /// b.read(get, |_, ()| ()).exclusive(open, move |c, ()| c.restore(get)).suspended(get);
    /// let o = b.build();
    /// o.call(open, ());
    /// o.call(get, ());
    /// ```
    pub fn restore<A, R>(&mut self, op: Op<A, R>) {
        let k = self.object.index(op);
        self.pending.push((k, k));
    }

    /// Re-points `op` at `with`'s own body from this operation's end on (see
    /// [`Call::replace`]).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(());
    /// let (a, z, swap) = (b.op::<(), u8>("a"), b.op::<(), u8>("z"), b.op::<(), ()>("swap"));
    /// b.read(a, |_, ()| 1).read(z, |_, ()| 0).exclusive(swap, move |c, ()| c.replace(a, z));
    /// let o = b.build();
    /// o.call(swap, ());
    /// assert_eq!(o.call(a, ()), 0);
    /// ```
    pub fn replace<A, R>(&mut self, op: Op<A, R>, with: Op<A, R>) {
        let (k, to) = (self.object.index(op), self.object.index(with));
        self.pending.push((k, to));
    }
}

impl<T> Deref for Exclusive<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Exclusive<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Exclusive")
            .field("value", self.value)
            .field("table changes", &self.pending.as_slice().len())
            .finish()
    }
}

/// The table changes a write has made, (operation, new route) in order: two without an
/// allocation (what OPA's classes make), more in a vector. `n` is 0 only while there are
/// none.
#[derive(Default)]
struct Changes {
    inline: [(usize, usize); 2],
    n: usize,
    more: Vec<(usize, usize)>,
}

impl Changes {
    fn push(&mut self, change: (usize, usize)) {
        if self.n < self.inline.len() {
            self.inline[self.n] = change;
            self.n += 1;
        } else {
            if self.more.is_empty() {
                self.more.extend_from_slice(&self.inline);
            }
            self.more.push(change);
        }
    }

    fn as_slice(&self) -> &[(usize, usize)] {
        if self.more.is_empty() {
            &self.inline[..self.n]
        } else {
            &self.more
        }
    }
}

/// The private copy a write operation of an [`Object`] works on (a [`Draft`] of its state),
/// and the table changes it makes, which take effect at its commit (the end of the
/// operation, or [`flush`](Call::flush)).
pub struct Call<'a, T> {
    draft: Draft<'a, T>,
    object: &'a Object<T>,
    pending: Changes,
}

impl<T: Clone + Send + Sync + 'static> Call<'_, T> {
    /// Suspends `op` from this write's commit on (OPA's `setmethod(op, suspends)`).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(0u8);
    /// let (get, close) = (b.op::<(), u8>("get"), b.op::<(), ()>("close"));
    /// b.read(get, |v, ()| *v).write(close, move |c, ()| c.suspend(get));
    /// let o = b.build();
    /// o.call(close, ());
    /// assert_eq!(o.waiting(get), 0);
    /// ```
    pub fn suspend<A, R>(&mut self, op: Op<A, R>) {
        let k = self.object.index(op);
        self.pending.push((k, SUSPENDED));
    }

    /// Restores `op` to its own body from this write's commit on (OPA's `setmethod(op,
    /// initial)`); if it was suspended, one of its waiters is woken then.
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(0u8);
    /// let (get, open) = (b.op::<(), u8>("get"), b.op::<(), ()>("open"));
    /// b.read(get, |v, ()| *v).write(open, move |c, ()| c.restore(get)).suspended(get);
    /// let o = b.build();
    /// o.call(open, ());
    /// assert_eq!(o.call(get, ()), 0);
    /// ```
    pub fn restore<A, R>(&mut self, op: Op<A, R>) {
        let k = self.object.index(op);
        self.pending.push((k, k));
    }

    /// Re-points `op` at `with`'s own body from this write's commit on (OPA's
    /// `setmethod(op, with)`): a call of `op` then runs `with`'s body (as a read if `with` is
    /// a read operation).
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(1u8);
    /// let (get, zero, swap) = (b.op::<(), u8>("get"), b.op::<(), u8>("zero"), b.op::<(), ()>("swap"));
    /// b.read(get, |v, ()| *v).read(zero, |_, ()| 0);
    /// b.write(swap, move |c, ()| c.replace(get, zero));
    /// let o = b.build();
    /// o.call(swap, ());
    /// assert_eq!(o.call(get, ()), 0);
    /// ```
    pub fn replace<A, R>(&mut self, op: Op<A, R>, with: Op<A, R>) {
        let (k, to) = (self.object.index(op), self.object.index(with));
        self.pending.push((k, to));
    }

    /// Commits the state and the table changes made so far (OPA's `vflush`); they stay even
    /// if the operation panics later. The operation goes on on the same copy.
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(0u8);
    /// let step = b.op::<(), ()>("step");
    /// b.write(step, |c, ()| { **c = 1; c.flush(); **c = 2; panic!("after the flush") });
    /// let o = b.build();
    /// let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| o.call(step, ())));
    /// assert!(r.is_err());
    /// assert_eq!(*o.snapshot(), 1);
    /// ```
    pub fn flush(&mut self) {
        self.draft.flush();
        let pending = std::mem::take(&mut self.pending);
        self.object.set_routes(&pending);
    }
}

impl<T> Deref for Call<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.draft
    }
}

impl<T> DerefMut for Call<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.draft
    }
}

impl<T: fmt::Debug> fmt::Debug for Call<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("draft", &self.draft)
            .field("table changes", &self.pending.as_slice().len())
            .finish()
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Model checks of the wait handshake (module invariants): callers of a suspended read
    //! operation against the exclusive operation that restores it, which takes the wait
    //! lists' mutex only if it finds a caller announced. A lost wake-up leaves a caller
    //! parked for ever, which loom reports as a deadlock. Run with `scripts/loom.sh`. The
    //! threads are outside every pool and park as threads do; they are given identities
    //! (`call_as`, `set_now`), as loom runs them on one OS thread whose thread-local identity
    //! they would share.
    use super::{Object, Op};
    use loom::sync::Arc;
    use loom::thread;
    use std::panic::Location;

    struct Gate {
        object: Object<u64>,
        get: Op<(), u64>,
        open: Op<(), ()>,
    }

    /// A cell whose `get` starts suspended and is restored by `open`, an exclusive operation
    /// (the object has no write operation, so its state is the fixed one).
    fn gate() -> Arc<Gate> {
        let mut b = Object::builder(7u64);
        let get = b.op::<(), u64>("get");
        let open = b.op::<(), ()>("open");
        b.read(get, |v, ()| *v);
        b.exclusive(open, move |o, ()| o.restore(get));
        b.suspended(get);
        Arc::new(Gate {
            object: b.build(),
            get,
            open,
        })
    }

    fn get_as(g: &Gate, me: u64) -> u64 {
        let k = g.object.index(g.get);
        // Acquire: as in `Object::call`.
        let to = g.object.ops[k].route.load(super::Ordering::Acquire);
        g.object.call_as(me, k, to, (), Location::caller())
    }

    fn open_as(g: &Gate, me: u64) {
        let k = g.object.index(g.open);
        g.object.call_as(me, k, k, (), Location::caller())
    }

    /// A suspended read racing the restore: the reader either finds it restored or is woken.
    #[test]
    fn a_suspended_read_racing_its_restore_is_woken() {
        loom::model(|| {
            let g = gate();
            let r = {
                let g = g.clone();
                thread::spawn(move || get_as(&g, 2))
            };
            open_as(&g, 1);
            assert_eq!(r.join().unwrap(), 7);
            assert_eq!(g.object.ops[0].waiters.load(super::Ordering::SeqCst), 0);
        });
    }

    /// Two readers and a restore from outside any operation (`Object::restore`): the one
    /// woken passes the wake-up on to the other.
    #[test]
    fn two_suspended_readers_are_both_woken() {
        loom::model(|| {
            let g = gate();
            let readers: Vec<_> = (2..4)
                .map(|me| {
                    let g = g.clone();
                    thread::spawn(move || get_as(&g, me))
                })
                .collect();
            let k = g.object.index(g.get);
            g.object.set_now(1, k, k, Location::caller());
            for r in readers {
                assert_eq!(r.join().unwrap(), 7);
            }
        });
    }
}
