//! Selectors (`offshoot::actor::Selector`): priority order and round robin, enabling and
//! disabling (disabled mailboxes still receive; idempotent; no readable mailbox is an
//! error), guards, and the thesis's patterns against serial oracles on 1 to 4 workers:
//! request-reply without a blocking ask, a join of N sources in order, a bounded buffer
//! with guards, and reader-writer (reads as parallel tasks, writes exclusive). Bounded,
//! deterministic, no sleeps.
#![cfg(all(feature = "actor", feature = "sync"))]

mod common;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::{bounded, panic_message, pool, POOL_SIZES};
use offshoot::actor::{
    self, Actor, ActorRef, Context, Mailbox, Numbered, Order, Selector, SelectorContext,
    SelectorRef,
};
use offshoot::sync::Promise;

offshoot::mailboxes! {
    /// Three message mailboxes behind a gate: nothing is readable until the gate's message
    /// opens them, so every message is queued before the first is chosen.
    enum Lane {
        High,
        Mid,
        Low,
        Gate,
    }
}

struct Gated<const RR: bool> {
    open: bool,
    log: Arc<Mutex<Vec<(usize, u32)>>>,
}

impl<const RR: bool> Selector for Gated<RR> {
    type Mailbox = Lane;
    type Message = u32;
    const ORDER: Order = if RR {
        Order::RoundRobin
    } else {
        Order::Priority
    };
    fn receive(&mut self, lane: Lane, x: u32, _: &mut SelectorContext<'_, Self>) {
        if lane == Lane::Gate {
            self.open = true;
        } else {
            self.log.lock().unwrap().push((lane.index(), x));
        }
    }
    fn guard(&self, lane: Lane) -> bool {
        self.open || lane == Lane::Gate
    }
}

/// Sends `counts[l]` messages to each lane, then opens the gate; returns the log.
fn gated<const RR: bool>(workers: usize, counts: [u32; 3]) -> Vec<(usize, u32)> {
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    pool(workers).run(move || {
        let s = actor::start_selector(Gated::<RR> {
            open: false,
            log: l,
        });
        for (lane, &c) in [Lane::Low, Lane::Mid, Lane::High].iter().rev().zip(&counts) {
            for x in 0..c {
                s.send(*lane, x);
            }
        }
        s.send(Lane::Gate, 0);
    });
    let v = log.lock().unwrap().clone();
    v
}

#[test]
fn priority_order_takes_the_lowest_numbered_readable_mailbox() {
    bounded(|| {
        for n in POOL_SIZES {
            let log = gated::<false>(n, [5, 7, 3]);
            let want: Vec<(usize, u32)> = [(0usize, 5u32), (1, 7), (2, 3)]
                .iter()
                .flat_map(|&(l, c)| (0..c).map(move |x| (l, x)))
                .collect();
            assert_eq!(log, want, "{n} workers");
        }
    });
}

#[test]
fn round_robin_takes_each_mailbox_in_turn() {
    bounded(|| {
        for n in POOL_SIZES {
            let counts = [5u32, 7, 3];
            let log = gated::<true>(n, counts);
            // Serial oracle: cycle over the lanes from the one after the gate (lane 3,
            // so lane 0 first), skipping empty ones.
            let mut left = counts;
            let mut want = Vec::new();
            let mut next = [0u32; 3];
            while left.iter().any(|&c| c > 0) {
                for l in 0..3 {
                    if left[l] > 0 {
                        want.push((l, next[l]));
                        next[l] += 1;
                        left[l] -= 1;
                    }
                }
            }
            assert_eq!(log, want, "{n} workers");
        }
    });
}

/// Mailbox 0 carries commands, mailbox 1 data.
struct Switch {
    data: Arc<AtomicU64>,
    seen_while_disabled: Arc<AtomicU64>,
}

#[derive(Debug)]
enum Cmd {
    Disable,
    Check,
    Enable,
    Data(u64),
}

impl Selector for Switch {
    type Mailbox = Numbered<2>;
    type Message = Cmd;
    fn receive(&mut self, _: Numbered<2>, cmd: Cmd, ctx: &mut SelectorContext<'_, Self>) {
        let data = Numbered::new(1);
        match cmd {
            Cmd::Disable => {
                ctx.disable(data);
                ctx.disable(data); // idempotent
                assert!(!ctx.is_enabled(data));
                assert!(ctx.is_enabled(Numbered::new(0)));
            }
            Cmd::Check => self
                .seen_while_disabled
                .store(self.data.load(Ordering::SeqCst), Ordering::SeqCst),
            Cmd::Enable => {
                ctx.enable(data);
                ctx.enable(data);
                assert!(ctx.is_enabled(data));
            }
            Cmd::Data(x) => {
                self.data.fetch_add(x, Ordering::SeqCst);
            }
        }
    }
}

#[test]
fn a_disabled_mailbox_still_receives_and_enabling_releases_its_messages() {
    bounded(|| {
        for n in POOL_SIZES {
            let data = Arc::new(AtomicU64::new(0));
            let seen = Arc::new(AtomicU64::new(u64::MAX));
            let (d, s) = (data.clone(), seen.clone());
            pool(n).run(move || {
                let sel = actor::start_selector(Switch {
                    data: d,
                    seen_while_disabled: s,
                });
                let (cmd, data) = (Numbered::new(0), Numbered::new(1));
                // `Disable` is first in the highest-priority mailbox: it is taken before
                // any data, whenever the drain starts.
                sel.send(cmd, Cmd::Disable);
                for x in 1..=100 {
                    sel.send(data, Cmd::Data(x));
                }
                sel.send(cmd, Cmd::Check);
                sel.send(cmd, Cmd::Enable);
            });
            assert_eq!(
                seen.load(Ordering::SeqCst),
                0,
                "{n} workers: data read while disabled"
            );
            assert_eq!(data.load(Ordering::SeqCst), 5050, "{n} workers");
        }
    });
}

/// Disables everything on its first message.
struct Shut;

impl Selector for Shut {
    type Mailbox = Numbered<3>;
    type Message = ();
    fn receive(&mut self, _: Numbered<3>, _: (), ctx: &mut SelectorContext<'_, Self>) {
        ctx.disable_all_except(Numbered::new(2));
        ctx.disable(Numbered::new(2));
    }
}

#[test]
fn no_readable_mailbox_after_a_message_is_an_error() {
    bounded(|| {
        for n in POOL_SIZES {
            let keep = Arc::new(Mutex::new(None));
            let k = keep.clone();
            let msg = panic_message(|| {
                pool(n).run(move || {
                    let s = actor::start_selector(Shut);
                    *k.lock().unwrap() = Some(s.clone());
                    s.send(Numbered::new(1), ());
                    s.send(Numbered::new(0), ());
                })
            });
            assert!(
                msg.contains("every mailbox of the selector is disabled"),
                "{n} workers: {msg}"
            );
            let s: SelectorRef<Shut> = keep.lock().unwrap().take().unwrap();
            assert!(s.is_exited());
            assert_eq!(s.dropped(), 1, "{n} workers: the second message");
        }
    });
}

/// All guards false at start: refused at once.
struct Never;

impl Selector for Never {
    type Mailbox = Numbered<2>;
    type Message = ();
    fn receive(&mut self, _: Numbered<2>, _: (), _: &mut SelectorContext<'_, Self>) {}
    fn guard(&self, _: Numbered<2>) -> bool {
        false
    }
}

#[test]
fn all_guards_false_at_start_is_an_error() {
    bounded(|| {
        let msg = panic_message(|| pool(1).run(|| drop(actor::start_selector(Never))));
        assert!(msg.contains("disabled by its guard at start"), "{msg}");
    });
}

// ---- request-reply (thesis §5): no blocking ask ----

offshoot::mailboxes! {
    enum Port {
        Reply,
        Regular,
    }
}

/// Answers `f(x)`; a plain actor.
struct Server;

impl Actor for Server {
    type Message = (u64, SelectorRef<Client>);
    fn receive(&mut self, (x, to): Self::Message, _: &mut Context<'_, Self>) {
        to.send(Port::Reply, x * x + 1);
    }
}

/// For each regular message, asks the server and folds the reply into a running value
/// that depends on the order of the replies; one request at a time.
struct Client {
    server: ActorRef<Server>,
    acc: u64,
    out: Arc<AtomicU64>,
}

impl Selector for Client {
    type Mailbox = Port;
    type Message = u64;
    fn receive(&mut self, port: Port, x: u64, ctx: &mut SelectorContext<'_, Self>) {
        match port {
            Port::Regular => {
                self.server.send((x, ctx.myself()));
                ctx.disable(Port::Regular);
            }
            Port::Reply => {
                self.acc = self.acc.wrapping_mul(31).wrapping_add(x);
                self.out.store(self.acc, Ordering::SeqCst);
                ctx.enable(Port::Regular);
            }
        }
    }
}

#[test]
fn request_reply_without_a_blocking_ask() {
    bounded(|| {
        for n in POOL_SIZES {
            let out = Arc::new(AtomicU64::new(0));
            let o = out.clone();
            pool(n).run(move || {
                let server = actor::start(Server);
                let c = actor::start_selector(Client {
                    server,
                    acc: 0,
                    out: o,
                });
                for x in 0..1000 {
                    c.send(Port::Regular, x);
                }
            });
            let want = (0..1000u64).fold(0u64, |a, x| a.wrapping_mul(31).wrapping_add(x * x + 1));
            assert_eq!(out.load(Ordering::SeqCst), want, "{n} workers");
        }
    });
}

/// Serves requests (`Regular`) only once the reply it waits for (`Reply`) came; it starts
/// out waiting.
struct Stubborn {
    waiting: bool,
}

impl Selector for Stubborn {
    type Mailbox = Port;
    type Message = Option<SelectorRef<Stubborn>>;
    fn receive(&mut self, port: Port, asker: Self::Message, _: &mut SelectorContext<'_, Self>) {
        match (port, asker) {
            (Port::Regular, Some(asker)) => asker.send(Port::Reply, None),
            _ => self.waiting = false,
        }
    }
    fn guard(&self, port: Port) -> bool {
        port == Port::Reply || !self.waiting
    }
}

/// Two selectors that each hold the other's request in a mailbox disabled until a reply
/// comes — the reply only the other would send: no task waits, both are idle, and the
/// finish waits for them for ever. The deadlock watch reports both selectors.
#[test]
fn selectors_waiting_for_each_others_replies_are_reported_as_a_deadlock() {
    bounded(|| {
        for n in POOL_SIZES {
            let msg = panic_message(|| {
                pool(n).run(|| {
                    let a = actor::start_selector(Stubborn { waiting: true });
                    let b = actor::start_selector(Stubborn { waiting: true });
                    a.send(Port::Regular, Some(b.clone()));
                    b.send(Port::Regular, Some(a));
                })
            });
            assert!(
                msg.starts_with("offshoot: deadlock:")
                    && msg.contains("2 actors wait")
                    && msg.matches("selector selectors::Stubborn").count() == 2,
                "{n} workers: not a report of the two selectors: {msg}"
            );
        }
    });
}

// ---- a join of N sources, in order (one mailbox per source, enabled one at a time) ----

const SOURCES: usize = 5;

struct Joiner {
    turn: usize,
    out: Arc<Mutex<Vec<u64>>>,
}

impl Selector for Joiner {
    type Mailbox = Numbered<SOURCES>;
    type Message = u64;
    fn receive(&mut self, from: Numbered<SOURCES>, x: u64, _: &mut SelectorContext<'_, Self>) {
        assert_eq!(from.index(), self.turn);
        self.out.lock().unwrap().push(x);
        self.turn = (self.turn + 1) % SOURCES;
    }
    fn guard(&self, m: Numbered<SOURCES>) -> bool {
        m.index() == self.turn
    }
}

#[test]
fn join_of_sources_in_order() {
    bounded(|| {
        for n in POOL_SIZES {
            let each = 200u64;
            let out = Arc::new(Mutex::new(Vec::new()));
            let o = out.clone();
            pool(n).run(move || {
                let j = actor::start_selector(Joiner { turn: 0, out: o });
                // The sources run as parallel tasks, each at its own pace.
                offshoot::par_for(0..SOURCES, |s| {
                    for i in 0..each {
                        j.send(Numbered::new(s), (s as u64) * 1_000_000 + i);
                    }
                });
            });
            let want: Vec<u64> = (0..each)
                .flat_map(|i| (0..SOURCES as u64).map(move |s| s * 1_000_000 + i))
                .collect();
            assert_eq!(*out.lock().unwrap(), want, "{n} workers");
        }
    });
}

// ---- a bounded buffer with guards ----

offshoot::mailboxes! {
    enum BufPort {
        Put,
        Take,
    }
}

enum BufMsg {
    Put(u64),
    Take(Promise<u64>),
}

struct Buffer {
    items: std::collections::VecDeque<u64>,
    cap: usize,
    max_len: Arc<AtomicUsize>,
}

impl Selector for Buffer {
    type Mailbox = BufPort;
    type Message = BufMsg;
    fn receive(&mut self, _: BufPort, msg: BufMsg, _: &mut SelectorContext<'_, Self>) {
        match msg {
            BufMsg::Put(x) => self.items.push_back(x),
            BufMsg::Take(reply) => reply.put(self.items.pop_front().unwrap()).unwrap(),
        }
        self.max_len.fetch_max(self.items.len(), Ordering::Relaxed);
        assert!(self.items.len() <= self.cap);
    }
    fn guard(&self, m: BufPort) -> bool {
        match m {
            BufPort::Put => self.items.len() < self.cap,
            BufPort::Take => !self.items.is_empty(),
        }
    }
}

#[test]
fn bounded_buffer_with_guards() {
    bounded(|| {
        for n in POOL_SIZES {
            let (items, cap) = (2_000u64, 4usize);
            let max_len = Arc::new(AtomicUsize::new(0));
            let got = Arc::new(AtomicU64::new(0));
            let (m, g) = (max_len.clone(), got.clone());
            pool(n).run(move || {
                let b = actor::start_selector(Buffer {
                    items: Default::default(),
                    cap,
                    max_len: m,
                });
                offshoot::join(
                    || {
                        offshoot::par_for(0..items as usize, |i| {
                            b.send(BufPort::Put, BufMsg::Put(i as u64))
                        })
                    },
                    || {
                        offshoot::par_for(0..items as usize, |_| {
                            let p = Promise::new();
                            b.send(BufPort::Take, BufMsg::Take(p.clone()));
                            g.fetch_add(*p.get(), Ordering::Relaxed);
                        })
                    },
                );
            });
            assert_eq!(
                got.load(Ordering::Relaxed),
                items * (items - 1) / 2,
                "{n} workers"
            );
            let m = max_len.load(Ordering::Relaxed);
            assert!((1..=cap).contains(&m), "{n} workers: max length {m}");
        }
    });
}

// ---- reader-writer: reads run in parallel as tasks, writes exclusive ----

offshoot::mailboxes! {
    enum RwPort {
        ReadDone,
        Write,
        Read,
    }
}

enum RwMsg {
    Done,
    Write(u64),
    Read(Arc<AtomicU64>),
}

/// A table of cells that a write sets all to one value; a read checks they agree, so a
/// read overlapping a write would see a torn table.
struct Table {
    cells: Arc<Vec<AtomicU64>>,
    readers: usize,
    max_readers: Arc<AtomicUsize>,
}

impl Selector for Table {
    type Mailbox = RwPort;
    type Message = RwMsg;
    fn receive(&mut self, _: RwPort, msg: RwMsg, ctx: &mut SelectorContext<'_, Self>) {
        match msg {
            RwMsg::Done => self.readers -= 1,
            RwMsg::Write(v) => {
                assert_eq!(self.readers, 0, "a write overlaps reads");
                for c in self.cells.iter() {
                    c.store(v, Ordering::Relaxed);
                    offshoot::poll();
                }
            }
            RwMsg::Read(into) => {
                self.readers += 1;
                self.max_readers.fetch_max(self.readers, Ordering::Relaxed);
                let (cells, me) = (self.cells.clone(), ctx.myself());
                // The read runs as a task of the selector's finish, in parallel with
                // other reads; it reports back when done.
                offshoot::finish::spawn(move || {
                    let first = cells[0].load(Ordering::Relaxed);
                    for c in cells.iter() {
                        assert_eq!(c.load(Ordering::Relaxed), first, "a torn read");
                        offshoot::poll();
                    }
                    assert!(first % 10 == 0 && first < 400, "a value never written");
                    into.fetch_add(1, Ordering::Relaxed);
                    me.send(RwPort::ReadDone, RwMsg::Done);
                });
            }
        }
    }
    fn guard(&self, m: RwPort) -> bool {
        match m {
            RwPort::Write => self.readers == 0,
            _ => true,
        }
    }
}

#[test]
fn reader_writer_reads_in_parallel_writes_exclusive() {
    bounded(|| {
        for n in POOL_SIZES {
            let max_readers = Arc::new(AtomicUsize::new(0));
            let sum = Arc::new(AtomicU64::new(0));
            let (m, s) = (max_readers.clone(), sum.clone());
            pool(n).run(move || {
                let t = actor::start_selector(Table {
                    cells: Arc::new((0..64).map(|_| AtomicU64::new(0)).collect()),
                    readers: 0,
                    max_readers: m,
                });
                offshoot::par_for(0..400, |i| {
                    if i % 10 == 0 {
                        t.send(RwPort::Write, RwMsg::Write(i as u64));
                    } else {
                        t.send(RwPort::Read, RwMsg::Read(s.clone()));
                    }
                });
            });
            // Every read ran, and saw a whole table (checked in the read).
            assert_eq!(sum.load(Ordering::Relaxed), 360, "{n} workers");
            assert!(max_readers.load(Ordering::Relaxed) >= 1);
        }
    });
}

/// A hand-written mailbox type whose `index()` is out of its own range.
#[derive(Clone, Copy, Debug)]
struct Broken;

impl offshoot::actor::Mailbox for Broken {
    const COUNT: usize = 2;
    fn index(self) -> usize {
        5
    }
    fn from_index(_: usize) -> Broken {
        Broken
    }
}

struct Sink;

impl offshoot::actor::Selector for Sink {
    type Mailbox = Broken;
    type Message = u32;
    fn receive(&mut self, _: Broken, _: u32, _: &mut offshoot::actor::SelectorContext<'_, Self>) {}
}

#[test]
fn a_mailbox_index_past_its_count_is_a_clear_error() {
    common::bounded(|| {
        let m = common::panic_message(|| {
            common::pool(2).run(|| {
                let s = offshoot::actor::start_selector(Sink);
                s.send(Broken, 1);
            })
        });
        assert!(
            m.contains("index() returned 5") && m.contains("COUNT is 2"),
            "{m}"
        );
    });
}
