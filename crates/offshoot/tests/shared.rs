//! `sync::Shared`, OPA's instant methods: reads never wait and never see a partial update;
//! writes run on a private copy, exclude each other by parking, and commit at their end or
//! at a flush; a write that panics or is stopped before it commits changes nothing. On 1-4
//! workers, against serial expectations.
#![cfg(all(feature = "eureka", feature = "sync"))]

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use common::{bounded, panic_message, payload_str, pool, POOL_SIZES};
use offshoot::eureka::{self, Eureka, Search};
use offshoot::sync::{Promise, Shared};
use offshoot::ThreadPool;

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| POOL_SIZES.iter().map(|&n| pool(n)).collect())
}

#[test]
fn a_write_that_fails_before_its_commit_changes_nothing() {
    bounded(|| {
        for p in pools() {
            let s = Shared::new(vec![1u32, 2, 3]);
            // A panic before the commit: unchanged.
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    s.write(|v| {
                        v.push(4);
                        v[0] = 100;
                        panic!("expected: half a write")
                    })
                })
            }));
            assert_eq!(
                payload_str(&*r.unwrap_err()),
                Some("expected: half a write")
            );
            assert_eq!(s.read(|v| v.clone()), [1, 2, 3]);
            // A panic after a flush: the flush stays, what came after it does not.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    s.write(|v| {
                        v.push(4);
                        v.flush();
                        v.push(5);
                        panic!("expected: after the flush")
                    })
                })
            }));
            assert_eq!(s.read(|v| v.clone()), [1, 2, 3, 4]);
            // Stopped by a sibling's failure before the commit: unchanged.
            let entered = Promise::new();
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    offshoot::scope(|sc| {
                        sc.spawn(|_| {
                            s.write(|v| {
                                v.clear();
                                entered.put(()).unwrap();
                                // Parks until the sibling's panic stops it.
                                Promise::<()>::new().get();
                            })
                        });
                        sc.spawn(|_| {
                            entered.get();
                            panic!("expected: the sibling fails")
                        });
                    })
                })
            }));
            assert_eq!(
                payload_str(&*r.unwrap_err()),
                Some("expected: the sibling fails")
            );
            assert_eq!(s.read(|v| v.clone()), [1, 2, 3, 4]);
            // Stopped by a eureka before the commit: unchanged; the region returns.
            let found = Search::new();
            p.run(|| {
                eureka::finish(&found, || {
                    s.write(|v| {
                        v.clear();
                        found.offer(7u8); // resolves and stops this write
                    })
                })
            });
            assert_eq!(found.get(), Some(&7));
            assert_eq!(s.read(|v| v.clone()), [1, 2, 3, 4]);
        }
    });
}

/// A version holds `WIDTH` equal numbers; a write raises them one at a time with polls in
/// between, so a reader that could see a write in progress would see unequal ones.
const WIDTH: usize = 16;

#[test]
fn readers_never_see_a_partial_update_and_writers_lose_nothing() {
    bounded(|| {
        for p in pools() {
            let s = Shared::new([0u64; WIDTH]);
            let reads = AtomicUsize::new(0);
            let writes = 200;
            p.run(|| {
                offshoot::scope(|sc| {
                    for _ in 0..writes {
                        sc.spawn(|_| {
                            s.write(|v| {
                                for x in v.iter_mut() {
                                    *x += 1;
                                    offshoot::poll();
                                }
                            })
                        });
                    }
                    for _ in 0..4 {
                        sc.spawn(|_| {
                            let mut last = 0;
                            for _ in 0..2000 {
                                let (first, all_equal) =
                                    s.read(|v| (v[0], v.iter().all(|&x| x == v[0])));
                                assert!(all_equal, "a read saw a partial update");
                                assert!(first >= last, "a read went back to an older version");
                                last = first;
                                reads.fetch_add(1, Ordering::Relaxed);
                                offshoot::poll();
                            }
                        });
                    }
                })
            });
            assert_eq!(s.read(|v| *v), [writes; WIDTH], "a write was lost");
            assert_eq!(reads.load(Ordering::Relaxed), 8000);
        }
    });
}

#[test]
fn reads_go_on_while_a_writer_waits_inside_its_write() {
    bounded(|| {
        for p in pools() {
            let s = Shared::new(10u32);
            let (inside, go) = (Promise::new(), Promise::new());
            let seen = p.run(|| {
                offshoot::scope(|sc| {
                    sc.spawn(|_| {
                        s.write(|v| {
                            **v = 11;
                            inside.put(()).unwrap();
                            // The write is in progress until a reader has read.
                            go.get();
                        })
                    });
                    inside.get();
                    // If reads waited for the writer, this would deadlock (and the watch
                    // would say so).
                    let seen = s.read(|v| *v);
                    go.put(()).unwrap();
                    seen
                })
            });
            assert_eq!(seen, 10, "the read saw the write in progress");
            assert_eq!(s.read(|v| *v), 11);
        }
    });
}

#[test]
fn a_snapshot_keeps_its_version() {
    bounded(|| {
        let s = Shared::new(String::from("a"));
        let v1 = s.snapshot();
        pools()[1].run(|| s.write(|v| v.push('b')));
        let v2 = s.snapshot();
        assert_eq!((v1.as_str(), v2.as_str()), ("a", "ab"));
        drop(s); // the snapshots outlive the object
        assert_eq!(v1.clone().as_str(), "a");
    });
}

#[test]
fn misuse_is_a_clear_error() {
    bounded(|| {
        let s = Shared::new(0u8);
        let m = panic_message(|| s.write(|_| s.write(|v| **v = 1)));
        assert!(
            m.contains("a write of this object called a write of the same object"),
            "{m}"
        );
        // The object is usable after the refused write, and unchanged.
        s.write(|v| **v += 2);
        assert_eq!(s.read(|v| *v), 2);
        // Reading inside a write reads the last published version.
        s.write(|v| {
            **v = 9;
            assert_eq!(s.read(|old| *old), 2);
        });
    });
}

#[test]
fn a_writer_that_waits_for_ever_is_reported_by_name() {
    bounded(|| {
        let p = pool(2);
        let s = Shared::named("table", 0u32);
        let never = Promise::<()>::new();
        let inside = Promise::new();
        let m = panic_message(|| {
            p.run(|| {
                offshoot::scope(|sc| {
                    sc.spawn(|_| {
                        s.write(|_| {
                            inside.put(()).unwrap();
                            never.get();
                        })
                    });
                    sc.spawn(|_| {
                        inside.get();
                        s.write(|v| **v = 1);
                    });
                })
            })
        });
        assert!(m.starts_with("offshoot: deadlock:"), "{m}");
        assert!(m.contains("Shared::write \"table\""), "{m}");
        assert_eq!(s.read(|v| *v), 0);
    });
}
