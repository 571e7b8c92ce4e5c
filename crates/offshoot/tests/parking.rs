//! Many tasks parked at once: more than one mapping per parked task would allow
//! (`vm.max_map_count` is 65,530 by default, and a stack with its own mapping and guard
//! page costs two), all woken, with few kernel mappings while they wait.
//!
//! CI parks 40,000 (over the old limit of about 32,700); `scripts/parking.sh` runs the
//! ignored test with 100,000 in release mode. Linux only (mappings, `/proc/self/maps`).
#![cfg(feature = "sync")]
#![cfg(target_os = "linux")]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{bounded, pool};
use offshoot::sync::Event;

/// The number of mappings of this process.
fn maps() -> usize {
    std::fs::read_to_string("/proc/self/maps")
        .expect("cannot read /proc/self/maps")
        .lines()
        .count()
}

/// Whether this kernel has guard markers (`MADV_GUARD_INSTALL`, Linux 6.13): without them
/// every stack's guard page splits its slab, and a parked task costs two mappings again.
fn guard_markers() -> bool {
    const MADV_GUARD_INSTALL: libc::c_int = 102;
    // SAFETY: a fresh private anonymous mapping, advised and unmapped here only.
    unsafe {
        let len = 2 * 4096;
        let p = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(p, libc::MAP_FAILED);
        let ok = libc::madvise(p, 4096, MADV_GUARD_INSTALL) == 0;
        libc::munmap(p, len);
        ok
    }
}

/// Parks `n` tasks at once on `workers` workers, checks the mappings they cost while
/// parked, wakes them all and checks that each ran to its end.
fn park_at_once(workers: usize, n: usize) {
    let p = pool(workers);
    let go = Event::new();
    let all_parked = Event::new();
    let parked = AtomicUsize::new(0);
    let woke = AtomicUsize::new(0);
    let before = maps();
    let mut during = 0;
    p.run(|| {
        offshoot::scope(|s| {
            for _ in 0..n {
                s.spawn(|_| {
                    if parked.fetch_add(1, Ordering::SeqCst) == n - 1 {
                        all_parked.set(()).unwrap();
                    }
                    go.wait();
                    woke.fetch_add(1, Ordering::SeqCst);
                });
            }
            all_parked.wait();
            during = maps();
            go.set(()).unwrap();
        });
    });
    assert_eq!(woke.load(Ordering::SeqCst), n, "{workers} workers");
    // One mapping per slab of stacks at most (a slab holds up to 128 stacks of the default
    // 2 MiB), plus what the rest of the process maps meanwhile.
    let added = during.saturating_sub(before);
    // Under ThreadSanitizer every fiber's TSan context (`__tsan_create_fiber`) maps two
    // regions of TSan's own (4,049 for 2,000 fibers): not ours to count.
    if cfg!(offshoot_tsan) {
        return;
    }
    assert!(
        added <= n / 64 + 64,
        "{n} parked tasks on {workers} workers added {added} mappings"
    );
}

#[test]
fn forty_thousand_tasks_parked_at_once_cost_few_mappings() {
    if !guard_markers() {
        eprintln!("this kernel has no guard markers (Linux < 6.13): parking 10,000 only");
        bounded(|| park_at_once(1, 10_000));
        return;
    }
    bounded(|| {
        for workers in [1, 2] {
            park_at_once(workers, PARKED);
        }
    });
}

/// Tasks parked at once by the test above. Under ThreadSanitizer (`scripts/tsan.sh`) fewer:
/// TSan's shadow call stack of a thread holds 65,536 entries, and while a fiber is parked
/// the few instrumented frames of corosensei's switch that run between the announced
/// switch (`src/tsan.rs`) and the real one stay on its worker's shadow stack (about 15
/// per fiber: its start and its suspend), so tens of thousands of parked fibers per
/// worker overflow it. The parking itself is the same code; only the count differs.
const PARKED: usize = if cfg!(offshoot_tsan) { 2_000 } else { 40_000 };

/// Run by `scripts/parking.sh` (release mode): `OFFSHOOT_PARKED_TASKS` tasks (default
/// 100,000) parked at once.
#[test]
#[ignore = "long: run by scripts/parking.sh in release mode"]
fn a_hundred_thousand_tasks_parked_at_once() {
    let n = std::env::var("OFFSHOOT_PARKED_TASKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    assert!(
        guard_markers(),
        "this kernel has no guard markers (Linux < 6.13)"
    );
    bounded(move || {
        for workers in [1, 2] {
            park_at_once(workers, n);
        }
    });
}
