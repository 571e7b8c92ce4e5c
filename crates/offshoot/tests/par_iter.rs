//! Parallel iterators against their sequential `Iterator` equivalents on random inputs
//! (proptest), on pools of 1, 2 and 3 workers: empty and one-element inputs, lengths that
//! are not powers of two, order-preserving `collect`, `min`/`max` tie-breaking as `std`,
//! early-exit `any`/`all`, and owned items moved out exactly once.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use offshoot::prelude::*;
use offshoot::ThreadPool;
use proptest::prelude::*;

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| [1, 2, 3].iter().map(|&n| common::pool(n)).collect())
}

fn on_each_pool(f: impl Fn(&ThreadPool) + Sync) {
    for p in pools() {
        f(p);
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn map_filter_sum_count(v in prop::collection::vec(-1000i64..1000, 0..3000)) {
        on_each_pool(|p| {
            let s: i64 = p.run(|| v.par_iter().map(|x| x * 3).filter(|x| x % 2 == 0).sum());
            assert_eq!(s, v.iter().map(|x| x * 3).filter(|x| x % 2 == 0).sum::<i64>());
            let c = p.run(|| v.par_iter().filter(|x| **x > 0).count());
            assert_eq!(c, v.iter().filter(|x| **x > 0).count());
            let r = p.run(|| v.par_iter().map(|x| *x).reduce(|| 0, |a, b| a.wrapping_add(b)));
            assert_eq!(r, v.iter().fold(0i64, |a, b| a.wrapping_add(*b)));
        });
    }

    #[test]
    fn collect_keeps_order(v in prop::collection::vec(any::<u32>(), 0..3000)) {
        on_each_pool(|p| {
            let got: Vec<(usize, u32)> = p.run(|| v.par_iter().map(|x| x / 3).enumerate().filter(|(_, x)| x % 5 != 0).collect());
            let want: Vec<(usize, u32)> = v.iter().map(|x| x / 3).enumerate().filter(|(_, x)| x % 5 != 0).collect();
            assert_eq!(got, want);
        });
    }

    #[test]
    fn zip_pairs_by_index(a in prop::collection::vec(any::<u16>(), 0..2000), b in prop::collection::vec(any::<u16>(), 0..2000)) {
        on_each_pool(|p| {
            let got: Vec<u32> = p.run(|| a.par_iter().zip(&b).map(|(x, y)| *x as u32 + *y as u32).collect());
            let want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| *x as u32 + *y as u32).collect();
            assert_eq!(got, want);
        });
    }

    #[test]
    fn min_max_break_ties_like_std(v in prop::collection::vec((0u8..8, any::<u32>()), 0..2000)) {
        on_each_pool(|p| {
            assert_eq!(p.run(|| v.par_iter().min()), v.iter().min());
            assert_eq!(p.run(|| v.par_iter().max()), v.iter().max());
            // Keys with many ties: the first minimum and the last maximum, as std.
            assert_eq!(p.run(|| v.par_iter().min_by_key(|x| x.0)), v.iter().min_by_key(|x| x.0));
            assert_eq!(p.run(|| v.par_iter().max_by_key(|x| x.0)), v.iter().max_by_key(|x| x.0));
        });
    }

    #[test]
    fn any_all(v in prop::collection::vec(0u32..1000, 0..3000), t in 0u32..1100) {
        on_each_pool(|p| {
            assert_eq!(p.run(|| v.par_iter().any(|x| *x == t)), v.contains(&t));
            assert_eq!(p.run(|| v.par_iter().all(|x| *x < t)), v.iter().all(|x| *x < t));
        });
    }

    #[test]
    fn ranges(lo in -5000i64..5000, len in 0i64..5000) {
        on_each_pool(|p| {
            let s: i64 = p.run(|| (lo..lo + len).into_par_iter().map(|x| x * 2).sum());
            assert_eq!(s, (lo..lo + len).map(|x| x * 2).sum::<i64>());
            let n = len as u32;
            let v: Vec<u32> = p.run(|| (0..=n).into_par_iter().filter(|x| x % 7 == 1).collect());
            assert_eq!(v, (0..=n).filter(|x| x % 7 == 1).collect::<Vec<_>>());
        });
    }

    #[test]
    fn par_iter_mut_updates_every_element(mut v in prop::collection::vec(any::<i32>(), 0..3000)) {
        let want: Vec<i32> = v.iter().map(|x| x.wrapping_mul(7)).collect();
        pools()[1].run(|| v.par_iter_mut().for_each(|x| *x = x.wrapping_mul(7)));
        assert_eq!(v, want);
    }
}

/// Counts drops of an owned item.
#[derive(Debug)]
struct Tracked(u32, Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.1.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn owned_items_are_moved_or_dropped_exactly_once() {
    on_each_pool(|p| {
        for len in [0usize, 1, 7, 1000, 4099] {
            let drops = Arc::new(AtomicUsize::new(0));
            let make = || {
                (0..len as u32)
                    .map(|i| Tracked(i, drops.clone()))
                    .collect::<Vec<_>>()
            };
            // collect moves every item into the result, in order.
            let got: Vec<Tracked> = p.run(|| make().into_par_iter().collect());
            assert!(got.iter().enumerate().all(|(i, t)| t.0 == i as u32));
            assert_eq!(drops.load(Ordering::SeqCst), 0);
            drop(got);
            assert_eq!(drops.load(Ordering::SeqCst), len);
            // any stops early; the rest is dropped, not leaked.
            drops.store(0, Ordering::SeqCst);
            let found = p.run(|| make().into_par_iter().any(|t| t.0 == 3));
            assert_eq!(found, len > 3);
            assert_eq!(drops.load(Ordering::SeqCst), len, "len {len}");
            // zip with a shorter side drops the longer side's tail; an unused iterator drops all.
            drops.store(0, Ordering::SeqCst);
            let pairs = p.run(|| make().into_par_iter().zip(0..len / 2).count());
            assert_eq!(pairs, len / 2);
            assert_eq!(drops.load(Ordering::SeqCst), len);
            drops.store(0, Ordering::SeqCst);
            drop(make().into_par_iter());
            assert_eq!(drops.load(Ordering::SeqCst), len);
        }
    });
}

/// `any` stops the other workers early: with the match at the start, far fewer than all
/// items are looked at.
#[test]
fn any_stops_the_others_early() {
    on_each_pool(|p| {
        let looked = AtomicUsize::new(0);
        let found = p.run(|| {
            (0..10_000_000usize).into_par_iter().any(|i| {
                looked.fetch_add(1, Ordering::Relaxed);
                i == 5
            })
        });
        assert!(found);
        assert!(looked.load(Ordering::Relaxed) < 10_000_000);
    });
}

#[test]
fn empty_and_single_inputs() {
    on_each_pool(|p| {
        let e: Vec<u8> = Vec::new();
        assert_eq!(p.run(|| e.par_iter().count()), 0);
        assert_eq!(p.run(|| e.par_iter().min()), None);
        assert_eq!(p.run(|| e.par_iter().map(|x| *x as u32).sum::<u32>()), 0);
        assert!(p.run(|| e.par_iter().all(|_| false)));
        let one = vec![9u8];
        assert_eq!(p.run(|| one.par_iter().max()), Some(&9));
    });
}
