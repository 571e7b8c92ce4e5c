//! Values of recursive parallel computations equal those of their serial versions: fib,
//! n-queens, parallel sums and sorts written with `join`, `scope` (tasks that borrow from
//! the stack, spawned from the body and from tasks) and `finish` + `spawn`, on pools of 1,
//! 2, 3 and 4 workers (the last two oversubscribe the 2-core machine, which gives more
//! interleavings), and through the global pool when called outside every pool.

mod common;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use common::{bounded, pool, Rng, POOL_SIZES};
use offshoot::ThreadPool;

fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_serial(n - 1) + fib_serial(n - 2)
    }
}

fn fib_join(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib_join(n - 1), || fib_join(n - 2));
    a + b
}

fn fib_scope(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (mut a, mut b) = (0, 0);
    offshoot::scope(|s| {
        s.spawn(|_| a = fib_scope(n - 1));
        s.spawn(|_| b = fib_scope(n - 2));
    });
    a + b
}

/// Adds fib(n) to `acc` with one `spawn` per call; joined by the caller's `finish`.
fn fib_spawn(n: u64, acc: Arc<AtomicU64>) {
    if n < 2 {
        acc.fetch_add(n, Ordering::Relaxed);
        return;
    }
    let acc2 = acc.clone();
    offshoot::finish::spawn(move || fib_spawn(n - 1, acc2));
    fib_spawn(n - 2, acc);
}

fn fib_try(n: u64) -> Result<u64, String> {
    if n < 2 {
        return Ok(n);
    }
    let (a, b) = offshoot::try_join(|| fib_try(n - 1), || fib_try(n - 2))?;
    Ok(a + b)
}

/// Counts the n-queens solutions below a board with `cols`/`d1`/`d2` taken, splitting the
/// candidate columns of every row with `join`.
fn queens_join(n: u32, row: u32, cols: u32, d1: u32, d2: u32) -> u64 {
    if row == n {
        return 1;
    }
    let free: Vec<u32> = (0..n)
        .filter(|&c| {
            cols & (1 << c) == 0 && d1 & (1 << (row + c)) == 0 && d2 & (1 << (row + n - c)) == 0
        })
        .collect();
    fn split(n: u32, row: u32, cols: u32, d1: u32, d2: u32, cs: &[u32]) -> u64 {
        match cs {
            [] => 0,
            [c] => queens_join(
                n,
                row + 1,
                cols | 1 << c,
                d1 | 1 << (row + c),
                d2 | 1 << (row + n - c),
            ),
            _ => {
                let (l, r) = cs.split_at(cs.len() / 2);
                let (a, b) = offshoot::join(
                    || split(n, row, cols, d1, d2, l),
                    || split(n, row, cols, d1, d2, r),
                );
                a + b
            }
        }
    }
    split(n, row, cols, d1, d2, &free)
}

/// The same count with one scope task per candidate column.
fn queens_scope(n: u32, row: u32, cols: u32, d1: u32, d2: u32) -> u64 {
    if row == n {
        return 1;
    }
    let total = AtomicU64::new(0);
    offshoot::scope(|s| {
        for c in 0..n {
            if cols & (1 << c) == 0 && d1 & (1 << (row + c)) == 0 && d2 & (1 << (row + n - c)) == 0
            {
                let total = &total;
                s.spawn(move |_| {
                    let k = queens_scope(
                        n,
                        row + 1,
                        cols | 1 << c,
                        d1 | 1 << (row + c),
                        d2 | 1 << (row + n - c),
                    );
                    total.fetch_add(k, Ordering::Relaxed);
                });
            }
        }
    });
    total.into_inner()
}

fn queens_serial(n: u32, row: u32, cols: u32, d1: u32, d2: u32) -> u64 {
    if row == n {
        return 1;
    }
    (0..n)
        .filter(|&c| {
            cols & (1 << c) == 0 && d1 & (1 << (row + c)) == 0 && d2 & (1 << (row + n - c)) == 0
        })
        .map(|c| {
            queens_serial(
                n,
                row + 1,
                cols | 1 << c,
                d1 | 1 << (row + c),
                d2 | 1 << (row + n - c),
            )
        })
        .sum()
}

fn sum_join(v: &[u64]) -> u64 {
    if v.len() <= 8 {
        return v.iter().fold(0u64, |a, &x| a.wrapping_add(x));
    }
    let (l, r) = v.split_at(v.len() / 2);
    let (a, b) = offshoot::join(|| sum_join(l), || sum_join(r));
    a.wrapping_add(b)
}

fn merge(a: &[u64], b: &[u64], out: &mut [u64]) {
    let (mut i, mut j) = (0, 0);
    for o in out.iter_mut() {
        if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            *o = a[i];
            i += 1;
        } else {
            *o = b[j];
            j += 1;
        }
    }
}

/// Sorts `v` using `buf` (same length) as scratch space, splitting with `join`.
fn mergesort_join(v: &mut [u64], buf: &mut [u64]) {
    if v.len() <= 16 {
        v.sort_unstable();
        return;
    }
    let mid = v.len() / 2;
    {
        let (vl, vr) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        offshoot::join(|| mergesort_join(vl, bl), || mergesort_join(vr, br));
    }
    merge(&v[..mid], &v[mid..], buf);
    v.copy_from_slice(buf);
}

/// The same sort with the two halves as scope tasks that borrow disjoint slices.
fn mergesort_scope(v: &mut [u64], buf: &mut [u64]) {
    if v.len() <= 16 {
        v.sort_unstable();
        return;
    }
    let mid = v.len() / 2;
    {
        let (vl, vr) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        offshoot::scope(|s| {
            s.spawn(|_| mergesort_scope(vl, bl));
            s.spawn(|_| mergesort_scope(vr, br));
        });
    }
    merge(&v[..mid], &v[mid..], buf);
    v.copy_from_slice(buf);
}

/// Quicksort where each partition spawns its halves on the *same* scope from inside a
/// task (nested `Scope::spawn` through the handle the task receives).
fn quicksort_in<'s>(s: &offshoot::Scope<'s>, v: &'s mut [u64]) {
    if v.len() <= 16 {
        v.sort_unstable();
        return;
    }
    let pivot = v[v.len() / 2];
    let mut lt = 0;
    for i in 0..v.len() {
        if v[i] < pivot {
            v.swap(i, lt);
            lt += 1;
        }
    }
    let (lo, rest) = v.split_at_mut(lt);
    let mut eq = 0;
    for i in 0..rest.len() {
        if rest[i] == pivot {
            rest.swap(i, eq);
            eq += 1;
        }
    }
    let hi = &mut rest[eq..];
    s.spawn(move |s| quicksort_in(s, lo));
    s.spawn(move |s| quicksort_in(s, hi));
}

fn random_vec(seed: u64, len: usize) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_u64() % 1000).collect()
}

fn on_each_pool(f: impl Fn(&ThreadPool)) {
    for n in POOL_SIZES {
        let p = pool(n);
        f(&p);
    }
}

#[test]
fn fib_with_join_matches_serial() {
    bounded(|| {
        on_each_pool(|p| {
            for n in [0, 1, 2, 10, 18] {
                assert_eq!(
                    p.run(|| fib_join(n)),
                    fib_serial(n),
                    "fib({n}) on {} workers",
                    p.workers()
                );
            }
        })
    })
}

#[test]
fn fib_with_scope_matches_serial() {
    bounded(|| {
        on_each_pool(|p| {
            for n in [1, 5, 14] {
                assert_eq!(
                    p.run(|| fib_scope(n)),
                    fib_serial(n),
                    "fib({n}) on {} workers",
                    p.workers()
                );
            }
        })
    })
}

#[test]
fn fib_with_finish_and_spawn_matches_serial() {
    bounded(|| {
        on_each_pool(|p| {
            for n in [1, 6, 15] {
                let acc = Arc::new(AtomicU64::new(0));
                let a = acc.clone();
                p.run(|| offshoot::finish(move || fib_spawn(n, a)));
                // `finish` has joined every spawn, on any worker, before returning.
                assert_eq!(
                    acc.load(Ordering::SeqCst),
                    fib_serial(n),
                    "fib({n}) on {} workers",
                    p.workers()
                );
            }
        })
    })
}

#[test]
fn fib_with_try_join_matches_serial() {
    bounded(|| {
        on_each_pool(|p| {
            assert_eq!(
                p.run(|| fib_try(16)),
                Ok(fib_serial(16)),
                "on {} workers",
                p.workers()
            );
        })
    })
}

#[test]
fn nqueens_with_join_matches_serial() {
    bounded(|| {
        on_each_pool(|p| {
            for n in [1, 4, 6, 8] {
                let want = queens_serial(n, 0, 0, 0, 0);
                assert_eq!(
                    p.run(|| queens_join(n, 0, 0, 0, 0)),
                    want,
                    "{n}-queens on {} workers",
                    p.workers()
                );
            }
        });
        assert_eq!(queens_serial(8, 0, 0, 0, 0), 92);
    })
}

#[test]
fn nqueens_with_scope_matches_serial() {
    bounded(|| {
        on_each_pool(|p| {
            for n in [5, 7] {
                let want = queens_serial(n, 0, 0, 0, 0);
                assert_eq!(
                    p.run(|| queens_scope(n, 0, 0, 0, 0)),
                    want,
                    "{n}-queens on {} workers",
                    p.workers()
                );
            }
        })
    })
}

#[test]
fn parallel_sum_matches_serial() {
    bounded(|| {
        on_each_pool(|p| {
            for (seed, len) in [(1, 0), (2, 1), (3, 1000), (4, 20_000)] {
                let v: Vec<u64> = {
                    let mut rng = Rng::new(seed);
                    (0..len).map(|_| rng.next_u64()).collect()
                };
                let want = v.iter().fold(0u64, |a, &x| a.wrapping_add(x));
                assert_eq!(
                    p.run(|| sum_join(&v)),
                    want,
                    "len {len} on {} workers",
                    p.workers()
                );
            }
        })
    })
}

#[test]
fn mergesort_with_join_sorts() {
    bounded(|| {
        on_each_pool(|p| {
            for (seed, len) in [(5, 0), (6, 17), (7, 5000)] {
                let mut v = random_vec(seed, len);
                let mut want = v.clone();
                want.sort_unstable();
                let mut buf = vec![0; len];
                p.run(|| mergesort_join(&mut v, &mut buf));
                assert_eq!(v, want, "len {len} on {} workers", p.workers());
            }
        })
    })
}

#[test]
fn mergesort_with_scope_sorts() {
    bounded(|| {
        on_each_pool(|p| {
            let mut v = random_vec(8, 3000);
            let mut want = v.clone();
            want.sort_unstable();
            let mut buf = vec![0; v.len()];
            p.run(|| mergesort_scope(&mut v, &mut buf));
            assert_eq!(v, want, "on {} workers", p.workers());
        })
    })
}

#[test]
fn quicksort_with_nested_scope_spawns_sorts() {
    bounded(|| {
        on_each_pool(|p| {
            let mut v = random_vec(9, 4000);
            let mut want = v.clone();
            want.sort_unstable();
            p.run(|| offshoot::scope(|s| quicksort_in(s, &mut v)));
            assert_eq!(v, want, "on {} workers", p.workers());
        })
    })
}

#[test]
fn scope_tasks_borrow_and_mutate_the_callers_stack() {
    bounded(|| {
        on_each_pool(|p| {
            let mut v: Vec<u64> = (0..1000).collect();
            let factor = 3u64; // borrowed by every task
            let visited = AtomicUsize::new(0);
            let r = p.run(|| {
                offshoot::scope(|s| {
                    for chunk in v.chunks_mut(7) {
                        let (factor, visited) = (&factor, &visited);
                        s.spawn(move |_| {
                            for x in chunk.iter_mut() {
                                *x *= *factor;
                            }
                            visited.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                    "scope value"
                })
            });
            assert_eq!(r, "scope value");
            assert_eq!(visited.load(Ordering::Relaxed), 1000usize.div_ceil(7));
            assert!(
                v.iter().enumerate().all(|(i, &x)| x == 3 * i as u64),
                "on {} workers",
                p.workers()
            );
        })
    })
}

#[test]
fn nested_scopes_borrow_from_every_level() {
    bounded(|| {
        on_each_pool(|p| {
            let outer = AtomicU64::new(0);
            p.run(|| {
                offshoot::scope(|s| {
                    for i in 0..8u64 {
                        let outer = &outer;
                        s.spawn(move |_| {
                            let inner = AtomicU64::new(0);
                            offshoot::scope(|s2| {
                                for j in 0..8u64 {
                                    let inner = &inner;
                                    s2.spawn(move |_| {
                                        inner.fetch_add(i * 8 + j, Ordering::Relaxed);
                                    });
                                }
                            });
                            // The inner scope joined its tasks: its total is complete here.
                            let want: u64 = (0..8).map(|j| i * 8 + j).sum();
                            assert_eq!(inner.load(Ordering::Relaxed), want);
                            outer.fetch_add(inner.into_inner(), Ordering::Relaxed);
                        });
                    }
                })
            });
            assert_eq!(
                outer.into_inner(),
                (0..64).sum::<u64>(),
                "on {} workers",
                p.workers()
            );
        })
    })
}

#[test]
fn join_returns_both_values_in_order_and_runs_each_closure_once() {
    bounded(|| {
        on_each_pool(|p| {
            let runs = AtomicUsize::new(0);
            for i in 0..200u64 {
                let (a, b) = p.run(|| {
                    offshoot::join(
                        || {
                            runs.fetch_add(1, Ordering::Relaxed);
                            (i, "a")
                        },
                        || {
                            runs.fetch_add(1, Ordering::Relaxed);
                            vec![i; 3]
                        },
                    )
                });
                assert_eq!(a, (i, "a"));
                assert_eq!(b, vec![i; 3]);
            }
            assert_eq!(runs.into_inner(), 400);
        })
    })
}

#[test]
fn join_scope_finish_outside_every_pool_use_the_global_pool() {
    bounded(|| {
        assert_eq!(ThreadPool::global().current_worker_index(), None);
        assert!(ThreadPool::global().workers() >= 1);
        let (a, b) = offshoot::join(
            || ThreadPool::global().current_worker_index(),
            || ThreadPool::global().current_worker_index(),
        );
        let n = ThreadPool::global().workers();
        assert!(
            matches!(a, Some(i) if i < n),
            "join's a ran outside the global pool: {a:?}"
        );
        assert!(
            matches!(b, Some(i) if i < n),
            "join's b ran outside the global pool: {b:?}"
        );

        let mut in_global = None;
        offshoot::scope(|s| s.spawn(|_| in_global = ThreadPool::global().current_worker_index()));
        assert!(
            in_global.is_some(),
            "a scope task ran outside the global pool"
        );

        let hits = Arc::new(AtomicUsize::new(0));
        let h = hits.clone();
        let idx = offshoot::finish(move || {
            for _ in 0..10 {
                let h = h.clone();
                offshoot::finish::spawn(move || {
                    assert!(ThreadPool::global().current_worker_index().is_some());
                    h.fetch_add(1, Ordering::SeqCst);
                });
            }
            ThreadPool::global().current_worker_index()
        });
        assert!(idx.is_some(), "finish's body ran outside the global pool");
        assert_eq!(hits.load(Ordering::SeqCst), 10);

        // Values through the global pool, too.
        assert_eq!(fib_join(15), fib_serial(15));
        assert_eq!(offshoot::try_join(|| Ok::<_, ()>(1), || Ok(2)), Ok((1, 2)));
    })
}

#[test]
fn poll_outside_every_pool_does_nothing() {
    bounded(|| {
        for _ in 0..1000 {
            offshoot::poll();
        }
    })
}
