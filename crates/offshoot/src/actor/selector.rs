//! Selectors: actors with several mailboxes, each of which the handler can enable and
//! disable (Imam's selectors, thesis ch. 5, and HJlib's; `docs/REFERENCES.md`).
//!
//! A [`Selector`] names its mailboxes with a [`Mailbox`] type (a user enum, or
//! [`Numbered<N>`] for `0..N`), fixed at compile time, at most 64. Every mailbox always
//! receives; the drain takes the next message only from the *readable* ones: enabled (by
//! [`SelectorContext::enable`] and friends, all enabled at start) and, if the selector
//! declares [guards](Selector::guard), passing its guard, re-evaluated after every message.
//! Among those it takes from the lowest-numbered non-empty mailbox ([`Order::Priority`],
//! the default), or goes round them in turn ([`Order::RoundRobin`]).
//!
//! Invariants:
//! * The enabled set is a mask word copied into the context for one message and written
//!   back after it: `enable`, `disable`, `enable_all` and `disable_all_except` are one
//!   or/and each, O(1) and idempotent.
//! * Enabling a mailbox that holds messages takes effect at once: the drain re-reads the
//!   mask before it looks for the next message, and publishes it (`ready`) before it goes
//!   idle, so that a sender to a mailbox enabled just now schedules a drain (the handshake
//!   of `handshake.rs`).
//! * **No readable mailbox after a message is an error**: only the handler can enable a
//!   mailbox, and it runs only on a message from a readable one, so the selector could never
//!   receive again. The drain panics (`every mailbox of the selector is disabled`), which
//!   stops the selector and fails its finish like any panic of a handler. A handler that
//!   means to end calls [`SelectorContext::exit`] instead. (HJlib also lets a callback
//!   that completes later re-enable mailboxes, so all-disabled after a message is legal
//!   there; here work that finishes later sends the selector a message instead — a
//!   reader-writer's reads report back to a `ReadDone` mailbox, see `tests/selectors.rs`.)

use std::fmt;
use std::sync::Arc;

use super::engine::Engine;

/// The mailboxes of a [`Selector`]: `COUNT` of them (1 to 64), numbered `0..COUNT` in
/// priority order (0 first).
///
/// Declare a fieldless enum with [`mailboxes!`](crate::mailboxes!) (which writes this
/// implementation), implement it by hand, or use [`Numbered<N>`].
///
/// ```
/// use offshoot::actor::Mailbox;
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum Port {
///     Reply,
///     Regular,
/// }
///
/// impl Mailbox for Port {
///     const COUNT: usize = 2;
///     fn index(self) -> usize {
///         self as usize
///     }
///     fn from_index(i: usize) -> Port {
///         [Port::Reply, Port::Regular][i]
///     }
/// }
/// assert_eq!(Port::from_index(Port::Regular.index()), Port::Regular);
/// ```
pub trait Mailbox: Copy + Send + Sync + 'static {
    /// How many mailboxes (1 to 64; checked when the selector starts).
    const COUNT: usize;
    /// This mailbox's number, below `COUNT`.
    fn index(self) -> usize;
    /// The mailbox numbered `i` (`i < COUNT`).
    fn from_index(i: usize) -> Self;
}

/// Declares a fieldless enum of mailboxes and implements [`Mailbox`] for it: the variants
/// in priority order (the first is mailbox 0), `COUNT` their number. The enum derives
/// `Clone, Copy, Debug, PartialEq, Eq, Hash`; attributes and doc comments before `enum`
/// are kept.
///
/// ```
/// use offshoot::actor::Mailbox;
///
/// offshoot::mailboxes! {
///     /// A client's mailboxes: replies first.
///     pub enum Port { Reply, Regular }
/// }
/// assert_eq!(Port::COUNT, 2);
/// assert_eq!(Port::Regular.index(), 1);
/// assert_eq!(Port::from_index(0), Port::Reply);
/// ```
#[macro_export]
macro_rules! mailboxes {
    ($(#[$attr:meta])* $vis:vis enum $name:ident { $($variant:ident),+ $(,)? }) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $($variant),+
        }

        impl $crate::actor::Mailbox for $name {
            const COUNT: usize = [$($name::$variant),+].len();
            fn index(self) -> usize {
                self as usize
            }
            fn from_index(i: usize) -> $name {
                [$($name::$variant),+][i]
            }
        }
    };
}

/// `m`'s number, checked against `M::COUNT` (a hand-written [`Mailbox`] may get it wrong).
fn mailbox_index<M: Mailbox>(m: M) -> usize {
    let i = m.index();
    assert!(
        i < M::COUNT,
        "offshoot::actor: {}::index() returned {i}, but its Mailbox::COUNT is {}; index() must \
         number the mailboxes from 0 to COUNT - 1",
        std::any::type_name::<M>(),
        M::COUNT
    );
    i
}

/// Mailboxes numbered `0..N`, for selectors whose mailboxes need no names (one per
/// source of a join, say).
///
/// ```
/// use offshoot::actor::{Mailbox, Numbered};
/// let m = Numbered::<4>::new(3);
/// assert_eq!(m.index(), 3);
/// assert_eq!(Numbered::<4>::COUNT, 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Numbered<const N: usize>(usize);

impl<const N: usize> Numbered<N> {
    /// Mailbox `i`.
    ///
    /// # Panics
    /// If `i >= N`.
    pub fn new(i: usize) -> Numbered<N> {
        assert!(i < N, "mailbox {i} of {N}");
        Numbered(i)
    }
}

impl<const N: usize> Mailbox for Numbered<N> {
    const COUNT: usize = N;
    fn index(self) -> usize {
        self.0
    }
    fn from_index(i: usize) -> Numbered<N> {
        Numbered::new(i)
    }
}

/// Which readable mailbox a selector takes its next message from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// The lowest-numbered readable mailbox that holds a message.
    Priority,
    /// The first readable mailbox holding a message at or after the one after the mailbox
    /// of the previous message, wrapping around: each mailbox gets its turn.
    RoundRobin,
}

/// A selector: state and a handler for messages that arrive in several mailboxes, which
/// the handler enables and disables (see the [module](crate::actor) for the lifecycle,
/// which is an actor's).
///
/// A request-reply without a blocking ask: the requester disables its `Regular` mailbox
/// until the reply arrives in `Reply`; requests that arrive meanwhile wait in `Regular`.
///
/// ```
/// use offshoot::actor::{self, Selector, SelectorContext, SelectorRef};
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::sync::Arc;
///
/// offshoot::mailboxes! {
///     enum Port { Reply, Regular }
/// }
///
/// /// Doubles numbers (an actor: one mailbox).
/// struct Doubler;
/// impl actor::Actor for Doubler {
///     type Message = (u64, SelectorRef<Client>);
///     fn receive(&mut self, (x, to): Self::Message, _: &mut actor::Context<'_, Self>) {
///         to.send(Port::Reply, 2 * x);
///     }
/// }
///
/// /// Asks for the double of each regular message, one request at a time, and sums.
/// struct Client { doubler: actor::ActorRef<Doubler>, sum: Arc<AtomicU64> }
/// impl Selector for Client {
///     type Mailbox = Port;
///     type Message = u64;
///     fn receive(&mut self, port: Port, x: u64, ctx: &mut SelectorContext<'_, Self>) {
///         match port {
///             Port::Regular => {
///                 self.doubler.send((x, ctx.myself()));
///                 ctx.disable(Port::Regular); // until the reply
///             }
///             Port::Reply => {
///                 self.sum.fetch_add(x, Ordering::Relaxed);
///                 ctx.enable(Port::Regular);
///             }
///         }
///     }
/// }
///
/// let sum = Arc::new(AtomicU64::new(0));
/// let s = sum.clone();
/// offshoot::ThreadPool::builder().workers(2).build().unwrap().run(move || {
///     let doubler = actor::start(Doubler);
///     let client = actor::start_selector(Client { doubler, sum: s });
///     for x in 1..=10 {
///         client.send(Port::Regular, x);
///     }
///     // With its last handle dropped, the client exits once its readable mailboxes
///     // are empty and no handle is left (a request in flight holds one); its exit
///     // drops the doubler's last handle.
/// });
/// assert_eq!(sum.load(Ordering::Relaxed), 110);
/// ```
pub trait Selector: Sized + Send + 'static {
    /// Names the mailboxes.
    type Mailbox: Mailbox;
    /// What the mailboxes carry (one type for all; use an enum for several kinds).
    type Message: Send + 'static;
    /// Which readable mailbox the next message comes from.
    const ORDER: Order = Order::Priority;

    /// Handles one message, taken from `mailbox`. Runs as a task of the pool (it may
    /// `join`, `spawn`, loop in parallel and wait in `sync`), never at the same time as
    /// another message of this selector.
    fn receive(
        &mut self,
        mailbox: Self::Mailbox,
        msg: Self::Message,
        ctx: &mut SelectorContext<'_, Self>,
    );

    /// The declarative guard of `mailbox`: whether it may be read in the selector's
    /// current state. Evaluated for every mailbox at start and after every message; a
    /// mailbox is readable when it is enabled and its guard holds. The default admits
    /// every mailbox.
    fn guard(&self, mailbox: Self::Mailbox) -> bool {
        let _ = mailbox;
        true
    }
}

/// What a selector's handler can do besides its own state: enable and disable mailboxes,
/// exit, and name itself.
pub struct SelectorContext<'a, S: Selector> {
    engine: &'a Arc<Engine<S>>,
    enabled: u64,
    exit: bool,
}

impl<'a, S: Selector> SelectorContext<'a, S> {
    pub(crate) fn new(engine: &'a Arc<Engine<S>>, enabled: u64) -> SelectorContext<'a, S> {
        SelectorContext {
            engine,
            enabled,
            exit: false,
        }
    }

    pub(crate) fn engine(&self) -> &'a Arc<Engine<S>> {
        self.engine
    }

    pub(crate) fn enabled(&self) -> u64 {
        self.enabled
    }

    pub(crate) fn exiting(&self) -> bool {
        self.exit
    }

    /// Enables `m`: its messages may be taken again, from the next message on.
    /// Idempotent. See [`Selector`] for an example.
    pub fn enable(&mut self, m: S::Mailbox) {
        self.enabled |= 1 << mailbox_index(m);
    }

    /// Disables `m`: it still receives, but its messages wait until it is enabled.
    /// Idempotent. See [`Selector`] for an example.
    pub fn disable(&mut self, m: S::Mailbox) {
        self.enabled &= !(1 << mailbox_index(m));
    }

    /// Enables every mailbox.
    pub fn enable_all(&mut self) {
        self.enabled = super::mailbox::all(S::Mailbox::COUNT);
    }

    /// Disables every mailbox but `m`, and enables `m`.
    pub fn disable_all_except(&mut self, m: S::Mailbox) {
        self.enabled = 1 << mailbox_index(m);
    }

    /// Whether `m` is enabled (its guard aside).
    pub fn is_enabled(&self, m: S::Mailbox) -> bool {
        self.enabled & (1 << mailbox_index(m)) != 0
    }

    /// Exits after this message: later messages are dropped and counted
    /// ([`SelectorRef::dropped`]), never processed.
    pub fn exit(&mut self) {
        self.exit = true;
    }

    /// A handle to this selector (a handle kept in the selector's own state keeps it from
    /// stopping when the others are dropped: such a selector must [`exit`](Self::exit)).
    pub fn myself(&self) -> SelectorRef<S> {
        self.engine.add_ref();
        SelectorRef {
            engine: self.engine.clone(),
        }
    }
}

impl<S: Selector> fmt::Debug for SelectorContext<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SelectorContext")
            .field("enabled", &format_args!("{:#b}", self.enabled))
            .field("exit", &self.exit)
            .finish()
    }
}

/// A handle to a running selector: send to any of its mailboxes, from any thread.
/// Cloning is cheap; a selector with no handle left exits once its readable mailboxes are
/// empty (as after [`stop`](Self::stop)).
pub struct SelectorRef<S: Selector> {
    engine: Arc<Engine<S>>,
}

/// Starts `selector` as a task-less selector of the innermost finish of the calling task
/// (a [`finish`](crate::finish()), [`scope`](crate::scope()) or
/// [`ThreadPool::run`](crate::ThreadPool::run)), which ends only after it exits. All
/// mailboxes start enabled (the guards apply).
///
/// # Panics
/// Outside every pool; if the mailbox type has 0 or more than 64 mailboxes; if every
/// guard is false at start.
///
/// See [`Selector`] for an example.
pub fn start_selector<S: Selector>(selector: S) -> SelectorRef<S> {
    SelectorRef {
        engine: Engine::start(selector, "offshoot::actor::start_selector"),
    }
}

/// Starts the selector that `make` builds from a handle to itself, as [`start_selector`]
/// does (see [`start_with`](super::start_with) for actors): messages sent to the handle
/// while `make` runs wait and are processed once the selector exists; the guards apply
/// from then on.
///
/// # Panics
/// As [`start_selector`]; a panic of `make` (the selector then exits).
///
/// ```
/// use offshoot::actor::{self, Mailbox, Numbered, Selector, SelectorContext, SelectorRef};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::sync::Arc;
///
/// /// Forwards what arrives on mailbox 1 to its own mailbox 0, which counts.
/// struct Relay {
///     me: Option<SelectorRef<Relay>>,
///     seen: Arc<AtomicU32>,
/// }
/// impl Selector for Relay {
///     type Mailbox = Numbered<2>;
///     type Message = u32;
///     fn receive(&mut self, m: Numbered<2>, x: u32, ctx: &mut SelectorContext<'_, Self>) {
///         if m.index() == 1 {
///             self.me.as_ref().unwrap().send(Numbered::new(0), x);
///         } else if self.seen.fetch_add(1, Ordering::SeqCst) == 2 {
///             self.me = None; // the last handle goes: it exits once empty
///         }
///     }
/// }
/// let seen = Arc::new(AtomicU32::new(0));
/// let s = seen.clone();
/// offshoot::ThreadPool::builder().workers(2).build().unwrap().run(move || {
///     let r = actor::start_selector_with(|me| Relay { me: Some(me), seen: s });
///     for x in 0..3 {
///         r.send(Numbered::new(1), x);
///     }
/// });
/// assert_eq!(seen.load(Ordering::SeqCst), 3);
/// ```
pub fn start_selector_with<S: Selector>(make: impl FnOnce(SelectorRef<S>) -> S) -> SelectorRef<S> {
    SelectorRef {
        engine: Engine::start_with(
            |e| {
                e.add_ref();
                make(SelectorRef { engine: e.clone() })
            },
            "offshoot::actor::start_selector_with",
        ),
    }
}

impl<S: Selector> SelectorRef<S> {
    pub(crate) fn from_engine(engine: Arc<Engine<S>>) -> SelectorRef<S> {
        SelectorRef { engine }
    }

    /// Sends `msg` to mailbox `to`. Never blocks, from any thread, inside or outside the
    /// pool (a send that spawns the drain task is a poll point); messages from one sender to one mailbox are
    /// taken in the order sent. If the selector has exited, the message is dropped and
    /// counted ([`dropped`](Self::dropped)). A send that finds the selector idle and the
    /// mailbox readable spawns its drain task into the selector's finish.
    ///
    /// See [`Selector`] for an example.
    pub fn send(&self, to: S::Mailbox, msg: S::Message) {
        self.engine.send(mailbox_index(to), msg);
    }

    /// Asks the selector to exit once its readable mailboxes are empty: it goes on with the
    /// messages that can be taken, then exits; messages left in disabled mailboxes, and
    /// later ones, are dropped and counted. Idempotent.
    ///
    /// ```
    /// use offshoot::actor::{self, Numbered, Selector, SelectorContext};
    /// struct Quiet;
    /// impl Selector for Quiet {
    ///     type Mailbox = Numbered<1>;
    ///     type Message = ();
    ///     fn receive(&mut self, _: Numbered<1>, _: (), _: &mut SelectorContext<'_, Self>) {}
    /// }
    /// let s = offshoot::ThreadPool::builder().workers(1).build().unwrap().run(|| {
    ///     let s = actor::start_selector(Quiet);
    ///     s.stop();
    ///     s // the run still waits for the exit
    /// });
    /// assert!(s.is_exited());
    /// s.send(Numbered::new(0), ());
    /// assert_eq!(s.dropped(), 1);
    /// ```
    pub fn stop(&self) {
        self.engine.stop();
    }

    /// Whether the selector has exited.
    pub fn is_exited(&self) -> bool {
        self.engine.exited()
    }

    /// How many messages were dropped unprocessed: sent after the exit, or left in the
    /// mailboxes when it exited. Exact once the selector's finish has ended.
    pub fn dropped(&self) -> u64 {
        self.engine.dropped()
    }
}

impl<S: Selector> Clone for SelectorRef<S> {
    fn clone(&self) -> SelectorRef<S> {
        self.engine.add_ref();
        SelectorRef {
            engine: self.engine.clone(),
        }
    }
}

impl<S: Selector> Drop for SelectorRef<S> {
    fn drop(&mut self) {
        self.engine.release_ref();
    }
}

impl<S: Selector> fmt::Debug for SelectorRef<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SelectorRef")
            .field("exited", &self.is_exited())
            .field("dropped", &self.dropped())
            .finish()
    }
}
