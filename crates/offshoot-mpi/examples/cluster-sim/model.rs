//! The discrete-event model of offshoot-mpi's protocol on a UTS tree: ranks of one worker,
//! each with its agent, exchanging the messages `agent.rs` exchanges, with the costs
//! `Costs` gives. It mirrors the agent's loop: the agent wakes after a nap (20 µs after
//! work, doubling to 200 µs, or to `max_nap` when quiet with nothing running or calm — busy,
//! sharing cores with workers, and not asked for `calm_after`; or to an eighth of its
//! youngest slow wait — a steal or package request outstanding, and nothing else — as the
//! agent's patience), is woken at
//! once by its worker's news (a finished package), never by the network; it answers steals
//! by asking its worker for a package, which the worker cuts at its next poll (every other
//! node of its stack, as `uts::count` does); it steals `steal_attempts` times at random,
//! then registers on its lifelines and goes quiet; a victim with lifeline waiters pushes
//! one package per `push_interval`. A package's result goes back to the frame that gave it
//! away; the root's frame finishing on rank 0 ends the run, which returns once every rank
//! has answered `Done`.
//!
//! Invariants: simulated time only moves forward (events are taken in time order, ties in
//! the order they were made); a node is expanded exactly once (the model counts them and
//! `run` checks the count against a serial walk when asked); at most one steal of a rank
//! and one package request to its worker are outstanding, as in the agent.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::tree::{Gen, SNode};

/// The agent's `PATIENCE`: a nap of at most an eighth of a slow wait.
const PATIENCE: u64 = 8;

/// What the model charges, in nanoseconds (and bytes).
#[derive(Clone, Debug)]
pub struct Costs {
    /// One node expanded by a worker (the kernel's time per node on one rank).
    pub node_ns: f64,
    /// Per node, cutting a package at the victim and encoding it (worker time).
    pub pack_ns: f64,
    /// Per node, decoding a package at the thief before it starts.
    pub unpack_ns: f64,
    /// Encoded bytes per node in a package.
    pub node_bytes: f64,
    /// One-way latency of a message between two ranks.
    pub latency_ns: f64,
    /// Bytes per nanosecond between two ranks.
    pub bytes_per_ns: f64,
    /// How much later than asked a nap ends (the OS's timer slack and wake-up: about
    /// 100 µs on this machine's kernel, which makes the agent's 20 µs nap about 120 µs).
    pub nap_overshoot_ns: f64,
    /// CPU time of one wake of an agent (its look at the network and its pool). It costs
    /// the workers only where the ranks share cores: there it is taken from this rank's
    /// worker when every core is busy.
    pub wake_ns: f64,
    /// Cores the ranks share (`None`: every rank has its own): more busy workers than
    /// cores slow each of them down in proportion, as on an oversubscribed machine.
    pub cores: Option<usize>,
}

/// The protocol's parameters (`offshoot_mpi::Config`'s).
#[derive(Clone, Debug)]
pub struct Protocol {
    pub steal_attempts: usize,
    pub lifeline_base: usize,
    pub push_interval_ns: u64,
    pub max_nap_ns: u64,
    /// The longest nap of an agent that is not quiet (`Config::busy_nap`).
    pub busy_nap_ns: u64,
    /// How long a busy rank nobody asks stays at `busy_nap_ns` before it is calm and naps
    /// up to `max_nap_ns` (`Config::calm_after`; `None`: never calm).
    pub calm_after_ns: Option<u64>,
}

impl Default for Protocol {
    fn default() -> Self {
        let c = offshoot_mpi::Config::default();
        Protocol {
            steal_attempts: c.steal_attempts,
            lifeline_base: c.lifeline_base,
            push_interval_ns: c.push_interval.as_nanos() as u64,
            max_nap_ns: c.max_nap.as_nanos() as u64,
            busy_nap_ns: c.busy_nap.as_nanos() as u64,
            calm_after_ns: c.calm_after.map(|d| d.as_nanos() as u64),
        }
    }
}

/// What a run of the model gives.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Simulated time from the start until rank 0's run returns, in nanoseconds.
    pub time_ns: u64,
    /// Nodes expanded, all ranks together.
    pub nodes: u64,
    pub steals: u64,
    pub packages: u64,
    pub bytes: u64,
}

/// Nodes a worker expands per step of the model (its poll in the real kernel is after
/// every node; a request that arrives during a step is answered from the stack as it is
/// at the step's end).
const STEP: usize = 32;
const NAP_MIN: u64 = 20_000;

#[derive(Clone, Copy, Debug)]
enum Msg {
    Steal {
        lifeline: bool,
    },
    Loot {
        nodes: usize,
        lifeline: bool,
        frame: usize,
        slot: usize,
    },
    NoLoot {
        lifeline: bool,
    },
    Result {
        frame: usize,
    },
    Done,
    Bye,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Step(usize),
    Wake(usize, u64),
    Deliver { to: usize, from: usize, msg: Msg },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Steal {
    Idle,
    Waiting {
        victim: usize,
        left: usize,
        since: u64,
    },
    Quiet,
}

#[derive(Clone, Copy, Debug)]
enum Parent {
    Root,
    Remote { rank: usize, frame: usize },
}

struct Frame {
    outstanding: u32,
    bag_done: bool,
    parent: Parent,
}

/// Why a package request is out.
#[derive(Clone, Copy)]
enum Why {
    Answer { thief: usize, lifeline: bool },
    Push { thief: usize },
}

/// A package request to the worker: when its answer is ready, the answer (the package's
/// nodes and the frame they come from, or nothing), why it was made, and when.
type Inflight = (u64, Option<(Vec<SNode>, usize)>, Why, u64);

struct Rank {
    // The worker.
    stack: Vec<SNode>,
    frame: Option<usize>,
    frames: Vec<Frame>,
    live_frames: usize,
    clock: u64,
    debt: u64,
    stepping: bool,
    starts: VecDeque<(Parent, Vec<SNode>)>,
    // The agent.
    wake_gen: u64,
    next_wake: u64,
    nap: u64,
    inbox: Vec<(usize, Msg)>,
    outbox: Vec<(usize, usize)>,
    steal: Steal,
    lifelines: Vec<usize>,
    registered: Vec<bool>,
    asks: VecDeque<(usize, bool)>,
    inflight: Option<Inflight>,
    waiters: Vec<usize>,
    last_push: u64,
    /// When another rank last asked this one for work.
    last_asked: u64,
    parcels: Vec<Option<Vec<SNode>>>,
    done: bool,
}

/// The model: the ranks, the event queue, the tree.
pub struct Model<'g> {
    gen: &'g Gen,
    costs: Costs,
    proto: Protocol,
    ranks: Vec<Rank>,
    queue: BinaryHeap<Reverse<(u64, u64, usize)>>,
    events: Vec<Option<Ev>>,
    free: Vec<usize>,
    seq: u64,
    rng: u64,
    busy_workers: usize,
    out: Outcome,
    root_done: Option<u64>,
    byes: usize,
    end: Option<u64>,
}

impl<'g> Model<'g> {
    pub fn new(gen: &'g Gen, ranks: usize, costs: Costs, proto: Protocol) -> Model<'g> {
        // The agent's own lifeline graph.
        let graph = offshoot_mpi::Config {
            lifeline_base: proto.lifeline_base,
            ..offshoot_mpi::Config::default()
        };
        let rs = (0..ranks)
            .map(|r| {
                let lifelines = graph.lifelines(r, ranks);
                Rank {
                    stack: Vec::new(),
                    frame: None,
                    frames: Vec::new(),
                    live_frames: 0,
                    clock: 0,
                    debt: 0,
                    stepping: false,
                    starts: VecDeque::new(),
                    wake_gen: 0,
                    next_wake: u64::MAX,
                    nap: NAP_MIN,
                    inbox: Vec::new(),
                    outbox: Vec::new(),
                    steal: Steal::Idle,
                    lifelines,
                    registered: vec![false; ranks],
                    asks: VecDeque::new(),
                    inflight: None,
                    waiters: Vec::new(),
                    last_push: 0,
                    last_asked: 0,
                    parcels: Vec::new(),
                    done: false,
                }
            })
            .collect();
        Model {
            gen,
            costs,
            proto,
            ranks: rs,
            queue: BinaryHeap::new(),
            events: Vec::new(),
            free: Vec::new(),
            seq: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
            busy_workers: 0,
            out: Outcome::default(),
            root_done: None,
            byes: 0,
            end: None,
        }
    }

    fn at(&mut self, t: u64, ev: Ev) {
        let slot = match self.free.pop() {
            Some(i) => {
                self.events[i] = Some(ev);
                i
            }
            None => {
                self.events.push(Some(ev));
                self.events.len() - 1
            }
        };
        self.seq += 1;
        self.queue.push(Reverse((t, self.seq, slot)));
    }

    fn wake(&mut self, r: usize, t: u64) {
        let rk = &mut self.ranks[r];
        if t < rk.next_wake {
            rk.wake_gen += 1;
            rk.next_wake = t;
            let g = rk.wake_gen;
            self.at(t, Ev::Wake(r, g));
        }
    }

    fn send(&mut self, t: u64, from: usize, to: usize, msg: Msg) {
        let bytes = match msg {
            Msg::Loot { nodes, .. } => 24.0 + nodes as f64 * self.costs.node_bytes,
            Msg::Result { .. } => 24.0,
            _ => 8.0,
        };
        self.out.bytes += bytes as u64;
        let arrive = t + (self.costs.latency_ns + bytes / self.costs.bytes_per_ns) as u64;
        self.at(arrive, Ev::Deliver { to, from, msg });
    }

    fn node_ns(&self) -> f64 {
        match self.costs.cores {
            Some(c) if self.busy_workers > c => {
                self.costs.node_ns * self.busy_workers as f64 / c as f64
            }
            _ => self.costs.node_ns,
        }
    }

    /// Starts a frame with `nodes` on rank `r`'s worker (it is idle) at time `t`.
    fn start_frame(&mut self, r: usize, t: u64, parent: Parent, nodes: Vec<SNode>) {
        let unpack = match parent {
            Parent::Root => 0,
            Parent::Remote { .. } => (nodes.len() as f64 * self.costs.unpack_ns) as u64,
        };
        let rk = &mut self.ranks[r];
        rk.frames.push(Frame {
            outstanding: 0,
            bag_done: false,
            parent,
        });
        rk.live_frames += 1;
        rk.frame = Some(rk.frames.len() - 1);
        rk.stack = nodes;
        rk.clock = t.max(rk.clock) + unpack;
        rk.stepping = true;
        self.busy_workers += 1;
        let c = rk.clock;
        self.at(c, Ev::Step(r));
    }

    fn step(&mut self, r: usize, t: u64) {
        let node_ns = self.node_ns();
        let gen = self.gen;
        let rk = &mut self.ranks[r];
        let mut clock = t.max(rk.clock) + std::mem::take(&mut rk.debt);
        let mut spent = 0.0f64;
        let mut n = 0;
        while n < STEP {
            let Some(node) = rk.stack.pop() else { break };
            gen.expand(&node, &mut rk.stack);
            n += 1;
            spent += node_ns;
        }
        clock += spent as u64;
        self.out.nodes += n as u64;
        rk.clock = clock;
        if !rk.stack.is_empty() {
            self.at(clock, Ev::Step(r));
            return;
        }
        // The bag is empty: the frame waits for its packages, or is finished.
        let f = rk.frame.take().expect("a stepping worker has a frame");
        rk.frames[f].bag_done = true;
        rk.stepping = false;
        self.busy_workers -= 1;
        self.frame_maybe_done(r, f, clock);
        let rk = &mut self.ranks[r];
        if let Some((parent, nodes)) = rk.starts.pop_front() {
            self.start_frame(r, clock, parent, nodes);
        }
    }

    fn frame_maybe_done(&mut self, r: usize, f: usize, t: u64) {
        let fr = &self.ranks[r].frames[f];
        if !fr.bag_done || fr.outstanding > 0 {
            return;
        }
        let parent = fr.parent;
        self.ranks[r].live_frames -= 1;
        match parent {
            Parent::Root => {
                self.root_done = Some(t);
                self.wake(0, t);
            }
            Parent::Remote { rank, frame } => {
                // The worker hands the result to the agent and wakes it.
                self.ranks[r].outbox.push((rank, frame));
                self.wake(r, t);
            }
        }
    }

    fn idle(&self, r: usize) -> bool {
        let rk = &self.ranks[r];
        !rk.stepping && rk.starts.is_empty()
    }

    fn random_victim(&mut self, r: usize) -> usize {
        let p = self.ranks.len();
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let v = (self.rng % (p as u64 - 1)) as usize;
        if v >= r {
            v + 1
        } else {
            v
        }
    }

    fn next_attempt(&mut self, r: usize, t: u64, left: usize) {
        if !self.idle(r) || self.ranks[r].done {
            self.ranks[r].steal = Steal::Idle;
            return;
        }
        if left > 0 {
            let victim = self.random_victim(r);
            self.out.steals += 1;
            self.send(t, r, victim, Msg::Steal { lifeline: false });
            self.ranks[r].steal = Steal::Waiting {
                victim,
                left: left - 1,
                since: t,
            };
            return;
        }
        for i in 0..self.ranks[r].lifelines.len() {
            let l = self.ranks[r].lifelines[i];
            if !self.ranks[r].registered[l] {
                self.out.steals += 1;
                self.send(t, r, l, Msg::Steal { lifeline: true });
            }
        }
        self.ranks[r].steal = Steal::Quiet;
    }

    /// Asks rank `r`'s worker for a package at time `t`: the answer is ready at the
    /// worker's next poll (after the node it expands), with the package's cost paid by it.
    fn request(&mut self, r: usize, t: u64, why: Why) {
        let node_ns = self.node_ns();
        let pack_ns = self.costs.pack_ns;
        let rk = &mut self.ranks[r];
        let answer = if rk.stepping && rk.stack.len() >= 2 {
            let mut give = Vec::with_capacity(rk.stack.len() / 2);
            let mut keep = Vec::with_capacity(rk.stack.len() - rk.stack.len() / 2);
            for (i, n) in rk.stack.drain(..).enumerate() {
                if i % 2 == 1 {
                    give.push(n);
                } else {
                    keep.push(n);
                }
            }
            rk.stack = keep;
            let f = rk.frame.expect("a stepping worker has a frame");
            rk.frames[f].outstanding += 1;
            let cost = (give.len() as f64 * pack_ns) as u64;
            rk.debt += cost;
            Some((give, f))
        } else {
            None
        };
        let ready = t
            + (node_ns / 2.0) as u64
            + answer
                .as_ref()
                .map_or(0, |(g, _)| (g.len() as f64 * pack_ns) as u64);
        rk.inflight = Some((ready, answer, why, t));
    }

    fn agent(&mut self, r: usize, t: u64) {
        let mut busy = false;
        if let Some(c) = self.costs.cores {
            if self.busy_workers >= c && self.ranks[r].stepping {
                self.ranks[r].debt += self.costs.wake_ns as u64;
            }
        }
        // Receive.
        let inbox = std::mem::take(&mut self.ranks[r].inbox);
        for (from, msg) in inbox {
            busy = true;
            match msg {
                Msg::Steal { lifeline } => {
                    self.ranks[r].last_asked = t;
                    self.ranks[r].asks.push_back((from, lifeline));
                }
                Msg::Loot {
                    lifeline,
                    slot,
                    frame,
                    ..
                } => {
                    if lifeline {
                        self.ranks[r].registered[from] = false;
                    }
                    self.ranks[r].steal = Steal::Idle;
                    let nodes = self.ranks[from].parcels[slot]
                        .take()
                        .expect("a parcel is delivered once");
                    let parent = Parent::Remote { rank: from, frame };
                    self.out.packages += 1;
                    if self.idle(r) {
                        self.start_frame(r, t, parent, nodes);
                    } else {
                        self.ranks[r].starts.push_back((parent, nodes));
                    }
                }
                Msg::NoLoot { lifeline } => {
                    if lifeline {
                        self.ranks[r].registered[from] = true;
                    }
                    if let Steal::Waiting { victim, left, .. } = self.ranks[r].steal {
                        if victim == from {
                            self.next_attempt(r, t, left);
                        }
                    }
                }
                Msg::Result { frame } => {
                    self.ranks[r].frames[frame].outstanding -= 1;
                    self.frame_maybe_done(r, frame, t);
                }
                Msg::Done => {
                    self.ranks[r].done = true;
                    self.send(t, r, 0, Msg::Bye);
                }
                Msg::Bye => self.byes += 1,
            }
        }
        // Results of finished packages.
        let outbox = std::mem::take(&mut self.ranks[r].outbox);
        for (to, frame) in outbox {
            busy = true;
            if to == r {
                self.ranks[r].frames[frame].outstanding -= 1;
                self.frame_maybe_done(r, frame, t);
            } else {
                self.send(t, r, to, Msg::Result { frame });
            }
        }
        // The agent's `shares_cores`: its wakes are taken from workers.
        let shares_cores = self.costs.cores.is_some_and(|c| 2 * self.ranks.len() > c);
        // Serve.
        if let Some((ready, ..)) = &self.ranks[r].inflight {
            if *ready <= t {
                let (_, answer, why, _) = self.ranks[r].inflight.take().expect("checked");
                match (answer, why) {
                    (Some((nodes, frame)), why) => {
                        busy = true;
                        // A pushed package uses up the waiter's registration here.
                        let (thief, pushed) = match why {
                            Why::Answer { thief, .. } => (thief, false),
                            Why::Push { thief } => {
                                self.ranks[r].waiters.retain(|&w| w != thief);
                                (thief, true)
                            }
                        };
                        let n = nodes.len();
                        self.ranks[r].parcels.push(Some(nodes));
                        let slot = self.ranks[r].parcels.len() - 1;
                        self.send(
                            t,
                            r,
                            thief,
                            Msg::Loot {
                                nodes: n,
                                lifeline: pushed,
                                frame,
                                slot,
                            },
                        );
                    }
                    (None, Why::Answer { thief, lifeline }) => {
                        busy = true;
                        self.refuse(r, t, thief, lifeline);
                    }
                    // As the agent: a push that found nothing is not news where ranks share
                    // cores.
                    (None, Why::Push { .. }) => busy |= !shares_cores,
                }
            }
        }
        if self.ranks[r].inflight.is_none() {
            let working = self.ranks[r].live_frames > 0 && !self.ranks[r].done;
            if let Some((thief, lifeline)) = self.ranks[r].asks.pop_front() {
                busy = true;
                if working {
                    self.request(r, t, Why::Answer { thief, lifeline });
                } else {
                    self.refuse(r, t, thief, lifeline);
                }
            } else if working
                && !self.ranks[r].waiters.is_empty()
                && t.saturating_sub(self.ranks[r].last_push) >= self.proto.push_interval_ns
            {
                self.ranks[r].last_push = t;
                let thief = self.ranks[r].waiters[0];
                self.request(r, t, Why::Push { thief });
            }
        }
        // Look for work.
        if !self.ranks[r].done
            && self.ranks.len() > 1
            && self.idle(r)
            && self.ranks[r].steal == Steal::Idle
        {
            busy = true;
            let w = self.proto.steal_attempts.max(1);
            self.next_attempt(r, t, w);
        }
        // Termination, on rank 0.
        if r == 0 && self.root_done.is_some() && !self.ranks[0].done {
            self.ranks[0].done = true;
            for q in 1..self.ranks.len() {
                self.send(t, 0, q, Msg::Done);
            }
        }
        if r == 0 && self.ranks[0].done && self.byes + 1 >= self.ranks.len() {
            self.end = Some(t);
            return;
        }
        // Nap.
        let alone = self.ranks.len() == 1;
        let rk = &mut self.ranks[r];
        let nap = if busy {
            NAP_MIN.min(self.proto.busy_nap_ns)
        } else {
            rk.nap
        };
        // The agent's `calm`: its wakes are taken from workers (the ranks share cores with
        // them), busy, nobody waiting on it or asking it, not asked lately.
        let calm = shares_cores
            && rk.steal == Steal::Idle
            && rk.waiters.is_empty()
            && rk.asks.is_empty()
            && rk.inflight.is_none()
            && self
                .proto
                .calm_after_ns
                .is_some_and(|c| t.saturating_sub(rk.last_asked) >= c);
        let cap = if alone || (rk.steal == Steal::Quiet && rk.live_frames == 0) || calm {
            self.proto.max_nap_ns
        } else {
            // The agent's patience: where ranks share cores, while all it waits for is slow
            // (a steal or a package request outstanding, nothing else to do soon).
            let busy_cap = self.proto.max_nap_ns.min(self.proto.busy_nap_ns);
            let steal = match rk.steal {
                Steal::Waiting { since, .. } => Some(t.saturating_sub(since)),
                _ => None,
            };
            let request = rk.inflight.as_ref().map(|i| t.saturating_sub(i.3));
            let youngest = steal.into_iter().chain(request).min();
            let working = rk.live_frames > 0 && !rk.done;
            let patient = shares_cores
                && (rk.inflight.is_some()
                    || (rk.asks.is_empty() && (!working || rk.waiters.is_empty())));
            match youngest {
                Some(w) if patient => (w / PATIENCE).min(self.proto.max_nap_ns).max(busy_cap),
                _ => busy_cap,
            }
        };
        rk.nap = (nap * 2).min(cap);
        rk.next_wake = u64::MAX;
        let overshoot = self.costs.nap_overshoot_ns as u64;
        self.wake(r, t + nap + overshoot);
    }

    fn refuse(&mut self, r: usize, t: u64, thief: usize, lifeline: bool) {
        if lifeline && !self.ranks[r].waiters.contains(&thief) {
            self.ranks[r].waiters.push(thief);
        }
        self.send(t, r, thief, Msg::NoLoot { lifeline });
    }

    /// Runs the tree from its root on rank 0 until rank 0's run returns.
    pub fn run(mut self) -> Outcome {
        let root = self.gen.root();
        self.start_frame(0, 0, Parent::Root, vec![root]);
        for r in 0..self.ranks.len() {
            self.wake(r, 0);
        }
        while let Some(Reverse((t, _, slot))) = self.queue.pop() {
            let ev = self.events[slot].take().expect("an event is taken once");
            self.free.push(slot);
            match ev {
                Ev::Step(r) => self.step(r, t),
                Ev::Wake(r, g) => {
                    if g == self.ranks[r].wake_gen {
                        self.ranks[r].next_wake = u64::MAX;
                        self.agent(r, t);
                    }
                }
                Ev::Deliver { to, from, msg } => self.ranks[to].inbox.push((from, msg)),
            }
            if let Some(end) = self.end {
                self.out.time_ns = end;
                return self.out;
            }
        }
        panic!("cluster-sim: the event queue ran dry before the run ended (a model bug)");
    }
}
