//! A timeline trace: a pool built with `Builder::trace` records what each worker did — the
//! tasks it ran, the work it handed to thieves, parks and sleeps — and the regions the
//! program names. This program sorts with a parallel merge sort it writes with `join`,
//! inside two named regions, passes values through a channel (so that tasks park), writes
//! the trace as Chrome/Perfetto JSON (open it in ui.perfetto.dev or chrome://tracing), and
//! prints where each worker's time went.
//!
//! `cargo run --release --example trace [OUT.json] [WORKERS]`

use std::time::Duration;

use offshoot::trace::{self, SliceKind};

/// A merge sort on `join`: the halves in parallel, then a sequential merge.
fn sort(v: &mut [u64]) {
    if v.len() <= 4096 {
        v.sort_unstable();
        return;
    }
    let mid = v.len() / 2;
    let (a, b) = v.split_at_mut(mid);
    offshoot::join(|| sort(a), || sort(b));
    let mut merged = Vec::with_capacity(v.len());
    let (mut i, mut j) = (0, mid);
    while i < mid && j < v.len() {
        if v[j] < v[i] {
            merged.push(v[j]);
            j += 1;
        } else {
            merged.push(v[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&v[i..mid]);
    merged.extend_from_slice(&v[j..]);
    v.copy_from_slice(&merged);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args.next().unwrap_or_else(|| "trace.json".to_string());
    let workers: usize = args
        .next()
        .map(|w| w.parse().expect("WORKERS must be a number"))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let pool = offshoot::ThreadPool::builder()
        .workers(workers)
        .trace(trace::DEFAULT_EVENTS_PER_WORKER)
        .build()
        .expect("cannot build the pool");

    let mut keys: Vec<u64> = (0..1_000_000u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 16)
        .collect();
    let total = pool.run(|| {
        trace::region("sort", || sort(&mut keys));
        trace::region("channel", || {
            let (tx, rx) = offshoot::sync::bounded::<u64>(4);
            let keys = &keys;
            offshoot::scope(|s| {
                s.spawn(move |_| keys.iter().step_by(1000).for_each(|&k| tx.send(k).unwrap()));
                rx.iter().fold(0u64, |a, k| a.wrapping_add(k))
            })
        })
    });
    assert!(keys.windows(2).all(|w| w[0] <= w[1]), "sorted");

    let t = pool.trace().expect("the pool records a trace");
    t.write_chrome_json(std::fs::File::create(&out).expect("cannot create the output file"))
        .expect("cannot write the trace");
    println!(
        "checksum {total}; {} events on {} workers ({} dropped) written to {out}",
        t.events(),
        t.workers(),
        t.dropped()
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let slices = t.slices();
    for w in 0..t.workers() {
        let busy: Duration = slices
            .iter()
            .filter(|s| s.worker == w && s.kind == SliceKind::Task && s.depth == 0)
            .map(|s| s.end - s.start)
            .sum();
        let asleep: Duration = slices
            .iter()
            .filter(|s| s.worker == w && s.kind == SliceKind::Sleep)
            .map(|s| s.end - s.start)
            .sum();
        let parks = slices
            .iter()
            .filter(|s| s.worker == w && s.parked_on.is_some())
            .count();
        println!(
            "worker {w}: {:.3} ms in tasks, {:.3} ms asleep, {parks} parks",
            ms(busy),
            ms(asleep)
        );
    }
    println!("{} hand-outs of work between workers", t.steals().len());
    for r in slices.iter().filter(|s| s.kind == SliceKind::Region) {
        println!("region {:>8}: {:.3} ms", r.label, ms(r.end - r.start));
    }
}
