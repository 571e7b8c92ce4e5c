//! Work and span (`offshoot::metrics`): HJlib's abstract-metrics oracles from Imam's thesis
//! (Fig. 2.10 futures WORK=6 CPL=5, Fig. 2.11 phasers WORK=18 CPL=13, Fig. 2.12 isolated
//! WORK=14 CPL=10, and 7 without `isolated`), the span of simple shapes in units (a chain, a
//! balanced tree of joins, joins inside a finish, a future chain, a data-driven task, a
//! parallel loop, `measure` calls, calls that wait on OPA's shared objects) on 1 to 4 workers, measured time that is consistent (work ≥ span,
//! burdened ≥ span), the CSV's columns, pools that do not measure, and measuring pools that
//! give a random program's answers and its failures exactly as a plain pool does.
#![cfg(all(feature = "isolated", feature = "phaser", feature = "sync"))]

mod common;

use common::{boom, boom_msg, bounded, panic_message, random_mix, Rng, POOL_SIZES};
use offshoot::metrics::{self, do_work, Mode, Row};
use offshoot::phaser::{Mode as PhMode, Phaser};
use offshoot::sync::opa::{self, Fifo, IStore};
use offshoot::sync::{spawn_future, spawn_when, Promise};
use offshoot::ThreadPool;

/// Fresh pools that measure in `mode`, one per size (fresh: tests run in parallel, and
/// each reads the rows of its own runs).
fn pools(mode: Mode) -> Vec<ThreadPool> {
    POOL_SIZES
        .iter()
        .map(|&n| {
            ThreadPool::builder()
                .workers(n)
                .metrics(mode)
                .build()
                .unwrap()
        })
        .collect()
}

/// Runs `f` on every abstract pool (several times each) and checks that each run's row
/// has `(work, span)` in units.
/// One at a time: `isolated` sections are process-wide, so a run elsewhere could order
/// itself between this one's sections (and so lengthen its span).
fn units(what: &str, want: (u64, u64), f: impl Fn() + Sync) {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    for p in &pools(Mode::Abstract) {
        for _ in 0..5 {
            p.clear_metrics();
            p.run(&f);
            let report = p.metrics().unwrap();
            let run = report
                .rows()
                .iter()
                .find(|r| r.tag.is_empty())
                .expect("a run row");
            assert_eq!(
                (run.work_units, run.span_units),
                want,
                "{what} on {} workers:\n{report}",
                p.workers()
            );
        }
    }
}

#[test]
fn fig_2_10_futures_work_6_cpl_5() {
    bounded(|| {
        units("Fig. 2.10", (6, 5), || {
            offshoot::finish(|| {
                let f1 = spawn_future(|| {
                    do_work(2);
                    10
                });
                offshoot::finish::spawn(move || {
                    do_work(1);
                    assert_eq!(*f1.get(), 10);
                    do_work(3);
                });
            })
        })
    })
}

#[test]
fn fig_2_11_phasers_work_18_cpl_13() {
    bounded(|| {
        units("Fig. 2.11", (18, 13), || {
            offshoot::finish(|| {
                let ph = Phaser::new();
                let me = ph.register(PhMode::SigWait);
                for work in [[1, 5, 3], [3, 1, 5]] {
                    let mut r = me.child(PhMode::SigWait);
                    offshoot::finish::spawn(move || {
                        do_work(work[0]);
                        r.next();
                        do_work(work[1]);
                        r.next();
                        do_work(work[2]);
                    });
                }
                drop(me);
            })
        })
    })
}

#[test]
fn fig_2_12_isolated_work_14_cpl_10_and_7_without() {
    bounded(|| {
        for (with, cpl) in [(true, 10), (false, 7)] {
            units("Fig. 2.12", (14, cpl), || {
                offshoot::finish(|| {
                    for _ in 0..2 {
                        offshoot::finish::spawn(move || {
                            do_work(2);
                            if with {
                                offshoot::isolated(|| do_work(3));
                            } else {
                                do_work(3);
                            }
                            do_work(2);
                        });
                    }
                })
            })
        }
    })
}

#[test]
fn isolated_on_the_same_object_serialises_and_on_others_not() {
    bounded(|| {
        let (a, b) = (1u8, 2u8);
        for (same, cpl) in [(true, 6), (false, 3)] {
            units("isolated_on", (6, cpl), || {
                offshoot::join(
                    || offshoot::isolated_on(&a, || do_work(3)),
                    || offshoot::isolated_on(if same { &a } else { &b }, || do_work(3)),
                );
            })
        }
    })
}

fn tree(depth: u32) {
    do_work(1);
    if depth > 0 {
        offshoot::join(|| tree(depth - 1), || tree(depth - 1));
    }
}

#[test]
fn a_balanced_tree_of_joins_has_span_depth_plus_one() {
    bounded(|| {
        // 2^11 - 1 nodes; a path from the root to a leaf has 11.
        units("tree", (2047, 11), || tree(10));
    })
}

#[test]
fn a_chain_is_all_span_and_joins_nested_in_a_finish_add_up() {
    bounded(|| {
        units("chain", (10, 10), || {
            for _ in 0..10 {
                do_work(1);
            }
        });
        // finish { spawn(4); join(2, finish { spawn(5); 1 }) ; 3 }: work 15; the longest
        // path: 3 (the body's tail after the join) + max(2, 1 + 5) = 9... computed as:
        // body: join(a: 2, b: finish{spawn 5; do 1}) then 3 → max(2, 5) + 3 = 8; task 4.
        units("nested", (15, 8), || {
            offshoot::finish(|| {
                offshoot::finish::spawn(|| do_work(4));
                offshoot::join(
                    || do_work(2),
                    || {
                        offshoot::finish(|| {
                            offshoot::finish::spawn(|| do_work(5));
                            do_work(1);
                        })
                    },
                );
                do_work(3);
            })
        });
    })
}

#[test]
fn a_chain_of_futures_is_as_long_as_the_chain() {
    bounded(|| {
        // Future i waits for future i - 1, then does 2 units: the span is the whole chain;
        // the root's own unit runs beside it.
        units("future chain", (21, 20), || {
            offshoot::finish(|| {
                let mut prev: Option<offshoot::sync::TaskFuture<u32>> = None;
                for i in 0..10u32 {
                    let before = prev.take();
                    prev = Some(spawn_future(move || {
                        let v = before.map_or(0, |f| *f.get());
                        do_work(2);
                        v + i
                    }));
                }
                do_work(1);
                assert_eq!(*prev.unwrap().get(), 45);
            })
        });
    })
}

#[test]
fn a_data_driven_task_starts_after_the_latest_put() {
    bounded(|| {
        // Two producers (4 and 7 units) put promises; the data-driven task (1 unit) starts
        // after both: span 8.
        units("spawn_when", (12, 8), || {
            offshoot::finish(|| {
                let (a, b) = (Promise::<u32>::new(), Promise::<u32>::new());
                spawn_when(&[&a, &b], || do_work(1));
                let (a2, b2) = (a.clone(), b.clone());
                offshoot::finish::spawn(move || {
                    do_work(4);
                    a2.put(1).unwrap();
                });
                offshoot::finish::spawn(move || {
                    do_work(7);
                    b2.put(2).unwrap();
                });
            })
        });
        // A promise's get waits for its put: 5 then 2 on a chain, 1 beside.
        units("promise", (8, 7), || {
            let p = Promise::<u32>::new();
            offshoot::join(
                || {
                    do_work(1);
                    let v = *p.get();
                    do_work(2);
                    v
                },
                || {
                    do_work(5);
                    p.put(3).unwrap();
                },
            );
        });
    })
}

#[test]
fn a_call_that_waits_on_a_shared_object_comes_after_what_let_it_through() {
    bounded(|| {
        // An I-store's get waits for the put (an exclusive operation, which changes the state
        // in place: no version carries its span): 5 then 2 on a chain, 1 beside.
        units("istore", (8, 7), || {
            let s = IStore::<u32>::new();
            offshoot::join(
                || {
                    do_work(1);
                    let v = s.get();
                    do_work(2);
                    v
                },
                || {
                    do_work(5);
                    s.put(3).unwrap();
                },
            );
        });
        // A FIFO's get (exclusive, suspended while empty) waits for the put that restores it.
        units("fifo", (8, 7), || {
            let q = Fifo::<u32>::new(1);
            offshoot::join(
                || {
                    do_work(1);
                    let v = q.get();
                    do_work(2);
                    v
                },
                || {
                    do_work(5);
                    q.put(3);
                },
            );
        });
        // A barrier's passage (a read, restored by the last arrival's write): both sides
        // go on after the later arrival, at 5.
        units("opa barrier", (9, 7), || {
            let b = opa::Barrier::new(2);
            offshoot::join(
                || {
                    do_work(1);
                    b.wait();
                    do_work(2);
                },
                || {
                    do_work(5);
                    b.wait();
                    do_work(1);
                },
            );
        });
    })
}

#[test]
fn a_parallel_loop_is_as_long_as_its_longest_iteration() {
    bounded(|| {
        use offshoot::prelude::*;
        units("par_for", (100 * 3, 3), || {
            offshoot::par_for(0..100, |_| do_work(3));
        });
        units("par_iter", (1000, 1), || {
            let s: u64 = (0..1000u64)
                .into_par_iter()
                .map(|x| {
                    do_work(1);
                    x
                })
                .sum();
            assert_eq!(s, 499_500);
        });
    })
}

#[test]
fn measure_calls_record_their_own_rows() {
    bounded(|| {
        for p in &pools(Mode::Abstract) {
            p.clear_metrics();
            p.run(|| {
                do_work(1);
                metrics::measure("left", || tree(3));
                metrics::measure("right", || {
                    offshoot::join(|| do_work(5), || metrics::measure("inner", || do_work(2)))
                });
            });
            let report = p.metrics().unwrap();
            let get =
                |t: &str| -> Row { report.rows().iter().find(|r| r.tag == t).unwrap().clone() };
            assert_eq!((get("left").work_units, get("left").span_units), (15, 4));
            assert_eq!((get("inner").work_units, get("inner").span_units), (2, 2));
            assert_eq!((get("right").work_units, get("right").span_units), (7, 5));
            // The run: 1, then the two measured calls one after the other (4 and 5).
            assert_eq!((get("").work_units, get("").span_units), (23, 10));
            // Rows in the order they ended.
            let tags: Vec<&str> = report.rows().iter().map(|r| r.tag.as_str()).collect();
            assert_eq!(tags, ["left", "inner", "right", ""]);
        }
    })
}

fn spin(n: u64) -> u64 {
    let mut x = 0u64;
    for i in 0..n {
        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
    }
    x
}

#[test]
fn measured_time_is_consistent() {
    bounded(|| {
        for p in &pools(Mode::Measured) {
            p.clear_metrics();
            p.run(|| {
                offshoot::scope(|s| {
                    for _ in 0..8 {
                        s.spawn(|_| {
                            offshoot::join(|| spin(20_000), || spin(20_000));
                        });
                    }
                });
            });
            let report = p.metrics().unwrap();
            let run = &report.rows()[0];
            assert!(run.work > std::time::Duration::ZERO, "{report}");
            assert!(run.span > std::time::Duration::ZERO, "{report}");
            assert!(run.work >= run.span, "{report}");
            assert!(run.burdened_span >= run.span, "{report}");
            // 16 equal leaves side by side: the span is below the work (a preempted leaf
            // lengthens both).
            assert!(run.span < run.work, "{report}");
            let (upper, burdened) = run.speedup_bounds(4);
            assert!(upper <= 4.0 && burdened <= upper + 1e-9, "{report}");
        }
    })
}

#[test]
fn the_csv_has_cilkscales_columns() {
    bounded(|| {
        let ps = pools(Mode::Measured);
        let p = &ps[0];
        p.clear_metrics();
        p.run(|| metrics::measure("tag \"q\"", || tree(4)));
        let csv = p.metrics().unwrap().to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], metrics::CSV_HEADER);
        assert!(lines[0].starts_with(
            "tag,work (seconds),span (seconds),parallelism,burdened_span (seconds),burdened_parallelism"
        ));
        assert!(lines[1].starts_with("\"tag \"\"q\"\"\","), "{csv}");
        assert_eq!(
            lines[1].rsplit(',').take(2).collect::<Vec<_>>(),
            ["5", "31"],
            "{csv}"
        );
        assert_eq!(lines.len(), 3, "{csv}");
        let text = p.metrics().unwrap().to_string();
        assert!(
            text.contains("(run)") && text.contains("parallelism"),
            "{text}"
        );
    })
}

#[test]
fn pools_that_do_not_measure_ignore_do_work_and_measure() {
    bounded(|| {
        let p = common::pool(2);
        assert!(p.metrics().is_none());
        assert_eq!(
            p.run(|| metrics::measure("r", || {
                do_work(3);
                7
            })),
            7
        );
        do_work(1); // outside every pool
        assert_eq!(metrics::measure("outside", || 5), 5);
    })
}

#[test]
fn measuring_pools_give_the_same_answers_and_failures() {
    bounded(|| {
        for mode in [Mode::Measured, Mode::Abstract] {
            for p in &pools(mode) {
                for seed in 0..12u64 {
                    let total = |m: Vec<offshoot::sync::Mutex<u64>>| {
                        m.into_iter()
                            .map(offshoot::sync::Mutex::into_inner)
                            .sum::<u64>()
                    };
                    let serial_m: Vec<_> = (0..7).map(|_| offshoot::sync::Mutex::new(0)).collect();
                    let want = random_mix(&mut Rng::new(seed), 6, &serial_m) + total(serial_m);
                    let m: Vec<_> = (0..7).map(|_| offshoot::sync::Mutex::new(0)).collect();
                    let got = p.run(|| random_mix(&mut Rng::new(seed), 6, &m)) + total(m);
                    assert_eq!(got, want, "{mode:?}, seed {seed}, {} workers", p.workers());
                }
                // Failures: the first panic wins, in a join, a finish and a loop; the pool goes
                // on measuring afterwards.
                let msg = panic_message(|| p.run(|| offshoot::join(|| tree(4), || boom("b side"))));
                assert_eq!(msg, boom_msg("b side"));
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::finish(|| {
                            offshoot::finish::spawn(|| boom("a task"));
                            tree(3);
                        })
                    })
                });
                assert_eq!(msg, boom_msg("a task"));
                let msg = panic_message(|| {
                    p.run(|| {
                        offshoot::par_for(0..64, |i| {
                            if i == 40 {
                                boom("iteration 40")
                            }
                        })
                    })
                });
                assert_eq!(msg, boom_msg("iteration 40"));
                let r: Result<((), ()), u32> = p.run(|| {
                    offshoot::try_join(
                        || {
                            tree(2);
                            Ok(())
                        },
                        || Err(7),
                    )
                });
                assert_eq!(r, Err(7));
                p.clear_metrics();
                p.run(|| tree(5));
                let report = p.metrics().unwrap();
                let run = &report.rows()[0];
                assert_eq!(
                    (run.work_units, run.span_units),
                    (63, 6),
                    "{mode:?}:\n{report}"
                );
            }
        }
    })
}

#[test]
fn an_empty_measure_tag_is_a_clear_error() {
    bounded(|| {
        let pool = ThreadPool::builder()
            .workers(2)
            .metrics(Mode::Abstract)
            .build()
            .unwrap();
        let m = panic_message(|| pool.run(|| metrics::measure("", || do_work(1))));
        assert!(m.contains("the tag is empty"), "{m}");
        // Outside a measuring pool too: the contract does not depend on the pool.
        let m = panic_message(|| metrics::measure("", || ()));
        assert!(m.contains("the tag is empty"), "{m}");
    });
}
