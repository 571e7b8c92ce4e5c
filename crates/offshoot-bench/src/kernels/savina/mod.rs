//! Kernels of the Savina actor benchmark suite (Imam and Sarkar, AGERE 2014;
//! `shamsimam/savina`), each written from its description, with parameters scaled so
//! that the suite's quick mode stays quick.
//!
//! Contenders, each the idiomatic program of its kind:
//! - serial: the plain loop the actors' messages amount to (no threads; it says what
//!   the computation costs without the messaging);
//! - offshoot: `offshoot::actor` actors and selectors on the pool's workers; each kernel
//!   runs inside the harness's `ThreadPool::run` and waits for its actors by the
//!   finish they were started in;
//! - offshoot-tasks: the same program without actors, as a Go or CSP programmer writes
//!   it: each actor is a task (`offshoot::scope`) that loops `recv` on an
//!   `offshoot::sync` channel, its mailbox; a send is a channel send, a reply goes back
//!   over a channel or an `offshoot::sync::Promise` passed in the message, and a waiting
//!   `recv` parks the task, not its worker. Where another shape of tasks is what a user
//!   writes, the kernel uses it and its doc says so (the reader-writer servers become an
//!   `offshoot::sync::RwLock` that the client tasks take, `filter-bank`'s combiner a
//!   `spawn_future` whose value is the total, the sink counting `big`'s and `bank`'s
//!   completions an `offshoot::sync::EventCount`);
//! - offshoot-actors (the kernels whose offshoot version uses selectors): the same
//!   program with plain `offshoot::actor` actors, which stash in their state what a
//!   selector leaves waiting in a disabled mailbox (Imam's thesis, ch. 5);
//! - tokio: the same actors written with **ractor** (an actor library on tokio), on
//!   the harness's tokio multi-thread runtime of the same worker count, as ractor's
//!   docs recommend (`Actor::spawn` inside the runtime, `cast` to send, `drain` or
//!   `stop` to end, the join handles awaited);
//! - kameo: the same actors written with **kameo** (a second actor library on tokio), on
//!   the same tokio runtime, as kameo's docs recommend: an `Actor` (derived where it
//!   needs no hooks) with one `Message<T>` impl per message type, spawned inside the
//!   runtime with an unbounded mailbox (`spawn_with_mailbox`, or `prepare_with_mailbox`
//!   and `PreparedActor::spawn` where the actor's final state is wanted); ractor's
//!   mailboxes are unbounded, and kameo's default bounded one of 64 would add
//!   back-pressure the other contenders do not have, and can deadlock the kernels whose
//!   actors send to each other in a cycle. `tell(..).try_send()` sends (on an unbounded
//!   mailbox it never waits, as ractor's `cast`), `ask` where ractor `call`s,
//!   `Context::stop` or `stop_gracefully` end an actor, and its end is awaited: the
//!   task's handle where its final state is the answer (the actor as it stopped, which
//!   ractor's versions hand over in `post_stop`), `wait_for_shutdown_result` where it is
//!   not;
//! - threads: one OS thread per actor, its mailbox a `std::sync::mpsc` channel (the
//!   blocking baseline; the calling thread plays the driver).
//!
//! Invariant: every contender of a kernel sends the same messages in the same
//! per-sender order (a tasks version that drops a message for a call or a count does the
//! same work in the same per-sender order) and returns the same answer, which the serial
//! loop and a closed form check.

pub mod bank;
pub mod big;
pub mod bounded_buffer;
pub mod chameneos;
pub mod counting;
pub mod dictionary;
pub mod filter_bank;
pub mod fjthroughput;
pub mod logistic_map;
mod mesh;
pub mod nqueens_prio;
pub mod pingpong;
mod rw;
pub mod sorted_list;
pub mod thread_ring;

/// What a send reports when its receiver is gone: that actor or thread panicked
/// (its panic is the one that matters).
pub(crate) const GONE: &str = "savina: the receiving actor ended early";

/// The declaration of a Savina kernel whose input `prepare` builds (a
/// [`Plain`](crate::kernels::plain::Plain) of a `Copy` input): the calling module's
/// functions `serial`, `offshoot`, `offshoot_tasks`, `tokio`, `kameo` and `threads` of the
/// input are its contenders, and with `selectors` (the kernels whose offshoot version uses
/// selectors) also `offshoot_actors`, offshoot's plain actors.
macro_rules! declare {
    ($about:expr, $prepare:expr) => {
        $crate::kernels::savina::declare!(@actors new, $about, $prepare).build()
    };
    ($about:expr, $prepare:expr, selectors) => {
        $crate::kernels::savina::declare!(@selectors new, $about, $prepare)
    };
    // A `prepare` that runs the contenders ([`crate::kernels::Kernel::new_with`]).
    (runs, $about:expr, $prepare:expr, selectors) => {
        $crate::kernels::savina::declare!(@selectors new_with, $about, $prepare)
    };
    (@selectors $new:ident, $about:expr, $prepare:expr) => {
        $crate::kernels::savina::declare!(@actors $new, $about, $prepare)
            .offshoot_actors(call(offshoot_actors))
            .build()
    };
    (@actors $new:ident, $about:expr, $prepare:expr) => {
        $crate::kernels::Kernel::$new($about, $prepare, call(serial))
            .offshoot(call(offshoot))
            .offshoot_tasks(call(offshoot_tasks))
            .tokio(on_runtime(tokio))
            .kameo(on_runtime(kameo))
            .threads(call(threads))
    };
}
pub(crate) use declare;

/// A floating-point answer that compares bit for bit (every contender does the same
/// operations in the same order, so the same bits are the check) and prints as a float.
#[derive(Clone, Copy)]
pub struct Bits(pub f64);

impl PartialEq for Bits {
    fn eq(&self, other: &Bits) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl std::fmt::Debug for Bits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

/// An `f64` that actors store at their end and the caller reads after their finish
/// (its bits in an atomic).
#[derive(Clone, Default)]
pub(crate) struct FloatOut(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl FloatOut {
    /// Stores `x`.
    pub(crate) fn put(&self, x: f64) {
        self.0
            .store(x.to_bits(), std::sync::atomic::Ordering::Relaxed);
    }

    /// What was stored (0.0 if nothing).
    pub(crate) fn get(&self) -> Bits {
        Bits(f64::from_bits(
            self.0.load(std::sync::atomic::Ordering::Relaxed),
        ))
    }
}

/// Spawns a ractor actor (unsupervised, unnamed) inside the runtime.
pub(crate) async fn spawn_ractor<A: ractor::Actor>(
    actor: A,
    args: A::Arguments,
) -> (
    ractor::ActorRef<A::Msg>,
    ractor::concurrency::JoinHandle<()>,
) {
    ractor::Actor::spawn(None, actor, args)
        .await
        .expect("savina: spawning a ractor actor")
}

/// Sends `msg` to a ractor actor.
pub(crate) fn cast<M: ractor::Message>(to: &ractor::ActorRef<M>, msg: M) {
    to.cast(msg).expect(GONE);
}

/// Waits for a ractor actor's end, failing if it panicked.
pub(crate) async fn joined(handle: ractor::concurrency::JoinHandle<()>) {
    handle.await.expect("savina: a ractor actor panicked");
}

/// A kameo actor's address.
pub(crate) type KRef<A> = kameo::actor::ActorRef<A>;

/// Spawns a kameo actor (unsupervised, unnamed, with an unbounded mailbox) inside the
/// runtime; its arguments are its initial state (`Args = Self`, as `derive(Actor)` makes).
pub(crate) fn spawn_kameo<A: kameo::Actor<Args = A>>(actor: A) -> KRef<A> {
    <A as kameo::actor::Spawn>::spawn_with_mailbox(actor, kameo::mailbox::unbounded())
}

/// Sends `msg` to a kameo actor (its mailbox is unbounded, so the send never waits).
pub(crate) fn tell<A, M>(to: &KRef<A>, msg: M)
where
    A: kameo::message::Message<M>,
    M: Send + 'static,
{
    if to.tell(msg).try_send().is_err() {
        panic!("{GONE}");
    }
}

/// A kameo actor's end, its task's handle: its final state and why it stopped.
pub(crate) type KEnd<A> =
    tokio::task::JoinHandle<Result<(A, kameo::error::ActorStopReason), kameo::error::PanicError>>;

/// Spawns a kameo actor as [`spawn_kameo`] does, also returning its end, whose final
/// state [`ended`] hands back (kameo's `PreparedActor`).
pub(crate) fn spawn_kameo_ended<A: kameo::Actor<Args = A>>(actor: A) -> (KRef<A>, KEnd<A>) {
    let prepared = <A as kameo::actor::Spawn>::prepare_with_mailbox(kameo::mailbox::unbounded());
    let actor_ref = prepared.actor_ref().clone();
    (actor_ref, prepared.spawn(actor))
}

/// Waits for a kameo actor's end and returns its final state, failing unless it stopped
/// normally (a panic in a handler stops it as `Panicked`).
pub(crate) async fn ended<A>(end: KEnd<A>) -> A {
    match end.await {
        Ok(Ok((actor, kameo::error::ActorStopReason::Normal))) => actor,
        Ok(Ok((_, reason))) => panic!("savina: a kameo actor stopped: {reason:?}"),
        Ok(Err(e)) => panic!("savina: a kameo actor failed: {e:?}"),
        Err(e) => panic!("savina: a kameo actor's task failed: {e:?}"),
    }
}

/// Waits until a kameo actor has stopped (its `on_stop` run), failing unless it stopped
/// normally.
pub(crate) async fn stopped<A: kameo::Actor>(actor: &KRef<A>)
where
    A::Error: Clone,
{
    match actor.wait_for_shutdown_result().await {
        Ok(kameo::error::ActorStopReason::Normal) => {}
        other => panic!("savina: a kameo actor did not stop normally: {other:?}"),
    }
}

/// Stops a kameo actor once its mailbox is empty (ractor's `drain`).
pub(crate) async fn drain<A: kameo::Actor>(actor: &KRef<A>) {
    actor.stop_gracefully().await.expect(GONE);
}

/// [`drain`]s a kameo actor and waits until it has [`stopped`].
pub(crate) async fn drained<A: kameo::Actor>(actor: &KRef<A>)
where
    A::Error: Clone,
{
    drain(actor).await;
    stopped(actor).await;
}

/// A fixed mix of `x` (splitmix64's finaliser): the per-message work and the
/// pseudo-random numbers of the kernels, the same on every contender.
pub(crate) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A ractor actor that adds `mix(x)` of every `x` it receives to its sum (its state),
/// then calls `after` with its own address; it adds its sum to `out` when it stops.
/// The workers of `fork-join-throughput` (`after` does nothing) and the consumers of
/// `bounded-buffer` (`after` asks the manager for the next item).
pub(crate) struct RSummer<H> {
    pub(crate) out: std::sync::Arc<std::sync::atomic::AtomicU64>,
    pub(crate) after: H,
}

impl<H: Fn(ractor::ActorRef<u64>) + Send + Sync + 'static> ractor::Actor for RSummer<H> {
    type Msg = u64;
    type State = u64;
    type Arguments = ();
    async fn pre_start(
        &self,
        _: ractor::ActorRef<u64>,
        _: (),
    ) -> Result<u64, ractor::ActorProcessingErr> {
        Ok(0)
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<u64>,
        x: u64,
        sum: &mut u64,
    ) -> Result<(), ractor::ActorProcessingErr> {
        *sum = sum.wrapping_add(mix(x));
        (self.after)(myself);
        Ok(())
    }
    async fn post_stop(
        &self,
        _: ractor::ActorRef<u64>,
        sum: &mut u64,
    ) -> Result<(), ractor::ActorProcessingErr> {
        self.out
            .fetch_add(*sum, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}

/// What a [`KSummer`] does after each message, given its own address (a trait, not a
/// closure as [`RSummer`]'s, since the address's type names the summer's).
pub(crate) trait After: Send + 'static {
    /// Called after each message.
    fn after(&self, me: &KRef<KSummer<Self>>)
    where
        Self: Sized;
}

/// Nothing after a message (`fork-join-throughput`'s workers).
impl After for () {
    fn after(&self, _: &KRef<KSummer<()>>) {}
}

/// A kameo actor that adds `mix(x)` of every `x` it receives to its sum, then calls
/// `after` with its own address ([`RSummer`] in kameo; its sum is in its final state).
#[derive(kameo::Actor)]
pub(crate) struct KSummer<H: After> {
    pub(crate) after: H,
    pub(crate) sum: u64,
}

impl<H: After> kameo::message::Message<u64> for KSummer<H> {
    type Reply = ();
    async fn handle(&mut self, x: u64, ctx: &mut kameo::message::Context<Self, ()>) {
        self.sum = self.sum.wrapping_add(mix(x));
        self.after.after(ctx.actor_ref());
    }
}
