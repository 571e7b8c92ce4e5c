//! What an actor costs: nanoseconds per message sent and processed (one actor fed by one
//! task, and by two, on 2 workers), and bytes per idle actor (the engine's size, and what
//! the allocator hands out per actor started, before and after it received a message).
//!
//! `cargo run --release -p offshoot --example actors_cost -- [MESSAGES] [IDLE_ACTORS]`
//! (defaults: 2,000,000 messages; 1,000,000 idle actors, all alive at once). On Linux it
//! also prints the process's resident memory (`VmRSS`) before and after starting them.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use offshoot::actor::{self, Actor, ActorRef, Context};

/// Counts the bytes live in the heap.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

struct Sum(Arc<AtomicU64>, u64);

impl Actor for Sum {
    type Message = u64;
    fn receive(&mut self, x: u64, _: &mut Context<'_, Self>) {
        self.1 = self.1.wrapping_add(x);
    }
}

impl Drop for Sum {
    fn drop(&mut self) {
        self.0.store(self.1, Ordering::Relaxed);
    }
}

/// Counts down; the last one fulfils the promise.
struct Tick {
    left: Arc<AtomicU64>,
    all_fed: offshoot::sync::Promise<()>,
}

impl Actor for Tick {
    type Message = ();
    fn receive(&mut self, _: (), _: &mut Context<'_, Self>) {
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.all_fed.put(()).unwrap();
        }
    }
}

fn throughput(pool: &offshoot::ThreadPool, n: u64, senders: u64) -> f64 {
    let out = Arc::new(AtomicU64::new(0));
    let o = out.clone();
    let t = Instant::now();
    pool.run(move || {
        let a = actor::start(Sum(o, 0));
        offshoot::par_for(0..senders as usize, |s| {
            for i in 0..n / senders {
                a.send(i + s as u64);
            }
        });
    });
    let ns = t.elapsed().as_secs_f64() * 1e9 / n as f64;
    assert!(out.load(Ordering::Relaxed) > 0);
    ns
}

#[path = "shared/procfs.rs"]
mod procfs;

/// The process's resident memory in bytes (Linux: `VmRSS`).
fn resident() -> Option<isize> {
    Some(procfs::status_kib("VmRSS:")? as isize * 1024)
}

fn main() {
    let arg = |i: usize, what: &str, default: u64| -> u64 {
        std::env::args()
            .nth(i)
            .map(|a| {
                a.parse()
                    .unwrap_or_else(|_| panic!("{what}: a whole number, not `{a}`"))
            })
            .unwrap_or(default)
    };
    let n = arg(1, "MESSAGES", 2_000_000);
    let idle = arg(2, "IDLE_ACTORS", 1_000_000).max(1) as usize;
    let pool = offshoot::ThreadPool::builder().workers(2).build().unwrap();
    for senders in [1, 2] {
        let best = (0..5)
            .map(|_| throughput(&pool, n, senders))
            .fold(f64::MAX, f64::min);
        println!(
            "one actor, {senders} sending task(s), 2 workers: {best:.1} ns per message (best of 5, {n} messages)"
        );
    }

    let (before, started, fed, rss) = pool.run(|| {
        let left = Arc::new(AtomicU64::new(idle as u64));
        let all_fed = offshoot::sync::Promise::new();
        let mut refs: Vec<ActorRef<Tick>> = Vec::with_capacity(idle);
        let rss_before = resident();
        let before = LIVE.load(Ordering::Relaxed);
        refs.extend((0..idle).map(|_| {
            actor::start(Tick {
                left: left.clone(),
                all_fed: all_fed.clone(),
            })
        }));
        let started = LIVE.load(Ordering::Relaxed);
        let rss_started = resident();
        for r in &refs {
            r.send(());
        }
        // Parks until the last actor processed its message (this worker runs drains
        // meanwhile).
        all_fed.get();
        let fed = LIVE.load(Ordering::Relaxed);
        let rss_fed = resident();
        drop(refs);
        (before, started, fed, (rss_before, rss_started, rss_fed))
    });
    // The handles' vector was allocated before `before`, so the heap bytes counted are the
    // actors'; its pages are touched while the actors start, so the resident figures include
    // the 8-byte handle of each.
    let per = |a: isize, b: isize| (b - a) as f64 / idle as f64;
    println!(
        "{idle} idle actors alive at once: engine {} bytes (size_of, `()` messages); heap per actor started: {:.0} bytes; after one message each: {:.0} bytes; all of them: {:.0} MiB",
        actor::engine_size_of::<Tick>(),
        per(before, started),
        per(before, fed),
        (fed - before) as f64 / (1 << 20) as f64,
    );
    if let (Some(a), Some(b), Some(c)) = rss {
        println!(
            "resident memory: {:.0} MiB before, {:.0} MiB with them started ({:.0} bytes each), {:.0} MiB after one message each ({:.0} bytes each)",
            a as f64 / (1 << 20) as f64,
            b as f64 / (1 << 20) as f64,
            per(a, b),
            c as f64 / (1 << 20) as f64,
            per(a, c),
        );
    }
}
