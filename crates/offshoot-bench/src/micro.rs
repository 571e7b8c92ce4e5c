//! `micro`: the cost of the scheduling primitives in nanoseconds, so
//! regressions show up.
//!
//! Each measurement runs a tight loop in batches sized to about 20 ms (after
//! one calibration batch) and reports the median, min and max over the
//! batches of the per-operation time:
//! - a plain call of two closures (the baseline a join is compared with);
//! - a join whose seed/job is not taken, on a 1-worker pool: offshoot, rayon,
//!   chili (chili checks its heartbeat only on every 64th join);
//! - `offshoot::poll()` with no request pending (1 worker), and with an idle
//!   second worker asking for work (2 workers: includes answering its
//!   requests with "nothing to give");
//! - a steal round trip on 2 workers: `join(a, b)` where `a` spins (polling)
//!   until `b` has been taken and run by the other worker, so one iteration is
//!   request + answer + run + completion. rayon's `a` spins with
//!   `spin_loop`; chili's spinning closure runs empty joins, since chili only
//!   shares work at a heartbeat (every 100 µs by default) seen inside a join.
//!
//! - Venetis et al.'s cost split of a task (create / enqueue / start) for 10^6 empty tasks made by one
//!   task, on 1 and 2 workers: offshoot's `spawn` in a loop (timed phase by phase through
//!   `offshoot::probe::spawn_phases`), offshoot's `spawn_batch`, rayon's `scope.spawn`.
//!
//! - a finish accumulator's put (and the order-preserving one's), beside an uncontended
//!   atomic add;
//! - a phaser's `next` with 64 tasks on 2 workers, beside a park-and-resume round trip;
//! - eureka checks that find nothing to do (a `Search`'s, a `Minima`'s whose bound is
//!   beaten, and the dynamic `eureka::check()`), beside a cancellation token's load.
//!
//! A spinning closure gives up after 5 s so that a runtime that never lets
//! the other worker take `b` reports an error instead of hanging.

use std::hint::black_box;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::harness::Counters;
use crate::par::{Fork, Offshoot, Rayon};

/// One microbenchmark's result.
#[derive(Clone, Debug, Serialize)]
pub struct Micro {
    /// What is measured.
    pub primitive: String,
    /// Which runtime ("-" for the baseline).
    pub runtime: String,
    /// Pool size.
    pub workers: usize,
    /// Median nanoseconds per operation over the batches.
    pub median_ns: f64,
    /// Fastest batch.
    pub min_ns: f64,
    /// Slowest batch.
    pub max_ns: f64,
    /// Operations per batch.
    pub ops_per_batch: u64,
    /// Batches.
    pub batches: usize,
    /// Extra observations (e.g. offshoot's counters).
    pub note: String,
}

const BATCH_TARGET: Duration = Duration::from_millis(20);
const SPIN_LIMIT: Duration = Duration::from_secs(5);

/// Measures `op(n)` (which performs n operations) over `batches` batches.
fn measure(batches: usize, mut op: impl FnMut(u64)) -> (f64, f64, f64, u64) {
    // Calibrate: double n until one batch takes long enough.
    let mut n: u64 = 16;
    loop {
        let t = Instant::now();
        op(n);
        let e = t.elapsed();
        if e >= BATCH_TARGET / 4 || n >= 1 << 30 {
            let per = e.as_secs_f64() / n as f64;
            n = ((BATCH_TARGET.as_secs_f64() / per.max(1e-12)) as u64).clamp(16, 1 << 32);
            break;
        }
        n *= 2;
    }
    let mut ns: Vec<f64> = (0..batches.max(1))
        .map(|_| {
            let t = Instant::now();
            op(n);
            t.elapsed().as_secs_f64() * 1e9 / n as f64
        })
        .collect();
    ns.sort_by(f64::total_cmp);
    let median = ns[ns.len() / 2];
    (median, ns[0], ns[ns.len() - 1], n)
}

fn result(
    primitive: &str,
    runtime: &str,
    workers: usize,
    batches: usize,
    m: (f64, f64, f64, u64),
    note: String,
) -> Micro {
    Micro {
        primitive: primitive.to_string(),
        runtime: runtime.to_string(),
        workers,
        median_ns: m.0,
        min_ns: m.1,
        max_ns: m.2,
        ops_per_batch: m.3,
        batches,
        note,
    }
}

#[inline(never)]
fn plain_pair<A: FnOnce() -> u64, B: FnOnce() -> u64>(a: A, b: B) -> (u64, u64) {
    (a(), b())
}

/// Waits until `flag` is set, calling `poll` meanwhile; false on timeout.
#[inline(always)]
/// Runs `f` at the bottom of `k` nested `offshoot::join`s whose second halves are empty,
/// so the worker holds `k` seeds (or its seed limit) while `f` runs.
fn with_held_seeds<R: Send>(k: u32, f: impl FnOnce() -> R + Send) -> R {
    if k == 0 {
        return f();
    }
    let mut r = None;
    offshoot::join(|| r = Some(with_held_seeds(k - 1, f)), || ());
    r.expect("the first half of a join always runs")
}

fn spin_until(flag: &AtomicBool, mut poll: impl FnMut()) -> bool {
    let start = Instant::now();
    let mut spins: u32 = 0;
    while !flag.load(Ordering::Acquire) {
        poll();
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(4096) && start.elapsed() > SPIN_LIMIT {
            return false;
        }
    }
    true
}

/// Joins of two trivial closures with `J` that nobody takes (1 worker): the cost of the
/// fork itself. Call inside `J`'s pool.
fn join_not_taken<J: Fork>(batches: usize) -> (f64, f64, f64, u64) {
    measure(batches, |n| {
        for _ in 0..n {
            black_box(J::join(|| black_box(1u64), || black_box(2u64)));
        }
    })
}

/// Steal round trips with `J` (2 workers): `join(a, b)` where `a` spins, calling `poll`,
/// until the other worker has taken and run `b`. `None`: the other worker never took `b`
/// within `SPIN_LIMIT`. Call inside `J`'s pool.
fn steal_round_trips<J: Fork>(batches: usize, poll: fn()) -> Option<(f64, f64, f64, u64)> {
    let timed_out = AtomicBool::new(false);
    let m = measure(batches, |n| {
        for _ in 0..n {
            let flag = AtomicBool::new(false);
            J::join(
                || {
                    if !spin_until(&flag, poll) {
                        timed_out.store(true, Ordering::Relaxed);
                        flag.store(true, Ordering::Release);
                    }
                },
                || flag.store(true, Ordering::Release),
            );
            if timed_out.load(Ordering::Relaxed) {
                return;
            }
        }
    });
    (!timed_out.load(Ordering::Relaxed)).then_some(m)
}

fn chili_pool(workers: usize) -> chili::ThreadPool {
    chili::ThreadPool::with_config(chili::Config {
        thread_count: NonZeroUsize::new(workers),
        ..Default::default()
    })
}

fn rayon_pool(workers: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| format!("rayon pool: {e}"))
}

fn offshoot_pool(workers: usize) -> Result<offshoot::ThreadPool, String> {
    offshoot::ThreadPool::builder()
        .workers(workers)
        .build()
        .map_err(|e| format!("offshoot pool: {e:?}"))
}

/// Runs every microbenchmark; `report` is called with each result as soon as
/// it is known.
pub fn run_all(batches: usize, report: &mut dyn FnMut(&Micro)) -> Result<Vec<Micro>, String> {
    let mut out = Vec::new();
    let mut push = |m: Micro, out: &mut Vec<Micro>| {
        report(&m);
        out.push(m);
    };

    let m = measure(batches, |n| {
        for _ in 0..n {
            black_box(plain_pair(|| black_box(1u64), || black_box(2u64)));
        }
    });
    push(
        result(
            "plain call of two closures (baseline)",
            "-",
            1,
            batches,
            m,
            String::new(),
        ),
        &mut out,
    );

    // Joins that are not taken, 1 worker.
    {
        let pool = offshoot_pool(1)?;
        let before = Counters::of(&pool);
        let m = pool.run(|| join_not_taken::<Offshoot>(batches));
        let c = Counters::of(&pool).since(before);
        push(
            result(
                "join, seed not taken",
                "offshoot",
                1,
                batches,
                m,
                format!("{} tasks materialized", c.tasks_materialized),
            ),
            &mut out,
        );
        // The same loop while the worker already holds the most unstolen seeds it keeps
        // (`offshoot`'s seed limit): then a join plants nothing — the common case inside
        // any deep recursion.
        let m = pool.run(|| {
            with_held_seeds(64, || {
                measure(batches, |n| {
                    for _ in 0..n {
                        black_box(offshoot::join(|| black_box(1u64), || black_box(2u64)));
                    }
                })
            })
        });
        push(
            result(
                "join, seed limit reached (no seed)",
                "offshoot",
                1,
                batches,
                m,
                "inside 64 nested joins".to_string(),
            ),
            &mut out,
        );
        let m = pool.run(|| {
            measure(batches, |n| {
                for _ in 0..n {
                    offshoot::poll();
                }
            })
        });
        push(
            result(
                "poll, no request pending",
                "offshoot",
                1,
                batches,
                m,
                String::new(),
            ),
            &mut out,
        );
    }
    // Eureka checks that find nothing to do (the target: a few nanoseconds), beside the
    // hand-threaded token they replace; 1 worker, inside an unresolved region.
    {
        use offshoot::eureka::{self, Eureka, Minima, Search};
        let pool = offshoot_pool(1)?;
        let token = AtomicBool::new(false);
        let m = measure(batches, |n| {
            for _ in 0..n {
                black_box(token.load(Ordering::Relaxed));
            }
        });
        push(
            result(
                "cancellation token load (baseline)",
                "-",
                1,
                batches,
                m,
                String::new(),
            ),
            &mut out,
        );
        let found = Search::<u64>::new();
        let m = pool
            .run(|| {
                eureka::finish(&found, || {
                    measure(batches, |n| {
                        for _ in 0..n {
                            black_box(found.check());
                        }
                    })
                })
            })
            .ok_or("the Search region was stopped")?;
        push(
            result(
                "eureka check, Search unresolved",
                "offshoot",
                1,
                batches,
                m,
                String::new(),
            ),
            &mut out,
        );
        let bound = Minima::new(u64::MAX);
        let m = pool
            .run(|| {
                eureka::finish(&bound, || {
                    measure(batches, |n| {
                        for i in 0..n {
                            black_box(bound.check(black_box(i)));
                        }
                    })
                })
            })
            .ok_or("the Minima region was stopped")?;
        push(
            result(
                "eureka check, Minima bound beaten",
                "offshoot",
                1,
                batches,
                m,
                String::new(),
            ),
            &mut out,
        );
        let m = pool
            .run(|| {
                eureka::finish(&found, || {
                    measure(batches, |n| {
                        for _ in 0..n {
                            black_box(eureka::check(()));
                        }
                    })
                })
            })
            .ok_or("the Search region was stopped")?;
        push(
            result(
                "eureka::check(), the region's eureka found dynamically",
                "offshoot",
                1,
                batches,
                m,
                "walks the enclosing regions and polls".to_string(),
            ),
            &mut out,
        );
        // The cost of stopping: a region whose body dives `DEPTH` joins deep and offers at
        // the bottom, so the resolution unwinds every level (each join catches the stop,
        // drops its unstarted other half, and raises it again), beside the same dive with
        // a token, where each level returns and the other half tests the token.
        const DEPTH: u32 = 32;
        fn dive_eureka(d: u32, s: &Search<u32>) {
            if d == 0 {
                s.offer(d);
                return;
            }
            s.check();
            offshoot::join(|| dive_eureka(d - 1, s), || s.check());
        }
        fn dive_token(d: u32, stop: &AtomicBool) {
            if d == 0 {
                stop.store(true, Ordering::Relaxed);
                return;
            }
            if stop.load(Ordering::Relaxed) {
                return;
            }
            offshoot::join(
                || dive_token(d - 1, stop),
                || black_box(stop.load(Ordering::Relaxed)),
            );
        }
        let m = pool.run(|| {
            measure(batches, |n| {
                for _ in 0..n {
                    let stop = AtomicBool::new(false);
                    dive_token(DEPTH, &stop);
                    black_box(stop.load(Ordering::Relaxed));
                }
            })
        });
        push(
            result(
                "a 32-join-deep dive that finds, token (baseline)",
                "offshoot",
                1,
                batches,
                m,
                "each level returns".to_string(),
            ),
            &mut out,
        );
        let m = pool.run(|| {
            measure(batches, |n| {
                for _ in 0..n {
                    let found = Search::new();
                    eureka::finish(&found, || dive_eureka(DEPTH, &found));
                    black_box(found.into_inner());
                }
            })
        });
        push(
            result(
                "a 32-join-deep dive that finds, Search eureka",
                "offshoot",
                1,
                batches,
                m,
                "the resolving offer unwinds all 32 levels".to_string(),
            ),
            &mut out,
        );
    }
    // Phasers (the target: `next` with 64 tasks on 2 workers within a small multiple of a
    // plain park and resume per task): a park-and-resume round trip (two tasks on one worker handing a
    // turn back and forth through two EventCounts: each turn parks one task and resumes
    // the other), then one phase of P tasks on W workers, per task.
    {
        use offshoot::phaser::{Mode, Phaser};
        use offshoot::sync::EventCount;
        let one = offshoot_pool(1)?;
        let m = one.run(|| {
            measure(batches, |n| {
                let (ping, pong) = (EventCount::new(), EventCount::new());
                offshoot::scope(|s| {
                    s.spawn(|_| {
                        for i in 1..=n {
                            ping.advance();
                            pong.wait_until(i);
                        }
                    });
                    s.spawn(|_| {
                        for i in 1..=n {
                            ping.wait_until(i);
                            pong.advance();
                        }
                    });
                });
            })
        });
        // Each round is two park-and-resume round trips.
        let half = (m.0 / 2.0, m.1 / 2.0, m.2 / 2.0, m.3);
        push(
            result(
                "park + resume round trip (baseline)",
                "offshoot",
                1,
                batches,
                half,
                "two tasks on one worker taking turns".to_string(),
            ),
            &mut out,
        );
        // `next` with P tasks on W workers: P = 4× and 32× the workers (as the stencil
        // kernels), on 1 and 2 workers.
        let mut phases = Vec::new();
        for (workers, tasks) in [(1usize, 4usize), (1, 32), (2, 8), (2, 64)] {
            let pool = offshoot_pool(workers)?;
            let m = pool.run(|| {
                measure(batches, |n| {
                    let ph = Phaser::new();
                    let me = ph.register(Mode::SigWait);
                    offshoot::scope(|s| {
                        for _ in 0..tasks {
                            let mut r = me.child(Mode::SigWait);
                            s.spawn(move |_| {
                                for _ in 0..n {
                                    r.next();
                                }
                            });
                        }
                        drop(me);
                    });
                })
            });
            phases.push((workers, tasks, m));
        }
        // A phase accumulator's put: a fold into the member's own partial.
        let ph = Phaser::new();
        let sum = offshoot::phaser::PhaseAccumulator::new(&ph, 0u64, |a: &mut u64, x| *a += x);
        let mut r = ph.register(Mode::SigWait);
        let put = measure(batches, |n| {
            for i in 0..n {
                sum.put(&mut r, black_box(i));
            }
        });
        r.next();
        black_box(sum.get(0));
        push(
            result(
                "phase accumulator put (SUM of u64)",
                "offshoot",
                1,
                batches,
                put,
                "into the member's own partial".to_string(),
            ),
            &mut out,
        );
        for (workers, tasks, m) in phases {
            let per_task = |x: f64| x / tasks as f64;
            push(
                result(
                    &format!("phaser next, {tasks} tasks, per task and phase"),
                    "offshoot",
                    workers,
                    batches,
                    (per_task(m.0), per_task(m.1), per_task(m.2), m.3),
                    "each task parks at every phase but the last to arrive".to_string(),
                ),
                &mut out,
            );
        }
    }
    // A finish accumulator's put (no read-modify-write shared with other workers), beside an uncontended atomic add.
    {
        use offshoot::accumulator::Accumulator;
        let pool = offshoot_pool(1)?;
        let shared = std::sync::atomic::AtomicU64::new(0);
        let m = measure(batches, |n| {
            for i in 0..n {
                shared.fetch_add(black_box(i), Ordering::Relaxed);
            }
        });
        push(
            result(
                "atomic fetch_add, uncontended (baseline)",
                "-",
                1,
                batches,
                m,
                String::new(),
            ),
            &mut out,
        );
        let sum = Accumulator::sum();
        let m = pool.run(|| {
            sum.finish(|p| {
                measure(batches, |n| {
                    for i in 0..n {
                        p.put(black_box(i));
                    }
                })
            })
        });
        black_box(sum.get());
        push(
            result(
                "accumulator put (SUM of u64)",
                "offshoot",
                1,
                batches,
                m,
                "into the worker's own partial".to_string(),
            ),
            &mut out,
        );
        // The order-preserving variant: a put of the next index folds into the worker's
        // current run; the region then folds the runs in index order.
        let ordered = offshoot::accumulator::OrderedAccumulator::new(0u64, |a: &mut u64, x| {
            *a = a.wrapping_mul(31).wrapping_add(x)
        });
        let mut next = 0usize;
        let m = pool.run(|| {
            ordered.finish(|p| {
                measure(batches, |n| {
                    for i in 0..n {
                        p.put(next, black_box(i));
                        next += 1;
                    }
                })
            })
        });
        black_box(ordered.get());
        push(
            result(
                "ordered accumulator put (next index)",
                "offshoot",
                1,
                batches,
                m,
                "extends the worker's current run".to_string(),
            ),
            &mut out,
        );
    }
    {
        let pool = rayon_pool(1)?;
        let m = pool.install(|| join_not_taken::<Rayon>(batches));
        push(
            result(
                "join, job not stolen",
                "rayon",
                1,
                batches,
                m,
                String::new(),
            ),
            &mut out,
        );
    }
    {
        let pool = chili_pool(1);
        let mut s = pool.scope();
        let m = measure(batches, |n| {
            for _ in 0..n {
                black_box(s.join(|_| black_box(1u64), |_| black_box(2u64)));
            }
        });
        push(
            result(
                "join, job not shared",
                "chili",
                1,
                batches,
                m,
                "heartbeat checked on every 64th join".to_string(),
            ),
            &mut out,
        );
    }

    for workers in [1, 2] {
        if workers <= crate::machine::available_parallelism() {
            for m in task_cost_split(batches, workers)? {
                push(m, &mut out);
            }
        }
    }

    if crate::machine::available_parallelism() < 2 {
        eprintln!("note: fewer than 2 cores available; skipping the 2-worker measurements");
        return Ok(out);
    }

    // 2 workers: poll with an idle thief, and steal round trips.
    {
        let pool = offshoot_pool(2)?;
        let before = Counters::of(&pool);
        let m = pool.run(|| {
            measure(batches, |n| {
                for _ in 0..n {
                    offshoot::poll();
                }
            })
        });
        let c = Counters::of(&pool).since(before);
        push(
            result(
                "poll, idle 2nd worker asking",
                "offshoot",
                2,
                batches,
                m,
                format!(
                    "{} requests answered empty, {} with work",
                    c.requests_answered_empty, c.requests_answered_work
                ),
            ),
            &mut out,
        );

        let before = Counters::of(&pool);
        let Some(m) = pool.run(|| steal_round_trips::<Offshoot>(batches.min(9), offshoot::poll))
        else {
            return Err(
                "offshoot steal round trip: the second worker never took the seed (5 s)"
                    .to_string(),
            );
        };
        let c = Counters::of(&pool).since(before);
        push(
            result(
                "steal round trip",
                "offshoot",
                2,
                batches.min(9),
                m,
                format!(
                    "{} tasks materialized, {} requests sent",
                    c.tasks_materialized, c.requests_sent
                ),
            ),
            &mut out,
        );
    }
    {
        let pool = rayon_pool(2)?;
        let Some(m) =
            pool.install(|| steal_round_trips::<Rayon>(batches.min(9), std::hint::spin_loop))
        else {
            return Err("rayon steal round trip timed out (5 s)".to_string());
        };
        push(
            result(
                "steal round trip",
                "rayon",
                2,
                batches.min(9),
                m,
                String::new(),
            ),
            &mut out,
        );
    }
    {
        let pool = chili_pool(2);
        let mut s = pool.scope();
        let timed_out = AtomicBool::new(false);
        let m = measure(batches.min(9), |n| {
            for _ in 0..n {
                let flag = AtomicBool::new(false);
                // chili runs the second closure itself and offers the first.
                s.join(
                    |_| flag.store(true, Ordering::Release),
                    |s| {
                        if !spin_until(&flag, || {
                            s.join(|_| (), |_| ());
                        }) {
                            timed_out.store(true, Ordering::Relaxed);
                        }
                    },
                );
                if timed_out.load(Ordering::Relaxed) {
                    return;
                }
            }
        });
        if timed_out.load(Ordering::Relaxed) {
            // chili shares work only at a heartbeat, and only when its own policy says so:
            // not sharing within the bound is its behaviour, not an error of the suite.
            eprintln!("note: chili shared no work within 5 s; no steal round trip for chili");
            return Ok(out);
        }
        push(
            result(
                "steal round trip",
                "chili",
                2,
                batches.min(9),
                m,
                "shares work only at a heartbeat (every 100 µs by default)".to_string(),
            ),
            &mut out,
        );
    }
    Ok(out)
}

/// Tasks per run of the cost split (Venetis et al.'s Empty: 10^6 empty tasks made by one task).
const SPLIT_TASKS: usize = 1_000_000;

/// Runs `run` (which does [`SPLIT_TASKS`] tasks and returns its phases' times) `batches`
/// times and turns each phase's median into a result, in ns per task.
#[allow(clippy::too_many_arguments)]
fn split_results(
    what: &str,
    note: &str,
    runtime: &str,
    workers: usize,
    batches: usize,
    phases: &[&str],
    mut run: impl FnMut() -> Vec<Duration>,
) -> Vec<Micro> {
    let runs: Vec<Vec<f64>> = (0..batches.max(1))
        .map(|_| {
            let d = run();
            let total: Duration = d.iter().sum();
            d.iter()
                .chain(std::iter::once(&total))
                .map(|x| x.as_secs_f64() * 1e9 / SPLIT_TASKS as f64)
                .collect()
        })
        .collect();
    phases
        .iter()
        .chain(std::iter::once(&"total"))
        .enumerate()
        .map(|(k, phase)| {
            let mut ns: Vec<f64> = runs.iter().map(|r| r[k]).collect();
            ns.sort_by(f64::total_cmp);
            let m = (
                ns[ns.len() / 2],
                ns[0],
                ns[ns.len() - 1],
                SPLIT_TASKS as u64,
            );
            result(
                &format!("{what}: {phase}"),
                runtime,
                workers,
                batches,
                m,
                note.to_string(),
            )
        })
        .collect()
}

/// Venetis et al.'s cost split of a task (create / enqueue / start) on `workers` workers: offshoot's
/// `spawn` in a loop (through `offshoot::probe::spawn_phases`, which times each phase over
/// all tasks), offshoot's `spawn_batch` (the call, then the rest of the scope), rayon's
/// `scope.spawn` in a loop (the loop, then the rest of the scope).
fn task_cost_split(batches: usize, workers: usize) -> Result<Vec<Micro>, String> {
    let batches = batches.min(9);
    let mut out = Vec::new();
    let pool = offshoot_pool(workers)?;
    out.extend(split_results(
        "spawn",
        "per task, 10^6 empty tasks made by one task",
        "offshoot",
        workers,
        batches,
        &["create", "enqueue", "start+run"],
        || {
            let p = pool.run(|| offshoot::probe::spawn_phases(SPLIT_TASKS));
            vec![p.create, p.enqueue, p.start]
        },
    ));
    // The steady state of recycling: 1000 finishes of 1000 tasks, so the descriptors come
    // from the free lists (10^6 live ones cannot: they are fresh memory every time).
    out.extend(split_results(
        "spawn",
        "per task, 1000 finishes of 10^3 tasks (recycled descriptors)",
        "offshoot",
        workers,
        batches,
        &["create", "enqueue", "start+run"],
        || {
            let mut sum = [Duration::ZERO; 3];
            for _ in 0..SPLIT_TASKS / 1000 {
                let p = pool.run(|| offshoot::probe::spawn_phases(1000));
                sum[0] += p.create;
                sum[1] += p.enqueue;
                sum[2] += p.start;
            }
            sum.to_vec()
        },
    ));
    out.extend(split_results(
        "spawn_batch",
        "per task, 10^6 empty tasks made by one task",
        "offshoot",
        workers,
        batches,
        &["create+enqueue", "start+run"],
        || {
            pool.run(|| {
                let t0 = Instant::now();
                let mut t1 = t0;
                offshoot::scope(|s| {
                    s.spawn_batch(SPLIT_TASKS, |i| {
                        black_box(i);
                    });
                    t1 = Instant::now();
                });
                vec![t1 - t0, t1.elapsed()]
            })
        },
    ));
    let pool = rayon_pool(workers)?;
    out.extend(split_results(
        "scope.spawn",
        "per task, 10^6 empty tasks made by one task",
        "rayon",
        workers,
        batches,
        &["create+enqueue", "start+run"],
        || {
            pool.install(|| {
                let t0 = Instant::now();
                let mut t1 = t0;
                rayon::scope(|s| {
                    for _ in 0..SPLIT_TASKS {
                        s.spawn(|_| {});
                    }
                    t1 = Instant::now();
                });
                vec![t1 - t0, t1.elapsed()]
            })
        },
    ));
    Ok(out)
}

/// One line of the terminal table.
pub fn line(m: &Micro) -> String {
    format!(
        "  {:<38} {:<9} {:>7} {:>12.1} {:>22}  {}",
        m.primitive,
        m.runtime,
        m.workers,
        m.median_ns,
        format!("{:.1}–{:.1}", m.min_ns, m.max_ns),
        m.note
    )
}

/// The header of the terminal table.
pub fn header() -> String {
    format!(
        "  {:<38} {:<9} {:>7} {:>12} {:>22}  {}",
        "primitive", "runtime", "workers", "ns (median)", "ns (min–max)", "note"
    )
}
