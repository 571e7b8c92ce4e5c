//! A mesh of actors that address each other by number and report completions to a
//! sink, written once for the kernels whose actors share that shape (`bank`'s ractor and
//! thread accounts, `big`'s actors on every contender): a [`Member`] is one actor's
//! logic, and [`offshoot`], [`tokio`], [`kameo`] and [`threads`] run a mesh of them on
//! plain `offshoot::actor` actors, ractor actors, kameo actors and OS threads, [`tasks`]
//! on offshoot tasks.
//!
//! Each runner starts the members and the sink, gives every member the addresses of the
//! others and of the sink (a first `Link` message on the actors, before any other),
//! sends the `orders` in their order, waits for `completions` calls of `done`, then stops
//! the members (which hold handles to each other) and returns their final states in
//! member order. [`tasks`] runs the same mesh without actors: a task per member, each
//! looping `recv` on its `offshoot::sync` channel, and the calling task as the sink.
//!
//! Invariant: the five runners deliver the same messages in the same per-sender order.

use std::sync::{mpsc, Arc, Mutex};

use offshoot::actor::{self, Actor, ActorRef, Context};

use super::{
    cast, drain, ended, joined, spawn_kameo, spawn_kameo_ended, spawn_ractor, stopped, tell, KRef,
    GONE,
};

/// One actor's logic in a mesh.
pub(crate) trait Member: Send + 'static {
    /// What members receive.
    type Msg: Send + 'static;
    /// Handles `msg`: `send(to, msg)` reaches member `to`, `done()` counts a completion
    /// at the sink.
    fn receive(&mut self, msg: Self::Msg, send: impl FnMut(usize, Self::Msg), done: impl FnMut());
}

/// The offshoot sink: counts down the completions, then answers and exits.
pub(crate) struct Sink {
    /// Completions still to come.
    pub(crate) left: u64,
    /// Put when the last one came.
    pub(crate) done: offshoot::sync::Promise<()>,
}

impl Actor for Sink {
    type Message = ();
    fn receive(&mut self, (): (), ctx: &mut Context<'_, Self>) {
        self.left -= 1;
        if self.left == 0 {
            self.done.put(()).expect("savina: one end");
            ctx.exit();
        }
    }
}

/// The ractor sink: counts down the completions (its state), then stops.
pub(crate) struct RSink;

impl ractor::Actor for RSink {
    type Msg = ();
    type State = u64;
    type Arguments = u64;
    async fn pre_start(
        &self,
        _: ractor::ActorRef<()>,
        completions: u64,
    ) -> Result<u64, ractor::ActorProcessingErr> {
        Ok(completions)
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<()>,
        (): (),
        left: &mut u64,
    ) -> Result<(), ractor::ActorProcessingErr> {
        *left -= 1;
        if *left == 0 {
            myself.stop(None);
        }
        Ok(())
    }
}

/// Where the members' final states land, in member order.
type Finals<M> = Arc<Mutex<Vec<Option<M>>>>;

/// Takes the final states out of `finals`.
fn collect<M>(finals: Finals<M>) -> Vec<M> {
    let mut f = finals.lock().expect("savina: finals");
    f.iter_mut()
        .map(|m| m.take().expect("savina: every member ended"))
        .collect()
}

/// What a mesh actor receives: the addresses `R` of the others and the sink's `S`, then
/// its members' messages.
enum Mail<T, R, S> {
    Link(Arc<(Vec<R>, S)>),
    Do(T),
}

/// The offshoot mesh actors' addresses: the others and the sink.
type OBook<M> = Arc<(Vec<ActorRef<OActor<M>>>, ActorRef<Sink>)>;

/// A member on an offshoot actor; its state goes to `finals` as the actor exits.
struct OActor<M: Member> {
    me: usize,
    member: Option<M>,
    book: Option<OBook<M>>,
    finals: Finals<M>,
}

impl<M: Member> Actor for OActor<M> {
    type Message = Mail<M::Msg, ActorRef<OActor<M>>, ActorRef<Sink>>;
    fn receive(&mut self, mail: Self::Message, _: &mut Context<'_, Self>) {
        match mail {
            Mail::Link(book) => self.book = Some(book),
            Mail::Do(msg) => {
                let (others, sink) = &**self.book.as_ref().expect("savina: linked first");
                self.member.as_mut().expect("savina: running").receive(
                    msg,
                    |to, m| others[to].send(Mail::Do(m)),
                    || sink.send(()),
                );
            }
        }
    }
}

impl<M: Member> Drop for OActor<M> {
    fn drop(&mut self) {
        self.finals.lock().expect("savina: finals")[self.me] = self.member.take();
    }
}

/// The mesh on offshoot actors; call inside `offshoot::ThreadPool::run`.
pub(crate) fn offshoot<M: Member>(
    members: Vec<M>,
    orders: impl IntoIterator<Item = (usize, M::Msg)> + Send,
    completions: u64,
) -> Vec<M> {
    let finals: Finals<M> = Arc::new(Mutex::new(members.iter().map(|_| None).collect()));
    offshoot::finish(|| {
        let done = offshoot::sync::Promise::new();
        let sink = actor::start(Sink {
            left: completions,
            done: done.clone(),
        });
        let actors: Vec<_> = members
            .into_iter()
            .enumerate()
            .map(|(me, m)| {
                actor::start(OActor {
                    me,
                    member: Some(m),
                    book: None,
                    finals: finals.clone(),
                })
            })
            .collect();
        let book = Arc::new((actors.clone(), sink.clone()));
        for a in &actors {
            a.send(Mail::Link(book.clone()));
        }
        drop(book);
        for (to, m) in orders {
            actors[to].send(Mail::Do(m));
        }
        if completions > 0 {
            done.get();
        } else {
            sink.stop();
        }
        for a in &actors {
            a.stop(); // they hold handles to each other
        }
    });
    collect(finals)
}

/// The ractor mesh actors' addresses: the others and the sink.
type RBook<T> = Arc<(Vec<ractor::ActorRef<RMail<T>>>, ractor::ActorRef<()>)>;

/// A ractor mesh actor's messages (as [`Mail`]).
enum RMail<T> {
    Link(RBook<T>),
    Do(T),
}

/// A member on a ractor actor (its argument is (its number, the member)); its state
/// goes to `finals` in `post_stop`.
struct RActor<M: Member> {
    finals: Finals<M>,
}

impl<M: Member> ractor::Actor for RActor<M> {
    type Msg = RMail<M::Msg>;
    type State = (usize, Option<M>, Option<RBook<M::Msg>>);
    type Arguments = (usize, M);
    async fn pre_start(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        (me, m): (usize, M),
    ) -> Result<Self::State, ractor::ActorProcessingErr> {
        Ok((me, Some(m), None))
    }
    async fn handle(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        mail: Self::Msg,
        (_, member, book): &mut Self::State,
    ) -> Result<(), ractor::ActorProcessingErr> {
        match mail {
            RMail::Link(b) => *book = Some(b),
            RMail::Do(msg) => {
                let (others, sink) = &**book.as_ref().expect("savina: linked first");
                member.as_mut().expect("savina: running").receive(
                    msg,
                    |to, m| cast(&others[to], RMail::Do(m)),
                    || cast(sink, ()),
                );
            }
        }
        Ok(())
    }
    async fn post_stop(
        &self,
        _: ractor::ActorRef<Self::Msg>,
        (me, member, _): &mut Self::State,
    ) -> Result<(), ractor::ActorProcessingErr> {
        self.finals.lock().expect("savina: finals")[*me] = member.take();
        Ok(())
    }
}

/// The mesh on ractor actors on the tokio runtime.
pub(crate) fn tokio<M: Member>(
    rt: &tokio::runtime::Runtime,
    members: Vec<M>,
    orders: impl IntoIterator<Item = (usize, M::Msg)>,
    completions: u64,
) -> Vec<M> {
    let finals: Finals<M> = Arc::new(Mutex::new(members.iter().map(|_| None).collect()));
    rt.block_on(async {
        let (sink, sink_done) = spawn_ractor(RSink, completions).await;
        let mut actors = Vec::new();
        let mut handles = Vec::new();
        for (me, m) in members.into_iter().enumerate() {
            let actor = RActor {
                finals: finals.clone(),
            };
            let (a, h) = spawn_ractor(actor, (me, m)).await;
            actors.push(a);
            handles.push(h);
        }
        let book = Arc::new((actors.clone(), sink.clone()));
        for a in &actors {
            cast(a, RMail::Link(book.clone()));
        }
        drop(book);
        for (to, m) in orders {
            cast(&actors[to], RMail::Do(m));
        }
        if completions == 0 {
            sink.stop(None);
        }
        joined(sink_done).await;
        for (a, h) in actors.iter().zip(handles) {
            a.drain().expect(GONE);
            joined(h).await;
        }
    });
    collect(finals)
}

/// The kameo sink: counts down the completions, then stops.
#[derive(kameo::Actor)]
pub(crate) struct KSink {
    left: u64,
}

impl kameo::message::Message<()> for KSink {
    type Reply = ();
    async fn handle(&mut self, (): (), ctx: &mut kameo::message::Context<Self, ()>) {
        self.left -= 1;
        if self.left == 0 {
            ctx.stop();
        }
    }
}

/// The kameo mesh actors' addresses: the others and the sink.
type KBook<M> = Arc<(Vec<KRef<KActor<M>>>, KRef<KSink>)>;

/// A member on a kameo actor; its final state holds the member's.
#[derive(kameo::Actor)]
struct KActor<M: Member> {
    member: M,
    book: Option<KBook<M>>,
}

impl<M: Member> kameo::message::Message<Mail<M::Msg, KRef<KActor<M>>, KRef<KSink>>> for KActor<M> {
    type Reply = ();
    async fn handle(
        &mut self,
        mail: Mail<M::Msg, KRef<KActor<M>>, KRef<KSink>>,
        _: &mut kameo::message::Context<Self, ()>,
    ) {
        match mail {
            Mail::Link(book) => self.book = Some(book),
            Mail::Do(msg) => {
                let (others, sink) = &**self.book.as_ref().expect("savina: linked first");
                self.member.receive(
                    msg,
                    |to, m| tell(&others[to], Mail::Do(m)),
                    || tell(sink, ()),
                );
            }
        }
    }
}

/// The mesh on kameo actors on the tokio runtime.
pub(crate) fn kameo<M: Member>(
    rt: &tokio::runtime::Runtime,
    members: Vec<M>,
    orders: impl IntoIterator<Item = (usize, M::Msg)>,
    completions: u64,
) -> Vec<M> {
    rt.block_on(async {
        let sink = spawn_kameo(KSink { left: completions });
        let (actors, ends): (Vec<_>, Vec<_>) = members
            .into_iter()
            .map(|member| spawn_kameo_ended(KActor { member, book: None }))
            .unzip();
        let book = Arc::new((actors.clone(), sink.clone()));
        for a in &actors {
            tell(a, Mail::Link(book.clone()));
        }
        drop(book);
        for (to, m) in orders {
            tell(&actors[to], Mail::Do(m));
        }
        if completions == 0 {
            sink.stop_gracefully().await.expect(GONE);
        }
        stopped(&sink).await;
        let mut finals = Vec::new();
        for (a, end) in actors.iter().zip(ends) {
            drain(a).await; // they hold handles to each other
            finals.push(ended(end).await.member);
        }
        finals
    })
}

/// The mesh on one OS thread per member, with `std::sync::mpsc` mailboxes; the calling
/// thread is the sink. A `None` message stops a member's thread, which returns it.
pub(crate) fn threads<M: Member>(
    members: Vec<M>,
    orders: impl IntoIterator<Item = (usize, M::Msg)>,
    completions: u64,
) -> Vec<M> {
    let (senders, inboxes): (Vec<_>, Vec<_>) = members
        .iter()
        .map(|_| mpsc::channel::<Option<M::Msg>>())
        .unzip();
    let (to_sink, sink) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        let threads: Vec<_> = members
            .into_iter()
            .zip(inboxes)
            .map(|(mut member, inbox)| {
                let (others, to_sink) = (senders.clone(), to_sink.clone());
                s.spawn(move || {
                    while let Some(m) = inbox.recv().expect(GONE) {
                        member.receive(
                            m,
                            |to, m| others[to].send(Some(m)).expect(GONE),
                            || to_sink.send(()).expect(GONE),
                        );
                    }
                    member
                })
            })
            .collect();
        for (to, m) in orders {
            senders[to].send(Some(m)).expect(GONE);
        }
        for _ in 0..completions {
            sink.recv().expect(GONE);
        }
        for s in &senders {
            s.send(None).expect(GONE);
        }
        threads.into_iter().map(|t| t.join().expect(GONE)).collect()
    })
}

/// The mesh on offshoot tasks: one task per member in an `offshoot::scope`, its mailbox
/// an `offshoot::sync::unbounded` channel; the members borrow each other's senders (the
/// scope outlives them), and their completions advance an `offshoot::sync::EventCount`
/// that the calling task, the sink, waits on. A `None` message ends a member's loop,
/// leaving its final state in place. Call inside `offshoot::ThreadPool::run`.
pub(crate) fn tasks<M: Member>(
    mut members: Vec<M>,
    orders: impl IntoIterator<Item = (usize, M::Msg)> + Send,
    completions: u64,
) -> Vec<M> {
    let (senders, inboxes): (Vec<_>, Vec<_>) = members
        .iter()
        .map(|_| offshoot::sync::unbounded::<Option<M::Msg>>())
        .unzip();
    let completed = offshoot::sync::EventCount::new();
    offshoot::scope(|s| {
        let (senders, completed) = (&senders, &completed);
        for (member, inbox) in members.iter_mut().zip(inboxes) {
            s.spawn(move |_| {
                for msg in inbox.iter().map_while(|m| m) {
                    let send = |to: usize, m| senders[to].send(Some(m)).expect(GONE);
                    member.receive(msg, send, || {
                        completed.advance();
                    });
                }
            });
        }
        for (to, m) in orders {
            senders[to].send(Some(m)).expect(GONE);
        }
        completed.wait_until(completions);
        senders.iter().for_each(|s| s.send(None).expect(GONE));
    });
    members
}
