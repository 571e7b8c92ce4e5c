//! The parallel sorts of `offshoot::slice` against std's sorts: random inputs (proptest),
//! the shapes that trip sorts up (empty, one element, lengths around the leaf size,
//! many duplicates, sorted, reversed), stability of the stable sorts, and panic safety —
//! a comparator that panics part-way leaves a permutation of the input (drop counting).

mod common;

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::Rng;
use offshoot::slice::ParallelSliceMut;
use proptest::prelude::*;

/// Lengths around the sorts' leaf size (4096) and cut-offs, and odd ones above.
const LENGTHS: [usize; 10] = [0, 1, 2, 17, 4095, 4096, 4097, 8193, 20_011, 65_537];

/// The shapes of input every sort is checked on, of length `n`.
fn shapes(n: usize, seed: u64) -> Vec<(&'static str, Vec<u64>)> {
    let mut r = Rng::new(seed);
    let random: Vec<u64> = (0..n).map(|_| r.next_u64()).collect();
    let few: Vec<u64> = (0..n).map(|_| r.next_u64() % 4).collect();
    let sorted: Vec<u64> = (0..n as u64).collect();
    let reversed: Vec<u64> = (0..n as u64).rev().collect();
    let equal = vec![7u64; n];
    let sawtooth: Vec<u64> = (0..n as u64).map(|i| i % 1000).collect();
    vec![
        ("random", random),
        ("many duplicates", few),
        ("sorted", sorted),
        ("reversed", reversed),
        ("all equal", equal),
        ("sawtooth", sawtooth),
    ]
}

/// Every sort on every shape and length, on pools of 1 to 4 workers, against std.
#[test]
fn every_sort_matches_std_on_every_shape() {
    common::bounded(|| {
        for workers in common::POOL_SIZES {
            let pool = common::pool(workers);
            for n in LENGTHS {
                for (shape, input) in shapes(n, n as u64 * 31 + workers as u64) {
                    let mut want = input.clone();
                    want.sort_unstable();
                    let what = format!("{shape}, n = {n}, {workers} workers");
                    pool.run(|| {
                        let mut v = input.clone();
                        v.par_sort();
                        assert_eq!(v, want, "par_sort: {what}");
                        let mut v = input.clone();
                        v.par_sort_unstable();
                        assert_eq!(v, want, "par_sort_unstable: {what}");
                        let mut v = input.clone();
                        v.par_sort_by(|a, b| b.cmp(a));
                        assert!(v.iter().eq(want.iter().rev()), "par_sort_by: {what}");
                        let mut v = input.clone();
                        v.par_sort_unstable_by(|a, b| b.cmp(a));
                        assert!(
                            v.iter().eq(want.iter().rev()),
                            "par_sort_unstable_by: {what}"
                        );
                    });
                }
            }
        }
    })
}

/// Sorting outside every pool runs in the global pool.
#[test]
fn sorts_outside_a_pool() {
    common::bounded(|| {
        let mut r = Rng::new(5);
        let input: Vec<u32> = (0..30_000).map(|_| r.next_u64() as u32).collect();
        let mut want = input.clone();
        want.sort();
        let mut v = input.clone();
        v.par_sort();
        assert_eq!(v, want);
        let mut v = input;
        v.par_sort_unstable();
        assert_eq!(v, want);
    })
}

/// Pairs (key, original position): sorted by key only, a stable sort keeps the positions
/// of equal keys increasing.
fn keyed(n: usize, keys: u64, seed: u64) -> Vec<(u64, usize)> {
    let mut r = Rng::new(seed);
    (0..n).map(|i| (r.next_u64() % keys, i)).collect()
}

#[test]
fn stable_sorts_keep_equal_elements_in_order() {
    common::bounded(|| {
        let pool = common::pool(2);
        for n in [4097, 20_011, 70_001] {
            for keys in [2, 10, 1000] {
                let input = keyed(n, keys, n as u64 ^ keys);
                let mut want = input.clone();
                want.sort_by_key(|p| p.0); // std's sort is stable
                pool.run(|| {
                    let mut v = input.clone();
                    v.par_sort_by(|a, b| a.0.cmp(&b.0));
                    assert_eq!(v, want, "par_sort_by, n = {n}, {keys} keys");
                    let mut v = input.clone();
                    v.par_sort_by_key(|p| p.0);
                    assert_eq!(v, want, "par_sort_by_key, n = {n}, {keys} keys");
                    let mut v = input.clone();
                    v.par_sort_by_cached_key(|p| format!("{:08}", p.0)); // same order as p.0
                    assert_eq!(v, want, "par_sort_by_cached_key, n = {n}, {keys} keys");
                });
            }
        }
    })
}

#[test]
fn key_sorts_match_std() {
    common::bounded(|| {
        let pool = common::pool(3);
        let mut r = Rng::new(9);
        let input: Vec<i64> = (0..30_001).map(|_| r.next_u64() as i64 % 5000).collect();
        pool.run(|| {
            let mut want = input.clone();
            want.sort_by_key(|x| x.abs());
            let mut v = input.clone();
            v.par_sort_by_key(|x| x.abs());
            assert_eq!(v, want);
            let mut v = input.clone();
            v.par_sort_by_cached_key(|x| x.abs());
            assert_eq!(v, want);
            let mut v = input.clone();
            v.par_sort_unstable_by_key(|x| x.abs());
            assert!(v.windows(2).all(|w| w[0].abs() <= w[1].abs()));
            let (mut a, mut b) = (v, input.clone());
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "par_sort_unstable_by_key lost or invented elements");
        });
    })
}

/// Strings (owned, with destructors) sort like std's.
#[test]
fn strings_sort_like_std() {
    common::bounded(|| {
        let mut r = Rng::new(77);
        let input: Vec<String> = (0..12_000)
            .map(|_| format!("{:x}", r.next_u64() % 100_000))
            .collect();
        let mut want = input.clone();
        want.sort();
        let pool = common::pool(2);
        pool.run(|| {
            let mut v = input.clone();
            v.par_sort();
            assert_eq!(v, want);
            let mut v = input.clone();
            v.par_sort_unstable();
            assert_eq!(v, want);
        });
    })
}

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// An element that counts itself: `LIVE` is the number of `Counted` values alive.
#[derive(Debug)]
struct Counted {
    key: u64,
    id: usize,
}

impl Counted {
    fn new(key: u64, id: usize) -> Counted {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Counted { key, id }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How many comparisons the sort makes of `n` keys from `seed` in `pool` (the leaf size
/// depends on the pool's size; the count does not depend on the schedule).
/// The run's own elements are dropped before it returns.
fn comparisons(pool: &offshoot::ThreadPool, stable: bool, n: usize, seed: u64) -> usize {
    let mut r = Rng::new(seed);
    // The same element type as the panicking run: std's sorts pick their small-sort by
    // type.
    let mut v: Vec<Counted> = (0..n)
        .map(|i| Counted::new(r.next_u64() % 500, i))
        .collect();
    let calls = AtomicUsize::new(0);
    let compare = |a: &Counted, b: &Counted| {
        calls.fetch_add(1, Ordering::Relaxed);
        a.key.cmp(&b.key)
    };
    pool.run(|| {
        if stable {
            v.par_sort_by(compare);
        } else {
            v.par_sort_unstable_by(compare);
        }
    });
    calls.into_inner()
}

/// A comparator that panics at call `part` of `parts` through the comparisons an
/// undisturbed sort makes (counted across workers; at least the first call).
fn sort_that_panics(stable: bool, n: usize, part: usize, parts: usize, workers: usize) {
    let pool = common::pool(workers);
    let seed = (n * 7 + part) as u64;
    let limit = (comparisons(&pool, stable, n, seed) * part / parts).max(1);
    let mut r = Rng::new(seed);
    let mut v: Vec<Counted> = (0..n)
        .map(|i| Counted::new(r.next_u64() % 500, i))
        .collect();
    let calls = AtomicUsize::new(0);
    let compare = |a: &Counted, b: &Counted| {
        if calls.fetch_add(1, Ordering::Relaxed) + 1 == limit {
            common::boom("comparator");
        }
        a.key.cmp(&b.key)
    };
    let r = catch_unwind(AssertUnwindSafe(|| {
        pool.run(|| {
            if stable {
                v.par_sort_by(compare);
            } else {
                v.par_sort_unstable_by(compare);
            }
        })
    }));
    let what = format!("stable = {stable}, n = {n}, panic at call {limit}, {workers} workers");
    let msg = common::payload_str(&*r.expect_err(&what)).map(str::to_string);
    assert_eq!(msg, Some(common::boom_msg("comparator")), "{what}");
    // Every element is still there, once.
    assert_eq!(LIVE.load(Ordering::SeqCst), n, "{what}");
    let mut seen = vec![false; n];
    for c in &v {
        assert!(!seen[c.id], "element {} twice: {what}", c.id);
        seen[c.id] = true;
    }
    assert!(seen.iter().all(|&s| s), "an element is missing: {what}");
    drop(v);
    assert_eq!(LIVE.load(Ordering::SeqCst), 0, "{what}");
}

/// The panic comes at the first comparison, early (leaves, the first partitions), in the
/// middle (merges, binary searches, deeper partitions) and at the very end.
#[test]
fn a_panicking_comparator_leaves_a_permutation() {
    common::bounded(|| {
        let n = 20_011;
        for workers in [1, 2, 3] {
            for part in [0, 1, 5, 30, 60, 90, 99] {
                sort_that_panics(true, n, part, 100, workers);
                sort_that_panics(false, n, part, 100, workers);
            }
        }
    })
}

/// A key function that panics leaves the slice untouched.
#[test]
fn a_panicking_cached_key_leaves_the_slice_as_it_was() {
    common::bounded(|| {
        let input: Vec<u32> = (0..10_000).rev().collect();
        let mut v = input.clone();
        let r = catch_unwind(AssertUnwindSafe(|| {
            v.par_sort_by_cached_key(|&x| {
                if x == 4321 {
                    common::boom("key");
                }
                x
            })
        }));
        assert!(r.is_err());
        assert_eq!(v, input);
    })
}

/// A comparator that is no order at all (random answers) leaves a permutation.
#[test]
fn an_inconsistent_comparator_leaves_a_permutation() {
    common::bounded(|| {
        let pool = common::pool(2);
        let input: Vec<u64> = (0..30_000).collect();
        for stable in [true, false] {
            let mut v = input.clone();
            // std's sorts may panic on such a comparator (they detect some violations);
            // either way the elements must all still be there.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                pool.run(|| {
                    let rng = std::sync::Mutex::new(Rng::new(3));
                    let coin = |_: &u64, _: &u64| match rng.lock().unwrap().next_u64() % 3 {
                        0 => std::cmp::Ordering::Less,
                        1 => std::cmp::Ordering::Equal,
                        _ => std::cmp::Ordering::Greater,
                    };
                    if stable {
                        v.par_sort_by(coin);
                    } else {
                        v.par_sort_unstable_by(coin);
                    }
                })
            }));
            v.sort_unstable();
            assert_eq!(v, input, "stable = {stable}");
        }
    })
}

/// Zero-sized elements and a non-`Sync` element type (`Cell`) sort too.
#[test]
fn zero_sized_and_non_sync_elements() {
    common::bounded(|| {
        let mut units = [(); 10_000];
        units.par_sort();
        units.par_sort_unstable();
        assert_eq!(units.len(), 10_000);
        let input: Vec<Cell<u32>> = (0..9000u32).rev().map(Cell::new).collect();
        let mut v = input;
        v.par_sort_by_key(|c| c.get());
        assert!(v.iter().map(Cell::get).eq(0..9000));
        v.par_sort_unstable_by(|a, b| b.get().cmp(&a.get()));
        assert!(v.iter().map(Cell::get).eq((0..9000).rev()));
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_inputs_sort_like_std(
        v in prop::collection::vec(any::<u16>(), 0..12_000),
        modulus in 1u16..=u16::MAX,
    ) {
        let input: Vec<u16> = v.into_iter().map(|x| x % modulus).collect();
        let mut want = input.clone();
        want.sort();
        let pool = common::pool(2);
        let (a, b) = pool.run(|| {
            let mut a = input.clone();
            a.par_sort();
            let mut b = input.clone();
            b.par_sort_unstable();
            (a, b)
        });
        prop_assert_eq!(&a, &want);
        prop_assert_eq!(&b, &want);
    }
}
