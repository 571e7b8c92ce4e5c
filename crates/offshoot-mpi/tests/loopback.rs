//! The distributed protocol over the loopback transport (ranks as threads): answers checked
//! against serial ones, work that travels, lost thieves, remote failures, the distributed
//! eureka and bound. Every wait is bounded.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use offshoot::search::State;
use offshoot::ThreadPool;
use offshoot_mpi::{loopback, Bound, Config, Finished, Session, Task, Tasks};
use serde::{Deserialize, Serialize};

const LONG: Duration = Duration::from_secs(120);

// ----- kernels ------------------------------------------------------------------------

/// N-Queens: the children of a node split in halves, each half a task that may travel.
#[derive(Serialize, Deserialize)]
struct Split {
    n: usize,
    kids: Vec<Vec<usize>>,
}

impl Task for Split {
    const NAME: &'static str = "split";
    type Output = u64;
    fn run(self) -> u64 {
        split(self.n, self.kids)
    }
}

fn children(n: usize, cols: &[usize]) -> Vec<Vec<usize>> {
    (0..n)
        .filter(|&c| {
            cols.iter()
                .enumerate()
                .all(|(r, &q)| q != c && cols.len() - r != q.abs_diff(c))
        })
        .map(|c| {
            let mut v = cols.to_vec();
            v.push(c);
            v
        })
        .collect()
}

fn queens(n: usize, cols: Vec<usize>) -> u64 {
    if cols.len() == n {
        return 1;
    }
    split(n, children(n, &cols))
}

fn split(n: usize, mut kids: Vec<Vec<usize>>) -> u64 {
    match kids.len() {
        0 => 0,
        1 => queens(n, kids.pop().unwrap()),
        k => {
            let rest = kids.split_off(k / 2);
            if kids[0].len() >= 4 {
                // Deep down: plain local forks.
                let (a, b) = offshoot::join(|| split(n, kids), || split(n, rest));
                return a + b;
            }
            let (a, b) = offshoot_mpi::join(|| split(n, kids), Split { n, kids: rest });
            a + b
        }
    }
}

fn queens_serial(n: usize, cols: &mut Vec<usize>) -> u64 {
    if cols.len() == n {
        return 1;
    }
    let mut s = 0;
    for k in children(n, cols) {
        cols.push(*k.last().unwrap());
        s += queens_serial(n, cols);
        cols.pop();
    }
    s
}

/// A block that waits, polling, until another rank took a package from it: the package is
/// `Hold(x)`, which computes `x * 2` (or panics, or reports a solution).
#[derive(Serialize, Deserialize)]
struct Hold(u64);

impl Task for Hold {
    const NAME: &'static str = "hold";
    type Output = u64;
    fn run(self) -> u64 {
        match self.0 {
            13 => panic!("boom on purpose"),
            77 => {
                offshoot_mpi::found(&7u32);
                unreachable!("found() stops its caller")
            }
            x => x * 2,
        }
    }
}

/// The root of the sequenced tests: offers `Hold(x)` to other ranks and polls until it was
/// taken (sets `ready` once its block is on the chain), then returns what it got back.
fn hold_root(x: u64, ready: &AtomicBool) -> u64 {
    let st = State::new(());
    let given = Cell::new(false);
    let ((), _local, remote): ((), Vec<()>, Vec<u64>) = offshoot_mpi::handle(
        &st,
        || {
            ready.store(true, Ordering::Release);
            let end = Instant::now() + LONG;
            while !given.get() {
                offshoot::poll();
                assert!(Instant::now() < end, "no rank ever took the package");
                std::thread::yield_now();
            }
        },
        |_, r| r.decline(),
        |_| {
            if given.replace(true) {
                None
            } else {
                Some(Hold(x))
            }
        },
    );
    remote.into_iter().sum()
}

// ----- harness ------------------------------------------------------------------------

/// Runs `ranks` ranks as threads, each with a pool of `workers`; rank 0 runs `root`. Rank
/// `r > 0` starts only once `start(r)` holds, and gets `transport(r, t)` as its transport.
fn cluster<R: Send>(
    ranks: usize,
    workers: usize,
    tasks: impl Fn(usize) -> Tasks + Sync,
    cfg: &Config,
    start: impl Fn(usize) -> bool + Sync,
    transport: impl Fn(usize, loopback::Loopback) -> loopback::Loopback + Sync,
    root: impl FnOnce() -> R + Send,
) -> Vec<std::thread::Result<Finished<R>>> {
    let mut root = Some(root);
    std::thread::scope(|s| {
        let hs: Vec<_> = loopback::cluster(ranks)
            .into_iter()
            .enumerate()
            .map(|(r, t)| {
                let t = transport(r, t);
                let tasks = tasks(r);
                let root = if r == 0 { root.take() } else { None };
                let start = &start;
                s.spawn(move || {
                    let end = Instant::now() + LONG;
                    while !start(r) {
                        assert!(Instant::now() < end, "rank {r} never started");
                        std::thread::yield_now();
                    }
                    let pool = ThreadPool::builder().workers(workers).build().unwrap();
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let root = root;
                        Session::new(t)
                            .run(&pool, &tasks, cfg, move || match root {
                                Some(f) => f(),
                                None => unreachable!("only rank 0 runs the root"),
                            })
                            .unwrap()
                    }))
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// `cluster` for the tests around [`hold_root`]: ranks of one worker; rank `r > 0` starts
/// only once rank 0's block offering `Hold(x)` is on its chain, so its first steal finds it.
fn held(
    ranks: usize,
    x: u64,
    tasks: impl Fn(usize) -> Tasks + Sync,
    cfg: &Config,
    transport: impl Fn(usize, loopback::Loopback) -> loopback::Loopback + Sync,
) -> Vec<std::thread::Result<Finished<u64>>> {
    let ready = AtomicBool::new(false);
    cluster(
        ranks,
        1,
        tasks,
        cfg,
        |r| r == 0 || ready.load(Ordering::Acquire),
        transport,
        || hold_root(x, &ready),
    )
}

fn all_tasks(_: usize) -> Tasks {
    Tasks::new().with::<Split>().with::<Hold>().with::<Knap>()
}

fn go(_: usize) -> bool {
    true
}

fn same(_: usize, t: loopback::Loopback) -> loopback::Loopback {
    t
}

fn message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

// ----- tests --------------------------------------------------------------------------

#[test]
fn queens_on_1_to_4_ranks_matches_the_serial_count() {
    for n in [6, 8] {
        let want = queens_serial(n, &mut Vec::new());
        for ranks in 1..=4 {
            for workers in 1..=2 {
                let out = cluster(
                    ranks,
                    workers,
                    all_tasks,
                    &Config::default(),
                    go,
                    same,
                    || queens(n, Vec::new()),
                );
                let out: Vec<_> = out.into_iter().map(|r| r.unwrap()).collect();
                assert_eq!(out[0].value, Some(want), "n {n}, {ranks} ranks × {workers}");
                assert!(out[1..].iter().all(|f| f.value.is_none()));
                assert_eq!(out[0].stats.len(), ranks, "every rank said goodbye");
            }
        }
    }
}

#[test]
fn a_package_travels_and_its_result_comes_back() {
    let out = held(2, 21, all_tasks, &Config::default(), same);
    let out: Vec<_> = out.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(out[0].value, Some(42));
    let s = &out[0].stats;
    assert_eq!(s[0].packages_sent, 1);
    assert_eq!(s[1].packages_run, 1);
    assert!(s[1].steals_won >= 1);
}

#[test]
fn a_lost_thief_s_package_is_run_again_by_its_victim() {
    let cfg = Config {
        fault_timeout: Some(Duration::from_millis(300)),
        ..Config::default()
    };
    // Once rank 1 has the package, nothing it sends arrives.
    let out = held(2, 21, all_tasks, &cfg, |r, t| {
        if r == 1 {
            t.crash_stop_after_packages(1)
        } else {
            t
        }
    });
    let out: Vec<_> = out.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(
        out[0].value,
        Some(42),
        "the result is neither lost nor doubled"
    );
    let s = &out[0].stats;
    assert_eq!(s.len(), 1, "the lost rank said no goodbye");
    assert_eq!(s[0].packages_sent, 1);
    assert_eq!(s[0].packages_recovered, 1);
}

#[test]
fn a_remote_panic_surfaces_at_the_root() {
    let out = held(2, 13, all_tasks, &Config::default(), same);
    let mut out = out.into_iter();
    let root = out.next().unwrap().expect_err("the root should fail");
    let m = message(&*root);
    assert!(m.contains("rank 1") && m.contains("boom on purpose"), "{m}");
    assert!(out.next().unwrap().is_ok(), "the other ranks end cleanly");
}

#[test]
fn a_task_unknown_on_the_thief_is_a_clear_error() {
    let out = held(
        2,
        21,
        |r| {
            if r == 0 {
                all_tasks(0)
            } else {
                Tasks::new().with::<Split>()
            }
        },
        &Config::default(),
        same,
    );
    let root = out
        .into_iter()
        .next()
        .unwrap()
        .expect_err("the root should fail");
    let m = message(&*root);
    assert!(m.contains("\"hold\" is not registered"), "{m}");
}

#[test]
fn found_on_one_rank_stops_every_rank() {
    let out = held(3, 77, all_tasks, &Config::default(), same);
    let out: Vec<_> = out.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(out[0].value, None, "the root was stopped");
    assert_eq!(out[0].found::<u32>(), Some(7));
}

/// 0/1 knapsack by branch and bound with the run's shared bound (maximizing: negated).
#[derive(Serialize, Deserialize, Clone)]
struct Knap {
    items: Vec<(u32, u32)>, // (weight, value), by value density
    i: usize,
    room: u32,
    value: u32,
}

impl Task for Knap {
    const NAME: &'static str = "knap";
    type Output = u32;
    fn run(self) -> u32 {
        knap(self)
    }
}

fn upper(k: &Knap) -> u32 {
    // Fractional relaxation.
    let (mut room, mut v) = (k.room as f64, k.value as f64);
    for &(w, val) in &k.items[k.i..] {
        if (w as f64) <= room {
            room -= w as f64;
            v += val as f64;
        } else {
            v += val as f64 * room / w as f64;
            break;
        }
    }
    v as u32
}

fn knap(k: Knap) -> u32 {
    if -(upper(&k) as i64) > Bound::get() {
        return 0; // cannot beat the best known
    }
    if k.i == k.items.len() {
        Bound::lower(-(k.value as i64));
        return k.value;
    }
    let (w, v) = k.items[k.i];
    let skip = Knap {
        i: k.i + 1,
        ..k.clone()
    };
    if w > k.room {
        return knap(skip);
    }
    let take = Knap {
        i: k.i + 1,
        room: k.room - w,
        value: k.value + v,
        ..k
    };
    let (a, b) = if take.i < 8 {
        offshoot_mpi::join(|| knap(take), skip)
    } else {
        offshoot::join(|| knap(take), || knap(skip))
    };
    a.max(b)
}

fn knap_dp(items: &[(u32, u32)], cap: u32) -> u32 {
    let mut best = vec![0u32; cap as usize + 1];
    for &(w, v) in items {
        for c in (w as usize..=cap as usize).rev() {
            best[c] = best[c].max(best[c - w as usize] + v);
        }
    }
    best[cap as usize]
}

/// `n` random items (weight, value), best value per weight first.
fn knap_items(mut seed: u64, n: usize) -> Vec<(u32, u32)> {
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 90 + 10) as u32
    };
    let mut items: Vec<(u32, u32)> = (0..n).map(|_| (rnd(), rnd())).collect();
    items.sort_by(|a, b| (b.1 * a.0).cmp(&(a.1 * b.0)));
    items
}

#[test]
fn branch_and_bound_with_a_shared_bound_matches_the_serial_optimum() {
    let items = knap_items(12345, 26);
    let cap = items.iter().map(|i| i.0).sum::<u32>() / 2;
    let want = knap_dp(&items, cap);
    for ranks in [1, 2, 3] {
        let k = Knap {
            items: items.clone(),
            i: 0,
            room: cap,
            value: 0,
        };
        let out = cluster(ranks, 1, all_tasks, &Config::default(), go, same, || {
            knap(k)
        });
        let out: Vec<_> = out.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(out[0].value, Some(want), "{ranks} ranks");
    }
}

#[test]
fn a_pool_serves_one_run_at_a_time() {
    let pool = ThreadPool::builder().workers(1).build().unwrap();
    let mut ranks = loopback::cluster(2);
    let t1 = ranks.pop().unwrap();
    let t0 = ranks.pop().unwrap();
    let tasks = Tasks::new();
    let entered = AtomicBool::new(false);
    std::thread::scope(|s| {
        let pool = &pool;
        let tasks = &tasks;
        let entered = &entered;
        let h = s.spawn(move || {
            Session::new(t0)
                .run(pool, tasks, &Config::default(), || {
                    entered.store(true, Ordering::Release);
                    // A second run on the same pool, from inside the first.
                    let again = Session::new(loopback::cluster(1).pop().unwrap()).run(
                        pool,
                        tasks,
                        &Config::default(),
                        || 0,
                    );
                    again.err()
                })
                .unwrap()
        });
        let other = ThreadPool::builder().workers(1).build().unwrap();
        let r1 = Session::new(t1)
            .run(&other, tasks, &Config::default(), || {
                None::<offshoot_mpi::Error>
            })
            .unwrap();
        assert!(r1.value.is_none());
        let r0 = h.join().unwrap();
        assert_eq!(r0.value, Some(Some(offshoot_mpi::Error::RunInProgress)));
    });
}

#[test]
fn a_session_runs_one_run_after_another_and_nothing_leaks_between_them() {
    // Ranks leave a run at different times (rank 0 last), so the next run's steals reach
    // rank 0 early, and a run's late messages reach the next one: each must land in its
    // own run. A bound must not leak either: the large-capacity optimum, carried into the
    // small-capacity run, would prune its optimum away.
    let items = knap_items(777, 22);
    let total = items.iter().map(|i| i.0).sum::<u32>();
    let caps = [total / 2, total / 5];
    let want_knap: Vec<u32> = caps.iter().map(|&c| knap_dp(&items, c)).collect();
    let want_queens: Vec<u64> = [6, 7]
        .iter()
        .map(|&n| queens_serial(n, &mut Vec::new()))
        .collect();
    const ROUNDS: usize = 4;
    let tasks = all_tasks(0);
    let got: Vec<Vec<Option<u64>>> = std::thread::scope(|s| {
        let hs: Vec<_> = loopback::cluster(3)
            .into_iter()
            .map(|t| {
                let (tasks, items) = (&tasks, &items);
                s.spawn(move || {
                    let mut session = Session::new(t);
                    let pool = ThreadPool::builder().workers(1).build().unwrap();
                    let cfg = Config::default();
                    let mut values = Vec::new();
                    for _ in 0..ROUNDS {
                        for n in [6, 7] {
                            let out = session.run(&pool, tasks, &cfg, || queens(n, vec![]));
                            values.push(out.unwrap().value);
                        }
                        for cap in caps {
                            let k = Knap {
                                items: items.clone(),
                                i: 0,
                                room: cap,
                                value: 0,
                            };
                            let out = session.run(&pool, tasks, &cfg, || knap(k) as u64);
                            values.push(out.unwrap().value);
                        }
                    }
                    assert_eq!(session.runs(), 4 * ROUNDS as u64);
                    values
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut want = Vec::new();
    for _ in 0..ROUNDS {
        want.extend(want_queens.iter().map(|&v| Some(v)));
        want.extend(want_knap.iter().map(|&v| Some(v as u64)));
    }
    assert_eq!(got[0], want, "rank 0's values, run by run");
    for (r, v) in got.iter().enumerate().skip(1) {
        assert!(v.iter().all(Option::is_none), "rank {r} has no root value");
    }
}
