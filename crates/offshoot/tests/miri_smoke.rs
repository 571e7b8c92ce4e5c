//! Small end-to-end runs of every path that uses `unsafe` (a stolen join seed run in place,
//! spawned tasks handed out and drained (in a fifo scope too), a failure crossing a stolen join, loop pieces and
//! bridged items, futures got in call order, stolen, and dropped while another
//! worker completes them, eureka regions resolving and their lock-free cells, accumulator
//! partials and isolated sections, a mutex and a monitor handing their data from holder to
//! holder, `sync::Shared` versions reclaimed while readers hold them, an `opa::Fifo` and an
//! `Object` whose writes race its reads, a collect into place and a cached-key sort that
//! panic part way,
//! and the same in a pool that measures work and span),
//! sized so that `scripts/miri.sh` can run them under
//! Miri. They also run in the normal test suite.
#![cfg(all(
    feature = "accumulator",
    feature = "actor",
    feature = "eureka",
    feature = "isolated",
    feature = "phaser",
    feature = "search",
    feature = "sync"
))]

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn pool() -> offshoot::ThreadPool {
    offshoot::ThreadPool::builder().workers(2).build().unwrap()
}

/// `a` polls until `b` has started somewhere: on two workers, `b` is then always run by the
/// thief, in the victim's frame.
fn join_with_stolen_b<R: Send>(b: impl FnOnce() -> R + Send) -> R {
    let started = AtomicBool::new(false);
    let (_, r) = offshoot::join(
        || {
            while !started.load(Ordering::Acquire) {
                offshoot::poll();
                std::thread::yield_now();
            }
        },
        || {
            started.store(true, Ordering::Release);
            b()
        },
    );
    r
}

#[test]
fn fib_values() {
    let p = pool();
    assert_eq!(p.run(|| fib(10)), 55);
}

#[test]
fn stolen_b_writes_into_victim_frame() {
    let p = pool();
    let v = p.run(|| join_with_stolen_b(|| vec![1u8, 2, 3]));
    assert_eq!(v, [1, 2, 3]);
    assert!(p.stats().tasks_materialized >= 1);
}

/// Counts its drops.
struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A `b` wider than a word (an owned value, a `&mut` and a drop counter among its
/// captures), which the owner runs from its own copy when the seed was not handed out: run
/// once and dropped once on every path (not stolen, stolen, `a` failing first). One worker
/// leaves the seed unstolen; on two, `join_with_stolen_b` has it stolen.
#[test]
fn wide_b_runs_or_drops_exactly_once() {
    let drops = AtomicUsize::new(0);
    let one = offshoot::ThreadPool::builder().workers(1).build().unwrap();
    let p = pool();
    one.run(|| {
        let mut out = Vec::new();
        let owned = String::from("wide");
        let c = Counted(&drops);
        let (x, ()) = offshoot::join(
            || fib(8),
            || {
                let _c = c;
                out.push(owned.len());
            },
        );
        assert_eq!((x, &out[..]), (21, &[4][..]));
    });
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    p.run(|| {
        let mut out = Vec::new();
        let owned = String::from("stolen");
        let c = Counted(&drops);
        join_with_stolen_b(|| {
            let _c = c;
            out.push(owned.len());
        });
        assert_eq!(out, [6]);
    });
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    let r = catch_unwind(AssertUnwindSafe(|| {
        one.run(|| {
            let c = Counted(&drops);
            let owned = String::from("dropped");
            offshoot::join(
                || -> usize { panic!("a failed") },
                move || {
                    let _c = c;
                    owned.len()
                },
            )
        })
    }));
    assert_eq!(r.unwrap_err().downcast_ref::<&str>(), Some(&"a failed"));
    assert_eq!(drops.load(Ordering::SeqCst), 3);
}

#[test]
fn panic_in_stolen_b_surfaces_once() {
    let p = pool();
    let r = catch_unwind(AssertUnwindSafe(|| {
        p.run(|| join_with_stolen_b(|| -> u8 { panic!("b failed") }))
    }));
    let payload = r.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"b failed"));
}

#[test]
fn scope_and_finish_spawns() {
    let p = pool();
    let n = AtomicUsize::new(0);
    p.run(|| {
        offshoot::scope(|s| {
            for _ in 0..4 {
                s.spawn(|s| {
                    n.fetch_add(1, Ordering::Relaxed);
                    s.spawn(|_| {
                        n.fetch_add(1, Ordering::Relaxed);
                    });
                });
            }
        })
    });
    assert_eq!(n.load(Ordering::Relaxed), 8);
    // A fifo scope: frames drain their oldest task first, thieves take the newest half.
    let mut v = [0u32; 6];
    p.run(|| {
        offshoot::scope_fifo(|s| {
            for (i, x) in v.iter_mut().enumerate() {
                s.spawn_fifo(move |s| {
                    offshoot::poll();
                    *x = i as u32;
                    s.spawn_fifo(move |_| offshoot::poll());
                });
            }
        })
    });
    assert_eq!(v, [0, 1, 2, 3, 4, 5]);
    static M: AtomicUsize = AtomicUsize::new(0);
    p.run(|| {
        offshoot::finish(|| {
            for _ in 0..4 {
                offshoot::finish::spawn(|| {
                    M.fetch_add(1, Ordering::Relaxed);
                });
            }
        })
    });
    assert_eq!(M.load(Ordering::Relaxed), 4);
}

#[test]
fn loops_split_and_write_disjoint_elements() {
    let p = pool();
    let mut v: Vec<u32> = (0..64).collect();
    p.run(|| {
        offshoot::par_for_each_mut(&mut v, |x| {
            offshoot::poll();
            *x *= 2
        })
    });
    assert!(v.iter().enumerate().all(|(i, x)| *x == 2 * i as u32));
    let s = p.run(|| offshoot::par_reduce(0..64usize, || 0usize, |i| i, |a, b| a + b));
    assert_eq!(s, 2016);
}

/// A panic part way through a collect into place, and through the keys of a cached-key
/// sort: the items written so far are dropped once each (`par_iter/written.rs`).
#[test]
fn a_panicking_collect_drops_what_it_wrote_once() {
    use offshoot::prelude::*;
    common::install_panic_hook();
    let p = pool();
    let r = catch_unwind(AssertUnwindSafe(|| {
        p.run(|| {
            let mut out: Vec<String> = Vec::new();
            (0..48)
                .into_par_iter()
                .map(|i| {
                    offshoot::poll();
                    if i == 40 {
                        common::boom("collect");
                    }
                    i.to_string()
                })
                .collect_into_vec(&mut out);
        })
    }));
    assert!(r.is_err());
    let mut v: Vec<u32> = (0..1500).rev().collect();
    let r = catch_unwind(AssertUnwindSafe(|| {
        p.run(|| {
            v.par_sort_by_cached_key(|x| {
                if *x == 3 {
                    common::boom("cached key");
                }
                x.to_string()
            })
        })
    }));
    assert!(r.is_err());
    assert_eq!(v[0], 1499, "a panicking key leaves the slice as it was");
    // An owning source whose pipeline panics early: the elements no block reached are
    // dropped by the stopped pieces (Miri reports a leak or a double drop).
    let owned: Vec<String> = (0..48).map(|i| i.to_string()).collect();
    let r = catch_unwind(AssertUnwindSafe(|| {
        p.run(|| {
            owned.into_par_iter().with_max_len(5).for_each(|s| {
                offshoot::poll();
                if s == "6" {
                    common::boom("owning source");
                }
            })
        })
    }));
    assert!(r.is_err());
}

#[test]
fn parallel_iterators_move_and_mutate_soundly() {
    use offshoot::prelude::*;
    let p = pool();
    let v: Vec<String> = (0..40).map(|i| i.to_string()).collect();
    let lens: Vec<usize> = p.run(|| v.clone().into_par_iter().map(|s| s.len()).collect());
    assert_eq!(lens.iter().sum::<usize>(), 70);
    assert!(p.run(|| v.clone().into_par_iter().any(|s| s == "7")));
    let n = p.run(|| v.clone().into_par_iter().zip(0..10u32).count());
    assert_eq!(n, 10);
    let mut w: Vec<u64> = (0..40).collect();
    p.run(|| {
        w.par_iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x += i as u64)
    });
    assert_eq!(w[39], 78);
}

#[test]
fn bridged_items_move_through_pieces_soundly() {
    use offshoot::prelude::*;
    let p = pool();
    let mut v: Vec<String> = p.run(|| {
        (0..40u32)
            .map(|i| format!("{i:02}"))
            .par_bridge()
            .map(|s| {
                offshoot::poll();
                s + "!"
            })
            .collect()
    });
    v.sort();
    assert_eq!(v[39], "39!");
    let n = p.run(|| (0..40u32).par_bridge().map(|x| x as usize).sum::<usize>());
    assert_eq!(n, 780);
}

/// A spawn-request handler's task runs on the thief (from a copy of the state the handler
/// was lent, with an undo-redo clause rolled back around it) and its value comes back.
#[test]
fn handler_task_around_undo_redo() {
    use offshoot::search::State;
    use std::cell::Cell;
    let p = pool();
    let r = p.run(|| {
        let st = State::new(vec![1u8]);
        let asked = Cell::new(false);
        let (v, got) = st.handle(
            || {
                st.with(|s| s.push(2));
                let v = st.undo_redo(
                    || {
                        while !asked.get() {
                            offshoot::poll();
                            std::thread::yield_now();
                        }
                        st.with(|s| s.len())
                    },
                    |s| assert_eq!(s.pop(), Some(2)),
                    |s| s.push(2),
                );
                st.with(|s| s.pop());
                v
            },
            |s, req| {
                if asked.replace(true) {
                    return req.decline();
                }
                let mine = s.clone();
                req.spawn(move || mine)
            },
        );
        (v, got, st.into_inner())
    });
    assert_eq!(r, (2, vec![vec![1]], vec![1]));
}

/// The sorts' element moves (merge sort: between the slice and its buffer, with the guards
/// that put elements back when a comparator panics; quicksort: swaps), on owned strings so
/// that a lost or doubled element is a leak or a double free. Sized just above the leaf
/// size so that merges and partitions happen on two workers.
#[test]
fn sorts_move_elements_soundly() {
    use offshoot::slice::ParallelSliceMut;
    let keys: Vec<String> = (0..4600u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) % 1000).to_string())
        .collect();
    let mut want = keys.clone();
    want.sort();
    let p = pool();
    for stable in [true, false] {
        let mut v = keys.clone();
        p.run(|| {
            if stable {
                v.par_sort();
            } else {
                v.par_sort_unstable();
            }
        });
        assert_eq!(v, want);
        // A comparator that panics part-way: every string is still there once.
        let calls = AtomicUsize::new(0);
        let mut v = keys.clone();
        let r = catch_unwind(AssertUnwindSafe(|| {
            p.run(|| {
                let cmp = |a: &String, b: &String| {
                    if calls.fetch_add(1, Ordering::Relaxed) == 20_000 {
                        panic!("comparator");
                    }
                    a.cmp(b)
                };
                if stable {
                    v.par_sort_by(cmp);
                } else {
                    v.par_sort_unstable_by(cmp);
                }
            })
        }));
        assert!(
            r.is_err(),
            "stable = {stable}: the comparator never panicked"
        );
        v.sort();
        assert_eq!(v, want, "stable = {stable}");
    }
}

/// Futures got in call order (the `get` takes the task back, runs it and keeps its count in
/// its handle, while a clone is dropped on a plain thread), got after a thief ran them, and
/// got through a clone from outside the pool.
#[test]
fn futures_got_in_call_order_and_after_a_thief() {
    use offshoot::sync::spawn_future;
    let p = pool();
    let (sum, late) = p.run(|| {
        let a = spawn_future(|| vec![1u8, 2, 3]);
        let b = spawn_future(|| 4usize);
        let c = a.clone();
        std::thread::scope(|s| {
            s.spawn(move || drop(c));
            let sum = *b.get() + a.get().len();
            let late = join_with_stolen_b(|| spawn_future(|| String::from("x")));
            (sum, late)
        })
    });
    assert_eq!(sum, 7);
    let other = late.clone();
    assert_eq!(
        std::thread::spawn(move || other.get().clone())
            .join()
            .unwrap(),
        "x"
    );
    assert_eq!(late.get(), "x");
}

/// Issue 14's race: handles dropped while another worker completes their tasks, on a
/// worker and from outside the pool. Miri reports a release that touches the block after
/// its own decrement (a race with the other party's free). (The `mem::forget` variants run
/// in `futures.rs`: here Miri's leak check would report the leaked blocks.)
#[test]
fn future_handles_dropped_while_their_tasks_end() {
    let p = pool();
    let t = common::drop_futures_while_their_tasks_end::<16>(&p, 2, false);
    assert_eq!((t.made(), t.dropped()), (2, 2));
    let t = common::drop_futures_while_their_tasks_end::<0>(&p, 2, false);
    assert_eq!((t.made(), t.dropped()), (2, 2));
    let t = common::drop_a_future_outside_the_pool_while_its_task_ends::<16>(&p, false);
    assert_eq!((t.made(), t.dropped()), (1, 1));
}

#[test]
fn eureka_regions_resolve_and_bounds_move_soundly() {
    use offshoot::eureka::{self, Count, Eureka, Minima, Search};
    let p = pool();
    // A search resolved by a stolen half: the region's state is failed from the thief,
    // the owner's half stops, the found value is read after the region.
    let found = Search::new();
    p.run(|| {
        eureka::finish(&found, || {
            join_with_stolen_b(|| {
                found.offer(String::from("here"));
            })
        })
    });
    assert_eq!(found.into_inner().as_deref(), Some("here"));
    // A bound lowered from both workers (nodes of the chain made and freed), and a count
    // filled by both.
    let best = Minima::new(u64::MAX);
    let some = Count::new(3);
    p.run(|| {
        eureka::finish(&best, || {
            offshoot::par_for(0..16, |i| {
                best.offer((i as u64 * 7) % 11);
            })
        });
        eureka::finish(&some, || {
            offshoot::par_for(0..16, |i| {
                some.offer(i);
            })
        });
    });
    assert_eq!(*best.get(), 0);
    assert_eq!(some.into_inner().len(), 3);
}

#[test]
fn accumulator_partials_and_isolated_sections_are_sound() {
    use offshoot::accumulator::Accumulator;
    let p = pool();
    // Puts into per-worker partials (heap values: a String per put), from a stolen join
    // half and from a thread outside the pool, combined after the finish.
    let words = Accumulator::new(String::new(), |a: &mut String, x: String| a.push_str(&x));
    let count = p.run(|| {
        words.finish(|w| {
            let n = join_with_stolen_b(|| {
                w.put("b".to_string());
                1
            });
            w.put("a".to_string());
            std::thread::scope(|s| {
                s.spawn(|| w.put("c".to_string()));
            });
            offshoot::par_for(0..4, |_| w.put("d".to_string()));
            n
        })
    });
    let mut got: Vec<char> = words.into_inner().chars().collect();
    got.sort_unstable();
    assert_eq!((count, got), (1, vec!['a', 'b', 'c', 'd', 'd', 'd', 'd']));
    // The ordered variant: runs of heap values, sorted and folded in index order.
    let ordered = offshoot::accumulator::OrderedAccumulator::new(
        String::new(),
        |a: &mut String, x: String| a.push_str(&x),
    );
    p.run(|| {
        ordered.finish(|o| {
            join_with_stolen_b(|| o.put(0, "a".to_string()));
            std::thread::scope(|s| {
                s.spawn(|| o.put(5, "f".to_string()));
            });
            offshoot::par_for(1..5, |i| o.put(i, ["", "b", "c", "d", "e"][i].to_string()));
        })
    });
    assert_eq!(ordered.into_inner(), "abcdef");
    // Object-based sections on both workers: the table's entries come and go.
    let (x, y) = (1u8, 2u8);
    let hits = AtomicUsize::new(0);
    p.run(|| {
        offshoot::par_for(0..8, |i| {
            let bump = || {
                hits.fetch_add(1, Ordering::Relaxed);
            };
            if i % 2 == 0 {
                offshoot::isolated_on((&x, &y), bump);
            } else {
                offshoot::isolated_on(&y, bump);
            }
        })
    });
    assert_eq!(hits.into_inner(), 8);
    // A phase accumulator's partials live in the member's registration (a cast from the
    // boxed trait object back to its type) and are handed in at the signal.
    let ph = offshoot::phaser::Phaser::new();
    let acc =
        offshoot::phaser::PhaseAccumulator::new(&ph, String::new(), |a: &mut String, x: String| {
            a.push_str(&x)
        });
    let mut r = ph.register(offshoot::phaser::Mode::SigWait);
    acc.put(&mut r, "x".to_string());
    acc.put(&mut r, "y".to_string());
    r.next();
    assert_eq!(acc.get(0).as_deref(), Some("xy"));
}

/// A pool that measures work and span: a stolen join side writing its clock into the
/// joiner's frame, spawned tasks reporting to their finish, a loop's pieces, and a stamped
/// future value read through the stamp's layout.
#[test]
fn measuring_pools_are_sound() {
    let p = offshoot::ThreadPool::builder()
        .workers(2)
        .metrics(offshoot::metrics::Mode::Measured)
        .build()
        .unwrap();
    let got = p.run(|| {
        let stolen = join_with_stolen_b(|| fib(5));
        let f = offshoot::sync::spawn_future(|| vec![1u64, 2, 3]);
        let hits = AtomicUsize::new(0);
        offshoot::scope(|s| {
            for _ in 0..4 {
                s.spawn(|_| {
                    hits.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        let mut v = vec![0u64; 64];
        offshoot::par_for_each_mut(&mut v, |x| *x += 1);
        stolen + f.get().iter().sum::<u64>() + hits.into_inner() as u64 + v.iter().sum::<u64>()
    });
    assert_eq!(got, 5 + 6 + 4 + 64);
    let report = p.metrics().unwrap();
    assert!(report.rows()[0].work >= report.rows()[0].span);
}

/// `sync::Mutex` and `sync::Monitor` hand their data from holder to holder through the lock
/// word's acquire and release alone (no lock around the data): tasks of a pool, one of them
/// stolen, and a thread outside it contend, and the race detector checks every hand-over.
#[test]
fn mutex_and_monitor_hand_their_data_over() {
    use offshoot::sync::{Monitor, Mutex};
    use std::cell::Cell;
    const ROUNDS: u64 = 8;
    let m = Mutex::new(vec![0u64]);
    let mon = Monitor::new(Cell::new(0u64));
    let bump = || {
        for _ in 0..ROUNDS {
            m.lock()[0] += 1;
            let g = mon.enter();
            let inner = mon.enter(); // re-entry
            inner.set(g.get() + 1);
        }
    };
    std::thread::scope(|s| {
        // The outside thread only locks: it needs no `ExternalWaker` (the deadlock watch
        // reads a lock's holder), and its waits record it as blocked.
        s.spawn(bump);
        pool().run(|| join_with_stolen_b(|| offshoot::join(bump, bump)));
    });
    assert_eq!(m.into_inner()[0], 3 * ROUNDS);
    assert_eq!(mon.into_inner().get(), 3 * ROUNDS);
}

/// The reader-writer word's shares and write lock alone guard the data (no lock around
/// it): tasks of a pool, one of them stolen, and a thread outside it write and read, and
/// the race detector checks that every write is ordered before the reads that follow it
/// (it reports a data race when the fast paths' CAS and releases are made relaxed).
#[test]
fn rwlock_hands_its_data_over() {
    use offshoot::sync::RwLock;
    const ROUNDS: u64 = 8;
    let l = RwLock::new(vec![0u64, 0]);
    let work = || {
        for _ in 0..ROUNDS {
            {
                let mut w = l.write();
                w[0] += 1;
                w[1] += 2;
            }
            {
                let r = l.read();
                assert_eq!(r[1], 2 * r[0]);
            }
            // Let another participant in while the lock is free: hand-overs through the
            // fast paths alone (a contended one also synchronises through the wait lists).
            std::thread::yield_now();
        }
    };
    std::thread::scope(|s| {
        // The outside thread only locks: it needs no `ExternalWaker` (the deadlock watch
        // reads a lock's holder), and its waits record it as blocked.
        s.spawn(work);
        pool().run(|| join_with_stolen_b(|| offshoot::join(work, work)));
    });
    assert_eq!(l.into_inner(), [3 * ROUNDS, 6 * ROUNDS]);
}

/// `sync::Shared`'s reclamation: versions replaced while readers hold them (a read in
/// progress, a `Snapshot` kept across the writes and sent to another thread) are freed
/// only when their last holder lets go, by `arc-swap`'s protected loads and `Arc`'s count;
/// and an `opa::Fifo` moving boxed items between a task and a thread (the objects' wait
/// lists and their table).
#[test]
fn shared_versions_are_reclaimed_soundly() {
    use offshoot::sync::opa::Fifo;
    use offshoot::sync::Shared;
    const ROUNDS: u64 = 6;
    let s = Shared::new(vec![0u64, 0]);
    let kept = s.snapshot();
    let work = || {
        for _ in 0..ROUNDS {
            s.write(|v| {
                v[0] += 1;
                v[1] += 2;
            });
            let old = s.snapshot();
            s.read(|v| assert_eq!(v[1], 2 * v[0]));
            assert_eq!(old[1], 2 * old[0]);
            std::thread::yield_now();
        }
    };
    let q = Fifo::new(1);
    // The thread's puts wake the pool's consumer: the deadlock watch must know.
    let waker = offshoot::sync::ExternalWaker::new();
    std::thread::scope(|t| {
        t.spawn(work);
        t.spawn(|| (0..ROUNDS).for_each(|i| q.put(Box::new(i))));
        pool().run(|| {
            join_with_stolen_b(|| {
                offshoot::join(work, || (0..ROUNDS).map(|_| *q.get()).sum::<u64>())
            })
        });
    });
    drop(waker);
    assert_eq!(*kept, [0, 0]);
    assert_eq!(*s.snapshot(), [2 * ROUNDS, 4 * ROUNDS]);
    std::thread::scope(|t| {
        t.spawn(move || assert_eq!(*kept, [0, 0]));
    });
}

/// `sync::Object`'s call path: a write operation (a private copy committed as a new
/// version) racing read operations on a task, a stolen task and a thread, which hold the
/// versions they read while the writes replace them; a read operation suspended until the
/// first write restores it (callers parked on its queue and woken); and an exclusive
/// operation reading the current version under the writer lock.
#[test]
fn object_writes_race_reads_soundly() {
    use offshoot::sync::Object;
    const ROUNDS: u64 = 6;
    let mut b = Object::builder(vec![0u64, 0]).named("pair");
    let bump = b.op::<(), ()>("bump");
    let get = b.op::<(), u64>("get");
    let opened = b.op::<(), u64>("opened");
    let peek = b.op::<(), u64>("peek");
    b.write(bump, move |v, ()| {
        v[0] += 1;
        v[1] += 2;
        v.restore(opened);
    });
    b.read(get, |v, ()| {
        assert_eq!(v[1], 2 * v[0], "a torn read");
        v[0]
    });
    b.read(opened, |v, ()| {
        assert!(v[0] > 0, "ran before the write that restores it");
        v[0]
    });
    b.exclusive(peek, |v, ()| {
        assert_eq!(v[1], 2 * v[0], "a torn state under the writer lock");
        v[0]
    });
    b.suspended(opened);
    let o = b.build();
    let work = || {
        let mut last = 0;
        for _ in 0..ROUNDS {
            o.call(bump, ());
            let now = o.call(get, ());
            assert!(now >= last, "a read went back to an older version");
            last = now;
            assert!(o.call(opened, ()) > 0);
            assert!(
                o.call(peek, ()) >= last,
                "an exclusive saw an older version"
            );
            std::thread::yield_now();
        }
    };
    // The thread's first write may restore `opened` for a parked task: the deadlock watch
    // must know that a thread outside the pool can still wake it.
    let waker = offshoot::sync::ExternalWaker::new();
    std::thread::scope(|t| {
        t.spawn(work);
        pool().run(|| join_with_stolen_b(|| offshoot::join(work, || o.call(opened, ()))));
    });
    drop(waker);
    assert_eq!(*o.snapshot(), [2 * ROUNDS, 4 * ROUNDS]);
}
