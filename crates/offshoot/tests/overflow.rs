//! A task that overflows its fiber stack aborts the process with a message that names
//! `Builder::stack_size` (not a bare SIGSEGV), a fault that is not an overflow still kills
//! with SIGSEGV, and deep but legal recursion is left alone.
//!
//! The dying cases run in a child process: this test binary started again with
//! `OFFSHOOT_TEST_CHILD` set to the case, running only the `child` test. The parent checks
//! how the child died and what it wrote to stderr. The child is bounded in time (it is
//! killed, and the test fails, if it has not died within `LIMIT`).
#![cfg(feature = "sync")]
#![cfg(target_os = "linux")]

mod common;

use std::hint::black_box;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use offshoot::sync::Event;
use offshoot::ThreadPool;

/// How long a child may take to die; it takes milliseconds.
const LIMIT: Duration = Duration::from_secs(60);

/// The fiber stack size of the overflowing pools.
const SMALL_STACK: usize = 64 << 10;

/// Recurses until the stack runs out: 256 bytes of frame per call that the optimiser can
/// neither drop nor turn into a loop (the array goes through `black_box`, and the call's
/// result is used after it returns).
#[inline(never)]
fn recurse_forever(depth: u64) -> u64 {
    let frame = black_box([depth; 32]);
    if black_box(depth) == u64::MAX {
        return 0; // never: keeps the recursion from being "unconditional"
    }
    let below = recurse_forever(depth + 1);
    below.wrapping_add(frame[(depth % 32) as usize])
}

/// Recurses until the stack below `top` holds `budget` bytes, then returns the depth.
#[inline(never)]
fn descend(top: usize, budget: usize) -> u64 {
    let frame = black_box([0u8; 512]);
    let here = frame.as_ptr() as usize;
    if top.saturating_sub(here) >= budget {
        return 1;
    }
    1 + descend(top, budget) + u64::from(frame[511])
}

/// The address of a local of the caller's frame (about where its stack pointer is).
#[inline(never)]
fn stack_here() -> usize {
    let x = black_box(0u8);
    &x as *const u8 as usize
}

fn pool(stack: usize) -> ThreadPool {
    ThreadPool::builder()
        .workers(1)
        .stack_size(stack)
        .build()
        .unwrap()
}

/// The entry point of child processes; does nothing in a normal test run.
#[test]
fn child() {
    let Ok(case) = std::env::var(common::CHILD_ENV) else {
        return;
    };
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: a valid rlimit; a child that is about to die need not dump core.
    unsafe { libc::setrlimit(libc::RLIMIT_CORE, &no_core) };
    match case.as_str() {
        // The first fiber of the worker overflows.
        "overflow" => {
            let r = pool(SMALL_STACK).run(|| recurse_forever(0));
            println!("survived: {r}");
        }
        // A task parks, and the task the worker runs meanwhile (on a second fiber, whose
        // guard page the driver recorded when it switched) overflows.
        "overflow-second-fiber" => {
            let ev = Arc::new(Event::new());
            let r = pool(SMALL_STACK).run(|| {
                offshoot::join(
                    || *ev.wait(),
                    || {
                        ev.set(1u64).unwrap();
                        recurse_forever(0)
                    },
                )
            });
            println!("survived: {r:?}");
        }
        // Started with SIGSEGV and SIGBUS ignored, so std installed no handler and gives
        // its threads no alternate signal stack: the driver must map one.
        "overflow-no-std-altstack" => {
            let has_altstack = std::thread::spawn(|| {
                let mut st = std::mem::MaybeUninit::<libc::stack_t>::zeroed();
                // SAFETY: a null new stack only reads the current one into `st`.
                assert_eq!(
                    unsafe { libc::sigaltstack(std::ptr::null(), st.as_mut_ptr()) },
                    0
                );
                // SAFETY: filled by the successful call above.
                unsafe { st.assume_init() }.ss_flags & libc::SS_DISABLE == 0
            })
            .join()
            .unwrap();
            assert!(
                !has_altstack,
                "std gave its thread an alternate signal stack"
            );
            let r = pool(SMALL_STACK).run(|| recurse_forever(0));
            println!("survived: {r}");
        }
        // A task reads a page it may not: a plain SIGSEGV, passed on to the default action.
        "fault" => {
            pool(SMALL_STACK).run(|| {
                // SAFETY: a fresh private mapping that no one else uses.
                let page = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        4096,
                        libc::PROT_NONE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                        -1,
                        0,
                    )
                };
                assert_ne!(page, libc::MAP_FAILED);
                // SAFETY: the pointer is non-null and aligned; the page is PROT_NONE, so the
                // read faults, which is what this case tests: it never completes.
                let v = unsafe { std::ptr::read_volatile(page.cast::<u8>()) };
                println!("survived: {v}");
            });
        }
        other => panic!("unknown child case {other:?}"),
    }
}

/// Runs `case` in a child process; returns how it ended and its stderr. With
/// `ignore_faults`, the child starts with SIGSEGV and SIGBUS ignored.
fn run_child(case: &str, ignore_faults: bool) -> (ExitStatus, String) {
    let (status, stderr) = common::run_child("child", case, LIMIT, |cmd| {
        // Under ThreadSanitizer (scripts/tsan.sh), TSan installs its own SIGSEGV handler
        // first, so the one the runtime passes other faults on to is TSan's, which reports
        // "SEGV on unknown address" and exits with 66 instead of dying of the signal. The
        // child leaves SIGSEGV to the program (and so the default action) as without TSan.
        #[cfg(offshoot_tsan)]
        {
            let opts = std::env::var("TSAN_OPTIONS").unwrap_or_default();
            cmd.env("TSAN_OPTIONS", format!("{opts} handle_segv=0"));
        }
        if ignore_faults {
            // SAFETY: the closure runs in the forked child before exec and calls only
            // `signal`, which is async-signal-safe; an ignored disposition survives exec.
            unsafe {
                cmd.pre_exec(|| {
                    libc::signal(libc::SIGSEGV, libc::SIG_IGN);
                    libc::signal(libc::SIGBUS, libc::SIG_IGN);
                    Ok(())
                });
            }
        }
    });
    let status = status.unwrap_or_else(|| panic!("child {case:?} still running after {LIMIT:?}"));
    (status, stderr)
}

fn assert_overflow_abort(case: &str, ignore_faults: bool) {
    let (status, stderr) = run_child(case, ignore_faults);
    assert_eq!(
        status.signal(),
        Some(libc::SIGABRT),
        "child {case:?} should abort; it ended with {status:?}, stderr:\n{stderr}"
    );
    assert!(
        stderr.contains("offshoot: a task overflowed its 64 KiB fiber stack")
            && stderr.contains("`Builder::stack_size`"),
        "child {case:?} aborted without the overflow message; stderr:\n{stderr}"
    );
}

#[test]
fn overflow_aborts_with_a_message() {
    assert_overflow_abort("overflow", false);
}

#[test]
fn overflow_on_a_later_fiber_aborts_with_a_message() {
    assert_overflow_abort("overflow-second-fiber", false);
}

/// Without std's handler (and so without std's alternate signal stacks), the driver maps
/// an alternate signal stack itself; the handler replaced "ignore", which it passes on.
#[test]
fn overflow_without_std_handler_aborts_with_a_message() {
    assert_overflow_abort("overflow-no-std-altstack", true);
}

#[test]
fn other_faults_are_passed_on() {
    let (status, stderr) = run_child("fault", false);
    assert_eq!(
        status.signal(),
        Some(libc::SIGSEGV),
        "a bad read should still die of SIGSEGV; it ended with {status:?}, stderr:\n{stderr}"
    );
    assert!(
        !stderr.contains("overflowed"),
        "a bad read was reported as an overflow; stderr:\n{stderr}"
    );
}

/// Recursion through most of a fiber's stack, also while another fiber runs and after the
/// deep one parked and resumed, is not taken for an overflow.
#[test]
fn deep_legal_recursion_is_fine() {
    common::bounded(|| {
        const STACK: usize = 512 << 10;
        // The scheduler's frames under a task take far less than this.
        const BUDGET: usize = STACK - (64 << 10);
        let pool = ThreadPool::builder()
            .workers(2)
            .stack_size(STACK)
            .build()
            .unwrap();
        let ev = Arc::new(Event::new());
        let (a, b) = pool.run(|| {
            offshoot::join(
                || {
                    let depth = descend(stack_here(), BUDGET);
                    // Park deep in the recursion; resume on the same, still deep, stack.
                    ev.wait();
                    depth + descend(stack_here(), 4096)
                },
                || {
                    let depth = descend(stack_here(), BUDGET);
                    ev.set(()).unwrap();
                    depth
                },
            )
        });
        assert!(a > 100 && b > 100, "depths {a} and {b}");
    });
}
