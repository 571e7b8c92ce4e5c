//! Spawn-request handlers and undo-redo (`offshoot::search`): LBTC's Fig. 6 (Yasugi et al.)'s order step by
//! step, the oldest-first choice across frame kinds, declining, poll-point-only calls,
//! panics of handlers, undos and tasks, and random search trees with random handler
//! placement (mixed with joins, loops and scopes) against a serial oracle.
//!
//! Requests are forced deterministically: the body runs on one worker of a 2-worker pool
//! and polls (`poll_until`) until the handler under test has been called; the other worker
//! is idle and keeps asking. Handlers that must not act yet decline, so what is recorded
//! does not depend on timing.
#![cfg(feature = "search")]

mod common;

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use common::*;
use offshoot::search::{handle, State};

/// LBTC's Fig. 6 (Yasugi et al.): `H_outer ⊃ UR_mid ⊃ H_inner ⊃ UR_inner ⊃ body`, a request at the body.
/// `outer_spawns`: whether H_outer spawns (then H_inner is not asked).
fn fig6(outer_spawns: bool) -> Vec<&'static str> {
    let p = pool(2);
    p.run(move || {
        let log = RefCell::new(Vec::new());
        // `armed`: the handlers act; `recording`: the steps are logged (from the first
        // request at the innermost point to the end of its answer).
        let armed = Cell::new(false);
        let recording = Cell::new(false);
        let done = Cell::new(false);
        let note = |what: &'static str| {
            if recording.get() {
                log.borrow_mut().push(what);
            }
        };
        let st = State::new(Vec::<&str>::new());
        let (_, outer) = st.handle(
            || {
                st.with(|v| v.push("mid"));
                st.undo_redo(
                    || {
                        let (_, inner) = st.handle(
                            || {
                                st.with(|v| v.push("inner"));
                                st.undo_redo(
                                    || {
                                        armed.set(true);
                                        recording.set(true);
                                        assert!(poll_until(|| done.get()), "no request came");
                                    },
                                    |v| {
                                        note("undo inner");
                                        assert_eq!(v.pop(), Some("inner"));
                                    },
                                    |v| {
                                        note("redo inner");
                                        recording.set(false);
                                        v.push("inner");
                                    },
                                );
                                st.with(|v| assert_eq!(v.pop(), Some("inner")));
                            },
                            |v, req| {
                                if !armed.get() {
                                    return req.decline();
                                }
                                note("H_inner");
                                assert_eq!(v, &["mid"], "H_inner sees its entry state");
                                armed.set(false);
                                done.set(true);
                                req.spawn(|| 2u32)
                            },
                        );
                        assert_eq!(inner, if outer_spawns { vec![] } else { vec![2] });
                    },
                    |v| {
                        note("undo mid");
                        assert_eq!(v.pop(), Some("mid"));
                    },
                    |v| {
                        note("redo mid");
                        v.push("mid");
                    },
                );
                st.with(|v| assert_eq!(v.pop(), Some("mid")));
            },
            |v, req| {
                if !armed.get() {
                    return req.decline();
                }
                note("H_outer");
                assert!(v.is_empty(), "H_outer sees its entry state");
                if outer_spawns {
                    armed.set(false);
                    done.set(true);
                    req.spawn(|| 1u32)
                } else {
                    req.decline()
                }
            },
        );
        assert_eq!(outer, if outer_spawns { vec![1] } else { vec![] });
        assert!(st.into_inner().is_empty());
        log.into_inner()
    })
}

#[test]
fn fig6_order_when_the_inner_handler_spawns() {
    let log = bounded(|| fig6(false));
    assert_eq!(
        log,
        [
            "undo inner",
            "undo mid",
            "H_outer",
            "redo mid",
            "H_inner",
            "redo inner"
        ]
    );
}

#[test]
fn fig6_order_when_the_outer_handler_spawns() {
    let log = bounded(|| fig6(true));
    assert_eq!(
        log,
        [
            "undo inner",
            "undo mid",
            "H_outer",
            "redo mid",
            "redo inner"
        ]
    );
}

/// Undo-redo clauses nested `depth` deep below one handler: all undos youngest first, the
/// handler, all redos oldest first; the handler sees the entry state.
#[test]
fn deep_nesting_undoes_and_redoes_in_order() {
    let log = bounded(|| {
        pool(2).run(|| {
            fn dive(
                st: &State<Vec<u32>>,
                d: u32,
                depth: u32,
                log: &RefCell<Vec<i64>>,
                armed: &Cell<bool>,
                done: &Cell<bool>,
                recording: &Cell<bool>,
            ) {
                if d == depth {
                    armed.set(true);
                    recording.set(true);
                    assert!(poll_until(|| done.get()));
                    return;
                }
                st.with(|v| v.push(d));
                st.undo_redo(
                    || dive(st, d + 1, depth, log, armed, done, recording),
                    |v| {
                        if recording.get() {
                            log.borrow_mut().push(-(d as i64) - 1);
                        }
                        assert_eq!(v.pop(), Some(d));
                    },
                    |v| {
                        if recording.get() {
                            log.borrow_mut().push(d as i64 + 1);
                            recording.set(d + 1 < depth);
                        }
                        v.push(d);
                    },
                );
                st.with(|v| assert_eq!(v.pop(), Some(d)));
            }
            let log = RefCell::new(Vec::new());
            let (armed, done, recording) = (Cell::new(false), Cell::new(false), Cell::new(false));
            let st = State::new(vec![]);
            let (_, got) = st.handle(
                || dive(&st, 0, 6, &log, &armed, &done, &recording),
                |v, req| {
                    if !armed.get() {
                        return req.decline();
                    }
                    assert!(v.is_empty());
                    log.borrow_mut().push(0);
                    armed.set(false);
                    done.set(true);
                    req.spawn(|| 7u8)
                },
            );
            assert_eq!(got, [7]);
            log.into_inner()
        })
    });
    assert_eq!(log, [-6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6]);
}

/// The oldest frame is asked first, whatever its kind: a join seed older than a handler
/// goes before the handler is asked.
#[test]
fn an_older_join_seed_goes_before_a_younger_handler() {
    let order = bounded(|| {
        let order = Mutex::new(Vec::new());
        let p = pool(2);
        p.run(|| {
            let b_started = std::sync::atomic::AtomicBool::new(false);
            offshoot::join(
                || {
                    let _: ((), Vec<()>) = handle(
                        || assert!(poll_until(|| b_started.load(Ordering::SeqCst))),
                        |req| {
                            order.lock().unwrap().push("handler");
                            req.decline()
                        },
                    );
                },
                || {
                    order.lock().unwrap().push("seed");
                    b_started.store(true, Ordering::SeqCst);
                },
            );
        });
        order.into_inner().unwrap()
    });
    assert_eq!(order[0], "seed");
}

/// A handler older than a join seed is asked first; when it spawns, the seed stays.
#[test]
fn an_older_handler_goes_before_a_younger_join_seed() {
    let order = bounded(|| {
        let order = Mutex::new(Vec::new());
        let p = pool(2);
        p.run(|| {
            let spawned = std::sync::atomic::AtomicBool::new(false);
            let (_, got) = handle(
                || {
                    offshoot::join(
                        || assert!(poll_until(|| spawned.load(Ordering::SeqCst))),
                        || order.lock().unwrap().push("seed"),
                    )
                },
                |req| {
                    if spawned.swap(true, Ordering::SeqCst) {
                        return req.decline();
                    }
                    order.lock().unwrap().push("handler");
                    req.spawn(|| 5)
                },
            );
            assert_eq!(got, [5]);
        });
        order.into_inner().unwrap()
    });
    assert_eq!(order[0], "handler");
}

/// A loop older than a handler gives its upper half before the handler is asked.
#[test]
fn an_older_loop_goes_before_a_younger_handler() {
    let order = bounded(|| {
        let order = Mutex::new(Vec::new());
        let split = std::sync::atomic::AtomicBool::new(false);
        pool(2).run(|| {
            offshoot::par_for(0..4, |i| {
                if i == 0 {
                    let _: ((), Vec<()>) = handle(
                        || assert!(poll_until(|| split.load(Ordering::SeqCst))),
                        |req| {
                            order.lock().unwrap().push("handler");
                            req.decline()
                        },
                    );
                } else if i >= 2 {
                    // The upper half [2, 4): only a thief runs it while iteration 0 waits.
                    order.lock().unwrap().push("loop");
                    split.store(true, Ordering::SeqCst);
                }
            });
        });
        order.into_inner().unwrap()
    });
    assert_eq!(order[0], "loop");
}

/// A handler older than a loop is asked before the loop is split.
#[test]
fn an_older_handler_goes_before_a_younger_loop() {
    let order = bounded(|| {
        let order = Mutex::new(Vec::new());
        let spawned = std::sync::atomic::AtomicBool::new(false);
        let in_loop = std::sync::atomic::AtomicBool::new(false);
        pool(2).run(|| {
            let (_, got) = handle(
                || {
                    offshoot::par_for(0..4, |i| {
                        if i == 0 {
                            in_loop.store(true, Ordering::SeqCst);
                            assert!(poll_until(|| spawned.load(Ordering::SeqCst)));
                        } else {
                            order.lock().unwrap().push("loop");
                        }
                    })
                },
                |req| {
                    // Act only once the loop (younger than this handler) is there.
                    if !in_loop.load(Ordering::SeqCst) || spawned.swap(true, Ordering::SeqCst) {
                        return req.decline();
                    }
                    order.lock().unwrap().push("handler");
                    req.spawn(|| 1)
                },
            );
            assert_eq!(got, [1]);
        });
        order.into_inner().unwrap()
    });
    assert_eq!(order[0], "handler");
}

/// A handler that declines passes the request on to younger frames; when every frame
/// declines the thief gets nothing.
#[test]
fn declining_everywhere_answers_nothing() {
    bounded(|| {
        let p = pool(2);
        let before = p.stats();
        let asked = p.run(|| {
            let (outer, inner) = (Cell::new(0u32), Cell::new(0u32));
            let (_, a): ((), Vec<()>) = handle(
                || {
                    let (_, b): ((), Vec<()>) = handle(
                        || assert!(poll_until(|| inner.get() >= 3)),
                        |req| {
                            assert!(outer.get() > inner.get(), "the older handler first");
                            inner.set(inner.get() + 1);
                            req.decline()
                        },
                    );
                    assert!(b.is_empty());
                },
                |req| {
                    outer.set(outer.get() + 1);
                    req.decline()
                },
            );
            assert!(a.is_empty());
            inner.get()
        });
        let d = p.stats() - before;
        assert!(asked >= 3);
        assert!(d.requests_answered_empty >= 3, "{d}");
        assert_eq!(d.tasks_materialized, 0, "{d}");
    });
}

/// Handlers run only at poll points of the body's thread, with the state at rest: never
/// while the body holds a borrow of it (even across polls), never re-entrantly.
#[test]
fn handlers_run_only_at_poll_points_with_the_state_at_rest() {
    bounded(|| {
        for workers in [2, 3] {
            let p = pool(workers);
            p.run(|| {
                let me = std::thread::current().id();
                let at_poll = Cell::new(true); // the entry poll of `handle`
                let inside = Cell::new(false);
                let calls = Cell::new(0u32);
                let st = State::new(0u64);
                let (_, got) = st.handle(
                    || {
                        at_poll.set(false);
                        while calls.get() < 20 {
                            // Polls while the body holds the state: the handler must not run.
                            st.with(|x| {
                                *x += 1;
                                for _ in 0..8 {
                                    offshoot::poll();
                                }
                                *x -= 1;
                            });
                            // Polls with the state at rest, until the handler is asked.
                            at_poll.set(true);
                            let before = calls.get();
                            assert!(poll_until(|| calls.get() > before), "never asked");
                            at_poll.set(false);
                        }
                    },
                    |x, req| {
                        assert!(at_poll.get(), "handler outside a poll point");
                        assert_eq!(std::thread::current().id(), me);
                        assert!(!inside.replace(true), "handler re-entered");
                        assert_eq!(*x, 0, "the handler saw the state while the body had it");
                        assert!(
                            st.try_borrow_mut().is_none(),
                            "the state is lent to the handler"
                        );
                        // A poll inside the handler answers without asking handlers.
                        offshoot::poll();
                        inside.set(false);
                        calls.set(calls.get() + 1);
                        if calls.get().is_multiple_of(4) {
                            req.spawn(|| 1u64)
                        } else {
                            req.decline()
                        }
                    },
                );
                assert!(got.iter().all(|&v| v == 1));
                assert_eq!(st.into_inner(), 0);
            });
        }
    });
}

/// A handler whose state is borrowed at the poll point declines, and an undo that cannot
/// run blocks the older handlers; the request then goes to a younger frame.
#[test]
fn a_borrowed_state_blocks_its_handlers_and_older_ones() {
    bounded(|| {
        pool(2).run(|| {
            let other = State::new(0u8);
            let st = State::new(vec![1u8]);
            let (outer_calls, inner_calls) = (Cell::new(0u32), Cell::new(0u32));
            let (_, a) = st.handle(
                || {
                    other.with(|o| *o = 1);
                    other.undo_redo(
                        || {
                            let (_, b) = handle(
                                || {
                                    // `other` is borrowed across these polls: its clause
                                    // cannot undo, so the outer handler must not be asked;
                                    // the plain younger handler is.
                                    other.with(|_| assert!(poll_until(|| inner_calls.get() >= 2)));
                                },
                                |req| {
                                    inner_calls.set(inner_calls.get() + 1);
                                    req.spawn(|| 9u8)
                                },
                            );
                            assert!(b.len() >= 2 && b.iter().all(|&x| x == 9));
                        },
                        |o| *o = 0,
                        |o| *o = 1,
                    );
                },
                |_, req| {
                    outer_calls.set(outer_calls.get() + 1);
                    req.spawn(|| 0u8)
                },
            );
            // The outer handler may have been asked at the entry poll only, before the
            // clause existed; never while `other` was held.
            assert!(outer_calls.get() <= a.len() as u32);
            assert!(a.iter().all(|&x| x == 0));
        });
    });
}

/// Runs `search` on `p`; it must panic with `boom(what)`, and that panic must surface
/// exactly once.
fn surfaces_once(p: &offshoot::ThreadPool, what: &str, search: impl FnOnce() + Send) {
    let msg = boom_msg(what);
    let before = times_raised(&msg);
    assert_eq!(panic_message(|| p.run(search)), msg);
    assert_eq!(times_raised(&msg) - before, 1);
}

#[test]
fn a_panicking_handler_surfaces_once_and_the_pool_goes_on() {
    bounded(|| {
        let p = pool(2);
        surfaces_once(&p, "handler", || {
            let st = State::new(vec![0u8; 4]);
            let _: ((), Vec<()>) = st.handle(
                || {
                    st.undo_redo(
                        || {
                            poll_until_stopped(LONG);
                        },
                        |_| {},
                        |_| {},
                    );
                },
                |_, _req| boom("handler"),
            );
        });
        // The chain is intact: the pool runs searches as before.
        let (v, t): (u32, Vec<u32>) = p.run(|| handle(|| 3, |req| req.spawn(|| 4)));
        assert_eq!(v, 3);
        assert!(t.iter().all(|&x| x == 4));
    });
}

#[test]
fn a_panicking_undo_surfaces_once() {
    bounded(|| {
        let asked = std::sync::atomic::AtomicU32::new(0);
        surfaces_once(&pool(2), "undo", || {
            let st = State::new(0u8);
            let _: ((), Vec<()>) = st.handle(
                || {
                    st.undo_redo(|| poll_until_stopped(LONG), |_| boom("undo"), |_| {});
                },
                |_, req| {
                    asked.fetch_add(1, Ordering::SeqCst);
                    req.decline()
                },
            );
        });
        // Only the entry poll (before the clause existed) may have asked the handler: once
        // the undo failed, nothing older than it is asked.
        assert!(asked.load(Ordering::SeqCst) <= 1);
    });
}

#[test]
fn a_panicking_task_surfaces_once() {
    bounded(|| {
        surfaces_once(&pool(2), "task", || {
            let spawned = Cell::new(false);
            let _: ((), Vec<()>) = handle(
                || {
                    poll_until_stopped(LONG);
                },
                |req| {
                    if spawned.replace(true) {
                        req.decline()
                    } else {
                        req.spawn(|| boom("task"))
                    }
                },
            );
        });
    });
}

#[test]
fn the_body_panicking_waits_for_spawned_tasks_and_wins() {
    bounded(|| {
        let p = pool(2);
        let msg = boom_msg("body");
        let tally = Tally::new();
        let got = panic_message(|| {
            p.run(|| {
                let spawned = Cell::new(false);
                let _: ((), Vec<()>) = handle(
                    || {
                        assert!(poll_until(|| spawned.get()));
                        boom("body")
                    },
                    |req| {
                        if spawned.replace(true) {
                            return req.decline();
                        }
                        let g = tally.guard();
                        let t = tally.clone();
                        req.spawn(move || {
                            let _g = g;
                            long_task(&t)
                        })
                    },
                );
            })
        });
        assert_eq!(got, msg);
        // The task was stopped (not run to its bound) and its closure dropped once.
        assert_eq!(tally.made(), tally.dropped());
        assert_eq!(tally.finished(), 0);
    });
}

#[test]
fn outside_a_pool_the_body_is_the_whole_search() {
    let st = State::new(vec![1]);
    let (v, t): (usize, Vec<u8>) = st.handle(
        || st.undo_redo(|| st.with(|v| v.len()), |_| panic!("no undo"), |_| {}),
        |_, _| panic!("nobody asks outside a pool"),
    );
    assert_eq!((v, t), (1, vec![]));
}

// ----- random search trees ---------------------------------------------------------------

/// A random tree: the children and kind of a node are functions of the seed and the path.
#[derive(Clone, Copy)]
struct Tree {
    seed: u64,
    depth: usize,
}

impl Tree {
    fn hash(&self, path: &[u32]) -> u64 {
        path.iter()
            .fold(mix(self.seed), |h, &c| mix(h ^ (c as u64 + 1)))
    }
    fn children(&self, path: &[u32]) -> u32 {
        if path.len() >= self.depth {
            0
        } else {
            (self.hash(path) % 5) as u32
        }
    }
    fn value(&self, path: &[u32]) -> u64 {
        mix(self.hash(path) ^ 0xABCD) % 1000
    }
    /// How a node runs its children in the parallel version.
    fn kind(&self, path: &[u32]) -> u64 {
        (self.hash(path) >> 20) % 6
    }

    fn serial(&self, path: &mut Vec<u32>) -> u64 {
        let mut s = self.value(path);
        for c in 0..self.children(path) {
            path.push(c);
            s += self.serial(path);
            path.pop();
        }
        s
    }

    /// Child `c` of the node at the state's path, on the shared state.
    fn child(&self, st: &State<Vec<u32>>, c: u32) -> u64 {
        st.with(|p| p.push(c));
        let r = st.undo_redo(
            || self.par(st),
            |p| assert_eq!(p.pop(), Some(c)),
            |p| p.push(c),
        );
        st.with(|p| assert_eq!(p.pop(), Some(c)));
        r
    }

    /// Child `c` of the node at `path`, on a state of its own.
    fn child_on_copy(&self, mut path: Vec<u32>, c: u32) -> u64 {
        path.push(c);
        let st = State::new(path);
        let r = self.par(&st);
        let mut end = st.into_inner();
        assert_eq!(end.pop(), Some(c), "a copy ends as it began");
        r
    }

    fn par(&self, st: &State<Vec<u32>>) -> u64 {
        let (val, n, kind, entry) =
            st.with(|p| (self.value(p), self.children(p), self.kind(p), p.clone()));
        let t = *self;
        match kind {
            // Plain loop on the shared state.
            0 => val + (0..n).map(|c| t.child(st, c)).sum::<u64>(),
            // A handler that gives away the last child not started.
            1 | 2 => {
                let (next, end) = (Cell::new(0), Cell::new(n));
                let (mine, stolen) = st.handle(
                    || {
                        let mut s = 0;
                        while next.get() < end.get() {
                            let c = next.get();
                            next.set(c + 1);
                            s += t.child(st, c);
                        }
                        s
                    },
                    |p, req| {
                        assert_eq!(p, &entry, "a handler sees its entry state");
                        // Kind 2 declines half the time (by the request count).
                        if next.get() >= end.get() || (kind == 2 && req.thief() % 2 == 0) {
                            return req.decline();
                        }
                        let c = end.get() - 1;
                        end.set(c);
                        let path = p.clone();
                        HANDLER_SPAWNS.fetch_add(1, Ordering::Relaxed);
                        req.spawn(move || t.child_on_copy(path, c))
                    },
                );
                val + mine + stolen.iter().sum::<u64>()
            }
            // A join over copies.
            3 => {
                let (a, b) = offshoot::join(
                    || {
                        (0..n / 2)
                            .map(|c| t.child_on_copy(entry.clone(), c))
                            .sum::<u64>()
                    },
                    || {
                        (n / 2..n)
                            .map(|c| t.child_on_copy(entry.clone(), c))
                            .sum::<u64>()
                    },
                );
                val + a + b
            }
            // A loop over copies.
            4 => {
                let sum = AtomicU64::new(0);
                offshoot::par_for(0..n as usize, |c| {
                    sum.fetch_add(t.child_on_copy(entry.clone(), c as u32), Ordering::Relaxed);
                });
                val + sum.into_inner()
            }
            // A scope whose tasks work on copies, plus a child on the shared state.
            _ => {
                let sum = AtomicU64::new(0);
                let first = if n > 0 { t.child(st, 0) } else { 0 };
                offshoot::scope(|s| {
                    for c in 1..n {
                        let (sum, entry) = (&sum, entry.clone());
                        s.spawn(move |_| {
                            sum.fetch_add(t.child_on_copy(entry, c), Ordering::Relaxed);
                        });
                    }
                });
                val + first + sum.into_inner()
            }
        }
    }
}

/// Tasks spawned by the random trees' handlers.
static HANDLER_SPAWNS: AtomicU64 = AtomicU64::new(0);

#[test]
fn random_search_trees_match_the_serial_oracle() {
    bounded(|| {
        let mut rng = Rng::new(6);
        for round in 0..12 {
            let tree = Tree {
                seed: rng.next_u64(),
                depth: 6 + round % 5,
            };
            let want = tree.serial(&mut vec![42]);
            for workers in POOL_SIZES {
                let p = pool(workers);
                let (got, end) = p.run(|| {
                    let st = State::new(vec![42]);
                    let got = tree.par(&st);
                    (got, st.into_inner())
                });
                assert_eq!(got, want, "seed {} on {workers} workers", tree.seed);
                assert_eq!(
                    end,
                    [42],
                    "the state after the search equals the state before"
                );
            }
        }
    });
}
