//! Actors and selectors on the pool's workers: message-driven state whose handler runs as an
//! ordinary task, so it may `join`, `spawn`, loop in parallel and wait.
//!
//! An [`Actor`] is state plus a handler for one message type; [`start`] gives an
//! [`ActorRef`] to send to it, from any thread. A [`Selector`] is an actor with several
//! mailboxes that its handler enables and disables ([`selector`](self#selectors) below).
//!
//! # Lifecycle
//!
//! * **Start** inside a task of a pool: the actor belongs to the innermost
//!   [`finish`](crate::finish()), [`scope`](crate::scope()) or
//!   [`ThreadPool::run`](crate::ThreadPool::run) (it holds a count of it), which ends only
//!   after the actor exits.
//! * **Idle**, the actor owns no task and no thread: its state, its mailboxes and a
//!   schedule word. A [`send`](ActorRef::send) pushes the message and, if the actor was idle,
//!   spawns **one** drain task into the actor's finish (a single compare-and-swap decides who
//!   does; at most one drain is in flight per actor). The drain runs the handler on the
//!   messages one at a time until the mailbox is empty, then goes idle and re-checks the
//!   mailbox (a message that arrived in between is not stranded). After 64 messages a drain
//!   spawns its successor and ends, a task boundary where the worker polls and a thief can
//!   take the rest: a busy actor does not monopolise its worker's task. A drain that a
//!   handler's send spawns runs next on the handler's worker unless that worker polls
//!   first (a drain polls between messages; a handler polls at its joins) or has other
//!   tasks pending: a chain of requests and replies stays on one worker rather than
//!   crossing to an idle one at every message, and work spreads as soon as there is more
//!   than one drain to run.
//! * **Exit**: by [`Context::exit`] from the handler; by [`ActorRef::stop`] (the actor
//!   first processes the messages it has, then exits when its mailbox is empty); when the
//!   actor has no [`ActorRef`] left once its mailbox is empty (nobody can send any more; a
//!   handle inside a message in flight counts, and a handle kept in the actor's own state,
//!   from [`Context::myself`], prevents this); or by a failure
//!   (below). Messages sent after the exit, and messages left in the mailbox, are dropped
//!   and counted ([`ActorRef::dropped`]), never processed. The state is dropped by the
//!   exit, on a worker.
//! * **Failure**: a panic in the handler stops the actor (it exits as above) and fails its
//!   finish as any offshoot task does: the first failure wins, the finish's other tasks
//!   stop, and the panic resumes from the finish. A finish that fails for another reason
//!   stops a running handler at its next poll point, which exits the actor the same way,
//!   and discards a drain task not yet started, which exits the actor too. An idle actor
//!   of a failed finish exits when its handles are dropped (the unwinding of the finish's
//!   body usually drops them) or stopped.
//!
//! An actor nobody stops keeps its finish waiting: a handle leaked (`mem::forget`), two
//! idle actors holding handles to each other in their state, or selectors that each wait
//! for a reply only the other would send. Once every worker of every pool is idle, nothing
//! inside the pools can send to such an actor any more, and the
//! [deadlock watch](crate::Builder#deadlocks) reports it — beside the tasks waiting in
//! [`sync`](crate::sync), such as handlers blocked on each other's replies — instead of
//! hanging: each idle actor that has not exited is named in the report, exits, and the
//! finish it was started in fails with the report. A thread outside the pools that will
//! still send to an actor must hold an [`ExternalWaker`](crate::sync::ExternalWaker)
//! meanwhile. Break such cycles with [`Context::exit`] or [`ActorRef::stop`].
//!
//! # Selectors
//!
//! See [`Selector`]: N mailboxes named by a [`Mailbox`] type, each enabled or disabled by
//! the handler ([`SelectorContext`]), with declarative guards as an option; the next
//! message comes from the lowest-numbered readable mailbox ([`Order::Priority`]) or in
//! turn ([`Order::RoundRobin`]); no readable mailbox after a message is an error. An
//! [`Actor`] is a selector with one mailbox, run by the same engine.
//!
//! # Cost
//!
//! A send is a push onto a lock-free queue (`crossbeam_queue::SegQueue`), a fence and a
//! load of the schedule word, plus a task spawn when the actor was idle. An idle actor
//! costs about 400 bytes on x86-64 in two allocations (the engine, about 130 bytes with a
//! small state, and its queue: two cache-padded positions, 256 bytes), plus, once it has
//! received messages, usually one queue block of 31 slots (31 × (message + 8) + 8 bytes);
//! `examples/actors_cost.rs` measures both.
//!
//! Invariants (each file states its own): the schedule token (`handshake.rs`) is the only
//! licence to touch an actor's state; the reservation of the owning finish is held from
//! `start` to the exit (`engine.rs`); messages of one mailbox leave in the order they
//! arrived (`mailbox.rs`).
//!
//! ```
//! use offshoot::actor::{self, Actor, Context};
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use std::sync::Arc;
//!
//! struct Counter(Arc<AtomicU64>);
//! impl Actor for Counter {
//!     type Message = u64;
//!     fn receive(&mut self, n: u64, _: &mut Context<'_, Self>) {
//!         self.0.fetch_add(n, Ordering::Relaxed);
//!     }
//! }
//!
//! let total = Arc::new(AtomicU64::new(0));
//! let t = total.clone();
//! offshoot::ThreadPool::builder().workers(2).build().unwrap().run(move || {
//!     let counter = actor::start(Counter(t));
//!     offshoot::par_for(0..100, |i| counter.send(i as u64));
//! }); // the handle is dropped: the actor stops once its mailbox is empty
//! assert_eq!(total.load(Ordering::Relaxed), 4950);
//! ```

mod engine;
mod handshake;
mod mailbox;
mod selector;

use std::fmt;
use std::sync::Arc;

pub use crate::mailboxes;
pub use selector::{
    start_selector, start_selector_with, Mailbox, Numbered, Order, Selector, SelectorContext,
    SelectorRef,
};

/// An actor: state and a handler for its messages, processed one at a time.
///
/// ```
/// use offshoot::actor::{self, Actor, Context};
///
/// /// Sums what it receives and reports the total when told to finish.
/// struct Summer(u64);
/// enum Msg { Add(u64), Done(offshoot::sync::Promise<u64>) }
/// impl Actor for Summer {
///     type Message = Msg;
///     fn receive(&mut self, msg: Msg, ctx: &mut Context<'_, Self>) {
///         match msg {
///             // A handler is a task: it may fork and join.
///             Msg::Add(n) => {
///                 let (a, b) = offshoot::join(|| n, || n);
///                 self.0 += a + b;
///             }
///             Msg::Done(p) => {
///                 p.put(self.0).unwrap();
///                 ctx.exit();
///             }
///         }
///     }
/// }
///
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// let total = pool.run(|| {
///     let a = actor::start(Summer(0));
///     for n in 1..=4 {
///         a.send(Msg::Add(n));
///     }
///     let p = offshoot::sync::Promise::new();
///     a.send(Msg::Done(p.clone()));
///     *p.get() // parks this task until the actor replies
/// });
/// assert_eq!(total, 20);
/// ```
pub trait Actor: Sized + Send + 'static {
    /// What the actor receives.
    type Message: Send + 'static;

    /// Handles one message. Runs as a task of the pool (it may `join`, `spawn`, loop in
    /// parallel and wait in `sync`), never at the same time as another message of this
    /// actor. A panic stops the actor and fails its finish.
    fn receive(&mut self, msg: Self::Message, ctx: &mut Context<'_, Self>);
}

/// The one-mailbox selector an [`Actor`] runs as.
struct Solo<A>(A);

/// The single mailbox of an actor.
type One = Numbered<1>;

impl<A: Actor> Selector for Solo<A> {
    type Mailbox = One;
    type Message = A::Message;

    #[inline]
    fn receive(&mut self, _: One, msg: A::Message, ctx: &mut SelectorContext<'_, Self>) {
        let mut c = Context {
            engine: ctx.engine(),
            exit: false,
        };
        self.0.receive(msg, &mut c);
        if c.exit {
            ctx.exit();
        }
    }
}

/// What an actor's handler can do besides its own state: exit, and name itself.
pub struct Context<'a, A: Actor> {
    engine: &'a Arc<engine::Engine<Solo<A>>>,
    exit: bool,
}

impl<A: Actor> Context<'_, A> {
    /// Exits after this message: later messages are dropped and counted
    /// ([`ActorRef::dropped`]), never processed. See [`Actor`] for an example.
    pub fn exit(&mut self) {
        self.exit = true;
    }

    /// A handle to this actor, e.g. to pass along as the address of a reply (a handle kept
    /// in the actor's own state keeps it from stopping when the others are dropped: such an
    /// actor must [`exit`](Self::exit)).
    ///
    /// ```
    /// use offshoot::actor::{self, Actor, ActorRef, Context};
    /// struct Countdown;
    /// impl Actor for Countdown {
    ///     type Message = u32;
    ///     fn receive(&mut self, n: u32, ctx: &mut Context<'_, Self>) {
    ///         if n > 0 {
    ///             ctx.myself().send(n - 1);
    ///         }
    ///     }
    /// }
    /// offshoot::ThreadPool::builder().workers(1).build().unwrap().run(|| {
    ///     actor::start(Countdown).send(10);
    /// });
    /// ```
    pub fn myself(&self) -> ActorRef<A> {
        self.engine.add_ref();
        ActorRef {
            inner: SelectorRef::from_engine(self.engine.clone()),
        }
    }
}

impl<A: Actor> fmt::Debug for Context<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context").field("exit", &self.exit).finish()
    }
}

/// A handle to a running actor: `Clone + Send + Sync`, sends from any thread. An actor with
/// no handle left exits once its mailbox is empty (as after [`stop`](Self::stop)).
pub struct ActorRef<A: Actor> {
    inner: SelectorRef<Solo<A>>,
}

/// Starts `actor` in the innermost finish of the calling task (a
/// [`finish`](crate::finish()), [`scope`](crate::scope()) or
/// [`ThreadPool::run`](crate::ThreadPool::run)), which ends only after the actor exits. The
/// actor is idle (no task, no thread) until a message arrives.
///
/// # Panics
/// Outside every pool.
///
/// See the [module](self) for an example.
pub fn start<A: Actor>(actor: A) -> ActorRef<A> {
    ActorRef {
        inner: SelectorRef::from_engine(engine::Engine::start(
            Solo(actor),
            "offshoot::actor::start",
        )),
    }
}

/// Starts the actor that `make` builds from a handle to itself, in the innermost finish of
/// the calling task, as [`start`] does: for an actor that must know its own address from
/// the start — to hand it to others it builds, or to send itself a first message. Messages
/// sent to the handle while `make` runs wait and are processed once the actor exists. A
/// handle kept in the actor's own state keeps it from stopping when the others are
/// dropped: such an actor must [`exit`](Context::exit).
///
/// # Panics
/// Outside every pool; a panic of `make` (the actor then exits, and messages sent to it
/// meanwhile are dropped).
///
/// ```
/// use offshoot::actor::{self, Actor, ActorRef, Context};
/// use offshoot::sync::Promise;
///
/// /// Counts down to zero by messages to itself, then reports.
/// struct Countdown {
///     me: ActorRef<Countdown>,
///     done: Promise<&'static str>,
/// }
/// impl Actor for Countdown {
///     type Message = u32;
///     fn receive(&mut self, n: u32, ctx: &mut Context<'_, Self>) {
///         if n == 0 {
///             self.done.put("liftoff").unwrap();
///             ctx.exit(); // it holds a handle to itself: it must exit
///         } else {
///             self.me.send(n - 1);
///         }
///     }
/// }
/// let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
/// let done = Promise::new();
/// let d = done.clone();
/// pool.run(move || {
///     actor::start_with(|me: ActorRef<Countdown>| {
///         me.send(10); // processed once the actor exists
///         Countdown { me, done: d }
///     });
/// });
/// assert_eq!(*done.get(), "liftoff");
/// ```
pub fn start_with<A: Actor>(make: impl FnOnce(ActorRef<A>) -> A) -> ActorRef<A> {
    ActorRef {
        inner: SelectorRef::from_engine(engine::Engine::start_with(
            |e| {
                e.add_ref();
                Solo(make(ActorRef {
                    inner: SelectorRef::from_engine(e.clone()),
                }))
            },
            "offshoot::actor::start_with",
        )),
    }
}

impl<A: Actor> ActorRef<A> {
    /// Sends `msg`. Never blocks, from any thread, inside or outside the pool (also inside
    /// an [`isolated`](crate::isolated()) section); a send that spawns the actor's drain
    /// task is a poll point, as a spawn is. Messages from one sender are processed in the
    /// order sent. If the
    /// actor has exited, the message is dropped and counted ([`dropped`](Self::dropped)).
    /// See the [module](self) for an example.
    #[inline]
    pub fn send(&self, msg: A::Message) {
        self.inner.send(Numbered::new(0), msg);
    }

    /// Asks the actor to exit once its mailbox is empty: it processes the messages it has
    /// (and those that arrive before it finds the mailbox empty), then exits. Later
    /// messages are dropped and counted. Idempotent.
    ///
    /// ```
    /// use offshoot::actor::{self, Actor, Context};
    /// struct Sink;
    /// impl Actor for Sink {
    ///     type Message = ();
    ///     fn receive(&mut self, _: (), _: &mut Context<'_, Self>) {}
    /// }
    /// let pool = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    /// let a = pool.run(|| {
    ///     let a = actor::start(Sink);
    ///     a.send(());
    ///     a.stop();
    ///     a
    /// });
    /// assert!(a.is_exited());
    /// a.send(());
    /// assert_eq!(a.dropped(), 1);
    /// ```
    pub fn stop(&self) {
        self.inner.stop();
    }

    /// Whether the actor has exited. See [`stop`](Self::stop) for an example.
    pub fn is_exited(&self) -> bool {
        self.inner.is_exited()
    }

    /// How many messages were dropped unprocessed: sent after the exit, or left in the
    /// mailbox when it exited. Exact once the actor's finish has ended. See
    /// [`stop`](Self::stop) for an example.
    pub fn dropped(&self) -> u64 {
        self.inner.dropped()
    }
}

impl<A: Actor> Clone for ActorRef<A> {
    fn clone(&self) -> ActorRef<A> {
        ActorRef {
            inner: self.inner.clone(),
        }
    }
}

impl<A: Actor> fmt::Debug for ActorRef<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ActorRef")
            .field("exited", &self.is_exited())
            .field("dropped", &self.dropped())
            .finish()
    }
}

/// Size probes for the memory test (not part of the API).
#[doc(hidden)]
pub fn engine_size_of<A: Actor>() -> usize {
    std::mem::size_of::<engine::Engine<Solo<A>>>()
}
