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
//!   to), or `SUSPENDED`. It changes only under the state's writer lock (a restore of a
//!   suspended operation also under the `queues` mutex), and a write's replacements take
//!   effect at its commit (or flush), after the new version is published: a write that
//!   panics before its commit replaces nothing, and a caller that sees an operation
//!   restored sees the state the restoring write published.
//! * Each operation has its own wait list in `queues[k]`. A caller queues itself on it only
//!   while `route[k]` is `SUSPENDED`, checked under the `queues` mutex (and, for a write, also
//!   under the writer lock, which it gives up only after queuing); so no restore is missed.
//!   A write that holds the writer lock releases it only after queuing, and a restore needs
//!   it, so the restore comes after the queuing.
//! * Restoring a suspended operation wakes **one** of its waiters; a waiter that was woken
//!   and gets through (finds the operation still open: for a write, at its commit) wakes the
//!   next. So while an operation is open and callers wait for it, one of them is woken and
//!   has not yet looked, and a waiter is never woken by another operation's restore: waking
//!   consumers never wakes producers.
//! * A write operation of an object cannot call a write operation of the same object (it
//!   would wait for itself: a panic, as in `Shared::write`), nor a suspended operation of it
//!   (only a write of the object could restore it, and this one is still running: a panic).

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::shared::{Draft, Shared, Snapshot, WriterLock};
use super::{lock, WaitList, WaitOn, Woken};

/// The route of a suspended operation.
const SUSPENDED: usize = usize::MAX;

/// A body found with another signature than its handle's: cannot happen, as `replace`
/// takes two handles of one signature and handles are checked against their object.
const RESIGNED: &str = "offshoot::sync::Object: an operation re-pointed to another signature";

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

/// A read operation's body.
type ReadBody<T, A, R> = Box<dyn Fn(&T, A) -> R + Send + Sync>;
/// A write operation's body.
type WriteBody<T, A, R> = Box<dyn Fn(&mut Call<'_, T>, A) -> R + Send + Sync>;
/// An exclusive operation's body.
type ExclusiveBody<T, A, R> = Box<dyn Fn(&mut Exclusive<'_, T>, A) -> R + Send + Sync>;

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
    /// A `ReadBody<T, A, R>` or a `WriteBody<T, A, R>`, as `kind` says.
    body: Box<dyn Any + Send + Sync>,
    /// Module invariants: its own index, another's, or `SUSPENDED`.
    route: AtomicUsize,
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
    bodies: Vec<Option<(Kind, Box<dyn Any + Send + Sync>)>>,
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
        let body: ReadBody<T, A, R> = Box::new(body);
        self.define(op, Kind::Read, Box::new(body))
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
        let body: WriteBody<T, A, R> = Box::new(body);
        self.define(op, Kind::Write, Box::new(body))
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
        let body: ExclusiveBody<T, A, R> = Box::new(body);
        self.define(op, Kind::Exclusive, Box::new(body))
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

    fn define<A, R>(
        &mut self,
        op: Op<A, R>,
        kind: Kind,
        body: Box<dyn Any + Send + Sync>,
    ) -> &mut Self {
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
    /// If an operation was declared without a body.
    ///
    /// ```
    /// let mut b = offshoot::sync::Object::builder(());
    /// let nop = b.op::<(), ()>("nop");
    /// b.read(nop, |_, ()| ());
    /// b.build().call(nop, ());
    /// ```
    pub fn build(self) -> Object<T> {
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
                    k
                };
                Operation {
                    name,
                    kind,
                    body,
                    route: AtomicUsize::new(route),
                    woken: AtomicU64::new(0),
                }
            })
            .collect();
        let queues = (0..ops.len()).map(|_| WaitList::new()).collect();
        let state = match self.name {
            Some(n) => Shared::named(n, self.value),
            None => Shared::new(self.value),
        };
        Object {
            state,
            id: self.id,
            ops,
            queues: std::sync::Mutex::new(queues),
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
    queues: std::sync::Mutex<Box<[WaitList]>>,
}

impl<T: Clone + Send + Sync + 'static> Object<T> {
    /// A builder for an object whose state starts as `value`.
    ///
    /// ```
    /// let b = offshoot::sync::Object::builder(String::new());
    /// # drop(b);
    /// ```
    pub fn builder(value: T) -> ObjectBuilder<T> {
        static IDS: AtomicUsize = AtomicUsize::new(0);
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
    pub fn call<A: 'static, R: 'static>(&self, op: Op<A, R>, arg: A) -> R {
        let at = Location::caller();
        let k = self.index(op);
        let mut woken = false;
        loop {
            // Acquire: pairs with the release store of `set_routes`, so a caller that finds
            // the operation restored reads the version the restoring write published.
            let to = self.ops[k].route.load(Ordering::Acquire);
            if to == SUSPENDED {
                self.wait_restored(k, None, at);
                woken = true;
                continue;
            }
            if self.ops[to].kind == Kind::Read {
                if woken {
                    self.pass_on(k);
                }
                return self.run_read::<A, R>(to, arg);
            }
            assert!(
                !self.state.holds_writer(),
                "offshoot::sync::Object::call: write operation {:?} of {} was called by a \
                 write operation of the same object (at {at}); it would wait for itself",
                self.ops[to].name,
                self.label()
            );
            let held = self.state.lock_writer(|| self.wait_on().at(at));
            // Relaxed: routes change only under the writer lock, which this task holds.
            let to = self.ops[k].route.load(Ordering::Relaxed);
            if to == SUSPENDED {
                self.wait_restored(k, Some(held), at);
                woken = true;
                continue;
            }
            if self.ops[to].kind == Kind::Read {
                drop(held);
                if woken {
                    self.pass_on(k);
                }
                return self.run_read::<A, R>(to, arg);
            }
            let r = if self.ops[to].kind == Kind::Exclusive {
                let body = self.ops[to]
                    .body
                    .downcast_ref::<ExclusiveBody<T, A, R>>()
                    .expect(RESIGNED);
                self.state.read(|value| {
                    let mut ex = Exclusive {
                        value,
                        object: self,
                        pending: Changes::default(),
                    };
                    let r = body(&mut ex, arg);
                    self.set_routes(ex.pending.as_slice());
                    r
                })
            } else {
                let body = self.ops[to]
                    .body
                    .downcast_ref::<WriteBody<T, A, R>>()
                    .expect(RESIGNED);
                let mut call = Call {
                    draft: self.state.draft(&held),
                    object: self,
                    pending: Changes::default(),
                };
                let r = body(&mut call, arg);
                let Call { draft, pending, .. } = call;
                self.state.commit(draft);
                self.set_routes(pending.as_slice());
                r
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
        self.set_now(k, SUSPENDED, Location::caller());
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
        self.set_now(k, k, Location::caller());
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
        self.set_now(k, to, Location::caller());
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
        lock(&self.queues)[self.index(op)].len()
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

    fn run_read<A: 'static, R: 'static>(&self, to: usize, arg: A) -> R {
        let body = self.ops[to]
            .body
            .downcast_ref::<ReadBody<T, A, R>>()
            .expect(RESIGNED);
        self.state.read(|v| body(v, arg))
    }

    /// Parks the caller on operation `k`'s queue until a restore wakes it, unless `k` was
    /// restored meanwhile; `held` is the writer lock, given up after queuing.
    fn wait_restored(
        &self,
        k: usize,
        held: Option<WriterLock<'_>>,
        at: &'static Location<'static>,
    ) {
        if held.is_none() && self.state.holds_writer() {
            panic!(
                "offshoot::sync::Object::call: operation {:?} of {} is suspended and was called \
                 by a write operation of the same object (at {at}); only a write of the object \
                 could restore it",
                self.ops[k].name,
                self.label()
            );
        }
        let w = {
            let mut q = lock(&self.queues);
            // Relaxed: a restore happens under this mutex, which this task holds, so one that
            // came before is seen here; a later load never sees an older value than the
            // `SUSPENDED` this caller saw.
            if self.ops[k].route.load(Ordering::Relaxed) != SUSPENDED {
                return;
            }
            q[k].enqueue()
        };
        // Given up only now: a restore needs the writer lock, so it comes after the queuing.
        drop(held);
        match w.park(self.wait_on().for_operation(self.ops[k].name).at(at)) {
            Woken::Normal => {
                // Relaxed: a statistic.
                self.ops[k].woken.fetch_add(1, Ordering::Relaxed);
            }
            interrupted => {
                lock(&self.queues)[k].remove(&w);
                interrupted.raise()
            }
        }
    }

    /// A woken caller got through operation `k`: wakes the next waiter if `k` is still open.
    fn pass_on(&self, k: usize) {
        let mut q = lock(&self.queues);
        // Relaxed: a restore happens under this mutex; a suspension this load misses only
        // makes the woken caller find the operation suspended and queue itself again.
        if self.ops[k].route.load(Ordering::Relaxed) != SUSPENDED {
            q[k].wake_one();
        }
    }

    /// Applies `routes` (operation, new route), in order; the caller holds the writer lock
    /// and has published the state they go with.
    fn set_routes(&self, routes: &[(usize, usize)]) {
        for &(k, to) in routes {
            let route = &self.ops[k].route;
            // Relaxed: routes change only under the writer lock, which this task holds.
            if route.load(Ordering::Relaxed) != SUSPENDED || to == SUSPENDED {
                // Nobody waits for an operation that is not suspended (module invariants).
                // Release: pairs with the acquire load in `call`: a caller that sees the new
                // route sees the version published before it.
                route.store(to, Ordering::Release);
            } else {
                let mut q = lock(&self.queues);
                // Release: as above. Under the `queues` mutex: a caller that found the
                // operation suspended there has queued itself, and is woken here.
                route.store(to, Ordering::Release);
                q[k].wake_one();
            }
        }
    }

    fn set_now(&self, k: usize, to: usize, at: &'static Location<'static>) {
        assert!(
            !self.state.holds_writer(),
            "offshoot::sync::Object: the table of {} was changed directly inside a write \
             operation of it (at {at}); use the Call's suspend, restore or replace",
            self.label()
        );
        let _held = self.state.lock_writer(|| self.wait_on().at(at));
        self.set_routes(&[(k, to)]);
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
                    to => format!("{} -> {}", o.name, self.ops[to].name),
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
/// allocation (what OPA's classes make), more in a vector.
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
        self.object.set_routes(pending.as_slice());
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
