//! A stack size the system cannot give is a build error, never a hang: above
//! `MAX_STACK_SIZE` (from `Builder::stack_size` or `RUST_MIN_STACK`) `build` refuses it,
//! and below `MIN_STACK_SIZE` (from `Builder::stack_size` or
//! `ThreadPoolBuilder::stack_size`: 0 and 1 too) as well,
//! and when a worker cannot map its first stack `build` fails with `WorkerStart` instead of
//! handing out a pool whose first `run` would wait forever. The global pool refuses to
//! start with a message that says what to fix. Environment variables and resource limits
//! are process-wide, so this file is its own test binary with a single test.

mod common;

use offshoot::{BuildError, ThreadPool, MAX_STACK_SIZE, MIN_STACK_SIZE};

#[test]
fn stack_sizes_the_system_cannot_give_are_build_errors() {
    common::bounded(|| {
        // Too large for any pool.
        for size in [MAX_STACK_SIZE + 1, usize::MAX / 2, usize::MAX] {
            let e = ThreadPool::builder()
                .workers(2)
                .stack_size(size)
                .build()
                .unwrap_err();
            match e {
                BuildError::StackTooLarge { requested, limit } => {
                    assert_eq!((requested, limit), (size, MAX_STACK_SIZE));
                }
                ref other => panic!("stack_size({size}) gave {other:?}"),
            }
            let msg = e.to_string();
            assert!(
                msg.contains(&size.to_string())
                    && msg.contains(&MAX_STACK_SIZE.to_string())
                    && msg.contains("Builder::stack_size"),
                "{msg}"
            );
        }
        // Too small for a task to start: refused, instead of a pool whose first task aborts
        // the process ("overflowed its 0-byte fiber stack").
        // Both builders (rayon's through `build` and `build_scoped` too) refuse it, and the
        // message says what was asked, the minimum, and the setting to raise.
        let too_small = |e: BuildError, size: usize, via: &str| {
            assert!(
                matches!(e, BuildError::StackTooSmall { requested, minimum }
                    if requested == size && minimum == MIN_STACK_SIZE),
                "{via}.stack_size({size}) gave {e:?}"
            );
            let msg = e.to_string();
            assert!(
                msg.contains(&format!("{size} bytes"))
                    && msg.contains(&format!("minimum of {MIN_STACK_SIZE} bytes"))
                    && msg.contains("Builder::stack_size")
                    && msg.contains("ThreadPoolBuilder::stack_size"),
                "{via}: {msg}"
            );
        };
        for size in [0, 1, 4096, MIN_STACK_SIZE - 1] {
            let e = ThreadPool::builder().workers(1).stack_size(size).build();
            too_small(e.unwrap_err(), size, "Builder");
            let rayon = || {
                offshoot::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .stack_size(size)
            };
            too_small(rayon().build().unwrap_err(), size, "ThreadPoolBuilder");
            let scoped = rayon().build_scoped(|t| t.run(), |_| ());
            too_small(scoped.unwrap_err(), size, "ThreadPoolBuilder::build_scoped");
        }
        // rayon's builder accepts the minimum and runs on it.
        let pool = offshoot::ThreadPoolBuilder::new()
            .num_threads(2)
            .stack_size(MIN_STACK_SIZE)
            .build()
            .expect("the minimum is accepted by ThreadPoolBuilder");
        assert_eq!(pool.install(|| offshoot::join(|| 1, || 2)), (1, 2));
        drop(pool);
        // The smallest accepted size runs joins, parks and loops.
        let pool = ThreadPool::builder()
            .workers(2)
            .stack_size(MIN_STACK_SIZE)
            .build()
            .expect("the minimum is accepted");
        let (a, b) = pool.run(|| offshoot::join(|| 1, || 2));
        assert_eq!(a + b, 3);
        #[cfg(feature = "sync")]
        {
            let v = pool.run(|| {
                let p = offshoot::sync::Promise::new();
                offshoot::scope(|s| {
                    s.spawn(|_| p.put(a + b).unwrap());
                    *p.get()
                })
            });
            assert_eq!(v, 3);
        }
        let sum: u64 = pool.run(|| {
            use offshoot::prelude::*;
            (0..10_000u64).into_par_iter().sum()
        });
        assert_eq!(sum, 49_995_000);
        drop(pool);
        // The largest accepted size still runs.
        let pool = ThreadPool::builder()
            .workers(1)
            .stack_size(MAX_STACK_SIZE)
            .build()
            .expect("a 1 GiB stack is mapped lazily");
        assert_eq!(pool.run(|| offshoot::join(|| 1, || 2)), (1, 2));
        drop(pool);

        // Within the limit, but the system refuses the mapping: with the address space
        // capped, a worker cannot map its first stack. `build` says so (it used to return
        // a pool whose workers had died, and the first `run` hung).
        #[cfg(target_os = "linux")]
        {
            let status = std::fs::read_to_string("/proc/self/status").unwrap();
            let vm_kib: u64 = status
                .lines()
                .find(|l| l.starts_with("VmSize:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
                .unwrap();
            let mut old = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: plain getrlimit/setrlimit on this process; the limit is restored
            // below, and 256 MiB of room is plenty for what runs meanwhile.
            unsafe {
                assert_eq!(libc::getrlimit(libc::RLIMIT_AS, &mut old), 0);
                let capped = libc::rlimit {
                    rlim_cur: vm_kib * 1024 + (256 << 20),
                    rlim_max: old.rlim_max,
                };
                assert_eq!(libc::setrlimit(libc::RLIMIT_AS, &capped), 0);
            }
            let r = ThreadPool::builder()
                .workers(2)
                .stack_size(MAX_STACK_SIZE)
                .build();
            // SAFETY: as above.
            unsafe { assert_eq!(libc::setrlimit(libc::RLIMIT_AS, &old), 0) };
            match r {
                Err(BuildError::WorkerStart { worker, reason }) => {
                    assert!(worker < 2);
                    assert!(
                        reason.contains(&MAX_STACK_SIZE.to_string())
                            && reason.contains("Builder::stack_size"),
                        "{reason}"
                    );
                }
                other => panic!("a stack beyond the address space limit gave {other:?}"),
            }
        }

        // The global pool with RUST_MIN_STACK too large: a clear panic, not a hang.
        // Edition 2021: `set_var` is safe to call; this binary runs one test, and std read
        // RUST_MIN_STACK for its own threads before the test started.
        std::env::set_var("RUST_MIN_STACK", (MAX_STACK_SIZE * 4).to_string());
        let msg = common::panic_message(|| ThreadPool::global().workers());
        assert!(
            msg.contains("cannot start the global pool") && msg.contains("RUST_MIN_STACK"),
            "{msg}"
        );
    });
}
