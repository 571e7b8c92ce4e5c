//! `isolated` / `isolated_on`: global sections never overlap anything isolated;
//! object-based sections on intersecting sets never overlap, on disjoint sets they run at
//! the same time (a rendezvous inside both would hang otherwise); a waiting task parks (one
//! worker runs a section that waits and the tasks queued behind it); a parallel construct
//! or a nested section inside is a clear error, and the section is released after a panic.
#![cfg(feature = "isolated")]

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, OnceLock};

use common::{bounded, mix, panic_message, pool, POOL_SIZES};
use offshoot::sync::Event;
use offshoot::{isolated, isolated_on, ThreadPool};

/// The tests of this file take turns: global sections of one test would otherwise queue
/// (as writers) between the sections of another that wait for each other inside, which is
/// the deadlock the module docs warn about (and the deadlock watch reports).
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| POOL_SIZES.iter().map(|&n| pool(n)).collect())
}

/// How many sections are inside now, and the most ever seen at once.
#[derive(Default)]
struct Inside {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Inside {
    fn enter(&self) {
        let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(n, Ordering::SeqCst);
        // Stay a little, so that an overlap has a chance to show.
        for _ in 0..200 {
            std::hint::spin_loop();
        }
    }
    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
    fn most(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }
}

#[test]
fn global_sections_never_overlap_and_see_every_update() {
    bounded(|| {
        let _turn = one_at_a_time();
        for p in pools() {
            let inside = Inside::default();
            let count = AtomicUsize::new(0);
            p.run(|| {
                offshoot::par_for(0..2000, |_| {
                    isolated(|| {
                        inside.enter();
                        // A read-then-write that loses updates if two sections overlap.
                        let c = count.load(Ordering::Relaxed);
                        count.store(c + 1, Ordering::Relaxed);
                        inside.leave();
                    })
                })
            });
            assert_eq!(count.into_inner(), 2000, "{} workers", p.workers());
            assert_eq!(inside.most(), 1, "{} workers", p.workers());
        }
    });
}

#[test]
fn sections_on_intersecting_objects_never_overlap() {
    bounded(|| {
        let _turn = one_at_a_time();
        let objects: Vec<u64> = (0..6).collect();
        for p in pools() {
            // One overlap counter per object: a section enters the counters of its objects.
            let inside: Vec<Inside> = (0..6).map(|_| Inside::default()).collect();
            let global = Inside::default();
            p.run(|| {
                offshoot::par_for(0..3000, |i| {
                    let h = mix(i as u64);
                    let (a, b) = ((h % 6) as usize, ((h >> 8) % 6) as usize);
                    if h.is_multiple_of(50) {
                        isolated(|| {
                            global.enter();
                            for c in &inside {
                                c.enter();
                            }
                            for c in &inside {
                                c.leave();
                            }
                            global.leave();
                        });
                    } else {
                        isolated_on((&objects[a], &objects[b]), || {
                            inside[a].enter();
                            if b != a {
                                inside[b].enter();
                                inside[b].leave();
                            }
                            inside[a].leave();
                        });
                    }
                })
            });
            for (k, c) in inside.iter().enumerate() {
                assert_eq!(c.most(), 1, "object {k} shared, {} workers", p.workers());
            }
            assert_eq!(global.most(), 1);
        }
    });
}

#[test]
fn sections_on_disjoint_objects_run_at_the_same_time() {
    bounded(|| {
        let _turn = one_at_a_time();
        let (a, b, c) = (1u8, 2u8, 3u8);
        // Two OS threads meet at a barrier inside sections on {a, b} and {c}: if those
        // were serialised, neither would return (the test's time limit would fail it).
        let meet = Barrier::new(2);
        std::thread::scope(|s| {
            s.spawn(|| isolated_on([&a, &b], || meet.wait()));
            s.spawn(|| isolated_on(&c, || meet.wait()));
        });
        // The same on two workers of a pool (more tasks than workers: the waiting parks).
        let e1 = Event::new();
        let e2 = Event::new();
        pools()[1].run(|| {
            offshoot::scope(|s| {
                s.spawn(|_| {
                    isolated_on(&a, || {
                        e1.set(()).unwrap();
                        e2.wait();
                    })
                });
                s.spawn(|_| {
                    isolated_on(&b, || {
                        e2.set(()).unwrap();
                        e1.wait();
                    })
                });
            })
        });
    });
}

#[test]
fn a_task_waiting_for_a_section_parks() {
    bounded(|| {
        let _turn = one_at_a_time();
        // One worker: the first task holds the section and waits for an event the last task
        // sets outside any section; the tasks between wait for the section. With blocking
        // waits the single worker would hang.
        let ready = Event::new();
        let entered = AtomicUsize::new(0);
        pools()[0].run(|| {
            offshoot::scope(|s| {
                s.spawn(|_| {
                    isolated(|| {
                        entered.fetch_add(1, Ordering::SeqCst);
                        ready.wait();
                    })
                });
                for _ in 0..10 {
                    s.spawn(|_| {
                        isolated(|| {
                            entered.fetch_add(1, Ordering::SeqCst);
                        })
                    });
                }
                s.spawn(|_| ready.set(()).unwrap());
            })
        });
        assert_eq!(entered.into_inner(), 11);
    });
}

#[test]
fn parallel_constructs_inside_a_section_are_errors() {
    bounded(|| {
        let _turn = one_at_a_time();
        type Case = (&'static str, fn());
        let cases: [Case; 9] = [
            ("join", || {
                offshoot::join(|| (), || ());
            }),
            ("spawn", || offshoot::finish::spawn(|| ())),
            ("spawn", || offshoot::spawn(|| ())),
            ("a finish", || offshoot::finish(|| ())),
            ("a finish, scope", || offshoot::scope(|_| ())),
            ("a parallel loop", || offshoot::par_for(0..10, |_| ())),
            ("a parallel loop", || {
                use offshoot::prelude::*;
                let _: u64 = (0..100u64).into_par_iter().sum();
            }),
            ("isolated inside an isolated", || isolated(|| ())),
            ("with_future", || {
                offshoot::sync::with_future(|| 1, |f| *f.get());
            }),
        ];
        for (on_worker, p) in [(false, None), (true, Some(&pools()[1]))] {
            for (what, f) in cases {
                let run = || isolated(f);
                let msg = match p {
                    Some(p) => panic_message(|| p.run(run)),
                    None => panic_message(run),
                };
                assert!(
                    msg.contains(what) && msg.contains("isolated"),
                    "case {what} (on a worker: {on_worker}): {msg}"
                );
                // The section was released and the mark cleared: parallel work goes on.
                let go = || {
                    let (x, y) = offshoot::join(|| 1, || 2);
                    isolated(|| x + y)
                };
                let v = match p {
                    Some(p) => p.run(go),
                    None => go(),
                };
                assert_eq!(v, 3);
            }
        }
    });
}

#[test]
fn a_panic_releases_the_section() {
    bounded(|| {
        let _turn = one_at_a_time();
        let x = 5u32;
        for p in pools() {
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| isolated_on(&x, || common::boom("isolated")))
            }));
            assert!(r.is_err());
            assert_eq!(p.run(|| isolated_on(&x, || 1) + isolated(|| 2)), 3);
        }
    });
}

#[test]
fn a_deadlock_through_isolated_names_the_section_lock() {
    let _one = one_at_a_time();
    bounded(|| {
        let p = &pools()[1];
        let never = offshoot::sync::Promise::<u32>::new();
        let entered = offshoot::sync::Promise::<()>::new();
        let m = panic_message(|| {
            p.run(|| {
                offshoot::scope(|s| {
                    s.spawn(|_| {
                        isolated(|| {
                            entered.put(()).unwrap();
                            *never.get()
                        });
                    });
                    s.spawn(|_| {
                        entered.get();
                        isolated(|| never.put(1).unwrap());
                    });
                })
            })
        });
        assert!(m.starts_with("offshoot: deadlock:"), "{m}");
        assert!(m.contains("offshoot::isolated"), "{m}");
        // The wait is placed at the section in this file, not inside the library.
        assert!(m.contains(&format!("; called at {}:", file!())), "{m}");
    });
}
