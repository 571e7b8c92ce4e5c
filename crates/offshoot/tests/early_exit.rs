//! Early-exit consumers stop the others: every consumer that may stop before the end
//! (`any`, `all`, `find_any`, `find_first`, `find_map_any`, `find_map_first`,
//! `position_any`, `position_first`, `try_for_each`, `try_reduce`), over a range and over
//! `par_chunks`, visits far fewer items than there are, on pools of 1, 2 and 3 workers.
//!
//! Why the bound holds whatever the scheduling: the items that end the search (`x % 1000
//! == 999`) are dense, so every piece a worker runs meets one within 1000 items and stops
//! itself there, whether or not it has heard of the others' answers yet.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use offshoot::prelude::*;
use offshoot::ThreadPool;

const N: usize = 20_000_000;

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| [1, 2, 3].iter().map(|&n| common::pool(n)).collect())
}

fn ends(x: usize) -> bool {
    x % 1000 == 999
}

/// Runs `consume` on a range of `N` items (counted as visited), checks its answer with
/// `ok`, and that it visited under a tenth of the items.
fn check<R: Send + std::fmt::Debug>(
    what: &str,
    consume: impl Fn(&(dyn Fn(usize) -> usize + Sync)) -> R + Sync,
    ok: impl Fn(&R) -> bool,
) {
    for p in pools() {
        let visited = AtomicUsize::new(0);
        let seen = |x: usize| {
            visited.fetch_add(1, Ordering::Relaxed);
            x
        };
        let r = p.run(|| consume(&seen));
        assert!(
            ok(&r),
            "{what} on {} workers: wrong answer {r:?}",
            p.workers()
        );
        let v = visited.load(Ordering::Relaxed);
        assert!(
            v < N / 10,
            "{what} on {} workers visited {v} of {N}",
            p.workers()
        );
    }
}

fn range(
    seen: &(dyn Fn(usize) -> usize + Sync),
) -> impl IndexedParallelIterator<Item = usize> + '_ {
    (0..N).into_par_iter().map(seen)
}

#[test]
fn consumers_over_a_range_stop_early() {
    check("any", |s| range(s).any(ends), |r| *r);
    check("all", |s| range(s).all(|x| !ends(x)), |r| !*r);
    check(
        "find_any",
        |s| range(s).find_any(|&x| ends(x)),
        |r| r.is_some_and(ends),
    );
    check(
        "find_first",
        |s| range(s).find_first(|&x| ends(x)),
        |r| *r == Some(999),
    );
    check(
        "find_map_any",
        |s| range(s).find_map_any(|x| ends(x).then_some(x * 2)),
        |r| r.is_some_and(|y| ends(y / 2)),
    );
    check(
        "find_map_first",
        |s| range(s).find_map_first(|x| ends(x).then_some(x * 2)),
        |r| *r == Some(1998),
    );
    check(
        "position_any",
        |s| range(s).position_any(ends),
        |r| r.is_some_and(ends),
    );
    check(
        "position_first",
        |s| range(s).position_first(ends),
        |r| *r == Some(999),
    );
    check(
        "try_for_each",
        |s| range(s).try_for_each(|x| if ends(x) { Err(x) } else { Ok(()) }),
        |r| r.is_err_and(ends),
    );
    check(
        "try_reduce",
        |s| {
            range(s)
                .map(|x| if ends(x) { Err(x) } else { Ok(x) })
                .try_reduce(|| 0, |a, b| Ok(a.max(b)))
        },
        |r| r.is_err_and(ends),
    );
}

/// Whether a chunk holds an item that ends the search, counting its items as visited.
fn chunk_ends(seen: &(dyn Fn(usize) -> usize + Sync), c: &[u32]) -> bool {
    // Every item is visited (no short circuit), as a chunk's closure would see them all.
    let mut hit = false;
    for &x in c {
        hit |= ends(seen(x as usize));
    }
    hit
}

#[test]
fn consumers_over_chunks_stop_early() {
    let v: Vec<u32> = (0..N as u32).collect();
    check(
        "par_chunks find_first",
        |s| {
            v.par_chunks(10)
                .find_first(|c| chunk_ends(s, c))
                .map(|c| c[0])
        },
        |r| *r == Some(990),
    );
    check(
        "par_chunks any",
        |s| v.par_chunks(10).any(|c| chunk_ends(s, c)),
        |r| *r,
    );
    check(
        "par_chunks_exact position_any",
        |s| v.par_chunks_exact(10).position_any(|c| chunk_ends(s, c)),
        |r| r.is_some_and(|i| i % 100 == 99),
    );
    check(
        "par_windows find_any",
        |s| {
            v.par_windows(3)
                .find_any(|w| chunk_ends(s, &w[..1]))
                .map(|w| w[0])
        },
        |r| r.is_some_and(|x| ends(x as usize)),
    );
}
