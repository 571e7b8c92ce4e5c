//! The `OFFSHOOT_WORKERS` environment variable: a pool built without `workers(n)` takes its
//! size from it; a bad value is an `InvalidEnv` error that names the variable and the value
//! (not silently ignored; `0` and counts above `MAX_WORKERS` too), and the global pool refuses to start with a message saying what
//! to fix; rayon's `ThreadPoolBuilder` reads `0` as "every core". Environment variables are
//! process-wide, so this file is its own test binary with a single test that sets the
//! variable step by step.

mod common;

use offshoot::{BuildError, ThreadPool, MAX_WORKERS, WORKERS_ENV};

fn set(v: &str) {
    // Edition 2021: `set_var` is safe to call; this binary runs one test, and no pool
    // exists yet that could read the environment concurrently.
    std::env::set_var(WORKERS_ENV, v);
}

#[test]
fn workers_env_sets_the_default_size_and_bad_values_are_errors() {
    common::bounded(|| {
        assert_eq!(WORKERS_ENV, "OFFSHOOT_WORKERS");

        for bad in ["bad", "", "-1", "2.5", "0x2", "two"] {
            set(bad);
            let e = ThreadPool::builder().build().unwrap_err();
            match &e {
                BuildError::InvalidEnv { value } => assert_eq!(value, bad),
                other => panic!("{WORKERS_ENV}={bad:?} gave {other:?}, not InvalidEnv"),
            }
            let msg = e.to_string();
            assert!(
                msg.contains(WORKERS_ENV),
                "the message does not name the variable: {msg}"
            );
            assert!(
                msg.contains(&format!("{bad:?}")),
                "the message does not show the value: {msg}"
            );
        }

        // The global pool reports the bad value instead of ignoring it, and keeps doing so.
        set("bad");
        for _ in 0..2 {
            let msg = common::panic_message(ThreadPool::global);
            assert!(
                msg.contains(WORKERS_ENV) && msg.contains("bad"),
                "unhelpful message: {msg}"
            );
            let msg = common::panic_message(|| offshoot::join(|| 1, || 2));
            assert!(msg.contains(WORKERS_ENV), "unhelpful message: {msg}");
        }

        // An explicit worker count does not read the variable.
        let p = ThreadPool::builder()
            .workers(2)
            .build()
            .expect("workers(2) ignores the env");
        assert_eq!(p.workers(), 2);
        drop(p);

        // In-range values set the size; out-of-range ones are the usual errors.
        set("3");
        assert_eq!(ThreadPool::builder().build().unwrap().workers(), 3);
        set(" 2 ");
        assert_eq!(ThreadPool::builder().build().unwrap().workers(), 2);
        // A count out of range is reported as the variable's value, not as a `workers(n)`
        // call the user never made.
        for bad in ["0".to_string(), (MAX_WORKERS + 1).to_string()] {
            set(&bad);
            let e = ThreadPool::builder().build().unwrap_err();
            assert!(
                matches!(&e, BuildError::InvalidEnv { value } if *value == bad),
                "{WORKERS_ENV}={bad}: {e:?}"
            );
            let msg = e.to_string();
            assert!(
                msg.contains(WORKERS_ENV) && msg.contains(&bad) && !msg.contains("workers("),
                "the message does not name the variable: {msg}"
            );
        }
        set("0");
        // rayon's builder reads 0 as "automatic" (like RAYON_NUM_THREADS=0): every core.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let p = offshoot::ThreadPoolBuilder::new().build().unwrap();
        assert_eq!(p.current_num_threads(), cores);
        drop(p);
        // ... and an explicit count ignores the variable; a bad value is still an error.
        set("bad");
        let p = offshoot::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert_eq!(p.current_num_threads(), 2);
        drop(p);
        assert!(matches!(
            offshoot::ThreadPoolBuilder::new().build(),
            Err(BuildError::InvalidEnv { .. })
        ));
        set("3");
        let p = offshoot::ThreadPoolBuilder::new()
            .num_threads(0)
            .build()
            .unwrap();
        assert_eq!(p.current_num_threads(), 3);
        drop(p);
        set(&(MAX_WORKERS + 1).to_string());
        assert!(matches!(
            offshoot::ThreadPoolBuilder::new().build(),
            Err(BuildError::InvalidEnv { .. })
        ));

        // A good value makes the global pool start, with that size.
        set("3");
        assert_eq!(ThreadPool::global().workers(), 3);
        assert_eq!(offshoot::join(|| 1, || 2), (1, 2));
        // It is created once: later changes do not matter.
        set("bad");
        assert_eq!(ThreadPool::global().workers(), 3);
        assert!(matches!(
            ThreadPool::builder().workers(1).build_global(),
            Err(BuildError::GlobalAlreadyInitialized)
        ));
        std::env::remove_var(WORKERS_ENV);
        // rayon's error, word for word, from rayon's builder too (rayon users' tests
        // compare the text).
        let e = offshoot::ThreadPoolBuilder::new()
            .build_global()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "The global thread pool has already been initialized."
        );
        assert!(std::error::Error::source(&e).is_none());
    })
}
