//! Package requests (`offshoot::export`): another process's agent asks a pool for work, and
//! the oldest block with an exporter answers at its owner's next poll.
#![cfg(feature = "search")]

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use offshoot::export::Answer;
use offshoot::search::State;
use offshoot::ThreadPool;

const LONG: Duration = Duration::from_secs(60);

/// Asks `pool` for a package once `started` is set, and returns the answer.
fn agent(pool: &ThreadPool, started: &AtomicBool) -> Answer {
    while !started.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    let mut req = pool.request_package();
    req.wait(LONG)
}

/// Polls until `until` holds (bounded: panics after a long time, so a lost request fails).
fn poll_until(until: impl Fn() -> bool) {
    let end = std::time::Instant::now() + LONG;
    while !until() {
        offshoot::poll();
        assert!(
            std::time::Instant::now() < end,
            "a package request was never answered"
        );
        std::thread::yield_now();
    }
}

#[test]
fn an_idle_pool_answers_nothing_at_once() {
    let pool = ThreadPool::builder().workers(2).build().unwrap();
    let mut req = pool.request_package();
    assert_eq!(req.wait(LONG), Answer::Nothing);
}

#[test]
#[should_panic(expected = "already taken")]
fn an_answer_is_taken_once() {
    let pool = ThreadPool::builder().workers(1).build().unwrap();
    let mut req = pool.request_package();
    assert_eq!(req.wait(LONG), Answer::Nothing);
    req.try_answer();
}

#[test]
fn the_oldest_exporter_answers_with_its_state_as_on_entry() {
    let pool = ThreadPool::builder().workers(1).build().unwrap();
    let started = AtomicBool::new(false);
    std::thread::scope(|s| {
        let a = s.spawn(|| agent(&pool, &started));
        let seen = pool.run(|| {
            let st = State::new(vec![1u8]);
            let asked = Cell::new(None::<Vec<u8>>);
            let inner_asked = Cell::new(false);
            let ((), _): ((), Vec<()>) = st.handle_with_export(
                || {
                    st.with(|v| v.push(2));
                    st.undo_redo(
                        || {
                            let ((), _): ((), Vec<()>) = st.handle_with_export(
                                || {
                                    started.store(true, Ordering::Release);
                                    poll_until(|| {
                                        asked.take().map(|v| asked.set(Some(v))).is_some()
                                    });
                                },
                                |_, r| r.decline(),
                                |_| {
                                    inner_asked.set(true);
                                    Some(b"inner".to_vec())
                                },
                            );
                        },
                        |v| {
                            v.pop();
                        },
                        |v| v.push(2),
                    );
                    st.with(|v| v.pop());
                },
                |_, r| r.decline(),
                |v| {
                    // The state as this block saw it on entry: the push of 2 is rolled back.
                    asked.set(Some(v.clone()));
                    Some(b"outer".to_vec())
                },
            );
            assert!(!inner_asked.get(), "the younger exporter was asked");
            asked.take().unwrap()
        });
        assert_eq!(seen, vec![1]);
        assert_eq!(a.join().unwrap(), Answer::Package(b"outer".to_vec()));
    });
}

#[test]
fn a_declining_exporter_passes_the_request_to_the_next_younger() {
    let pool = ThreadPool::builder().workers(1).build().unwrap();
    let started = AtomicBool::new(false);
    std::thread::scope(|s| {
        let a = s.spawn(|| agent(&pool, &started));
        pool.run(|| {
            let st = State::new(());
            let outer = Cell::new(false);
            let done = Cell::new(false);
            let ((), _): ((), Vec<()>) = st.handle_with_export(
                || {
                    let inner = State::new(7u32);
                    let ((), _): ((), Vec<()>) = inner.handle_with_export(
                        || {
                            // A join seed and a plain handler between: neither can package.
                            let ((), _): ((), Vec<()>) = offshoot::search::handle(
                                || {
                                    started.store(true, Ordering::Release);
                                    poll_until(|| done.get());
                                },
                                |r| r.decline(),
                            );
                        },
                        |_, r| r.decline(),
                        |x| {
                            done.set(true);
                            Some(x.to_le_bytes().to_vec())
                        },
                    );
                },
                |_, r| r.decline(),
                |_| {
                    outer.set(true);
                    None
                },
            );
            assert!(outer.get(), "the oldest exporter was asked first");
        });
        assert_eq!(
            a.join().unwrap(),
            Answer::Package(7u32.to_le_bytes().to_vec())
        );
    });
}

#[test]
fn a_busy_worker_without_an_exporter_passes_the_request_on() {
    // Two jobs at once: one without an exporter, one with. Whichever worker is asked first,
    // the package comes from the one that can give it. Repeated so that both starts occur.
    let pool = ThreadPool::builder().workers(2).build().unwrap();
    for _ in 0..20 {
        let started = AtomicBool::new(false);
        let exported = Arc::new(AtomicBool::new(false));
        let b_ready = AtomicBool::new(false);
        std::thread::scope(|s| {
            let a = s.spawn(|| agent(&pool, &started));
            s.spawn(|| {
                pool.run(|| {
                    b_ready.store(true, Ordering::Release);
                    poll_until(|| exported.load(Ordering::Acquire));
                })
            });
            s.spawn(|| {
                pool.run(|| {
                    let st = State::new(());
                    let ((), _): ((), Vec<()>) = st.handle_with_export(
                        || {
                            while !b_ready.load(Ordering::Acquire) {
                                std::thread::yield_now();
                            }
                            started.store(true, Ordering::Release);
                            poll_until(|| exported.load(Ordering::Acquire));
                        },
                        |_, r| r.decline(),
                        |_| {
                            exported.store(true, Ordering::Release);
                            Some(vec![42])
                        },
                    );
                })
            });
            assert_eq!(a.join().unwrap(), Answer::Package(vec![42]));
        });
    }
}

#[test]
fn busy_workers_without_exporters_answer_nothing() {
    let pool = ThreadPool::builder().workers(2).build().unwrap();
    let started = AtomicBool::new(false);
    let answered = AtomicBool::new(false);
    std::thread::scope(|s| {
        let a = s.spawn(|| {
            let r = agent(&pool, &started);
            answered.store(true, Ordering::Release);
            r
        });
        pool.run(|| {
            started.store(true, Ordering::Release);
            poll_until(|| answered.load(Ordering::Acquire));
        });
        assert_eq!(a.join().unwrap(), Answer::Nothing);
    });
}

#[test]
fn a_panicking_exporter_fails_its_block() {
    let pool = ThreadPool::builder().workers(1).build().unwrap();
    let started = AtomicBool::new(false);
    std::thread::scope(|s| {
        let a = s.spawn(|| agent(&pool, &started));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.run(|| {
                let st = State::new(());
                let ((), _): ((), Vec<()>) = st.handle_with_export(
                    || {
                        started.store(true, Ordering::Release);
                        // Stopped at a poll after the exporter panicked.
                        poll_until(|| false);
                    },
                    |_, r| r.decline(),
                    |_| panic!("exporter failed"),
                );
            })
        }));
        let p = r.expect_err("the exporter's panic is lost");
        assert_eq!(p.downcast_ref::<&str>(), Some(&"exporter failed"));
        assert_eq!(a.join().unwrap(), Answer::Nothing);
    });
}

#[test]
fn a_body_that_holds_its_state_declines() {
    let pool = ThreadPool::builder().workers(1).build().unwrap();
    let started = AtomicBool::new(false);
    let answered = AtomicBool::new(false);
    std::thread::scope(|s| {
        let a = s.spawn(|| {
            let r = agent(&pool, &started);
            answered.store(true, Ordering::Release);
            r
        });
        pool.run(|| {
            let st = State::new(0u8);
            let ((), _): ((), Vec<()>) = st.handle_with_export(
                || {
                    st.with(|_| {
                        started.store(true, Ordering::Release);
                        poll_until(|| answered.load(Ordering::Acquire));
                    })
                },
                |_, r| r.decline(),
                |_| Some(vec![1]),
            );
        });
        assert_eq!(a.join().unwrap(), Answer::Nothing);
    });
}
