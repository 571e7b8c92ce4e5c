//! rayon's pool and free-function surface, checked against rayon's documented behaviour
//! with the code written as a rayon user would (only the import changed): the builder and
//! its handlers, `install`, `current_num_threads`, `current_thread_index`, detached
//! `spawn` (on a pool, and outside every pool on the global one), `yield_now`,
//! `join_context`, `in_place_scope`, and the pool's `join` / `scope`.

mod common;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use common::{bounded, PATIENCE};
use offshoot as rayon;
use rayon::{BuildError, ThreadPoolBuilder};

#[test]
fn num_threads_sets_the_size_and_zero_picks_automatically() {
    bounded(|| {
        for n in [1, 2, 3, 5] {
            let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
            assert_eq!(pool.current_num_threads(), n);
            assert_eq!(pool.install(rayon::current_num_threads), n);
        }
        let count = |k: &str| std::env::var(k).ok().and_then(|v| v.trim().parse().ok());
        let auto = match (count(rayon::WORKERS_ENV), count("RAYON_NUM_THREADS")) {
            (Some(n), _) | (None, Some(n)) if n > 0 => n,
            _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let pool = ThreadPoolBuilder::new().num_threads(0).build().unwrap();
        assert_eq!(pool.current_num_threads(), auto);
        let pool = ThreadPoolBuilder::new().build().unwrap();
        assert_eq!(pool.current_num_threads(), auto);
        // offshoot's own builder keeps its clear error for zero.
        assert!(matches!(
            rayon::ThreadPool::builder().workers(0).build(),
            Err(BuildError::ZeroWorkers)
        ));
        let too_many = rayon::max_num_threads() + 1;
        let e = ThreadPoolBuilder::new()
            .num_threads(too_many)
            .build()
            .unwrap_err();
        assert!(matches!(e, BuildError::TooManyWorkers { requested } if requested == too_many));
    })
}

#[test]
fn handlers_run_once_per_thread_with_its_index_and_name() {
    bounded(|| {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let exited = Arc::new(Mutex::new(BTreeSet::new()));
        let (s, e) = (seen.clone(), exited.clone());
        let pool = ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(|i| format!("compat-{i}"))
            .start_handler(move |i| {
                let name = std::thread::current().name().map(str::to_string);
                s.lock().unwrap().push((i, name));
            })
            .exit_handler(move |i| {
                assert!(e.lock().unwrap().insert(i), "exit handler twice for {i}");
            })
            .build()
            .unwrap();
        assert_eq!(pool.install(|| 6 * 7), 42);
        pool.shutdown(); // joins every worker: every start and exit handler has run
        let mut seen = seen.lock().unwrap().clone();
        seen.sort();
        let want: Vec<_> = (0..3).map(|i| (i, Some(format!("compat-{i}")))).collect();
        assert_eq!(seen, want);
        assert_eq!(*exited.lock().unwrap(), (0..3).collect::<BTreeSet<_>>());
    })
}

/// A panic handler that forwards the message of each panic it gets.
fn forwarding_pool(n: usize) -> (rayon::ThreadPool, mpsc::Receiver<String>) {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let pool = ThreadPoolBuilder::new()
        .num_threads(n)
        .panic_handler(move |p| {
            let msg = common::payload_str(&*p).unwrap_or("?").to_string();
            let _ = tx.lock().unwrap().send(msg);
        })
        .build()
        .unwrap();
    (pool, rx)
}

#[test]
fn a_detached_panic_goes_to_the_panic_handler() {
    bounded(|| {
        let (pool, panics) = forwarding_pool(2);
        pool.spawn(|| common::boom("detached"));
        let msg = panics
            .recv_timeout(PATIENCE)
            .expect("the handler got nothing");
        assert_eq!(msg, common::boom_msg("detached"));
        // The pool goes on working.
        assert_eq!(pool.install(|| rayon::join(|| 1, || 2)), (1, 2));
        // A panic under install resumes in the caller, not in the handler.
        let msg = common::panic_message(|| pool.install(|| common::boom("install")));
        assert_eq!(msg, common::boom_msg("install"));
        drop(pool);
        assert!(
            panics.try_recv().is_err(),
            "install's panic reached the handler"
        );
    })
}

#[test]
fn a_start_handler_panic_goes_to_the_panic_handler() {
    bounded(|| {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .start_handler(|i| {
                if i == 1 {
                    common::boom("start");
                }
            })
            .panic_handler(move |p| {
                let msg = common::payload_str(&*p).unwrap_or("?").to_string();
                tx.lock().unwrap().send(msg).unwrap();
            })
            .build()
            .unwrap();
        assert_eq!(
            rx.recv_timeout(PATIENCE).unwrap(),
            common::boom_msg("start")
        );
        // The worker started anyway.
        assert_eq!(pool.install(|| rayon::join(|| 3, || 4)), (3, 4));
    })
}

#[test]
fn pool_spawn_is_detached_and_every_task_runs() {
    bounded(|| {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (tx, rx) = mpsc::channel();
        for i in 0..1000 {
            let tx = tx.clone();
            pool.spawn(move || tx.send(i).unwrap());
        }
        drop(tx);
        let mut got: Vec<i32> = (0..1000)
            .map(|_| rx.recv_timeout(PATIENCE).expect("a spawned task never ran"))
            .collect();
        got.sort();
        assert_eq!(got, (0..1000).collect::<Vec<_>>());

        // Spawned from inside the pool, it is still not joined by `install`: the task waits
        // for a message sent after `install` returned.
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        pool.install(|| {
            pool.spawn(move || {
                go_rx.recv().unwrap();
                done_tx.send(()).unwrap();
            })
        });
        go_tx.send(()).unwrap();
        done_rx
            .recv_timeout(PATIENCE)
            .expect("the detached task never finished");
    })
}

#[test]
fn a_dropped_pool_runs_its_detached_tasks_first() {
    bounded(|| {
        let ran = Arc::new(AtomicUsize::new(0));
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        for _ in 0..50 {
            let ran = ran.clone();
            pool.spawn(move || {
                ran.fetch_add(1, Ordering::SeqCst);
            });
        }
        // The drop returns at once (as rayon's); the queued tasks still run, then the
        // worker exits.
        drop(pool);
        let start = std::time::Instant::now();
        while ran.load(Ordering::SeqCst) < 50 && start.elapsed() < PATIENCE {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(
            ran.load(Ordering::SeqCst) == 50,
            "the dropped pool ran {} of its 50 detached tasks",
            ran.load(Ordering::SeqCst)
        );
    })
}

#[test]
fn spawn_outside_every_pool_runs_on_the_global_pool() {
    bounded(|| {
        let (tx, rx) = mpsc::channel();
        rayon::spawn(move || {
            // Inside the detached task (a worker of the global pool), `spawn` detaches too,
            // as in rayon: nothing waits for these, not even the scope around them.
            rayon::scope(|_| {
                for _ in 0..10 {
                    let tx = tx.clone();
                    rayon::spawn(move || tx.send(rayon::current_thread_index()).unwrap());
                }
            });
            tx.send(rayon::current_thread_index()).unwrap();
        });
        for _ in 0..11 {
            let index = rx.recv_timeout(PATIENCE).expect("a spawn never ran");
            assert!(index.is_some_and(|i| i < rayon::ThreadPool::global().workers()));
        }
    })
}

#[test]
fn current_thread_index_inside_and_outside_pools() {
    bounded(|| {
        assert_eq!(rayon::current_thread_index(), None);
        let a = ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let b = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        assert_eq!(a.current_thread_index(), None);
        let seen = Mutex::new(BTreeSet::new());
        a.install(|| {
            rayon::scope(|s| {
                for _ in 0..64 {
                    s.spawn(|_| {
                        let i = rayon::current_thread_index().expect("in a pool");
                        assert_eq!(a.current_thread_index(), Some(i));
                        assert!(i < 3);
                        seen.lock().unwrap().insert(i);
                    });
                }
            });
            // From a worker of `a`, `b` knows no index; inside `b`, `b`'s own.
            assert_eq!(b.current_thread_index(), None);
            let inner = b.install(|| (rayon::current_thread_index(), rayon::current_num_threads()));
            assert!(matches!(inner, (Some(0 | 1), 2)));
        });
        assert!(!seen.lock().unwrap().is_empty());
        assert_eq!(
            rayon::current_num_threads(),
            rayon::ThreadPool::global().workers()
        );
    })
}

#[test]
fn yield_now_outside_and_inside() {
    bounded(|| {
        assert_eq!(rayon::yield_now(), None);
        let pool = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(pool.yield_now(), None);
        let ran = Arc::new(AtomicUsize::new(0));
        let r = ran.clone();
        let (first, second) = pool.install(|| {
            // The only worker is busy here: the detached task waits in the pool until this
            // worker yields to it.
            pool.spawn(move || {
                r.fetch_add(1, Ordering::SeqCst);
            });
            (rayon::yield_now(), pool.yield_now())
        });
        assert_eq!(first, Some(rayon::Yield::Executed));
        assert_eq!(second, Some(rayon::Yield::Idle));
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    })
}

#[test]
fn join_context_tells_whether_a_closure_migrated() {
    bounded(|| {
        let one = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (a, b) = one.install(|| rayon::join_context(|c| c.migrated(), |c| c.migrated()));
        assert!(!a && !b, "nothing can migrate in a pool of one");
        let (a, b) = rayon::join_context(|c| c.migrated(), |c| c.migrated());
        assert!(a && b, "called from outside, both run on other threads");
        // On two workers: a closure migrated exactly when it runs on another thread.
        let two = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        two.install(|| {
            for _ in 0..200 {
                let me = rayon::current_thread_index();
                let (a, b) = rayon::join_context(
                    |c| (c.migrated(), rayon::current_thread_index()),
                    |c| (c.migrated(), rayon::current_thread_index()),
                );
                assert_eq!(a, (false, me));
                assert_eq!(b.0, b.1 != me);
            }
        });
    })
}

#[test]
fn in_place_scope_and_the_pools_join_and_scope() {
    bounded(|| {
        let mut v = vec![1u64, 2, 3, 4];
        rayon::in_place_scope(|s| {
            for x in v.iter_mut() {
                s.spawn(move |_| *x *= 10);
            }
        });
        assert_eq!(v, [10, 20, 30, 40]);
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let (a, b) = pool.join(rayon::current_thread_index, || 5);
        assert!(a.is_some());
        assert_eq!(b, 5);
        let total = AtomicUsize::new(0);
        pool.scope(|s| {
            for i in 0..100 {
                let total = &total;
                s.spawn(move |_| {
                    total.fetch_add(i, Ordering::Relaxed);
                });
            }
        });
        assert_eq!(total.into_inner(), 4950);
        let in_pool = pool.install(|| rayon::in_place_scope(|_| rayon::current_thread_index()));
        assert!(
            in_pool.is_some(),
            "in_place_scope inside a pool runs on its worker"
        );
    })
}

#[test]
fn the_pools_in_place_scope_runs_its_tasks_in_that_pool() {
    bounded(|| {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let mut seen = [None; 3];
        let p = &pool;
        pool.in_place_scope(|s| {
            for slot in seen.iter_mut() {
                s.spawn(move |_| *slot = p.current_thread_index());
            }
        });
        assert!(
            seen.iter().all(|i| matches!(i, Some(i) if *i < 2)),
            "{seen:?}"
        );
    })
}

/// Code that names rayon's iterator types (a field, a return type) compiles with only the
/// import changed, and the types are what the methods return.
#[test]
fn rayons_type_paths_name_what_the_sources_return() {
    use rayon::prelude::*;
    struct Holder<'a> {
        owned: rayon::vec::IntoIter<u32>,
        range: rayon::range::Iter<u64>,
        inclusive: rayon::range_inclusive::Iter<i32>,
        slice: rayon::slice::Iter<'a, u32>,
    }
    fn doubled(v: &mut [u32]) -> rayon::slice::IterMut<'_, u32> {
        v.par_iter_mut()
    }
    bounded(|| {
        let v = vec![1u32, 2, 3];
        let h = Holder {
            owned: vec![4u32, 5].into_par_iter(),
            range: (0..10u64).into_par_iter(),
            inclusive: (-2..=2).into_par_iter(),
            slice: v.par_iter(),
        };
        assert_eq!(h.owned.sum::<u32>(), 9);
        assert_eq!(h.range.sum::<u64>(), 45);
        assert_eq!(h.inclusive.sum::<i32>(), 0);
        assert_eq!(h.slice.sum::<u32>(), 6);
        let mut w = vec![1u32, 2];
        doubled(&mut w).for_each(|x| *x *= 2);
        assert_eq!(w, [2, 4]);
        let mut d = vec![1u32, 2, 3, 4];
        let drained: rayon::vec::Drain<'_, u32> = d.par_drain(1..3);
        assert_eq!(drained.collect::<Vec<_>>(), [2, 3]);
        assert_eq!(d, [1, 4]);
    })
}

#[test]
fn a_cow_collects_its_owned_form() {
    use rayon::prelude::*;
    use std::borrow::Cow;
    bounded(|| {
        let c: Cow<'_, [u32]> = (0..5u32).into_par_iter().collect();
        assert!(matches!(c, Cow::Owned(_)));
        assert_eq!(&*c, &[0, 1, 2, 3, 4]);
        let s: Cow<'_, str> = ["a", "b", "c"].par_iter().copied().collect();
        assert_eq!(s, "abc");
    })
}

/// The two rayon patterns that hang when their tasks block their threads in `std::sync`
/// (lib.rs, "A worker that blocks its thread gives nothing away") finish when they wait
/// with `offshoot::sync`: scope tasks meeting at a barrier, and a body that spawns
/// producers and then receives from them (here detached ones, which a std `recv` would not
/// hang on either: `tests/rayon_spawn.rs`).
#[test]
#[cfg(feature = "sync")]
fn tasks_that_wait_on_each_other_through_offshoot_sync_finish() {
    bounded(|| {
        for n in [2, 3, 4] {
            let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
            let barrier = rayon::sync::Barrier::new(n);
            let leaders = AtomicUsize::new(0);
            pool.install(|| {
                rayon::scope(|s| {
                    for _ in 0..n {
                        s.spawn(|_| {
                            if barrier.wait().is_leader() {
                                leaders.fetch_add(1, Ordering::Relaxed);
                            }
                        });
                    }
                })
            });
            assert_eq!(leaders.into_inner(), 1, "{n} tasks at a barrier");
            let got: BTreeSet<u32> = pool.install(|| {
                let (tx, rx) = rayon::sync::unbounded();
                for i in 0..5u32 {
                    let tx = tx.clone();
                    rayon::spawn(move || tx.send(i).unwrap());
                }
                drop(tx);
                rx.iter().collect()
            });
            assert_eq!(got, (0..5).collect::<BTreeSet<_>>(), "{n} workers");
        }
    })
}

/// rayon's `spawn_handler`: the handler starts each worker's thread itself (here std
/// threads it names and keeps), each index comes once, the pool works, and dropping the
/// pool waits for the workers to leave (the exit handler has run for each).
#[test]
fn a_spawn_handler_starts_every_worker_thread() {
    bounded(|| {
        for n in [1, 2, 3] {
            let indices = Arc::new(Mutex::new(Vec::new()));
            let handles = Arc::new(Mutex::new(Vec::new()));
            let exited = Arc::new(AtomicUsize::new(0));
            let (i2, h2, e2) = (indices.clone(), handles.clone(), exited.clone());
            let pool = ThreadPoolBuilder::new()
                .num_threads(n)
                .thread_name(|i| format!("named-{i}"))
                .stack_size(1 << 20)
                .exit_handler(move |_| {
                    e2.fetch_add(1, Ordering::SeqCst);
                })
                .spawn_handler(move |thread| {
                    assert_eq!(thread.name(), Some(&*format!("named-{}", thread.index())));
                    assert_eq!(thread.stack_size(), Some(1 << 20));
                    i2.lock().unwrap().push(thread.index());
                    let h = std::thread::Builder::new()
                        .name(format!("custom-{}", thread.index()))
                        .spawn(|| thread.run())?;
                    h2.lock().unwrap().push(h);
                    Ok(())
                })
                .build()
                .unwrap();
            assert_eq!(*indices.lock().unwrap(), (0..n).collect::<Vec<_>>());
            use rayon::prelude::*;
            let sum: u64 = pool.install(|| (0..10_000u64).into_par_iter().map(|x| x * 3).sum());
            assert_eq!(sum, 3 * (0..10_000u64).sum::<u64>(), "{n} threads");
            let names: BTreeSet<String> = pool
                .broadcast(|_| std::thread::current().name().unwrap().to_owned())
                .into_iter()
                .collect();
            let want: BTreeSet<String> = (0..n).map(|i| format!("custom-{i}")).collect();
            assert_eq!(names, want, "the handler's threads run the workers");
            pool.shutdown();
            assert_eq!(
                exited.load(Ordering::SeqCst),
                n,
                "shutdown waits for the workers"
            );
            for h in handles.lock().unwrap().drain(..) {
                h.join().unwrap();
            }
        }
    })
}

/// A spawn handler that fails for one thread fails the build with its error, after the
/// workers already started have left; one that drops its `ThreadBuilder` unrun fails the
/// build too (instead of leaving it waiting for that worker), and so does one that runs it
/// on a thread that is a worker already.
#[test]
fn a_spawn_handler_that_does_not_start_a_worker_fails_the_build() {
    bounded(|| {
        let exited = Arc::new(AtomicUsize::new(0));
        let e2 = exited.clone();
        let err = ThreadPoolBuilder::new()
            .num_threads(3)
            .exit_handler(move |_| {
                e2.fetch_add(1, Ordering::SeqCst);
            })
            .spawn_handler(|thread| {
                if thread.index() == 2 {
                    return Err(std::io::Error::other("no more threads today"));
                }
                std::thread::spawn(|| thread.run());
                Ok(())
            })
            .build()
            .unwrap_err();
        assert!(matches!(&err, BuildError::Spawn(e) if e.to_string() == "no more threads today"));
        assert_eq!(
            exited.load(Ordering::SeqCst),
            2,
            "the started workers left first"
        );

        let err = ThreadPoolBuilder::new()
            .num_threads(2)
            .spawn_handler(|thread| {
                if thread.index() == 0 {
                    std::thread::spawn(|| thread.run());
                }
                Ok(()) // drops worker 1's body
            })
            .build()
            .unwrap_err();
        assert!(
            matches!(&err, BuildError::WorkerStart { worker: 1, reason } if reason.contains("without being run")),
            "{err}"
        );

        let host = ThreadPoolBuilder::new()
            .num_threads(1)
            .panic_handler(|_| {})
            .build()
            .unwrap();
        let err = ThreadPoolBuilder::new()
            .num_threads(1)
            .spawn_handler(|thread| {
                host.spawn(|| thread.run()); // on a worker of `host`: refused
                Ok(())
            })
            .build()
            .unwrap_err();
        assert!(
            matches!(&err, BuildError::WorkerStart { worker: 0, reason } if reason.contains("already runs a worker")),
            "{err}"
        );
    })
}

thread_local! {
    static SET_BY_WRAPPER: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// rayon's `build_scoped`: the workers are scoped threads that borrow from the caller and
/// run the wrapper around the worker (which sets thread-local state the tasks see); the
/// result of `with_pool` comes back, and every thread has ended when it returns, also when
/// `with_pool` panics.
#[test]
fn build_scoped_runs_the_workers_in_scoped_threads() {
    bounded(|| {
        for n in [1, 2, 3] {
            let wrapped = AtomicUsize::new(0);
            let left = AtomicUsize::new(0);
            let got = ThreadPoolBuilder::new()
                .num_threads(n)
                .build_scoped(
                    |thread| {
                        let k = wrapped.fetch_add(1, Ordering::SeqCst) + 1;
                        SET_BY_WRAPPER.with(|c| c.set(k));
                        thread.run();
                        left.fetch_add(1, Ordering::SeqCst);
                    },
                    |pool| {
                        let seen: BTreeSet<usize> = pool
                            .broadcast(|_| SET_BY_WRAPPER.with(|c| c.get()))
                            .into_iter()
                            .collect();
                        (seen, pool.install(|| rayon::join(|| 20, || 22)))
                    },
                )
                .unwrap();
            assert_eq!(
                got.0,
                (1..=n).collect(),
                "every worker ran inside the wrapper"
            );
            assert_eq!(got.1, (20, 22));
            assert_eq!(
                left.load(Ordering::SeqCst),
                n,
                "every thread ended before the return"
            );
        }
        let left = AtomicUsize::new(0);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ThreadPoolBuilder::new().num_threads(2).build_scoped(
                |thread| {
                    thread.run();
                    left.fetch_add(1, Ordering::SeqCst);
                },
                |pool| pool.install(|| panic!("with_pool failed")),
            )
        }));
        assert!(r.is_err());
        assert_eq!(left.load(Ordering::SeqCst), 2);
    })
}
