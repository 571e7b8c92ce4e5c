//! Phasers (`offshoot::phaser`) on 1-4 workers with more tasks than workers (4× and 32×):
//! `next` as a barrier over many phases, split-phase signal/wait with work between, `single`
//! once per phase, signal-only members running ahead of wait-only ones, dynamic
//! registration, a task that panics while registered, misuse errors, Imam's thesis Fig. 2.11
//! (without its metrics: the phases order the work), the deadlock of
//! explicit signal/wait (Imam's thesis Fig. 2.14) reported by the deadlock watch, and the
//! deadlock of `next` on two phasers in opposite orders (reported) that `next_all` avoids.
#![cfg(feature = "phaser")]

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

use common::{boom, bounded, panic_message, pool, POOL_SIZES};
use offshoot::phaser::{Mode, Phaser, Registration};
use offshoot::ThreadPool;

fn pools() -> &'static [ThreadPool] {
    static P: OnceLock<Vec<ThreadPool>> = OnceLock::new();
    P.get_or_init(|| POOL_SIZES.iter().map(|&n| pool(n)).collect())
}

const PHASES: usize = 12;

/// Runs `tasks` tasks on `p`, each with a registration in `mode` on one new phaser, all from
/// phase 0; `member(registration, phaser)` is each task's body. Returns the phaser.
fn members(
    p: &ThreadPool,
    tasks: usize,
    mode: Mode,
    member: impl Fn(Registration, &Phaser) + Sync,
) -> Phaser {
    let ph = Phaser::new();
    p.run(|| {
        let me = ph.register(mode);
        offshoot::scope(|s| {
            for _ in 0..tasks {
                let r = me.child(mode);
                let (member, ph) = (&member, &ph);
                s.spawn(move |_| member(r, ph));
            }
            drop(me);
        })
    });
    ph
}

#[test]
fn next_is_a_barrier_for_many_more_tasks_than_workers() {
    bounded(|| {
        for p in pools() {
            for per_worker in [4, 32] {
                let tasks = per_worker * p.workers();
                let arrived: Vec<AtomicUsize> = (0..PHASES).map(|_| AtomicUsize::new(0)).collect();
                let early = AtomicUsize::new(0);
                let ph = members(p, tasks, Mode::SigWait, |mut r, _| {
                    for here in &arrived {
                        here.fetch_add(1, Ordering::SeqCst);
                        r.next();
                        if here.load(Ordering::SeqCst) != tasks {
                            early.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                });
                assert_eq!(ph.ended_phases(), PHASES as u64);
                assert_eq!(
                    early.into_inner(),
                    0,
                    "{tasks} tasks on {} workers",
                    p.workers()
                );
            }
        }
    });
}

#[test]
fn split_phase_work_between_signal_and_wait() {
    bounded(|| {
        for p in pools() {
            let tasks = 4 * p.workers();
            let signalled = AtomicUsize::new(0);
            let early = AtomicUsize::new(0);
            members(p, tasks, Mode::SigWait, |mut r, ph| {
                for k in 0..PHASES {
                    signalled.fetch_add(1, Ordering::SeqCst);
                    r.signal();
                    r.signal(); // a second signal in the same phase does nothing
                                // Work that does not need the others.
                    let mut x = 0u64;
                    for i in 0..1000 {
                        x = x.wrapping_mul(31).wrapping_add(i);
                    }
                    std::hint::black_box(x);
                    r.wait();
                    if signalled.load(Ordering::SeqCst) < (k + 1) * tasks {
                        early.fetch_add(1, Ordering::SeqCst);
                    }
                    assert!(ph.ended_phases() > k as u64);
                }
            });
            assert_eq!(early.into_inner(), 0);
        }
    });
}

#[test]
fn single_runs_once_per_phase_before_anyone_goes_on() {
    bounded(|| {
        for p in pools() {
            let tasks = 4 * p.workers();
            let runs: Vec<AtomicUsize> = (0..PHASES).map(|_| AtomicUsize::new(0)).collect();
            let value = AtomicU64::new(0);
            let wrong = AtomicUsize::new(0);
            members(p, tasks, Mode::SigWaitSingle, |mut r, _| {
                for (k, run) in runs.iter().enumerate() {
                    r.single(|| {
                        run.fetch_add(1, Ordering::SeqCst);
                        value.store(k as u64 + 1, Ordering::SeqCst);
                    });
                    // Everyone sees this phase's single done.
                    if value.load(Ordering::SeqCst) < k as u64 + 1 {
                        wrong.fetch_add(1, Ordering::SeqCst);
                    }
                }
            });
            for (k, r) in runs.iter().enumerate() {
                assert_eq!(
                    r.load(Ordering::SeqCst),
                    1,
                    "phase {k}, {} workers",
                    p.workers()
                );
            }
            assert_eq!(wrong.into_inner(), 0);
        }
    });
}

#[test]
fn signal_only_members_run_ahead_and_wait_only_members_follow() {
    bounded(|| {
        for p in pools() {
            let produced = AtomicUsize::new(0);
            let behind = AtomicUsize::new(0);
            p.run(|| {
                let ph = Phaser::new();
                let me = ph.register(Mode::SigWait);
                offshoot::scope(|s| {
                    // A producer that never waits: phase k ends once it produced k + 1 items.
                    let mut prod = me.child(Mode::Sig);
                    let produced = &produced;
                    s.spawn(move |_| {
                        for _ in 0..PHASES {
                            produced.fetch_add(1, Ordering::SeqCst);
                            prod.signal();
                        }
                    });
                    for _ in 0..3 * p.workers() {
                        let mut cons = me.child(Mode::Wait);
                        let behind = &behind;
                        s.spawn(move |_| {
                            for k in 0..PHASES {
                                cons.wait();
                                if produced.load(Ordering::SeqCst) < k + 1 {
                                    behind.fetch_add(1, Ordering::SeqCst);
                                }
                            }
                        });
                    }
                    drop(me);
                });
            });
            assert_eq!(behind.into_inner(), 0);
        }
    });
}

/// A wait-only member parks on phase 0 while the only member still holding it back is a
/// signal-and-wait one that then leaves without signalling (the signal-only producer ran
/// ahead and left before): with no signalling member left, the waiter goes on. (It was left
/// parked, and the deadlock watch reported it: a 1-worker pool runs the join's first side,
/// the wait, before its second, the leave.)
#[test]
fn a_waiter_goes_on_when_the_last_signalling_member_leaves() {
    bounded(|| {
        for p in pools() {
            p.run(|| {
                let ph = Phaser::new();
                let me = ph.register(Mode::SigWait);
                let mut prod = me.child(Mode::Sig);
                let mut cons = me.child(Mode::Wait);
                for _ in 0..3 {
                    prod.signal();
                }
                drop(prod);
                assert_eq!(ph.ended_phases(), 0, "`me` holds phase 0 back");
                offshoot::join(|| cons.wait(), || drop(me));
                assert_eq!(cons.phase(), 1);
            });
        }
    });
}

#[test]
fn a_registration_made_mid_way_joins_its_parents_phase_and_register_the_next() {
    bounded(|| {
        let p = &pools()[1];
        p.run(|| {
            let ph = Phaser::new();
            let mut a = ph.register(Mode::SigWait);
            a.next();
            a.next();
            let mut c = a.child(Mode::SigWait);
            assert_eq!(c.phase(), 2);
            let late = ph.register(Mode::SigWait);
            assert_eq!(
                late.phase(),
                3,
                "register joins the phase after the one in progress"
            );
            drop(late);
            offshoot::join(|| a.next(), || c.next());
            assert_eq!((a.phase(), c.phase(), ph.ended_phases()), (3, 3, 3));
        });
    });
}

#[test]
fn a_task_that_panics_while_registered_does_not_hold_phases_back() {
    bounded(|| {
        for p in pools() {
            let r = catch_unwind(AssertUnwindSafe(|| {
                p.run(|| {
                    let ph = Phaser::new();
                    let me = ph.register(Mode::SigWait);
                    offshoot::scope(|s| {
                        let mut bad = me.child(Mode::SigWait);
                        s.spawn(move |_| {
                            bad.next();
                            boom("phaser member");
                        });
                        for _ in 0..3 {
                            let mut r = me.child(Mode::SigWait);
                            s.spawn(move |_| {
                                for _ in 0..PHASES {
                                    r.next();
                                }
                            });
                        }
                        drop(me);
                    })
                })
            }));
            assert!(r.is_err(), "the panic reaches the scope's caller");
        }
        // Without a scope failure in the way: a member dropped mid-way (its task ended).
        pools()[1].run(|| {
            let ph = Phaser::new();
            let a = ph.register(Mode::SigWait);
            let mut b = a.child(Mode::SigWait);
            offshoot::join(
                move || {
                    let mut a = a;
                    a.next();
                    // `a` leaves here, at phase 1.
                },
                || {
                    for _ in 0..PHASES {
                        b.next();
                    }
                },
            );
            assert_eq!(ph.ended_phases(), PHASES as u64);
        });
    });
}

#[test]
fn misuse_is_a_clear_error() {
    let ph = Phaser::new();
    let mut w = ph.register(Mode::Wait);
    assert!(panic_message(|| w.signal()).contains("Mode::Wait registration cannot signal"));
    let mut s = ph.register(Mode::Sig);
    assert!(panic_message(|| s.wait()).contains("Mode::Sig registration cannot wait"));
    let sw = ph.register(Mode::SigWait);
    assert!(panic_message(|| w.child(Mode::SigWait)).contains("cannot make"));
    assert!(panic_message(|| sw.child(Mode::SigWaitSingle)).contains("cannot make"));
    let mut sw = sw;
    assert!(panic_message(|| sw.single(|| ())).contains("single needs"));
}

/// Asserts that `msg` is the deadlock watch's report of a phaser wait for the end of
/// phase `phase`.
#[track_caller]
fn assert_reports_a_phaser_deadlock(msg: &str, phase: u64) {
    assert!(
        msg.contains("deadlock")
            && msg.contains("Phaser")
            && msg.contains(&format!("end of phase {phase}")),
        "{msg}"
    );
}

#[test]
fn explicit_signal_and_wait_can_deadlock_and_the_watch_reports_it() {
    bounded(|| {
        // Thesis Fig. 2.14: T1 waits on ph1 then signals ph2; T2 waits on ph2 then signals
        // ph1. Neither wait can end.
        let p = &pools()[1];
        let msg = panic_message(|| {
            p.run(|| {
                let (ph1, ph2) = (Phaser::new(), Phaser::new());
                let (r1, r2) = (ph1.register(Mode::SigWait), ph2.register(Mode::SigWait));
                let (mut t1_wait, mut t1_sig) = (r1.child(Mode::Wait), r2.child(Mode::Sig));
                let (mut t2_wait, mut t2_sig) = (r2.child(Mode::Wait), r1.child(Mode::Sig));
                drop((r1, r2));
                offshoot::join(
                    move || {
                        t1_wait.wait();
                        t1_sig.signal();
                    },
                    move || {
                        t2_wait.wait();
                        t2_sig.signal();
                    },
                );
            })
        });
        assert_reports_a_phaser_deadlock(&msg, 0);
    });
}

#[test]
fn fig_2_11_two_members_three_phases() {
    bounded(|| {
        // Thesis Fig. 2.11 without the metrics: two SIG_WAIT tasks, work, next, work, next,
        // work. Every step of phase k is logged before any step of phase k + 1.
        for p in pools() {
            let log = std::sync::Mutex::new(Vec::new());
            p.run(|| {
                let ph = Phaser::new();
                let me = ph.register(Mode::SigWait);
                let (mut t1, mut t2) = (me.child(Mode::SigWait), me.child(Mode::SigWait));
                drop(me);
                let log = &log;
                let member = |r: &mut Registration, name: &'static str, work: [u32; 3]| {
                    for (phase, w) in work.into_iter().enumerate() {
                        for _ in 0..w {
                            log.lock().unwrap().push((phase, name));
                        }
                        if phase < 2 {
                            r.next();
                        }
                    }
                };
                offshoot::finish(|| {
                    offshoot::join(
                        || member(&mut t1, "t1", [1, 5, 3]),
                        || member(&mut t2, "t2", [3, 1, 5]),
                    )
                });
                assert_eq!(ph.ended_phases(), 2);
            });
            let log = log.into_inner().unwrap();
            assert_eq!(log.len(), 18, "WORK = 18 units");
            assert!(
                log.windows(2).all(|w| w[0].0 <= w[1].0),
                "a phase's work ran before the previous phase ended: {log:?}"
            );
        }
    });
}

#[test]
fn phase_accumulators_sum_each_phase_for_every_member() {
    use offshoot::phaser::PhaseAccumulator;
    bounded(|| {
        for p in pools() {
            let tasks = 4 * p.workers();
            let ph = Phaser::new();
            let sum = PhaseAccumulator::new(&ph, 0u64, |a: &mut u64, x: u64| *a += x);
            let most = PhaseAccumulator::new(&ph, 0u64, |a: &mut u64, x: u64| *a = (*a).max(x));
            let wrong = AtomicUsize::new(0);
            // Member t puts t + k and t * k (several puts) in phase k.
            let want_sum = |k: u64| (0..tasks as u64).map(|t| (t + k) + t * k).sum::<u64>();
            let want_max = |k: u64| (0..tasks as u64).map(|t| (t + k).max(t * k)).max().unwrap();
            p.run(|| {
                let me = ph.register(Mode::SigWait);
                offshoot::scope(|s| {
                    for t in 0..tasks as u64 {
                        let mut r = me.child(Mode::SigWait);
                        let (sum, most, wrong) = (&sum, &most, &wrong);
                        s.spawn(move |_| {
                            for k in 0..PHASES as u64 {
                                sum.put(&mut r, t + k);
                                most.put(&mut r, t + k);
                                sum.put(&mut r, t * k);
                                most.put(&mut r, t * k);
                                r.next();
                                if sum.get(k) != Some(want_sum(k))
                                    || most.get(k) != Some(want_max(k))
                                {
                                    wrong.fetch_add(1, Ordering::SeqCst);
                                }
                            }
                        });
                    }
                    drop(me);
                })
            });
            assert_eq!(wrong.into_inner(), 0, "{} workers", p.workers());
            // Only the most recent phases are kept.
            assert_eq!(sum.get(0), None);
            assert_eq!(
                sum.get(PHASES as u64 - 1),
                Some(want_sum(PHASES as u64 - 1))
            );
        }
    });
}

#[test]
fn a_member_that_leaves_hands_in_its_puts_and_misuse_is_an_error() {
    use offshoot::phaser::PhaseAccumulator;
    let ph = Phaser::new();
    let sum = PhaseAccumulator::new(&ph, 0u32, |a: &mut u32, x: u32| *a += x);
    let mut a = ph.register(Mode::SigWait);
    let mut b = a.child(Mode::SigWait);
    sum.put(&mut b, 5);
    drop(b); // leaves in phase 0, its put counted there
    sum.put(&mut a, 1);
    a.next();
    assert_eq!(sum.get(0), Some(6));
    let mut w = a.child(Mode::Wait);
    assert!(panic_message(|| sum.put(&mut w, 1)).contains("Mode::Wait member cannot put"));
    let other = Phaser::new();
    let mut stranger = other.register(Mode::SigWait);
    assert!(panic_message(|| sum.put(&mut stranger, 1)).contains("its own phaser"));
}

/// Two tasks, each registered on two phasers, meet at one barrier on both, listing the
/// phasers in opposite orders. With `next` on each registration in turn, T1 waits on ph1
/// (held back by T2, which has not signalled it) and T2 on ph2 (held back by T1): the
/// deadlock watch reports it, on every pool size. `phaser::next_all`, which signals both
/// before waiting on either, ends phase 0 of both, and the same program runs several
/// phases.
#[test]
fn next_on_two_phasers_in_opposite_orders_deadlocks_and_next_all_does_not() {
    /// T1's and T2's registrations: (on ph1, on ph2) each, all at phase 0.
    fn members(ph1: &Phaser, ph2: &Phaser) -> [(Registration, Registration); 2] {
        let (a1, b1) = (ph1.register(Mode::SigWait), ph2.register(Mode::SigWait));
        let (a2, b2) = (a1.child(Mode::SigWait), b1.child(Mode::SigWait));
        [(a1, b1), (a2, b2)]
    }
    bounded(|| {
        for p in pools() {
            let msg = panic_message(|| {
                p.run(|| {
                    let (ph1, ph2) = (Phaser::new(), Phaser::new());
                    let [(mut a1, mut b1), (mut a2, mut b2)] = members(&ph1, &ph2);
                    offshoot::join(
                        move || {
                            a1.next();
                            b1.next();
                        },
                        move || {
                            b2.next();
                            a2.next();
                        },
                    );
                })
            });
            assert_reports_a_phaser_deadlock(&msg, 0);

            let (ph1, ph2) = (Phaser::new(), Phaser::new());
            p.run(|| {
                let [(mut a1, mut b1), (mut a2, mut b2)] = members(&ph1, &ph2);
                offshoot::join(
                    || {
                        for _ in 0..PHASES {
                            offshoot::phaser::next_all(&mut [&mut a1, &mut b1]);
                        }
                    },
                    || {
                        for _ in 0..PHASES {
                            offshoot::phaser::next_all(&mut [&mut b2, &mut a2]);
                        }
                    },
                );
                assert_eq!((a1.phase(), b2.phase()), (PHASES as u64, PHASES as u64));
            });
            let ended = (ph1.ended_phases(), ph2.ended_phases());
            assert_eq!(ended, (PHASES as u64, PHASES as u64));
        }
    });
}

/// `next_all` honours each registration's mode: a signal-only member runs ahead, a
/// wait-only one follows, a split-phase one that signalled already only waits; an empty
/// list does nothing.
#[test]
fn next_all_signals_what_signals_and_waits_for_what_waits() {
    use offshoot::phaser::next_all;
    bounded(|| {
        let (ph1, ph2, ph3) = (Phaser::new(), Phaser::new(), Phaser::new());
        let mut sig = ph1.register(Mode::Sig);
        let mut wait = ph2.register(Mode::Wait);
        let mut split = ph3.register(Mode::SigWait);
        split.signal();
        assert_eq!(ph3.ended_phases(), 1);
        next_all(&mut []);
        for k in 1..=3u64 {
            next_all(&mut [&mut sig, &mut wait, &mut split]);
            assert_eq!((sig.phase(), wait.phase(), split.phase()), (k, k, k));
        }
        assert_eq!(
            ph1.ended_phases(),
            3,
            "the signal-only member signalled each time"
        );
        assert_eq!(
            ph3.ended_phases(),
            3,
            "the early signal was not counted twice"
        );
    });
}

/// The limit of `next_all`'s guarantee: `Phaser::register` on a phaser that has signalling
/// members joins the phase after the one in progress, a phase ahead of them (HJlib has no
/// such registration: a task registers only the tasks it creates, at its own phase). T1
/// joins `p` late and T2 joins `q` late; each then waits in `next_all` for a phase that
/// the other signals only in its next call. The deadlock watch reports it.
#[test]
fn next_all_can_deadlock_when_registrations_join_a_phase_late() {
    use offshoot::phaser::next_all;
    bounded(|| {
        for p in pools() {
            let msg = panic_message(|| {
                p.run(|| {
                    let (ph_p, ph_q) = (Phaser::new(), Phaser::new());
                    let (mut t2_p, mut t1_q) =
                        (ph_p.register(Mode::SigWait), ph_q.register(Mode::SigWait));
                    let (mut t1_p, mut t2_q) =
                        (ph_p.register(Mode::SigWait), ph_q.register(Mode::SigWait));
                    assert_eq!((t1_p.phase(), t2_q.phase()), (1, 1), "joined a phase late");
                    offshoot::join(
                        move || next_all(&mut [&mut t1_p, &mut t1_q]),
                        move || next_all(&mut [&mut t2_p, &mut t2_q]),
                    );
                })
            });
            assert_reports_a_phaser_deadlock(&msg, 1);
        }
    });
}

#[test]
fn an_accumulator_answers_only_once_its_phase_has_ended() {
    use offshoot::phaser::PhaseAccumulator;
    let ph = Phaser::new();
    let sum = PhaseAccumulator::new(&ph, 0u64, |a: &mut u64, x: u64| *a += x);
    let mut a = ph.register(Mode::SigWait);
    let mut b = a.child(Mode::SigWait);
    sum.put(&mut a, 5);
    a.signal();
    assert_eq!(ph.ended_phases(), 0);
    assert_eq!(sum.get(0), None, "a partial result before the phase ended");
    sum.put(&mut b, 1);
    b.signal();
    assert_eq!(ph.ended_phases(), 1);
    assert_eq!(sum.get(0), Some(6));
}

#[test]
fn an_accumulator_keeps_every_phase_a_signaller_ran_ahead_into() {
    use offshoot::phaser::PhaseAccumulator;
    for ahead in [9u64, 20, 100] {
        let ph = Phaser::new();
        let sum = PhaseAccumulator::new(&ph, 0u64, |a: &mut u64, x: u64| *a += x);
        let mut waiter = ph.register(Mode::SigWait);
        let mut runner = waiter.child(Mode::Sig);
        for k in 0..ahead {
            sum.put(&mut runner, k);
            runner.signal();
        }
        for k in 0..ahead {
            sum.put(&mut waiter, 1000);
            waiter.next();
            assert_eq!(sum.get(k), Some(1000 + k), "phase {k} of {ahead}");
        }
        // Old ended phases go, the eight latest stay.
        assert_eq!(sum.get(ahead - 1), Some(1000 + ahead - 1));
        assert_eq!(sum.get(ahead - 8), Some(1000 + ahead - 8));
        assert_eq!(
            sum.get(ahead - 9),
            None,
            "an ended phase older than eight is dropped"
        );
        drop(runner);
    }
}
