//! `par_bridge` (a sequential iterator as a parallel source) against the sequential
//! equivalent on every pool size: every item processed once, `map` + `sum` / `reduce` /
//! `count` equal, `collect` gathering every item, the adaptors and consumers of
//! `ParallelIterator` (and generic code) on a bridge, empty and one-item iterators,
//! iterators of unknown length, endless ones ended by early exit, a channel fed by a
//! thread; idle workers really pulling on request; a panic (in the body or in the
//! iterator) surfacing once, stopping the others, and every pulled item dropped once.

mod common;

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::{boom, boom_msg, bounded, pool, Rng, Tally, LONG, POOL_SIZES};
use offshoot::prelude::*;

const LENS: [usize; 7] = [0, 1, 2, 3, 7, 1000, 10_007];

fn data(len: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_u64() % 10_000).collect()
}

#[test]
fn for_each_processes_every_item_once() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for len in LENS {
                let hits: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(0)).collect();
                // Owned items (moved into the body) of an iterator of unknown length.
                p.run(|| {
                    (0..len)
                        .map(|i| i.to_string())
                        .filter(|_| true)
                        .par_bridge()
                        .for_each(|s| {
                            hits[s.parse::<usize>().unwrap()].fetch_add(1, Ordering::Relaxed);
                        })
                });
                assert!(
                    hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                    "len {len} on {n} workers"
                );
            }
        }
    })
}

#[test]
fn map_sum_reduce_count_match_sequential() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for (k, len) in LENS.into_iter().enumerate() {
                let v = data(len, k as u64);
                let (sum, mapped, red, cnt, mcnt) = p.run(|| {
                    (
                        v.iter().copied().par_bridge().sum::<u64>(),
                        v.iter().par_bridge().map(|x| x * 3 + 1).sum::<u64>(),
                        v.iter().copied().par_bridge().reduce(|| 0, u64::max),
                        v.iter().filter(|x| *x % 2 == 0).par_bridge().count(),
                        v.iter().par_bridge().map(|x| x + 1).count(),
                    )
                });
                assert_eq!(sum, v.iter().sum::<u64>(), "sum, len {len}, {n} workers");
                assert_eq!(mapped, v.iter().map(|x| x * 3 + 1).sum::<u64>());
                assert_eq!(red, v.iter().copied().max().unwrap_or(0));
                assert_eq!(cnt, v.iter().filter(|x| *x % 2 == 0).count());
                assert_eq!(mcnt, len);
                let mr = p.run(|| {
                    v.iter()
                        .par_bridge()
                        .map(|x| x % 97)
                        .map(|x| x * x)
                        .reduce(|| 0, |a, b| a + b)
                });
                assert_eq!(mr, v.iter().map(|x| (x % 97) * (x % 97)).sum::<u64>());
            }
        }
    })
}

#[test]
fn collect_gathers_every_item_once() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for (k, len) in LENS.into_iter().enumerate() {
                let v = data(len, 100 + k as u64);
                let mut plain: Vec<u64> = p.run(|| v.clone().into_iter().par_bridge().collect());
                let mut want = v.clone();
                plain.sort_unstable();
                want.sort_unstable();
                assert_eq!(plain, want, "len {len} on {n} workers");
                // Numbered items restore the iterator's order (the documented recipe).
                let mut mapped: Vec<(usize, String)> = p.run(|| {
                    v.iter()
                        .enumerate()
                        .par_bridge()
                        .map(|(i, x)| (i, format!("<{x}>")))
                        .collect()
                });
                mapped.sort_unstable_by_key(|&(i, _)| i);
                let got: Vec<String> = mapped.into_iter().map(|(_, s)| s).collect();
                let want: Vec<String> = v.iter().map(|x| format!("<{x}>")).collect();
                assert_eq!(got, want, "len {len} on {n} workers");
            }
        }
    })
}

/// Generic code bounded on `ParallelIterator` accepts a bridge.
fn evens<P: ParallelIterator<Item = u64>>(p: P) -> u64 {
    p.filter(|x| x % 2 == 0).sum()
}

#[test]
fn adaptors_and_consumers_compose_with_a_bridge() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            for (k, len) in LENS.into_iter().enumerate() {
                let v = data(len, 200 + k as u64);
                let src = || v.iter().copied().filter(|_| true);
                p.run(|| {
                    let ctx = format!("len {len} on {n} workers");
                    assert_eq!(evens(src().par_bridge()), evens_seq(&v), "{ctx}");
                    let fm: u64 = src()
                        .par_bridge()
                        .filter_map(|x| (x % 3 == 0).then_some(x / 3))
                        .sum();
                    assert_eq!(
                        fm,
                        v.iter().filter(|x| *x % 3 == 0).map(|x| x / 3).sum(),
                        "{ctx}"
                    );
                    let folded: u64 = src()
                        .par_bridge()
                        .fold(|| 0u64, |a, x| a + x)
                        .reduce(|| 0, |a, b| a + b);
                    assert_eq!(folded, v.iter().sum::<u64>(), "{ctx}");
                    let flat: usize = src().par_bridge().flat_map_iter(|x| 0..(x % 5)).count();
                    assert_eq!(flat as u64, v.iter().map(|x| x % 5).sum::<u64>(), "{ctx}");
                    assert_eq!(src().par_bridge().max(), v.iter().copied().max(), "{ctx}");
                    assert_eq!(src().par_bridge().min(), v.iter().copied().min(), "{ctx}");
                    let big = v.iter().copied().find(|x| *x > 9_990);
                    let found = src().par_bridge().find_any(|x| *x > 9_990);
                    assert_eq!(found.is_some(), big.is_some(), "{ctx}");
                    assert!(found.is_none_or(|x| x > 9_990), "{ctx}");
                    let r: Result<(), u64> =
                        src()
                            .par_bridge()
                            .try_for_each(|x| if x == 10_000 { Err(x) } else { Ok(()) });
                    assert_eq!(r, Ok(()), "{ctx}");
                    let chained: u64 = src()
                        .par_bridge()
                        .chain((0..100u64).into_par_iter())
                        .chain(src().par_bridge())
                        .sum();
                    assert_eq!(chained, 2 * v.iter().sum::<u64>() + 4950, "{ctx}");
                    let nested: u64 = (0..4u64)
                        .into_par_iter()
                        .flat_map(|k| src().map(move |x| x + k).par_bridge())
                        .sum();
                    assert_eq!(nested, 4 * v.iter().sum::<u64>() + 6 * len as u64, "{ctx}");
                });
            }
        }
    })
}

fn evens_seq(v: &[u64]) -> u64 {
    v.iter().filter(|x| *x % 2 == 0).sum()
}

/// Early-exit consumers, and adaptors that stop taking, end a bridge over an endless
/// iterator.
#[test]
fn early_exit_ends_an_endless_source() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            p.run(|| {
                let x = (0u64..).par_bridge().find_any(|x| x % 1000 == 999);
                assert_eq!(x.map(|x| x % 1000), Some(999), "{n} workers");
                assert!(std::iter::repeat(7u8).par_bridge().any(|x| x == 7));
                let r =
                    (0u64..)
                        .par_bridge()
                        .try_for_each(|x| if x >= 5000 { Err(()) } else { Ok(()) });
                assert!(r.is_err());
                // Adaptors that stop taking end the loop too.
                assert_eq!((0u64..).par_bridge().take_any(100).count(), 100);
                let w = (0u64..)
                    .par_bridge()
                    .map(|x| (x < 1000).then_some(x))
                    .while_some()
                    .count();
                assert!(w <= 1000, "{n} workers: {w}");
                let t = (0u64..).par_bridge().take_any_while(|x| *x < 500).count();
                assert!(t <= 500, "{n} workers: {t}");
                // Not only bridges: a range too long to walk.
                let big = (0..usize::MAX).into_par_iter().take_any(10).count();
                assert_eq!(big, 10);
            });
        }
    })
}

/// The usual source of a bridge: a channel fed by another thread.
#[test]
fn a_channel_fed_by_a_thread_is_drained() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let (tx, rx) = std::sync::mpsc::channel::<u64>();
            let feeder = std::thread::spawn(move || {
                for i in 0..5000u64 {
                    tx.send(i).unwrap();
                }
            });
            let s: u64 = p.run(|| rx.into_iter().par_bridge().map(|x| x * 2).sum());
            feeder.join().unwrap();
            assert_eq!(s, 2 * (0..5000u64).sum::<u64>(), "{n} workers");
        }
    })
}

/// The iterator's own `next` panics: the panic surfaces once, nothing hangs, nothing leaks.
#[test]
fn a_panicking_source_surfaces_once() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let tally = Tally::new();
            let msg = format!("source failed on {n}");
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    (0..100_000usize)
                        .map(|i| {
                            if i == 777 {
                                boom(&format!("source failed on {n}"));
                            }
                            (i, tally.guard())
                        })
                        .par_bridge()
                        .for_each(|(_, _g)| offshoot::poll())
                })
            }));
            let payload = r.expect_err("the bridge must fail");
            assert_eq!(common::payload_str(&*payload), Some(&*boom_msg(&msg)));
            assert_eq!(common::times_raised(&boom_msg(&msg)), 1);
            assert_eq!(tally.made(), tally.dropped(), "items leaked on {n} workers");
            assert_eq!(p.run(|| (1..=10u32).par_bridge().sum::<u32>()), 55);
        }
    })
}

/// Items that each wait until a second worker has processed one: possible only if a
/// worker that asked took part of the loop and pulled items itself.
#[test]
fn idle_workers_pull_items_on_request() {
    bounded(|| {
        let p = pool(2);
        let before = p.stats();
        let threads = Mutex::new(HashSet::new());
        p.run(|| {
            (0..64u32).par_bridge().for_each(|_| {
                threads.lock().unwrap().insert(std::thread::current().id());
                assert!(
                    common::poll_until(|| threads.lock().unwrap().len() >= 2),
                    "no second worker pulled an item"
                );
            })
        });
        assert!(p.stats().requests_answered_work > before.requests_answered_work);
    })
}

#[test]
fn a_panicking_item_surfaces_once_and_stops_the_rest() {
    bounded(|| {
        for n in POOL_SIZES {
            let p = pool(n);
            let tally = Tally::new();
            let ran = AtomicUsize::new(0);
            let msg = format!("item 10 failed on {n}");
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    (0..1_000_000usize)
                        .map(|i| (i, tally.guard()))
                        .par_bridge()
                        .for_each(|(i, _g)| {
                            if i == 10 {
                                boom(&format!("item 10 failed on {n}"));
                            }
                            ran.fetch_add(1, Ordering::Relaxed);
                            offshoot::poll();
                        })
                })
            }));
            let payload = r.expect_err("the bridge must fail");
            assert_eq!(common::payload_str(&*payload), Some(&*boom_msg(&msg)));
            assert_eq!(common::times_raised(&boom_msg(&msg)), 1);
            assert!(
                ran.load(Ordering::Relaxed) < 1_000_000,
                "not stopped on {n}"
            );
            assert_eq!(tally.made(), tally.dropped(), "items leaked on {n} workers");
            // The pool is still usable.
            assert_eq!(p.run(|| (1..=10u32).par_bridge().sum::<u32>()), 55);
        }
    })
}

/// A thief's piece fails: the owner, busy with its own items, is stopped.
#[test]
fn a_panic_in_a_thiefs_piece_stops_the_owner() {
    bounded(|| {
        let p = pool(2);
        let not_stopped = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            p.run(|| {
                let owner = std::thread::current().id();
                (0..64u32).par_bridge().for_each(|_| {
                    if std::thread::current().id() != owner {
                        boom("a thief's item failed");
                    }
                    if common::poll_until_stopped(LONG) {
                        not_stopped.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
        }));
        let payload = r.expect_err("the bridge must fail");
        assert_eq!(
            common::payload_str(&*payload),
            Some(&*boom_msg("a thief's item failed"))
        );
        assert_eq!(not_stopped.load(Ordering::Relaxed), 0);
    })
}

#[test]
fn bridges_outside_every_pool_use_the_global_pool() {
    let mut v: Vec<u32> = (0..100u32).par_bridge().map(|x| x + 1).collect();
    v.sort_unstable();
    assert_eq!(v, (1..=100).collect::<Vec<_>>());
}
