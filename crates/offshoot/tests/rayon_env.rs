//! rayon's `RAYON_NUM_THREADS`, read as rayon reads it when `OFFSHOOT_WORKERS` is unset: a
//! positive count sizes the global pool and every pool built without a count
//! (`ThreadPoolBuilder::new()`, `num_threads(0)`, offshoot's `Builder::new()`); `0` or a
//! value that is not a count means every core, as in rayon (never an error).
//! `OFFSHOOT_WORKERS`, when
//! set, wins. Environment variables are process-wide and the global pool starts once, so
//! this file is its own test binary with a single test that sets the variables step by
//! step.

mod common;

use offshoot::{ThreadPool, ThreadPoolBuilder, WORKERS_ENV};

const RAYON: &str = "RAYON_NUM_THREADS";

fn set(k: &str, v: &str) {
    // Edition 2021: `set_var` is safe to call; this binary runs one test, and no pool
    // exists yet that could read the environment concurrently.
    std::env::set_var(k, v);
}

/// The three ways to build a pool that does not choose its size.
fn default_sizes() -> [usize; 3] {
    [
        ThreadPoolBuilder::new()
            .build()
            .unwrap()
            .current_num_threads(),
        ThreadPoolBuilder::new()
            .num_threads(0)
            .build()
            .unwrap()
            .current_num_threads(),
        ThreadPool::builder().build().unwrap().workers(),
    ]
}

#[test]
fn rayon_num_threads_sizes_pools_when_offshoot_workers_is_unset() {
    common::bounded(|| {
        std::env::remove_var(WORKERS_ENV);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

        // The global pool, first use: rayon code that never builds a pool.
        set(RAYON, "3");
        assert_eq!(offshoot::current_num_threads(), 3);
        assert_eq!(ThreadPool::global().workers(), 3);
        assert_eq!(default_sizes(), [3; 3]);

        set(RAYON, "1");
        assert_eq!(default_sizes(), [1; 3]);
        // An explicit count does not read it.
        let two = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        assert_eq!(two.current_num_threads(), 2);

        // rayon's reading of the rest: 0 and non-counts are "every core", not errors.
        for auto in ["0", "", "bad", "-1", "2.5"] {
            set(RAYON, auto);
            assert_eq!(default_sizes(), [cores; 3], "{RAYON}={auto:?}");
        }

        // offshoot's own variable wins when both are set.
        set(RAYON, "3");
        set(WORKERS_ENV, "2");
        assert_eq!(default_sizes(), [2; 3]);
    })
}
