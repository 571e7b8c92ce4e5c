//! `nqueens-prio` (Savina's NQueens first-K solutions with priorities, `nqueenk`): a
//! master hands out partial boards of the n-queens problem to W workers, one board at a
//! time to a worker that has reported back (the pull model: the queue of work is the
//! master's). A worker extends a board of depth d by one row: below the threshold depth
//! T it sends each valid child (depth d + 1) back to the master as new work; at depth T
//! it solves the rest of the board serially and reports the solutions. The work carries
//! its depth as a **priority**, deeper first: the master hands out the deepest board it
//! has, so the search dives towards solutions (depth first) instead of widening the
//! shallow levels (breadth first), and the first K solutions come after a small part of
//! the tree. The master stops when it holds K solutions, or when the work runs out.
//!
//! - serial: the master's loop without workers: a priority queue of boards, deepest
//!   first, each taken, extended or solved, until K solutions (what the messages of one
//!   worker amount to);
//! - offshoot: the master is an `offshoot::actor` **selector** with a mailbox per depth
//!   (`1 + 15 − d`: the deepest in the lowest-numbered mailbox, served first) and a
//!   `Done` mailbox (0) for the workers' reports; the depth mailboxes are guarded by "a
//!   worker is idle", so the work that finds every worker busy waits in its mailbox and
//!   the next message taken is the deepest board there (no stash, no queue of its own);
//!   the workers are actors;
//! - offshoot-actors: the same with a plain actor as master, which stashes the boards it
//!   receives in a `BinaryHeap` (deepest first, first come first within a depth) and
//!   hands out its top whenever a worker reports;
//! - offshoot-tasks: the master is the calling task and each worker a task of an
//!   `offshoot::scope`, looping `recv` on its own `offshoot::sync` channel; the reports
//!   come back over one channel and the master keeps the same heap;
//! - tokio: ractor actors with the same heap; the master spawns its workers in
//!   `pre_start` and stops them in `post_stop`;
//! - kameo: the same actors in kameo; the master spawns its workers in `on_start` and
//!   kills them in `on_stop` (`kill`, as ractor's `stop`, drops the boards still queued;
//!   a worker's handler has no await, so it ends between two messages);
//! - threads: one OS thread per worker, each with its `std::sync::mpsc` channel; the
//!   calling thread is the master with the same heap.
//!
//! Inputs (n, T, K, W): test 8, 3, 40, 3; quick 12, 8, 1 000, 8; full 14, 10, 8 000, 8.
//! T is n − 4 (Savina's default is 4 of 12): a worker's serial part is small, so the
//! master's queue is the kernel's bottleneck and its order decides how much of the tree
//! is searched (in turn instead of deepest first, the serial loop takes 7 to 18 times as
//! many boards before the K-th solution). A plain master applies the priority only to the
//! boards it has taken from its mailbox, in arrival order, so a child that came after a
//! backlog waits behind it; the selector takes the deepest of all that arrived.
//! Cutoff: boards of depth T are solved serially by the worker that gets them.
//! Answer: the number of distinct valid solutions the master kept (it keeps at most K)
//! and the number of solutions it was sent that were invalid or repeated. How many
//! solutions the workers find before the master stops depends on the schedule (a worker
//! finishes the subtree it holds), but which are kept does not matter: every contender
//! must keep exactly min(K, A000170(n)) distinct solutions, each checked as a full board
//! (n queens, no two on a column or a diagonal) by a test independent of the search's,
//! and none bad. The priority changes only how much of the tree is searched before the
//! K-th solution: the running time, not the answer.
//!
//! How much of the tree a run searched is therefore part of what its time measures: the
//! kernel's input line reports the boards each contender extended (min–max of
//! [`count_runs`] untimed runs at preparation — 3 in full mode, 1 otherwise, to keep quick
//! mode quick — on as many workers as the machine has; the serial loop's count is always
//! the same). From 2 workers on, every contender's count
//! varies between runs (which subtree the first K solutions come from depends on the
//! order in which boards reach the master), so compare times per board, not only times.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{mpsc, Arc, Mutex};

use offshoot::actor::{self, Actor, ActorRef, Context, Mailbox, Numbered, Selector};
use offshoot::actor::{SelectorContext, SelectorRef};

use super::{cast, joined, spawn_kameo, spawn_ractor, stopped, tell, KRef};
use crate::harness::{Contender, Pools};
use crate::kernels::plain::{call, on_runtime, Plain};
use crate::kernels::{About, Kernel, KernelInfo, Size, Work};

/// What the kernel is.
pub const ABOUT: About = About {
    name: "nqueens-prio",
    about: "a master hands out n-queens boards to workers, deepest first, until K solutions",
    cutoff: "boards of depth T solved serially by a worker",
    source: "Savina (shamsimam/savina) NQueens first-K solutions (nqueenk); Imam's thesis ch. 5 priorities with selectors",
};

/// The largest board (a solution is coded in 4 bits a row, 16 rows in a `u64`).
pub const MAX_N: usize = 16;

/// The problem: the first K solutions of n-queens(n), boards of depth T solved
/// serially, W workers.
#[derive(Clone, Copy, Debug)]
pub struct Queens {
    /// n, the board's side (1 to [`MAX_N`]).
    pub n: usize,
    /// T, the depth from which a worker solves a board serially (below n).
    pub threshold: usize,
    /// K, the solutions wanted.
    pub k: u64,
    /// W, the workers.
    pub workers: usize,
    /// Whether `extend` counts the boards it is given into [`BOARDS`]: only in the untimed
    /// runs of [`boards_line`] (a timed run pays one test of a register or a stack slot).
    pub count_boards: bool,
}

/// The master's answer: the distinct valid solutions it kept (at most K) and the
/// solutions it was sent that were invalid or repeated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// Distinct valid solutions kept.
    pub solutions: u64,
    /// Invalid or repeated solutions among those the master looked at.
    pub bad: u64,
}

/// A partial board: the columns of the queens on rows `0..depth`.
#[derive(Clone, Copy)]
pub struct Board {
    cols: [u8; MAX_N],
    depth: u8,
}

impl Board {
    /// The empty board.
    fn root() -> Board {
        Board {
            cols: [0; MAX_N],
            depth: 0,
        }
    }

    fn depth(&self) -> usize {
        self.depth as usize
    }

    /// Whether a queen on column `c` of the next row attacks none of the others.
    fn fits(&self, c: usize) -> bool {
        let d = self.depth();
        self.cols[..d].iter().enumerate().all(|(row, &q)| {
            let q = q as usize;
            q != c && q.abs_diff(c) != d - row
        })
    }

    /// This board with a queen on column `c` of the next row.
    fn child(&self, c: usize) -> Board {
        let mut b = *self;
        b.cols[b.depth()] = c as u8;
        b.depth += 1;
        b
    }

    /// The board's columns, 4 bits a row, row 0 lowest.
    fn code(&self) -> u64 {
        self.cols[..self.depth()]
            .iter()
            .rev()
            .fold(0, |code, &c| code << 4 | c as u64)
    }
}

/// Adds to `out` the code of every solution that completes `b`, depth first.
fn solve(n: usize, b: &Board, out: &mut Vec<u64>) {
    if b.depth() == n {
        out.push(b.code());
        return;
    }
    for c in 0..n {
        if b.fits(c) {
            solve(n, &b.child(c), out);
        }
    }
}

/// The boards extended, by any contender's workers, for a problem that counts them
/// ([`Queens::count_boards`]).
static BOARDS: AtomicU64 = AtomicU64::new(0);

/// One counting pass at a time (tests prepare instances concurrently).
static PASS: Mutex<()> = Mutex::new(());

/// Untimed runs per contender whose boards [`boards_line`] counts, at each size.
pub fn count_runs(size: Size) -> usize {
    match size {
        Size::Full => 3,
        Size::Test | Size::Quick => 1,
    }
}

/// One piece of work: the solutions of `b` into `out` if it is complete or at the
/// threshold, else each valid child to `child`; returns how many children it gave.
fn extend(q: Queens, b: &Board, mut child: impl FnMut(Board), out: &mut Vec<u64>) -> u64 {
    if q.count_boards {
        // Relaxed: the count is read after the run has joined every thread that adds to it.
        BOARDS.fetch_add(1, AtomicOrdering::Relaxed);
    }
    if b.depth() >= q.threshold {
        solve(q.n, b, out);
        return 0;
    }
    let mut children = 0;
    for c in 0..q.n {
        if b.fits(c) {
            child(b.child(c));
            children += 1;
        }
    }
    children
}

/// Whether `code` is a solution of n-queens(n): n queens, one a row, no two on a
/// column or a diagonal (the oracle; the search tests a queen against the rows above).
fn is_solution(n: usize, code: u64) -> bool {
    if n < MAX_N && code >> (4 * n) != 0 {
        return false;
    }
    let (mut cols, mut up, mut down) = (0u32, 0u64, 0u64);
    for row in 0..n {
        let c = (code >> (4 * row) & 0xF) as usize;
        let (u, d) = (row + c, row + MAX_N - c);
        if c >= n || cols >> c & 1 == 1 || up >> u & 1 == 1 || down >> d & 1 == 1 {
            return false;
        }
        (cols, up, down) = (cols | 1 << c, up | 1 << u, down | 1 << d);
    }
    true
}

/// The solutions of n-queens(n), n = 0 to 16 (OEIS A000170).
const A000170: [u64; MAX_N + 1] = [
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
];

/// The solutions the master keeps: at most K, checked, repeats counted.
struct Tally {
    n: usize,
    k: u64,
    kept: Vec<u64>,
    invalid: u64,
}

impl Tally {
    fn new(q: Queens) -> Tally {
        Tally {
            n: q.n,
            k: q.k,
            kept: Vec::new(),
            invalid: 0,
        }
    }

    /// Looks at `solutions` until K are kept.
    fn add(&mut self, solutions: &[u64]) {
        for &s in solutions {
            if self.full() {
                return;
            }
            if is_solution(self.n, s) {
                self.kept.push(s);
            } else {
                self.invalid += 1;
            }
        }
    }

    /// Whether K are kept.
    fn full(&self) -> bool {
        self.kept.len() as u64 >= self.k
    }

    /// The answer: the distinct solutions kept, and the invalid and repeated ones.
    fn found(&self) -> Found {
        let mut distinct = self.kept.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let (kept, distinct) = (self.kept.len() as u64, distinct.len() as u64);
        Found {
            solutions: distinct,
            bad: self.invalid + (kept - distinct),
        }
    }
}

/// A board in the master's heap: deepest first, then first come first.
struct Queued {
    board: Board,
    seq: Reverse<u64>,
}

impl Queued {
    fn key(&self) -> (u8, Reverse<u64>) {
        (self.board.depth, self.seq)
    }
}

impl PartialEq for Queued {
    fn eq(&self, other: &Queued) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Queued) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Queued) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// The boards waiting for a worker, deepest first (the stash of a master that has one
/// mailbox).
#[derive(Default)]
struct Stash {
    heap: BinaryHeap<Queued>,
    seq: u64,
}

impl Stash {
    fn push(&mut self, board: Board) {
        self.seq += 1;
        self.heap.push(Queued {
            board,
            seq: Reverse(self.seq),
        });
    }

    fn pop(&mut self) -> Option<Board> {
        self.heap.pop().map(|q| q.board)
    }
}

/// The plain loop: the deepest board first, until K solutions or no board.
pub fn serial(q: Queens) -> Found {
    let mut stash = Stash::default();
    stash.push(Board::root());
    let mut tally = Tally::new(q);
    let mut out = Vec::new();
    while !tally.full() {
        let Some(b) = stash.pop() else { break };
        extend(q, &black_box(b), |c| stash.push(c), &mut out);
        tally.add(&out);
        out.clear();
    }
    tally.found()
}

/// The oracle: min(K, A000170(n)) distinct valid solutions, none bad.
fn check(q: &Queens, got: Found) -> Result<(), String> {
    let want = Found {
        solutions: q.k.min(A000170[q.n]),
        bad: 0,
    };
    if got == want {
        Ok(())
    } else {
        Err(format!("{got:?}, expected {want:?}"))
    }
}

/// What a worker sends its master.
pub enum Report {
    /// A child of the board it extends: new work.
    Work(Board),
    /// It is done with its board: the solutions it found and how many children it sent
    /// (as `Work`, before this).
    Done {
        /// The worker's number.
        worker: usize,
        /// The codes of the solutions.
        solutions: Vec<u64>,
        /// How many children it sent.
        children: u64,
    },
}

/// A master as its workers see it: where their reports go (a send to a master that
/// has ended is dropped: it needs no more).
trait Boss {
    fn report(&self, r: Report);
}

/// A worker's whole job for one board: extend it, sending each child to the master,
/// then report it done.
fn work(q: Queens, worker: usize, b: Board, boss: &impl Boss) {
    let mut solutions = Vec::new();
    let mut kids = Vec::new();
    let children = extend(q, &b, |c| kids.push(c), &mut solutions);
    // The report first, then the children: the master counts a board's children when it
    // takes the report (`Ledger::done`), so a child must not be taken — handed out, done,
    // and counted off — before that, or the count of open boards can reach zero while the
    // parent's report is still on its way, and the master stops early (it did, about once
    // in 100 runs of 8-queens on 3 threads). The report reaches the master before anything
    // sent after it: one channel is first-in first-out per sender, and a selector serves
    // its `Done` mailbox (0) before the boards' mailboxes.
    boss.report(Report::Done {
        worker,
        solutions,
        children,
    });
    for c in kids {
        boss.report(Report::Work(c));
    }
}

/// What every master keeps but its queue: the solutions, the idle workers, and the
/// boards that exist and are not done.
struct Ledger {
    tally: Tally,
    idle: Vec<usize>,
    open: u64,
}

impl Ledger {
    /// Every worker idle, one board open: the root, which the caller sends as `Work`.
    fn new(q: Queens) -> Ledger {
        Ledger {
            tally: Tally::new(q),
            idle: (0..q.workers).rev().collect(),
            open: 1,
        }
    }

    /// A worker is done with its board.
    fn done(&mut self, worker: usize, solutions: &[u64], children: u64) {
        self.idle.push(worker);
        self.tally.add(solutions);
        self.open = self.open + children - 1;
    }

    /// K solutions are kept, or every board is done.
    fn finished(&self) -> bool {
        self.tally.full() || self.open == 0
    }

    /// The answer, once finished.
    fn answer(&self) -> Option<Found> {
        self.finished().then(|| self.tally.found())
    }
}

/// A master with one mailbox: its ledger and a heap of the boards waiting.
struct Desk {
    ledger: Ledger,
    stash: Stash,
}

impl Desk {
    fn new(q: Queens) -> Desk {
        Desk {
            ledger: Ledger::new(q),
            stash: Stash::default(),
        }
    }

    fn take(&mut self, r: Report) {
        match r {
            Report::Work(b) => self.stash.push(b),
            Report::Done {
                worker,
                solutions,
                children,
            } => self.ledger.done(worker, &solutions, children),
        }
    }

    /// The next board to hand out and its worker, if a worker is idle and a board waits.
    fn next(&mut self) -> Option<(usize, Board)> {
        if self.ledger.idle.is_empty() {
            return None;
        }
        let b = self.stash.pop()?;
        Some((self.ledger.idle.pop()?, b))
    }

    /// Takes `r`, hands out what it can through `give`; the answer once finished.
    fn step(&mut self, r: Report, mut give: impl FnMut(usize, Board)) -> Option<Found> {
        self.take(r);
        while let Some((w, b)) = self.next() {
            give(w, b);
        }
        self.ledger.answer()
    }
}

/// The master of the tasks and the threads: sends the root to itself, then takes
/// reports from `recv` and hands boards to workers by `give` until finished.
fn drive(q: Queens, mut recv: impl FnMut() -> Report, mut give: impl FnMut(usize, Board)) -> Found {
    let mut desk = Desk::new(q);
    let mut r = Report::Work(Board::root());
    loop {
        if let Some(found) = desk.step(r, &mut give) {
            return found;
        }
        r = recv();
    }
}

/// An offshoot worker, reporting to a selector or to a plain actor.
struct Worker<B> {
    q: Queens,
    me: usize,
    boss: B,
}

impl<B: Boss + Send + 'static> Actor for Worker<B> {
    type Message = Board;
    fn receive(&mut self, b: Board, _: &mut Context<'_, Self>) {
        work(self.q, self.me, b, &self.boss);
    }
}

/// Where the answer of an actor master lands.
type Out = Arc<Mutex<Option<Found>>>;

/// Reads the answer a master left.
fn answer(out: &Out) -> Found {
    out.lock()
        .expect("nqueens-prio: the master panicked")
        .expect("nqueens-prio: the master ended without an answer")
}

/// The selector master's mailboxes: `Done` (0), then one per depth, deepest first.
type Slot = Numbered<{ MAX_N + 1 }>;

/// The mailbox of a report: 0 for `Done`, `1 + 15 − d` for a board of depth d.
fn slot(r: &Report) -> Slot {
    match r {
        Report::Done { .. } => Slot::new(0),
        Report::Work(b) => Slot::new(MAX_N - b.depth()),
    }
}

/// The offshoot master: a selector whose depth mailboxes are its queue.
struct Master {
    ledger: Ledger,
    workers: Vec<ActorRef<Worker<SelectorRef<Master>>>>,
    out: Out,
}

impl Boss for SelectorRef<Master> {
    fn report(&self, r: Report) {
        self.send(slot(&r), r);
    }
}

impl Selector for Master {
    type Mailbox = Slot;
    type Message = Report;
    fn receive(&mut self, _: Slot, r: Report, ctx: &mut SelectorContext<'_, Self>) {
        match r {
            Report::Work(b) => {
                let w = self.ledger.idle.pop().expect("guarded: a worker is idle");
                self.workers[w].send(b);
            }
            Report::Done {
                worker,
                solutions,
                children,
            } => self.ledger.done(worker, &solutions, children),
        }
        if let Some(found) = self.ledger.answer() {
            *self.out.lock().expect("nqueens-prio: answer") = Some(found);
            ctx.exit();
        }
    }
    fn guard(&self, slot: Slot) -> bool {
        slot.index() == 0 || !self.ledger.idle.is_empty()
    }
}

/// The offshoot workers for the master `me`.
fn hire<B: Boss + Clone + Send + 'static>(q: Queens, me: &B) -> Vec<ActorRef<Worker<B>>> {
    (0..q.workers)
        .map(|w| {
            actor::start(Worker {
                q,
                me: w,
                boss: me.clone(),
            })
        })
        .collect()
}

/// offshoot: a selector master and actor workers; call inside
/// `offshoot::ThreadPool::run`.
pub fn offshoot(q: Queens) -> Found {
    let out = Out::default();
    offshoot::finish(|| {
        let master = actor::start_selector_with(|me| Master {
            ledger: Ledger::new(q),
            workers: hire(q, &me),
            out: out.clone(),
        });
        master.report(Report::Work(Board::root()));
        // The master exits when finished, which drops the workers' last handles.
    });
    answer(&out)
}

/// The offshoot-actors master: a plain actor with a heap.
struct ActorMaster {
    desk: Desk,
    workers: Vec<ActorRef<Worker<ActorRef<ActorMaster>>>>,
    out: Out,
}

impl Boss for ActorRef<ActorMaster> {
    fn report(&self, r: Report) {
        self.send(r);
    }
}

impl Actor for ActorMaster {
    type Message = Report;
    fn receive(&mut self, r: Report, ctx: &mut Context<'_, Self>) {
        let workers = &self.workers;
        if let Some(found) = self.desk.step(r, |w, b| workers[w].send(b)) {
            *self.out.lock().expect("nqueens-prio: answer") = Some(found);
            ctx.exit();
        }
    }
}

/// offshoot-actors: a plain actor master with a heap; call inside
/// `offshoot::ThreadPool::run`.
pub fn offshoot_actors(q: Queens) -> Found {
    let out = Out::default();
    offshoot::finish(|| {
        let master = actor::start_with(|me| ActorMaster {
            desk: Desk::new(q),
            workers: hire(q, &me),
            out: out.clone(),
        });
        master.report(Report::Work(Board::root()));
    });
    answer(&out)
}

impl Boss for offshoot::sync::Sender<Report> {
    fn report(&self, r: Report) {
        let _ = self.send(r);
    }
}

/// offshoot-tasks: the calling task is the master, each worker a task with its
/// channel; call inside `offshoot::ThreadPool::run`.
pub fn offshoot_tasks(q: Queens) -> Found {
    let (boss, reports) = offshoot::sync::unbounded::<Report>();
    offshoot::scope(|scope| {
        let mut workers = Vec::new();
        for me in 0..q.workers {
            let (tx, rx) = offshoot::sync::unbounded::<Board>();
            let boss = boss.clone();
            scope.spawn(move |_| {
                for b in rx.iter() {
                    work(q, me, b, &boss);
                }
            });
            workers.push(tx);
        }
        drop(boss);
        let recv = || reports.recv().expect("nqueens-prio: every worker ended");
        drive(q, recv, |w, b| workers[w].send(b).expect(super::GONE))
        // Dropping the workers' senders ends their loops.
    })
}

impl Boss for mpsc::Sender<Report> {
    fn report(&self, r: Report) {
        let _ = self.send(r);
    }
}

/// threads: a thread per worker with its channel; the calling thread is the master.
pub fn threads(q: Queens) -> Found {
    let (boss, reports) = mpsc::channel::<Report>();
    std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for me in 0..q.workers {
            let (tx, rx) = mpsc::channel::<Board>();
            let boss = boss.clone();
            scope.spawn(move || {
                for b in rx {
                    work(q, me, b, &boss);
                }
            });
            workers.push(tx);
        }
        drop(boss);
        let recv = || reports.recv().expect("nqueens-prio: every worker ended");
        drive(q, recv, |w, b| workers[w].send(b).expect(super::GONE))
    })
}

impl Boss for ractor::ActorRef<Report> {
    fn report(&self, r: Report) {
        let _ = self.cast(r);
    }
}

/// ractor's worker.
struct RWorker {
    q: Queens,
    me: usize,
    boss: ractor::ActorRef<Report>,
}

impl ractor::Actor for RWorker {
    type Msg = Board;
    type State = ();
    type Arguments = ();
    async fn pre_start(
        &self,
        _: ractor::ActorRef<Board>,
        _: (),
    ) -> Result<(), ractor::ActorProcessingErr> {
        Ok(())
    }
    async fn handle(
        &self,
        _: ractor::ActorRef<Board>,
        b: Board,
        _: &mut (),
    ) -> Result<(), ractor::ActorProcessingErr> {
        work(self.q, self.me, b, &self.boss);
        Ok(())
    }
}

/// ractor's master: it spawns its workers as it starts and stops them as it stops.
struct RMaster {
    q: Queens,
    out: Out,
}

/// ractor's master state: the desk and the workers with their join handles.
struct RDesk {
    desk: Desk,
    workers: Vec<ractor::ActorRef<Board>>,
    handles: Vec<ractor::concurrency::JoinHandle<()>>,
}

impl ractor::Actor for RMaster {
    type Msg = Report;
    type State = RDesk;
    type Arguments = ();
    async fn pre_start(
        &self,
        myself: ractor::ActorRef<Report>,
        _: (),
    ) -> Result<RDesk, ractor::ActorProcessingErr> {
        let mut state = RDesk {
            desk: Desk::new(self.q),
            workers: Vec::new(),
            handles: Vec::new(),
        };
        for me in 0..self.q.workers {
            let worker = RWorker {
                q: self.q,
                me,
                boss: myself.clone(),
            };
            let (w, handle) = spawn_ractor(worker, ()).await;
            state.workers.push(w);
            state.handles.push(handle);
        }
        Ok(state)
    }
    async fn handle(
        &self,
        myself: ractor::ActorRef<Report>,
        r: Report,
        state: &mut RDesk,
    ) -> Result<(), ractor::ActorProcessingErr> {
        let workers = &state.workers;
        if let Some(found) = state.desk.step(r, |w, b| cast(&workers[w], b)) {
            *self.out.lock().expect("nqueens-prio: answer") = Some(found);
            myself.stop(None);
        }
        Ok(())
    }
    async fn post_stop(
        &self,
        _: ractor::ActorRef<Report>,
        state: &mut RDesk,
    ) -> Result<(), ractor::ActorProcessingErr> {
        for w in &state.workers {
            w.stop(None);
        }
        for handle in state.handles.drain(..) {
            joined(handle).await;
        }
        Ok(())
    }
}

/// tokio: ractor actors with a heap in the master.
pub fn tokio(rt: &tokio::runtime::Runtime, q: Queens) -> Found {
    let out = Out::default();
    rt.block_on(async {
        let master = RMaster {
            q,
            out: out.clone(),
        };
        let (master, done) = spawn_ractor(master, ()).await;
        cast(&master, Report::Work(Board::root()));
        joined(done).await;
    });
    answer(&out)
}

impl Boss for KRef<KMaster> {
    fn report(&self, r: Report) {
        let _ = self.tell(r).try_send();
    }
}

/// kameo's worker.
#[derive(kameo::Actor)]
struct KWorker {
    q: Queens,
    me: usize,
    boss: KRef<KMaster>,
}

impl kameo::message::Message<Board> for KWorker {
    type Reply = ();
    async fn handle(&mut self, b: Board, _: &mut kameo::message::Context<Self, ()>) {
        work(self.q, self.me, b, &self.boss);
    }
}

/// kameo's master: it spawns its workers as it starts and kills them as it stops.
struct KMaster {
    q: Queens,
    out: Out,
    desk: Desk,
    workers: Vec<KRef<KWorker>>,
}

impl kameo::Actor for KMaster {
    type Args = Self;
    type Error = kameo::error::Infallible;
    async fn on_start(mut me: Self, myself: KRef<Self>) -> Result<Self, Self::Error> {
        me.workers = (0..me.q.workers)
            .map(|w| {
                spawn_kameo(KWorker {
                    q: me.q,
                    me: w,
                    boss: myself.clone(),
                })
            })
            .collect();
        Ok(me)
    }
    async fn on_stop(
        &mut self,
        _: kameo::actor::WeakActorRef<Self>,
        _: kameo::error::ActorStopReason,
    ) -> Result<(), Self::Error> {
        for w in &self.workers {
            w.kill();
        }
        for w in &self.workers {
            match w.wait_for_shutdown_result().await {
                Ok(kameo::error::ActorStopReason::Killed) => {}
                other => panic!("nqueens-prio: a kameo worker did not stop when killed: {other:?}"),
            }
        }
        Ok(())
    }
}

impl kameo::message::Message<Report> for KMaster {
    type Reply = ();
    async fn handle(&mut self, r: Report, ctx: &mut kameo::message::Context<Self, ()>) {
        let workers = &self.workers;
        if let Some(found) = self.desk.step(r, |w, b| tell(&workers[w], b)) {
            *self.out.lock().expect("nqueens-prio: answer") = Some(found);
            ctx.stop();
        }
    }
}

/// kameo: kameo actors with a heap in the master.
pub fn kameo(rt: &tokio::runtime::Runtime, q: Queens) -> Found {
    let out = Out::default();
    rt.block_on(async {
        let master = spawn_kameo(KMaster {
            q,
            out: out.clone(),
            desk: Desk::new(q),
            workers: Vec::new(),
        });
        tell(&master, Report::Work(Board::root()));
        stopped(&master).await;
    });
    answer(&out)
}

/// The problem of each size.
fn queens(size: Size) -> Queens {
    let (n, threshold, k, workers) = match size {
        Size::Test => (8, 3, 40, 3),
        Size::Quick => (12, 8, 500, 8),
        Size::Full => (14, 10, 8_000, 8),
    };
    Queens {
        n,
        threshold,
        k,
        workers,
        count_boards: false,
    }
}

/// "; boards extended per run on N workers (min–max of R runs): serial a, offshoot b–c, …":
/// serial and each of `kernel`'s contenders run `runs` times (untimed) on `inst`, a problem
/// that counts its boards, on pools of every core of this machine.
fn boards_line(
    kernel: &Kernel<Plain<Queens, Found>>,
    inst: &mut Plain<Queens, Found>,
    runs: usize,
) -> String {
    let _pass = PASS.lock().unwrap_or_else(|e| e.into_inner());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pools = Pools::new(workers).expect("pools for the board count");
    let mut parts = Vec::new();
    for c in std::iter::once(Contender::Serial).chain(kernel.contenders()) {
        let (mut lo, mut hi) = (u64::MAX, 0);
        for _ in 0..runs {
            inst.reset();
            BOARDS.store(0, AtomicOrdering::Relaxed);
            kernel.run(inst, c, Some(&pools));
            let boards = BOARDS.load(AtomicOrdering::Relaxed);
            (lo, hi) = (lo.min(boards), hi.max(boards));
        }
        parts.push(if lo == hi {
            format!("{} {lo}", c.name())
        } else {
            format!("{} {lo}–{hi}", c.name())
        });
    }
    let runs = if runs == 1 {
        "one untimed run".to_string()
    } else {
        format!("min–max of {runs} untimed runs")
    };
    format!(
        "; boards extended per run on {workers} workers ({runs}): {}",
        parts.join(", ")
    )
}

/// The registry entry.
pub fn info() -> KernelInfo {
    super::declare!(runs, ABOUT, prepare, selectors)
}

fn prepare(size: Size, kernel: &Kernel<Plain<Queens, Found>>) -> Plain<Queens, Found> {
    let q = queens(size);
    let (n, threshold, k, workers) = (q.n, q.threshold, q.k, q.workers);
    let counted = Queens {
        count_boards: true,
        ..q
    };
    let boards = boards_line(
        kernel,
        &mut Plain::checked(counted, String::new(), check),
        count_runs(size),
    );
    Plain::checked(
        q,
        format!("n = {n}, first {k} solutions, threshold {threshold}, {workers} workers{boards}"),
        check,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every solution of n-queens(n), by the search's own `solve`.
    fn all(n: usize) -> Vec<u64> {
        let mut out = Vec::new();
        solve(n, &Board::root(), &mut out);
        out
    }

    #[test]
    fn the_search_counts_a000170_and_the_oracle_agrees() {
        for (n, &count) in A000170.iter().enumerate().take(10).skip(1) {
            let s = all(n);
            assert_eq!(s.len() as u64, count, "n = {n}");
            assert!(s.iter().all(|&c| is_solution(n, c)), "n = {n}");
        }
        // Not solutions: a repeated column, a diagonal, a column off the board.
        assert!(!is_solution(4, 0x0000));
        assert!(!is_solution(4, 0x3210));
        assert!(!is_solution(4, 0x2034 ^ 0x4));
        assert!(is_solution(4, 0x2031));
    }

    #[test]
    fn the_tally_keeps_k_and_counts_repeats_and_invalid_boards() {
        let q = Queens {
            n: 4,
            threshold: 1,
            k: 3,
            workers: 1,
            count_boards: false,
        };
        let mut t = Tally::new(q);
        t.add(&[0x2031, 0x2031, 0x0000, 0x1302, 0x2031]);
        assert!(t.full());
        assert_eq!(
            t.found(),
            Found {
                solutions: 2,
                bad: 2
            }
        );
    }

    #[test]
    fn all_solutions_when_k_exceeds_them() {
        let q = Queens {
            n: 8,
            threshold: 3,
            k: 1_000,
            workers: 3,
            count_boards: false,
        };
        let want = Found {
            solutions: 92,
            bad: 0,
        };
        assert_eq!(serial(q), want);
        assert_eq!(threads(q), want);
        let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
        assert_eq!(pool.run(|| offshoot(q)), want);
        assert_eq!(pool.run(|| offshoot_actors(q)), want);
        assert_eq!(pool.run(|| offshoot_tasks(q)), want);
    }

    /// How many boards the serial loop takes before it has K solutions, the queue
    /// deepest first or first come first.
    fn boards_taken(q: Queens, deepest_first: bool) -> u64 {
        let mut queue = std::collections::VecDeque::from([Board::root()]);
        let mut stash = Stash::default();
        stash.push(Board::root());
        let mut tally = Tally::new(q);
        let mut out = Vec::new();
        let mut taken = 0;
        while !tally.full() {
            let b = if deepest_first {
                stash.pop()
            } else {
                queue.pop_front()
            };
            let Some(b) = b else { break };
            taken += 1;
            let child = |c| {
                if deepest_first {
                    stash.push(c)
                } else {
                    queue.push_back(c)
                }
            };
            extend(q, &b, child, &mut out);
            tally.add(&out);
            out.clear();
        }
        taken
    }

    #[test]
    fn the_priority_cuts_the_search() {
        let q = queens(Size::Quick);
        let (deep, wide) = (boards_taken(q, true), boards_taken(q, false));
        assert!(
            wide > 4 * deep,
            "{deep} boards deepest first, {wide} in turn"
        );
    }

    /// The input line's serial count is the serial loop's boards, the same in every run;
    /// every contender extended at least one board.
    #[test]
    fn the_input_line_counts_the_boards_of_each_contender() {
        let q = queens(Size::Test);
        let info = info();
        let line = info.prepare(Size::Test).input();
        let want = format!(": serial {}, ", boards_taken(q, true));
        assert!(line.contains(&want), "{line:?} lacks {want:?}");
        for c in info.contenders() {
            let part = line
                .split(", ")
                .find_map(|p| p.strip_prefix(&format!("{} ", c.name())))
                .unwrap_or_else(|| panic!("{line:?} has no count of {}", c.name()));
            let least: u64 = part.split('–').next().unwrap().parse().unwrap();
            assert!(least >= 1, "{line:?}");
        }
    }

    #[test]
    fn contenders_agree_with_serial() {
        crate::kernels::verify(&info());
    }
}
