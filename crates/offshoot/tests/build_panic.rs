//! A failure while a pool is being built leaks no thread: when the user's `thread_name`
//! callback panics for worker `i`, the workers already started must be stopped and joined
//! before the panic reaches the caller. (Own test binary with a single test, because it
//! counts the process's threads.)

mod common;

use common::{bounded, panic_message, thread_count, PATIENCE};
use offshoot::ThreadPool;

#[test]
fn panic_in_thread_name_leaks_no_thread() {
    bounded(|| {
        // The blocked-worker watch's thread starts with the first pool and stays for the
        // process's life: start it before counting (its pool joined with `shutdown`).
        let before = thread_count();
        ThreadPool::builder().workers(1).build().unwrap().shutdown();
        let start = std::time::Instant::now();
        while thread_count() > before + 1 && start.elapsed() < PATIENCE {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let base = thread_count();
        assert_eq!(base, before + 1, "one watch thread, no worker left");
        for fail_at in [1, 2, 3] {
            let msg = panic_message(|| {
                ThreadPool::builder()
                    .workers(4)
                    .thread_name(move |i| {
                        if i == fail_at {
                            common::boom("thread_name")
                        }
                        format!("named-{i}")
                    })
                    .build()
            });
            assert_eq!(msg, common::boom_msg("thread_name"));
        }
        // Threads that were joined may be counted a moment longer, until the kernel reaps them.
        let start = std::time::Instant::now();
        while thread_count() > base && start.elapsed() < PATIENCE {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(
            thread_count(),
            base,
            "worker threads leaked by a failed build"
        );
    })
}
