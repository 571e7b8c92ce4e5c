//! Eureka regions (`offshoot::eureka`) against serial oracles: Search, Count(K) and Minima
//! over thousands of random search trees (some without a solution) on 1-4 workers; no task
//! of a resolved region starts; parked tasks of a resolved region end; termination at depth
//! with every destructor run; nesting (an outer resolution stops inner searches; nested
//! engines are all charged); AND / OR; Timer and Engine resolving with no offer; a panic in
//! a region; misuse errors; N-version agreement (random versions, some faulty, against a
//! serial oracle and exact vote counts).
#![cfg(all(feature = "eureka", feature = "sync"))]

mod common;

use std::collections::{BTreeMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use common::{bounded, mix, panic_message, payload_str, pool, Rng};
use offshoot::eureka::{self, And, Count, Engine, Eureka, Minima, NVersion, Or, Search, Timer};
use offshoot::ThreadPool;

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| (1..=4).map(pool).collect())
}

/// A random search tree: node `n` at depth `d` has `width(n)` children until `depth`;
/// a leaf is a solution when its hash says so (`hit_per_mille`), and costs `cost(n)`.
#[derive(Clone, Copy, Debug)]
struct Tree {
    seed: u64,
    depth: u32,
    max_width: u64,
    hit_per_mille: u64,
}

impl Tree {
    fn random(seed: u64) -> Tree {
        let h = mix(seed);
        Tree {
            seed,
            depth: 2 + (h % 6) as u32,
            max_width: 1 + (h >> 8) % 5,
            // 0 for about one tree in six: no solution at all.
            hit_per_mille: [0, 2, 10, 50, 200, 1000][((h >> 16) % 6) as usize],
        }
    }
    fn width(&self, n: u64) -> u64 {
        1 + mix(n ^ self.seed) % self.max_width
    }
    fn child(&self, n: u64, i: u64) -> u64 {
        mix(n.wrapping_mul(31).wrapping_add(i + 1) ^ self.seed)
    }
    fn is_hit(&self, n: u64) -> bool {
        mix(n ^ self.seed ^ 0xABCD) % 1000 < self.hit_per_mille
    }
    fn cost(&self, n: u64) -> u64 {
        mix(n ^ self.seed ^ 0x5EED) % 10_000
    }
    /// Every solution leaf, serially.
    fn solutions(&self, n: u64, d: u32, out: &mut Vec<u64>) {
        if d == self.depth {
            if self.is_hit(n) {
                out.push(n);
            }
            return;
        }
        for i in 0..self.width(n) {
            self.solutions(self.child(n, i), d + 1, out);
        }
    }
    fn root(&self) -> u64 {
        self.seed
    }
}

/// The parallel search: a `join` per pair of children halves, a check at every node, an
/// offer at every solution leaf.
fn search<E: Eureka<Check = ()>>(t: &Tree, n: u64, d: u32, e: &E, offer: &(dyn Fn(u64) + Sync)) {
    e.check(());
    if d == t.depth {
        if t.is_hit(n) {
            offer(n);
        }
        return;
    }
    let kids: Vec<u64> = (0..t.width(n)).map(|i| t.child(n, i)).collect();
    split(&kids, &|c| search(t, c, d + 1, e, offer));
}

fn split(kids: &[u64], f: &(dyn Fn(u64) + Sync)) {
    match kids {
        [] => {}
        [c] => f(*c),
        _ => {
            let (a, b) = kids.split_at(kids.len() / 2);
            offshoot::join(|| split(a, f), || split(b, f));
        }
    }
}

fn trees() -> u64 {
    std::env::var("OFFSHOOT_STRESS_TREES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

#[test]
fn search_finds_a_solution_or_reports_none() {
    bounded(|| {
        for seed in 0..trees() {
            let t = Tree::random(seed);
            let mut all = Vec::new();
            t.solutions(t.root(), 0, &mut all);
            let all: HashSet<u64> = all.into_iter().collect();
            for p in pools() {
                let found = Search::new();
                let body = p.run(|| {
                    eureka::finish(&found, || {
                        search(&t, t.root(), 0, &found, &|n| {
                            found.offer(n);
                        })
                    })
                });
                match found.get() {
                    Some(n) => {
                        assert!(all.contains(n), "{t:?}: {n} is not a solution");
                        assert!(body.is_none(), "{t:?}: the resolved body was not stopped");
                    }
                    None => {
                        assert!(
                            all.is_empty(),
                            "{t:?}: a solution exists but none was found"
                        );
                        assert_eq!(body, Some(()), "{t:?}: an unresolved region ends normally");
                    }
                }
                assert_eq!(found.is_resolved(), !all.is_empty());
            }
        }
    });
}

#[test]
fn count_keeps_exactly_k_distinct_solutions() {
    bounded(|| {
        for seed in 0..trees() {
            let t = Tree::random(seed);
            let mut all = Vec::new();
            t.solutions(t.root(), 0, &mut all);
            let k = 1 + (mix(seed) % 7) as usize;
            for p in pools() {
                let first = Count::new(k);
                p.run(|| {
                    eureka::finish(&first, || {
                        search(&t, t.root(), 0, &first, &|n| {
                            first.offer(n);
                        })
                    })
                });
                let got = first.get();
                // A leaf can be reached on several paths (hash collisions aside, every path
                // is one leaf), so compare as multisets of solution leaves.
                assert_eq!(got.len(), k.min(all.len()), "{t:?}, k = {k}");
                for n in &got {
                    assert!(all.contains(n), "{t:?}: {n} is not a solution");
                }
                assert_eq!(first.is_resolved(), all.len() >= k);
            }
        }
    });
}

#[test]
fn minima_finds_the_least_cost_with_pruning() {
    fn bb(t: &Tree, n: u64, d: u32, acc: u64, m: &Minima<u64>) {
        if !m.check(acc) {
            return; // costs only grow: this branch cannot beat the bound
        }
        if d == t.depth {
            m.offer(acc);
            return;
        }
        let kids: Vec<u64> = (0..t.width(n)).map(|i| t.child(n, i)).collect();
        split(&kids, &|c| bb(t, c, d + 1, acc + t.cost(c), m));
    }
    fn serial(t: &Tree, n: u64, d: u32, acc: u64) -> u64 {
        if d == t.depth {
            return acc;
        }
        (0..t.width(n))
            .map(|i| t.child(n, i))
            .map(|c| serial(t, c, d + 1, acc + t.cost(c)))
            .min()
            .unwrap()
    }
    bounded(|| {
        for seed in 0..trees() {
            let t = Tree::random(seed);
            let want = serial(&t, t.root(), 0, 0);
            for p in pools() {
                let m = Minima::new(u64::MAX);
                let body = p.run(|| eureka::finish(&m, || bb(&t, t.root(), 0, 0, &m)));
                assert_eq!(*m.get(), want, "{t:?}");
                assert_eq!(body, Some(()), "a Minima never resolves by itself");
                let most = Minima::maxima(0u64);
                p.run(|| {
                    eureka::finish(&most, || {
                        offshoot::par_for(0..1000, |i| {
                            most.offer(t.cost(i as u64));
                        })
                    })
                });
                assert_eq!(*most.get(), (0..1000).map(|i| t.cost(i)).max().unwrap());
            }
        }
    });
}

/// Counts live values and drops.
struct Alive(Arc<AtomicUsize>);
impl Alive {
    fn new(c: &Arc<AtomicUsize>) -> Alive {
        c.fetch_add(1, Ordering::SeqCst);
        Alive(c.clone())
    }
}
impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn termination_at_depth_runs_every_destructor() {
    fn dive(d: u32, found: &Search<u32>, alive: &Arc<AtomicUsize>) {
        let _guard = Alive::new(alive);
        found.check();
        if d == 0 {
            return;
        }
        if d == 7 {
            found.offer(d);
        }
        offshoot::join(|| dive(d - 1, found, alive), || dive(d - 1, found, alive));
    }
    bounded(|| {
        for p in pools() {
            for _ in 0..20 {
                let alive = Arc::new(AtomicUsize::new(0));
                let found = Search::new();
                p.run(|| eureka::finish(&found, || dive(16, &found, &alive)));
                assert_eq!(found.get(), Some(&7));
                assert_eq!(alive.load(Ordering::SeqCst), 0, "a destructor did not run");
            }
        }
    });
}

#[test]
fn no_task_of_a_resolved_region_starts() {
    bounded(|| {
        for (i, p) in pools().iter().enumerate() {
            let workers = i + 1;
            let ran_before = Arc::new(AtomicUsize::new(0));
            let ran_after = Arc::new(AtomicUsize::new(0));
            let alive = Arc::new(AtomicUsize::new(0));
            let found = Search::new();
            p.run(|| {
                eureka::finish(&found, || {
                    // Spawned before the resolution: other workers may run some; on one
                    // worker none can start before the body ends, and by then the region
                    // is resolved, so none runs.
                    for _ in 0..200 {
                        let (s, g) = (ran_before.clone(), Alive::new(&alive));
                        offshoot::finish::spawn(move || {
                            let _g = g;
                            s.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                    // The stop of the resolving offer is caught here, so the body goes on:
                    // what it spawns now must never run.
                    let _ = catch_unwind(AssertUnwindSafe(|| found.offer(1)));
                    for _ in 0..50 {
                        let (s, g) = (ran_after.clone(), Alive::new(&alive));
                        offshoot::finish::spawn(move || {
                            let _g = g;
                            s.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                })
            });
            assert!(found.is_resolved());
            assert_eq!(
                ran_after.load(Ordering::SeqCst),
                0,
                "a task spawned after the resolution ran"
            );
            if workers == 1 {
                assert_eq!(
                    ran_before.load(Ordering::SeqCst),
                    0,
                    "a task of the resolved region ran"
                );
            }
            assert_eq!(
                alive.load(Ordering::SeqCst),
                0,
                "an unstarted task was leaked"
            );
        }
    });
}

#[test]
fn parked_tasks_of_a_resolved_region_end() {
    bounded(|| {
        for p in pools() {
            let never = Arc::new(offshoot::sync::Event::<()>::new());
            let ended = Arc::new(AtomicUsize::new(0));
            let found = Search::new();
            p.run(|| {
                eureka::finish(&found, || {
                    for _ in 0..20 {
                        let (never, g) = (never.clone(), Alive::new(&ended));
                        offshoot::finish::spawn(move || {
                            let _g = g;
                            never.wait(); // parks until the resolution ends it
                        });
                    }
                    offshoot::finish::spawn(|| {
                        eureka::offer("done"); // found through the region: no borrow
                    });
                })
            });
            assert_eq!(found.get(), Some(&"done"));
            assert_eq!(
                ended.load(Ordering::SeqCst),
                0,
                "a parked task was not ended"
            );
        }
    });
}

#[test]
fn nested_regions_offer_to_the_innermost_and_check_every_level() {
    bounded(|| {
        for p in pools() {
            let outer = Engine::<u32>::new(u64::MAX);
            let inner = Engine::<u32>::new(1000);
            p.run(|| {
                eureka::finish(&outer, || {
                    eureka::finish(&inner, || {
                        offshoot::par_for(0..100_000, |_| {
                            eureka::check(1u64);
                        })
                    });
                    // Back in the outer region: offers go to the outer engine.
                    eureka::offer(5u32);
                })
            });
            assert!(inner.is_resolved(), "the inner engine ran out of fuel");
            assert!(inner.used() >= 1000);
            assert!(
                outer.used() >= inner.used(),
                "the outer engine was charged too"
            );
            assert_eq!(outer.get(), Some(&5));
            assert_eq!(inner.get(), None);
        }
    });
}

#[test]
fn an_outer_resolution_ends_an_endless_inner_search() {
    bounded(|| {
        for p in pools() {
            let outer = Or::new(
                Search::<()>::new(),
                Timer::<()>::new(Duration::from_millis(30)),
            );
            let (inner_started, inner_ended) = (AtomicUsize::new(0), AtomicUsize::new(0));
            p.run(|| {
                eureka::finish(&outer, || {
                    offshoot::par_for(0..4, |_| {
                        let inner = Search::<u64>::new();
                        struct Count<'a>(&'a AtomicUsize);
                        impl Drop for Count<'_> {
                            fn drop(&mut self) {
                                self.0.fetch_add(1, Ordering::SeqCst);
                            }
                        }
                        inner_started.fetch_add(1, Ordering::SeqCst);
                        let _c = Count(&inner_ended);
                        eureka::finish(&inner, || {
                            // Endless: only the outer timer (seen by walking the checks up)
                            // ends it.
                            offshoot::par_for(0..usize::MAX, |_| {
                                eureka::check((Some(()), Some(())));
                            })
                        });
                    })
                })
            });
            assert!(outer.is_resolved());
            assert!(outer.parts().1.is_resolved(), "the timer resolved it");
            // Pieces of the outer loop not started by the resolution never start; every
            // inner search that started ended (its region returned or unwound).
            let started = inner_started.load(Ordering::SeqCst);
            assert!(started >= 1);
            assert_eq!(
                inner_ended.load(Ordering::SeqCst),
                started,
                "every inner search ended"
            );
        }
    });
}

#[test]
fn and_needs_both_or_needs_either() {
    bounded(|| {
        for p in pools() {
            let both = And::new(Search::new(), Count::new(2));
            p.run(|| {
                eureka::finish(&both, || {
                    offshoot::par_for(0..10_000, |i| {
                        both.check((Some(()), Some(())));
                        if i % 1000 == 7 {
                            both.offer((Some(i), None));
                        }
                        if i % 3000 == 11 {
                            both.offer((None, Some(i)));
                        }
                    })
                })
            });
            assert!(both.is_resolved());
            let (a, b) = both.get();
            assert_eq!(a.map(|i| i % 1000), Some(7));
            assert_eq!(b.len(), 2);

            let one = And::new(Search::<usize>::new(), Search::<usize>::new());
            p.run(|| {
                eureka::finish(&one, || {
                    offshoot::par_for(0..1000, |i| {
                        one.offer((Some(i), None)); // only the first part ever resolves
                    })
                })
            });
            assert!(
                !one.is_resolved(),
                "AND with one part resolved is not resolved"
            );
            assert!(one.parts().0.is_resolved());

            let either = Or::new(Search::<usize>::new(), Search::<usize>::new());
            p.run(|| {
                eureka::finish(&either, || {
                    offshoot::par_for(0..1000, |i| {
                        if i == 500 {
                            either.offer((None, Some(i)));
                        }
                    })
                })
            });
            assert!(either.is_resolved());
            assert_eq!(either.get(), (None, Some(&500)));
        }
    });
}

#[test]
fn timer_and_engine_resolve_with_no_offer() {
    bounded(|| {
        for p in pools() {
            let t = Timer::<u8>::new(Duration::from_millis(5));
            let body = p.run(|| {
                eureka::finish(&t, || {
                    offshoot::par_for(0..usize::MAX, |_| {
                        t.check();
                    })
                })
            });
            assert!(t.is_resolved() && body.is_none() && t.get().is_none());

            let e = Engine::<u8>::new(5000);
            p.run(|| {
                eureka::finish(&e, || {
                    offshoot::par_for(0..usize::MAX, |_| {
                        e.check(1);
                    })
                })
            });
            assert!(e.is_resolved() && e.used() >= 5000 && e.get().is_none());
        }
    });
}

#[test]
fn a_panic_before_the_resolution_wins() {
    bounded(|| {
        for p in pools() {
            let found = Search::<u8>::new();
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    eureka::finish(&found, || {
                        offshoot::join(|| panic!("expected: boom in a search"), || found.check());
                    })
                })
            }));
            let err = r.expect_err("the panic resumes in the caller");
            assert_eq!(payload_str(&*err), Some("expected: boom in a search"));
            assert!(!found.is_resolved());
        }
    });
}

#[test]
fn misuse_is_a_clear_error() {
    bounded(|| {
        let p = &pools()[1];
        let e = Search::<u8>::new();
        let msg = |f: &dyn Fn()| {
            let err = catch_unwind(AssertUnwindSafe(f)).expect_err("misuse panics");
            payload_str(&*err).unwrap_or_default().to_string()
        };
        // The static helpers with no eureka around.
        assert!(msg(&|| p.run(|| {
            eureka::check(());
        }))
        .contains("no eureka around it"));
        assert!(msg(&|| {
            eureka::offer(1u8);
        })
        .contains("no eureka around it"));
        // A method of a eureka outside its regions.
        assert!(msg(&|| p.run(|| {
            e.offer(1);
        }))
        .contains("outside every region"));
        // An offer of the wrong type.
        let s = Search::<u64>::new();
        let m = msg(&|| {
            p.run(|| {
                eureka::finish(&s, || {
                    eureka::offer("text");
                })
            });
        });
        assert!(m.contains("u64") && m.contains("&str"), "{m}");
        // A check whose type no enclosing eureka takes.
        let m = msg(&|| {
            p.run(|| {
                eureka::finish(&s, || {
                    eureka::check(1.5f64);
                })
            });
        });
        assert!(m.contains("f64"), "{m}");
        // Count(0) cannot resolve.
        assert!(msg(&|| {
            Count::<u8>::new(0);
        })
        .contains("at least one offer"));
    });
}

#[test]
fn a_region_on_a_resolved_eureka_stops_at_once_and_regions_share_one() {
    bounded(|| {
        for p in pools() {
            let found = Search::new();
            let ran = AtomicUsize::new(0);
            p.run(|| {
                eureka::finish(&found, || {
                    offshoot::join(
                        || {
                            eureka::finish(&found, || {
                                found.offer(1u32);
                            })
                        },
                        || {
                            eureka::finish(&found, || {
                                offshoot::par_for(0..usize::MAX, |_| {
                                    found.check();
                                    ran.fetch_add(1, Ordering::Relaxed);
                                })
                            })
                        },
                    );
                })
            });
            assert_eq!(found.get(), Some(&1));
            let body = p.run(|| {
                eureka::finish(&found, || {
                    found.check();
                    unreachable!("a region on a resolved eureka stops at its first check")
                })
            });
            assert_eq!(body, None);
        }
    });
}

#[test]
fn convergence_resolves_when_two_consecutive_values_agree() {
    use offshoot::eureka::Convergence;
    bounded(|| {
        for p in pools() {
            // Halving towards 1.0 in one task: converged once a step moves less than 1e-6.
            let x = Convergence::new(1024.0f64, |a: &f64, b: &f64| (a - b).abs() < 1e-6);
            let steps = AtomicUsize::new(0);
            let body = p.run(|| {
                eureka::finish(&x, || {
                    for _ in 0..1000 {
                        let cur = *x.get();
                        steps.fetch_add(1, Ordering::Relaxed);
                        x.offer(1.0 + (cur - 1.0) / 2.0);
                    }
                })
            });
            assert!(x.is_resolved() && body.is_none());
            // The serial oracle: the first step whose change is below 1e-6.
            let (mut cur, mut n) = (1024.0f64, 0);
            loop {
                let next = 1.0 + (cur - 1.0) / 2.0;
                n += 1;
                if (cur - next).abs() < 1e-6 {
                    break;
                }
                cur = next;
            }
            assert_eq!(steps.load(Ordering::Relaxed), n);
            assert_eq!(*x.get(), 1.0 + (cur - 1.0) / 2.0);

            // Offers racing from many tasks: it resolves, and later offers stop their callers.
            let y = Convergence::new(0u64, |a: &u64, b: &u64| a / 100 == b / 100);
            p.run(|| {
                eureka::finish(&y, || {
                    offshoot::par_for(0..100_000, |i| {
                        y.offer(i as u64);
                    })
                })
            });
            assert!(y.is_resolved());
        }
    });
}

#[test]
fn a_panic_after_the_resolution_is_dropped_like_a_stopped_siblings() {
    bounded(|| {
        for p in pools() {
            let found = Search::new();
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    eureka::finish(&found, || {
                        found.offer(1u8);
                    });
                    eureka::finish(&found, || panic!("expected: never runs past the check"))
                })
            }));
            // The second region's eureka is resolved already: it is failed as it starts,
            // so its body's panic comes after the first failure and is dropped.
            assert!(r.is_ok(), "the panic after the resolution resumed");
            assert_eq!(found.get(), Some(&1));
        }
    });
}

/// One N-version trial: `results[i]` is what version `i` computes after `work[i]` checks:
/// the right answer, or for a faulty version one of a few wrong ones (so faulty versions
/// can agree among themselves, N-version programming's real hazard).
#[derive(Clone, Debug)]
struct Versions {
    n: usize,
    results: Vec<u64>,
    work: Vec<u64>,
}

impl Versions {
    const RIGHT: u64 = 42;

    fn random(seed: u64) -> Versions {
        let mut rng = Rng::new(seed);
        let m = rng.range(2, 9);
        let n = rng.range(2, m) as usize;
        let faulty_per_mille = [0, 300, 600, 900][rng.range(0, 3) as usize];
        let wrong = rng.range(1, 3);
        let results = (0..m)
            .map(|_| {
                if rng.range(0, 999) < faulty_per_mille {
                    100 + rng.range(1, wrong)
                } else {
                    Versions::RIGHT
                }
            })
            .collect();
        let work = (0..m).map(|_| rng.range(0, 2000)).collect();
        Versions { n, results, work }
    }

    /// How many versions give each value (the serial oracle's tally).
    fn counts(&self) -> BTreeMap<u64, usize> {
        let mut c = BTreeMap::new();
        for &r in &self.results {
            *c.entry(r).or_insert(0) += 1;
        }
        c
    }
}

/// Random versions, some faulty, each its own task, on 1-4 workers. Against the serial
/// tally: with no value given by `n` versions the region runs to its end, every offer goes
/// on and is counted, and `get()` is `None`; otherwise it resolves to a value that `n`
/// versions give, exactly `n - 1` offers of that value went on (the `n`-th resolved, any
/// later one was stopped: it never resolves on fewer), no value had more than `n - 1`
/// offers go on, and no value has more votes than versions that offered it.
#[test]
fn nversion_resolves_exactly_when_n_versions_agree() {
    bounded(|| {
        for seed in 0..trees() {
            let v = Versions::random(seed);
            let counts = v.counts();
            let agreeable: Vec<u64> = counts
                .iter()
                .filter(|&(_, &c)| c >= v.n)
                .map(|(&x, _)| x)
                .collect();
            for p in pools() {
                let nv = NVersion::new(v.n);
                let m = v.results.len();
                let offered: Vec<AtomicBool> = (0..m).map(|_| AtomicBool::new(false)).collect();
                let went_on: Vec<AtomicBool> = (0..m).map(|_| AtomicBool::new(false)).collect();
                let version = |i: usize| {
                    for _ in 0..v.work[i] {
                        nv.check();
                    }
                    offered[i].store(true, Ordering::SeqCst);
                    if nv.offer(v.results[i]) {
                        went_on[i].store(true, Ordering::SeqCst);
                    }
                };
                let body = p.run(|| {
                    eureka::finish(&nv, || {
                        offshoot::scope(|s| {
                            for i in 0..m {
                                let version = &version;
                                s.spawn(move |_| version(i));
                            }
                        })
                    })
                });
                let per_value = |flags: &[AtomicBool], x: u64| {
                    (0..m)
                        .filter(|&i| v.results[i] == x && flags[i].load(Ordering::SeqCst))
                        .count()
                };
                let votes: BTreeMap<u64, usize> =
                    nv.votes().into_iter().map(|(&x, c)| (x, c)).collect();
                let at = format!("{v:?} on {} workers", p.workers());
                for (&x, &c) in &votes {
                    assert!(c <= per_value(&offered, x), "{at}: {x} has {c} votes");
                    assert!(
                        c >= per_value(&went_on, x),
                        "{at}: an offer of {x} went uncounted"
                    );
                }
                match nv.get() {
                    None => {
                        assert!(
                            agreeable.is_empty(),
                            "{at}: {agreeable:?} agree, no resolution"
                        );
                        assert!(!nv.is_resolved() && body == Some(()), "{at}");
                        assert!(went_on.iter().all(|w| w.load(Ordering::SeqCst)), "{at}");
                        assert_eq!(votes, counts, "{at}: every offer is counted");
                    }
                    Some(&a) => {
                        assert!(
                            agreeable.contains(&a),
                            "{at}: {a} resolved, not n versions'"
                        );
                        assert!(nv.is_resolved() && body.is_none(), "{at}");
                        assert_eq!(per_value(&went_on, a), v.n - 1, "{at}: agreed on {a}");
                        assert!(votes[&a] >= v.n, "{at}: resolved on fewer than n votes");
                        for &x in counts.keys() {
                            assert!(per_value(&went_on, x) < v.n, "{at}: {x} went on n times");
                        }
                    }
                }
            }
        }
    });
}

/// A value offered in an N-version eureka that counts its live copies; equal by `x`.
struct Vote {
    x: u64,
    _alive: Alive,
}
impl PartialEq for Vote {
    fn eq(&self, other: &Vote) -> bool {
        self.x == other.x
    }
}

/// Offers in one task, in a random order, through the static `eureka::offer`, against the
/// serial oracle: the eureka resolves at exactly the offer that is the `n`-th equal one,
/// stopping the body there, with `get()` that value and `votes()` the tally of the offers
/// made so far in first-offer order; a sequence with no `n` equal offers runs to its end
/// with `get() == None`. One copy of each distinct value is kept (the others drop at once)
/// and all drop with the eureka.
#[test]
fn nversion_serial_offers_resolve_at_the_nth_equal_one() {
    bounded(|| {
        for seed in 0..trees() {
            let mut rng = Rng::new(seed ^ 0x4E56);
            let n = rng.range(2, 5) as usize;
            let alphabet = rng.range(1, 6);
            let seq: Vec<u64> = (0..rng.range(0, 20))
                .map(|_| rng.range(1, alphabet))
                .collect();
            // The oracle: the first offer that makes `n` equal ones, and the tally then.
            let mut tally: Vec<(u64, usize)> = Vec::new();
            let mut resolves_at = None;
            for (i, &x) in seq.iter().enumerate() {
                match tally.iter_mut().find(|(y, _)| *y == x) {
                    Some(t) => t.1 += 1,
                    None => tally.push((x, 1)),
                }
                if tally.iter().any(|&(y, c)| y == x && c == n) {
                    resolves_at = Some(i);
                    break;
                }
            }
            for p in pools() {
                let alive = Arc::new(AtomicUsize::new(0));
                let nv = NVersion::<Vote>::new(n);
                let made = AtomicUsize::new(0);
                let body = p.run(|| {
                    eureka::finish(&nv, || {
                        for &x in &seq {
                            made.fetch_add(1, Ordering::SeqCst);
                            eureka::offer(Vote {
                                x,
                                _alive: Alive::new(&alive),
                            });
                        }
                    })
                });
                let at = format!("n = {n}, {seq:?} on {} workers", p.workers());
                let votes: Vec<(u64, usize)> = nv.votes().iter().map(|(v, c)| (v.x, *c)).collect();
                assert_eq!(votes, tally, "{at}");
                assert_eq!(
                    alive.load(Ordering::SeqCst),
                    tally.len(),
                    "{at}: one copy a value"
                );
                match resolves_at {
                    Some(i) => {
                        assert_eq!(made.load(Ordering::SeqCst), i + 1, "{at}");
                        assert_eq!(nv.get().map(|v| v.x), Some(seq[i]), "{at}");
                        assert!(body.is_none(), "{at}: the resolving offer stops the body");
                    }
                    None => {
                        assert_eq!(made.load(Ordering::SeqCst), seq.len(), "{at}");
                        assert!(nv.get().is_none() && !nv.is_resolved(), "{at}");
                        assert_eq!(body, Some(()), "{at}");
                    }
                }
                drop(nv);
                assert_eq!(alive.load(Ordering::SeqCst), 0, "{at}: a kept value leaked");
            }
        }
    });
}

/// `n` below 2 is rejected with a message naming `n` and the bound; a huge `n` is
/// accepted, allocates nothing for it, and never resolves; a resolved N-version eureka
/// stops later offers and checks, and composes (an `Or` with a `Search`).
#[test]
fn nversion_validates_n_and_composes() {
    bounded(|| {
        for n in [0, 1] {
            let msg = panic_message(|| NVersion::<u8>::new(n));
            assert!(
                msg.contains("NVersion::new")
                    && msg.contains(&format!("n = {n}"))
                    && msg.contains("at least 2"),
                "{msg}"
            );
        }
        for p in pools() {
            let huge = NVersion::new(usize::MAX);
            let body = p.run(|| {
                eureka::finish(&huge, || {
                    offshoot::par_for(0..1000, |i| {
                        huge.offer(i % 3);
                    })
                })
            });
            assert_eq!(body, Some(()));
            assert_eq!(huge.get(), None);
            assert_eq!(huge.votes().iter().map(|&(_, c)| c).sum::<usize>(), 1000);

            // Two versions agree on 7: everything after stops, the endless loop too.
            let nv = NVersion::new(2);
            p.run(|| {
                eureka::finish(&nv, || {
                    offshoot::join(
                        || {
                            nv.offer(7u32);
                            nv.offer(7);
                            unreachable!("the second equal offer stops its caller");
                        },
                        || {
                            offshoot::par_for(0..usize::MAX, |_| {
                                nv.check();
                            })
                        },
                    )
                })
            });
            assert_eq!(nv.get(), Some(&7));
            let e = Or::new(NVersion::new(3), Search::<()>::new());
            p.run(|| {
                eureka::finish(&e, || {
                    offshoot::par_for(0..100, |i| {
                        e.offer((Some(i % 2), None));
                    })
                })
            });
            assert_eq!(e.get().0.copied().map(|x| x < 2), Some(true));
        }
    });
}

#[test]
fn a_misplaced_offer_changes_nothing() {
    bounded(|| {
        let p = &pools()[1];
        let s = Search::<u32>::new();
        let err = catch_unwind(AssertUnwindSafe(|| s.offer(3))).expect_err("misuse panics");
        assert!(payload_str(&*err)
            .unwrap_or_default()
            .contains("outside every region"));
        assert_eq!(s.get(), None, "the rejected offer was recorded");
        assert!(!s.is_resolved());
        p.run(|| eureka::finish(&s, || s.offer(999)));
        assert_eq!(s.get(), Some(&999));
        let c = Count::<u32>::new(2);
        let _ = catch_unwind(AssertUnwindSafe(|| p.run(|| c.offer(1))));
        assert!(c.get().is_empty(), "the rejected offer took a place");
    });
}

#[test]
fn a_huge_count_allocates_only_what_it_keeps() {
    bounded(|| {
        for k in [1usize << 40, usize::MAX] {
            let c = Count::<u64>::new(k);
            assert_eq!(c.k(), k);
            for p in pools() {
                p.run(|| {
                    eureka::finish(&c, || {
                        offshoot::par_for(0..1000, |i| {
                            if i % 100 == 0 {
                                c.offer(i as u64);
                            }
                        })
                    })
                });
            }
            assert!(!c.is_resolved());
            let mut got: Vec<u64> = c.get().into_iter().copied().collect();
            got.sort_unstable();
            let want: Vec<u64> = (0..10)
                .flat_map(|j| std::iter::repeat_n(j * 100, pools().len()))
                .collect();
            assert_eq!(got, want);
        }
    });
}
