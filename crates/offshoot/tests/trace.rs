//! The timeline trace (`offshoot::trace`): the JSON parses and has one track per worker,
//! slices nest properly on each track, every flow has both ends and ends inside a task
//! slice on the thief's track; the snapshot agrees with the scheduler's counters; parks,
//! regions and a full log.

mod common;

use std::collections::HashMap;

use common::{bounded, fib};
use offshoot::trace::{SliceKind, Trace};
use serde_json::Value;

fn traced(workers: usize, events: usize) -> offshoot::ThreadPool {
    offshoot::ThreadPool::builder()
        .workers(workers)
        .trace(events)
        .build()
        .expect("cannot build a pool")
}

fn pfib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = offshoot::join(|| pfib(n - 1), || pfib(n - 2));
    a + b
}

/// Checks the trace-event JSON: returns the parsed events.
fn check_json(trace: &Trace) -> Vec<Value> {
    let json = trace.to_chrome_json();
    let v: Value = serde_json::from_str(&json).expect("the trace is valid JSON");
    let events = v["traceEvents"].as_array().expect("traceEvents").clone();
    // One named track per worker.
    let mut tracks: Vec<u64> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| e["tid"].as_u64().unwrap())
        .collect();
    tracks.sort_unstable();
    assert_eq!(tracks, (1..=trace.workers() as u64).collect::<Vec<_>>());
    // Complete slices nest properly on each track.
    let mut by_tid: HashMap<u64, Vec<(f64, f64)>> = HashMap::new();
    for e in events.iter().filter(|e| e["ph"] == "X") {
        let tid = e["tid"].as_u64().unwrap();
        assert!(tracks.contains(&tid), "a slice on an unnamed track: {e}");
        let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
        assert!(dur >= 0.0, "{e}");
        by_tid.entry(tid).or_default().push((ts, ts + dur));
    }
    for slices in by_tid.values_mut() {
        // Outer first at equal starts.
        slices.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let mut open: Vec<f64> = Vec::new();
        for &(s, e) in slices.iter() {
            while open.last().is_some_and(|&end| end <= s) {
                open.pop();
            }
            if let Some(&end) = open.last() {
                assert!(
                    e <= end + 1e-9,
                    "slice {s}..{e} overlaps its enclosing one (ends {end})"
                );
            }
            open.push(e);
        }
    }
    // Every flow has both ends; its end lies inside a task slice on its track.
    let mut starts: HashMap<u64, f64> = HashMap::new();
    let mut ends: HashMap<u64, (f64, u64)> = HashMap::new();
    for e in &events {
        match e["ph"].as_str() {
            Some("s") => {
                starts.insert(e["id"].as_u64().unwrap(), e["ts"].as_f64().unwrap());
            }
            Some("f") => {
                let tid = e["tid"].as_u64().unwrap();
                ends.insert(e["id"].as_u64().unwrap(), (e["ts"].as_f64().unwrap(), tid));
            }
            _ => {}
        }
    }
    assert_eq!(starts.len(), ends.len(), "flows without both ends");
    for (id, (t, tid)) in &ends {
        let s = starts.get(id).expect("a flow end without its start");
        assert!(s <= t, "a flow ends before it starts");
        assert!(
            events.iter().any(|e| e["ph"] == "X"
                && e["cat"] == "task"
                && e["tid"].as_u64() == Some(*tid)
                && e["ts"].as_f64().unwrap() <= *t
                && *t <= e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap()),
            "flow {id} ends outside every task slice"
        );
    }
    // Async region slices pair up.
    let begins = events.iter().filter(|e| e["ph"] == "b").count();
    let ends = events.iter().filter(|e| e["ph"] == "e").count();
    assert_eq!(begins, ends);
    events
}

#[test]
fn a_fork_join_run_gives_one_track_per_worker_nested_slices_and_whole_flows() {
    bounded(|| {
        for n in [1, 2, 3] {
            let pool = traced(n, 1 << 16);
            let before = pool.stats();
            assert_eq!(pool.run(|| pfib(20)), fib(20));
            let trace = pool.trace().expect("a traced pool");
            let run = pool.stats() - before;
            assert_eq!(trace.workers(), n);
            assert_eq!(trace.dropped(), 0);
            check_json(&trace);
            // Every hand-out became a task on its thief.
            let steals = trace.steals();
            assert_eq!(steals.len() as u64, run.requests_answered_work);
            for s in &steals {
                assert_ne!(s.victim, s.thief);
                assert!(s.at <= s.started);
            }
            // The run's job and the stolen ones are the tasks (a task may show as several
            // slices: a join waiting for its thief may park).
            let mut tasks: Vec<u64> = trace
                .slices()
                .into_iter()
                .filter(|s| s.kind == SliceKind::Task)
                .map(|s| s.task)
                .collect();
            tasks.sort_unstable();
            tasks.dedup();
            assert_eq!(
                tasks.len(),
                steals.len() + 1,
                "the root job and one per steal"
            );
        }
    })
}

#[test]
#[cfg(feature = "sync")]
fn a_task_that_parks_ends_its_slice_there_and_resumes_on_the_same_track() {
    bounded(|| {
        for n in [1, 2] {
            let pool = traced(n, 1 << 16);
            let total = pool.run(|| {
                let (tx, rx) = offshoot::sync::bounded::<u64>(1);
                offshoot::scope(|s| {
                    s.spawn(move |_| (0..50).for_each(|i| tx.send(i).unwrap()));
                    offshoot::trace::region("consume", || rx.iter().sum::<u64>())
                })
            });
            assert_eq!(total, (0..50).sum::<u64>());
            let trace = pool.trace().unwrap();
            check_json(&trace);
            let slices = trace.slices();
            let parked: Vec<_> = slices.iter().filter(|s| s.parked_on.is_some()).collect();
            assert!(!parked.is_empty(), "a channel of capacity 1 parks someone");
            assert!(parked
                .iter()
                .any(|p| p.parked_on.unwrap().starts_with("Channel::")));
            for p in &parked {
                let on = p.parked_on.unwrap();
                assert!(
                    on.starts_with("Channel::")
                        || on.starts_with("finish")
                        || on.starts_with("join"),
                    "parked on {on}"
                );
                // The task goes on later, on the same worker.
                assert!(slices.iter().any(|s| s.kind == SliceKind::Task
                    && s.task == p.task
                    && s.worker == p.worker
                    && s.start >= p.end));
            }
            // The region spans the consumer's waits.
            let region: Vec<_> = slices
                .iter()
                .filter(|s| s.kind == SliceKind::Region)
                .collect();
            assert_eq!(region.len(), 1);
            assert_eq!(region[0].label, "consume");
            assert!(region[0].end >= region[0].start);
        }
    })
}

#[test]
fn regions_nest_within_a_task_and_unwinding_ends_them() {
    bounded(|| {
        let pool = traced(2, 1 << 12);
        let r = pool.run(|| {
            offshoot::trace::region("outer", || {
                let a = offshoot::trace::region("inner", || 1);
                let b = std::panic::catch_unwind(|| {
                    offshoot::trace::region("unwinds", || -> u32 { panic!("expected: boom") })
                });
                a + u32::from(b.is_err())
            })
        });
        assert_eq!(r, 2);
        let trace = pool.trace().unwrap();
        check_json(&trace);
        let regions: Vec<_> = trace
            .slices()
            .into_iter()
            .filter(|s| s.kind == SliceKind::Region)
            .collect();
        let get = |l: &str| regions.iter().find(|s| s.label == l).unwrap().clone();
        let (outer, inner, unwound) = (get("outer"), get("inner"), get("unwinds"));
        assert_eq!((outer.depth, inner.depth, unwound.depth), (0, 1, 1));
        for s in [&inner, &unwound] {
            assert!(outer.start <= s.start && s.end <= outer.end);
            assert_eq!(s.task, outer.task);
        }
        // Outside a traced pool a region just runs its closure.
        assert_eq!(offshoot::trace::region("nowhere", || 5), 5);
        let plain = offshoot::ThreadPool::builder().workers(1).build().unwrap();
        assert_eq!(plain.run(|| offshoot::trace::region("untraced", || 6)), 6);
        assert!(plain.trace().is_none());
    })
}

#[test]
fn a_full_log_keeps_its_oldest_events_and_still_gives_valid_json() {
    bounded(|| {
        let pool = traced(2, 64);
        for _ in 0..20 {
            assert_eq!(pool.run(|| pfib(18)), fib(18));
        }
        // 200 region events from one task: more than one log holds, whatever ran where.
        pool.run(|| (0..100).for_each(|_| offshoot::trace::region("r", || ())));
        let trace = pool.trace().unwrap();
        assert!(trace.events() <= 2 * 64);
        assert!(trace.dropped() > 0, "64 events per worker fill up");
        check_json(&trace);
    })
}

#[test]
fn a_huge_trace_capacity_is_allocated_as_used_and_too_large_is_an_error() {
    bounded(|| {
        let pool = traced(2, 1 << 40);
        assert_eq!(pool.run(|| pfib(12)), fib(12));
        let t = pool.trace().expect("traced");
        check_json(&t);
        let e = offshoot::ThreadPool::builder()
            .trace(usize::MAX)
            .build()
            .expect_err("more than any log can hold");
        assert!(
            matches!(
                e,
                offshoot::BuildError::TraceTooLarge {
                    requested: usize::MAX,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("Builder::trace"), "{e}");
        assert!(offshoot::ThreadPool::builder()
            .trace(offshoot::trace::MAX_EVENTS_PER_WORKER)
            .workers(1)
            .build()
            .is_ok());
    });
}
