//! Helpers shared by the offshoot integration tests: a watchdog that bounds every test body
//! in time (a hang fails the test instead of stalling the suite), a panic hook that keeps
//! deliberate panics quiet and counts them, panic-payload helpers, a small deterministic
//! RNG, bounded polling loops for "long-running" tasks, a thread counter, a random program
//! mixing joins with `sync` waits, and the steps of a monitor-guarded bounded buffer.
//!
//! Nothing here measures or asserts a duration: the time limits only bound loops that a
//! correct runtime ends much earlier, so that a broken one makes a test fail, not hang.

#![allow(dead_code)]

use std::any::Any;
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, Once};
use std::thread;
use std::time::{Duration, Instant};

use offshoot::ThreadPool;

/// How long a test body may run before the watchdog declares a deadlock. Generous: the
/// whole suite takes a few seconds in debug mode on 2 cores.
pub const LIMIT: Duration = Duration::from_secs(60);

/// How long a "long-running" task keeps polling before it gives up on being stopped, and
/// how long a test waits for something a correct runtime does within milliseconds (a
/// steal, a stop). Reaching one of these bounds is reported as a failure of the runtime.
pub const PATIENCE: Duration = Duration::from_secs(15);

/// Prefix of every deliberate panic message in these tests. The panic hook installed by
/// [`bounded`] does not print such panics, and counts how often each message was raised.
pub const EXPECTED: &str = "expected:";

/// Runs `f` on a fresh thread and returns its value, or resumes its panic. Fails the test
/// if `f` has not finished within [`LIMIT`] (the stuck thread is left behind; the test
/// process ends anyway when the harness is done).
pub fn bounded<T, F>(f: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    install_panic_hook();
    let (tx, rx) = mpsc::channel();
    let name = thread::current().name().unwrap_or("test").to_string();
    let h = thread::Builder::new()
        .name(format!("{name}/body"))
        .spawn(move || {
            let r = panic::catch_unwind(AssertUnwindSafe(f));
            let _ = tx.send(r);
        })
        .expect("cannot spawn the test body thread");
    let start = Instant::now();
    let limit = std::env::var("OFFSHOOT_TEST_TIMEOUT_S")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(LIMIT, Duration::from_secs);
    let r = rx.recv_timeout(limit);
    if std::env::var_os("OFFSHOOT_TEST_TIMES").is_some() {
        // For finding slow tests: `OFFSHOOT_TEST_TIMES=1 cargo test -- --nocapture`.
        eprintln!("[time] {name}: {:?}", start.elapsed());
    }
    match r {
        Ok(Ok(v)) => {
            let _ = h.join();
            v
        }
        Ok(Err(p)) => {
            let _ = h.join();
            panic::resume_unwind(p)
        }
        Err(RecvTimeoutError::Timeout) => {
            panic!("the test body did not finish within {LIMIT:?}: a deadlock or a lost wake-up")
        }
        Err(RecvTimeoutError::Disconnected) => {
            panic!("the test body thread vanished without a result")
        }
    }
}

static HOOK: Once = Once::new();
static RAISED: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

/// Installs (once per test binary) a panic hook that counts and silences panics whose
/// message starts with [`EXPECTED`] and leaves every other panic to the default hook.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if let Some(msg) = payload_str(info.payload()) {
                if msg.starts_with(EXPECTED) {
                    let mut m = RAISED.lock().unwrap_or_else(|e| e.into_inner());
                    *m.get_or_insert_with(HashMap::new)
                        .entry(msg.to_string())
                        .or_insert(0) += 1;
                    return;
                }
            }
            default(info)
        }));
    });
}

/// How many times a panic with exactly this message was raised (seen by the panic hook;
/// `resume_unwind` does not count).
pub fn times_raised(msg: &str) -> usize {
    let m = RAISED.lock().unwrap_or_else(|e| e.into_inner());
    m.as_ref().and_then(|m| m.get(msg).copied()).unwrap_or(0)
}

/// The message of a `&str` or `String` panic payload.
pub fn payload_str(p: &(dyn Any + Send)) -> Option<&str> {
    if let Some(s) = p.downcast_ref::<&'static str>() {
        Some(s)
    } else {
        p.downcast_ref::<String>().map(|s| s.as_str())
    }
}

/// Runs `f`, which must panic, and returns the message of its payload.
#[track_caller]
pub fn panic_message<T>(f: impl FnOnce() -> T) -> String {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("the closure was expected to panic but returned normally"),
        Err(p) => match payload_str(&*p) {
            Some(s) => s.to_string(),
            None => panic!(
                "the panic payload is not a string (type id {:?})",
                (*p).type_id()
            ),
        },
    }
}

/// Raises a deliberate panic with a `String` payload `"expected: {what}"`.
pub fn boom(what: &str) -> ! {
    panic!("{EXPECTED} {what}")
}

/// The payload message [`boom`] raises for `what`.
pub fn boom_msg(what: &str) -> String {
    format!("{EXPECTED} {what}")
}

/// A pool of `n` workers.
pub fn pool(n: usize) -> ThreadPool {
    ThreadPool::builder()
        .workers(n)
        .build()
        .expect("cannot build a pool")
}

/// The pool sizes every value test runs on: 1 worker, 2 (one per core here), and
/// oversubscribed pools for more interleavings.
pub const POOL_SIZES: [usize; 4] = [1, 2, 3, 4];

/// xorshift64*: a tiny deterministic RNG, so that every randomized test is reproducible
/// from its seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(mix(seed) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform-ish in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
}

/// splitmix64's finaliser: a good 64-bit mixing function.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A flag that nobody ever sets: "long-running" tasks loop until it is set, so that they
/// end only by being stopped (or, if the runtime fails to stop them, by their bound).
pub static NEVER: AtomicBool = AtomicBool::new(false);

/// Calls `offshoot::poll()` in a loop until [`NEVER`] is set — that is, until the runtime
/// stops the task by unwinding out of a poll — or until `max_iters` iterations or
/// [`PATIENCE`] have passed. Returns `true` if the loop ran into its bound, which means the
/// task was *not* stopped.
///
/// Like [`poll_until`] it naps briefly every 256 polls, so that thieves sharing its core
/// promptly take the work planted below it (see there).
pub fn poll_until_stopped(max_iters: u64) -> bool {
    let start = Instant::now();
    let mut i = 0u64;
    while !NEVER.load(Ordering::Relaxed) {
        offshoot::poll();
        i += 1;
        if i >= max_iters {
            return true;
        }
        if i.is_multiple_of(256) {
            if start.elapsed() > PATIENCE {
                return true;
            }
            thread::sleep(Duration::from_micros(10 + (i / 256 % 8) * 15));
        }
    }
    false
}

/// A large iteration bound for [`poll_until_stopped`].
pub const LONG: u64 = 1 << 40;

/// Calls `offshoot::poll()` until `cond()` holds or [`PATIENCE`] has passed; returns
/// whether `cond()` held. Used where the test needs a thief to take work from this worker.
///
/// Every 256 polls it sleeps for a few tens of microseconds, so that on a loaded machine a
/// thief sharing this thread's core gets to run and post its request promptly. (The
/// runtime must manage without this help too: `liveness.rs` checks that a victim that
/// polls without pausing is robbed by a thief on the same CPU.)
pub fn poll_until(cond: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    let mut i = 0u64;
    loop {
        if cond() {
            return true;
        }
        offshoot::poll();
        i += 1;
        if i.is_multiple_of(256) {
            if start.elapsed() > PATIENCE {
                return cond();
            }
            thread::sleep(Duration::from_micros(10 + (i / 256 % 8) * 15));
        }
    }
}

/// Spins (without polling) until `cond()` holds or [`PATIENCE`] has passed; returns whether
/// `cond()` held.
pub fn spin_until(cond: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if cond() {
            return true;
        }
        if start.elapsed() > PATIENCE {
            return cond();
        }
        thread::yield_now();
    }
}

/// Counts the closures handed to the runtime: a [`Guard`] moved into a closure is made
/// when the closure is made and dropped when the closure is run to its end, unwound, or
/// discarded unrun. `made == dropped` once a construct has returned means the runtime
/// dropped every closure it was given, exactly once.
#[derive(Default, Debug)]
pub struct Tally {
    pub made: AtomicUsize,
    pub dropped: AtomicUsize,
    /// Bodies that started running (bumped by the test code itself).
    pub started: AtomicUsize,
    /// Bodies that ran to their end (bumped by the test code itself).
    pub finished: AtomicUsize,
}

impl Tally {
    pub fn new() -> Arc<Tally> {
        Arc::new(Tally::default())
    }
    pub fn guard(self: &Arc<Tally>) -> Guard {
        self.made.fetch_add(1, Ordering::SeqCst);
        Guard(self.clone())
    }
    pub fn made(&self) -> usize {
        self.made.load(Ordering::SeqCst)
    }
    pub fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }
    pub fn started(&self) -> usize {
        self.started.load(Ordering::SeqCst)
    }
    pub fn finished(&self) -> usize {
        self.finished.load(Ordering::SeqCst)
    }
    pub fn start(&self) {
        self.started.fetch_add(1, Ordering::SeqCst);
    }
    pub fn finish(&self) {
        self.finished.fetch_add(1, Ordering::SeqCst);
    }
}

/// See [`Tally`].
pub struct Guard(Arc<Tally>);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

/// The number of threads of this process, from `/proc/self/status`.
pub fn thread_count() -> usize {
    let s = std::fs::read_to_string("/proc/self/status").expect("cannot read /proc/self/status");
    s.lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .expect("no Threads: line in /proc/self/status")
        .trim()
        .parse()
        .expect("bad Threads: line")
}

/// The body of a long-running sibling: counts its start, polls until it is stopped, and
/// counts a finish only if it ran into the bound (was not stopped).
pub fn long_task(t: &Tally) {
    t.start();
    if poll_until_stopped(LONG) {
        t.finish();
    }
}

/// The environment variable that tells a test binary started by [`run_child`] which case
/// to run.
pub const CHILD_ENV: &str = "OFFSHOOT_TEST_CHILD";

/// Runs this test binary again, with only the test `test` selected and [`CHILD_ENV`] set to
/// `case`; `setup` may adjust the command first. Returns how the child ended — `None` if it
/// was still running after `limit` (it is then killed) — and what it wrote to stderr (its
/// stdout is dropped). For tests of crashes, which would take the whole binary down.
pub fn run_child(
    test: &str,
    case: &str,
    limit: Duration,
    setup: impl FnOnce(&mut std::process::Command),
) -> (Option<std::process::ExitStatus>, String) {
    use std::io::Read;
    use std::process::{Command, Stdio};

    let exe = std::env::current_exe().expect("no path to the test binary");
    let mut cmd = Command::new(exe);
    setup(&mut cmd);
    let mut child = cmd
        .args([
            test,
            "--exact",
            "--include-ignored",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(CHILD_ENV, case)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the child test process");
    let mut pipe = child.stderr.take().unwrap();
    let reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("cannot wait for the child") {
            break Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(10));
    };
    (status, reader.join().unwrap_or_default())
}

/// A random program mixing joins, locks, promises and channels, from `rng`'s seed: `depth`
/// levels of `join`s whose sides lock `m[depth]` around a nested join, wait for a promise
/// the other side puts, or drain a bounded channel the other side fills. Returns a value
/// that a serial run with the same seed reproduces (with the sums left in `m`).
///
/// `m[d]` is locked only at depth `d`, so a task holding one lock takes only locks of lower
/// depths: no cycle, and a mutex is never locked twice by one task. `m` needs `depth + 1`
/// mutexes.
#[cfg(feature = "sync")]
pub fn random_mix(rng: &mut Rng, depth: u32, m: &[offshoot::sync::Mutex<u64>]) -> u64 {
    let k = rng.range(0, 4);
    let v = rng.range(1, 100);
    if depth == 0 {
        return v;
    }
    let (mut r1, mut r2) = (Rng::new(rng.next_u64()), Rng::new(rng.next_u64()));
    match k {
        0 => {
            let (a, b) = offshoot::join(
                || random_mix(&mut r1, depth - 1, m),
                || random_mix(&mut r2, depth - 1, m),
            );
            a + b + v
        }
        1 => {
            let mut g = m[depth as usize].lock();
            let (a, b) = offshoot::join(
                || random_mix(&mut r1, depth - 1, m),
                || random_mix(&mut r2, depth - 1, m),
            );
            *g += a;
            b + v
        }
        2 => {
            let p = offshoot::sync::Promise::new();
            let (a, b) = offshoot::join(
                || {
                    let x = random_mix(&mut r1, depth - 1, m);
                    p.put(x).unwrap();
                    x
                },
                || *p.get() + random_mix(&mut r2, depth - 1, m),
            );
            a + b + v
        }
        _ => {
            // A channel between the two sides of a join. The consumer is `b`: `a` must not
            // wait for `b` (`join`'s docs: past the seed limit `b` is only called after `a`
            // returns), while `b` may wait for `a`. The producer sends into a channel with
            // room for all it sends when the join is not split, and waits for the consumer
            // when it is (a thief took `b`).
            let (tx, rx) = offshoot::sync::bounded(3);
            let ((), a) = offshoot::join(
                move || {
                    for i in 0..3 {
                        tx.send(i + v).unwrap();
                    }
                },
                || rx.iter().sum::<u64>() + random_mix(&mut r1, depth - 1, m),
            );
            a + random_mix(&mut r2, depth - 1, m)
        }
    }
}

/// A bounded buffer guarded by a monitor (see [`monitor_push`], [`monitor_pop`]).
#[cfg(feature = "sync")]
pub type MonitorBuffer<T> =
    offshoot::sync::Monitor<std::cell::RefCell<std::collections::VecDeque<T>>>;

/// One step of a producer: waits (in the monitor) while `cap` items are queued, then
/// queues `v` and notifies every waiter.
#[cfg(feature = "sync")]
pub fn monitor_push<T>(buf: &MonitorBuffer<T>, cap: usize, v: T) {
    let g = buf.enter();
    while g.borrow().len() >= cap {
        g.wait();
    }
    g.borrow_mut().push_back(v);
    g.notify_all();
}

/// One step of a consumer: waits (in the monitor) while the buffer is empty, then takes
/// the oldest item and notifies every waiter.
#[cfg(feature = "sync")]
pub fn monitor_pop<T>(buf: &MonitorBuffer<T>) -> T {
    let g = buf.enter();
    while g.borrow().is_empty() {
        g.wait();
    }
    let v = g.borrow_mut().pop_front().expect("not empty");
    g.notify_all();
    v
}

/// Plain recursive Fibonacci: the serial oracle of the fib-shaped tests.
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

/// The future's task of [`drop_futures_while_their_tasks_end`]: says it started, waits
/// until its handle is gone, and ends with a counted value, padded with `PAD` words (a big
/// value does not fit a recycled task block, so the block is freed to the allocator, where
/// ThreadSanitizer and Miri see the free). The flag it waits on is relaxed on purpose: it
/// orders nothing, so ThreadSanitizer and Miri see the handle's release and the task's as
/// unordered and flag a party that touches the block after its own decrement while the
/// other frees it (issue 14).
#[cfg(feature = "sync")]
fn task_ending_after_its_handle<const PAD: usize>(
    tally: &Arc<Tally>,
    gone: &Arc<AtomicBool>,
) -> impl FnOnce() -> (Guard, [u64; PAD]) + Send + 'static {
    let (t, g) = (tally.clone(), gone.clone());
    move || {
        t.start();
        while !g.load(Ordering::Relaxed) {
            thread::yield_now();
        }
        (t.guard(), [0; PAD])
    }
}

/// Drops the handle `f` (leaks it, with `forget`), then tells its task it is gone.
#[cfg(feature = "sync")]
fn let_go<T>(f: T, forget: bool, gone: &AtomicBool) {
    if forget {
        std::mem::forget(f);
    } else {
        drop(f);
    }
    gone.store(true, Ordering::Relaxed);
}

/// Drops (or, with `forget`, leaks) `rounds` `spawn_future` handles, each while a thief is
/// running the future's task on another worker of `p` (which needs two workers), so that
/// the handle's release and the task's race. The values are padded with `PAD` words.
/// Returns the tally of the values: each made once, dropped once (never when forgotten).
#[cfg(feature = "sync")]
pub fn drop_futures_while_their_tasks_end<const PAD: usize>(
    p: &ThreadPool,
    rounds: usize,
    forget: bool,
) -> Arc<Tally> {
    let tally = Tally::new();
    p.run(|| {
        offshoot::finish(|| {
            for round in 0..rounds {
                let gone = Arc::new(AtomicBool::new(false));
                let task = task_ending_after_its_handle::<PAD>(&tally, &gone);
                let f = offshoot::sync::spawn_future(task);
                assert!(
                    poll_until(|| tally.started() > round),
                    "no thief took the task"
                );
                let_go(f, forget, &gone);
            }
        })
    });
    tally
}

/// Like [`drop_futures_while_their_tasks_end`], with the handle dropped (or leaked) by a
/// thread outside every pool while a worker of `p` runs the task.
#[cfg(feature = "sync")]
pub fn drop_a_future_outside_the_pool_while_its_task_ends<const PAD: usize>(
    p: &ThreadPool,
    forget: bool,
) -> Arc<Tally> {
    let tally = Tally::new();
    let gone = Arc::new(AtomicBool::new(false));
    thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        let task = task_ending_after_its_handle::<PAD>(&tally, &gone);
        s.spawn(move || {
            p.run(move || offshoot::finish(|| tx.send(offshoot::sync::spawn_future(task))))
        });
        let f = rx.recv().expect("the pool sends the handle");
        assert!(
            spin_until(|| tally.started() == 1),
            "no worker ran the task"
        );
        let_go(f, forget, &gone);
    });
    tally
}

/// Counts its drops (in the counter it holds): a value whose one drop a test checks.
pub struct Noted(pub Arc<AtomicUsize>);

impl Drop for Noted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}
