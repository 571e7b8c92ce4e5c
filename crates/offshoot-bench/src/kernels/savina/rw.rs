//! A data-structure server and its clients, written once for the reader-writer kernels
//! (`dictionary`, `sorted-list`): a [`Workload`] says what the server holds (a [`Store`])
//! and what each client asks; this module runs it on every contender.
//!
//! W clients each send R requests, one at a time: a client sends request j, waits for
//! the reply, adds it to its sum and sends request j+1. The answer is (Σ of every
//! client's sum, the store's checksum after the last request). Each client reads and
//! writes only its own keys, and its requests are served in its order, so the answer
//! does not depend on how the clients' requests interleave.
//!
//! - serial: the loop serving every client's requests in turn, client-major;
//! - offshoot: the server is an `offshoot::actor` **selector** in the thesis's
//!   reader-writer pattern (Imam's thesis ch. 5): mailboxes `ReadDone`, `Write` and
//!   `Read` in priority order; a read is spawned as a task into the server's finish on a
//!   shared `Arc` of the store, so reads run in parallel with each other (and with the
//!   server taking more reads); a write runs in the handler when no read is in flight
//!   (then the server holds the only `Arc`, `Arc::get_mut`), otherwise the server keeps
//!   it and disables every mailbox but `ReadDone` until the last read reports back (a
//!   waiting write keeps later reads out); clients are actors whose address travels in
//!   their requests;
//! - offshoot-actors: the same clients, the server a plain actor serving each request in
//!   its handler, one at a time, as an actor-library user writes it;
//! - offshoot-tasks: no server: the store sits in an `offshoot::sync::RwLock` and each
//!   client is a task of an `offshoot::scope` that serves its own requests in its order,
//!   a read under `read()` (reads in parallel with each other), a write under `write()`
//!   (alone); a task that waits for the lock parks, its worker runs other clients. The
//!   lock plays the selector's part (readers in parallel, a waiting writer keeps later
//!   readers out: offshoot's lock prefers writers), and the request-reply round trip
//!   becomes a call;
//! - tokio: ractor actors, the server serving one request at a time in its handler;
//! - kameo: the same actors in kameo;
//! - threads: a server thread and one thread per client, `std::sync::mpsc` channels for
//!   the requests and one per client for the replies.
//!
//! Invariant: every contender serves each client's requests in that client's order, and
//! no read overlaps a write.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use offshoot::actor::{self, Actor, ActorRef, Context, Selector, SelectorContext, SelectorRef};

use super::{cast, drain, ended, joined, spawn_kameo_ended, spawn_ractor, tell, KRef, GONE};
use crate::kernels::plain::{by_ref, on_runtime_ref, Plain};
use crate::kernels::{About, Kernel, KernelInfo, Size};

/// The data structure a server holds.
pub(crate) trait Store: Send + Sync + 'static {
    /// A request.
    type Op: Copy + Send + Sync + 'static;
    /// Whether `op` only reads.
    fn is_read(op: Self::Op) -> bool;
    /// Serves a read.
    fn read(&self, op: Self::Op) -> u64;
    /// Serves a write.
    fn write(&mut self, op: Self::Op) -> u64;
    /// A digest of the contents.
    fn checksum(&self) -> u64;
}

/// A kernel's input: the clients' requests and the server's first contents.
pub(crate) trait Workload: Copy + Send + Sync + 'static {
    /// What the server holds.
    type S: Store;
    /// W.
    fn clients(self) -> u64;
    /// R.
    fn requests(self) -> u64;
    /// The store before the first request.
    fn store(self) -> Self::S;
    /// Client `c`'s request `j`; it touches only client `c`'s keys.
    fn op(self, c: u64, j: u64) -> <Self::S as Store>::Op;
}

/// The answer: (Σ replies, the store's checksum), the sum wrapping.
pub type Answer = (u64, u64);

/// Serves `op`.
fn serve<S: Store>(store: &mut S, op: S::Op) -> u64 {
    if S::is_read(op) {
        store.read(op)
    } else {
        store.write(op)
    }
}

/// The clients, `order`ed, each replayed on its own.
fn replay<W: Workload>(w: W, order: impl Iterator<Item = u64>) -> Answer {
    let mut store = w.store();
    let mut sum = 0u64;
    for c in order {
        for j in 0..w.requests() {
            sum = sum.wrapping_add(serve(&mut store, w.op(c, j)));
        }
    }
    (sum, store.checksum())
}

/// The kernel's state on `w` (described by `label`).
pub(crate) fn state<W: Workload>(w: W, label: String) -> Plain<W, Answer> {
    Plain::checked(w, label, check)
}

/// The declaration of a reader-writer kernel whose workload `prepare` builds, with every
/// contender.
pub(crate) fn declare<W: Workload>(
    about: About,
    prepare: fn(Size) -> Plain<W, Answer>,
) -> KernelInfo {
    Kernel::new(about, prepare, by_ref(serial::<W>))
        .offshoot(by_ref(offshoot::<W>))
        .offshoot_actors(by_ref(offshoot_actors::<W>))
        .offshoot_tasks(by_ref(offshoot_tasks::<W>))
        .tokio(on_runtime_ref(tokio::<W>))
        .kameo(on_runtime_ref(kameo::<W>))
        .threads(by_ref(threads::<W>))
        .build()
}

/// The plain loop.
pub(crate) fn serial<W: Workload>(w: &W) -> Answer {
    replay(*w, 0..w.clients())
}

/// The oracle: the clients replayed in the other order.
pub(crate) fn check<W: Workload>(w: &W, got: Answer) -> Result<(), String> {
    let want = replay(*w, (0..w.clients()).rev());
    if got == want {
        Ok(())
    } else {
        Err(format!("(replies, checksum) {got:?}, expected {want:?}"))
    }
}

offshoot::mailboxes! {
    /// The reader-writer server's mailboxes, in priority order.
    enum Port {
        ReadDone,
        Write,
        Read,
    }
}

/// What the reader-writer server receives.
enum Req<W: Workload> {
    /// A read task is done.
    Done,
    /// A client's request and its address.
    Do(<W::S as Store>::Op, ActorRef<Client<W>>),
}

/// A request and the client to answer.
type Pending<W> = (<<W as Workload>::S as Store>::Op, ActorRef<Client<W>>);

/// The offshoot reader-writer server; its checksum goes to `shown` at its exit.
struct RwServer<W: Workload> {
    store: Arc<W::S>,
    readers: usize,
    waiting: Option<Pending<W>>,
    shown: Arc<AtomicU64>,
}

impl<W: Workload> RwServer<W> {
    fn write(&mut self, op: <W::S as Store>::Op, to: ActorRef<Client<W>>) {
        let store = Arc::get_mut(&mut self.store).expect("rw: a write overlaps a read");
        to.send(store.write(op));
    }
}

impl<W: Workload> Selector for RwServer<W> {
    type Mailbox = Port;
    type Message = Req<W>;
    fn receive(&mut self, port: Port, req: Req<W>, ctx: &mut SelectorContext<'_, Self>) {
        match (port, req) {
            (_, Req::Done) => {
                self.readers -= 1;
                if self.readers == 0 {
                    if let Some((op, to)) = self.waiting.take() {
                        self.write(op, to);
                        ctx.enable_all();
                    }
                }
            }
            (Port::Read, Req::Do(op, to)) => {
                self.readers += 1;
                let (store, me) = (self.store.clone(), ctx.myself());
                offshoot::finish::spawn(move || {
                    let v = store.read(op);
                    drop(store); // before the server hears of it
                    to.send(v);
                    me.send(Port::ReadDone, Req::Done);
                });
            }
            (_, Req::Do(op, to)) if self.readers == 0 => self.write(op, to),
            (_, Req::Do(op, to)) => {
                self.waiting = Some((op, to));
                ctx.disable_all_except(Port::ReadDone);
            }
        }
    }
}

impl<W: Workload> Drop for RwServer<W> {
    fn drop(&mut self) {
        self.shown.store(self.store.checksum(), Ordering::Relaxed);
    }
}

/// The offshoot plain-actor server; its checksum goes to `shown` at its exit.
struct PlainServer<W: Workload> {
    store: W::S,
    shown: Arc<AtomicU64>,
}

impl<W: Workload> Actor for PlainServer<W> {
    type Message = (<W::S as Store>::Op, ActorRef<Client<W>>);
    fn receive(&mut self, (op, to): Self::Message, _: &mut Context<'_, Self>) {
        to.send(serve(&mut self.store, op));
    }
}

impl<W: Workload> Drop for PlainServer<W> {
    fn drop(&mut self) {
        self.shown.store(self.store.checksum(), Ordering::Relaxed);
    }
}

/// Either offshoot server.
enum Server<W: Workload> {
    Rw(SelectorRef<RwServer<W>>),
    Plain(ActorRef<PlainServer<W>>),
}

impl<W: Workload> Server<W> {
    fn send(&self, op: <W::S as Store>::Op, from: ActorRef<Client<W>>) {
        match self {
            Server::Rw(s) => {
                let port = if W::S::is_read(op) {
                    Port::Read
                } else {
                    Port::Write
                };
                s.send(port, Req::Do(op, from));
            }
            Server::Plain(s) => s.send((op, from)),
        }
    }
}

/// An offshoot client: each reply (a first 0 starts it) is added to its sum and
/// answered with the next request; its sum goes to `tally` at its exit.
struct Client<W: Workload> {
    w: W,
    me: u64,
    next: u64,
    sum: u64,
    server: Arc<Server<W>>,
    tally: Arc<AtomicU64>,
}

impl<W: Workload> Actor for Client<W> {
    type Message = u64;
    fn receive(&mut self, reply: u64, ctx: &mut Context<'_, Self>) {
        self.sum = self.sum.wrapping_add(reply);
        if self.next < self.w.requests() {
            self.server
                .send(self.w.op(self.me, self.next), ctx.myself());
            self.next += 1;
        } else {
            self.tally.fetch_add(self.sum, Ordering::Relaxed);
            ctx.exit();
        }
    }
}

/// Starts the server that `start` makes (given where its checksum goes) and the
/// clients on offshoot actors, and waits for them all.
fn run<W: Workload>(w: W, start: impl FnOnce(Arc<AtomicU64>) -> Server<W> + Send) -> Answer {
    let (tally, shown) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    offshoot::finish(|| {
        let server = Arc::new(start(shown.clone()));
        for me in 0..w.clients() {
            actor::start(Client {
                w,
                me,
                next: 0,
                sum: 0,
                server: server.clone(),
                tally: tally.clone(),
            })
            .send(0);
        }
    });
    (tally.load(Ordering::Relaxed), shown.load(Ordering::Relaxed))
}

/// The reader-writer selector server; call inside `offshoot::ThreadPool::run`.
pub(crate) fn offshoot<W: Workload>(w: &W) -> Answer {
    run(*w, |shown| {
        Server::Rw(actor::start_selector(RwServer {
            store: Arc::new(w.store()),
            readers: 0,
            waiting: None,
            shown,
        }))
    })
}

/// The plain-actor server; call inside `offshoot::ThreadPool::run`.
pub(crate) fn offshoot_actors<W: Workload>(w: &W) -> Answer {
    run(*w, |shown| {
        Server::Plain(actor::start(PlainServer {
            store: w.store(),
            shown,
        }))
    })
}

/// The clients as tasks sharing the store behind an `offshoot::sync::RwLock`; call
/// inside `offshoot::ThreadPool::run`.
pub(crate) fn offshoot_tasks<W: Workload>(w: &W) -> Answer {
    let w = *w;
    let store = offshoot::sync::RwLock::new(w.store());
    let mut sums = vec![0u64; w.clients() as usize];
    offshoot::scope(|s| {
        for (c, sum) in sums.iter_mut().enumerate() {
            let store = &store;
            s.spawn(move |_| {
                for j in 0..w.requests() {
                    let op = w.op(c as u64, j);
                    let reply = if W::S::is_read(op) {
                        store.read().read(op)
                    } else {
                        store.write().write(op)
                    };
                    *sum = sum.wrapping_add(reply);
                }
            });
        }
    });
    let sum = sums.into_iter().fold(0u64, u64::wrapping_add);
    (sum, store.into_inner().checksum())
}

/// ractor's server: its state is the store, whose checksum goes to `shown` in
/// `post_stop`.
struct RServer<W: Workload> {
    w: W,
    shown: Arc<AtomicU64>,
}

impl<W: Workload> ractor::Actor for RServer<W> {
    type Msg = (<W::S as Store>::Op, ractor::ActorRef<u64>);
    type State = W::S;
    type Arguments = ();
    async fn pre_start(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        _: (),
    ) -> Result<W::S, ractor::ActorProcessingErr> {
        Ok(self.w.store())
    }
    async fn handle(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        (op, to): Self::Msg,
        store: &mut W::S,
    ) -> Result<(), ractor::ActorProcessingErr> {
        cast(&to, serve(store, op));
        Ok(())
    }
    async fn post_stop(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        store: &mut W::S,
    ) -> Result<(), ractor::ActorProcessingErr> {
        self.shown.store(store.checksum(), Ordering::Relaxed);
        Ok(())
    }
}

/// ractor's client (its argument is its number; its state (next request, sum)); it
/// adds its sum to `tally` and stops after its last reply.
struct RClient<W: Workload> {
    w: W,
    server: ractor::ActorRef<(<W::S as Store>::Op, ractor::ActorRef<u64>)>,
    tally: Arc<AtomicU64>,
}

impl<W: Workload> ractor::Actor for RClient<W> {
    type Msg = u64;
    type State = (u64, u64, u64);
    type Arguments = u64;
    async fn pre_start(
        &self,
        _: ractor::ActorRef<u64>,
        me: u64,
    ) -> Result<Self::State, ractor::ActorProcessingErr> {
        Ok((me, 0, 0))
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<u64>,
        reply: u64,
        (me, next, sum): &mut Self::State,
    ) -> Result<(), ractor::ActorProcessingErr> {
        *sum = sum.wrapping_add(reply);
        if *next < self.w.requests() {
            cast(&self.server, (self.w.op(*me, *next), myself));
            *next += 1;
        } else {
            self.tally.fetch_add(*sum, Ordering::Relaxed);
            myself.stop(None);
        }
        Ok(())
    }
}

/// ractor actors on the tokio runtime.
pub(crate) fn tokio<W: Workload>(rt: &tokio::runtime::Runtime, w: &W) -> Answer {
    let (tally, shown) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    rt.block_on(async {
        let server = RServer {
            w: *w,
            shown: shown.clone(),
        };
        let (server, server_done) = spawn_ractor(server, ()).await;
        let mut handles = Vec::new();
        for me in 0..w.clients() {
            let client = RClient {
                w: *w,
                server: server.clone(),
                tally: tally.clone(),
            };
            let (c, h) = spawn_ractor(client, me).await;
            cast(&c, 0);
            handles.push(h);
        }
        for h in handles {
            joined(h).await;
        }
        server.drain().expect(GONE);
        joined(server_done).await;
    });
    (tally.load(Ordering::Relaxed), shown.load(Ordering::Relaxed))
}

/// kameo's server: the store (its checksum is read from the final state).
#[derive(kameo::Actor)]
struct KServer<W: Workload> {
    store: W::S,
}

impl<W: Workload> kameo::message::Message<(<W::S as Store>::Op, KRef<KClient<W>>)> for KServer<W> {
    type Reply = ();
    async fn handle(
        &mut self,
        (op, to): (<W::S as Store>::Op, KRef<KClient<W>>),
        _: &mut kameo::message::Context<Self, ()>,
    ) {
        tell(&to, serve(&mut self.store, op));
    }
}

/// kameo's client: its number, its next request and its sum; it stops after its last
/// reply, its sum in its final state.
#[derive(kameo::Actor)]
struct KClient<W: Workload> {
    w: W,
    me: u64,
    next: u64,
    sum: u64,
    server: KRef<KServer<W>>,
}

impl<W: Workload> kameo::message::Message<u64> for KClient<W> {
    type Reply = ();
    async fn handle(&mut self, reply: u64, ctx: &mut kameo::message::Context<Self, ()>) {
        self.sum = self.sum.wrapping_add(reply);
        if self.next < self.w.requests() {
            let op = self.w.op(self.me, self.next);
            tell(&self.server, (op, ctx.actor_ref().clone()));
            self.next += 1;
        } else {
            ctx.stop();
        }
    }
}

/// kameo actors on the tokio runtime.
pub(crate) fn kameo<W: Workload>(rt: &tokio::runtime::Runtime, w: &W) -> Answer {
    rt.block_on(async {
        let (server, server_end) = spawn_kameo_ended(KServer::<W> { store: w.store() });
        let clients: Vec<_> = (0..w.clients())
            .map(|me| {
                let (c, end) = spawn_kameo_ended(KClient {
                    w: *w,
                    me,
                    next: 0,
                    sum: 0,
                    server: server.clone(),
                });
                tell(&c, 0);
                (c, end)
            })
            .collect();
        let mut sum = 0u64;
        for (_c, end) in clients {
            sum = sum.wrapping_add(ended(end).await.sum);
        }
        drain(&server).await;
        (sum, ended(server_end).await.store.checksum())
    })
}

/// A server thread and one thread per client.
pub(crate) fn threads<W: Workload>(w: &W) -> Answer {
    let w = *w;
    let (to_server, requests) = mpsc::channel::<(usize, <W::S as Store>::Op)>();
    let (reply_to, replies): (Vec<_>, Vec<_>) =
        (0..w.clients()).map(|_| mpsc::channel::<u64>()).unzip();
    std::thread::scope(|s| {
        let server = s.spawn(move || {
            let mut store = w.store();
            for (c, op) in requests {
                reply_to[c].send(serve(&mut store, op)).expect(GONE);
            }
            store.checksum()
        });
        let clients: Vec<_> = replies
            .into_iter()
            .enumerate()
            .map(|(c, replies)| {
                let to_server = to_server.clone();
                s.spawn(move || {
                    let mut sum = 0u64;
                    for j in 0..w.requests() {
                        to_server.send((c, w.op(c as u64, j))).expect(GONE);
                        sum = sum.wrapping_add(replies.recv().expect(GONE));
                    }
                    sum
                })
            })
            .collect();
        drop(to_server); // the server's loop ends with the clients
        let sum = clients
            .into_iter()
            .fold(0u64, |s, c| s.wrapping_add(c.join().expect(GONE)));
        (sum, server.join().expect(GONE))
    })
}
