//! Three of the selector patterns of Imam's thesis (ch. 5), each checked against what a
//! plain loop computes:
//!
//! 1. **priorities**: messages queued in three mailboxes are taken most urgent first;
//! 2. **a join of sources in any order**: a combiner takes one value from each of three
//!    producers per round, whichever arrives first, by disabling a producer's mailbox
//!    once its value for the round is in;
//! 3. **a bounded buffer with guards**: `Put` is readable only while the buffer has room,
//!    `Get` only while it holds something, so producers and consumers never wait in a
//!    handler and nothing is stashed.
//!
//! (Request-reply without a blocking ask is the example of [`offshoot::actor::Selector`];
//! reader-writer is the `dictionary` and `sorted-list` kernels of `offshoot-bench`.)
//!
//! `cargo run --release -p offshoot --example selector_patterns`

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use offshoot::actor::{
    self, Actor, ActorRef, Context, Numbered, Selector, SelectorContext, SelectorRef,
};
use offshoot::sync::Promise;

// ---- 1. priorities -----------------------------------------------------------------------

offshoot::mailboxes! {
    /// Most urgent first; `Open` lets the others be read (so that every message is queued
    /// before the first is chosen, and the order shows).
    enum Urgency {
        High,
        Normal,
        Low,
        Open,
    }
}

/// Logs what it takes, in the order taken.
struct Dispatcher {
    open: bool,
    log: Arc<Mutex<Vec<&'static str>>>,
}

impl Selector for Dispatcher {
    type Mailbox = Urgency;
    type Message = &'static str;
    fn receive(&mut self, m: Urgency, job: &'static str, _: &mut SelectorContext<'_, Self>) {
        match m {
            Urgency::Open => self.open = true,
            _ => self.log.lock().unwrap().push(job),
        }
    }
    fn guard(&self, m: Urgency) -> bool {
        self.open || m == Urgency::Open
    }
}

fn priorities(pool: &offshoot::ThreadPool) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    pool.run(move || {
        let d = actor::start_selector(Dispatcher {
            open: false,
            log: l,
        });
        d.send(Urgency::Low, "archive");
        d.send(Urgency::Normal, "reply to mail");
        d.send(Urgency::High, "fire alarm");
        d.send(Urgency::Low, "defragment");
        d.send(Urgency::High, "server down");
        d.send(Urgency::Open, "");
    });
    let got = log.lock().unwrap().clone();
    let want = [
        "fire alarm",
        "server down",
        "reply to mail",
        "archive",
        "defragment",
    ];
    assert_eq!(got, want);
    println!("priorities: {got:?}");
}

// ---- 2. a join of sources in any order ---------------------------------------------------

const SOURCES: usize = 3;

/// Adds one value from every source per round; a source's mailbox is disabled once its
/// value for the round arrived, and all are enabled again when the round is complete.
struct Combiner {
    have: usize,
    round: u64,
    out: Arc<Mutex<Vec<u64>>>,
}

impl Selector for Combiner {
    type Mailbox = Numbered<SOURCES>;
    type Message = u64;
    fn receive(&mut self, from: Numbered<SOURCES>, x: u64, ctx: &mut SelectorContext<'_, Self>) {
        self.round += x;
        self.have += 1;
        ctx.disable(from);
        if self.have == SOURCES {
            self.out.lock().unwrap().push(self.round);
            (self.have, self.round) = (0, 0);
            ctx.enable_all();
        }
    }
}

fn join_of_sources(pool: &offshoot::ThreadPool) {
    const ROUNDS: u64 = 1000;
    let out = Arc::new(Mutex::new(Vec::new()));
    let o = out.clone();
    pool.run(move || {
        let c = actor::start_selector(Combiner {
            have: 0,
            round: 0,
            out: o,
        });
        // Each source is a task of its own, sending at its own pace.
        offshoot::par_for(0..SOURCES, |s| {
            for r in 0..ROUNDS {
                c.send(Numbered::new(s), (s as u64 + 1) * r);
            }
        });
    });
    let got = out.lock().unwrap().clone();
    // Round r adds r from source 0, 2r from source 1, 3r from source 2.
    let want: Vec<u64> = (0..ROUNDS).map(|r| 6 * r).collect();
    assert_eq!(got, want);
    println!("join of {SOURCES} sources: {ROUNDS} rounds combined in order");
}

// ---- 3. a bounded buffer with guards -----------------------------------------------------

offshoot::mailboxes! {
    /// A producer's item, or a consumer asking for one.
    enum Op {
        Put,
        Get,
    }
}

/// What the buffer's mailboxes carry.
enum Item {
    Put(u64),
    Get(ActorRef<Consumer>),
}

/// Holds at most `cap` items; the guards say which requests it can serve now.
struct Buffer {
    items: VecDeque<u64>,
    cap: usize,
}

impl Selector for Buffer {
    type Mailbox = Op;
    type Message = Item;
    fn receive(&mut self, _: Op, item: Item, _: &mut SelectorContext<'_, Self>) {
        match item {
            Item::Put(x) => self.items.push_back(x),
            Item::Get(to) => to.send(self.items.pop_front().expect("the guard said non-empty")),
        }
        assert!(
            self.items.len() <= self.cap,
            "the guard said there was room"
        );
    }
    fn guard(&self, op: Op) -> bool {
        match op {
            Op::Put => self.items.len() < self.cap,
            Op::Get => !self.items.is_empty(),
        }
    }
}

/// Takes `left` items, one request at a time, and puts their sum.
struct Consumer {
    buffer: SelectorRef<Buffer>,
    left: u64,
    sum: u64,
    done: Promise<u64>,
}

impl Actor for Consumer {
    type Message = u64;
    fn receive(&mut self, x: u64, ctx: &mut Context<'_, Self>) {
        self.sum += x;
        self.left -= 1;
        if self.left == 0 {
            self.done.put(self.sum).unwrap();
            ctx.exit();
        } else {
            self.buffer.send(Op::Get, Item::Get(ctx.myself()));
        }
    }
}

fn bounded_buffer(pool: &offshoot::ThreadPool) {
    const PRODUCERS: u64 = 4;
    const EACH: u64 = 2500;
    const CONSUMERS: u64 = 5;
    let total = pool.run(|| {
        let buffer = actor::start_selector(Buffer {
            items: VecDeque::new(),
            cap: 8,
        });
        let per_consumer = PRODUCERS * EACH / CONSUMERS;
        let dones: Vec<Promise<u64>> = (0..CONSUMERS)
            .map(|_| {
                let done = Promise::new();
                let me = actor::start(Consumer {
                    buffer: buffer.clone(),
                    left: per_consumer,
                    sum: 0,
                    done: done.clone(),
                });
                buffer.send(Op::Get, Item::Get(me));
                done
            })
            .collect();
        offshoot::par_for(0..PRODUCERS as usize, |p| {
            let p = p as u64;
            for i in 0..EACH {
                buffer.send(Op::Put, Item::Put(p * EACH + i));
            }
        });
        dones.iter().map(|d| *d.get()).sum::<u64>()
    });
    let n = PRODUCERS * EACH;
    assert_eq!(total, n * (n - 1) / 2);
    println!("bounded buffer: {n} items through 8 slots, sum {total}");
}

fn main() {
    let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    priorities(&pool);
    join_of_sources(&pool);
    bounded_buffer(&pool);
}
