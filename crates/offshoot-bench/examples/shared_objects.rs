//! Figures for `offshoot::sync::Shared` and the OPA objects built on `sync::Object`
//! (issue 46).
//!
//! ```sh
//! cargo run --release -p offshoot-bench --example shared_objects -- [WORKERS] [RUNS] [throughput|latency|queues]
//! ```
//!
//! 1. **Read-mostly throughput**: `2 × WORKERS` tasks (threads for `std`) each make 200,000
//!    operations on a table of 64 equal numbers, 1% or 10% of them writes (add 1 to every
//!    entry), every read checks the entries it reads (first and last equal). Contenders:
//!    `Shared` (`read`/`write`), offshoot's `RwLock` and `Mutex` (tasks in a pool), `arc-swap`
//!    used directly (`load`, writes by `rcu`) in the same pool, and `std::sync::RwLock` on OS
//!    threads. Printed: million operations per second, median and range of RUNS.
//! 2. **Read latency**: one task reads 200,000 times, timing each read, alone and while
//!    another task writes without pause (each write holds the object for a 4 KiB update);
//!    printed: the median run's p50, p99, p99.9 and max in ns (timer included).
//! 3. **I-store vs `Promise`**: 20,000 cells, a producer task puts each, a consumer task gets
//!    each in order; **FIFO vs channel**: 2 producers and 2 consumers move 200,000 items
//!    through 16 slots (and 50,000 through 1 slot); ns per item, median and range.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use offshoot::sync::opa::{Fifo, IStore};
use offshoot::sync::{bounded, Mutex, Promise, RwLock, Shared};
use offshoot::ThreadPool;

const WIDTH: usize = 64;
type Table = [u64; WIDTH];
const OPS: u64 = 200_000;

/// A median and a range of RUNS figures.
fn summary(mut xs: Vec<f64>) -> String {
    xs.sort_by(|a, b| a.total_cmp(b));
    format!(
        "{:8.2} [{:.2} .. {:.2}]",
        xs[xs.len() / 2],
        xs[0],
        xs[xs.len() - 1]
    )
}

fn is_write(i: u64, pct: u64) -> bool {
    // Spread the writes: a multiplicative hash of the index modulo 100.
    (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % 100 < pct
}

fn check(t: &Table) -> u64 {
    assert_eq!(t[0], t[WIDTH - 1], "a torn read");
    t[0]
}

fn bump(t: &mut Table) {
    for x in t.iter_mut() {
        *x += 1;
    }
}

/// One read-mostly run of `tasks` tasks in `pool`: million ops per second.
fn mostly_reads(pool: &ThreadPool, tasks: u64, op: impl Fn(bool) + Sync) -> f64 {
    let start = Instant::now();
    pool.run(|| {
        offshoot::scope(|s| {
            for t in 0..tasks {
                let op = &op;
                s.spawn(move |_| {
                    for i in 0..OPS {
                        op(is_write(i + t * OPS, PCT.load(Ordering::Relaxed)));
                    }
                });
            }
        })
    });
    (tasks * OPS) as f64 / start.elapsed().as_secs_f64() / 1e6
}

static PCT: AtomicU64 = AtomicU64::new(1);

fn throughput(workers: usize, runs: usize) {
    let pool = ThreadPool::builder().workers(workers).build().unwrap();
    let tasks = 2 * workers as u64;
    for pct in [1, 10] {
        PCT.store(pct, Ordering::Relaxed);
        println!("== {}/{pct} reads/writes, {tasks} tasks on {workers} workers, Mops/s: median [min .. max]", 100 - pct);
        let mut rows: Vec<(&str, Vec<f64>)> = Vec::new();
        let mut f = |name, xs| rows.push((name, xs));
        let shared = Shared::new([0u64; WIDTH]);
        f(
            "Shared",
            (0..runs)
                .map(|_| {
                    mostly_reads(&pool, tasks, |w| {
                        if w {
                            shared.write(|t| bump(t))
                        } else {
                            black_box(shared.read(check));
                        }
                    })
                })
                .collect(),
        );
        let rw = RwLock::new([0u64; WIDTH]);
        f(
            "offshoot RwLock",
            (0..runs)
                .map(|_| {
                    mostly_reads(&pool, tasks, |w| {
                        if w {
                            bump(&mut rw.write())
                        } else {
                            black_box(check(&rw.read()));
                        }
                    })
                })
                .collect(),
        );
        let m = Mutex::new([0u64; WIDTH]);
        f(
            "offshoot Mutex",
            (0..runs)
                .map(|_| {
                    mostly_reads(&pool, tasks, |w| {
                        if w {
                            bump(&mut m.lock())
                        } else {
                            black_box(check(&m.lock()));
                        }
                    })
                })
                .collect(),
        );
        let a = ArcSwap::from_pointee([0u64; WIDTH]);
        f(
            "arc-swap direct",
            (0..runs)
                .map(|_| {
                    mostly_reads(&pool, tasks, |w| {
                        if w {
                            a.rcu(|t| {
                                let mut t = **t;
                                bump(&mut t);
                                t
                            });
                        } else {
                            black_box(check(&a.load()));
                        }
                    })
                })
                .collect(),
        );
        let sr = std::sync::RwLock::new([0u64; WIDTH]);
        f(
            "std RwLock, threads",
            (0..runs)
                .map(|_| {
                    let start = Instant::now();
                    std::thread::scope(|s| {
                        for t in 0..tasks {
                            let sr = &sr;
                            s.spawn(move || {
                                for i in 0..OPS {
                                    if is_write(i + t * OPS, pct) {
                                        bump(&mut sr.write().unwrap())
                                    } else {
                                        black_box(check(&sr.read().unwrap()));
                                    }
                                }
                            });
                        }
                    });
                    (tasks * OPS) as f64 / start.elapsed().as_secs_f64() / 1e6
                })
                .collect(),
        );
        for (name, xs) in rows {
            println!("  {name:22} {}", summary(xs));
        }
    }
}

/// Read latencies of one reader task (ns, sorted), with a writer task going on meanwhile
/// if `writer`.
fn latencies(
    pool: &ThreadPool,
    writer: bool,
    read: &(dyn Fn() + Sync),
    write: &(dyn Fn() + Sync),
) -> (Vec<u64>, u64) {
    let writes = AtomicU64::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let started = std::sync::atomic::AtomicBool::new(false);
    let mut lat = Vec::with_capacity(OPS as usize);
    pool.run(|| {
        offshoot::scope(|s| {
            if writer {
                s.spawn(|_| {
                    started.store(true, Ordering::Relaxed);
                    while !stop.load(Ordering::Relaxed) {
                        write();
                        writes.fetch_add(1, Ordering::Relaxed);
                        offshoot::poll();
                    }
                });
                // The reader's loop has no poll point: the writer must be running (on the
                // other worker) before it starts.
                while !started.load(Ordering::Relaxed) {
                    offshoot::poll();
                }
            }
            for _ in 0..OPS {
                let t = Instant::now();
                read();
                lat.push(t.elapsed().as_nanos() as u64);
            }
            stop.store(true, Ordering::Relaxed);
        })
    });
    lat.sort_unstable();
    (lat, writes.into_inner())
}

fn pct(l: &[u64], p: f64) -> u64 {
    l[((l.len() as f64 * p) as usize).min(l.len() - 1)]
}

fn latency(workers: usize, runs: usize) {
    let pool = ThreadPool::builder().workers(workers).build().unwrap();
    println!("== read latency (ns, the median run by p99; timer included): p50 p99 p99.9 max");
    type Big = [u64; 512];
    let shared = Shared::new([0u64; 512]);
    let rw = RwLock::new([0u64; 512]);
    let m = Mutex::new([0u64; 512]);
    let a = ArcSwap::from_pointee([0u64; 512]);
    let big = |t: &mut Big| t.iter_mut().for_each(|x| *x += 1);
    let chk = |t: &Big| assert_eq!(t[0], t[511]);
    type Op<'a> = Box<dyn Fn() + Sync + 'a>;
    let variants: Vec<(&str, Op, Op)> = vec![
        (
            "Shared",
            Box::new(|| shared.read(chk)),
            Box::new(|| shared.write(|t| big(t))),
        ),
        (
            "offshoot RwLock",
            Box::new(|| chk(&rw.read())),
            Box::new(|| big(&mut rw.write())),
        ),
        (
            "offshoot Mutex",
            Box::new(|| chk(&m.lock())),
            Box::new(|| big(&mut m.lock())),
        ),
        (
            "arc-swap direct",
            Box::new(|| chk(&a.load())),
            Box::new(|| {
                a.rcu(|t| {
                    let mut t = **t;
                    big(&mut t);
                    t
                });
            }),
        ),
    ];
    for (name, read, write) in &variants {
        for writer in [false, true] {
            let mut all: Vec<(Vec<u64>, u64)> = (0..runs)
                .map(|_| latencies(&pool, writer, read.as_ref(), write.as_ref()))
                .collect();
            all.sort_by_key(|(l, _)| pct(l, 0.99));
            let (l, w) = &all[all.len() / 2];
            println!(
                "  {name:16} {:14} {:6} {:6} {:7} {:9}   ({w} writes meanwhile)",
                if writer { "with a writer" } else { "alone" },
                pct(l, 0.5),
                pct(l, 0.99),
                pct(l, 0.999),
                l[l.len() - 1]
            );
        }
    }
    // std RwLock on two threads.
    let sr = Arc::new(std::sync::RwLock::new([0u64; 512]));
    for writer in [false, true] {
        let mut all: Vec<Vec<u64>> = (0..runs)
            .map(|_| {
                let stop = std::sync::atomic::AtomicBool::new(false);
                std::thread::scope(|s| {
                    if writer {
                        s.spawn(|| {
                            while !stop.load(Ordering::Relaxed) {
                                big(&mut sr.write().unwrap())
                            }
                        });
                    }
                    let mut lat = Vec::with_capacity(OPS as usize);
                    for _ in 0..OPS {
                        let t = Instant::now();
                        chk(&sr.read().unwrap());
                        lat.push(t.elapsed().as_nanos() as u64);
                    }
                    stop.store(true, Ordering::Relaxed);
                    lat.sort_unstable();
                    lat
                })
            })
            .collect();
        all.sort_by_key(|l| pct(l, 0.99));
        let l = &all[all.len() / 2];
        println!(
            "  {:16} {:14} {:6} {:6} {:7} {:9}",
            "std RwLock thr",
            if writer { "with a writer" } else { "alone" },
            pct(l, 0.5),
            pct(l, 0.99),
            pct(l, 0.999),
            l[l.len() - 1]
        );
    }
}

fn per_item(start: Instant, items: u64) -> f64 {
    start.elapsed().as_nanos() as f64 / items as f64
}

fn queues(workers: usize, runs: usize) {
    let pool = ThreadPool::builder().workers(workers).build().unwrap();
    const CELLS: u64 = 20_000;
    println!("== I-store vs Promise: {CELLS} cells, producer and consumer tasks, ns/cell: median [min .. max]");
    let istore: Vec<f64> = (0..runs)
        .map(|_| {
            let cells: Vec<IStore<u64>> = (0..CELLS).map(|_| IStore::new()).collect();
            let start = Instant::now();
            let sum = pool.run(|| {
                offshoot::scope(|s| {
                    s.spawn(|_| {
                        cells
                            .iter()
                            .enumerate()
                            .for_each(|(i, c)| c.put(i as u64).unwrap())
                    });
                    cells.iter().map(|c| c.get()).sum::<u64>()
                })
            });
            assert_eq!(sum, CELLS * (CELLS - 1) / 2);
            per_item(start, CELLS)
        })
        .collect();
    let promise: Vec<f64> = (0..runs)
        .map(|_| {
            let cells: Vec<Promise<u64>> = (0..CELLS).map(|_| Promise::new()).collect();
            let start = Instant::now();
            let sum = pool.run(|| {
                offshoot::scope(|s| {
                    s.spawn(|_| {
                        cells
                            .iter()
                            .enumerate()
                            .for_each(|(i, c)| c.put(i as u64).unwrap())
                    });
                    cells.iter().map(|c| *c.get()).sum::<u64>()
                })
            });
            assert_eq!(sum, CELLS * (CELLS - 1) / 2);
            per_item(start, CELLS)
        })
        .collect();
    println!("  {:22} {}", "opa::IStore", summary(istore));
    println!("  {:22} {}", "Promise", summary(promise));
    println!("== the same without waiting: one task puts then gets each cell, ns/cell");
    let istore: Vec<f64> = (0..runs)
        .map(|_| {
            let cells: Vec<IStore<u64>> = (0..CELLS).map(|_| IStore::new()).collect();
            let start = Instant::now();
            let sum: u64 = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    c.put(i as u64).unwrap();
                    c.get()
                })
                .sum();
            assert_eq!(sum, CELLS * (CELLS - 1) / 2);
            per_item(start, CELLS)
        })
        .collect();
    let promise: Vec<f64> = (0..runs)
        .map(|_| {
            let cells: Vec<Promise<u64>> = (0..CELLS).map(|_| Promise::new()).collect();
            let start = Instant::now();
            let sum: u64 = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    c.put(i as u64).unwrap();
                    *c.get()
                })
                .sum();
            assert_eq!(sum, CELLS * (CELLS - 1) / 2);
            per_item(start, CELLS)
        })
        .collect();
    println!("  {:22} {}", "opa::IStore", summary(istore));
    println!("  {:22} {}", "Promise", summary(promise));
    println!("== FIFO vs channel without waiting: one task puts 8 then gets 8, 200000 items, 16 slots, ns/item");
    let fifo: Vec<f64> = (0..runs)
        .map(|_| {
            let q = Fifo::new(16);
            let start = Instant::now();
            let mut sum = 0;
            for i in (0..200_000u64).step_by(8) {
                (i..i + 8).for_each(|j| q.put(j));
                (0..8).for_each(|_| sum += q.get());
            }
            assert_eq!(sum, 200_000 * 199_999 / 2);
            per_item(start, 200_000)
        })
        .collect();
    let chan: Vec<f64> = (0..runs)
        .map(|_| {
            let (tx, rx) = bounded(16);
            let start = Instant::now();
            let mut sum = 0;
            for i in (0..200_000u64).step_by(8) {
                (i..i + 8).for_each(|j| tx.send(j).unwrap());
                (0..8).for_each(|_| sum += rx.recv().unwrap());
            }
            assert_eq!(sum, 200_000 * 199_999 / 2);
            per_item(start, 200_000)
        })
        .collect();
    println!("  {:22} {}", "opa::Fifo", summary(fifo));
    println!("  {:22} {}", "sync::bounded channel", summary(chan));
    for (cap, items) in [(16usize, 200_000u64), (1, 50_000)] {
        println!("== FIFO vs channel: 2 producers, 2 consumers, {items} items, {cap} slots, ns/item: median [min .. max]");
        let fifo: Vec<f64> = (0..runs)
            .map(|_| {
                let q = Fifo::new(cap);
                let sum = AtomicU64::new(0);
                let start = Instant::now();
                pool.run(|| {
                    offshoot::scope(|s| {
                        for p in 0..2 {
                            let q = &q;
                            s.spawn(move |_| {
                                (p * items / 2..(p + 1) * items / 2).for_each(|i| q.put(i))
                            });
                        }
                        for _ in 0..2 {
                            s.spawn(|_| {
                                let mut m = 0;
                                for _ in 0..items / 2 {
                                    m += q.get();
                                }
                                sum.fetch_add(m, Ordering::Relaxed);
                            });
                        }
                    })
                });
                assert_eq!(sum.into_inner(), items * (items - 1) / 2);
                per_item(start, items)
            })
            .collect();
        let chan: Vec<f64> = (0..runs)
            .map(|_| {
                let (tx, rx) = bounded(cap);
                let sum = AtomicU64::new(0);
                let start = Instant::now();
                pool.run(|| {
                    offshoot::scope(|s| {
                        for p in 0..2 {
                            let tx = tx.clone();
                            s.spawn(move |_| {
                                (p * items / 2..(p + 1) * items / 2)
                                    .for_each(|i| tx.send(i).unwrap())
                            });
                        }
                        for _ in 0..2 {
                            let rx = rx.clone();
                            let sum = &sum;
                            s.spawn(move |_| {
                                let mut m = 0;
                                for _ in 0..items / 2 {
                                    m += rx.recv().unwrap();
                                }
                                sum.fetch_add(m, Ordering::Relaxed);
                            });
                        }
                    })
                });
                assert_eq!(sum.into_inner(), items * (items - 1) / 2);
                per_item(start, items)
            })
            .collect();
        println!("  {:22} {}", "opa::Fifo", summary(fifo));
        println!("  {:22} {}", "sync::bounded channel", summary(chan));
    }
}

/// How often producers and consumers park, for 4 of each over 16 slots.
fn wakeups(workers: usize) {
    let pool = ThreadPool::builder().workers(workers).build().unwrap();
    let q = Fifo::new(16);
    let items = 80_000u64;
    let start = Instant::now();
    pool.run(|| {
        offshoot::scope(|s| {
            for p in 0..4 {
                let q = &q;
                s.spawn(move |_| (p * items / 4..(p + 1) * items / 4).for_each(|i| q.put(i)));
            }
            for _ in 0..4 {
                s.spawn(|_| {
                    (0..items / 4).for_each(|_| {
                        black_box(q.get());
                    })
                });
            }
        })
    });
    println!(
        "== 4 producers, 4 consumers, {items} items, 16 slots: {:.0} ns/item, producers woken {}, consumers woken {}",
        per_item(start, items),
        q.woken_producers(),
        q.woken_consumers()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let workers = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2);
    let runs = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(5);
    let t = Instant::now();
    let only = args.get(3).map(String::as_str);
    let want = |name: &str| only.is_none_or(|o| o == name);
    if want("throughput") {
        throughput(workers, runs);
    }
    if want("latency") {
        latency(workers, runs);
    }
    if want("queues") {
        queues(workers, runs);
    }
    if want("wakeups") {
        wakeups(workers);
    }
    eprintln!("(took {:?})", t.elapsed().max(Duration::ZERO));
}
