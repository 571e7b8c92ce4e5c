//! `offshoot::spawn` is rayon's `spawn`: detached everywhere. Inside a pool it starts the
//! task in *that* pool (the calling worker's), outside every pool in the global pool, and
//! nothing waits for it — not `install`, `run`, `scope` or `finish` around the call. Its
//! panic goes to the pool's panic handler. offshoot's own spawn, the one a finish waits
//! for, is `offshoot::finish::spawn`, and it still joins.
//!
//! Every "did not wait" check is deterministic: the spawned task blocks on a std channel
//! (or condition variable) that the test releases only after the call that would have
//! waited for it returned, so a runtime that waited would never return (the test then
//! fails on a bounded wait, with a message). No timing, no sleeps.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use common::bounded;
use offshoot::{ThreadPool, ThreadPoolBuilder};

/// The bound on every wait of these tests: far longer than a correct runtime needs.
const BOUND: Duration = Duration::from_secs(60);

/// A gate the spawned task waits at, and the channel it reports on once through.
struct Gate {
    open: Sender<()>,
    done: Receiver<Option<usize>>,
}

/// A task that waits until the gate opens, then reports the worker index it ran on.
fn gated_task() -> (Gate, impl FnOnce() + Send + 'static) {
    let (open, wait) = mpsc::channel::<()>();
    let (report, done) = mpsc::channel();
    let task = move || {
        wait.recv_timeout(BOUND)
            .expect("the gate was never opened: the caller did not return while the task waited");
        report.send(offshoot::current_thread_index()).unwrap();
    };
    (Gate { open, done }, task)
}

impl Gate {
    /// Checks the task has not finished, opens the gate, and returns where the task ran.
    fn release(self) -> Option<usize> {
        assert!(
            matches!(self.done.try_recv(), Err(TryRecvError::Empty)),
            "the task finished before its gate opened"
        );
        self.open.send(()).unwrap();
        self.done
            .recv_timeout(BOUND)
            .expect("the spawned task never finished after its gate opened")
    }
}

#[test]
fn install_returns_before_the_spawned_task_finishes() {
    bounded(|| {
        for n in [1, 2, 3] {
            let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
            let (gate, task) = gated_task();
            let v = pool.install(|| {
                offshoot::spawn(task);
                7
            });
            // `install` returned `op`'s value while the task still waits at its gate.
            assert_eq!(v, 7);
            let ran_on = gate.release();
            assert!(
                ran_on.is_some_and(|i| i < n),
                "{n} threads: ran on {ran_on:?}"
            );
        }
    })
}

#[test]
fn no_construct_around_a_spawn_waits_for_it() {
    bounded(|| {
        let pool = ThreadPool::builder().workers(2).build().unwrap();
        let (gate, task) = gated_task();
        pool.run(|| offshoot::spawn(task));
        gate.release();
        let (gate, task) = gated_task();
        pool.scope(|_| offshoot::spawn(task));
        gate.release();
        let (gate, task) = gated_task();
        pool.install(|| offshoot::finish(|| offshoot::spawn(task)));
        gate.release();
        let (gate, task) = gated_task();
        pool.install(|| offshoot::scope_fifo(|_| offshoot::spawn_fifo(task)));
        gate.release();
        // Outside every pool: the global pool's `finish`.
        let (gate, task) = gated_task();
        offshoot::finish(|| offshoot::spawn(task));
        gate.release();
    })
}

/// The hang of a ported program: the spawned task waits for something the caller does only
/// after `install` returned. rayon runs it; so must offshoot.
#[test]
fn a_task_that_waits_for_the_caller_after_install_completes() {
    bounded(|| {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let shared = Arc::new((Mutex::new(None::<u32>), Condvar::new()));
        let (done_tx, done_rx) = mpsc::channel();
        let s = shared.clone();
        pool.install(move || {
            offshoot::spawn(move || {
                let (lock, cv) = &*s;
                let (v, timeout) = cv
                    .wait_timeout_while(lock.lock().unwrap(), BOUND, |v| v.is_none())
                    .unwrap();
                assert!(!timeout.timed_out(), "the caller's value never came");
                done_tx.send(v.unwrap() * 2).unwrap();
            });
        });
        // What the task waits for, done after `install` returned.
        let (lock, cv) = &*shared;
        *lock.lock().unwrap() = Some(21);
        cv.notify_all();
        let got = done_rx
            .recv_timeout(BOUND)
            .expect("the spawned task never completed");
        assert_eq!(got, 42);
    })
}

#[test]
fn spawn_inside_a_pool_runs_on_that_pool() {
    bounded(|| {
        let pool = ThreadPoolBuilder::new()
            .num_threads(3)
            .thread_name(|i| format!("rayon-spawn-test-{i}"))
            .build()
            .unwrap();
        let other = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let pool = Arc::new(pool);
        let check = |via: &str, spawn_it: &dyn Fn(Box<dyn FnOnce() + Send>)| {
            let (open, wait) = mpsc::channel::<()>();
            let (report, done) = mpsc::channel();
            let p = pool.clone();
            spawn_it(Box::new(move || {
                wait.recv_timeout(BOUND).expect("the gate was never opened");
                report
                    .send((
                        std::thread::current().name().map(str::to_string),
                        offshoot::current_thread_index(),
                        p.current_thread_index(),
                    ))
                    .unwrap();
            }));
            open.send(()).unwrap();
            let (name, index, in_pool) = done
                .recv_timeout(BOUND)
                .unwrap_or_else(|_| panic!("{via}: the task never ran"));
            let i = index.unwrap_or_else(|| panic!("{via}: ran on no worker"));
            assert!(i < 3, "{via}: index {i}");
            assert_eq!(in_pool, Some(i), "{via}: not a worker of the pool");
            assert_eq!(
                name.as_deref(),
                Some(&*format!("rayon-spawn-test-{i}")),
                "{via}: ran on another thread"
            );
        };
        check("install", &|f| pool.install(|| offshoot::spawn(f)));
        check("spawn_fifo", &|f| pool.install(|| offshoot::spawn_fifo(f)));
        // From a task of the pool that a detached task started, and from deep in a join.
        check("a detached task", &|f| {
            let (tx, rx) = mpsc::channel();
            pool.spawn(move || {
                offshoot::spawn(f);
                tx.send(()).unwrap();
            });
            rx.recv_timeout(BOUND).expect("the detached task never ran");
        });
        check("a join", &|f| {
            pool.install(|| offshoot::join(|| (), || offshoot::join(|| offshoot::spawn(f), || ())));
        });
        // From this pool's worker inside another pool's `install`: the other pool's.
        let (gate, task) = gated_task();
        pool.install(|| other.install(|| offshoot::spawn(task)));
        let ran_on = gate.release();
        assert!(ran_on.is_some_and(|i| i < 2));
    })
}

#[test]
fn a_panic_of_a_spawn_inside_a_pool_goes_to_that_pools_handler() {
    bounded(|| {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let pool = ThreadPoolBuilder::new()
            .num_threads(2)
            .panic_handler(move |p| {
                let msg = p.downcast_ref::<&str>().copied().unwrap_or("?").to_string();
                tx.lock().unwrap().send(msg).unwrap();
            })
            .build()
            .unwrap();
        let (open, wait) = mpsc::channel::<()>();
        // `install` does not see the panic: nothing waits for the task.
        let v = pool.install(move || {
            offshoot::spawn(move || {
                wait.recv_timeout(BOUND).expect("the gate was never opened");
                panic!("expected: a detached spawn panics");
            });
            5
        });
        assert_eq!(v, 5);
        open.send(()).unwrap();
        let msg = rx
            .recv_timeout(BOUND)
            .expect("the panic handler was never called");
        assert_eq!(msg, "expected: a detached spawn panics");
        // The pool still works.
        assert_eq!(pool.install(|| offshoot::join(|| 1, || 2)), (1, 2));
    })
}

#[test]
fn the_finish_spawn_still_joins() {
    bounded(|| {
        for n in [1, 2, 3] {
            let pool = ThreadPool::builder().workers(n).build().unwrap();
            let hits = Arc::new(AtomicUsize::new(0));
            // `run` (and its rayon name `install`) is a finish: it waits for them.
            let h = hits.clone();
            pool.install(move || {
                for _ in 0..50 {
                    let h = h.clone();
                    offshoot::finish::spawn(move || {
                        let h2 = h.clone();
                        offshoot::finish::spawn(move || {
                            h2.fetch_add(1, Ordering::SeqCst);
                        });
                        h.fetch_add(1, Ordering::SeqCst);
                    });
                }
            });
            assert_eq!(hits.load(Ordering::SeqCst), 100, "install, {n} workers");
            let h = hits.clone();
            pool.run(|| {
                offshoot::finish(|| {
                    for _ in 0..50 {
                        let h = h.clone();
                        offshoot::finish::spawn(move || {
                            h.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                });
                assert_eq!(h.load(Ordering::SeqCst), 150, "finish, {n} workers");
            });
            let r: Result<(), u32> = pool.run(|| {
                offshoot::try_finish(|| {
                    for i in 0..10u32 {
                        offshoot::finish::try_spawn(move || if i == 4 { Err(i) } else { Ok(()) });
                    }
                    Ok(())
                })
            });
            assert_eq!(r, Err(4), "try_finish, {n} workers");
        }
    })
}

/// rayon's pattern of an `install` body that spawns producers and then blocks its thread in
/// a std `recv`: the detached tasks wait in the pool's shared queue, so another worker runs
/// them (as rayon's other threads would).
#[test]
fn an_install_body_blocked_in_std_recv_gets_its_spawned_producers_run() {
    bounded(|| {
        for n in [2, 3] {
            let pool = ThreadPoolBuilder::new().num_threads(n).build().unwrap();
            let mut got: Vec<u32> = pool.install(|| {
                let (tx, rx) = mpsc::channel();
                for i in 0..5u32 {
                    let tx = tx.clone();
                    offshoot::spawn(move || tx.send(i).unwrap());
                }
                (0..5)
                    .map(|_| {
                        rx.recv_timeout(BOUND)
                            .expect("a spawned producer never ran while install blocked")
                    })
                    .collect()
            });
            got.sort_unstable();
            assert_eq!(got, [0, 1, 2, 3, 4], "{n} threads");
        }
    })
}
