//! Actors (`offshoot::actor`): ordering per sender, one message at a time, the lifecycle
//! (start, exit, stop, no handle left, the owning finish waiting for the exit), failures
//! in handlers, handlers that fork and wait, many actors, and a cycle of actors waiting on
//! each other's replies reported by the deadlock watch. Every test is bounded and uses no
//! sleeps or timing; pools of 1 to 4 workers.
#![cfg(all(feature = "actor", feature = "sync"))]

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::{boom, boom_msg, bounded, fib, panic_message, pool, POOL_SIZES};
use offshoot::actor::{self, Actor, ActorRef, Context};
use offshoot::prelude::*;
use offshoot::sync::Promise;

/// Records, per sender, the last sequence number seen; asserts they increase by one.
struct Fifo {
    last: Vec<Option<u64>>,
    count: Arc<AtomicU64>,
}

impl Actor for Fifo {
    type Message = (usize, u64);
    fn receive(&mut self, (sender, seq): (usize, u64), _: &mut Context<'_, Self>) {
        let want = self.last[sender].map_or(0, |s| s + 1);
        assert_eq!(seq, want, "sender {sender}: out of order");
        self.last[sender] = Some(seq);
        self.count.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn handles_are_clone_send_and_sync() {
    fn check<T: Clone + Send + Sync + 'static>() {}
    check::<ActorRef<Fifo>>();
    check::<actor::SelectorRef<Fifo2>>();
}

/// A selector with nothing to do: only its handle's traits are checked.
struct Fifo2;

impl actor::Selector for Fifo2 {
    type Mailbox = actor::Numbered<2>;
    type Message = std::cell::Cell<u64>; // `Send`, not `Sync`: the handle is still `Sync`
    fn receive(
        &mut self,
        _: actor::Numbered<2>,
        _: Self::Message,
        _: &mut actor::SelectorContext<'_, Self>,
    ) {
    }
}

#[test]
fn messages_from_one_sender_arrive_in_order() {
    bounded(|| {
        for n in POOL_SIZES {
            let (senders, each) = (8usize, 2_000u64);
            let count = Arc::new(AtomicU64::new(0));
            let c = count.clone();
            pool(n).run(move || {
                let a = actor::start(Fifo {
                    last: vec![None; senders],
                    count: c,
                });
                offshoot::par_for(0..senders, |s| {
                    for i in 0..each {
                        a.send((s, i));
                    }
                });
            });
            assert_eq!(
                count.load(Ordering::Relaxed),
                senders as u64 * each,
                "{n} workers"
            );
        }
    });
}

/// Counts handlers running at once; forks and polls inside, so that other work (and other
/// drains, if the handshake were wrong) can run meanwhile.
struct Exclusive {
    inside: Arc<AtomicUsize>,
    overlaps: Arc<AtomicUsize>,
    done: Arc<AtomicU64>,
}

impl Actor for Exclusive {
    type Message = u64;
    fn receive(&mut self, x: u64, _: &mut Context<'_, Self>) {
        if self.inside.fetch_add(1, Ordering::SeqCst) != 0 {
            self.overlaps.fetch_add(1, Ordering::SeqCst);
        }
        let (a, b) = offshoot::join(|| fib(8), || fib(7));
        offshoot::poll();
        self.done.fetch_add(x + a + b - fib(9), Ordering::Relaxed);
        self.inside.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn at_most_one_message_in_flight() {
    bounded(|| {
        for n in POOL_SIZES {
            let inside = Arc::new(AtomicUsize::new(0));
            let overlaps = Arc::new(AtomicUsize::new(0));
            let done = Arc::new(AtomicU64::new(0));
            let (i, o, d) = (inside.clone(), overlaps.clone(), done.clone());
            pool(n).run(move || {
                let a = actor::start(Exclusive {
                    inside: i,
                    overlaps: o,
                    done: d,
                });
                // Many senders, some inside the pool and one outside it.
                let outside = {
                    let a = a.clone();
                    std::thread::spawn(move || (0..500u64).for_each(|x| a.send(x)))
                };
                offshoot::par_for(0..16, |s| {
                    (0..100u64).for_each(|x| a.send(s as u64 * 100 + x))
                });
                outside.join().unwrap();
            });
            assert_eq!(overlaps.load(Ordering::SeqCst), 0, "{n} workers");
            let want: u64 = (0..500).sum::<u64>() + (0..1600).sum::<u64>();
            assert_eq!(done.load(Ordering::Relaxed), want, "{n} workers");
        }
    });
}

/// Counts what it processes; exits on `exit_at`.
struct Quitter {
    exit_at: u64,
    seen: Arc<AtomicU64>,
}

impl Actor for Quitter {
    type Message = u64;
    fn receive(&mut self, x: u64, ctx: &mut Context<'_, Self>) {
        self.seen.fetch_add(1, Ordering::Relaxed);
        if x == self.exit_at {
            ctx.exit();
        }
    }
}

#[test]
fn messages_after_exit_are_dropped_and_counted() {
    bounded(|| {
        for n in POOL_SIZES {
            let seen = Arc::new(AtomicU64::new(0));
            let s = seen.clone();
            let a = pool(n).run(move || {
                let a = actor::start(Quitter {
                    exit_at: 4,
                    seen: s,
                });
                // One sender: messages 0..=4 are processed, 5..10 dropped (sent before or
                // after the exit, whichever it is).
                for x in 0..10 {
                    a.send(x);
                }
                a
            });
            assert!(a.is_exited());
            assert_eq!(seen.load(Ordering::Relaxed), 5, "{n} workers");
            assert_eq!(a.dropped(), 5, "{n} workers");
            a.send(99);
            a.clone().send(100);
            assert_eq!(a.dropped(), 7);
            assert_eq!(seen.load(Ordering::Relaxed), 5);
        }
    });
}

/// Sets `done` when its state is dropped (the exit).
struct Flag(Arc<AtomicBool>, Arc<AtomicU64>);

impl Actor for Flag {
    type Message = u64;
    fn receive(&mut self, x: u64, _: &mut Context<'_, Self>) {
        self.1.fetch_add(x, Ordering::Relaxed);
    }
}

impl Drop for Flag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn the_owning_finish_ends_after_the_actor_exits() {
    bounded(|| {
        for n in POOL_SIZES {
            pool(n).run(|| {
                let exited = Arc::new(AtomicBool::new(false));
                let sum = Arc::new(AtomicU64::new(0));
                let keep = Mutex::new(None);
                offshoot::finish(|| {
                    let a = actor::start(Flag(exited.clone(), sum.clone()));
                    for x in 1..=100 {
                        a.send(x);
                    }
                    // A handle outside the finish keeps the actor alive; the explicit stop
                    // lets it exit once its mailbox is empty.
                    a.stop();
                    *keep.lock().unwrap() = Some(a);
                });
                assert!(exited.load(Ordering::SeqCst), "{n} workers");
                assert_eq!(sum.load(Ordering::Relaxed), 5050);
                let a = keep.lock().unwrap().take().unwrap();
                assert!(a.is_exited());
                assert_eq!(a.dropped(), 0);
                // The scope form, with the last handle dropped instead of a stop.
                let exited = Arc::new(AtomicBool::new(false));
                offshoot::scope(|_| {
                    let a = actor::start(Flag(exited.clone(), sum.clone()));
                    a.send(1);
                });
                assert!(exited.load(Ordering::SeqCst), "{n} workers");
                assert_eq!(sum.load(Ordering::Relaxed), 5051);
            });
        }
    });
}

#[test]
fn sends_from_threads_outside_the_pool() {
    bounded(|| {
        for n in [1, 2] {
            let exited = Arc::new(AtomicBool::new(false));
            let sum = Arc::new(AtomicU64::new(0));
            let (e, s) = (exited.clone(), sum.clone());
            let p = pool(n);
            // Started inside, handed out, fed by 3 outside threads while `run` waits.
            p.run(move || {
                let a = actor::start(Flag(e, s));
                let threads: Vec<_> = (0..3)
                    .map(|_| {
                        let a = a.clone();
                        std::thread::spawn(move || (1..=1000).for_each(|x| a.send(x)))
                    })
                    .collect();
                drop(a);
                for t in threads {
                    t.join().unwrap();
                }
            });
            assert!(exited.load(Ordering::SeqCst));
            assert_eq!(sum.load(Ordering::Relaxed), 3 * 500_500, "{n} workers");
        }
    });
}

#[test]
fn sends_from_another_pool() {
    bounded(|| {
        for n in [1, 2] {
            let (home, other) = (pool(n), pool(2));
            let exited = Arc::new(AtomicBool::new(false));
            let sum = Arc::new(AtomicU64::new(0));
            let (e, s) = (exited.clone(), sum.clone());
            home.run(move || {
                let a = actor::start(Flag(e, s));
                // The other pool's workers have no frame of this finish: every drain they
                // spawn goes to the finish's inbox.
                other.run(|| offshoot::par_for(0..1000, |x| a.send(x as u64)));
            });
            assert!(exited.load(Ordering::SeqCst));
            assert_eq!(sum.load(Ordering::Relaxed), 499_500, "{n} workers");
        }
    });
}

/// Panics on `boom_at`.
struct Fragile {
    boom_at: u64,
    seen: Arc<AtomicU64>,
}

impl Actor for Fragile {
    type Message = u64;
    fn receive(&mut self, x: u64, _: &mut Context<'_, Self>) {
        if x == self.boom_at {
            boom("handler");
        }
        self.seen.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn a_panic_in_a_handler_stops_the_actor_and_fails_its_finish() {
    bounded(|| {
        for n in POOL_SIZES {
            let seen = Arc::new(AtomicU64::new(0));
            let handle: Arc<Mutex<Option<ActorRef<Fragile>>>> = Arc::new(Mutex::new(None));
            let (s, h) = (seen.clone(), handle.clone());
            let p = pool(n);
            let msg = panic_message(|| {
                p.run(move || {
                    let a = actor::start(Fragile {
                        boom_at: 3,
                        seen: s,
                    });
                    *h.lock().unwrap() = Some(a.clone());
                    for x in 0..20 {
                        a.send(x);
                    }
                })
            });
            assert_eq!(msg, boom_msg("handler"), "{n} workers");
            let a = handle.lock().unwrap().take().unwrap();
            assert!(a.is_exited());
            assert_eq!(seen.load(Ordering::Relaxed), 3, "{n} workers");
            assert_eq!(a.dropped(), 16, "{n} workers: the 16 after the panic");
            // The same under `offshoot::scope` and `offshoot::finish` inside the pool.
            let msg = p.run(|| {
                let s = Arc::new(AtomicU64::new(0));
                let r = catch_unwind(AssertUnwindSafe(|| {
                    offshoot::scope(|_| {
                        let a = actor::start(Fragile {
                            boom_at: 0,
                            seen: s,
                        });
                        a.send(0);
                    })
                }));
                common::payload_str(&*r.unwrap_err()).unwrap().to_string()
            });
            assert_eq!(msg, boom_msg("handler"));
            let msg = p.run(|| {
                let s = Arc::new(AtomicU64::new(0));
                let r = catch_unwind(AssertUnwindSafe(|| {
                    offshoot::finish(|| {
                        let a = actor::start(Fragile {
                            boom_at: 1,
                            seen: s,
                        });
                        a.send(0);
                        a.send(1);
                    })
                }));
                common::payload_str(&*r.unwrap_err()).unwrap().to_string()
            });
            assert_eq!(msg, boom_msg("handler"));
        }
    });
}

#[test]
fn a_failing_sibling_stops_an_idle_actor_whose_handle_unwinds() {
    bounded(|| {
        for n in POOL_SIZES {
            let exited = Arc::new(AtomicBool::new(false));
            let sum = Arc::new(AtomicU64::new(0));
            let (e, s) = (exited.clone(), sum.clone());
            let msg = panic_message(|| {
                pool(n).run(move || {
                    let a = actor::start(Flag(e, s));
                    a.send(1);
                    offshoot::finish::spawn(|| boom("sibling"));
                    // Parks until the sibling's failure stops this task; the unwind drops
                    // the handle, and the actor exits.
                    Promise::<()>::new().get();
                    drop(a);
                })
            });
            assert_eq!(msg, boom_msg("sibling"), "{n} workers");
            assert!(exited.load(Ordering::SeqCst));
        }
    });
}

/// A handler that forks, spawns, and waits on a promise that a spawned task fulfils.
struct Forker {
    total: Arc<AtomicU64>,
}

impl Actor for Forker {
    type Message = u64;
    fn receive(&mut self, n: u64, _: &mut Context<'_, Self>) {
        let (a, b) = offshoot::join(|| fib(n), || fib(n + 1));
        let p = Promise::new();
        let q = p.clone();
        offshoot::finish::spawn(move || q.put(fib(n + 2)).unwrap());
        let c = *p.get();
        let d: u64 = (0..n).into_par_iter().map(fib).sum();
        assert_eq!(a + b, c);
        self.total.fetch_add(c + d, Ordering::Relaxed);
    }
}

#[test]
fn a_handler_forks_and_waits() {
    bounded(|| {
        for n in POOL_SIZES {
            let total = Arc::new(AtomicU64::new(0));
            let t = total.clone();
            pool(n).run(move || {
                let a = actor::start(Forker { total: t });
                for x in 5..25 {
                    a.send(x);
                }
            });
            let want: u64 = (5..25u64)
                .map(|x| fib(x + 2) + (0..x).map(fib).sum::<u64>())
                .sum();
            assert_eq!(total.load(Ordering::Relaxed), want, "{n} workers");
        }
    });
}

/// Adds its message once, then exits.
struct Once(Arc<AtomicU64>);

impl Actor for Once {
    type Message = u64;
    fn receive(&mut self, x: u64, ctx: &mut Context<'_, Self>) {
        self.0.fetch_add(x, Ordering::Relaxed);
        ctx.exit();
    }
}

#[test]
fn an_idle_actor_is_small() {
    // The engine without its queue (boxed apart, so that its 128-byte alignment does not
    // pad the engine's allocation): `examples/actors_cost.rs` measures the whole.
    let size = actor::engine_size_of::<Once>();
    assert!(
        size <= 160,
        "the engine of an actor with an 8-byte state is {size} bytes"
    );
    assert!(std::mem::align_of::<ActorRef<Once>>() <= 8);
}

#[test]
fn a_hundred_thousand_actors() {
    bounded(|| {
        for n in [1, 2, 4] {
            const N: u64 = 100_000;
            let sum = Arc::new(AtomicU64::new(0));
            let s = sum.clone();
            let refs = pool(n).run(move || {
                let refs: Vec<ActorRef<Once>> =
                    (0..N).map(|_| actor::start(Once(s.clone()))).collect();
                offshoot::par_for(0..N as usize, |i| refs[i].send(i as u64));
                refs
            });
            assert_eq!(sum.load(Ordering::Relaxed), N * (N - 1) / 2, "{n} workers");
            assert!(refs.iter().all(|r| r.is_exited() && r.dropped() == 0));
        }
    });
}

/// One side of a cycle: on `Go`, asks its peer and waits for the answer before answering
/// anyone — so two of them asking each other wait for ever.
struct Asker {
    peer: Option<ActorRef<Asker>>,
}

enum Ask {
    Peer(ActorRef<Asker>),
    Go,
    Question(Promise<u64>),
}

impl Actor for Asker {
    type Message = Ask;
    fn receive(&mut self, msg: Ask, _: &mut Context<'_, Self>) {
        match msg {
            Ask::Peer(p) => self.peer = Some(p),
            Ask::Go | Ask::Question(_) => {
                let answer = Promise::new();
                self.peer
                    .as_ref()
                    .unwrap()
                    .send(Ask::Question(answer.clone()));
                let v = *answer.get();
                if let Ask::Question(reply) = msg {
                    reply.put(v + 1).unwrap();
                }
            }
        }
    }
}

#[test]
fn actors_waiting_on_each_others_replies_are_reported_as_a_deadlock() {
    bounded(|| {
        for n in [1, 2] {
            let msg = panic_message(|| {
                pool(n).run(|| {
                    let (a, b) = (
                        actor::start(Asker { peer: None }),
                        actor::start(Asker { peer: None }),
                    );
                    a.send(Ask::Peer(b.clone()));
                    b.send(Ask::Peer(a.clone()));
                    a.send(Ask::Go);
                    b.send(Ask::Go);
                })
            });
            assert!(
                msg.starts_with("offshoot: deadlock:") && msg.contains("Promise"),
                "{n} workers: not a deadlock report: {msg}"
            );
        }
    });
}

/// Keeps a handle to another actor.
struct Holder(Option<ActorRef<Holder>>);

impl Actor for Holder {
    type Message = ActorRef<Holder>;
    fn receive(&mut self, other: ActorRef<Holder>, _: &mut Context<'_, Self>) {
        self.0 = Some(other);
    }
}

/// Two idle actors that hold each other's handles never exit, so the finish they were
/// started in would wait for ever: no task is parked, yet nothing can send to them. The
/// deadlock watch names both, and the report comes out of `run`.
#[test]
fn idle_actors_holding_each_other_are_reported_as_a_deadlock() {
    bounded(|| {
        for n in [1, 2, 3] {
            let msg = panic_message(|| {
                pool(n).run(|| {
                    let (a, b) = (actor::start(Holder(None)), actor::start(Holder(None)));
                    a.send(b.clone());
                    b.send(a);
                })
            });
            assert!(
                msg.starts_with("offshoot: deadlock:")
                    && msg.contains("2 actors wait")
                    && msg.matches("actor actors::Holder").count() == 2,
                "{n} workers: not a report of the two actors: {msg}"
            );
        }
    });
}

#[test]
fn sends_inside_an_isolated_section() {
    bounded(|| {
        for n in [1, 2] {
            let exited = Arc::new(AtomicBool::new(false));
            let sum = Arc::new(AtomicU64::new(0));
            let (e, s) = (exited.clone(), sum.clone());
            pool(n).run(move || {
                let a = actor::start(Flag(e, s));
                // A send is no parallel construct of the section: its drain runs after.
                offshoot::par_for(0..100, |x| offshoot::isolated(|| a.send(x as u64)));
                offshoot::isolated(move || drop(a));
            });
            assert!(exited.load(Ordering::SeqCst));
            assert_eq!(sum.load(Ordering::Relaxed), 4950, "{n} workers");
        }
    });
}

/// Answers each request with its number plus one, through the reply handle in the message.
struct Replier;

impl Actor for Replier {
    type Message = (u64, ActorRef<Requester>);
    fn receive(&mut self, (i, reply): (u64, ActorRef<Requester>), _: &mut Context<'_, Self>) {
        reply.send(i + 1);
        // `reply` is dropped here, right after the send: often the asker's last handle.
    }
}

/// Sends request after request, each with a fresh handle to itself, and puts the sum of
/// the replies once `n` came back.
struct Requester {
    echo: ActorRef<Replier>,
    sent: u64,
    n: u64,
    sum: u64,
    done: Promise<u64>,
}

impl Actor for Requester {
    type Message = u64;
    fn receive(&mut self, reply: u64, ctx: &mut Context<'_, Self>) {
        self.sum += reply;
        if self.sent < self.n {
            self.echo.send((self.sent, ctx.myself()));
            self.sent += 1;
        } else {
            self.done.put(self.sum).unwrap();
            ctx.exit();
        }
    }
}

/// Request-reply where the only handle to the asker travels in the messages: after each
/// reply the replier drops the asker's last handle, so the asker may see "no handle left"
/// while the reply is on its way. The reply must be processed, never dropped by an exit
/// (a drain that found its mailbox empty just before the reply arrived once exited on the
/// dropped handle and lost it: about one run in 50 of 80,000 exchanges on 2 workers).
/// `OFFSHOOT_STRESS_MESSAGES` raises the count for `scripts/stress.sh`.
#[test]
fn a_reply_racing_the_drop_of_the_last_handle_is_processed() {
    let n: u64 = std::env::var("OFFSHOOT_STRESS_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    bounded(move || {
        for workers in [2, 3] {
            let p = pool(workers);
            for _ in 0..4 {
                let sum = p.run(|| {
                    let done = Promise::new();
                    let echo = actor::start(Replier);
                    let asker = actor::start(Requester {
                        echo: echo.clone(),
                        sent: 1,
                        n,
                        sum: 0,
                        done: done.clone(),
                    });
                    echo.send((0, asker));
                    *done.get()
                });
                assert_eq!(sum, n * (n + 1) / 2, "{workers} workers");
            }
        }
    });
}

/// Sets its marker when it gets a message.
struct Marker(Arc<AtomicBool>);

impl Actor for Marker {
    type Message = ();
    fn receive(&mut self, (): (), _: &mut Context<'_, Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Sends to a `Marker` actor, then polls until that actor has run.
struct Waits {
    marker: ActorRef<Marker>,
    seen: Arc<AtomicBool>,
}

impl Actor for Waits {
    type Message = ();
    fn receive(&mut self, (): (), ctx: &mut Context<'_, Self>) {
        self.marker.send(());
        // The marker actor's drain is this handler's continuation, kept on this worker; a
        // poll must still hand it to the idle worker, or this loop never ends.
        while !self.seen.load(Ordering::SeqCst) {
            offshoot::poll();
            std::hint::spin_loop();
        }
        ctx.exit();
    }
}

/// A drain that a handler's send schedules runs on the handler's worker after the handler
/// by default, but it is not trapped there: the handler's polls offer it to an idle worker.
#[test]
fn a_send_from_a_handler_is_offered_when_the_handler_polls() {
    bounded(|| {
        for workers in [2, 3, 4] {
            let p = pool(workers);
            for _ in 0..20 {
                let seen = Arc::new(AtomicBool::new(false));
                let s = seen.clone();
                p.run(move || {
                    let marker = actor::start(Marker(s.clone()));
                    let waits = actor::start(Waits { marker, seen: s });
                    waits.send(());
                });
                assert!(seen.load(Ordering::SeqCst));
            }
        }
    });
}

/// Passes a countdown to the next node of a ring; the node that sees 0 reports its id.
struct RingNode {
    id: usize,
    next: ActorRef<RingNode>,
    done: Promise<usize>,
}

impl Actor for RingNode {
    type Message = u64;
    fn receive(&mut self, left: u64, _: &mut Context<'_, Self>) {
        if left == 0 {
            self.done.put(self.id).unwrap();
        } else {
            self.next.send(left - 1);
        }
    }
}

/// `start_with` closes a ring in one construction: the first node is built last, from
/// the handles of the others, which were built from its own handle. A message sent to the
/// first node while it is being built (the start of the countdown) waits until it exists.
/// The ring holds handles to itself, so the caller stops it once the countdown is over.
#[test]
fn start_with_closes_a_ring() {
    const NODES: usize = 7;
    const HOPS: u64 = 1000;
    bounded(|| {
        for n in POOL_SIZES {
            let last = pool(n).run(|| {
                let done = Promise::new();
                let mut all = Vec::new();
                let first = actor::start_with(|me: ActorRef<RingNode>| {
                    me.send(HOPS);
                    let mut next = me;
                    for id in (1..NODES).rev() {
                        next = actor::start(RingNode {
                            id,
                            next,
                            done: done.clone(),
                        });
                        all.push(next.clone());
                    }
                    RingNode {
                        id: 0,
                        next,
                        done: done.clone(),
                    }
                });
                all.push(first);
                let last = *done.get();
                for a in &all {
                    a.stop();
                }
                last
            });
            assert_eq!(last, HOPS as usize % NODES, "{n} workers");
        }
    });
}

/// Sends itself messages while it is being built, and asks itself to stop: they are
/// processed in order once it exists, then it exits.
struct Early(Arc<Mutex<Vec<u32>>>);

impl Actor for Early {
    type Message = u32;
    fn receive(&mut self, x: u32, _: &mut Context<'_, Self>) {
        self.0.lock().unwrap().push(x);
    }
}

#[test]
fn start_with_keeps_what_was_sent_while_building() {
    bounded(|| {
        for n in POOL_SIZES {
            let log = Arc::new(Mutex::new(Vec::new()));
            let l = log.clone();
            let me = pool(n).run(move || {
                actor::start_with(|me: ActorRef<Early>| {
                    for x in 0..100 {
                        me.send(x);
                    }
                    me.stop();
                    Early(l)
                })
            });
            assert!(me.is_exited());
            assert_eq!(
                *log.lock().unwrap(),
                (0..100).collect::<Vec<_>>(),
                "{n} workers"
            );
        }
    });
}

#[test]
fn start_with_whose_builder_panics() {
    bounded(|| {
        for n in [1, 2] {
            let escaped = Arc::new(Mutex::new(None));
            let e = escaped.clone();
            let msg = panic_message(move || {
                pool(n).run(move || {
                    actor::start_with(|me: ActorRef<Early>| {
                        me.send(1);
                        *e.lock().unwrap() = Some(me);
                        boom("builder")
                    })
                })
            });
            assert_eq!(msg, boom_msg("builder"), "{n} workers");
            let me = escaped.lock().unwrap().take().unwrap();
            assert!(me.is_exited());
            me.send(2);
            assert_eq!(
                me.dropped(),
                2,
                "the message sent while building, and this one"
            );
        }
    });
}
