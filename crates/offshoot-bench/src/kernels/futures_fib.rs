//! `futures-fib`: the n-th Fibonacci number where every call with n >= 2
//! spawns a future for fib(n-1), computes fib(n-2) itself and then gets the
//! future; no cutoff, so nearly all the time goes into making, running and
//! getting futures: the cost of a future.
//!
//! - serial: plain recursion ([`super::fib::serial`]);
//! - offshoot: `offshoot::sync::spawn_future` + `TaskFuture::get`, inside one
//!   `offshoot::finish` (the finish the futures are spawned into); in the
//!   `scoped-futures-fib` kernel, `offshoot::sync::with_future` +
//!   `ScopedFuture::get` instead (a future that cannot outlive its body, kept
//!   in the caller's stack frame); in the `handle-futures-fib` kernel,
//!   `offshoot::sync::spawn_async` + `Handle::wait` (the owned handle async code awaits:
//!   a detached computation, queued for the pool at once, no finish around it);
//! - tokio: a multi-thread runtime with as many worker threads as the
//!   offshoot pool has workers; each call `tokio::spawn`s fib(n-1) and
//!   `.await`s it. The root is spawned too, so that only the runtime's workers
//!   compute (`block_on`'s thread only waits). Async recursion needs a box per
//!   call;
//! - peers in other languages ([`crate::peers`], `futures-fib` only): Go, a goroutine per
//!   future that sends fib(n-1) on a channel of capacity 1 (the future), received after
//!   fib(n-2) (the get); C with OpenMP, a task per future writing fib(n-1) with
//!   `depend(out: a)` and a `taskwait depend(in: a)` (OpenMP 5.0) as the get, which waits for
//!   that task alone (built by gcc, `c-openmp`, and by clang on libomp, `c-openmp-clang`);
//!   C++ with oneTBB, which has no future type, a `tbb::task_group` running the one task
//!   that computes fib(n-1) as the future and its `wait` as the get; Java, a
//!   `CompletableFuture.supplyAsync` on a `ForkJoinPool(workers)` per future (flattened with
//!   `thenCompose`, as the task returns the future of its own subtree) and a `thenCombine`
//!   stage as the get, the `.await` of the tokio version (a blocking `join` per get would hold
//!   a pool thread per waiting call, and the pool starts spare threads for them: thousands).
//!   Each runs its own plain recursion as its serial version.
//!
//! Inputs: test fib(12), quick fib(22), full fib(27): about 2.9·10^4 and
//! 3.2·10^5 futures (fib(n+1) - 1 of them).
//! Cutoff: none (every call with n >= 2 makes a future).
//! Source: Imam's thesis §3.6.2, Fibonacci with futures (its Figure 2.4), without the
//! sequential cutoff.
//! Check: the serial answer must equal fib(n) computed by iteration.

use std::future::Future;
use std::pin::Pin;

use offshoot::sync::{spawn_async, spawn_future, with_future};

use super::fib;
use super::plain::{self, call, on_runtime, Plain};
use super::{About, Kernel, KernelInfo, Size};
use crate::harness::Contender;

/// What the kernel is.
pub const ABOUT: About = About {
    name: "futures-fib",
    about: "n-th Fibonacci number where every call spawns a future for fib(n-1) and gets it",
    cutoff: "none",
    source: "Imam's thesis §3.6.2, Fibonacci with futures, without the cutoff",
};

/// What the same program with scoped futures (`with_future`) is.
pub const ABOUT_SCOPED: About = About {
    name: "scoped-futures-fib",
    about:
        "futures-fib with scoped futures: each call makes a with_future for fib(n-1) and gets it",
    cutoff: "none",
    source: "Imam's thesis §3.6.2, Fibonacci with futures, without the cutoff",
};

/// What the same program with owned handles (`spawn_async`) is.
pub const ABOUT_HANDLES: About = About {
    name: "handle-futures-fib",
    about: "futures-fib with owned handles: each call makes a spawn_async for fib(n-1) and waits for it",
    cutoff: "none",
    source: "Imam's thesis §3.6.2, Fibonacci with futures, without the cutoff",
};

/// fib with an owned handle per call (`spawn_async`, `Handle::wait`), as a user writes it:
/// works inside a pool (the current one) or outside (the global pool).
pub fn by_handles(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = spawn_async(move || by_handles(n - 1));
    let b = by_handles(n - 2);
    a.wait() + b
}

/// fib with a future per call; call inside an offshoot finish (or use
/// [`offshoot()`]).
pub fn by_futures(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = spawn_future(move || by_futures(n - 1));
    let b = by_futures(n - 2);
    *a.get() + b
}

/// The offshoot version: [`by_futures`] in a finish; call inside
/// `offshoot::ThreadPool::run`.
pub fn offshoot(n: u64) -> u64 {
    offshoot::finish(|| by_futures(n))
}

/// fib with a scoped future per call (`with_future`); call inside
/// `offshoot::ThreadPool::run`.
pub fn by_scoped_futures(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    with_future(
        move || by_scoped_futures(n - 1),
        |a| {
            let b = by_scoped_futures(n - 2);
            *a.get() + b
        },
    )
}

/// fib as a boxed future that `tokio::spawn`s fib(n-1) at every call.
pub fn by_tokio_tasks(n: u64) -> Pin<Box<dyn Future<Output = u64> + Send>> {
    Box::pin(async move {
        if n < 2 {
            return n;
        }
        let a = tokio::spawn(by_tokio_tasks(n - 1));
        let b = by_tokio_tasks(n - 2).await;
        a.await.expect("a fib task panicked") + b
    })
}

/// The tokio version: [`by_tokio_tasks`] spawned onto `rt`'s workers.
pub fn tokio(rt: &tokio::runtime::Runtime, n: u64) -> u64 {
    rt.block_on(rt.spawn(by_tokio_tasks(n)))
        .expect("the root fib task panicked")
}

fn prepare(size: Size) -> Plain<u64, u64> {
    let n = match size {
        Size::Test => 12,
        Size::Quick => 22,
        Size::Full => 27,
    };
    fib::plain(n)
}

/// The registry entry.
pub fn info() -> KernelInfo {
    Kernel::new(ABOUT, prepare, call(fib::serial))
        .offshoot(call(offshoot))
        .tokio(on_runtime(tokio))
        .peers(
            Contender::PEERS,
            plain::peer_args(|n: &u64| vec![n.to_string()]),
        )
        .build()
}

/// The registry entry of the scoped futures' version.
pub fn info_scoped() -> KernelInfo {
    Kernel::new(ABOUT_SCOPED, prepare, call(fib::serial))
        .offshoot(call(by_scoped_futures))
        .tokio(on_runtime(tokio))
        .build()
}

/// The registry entry of the owned handles' version.
pub fn info_handles() -> KernelInfo {
    Kernel::new(ABOUT_HANDLES, prepare, call(fib::serial))
        .offshoot(call(by_handles))
        .tokio(on_runtime(tokio))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contenders_agree_with_serial() {
        super::super::verify(&info());
        super::super::verify(&info_scoped());
        super::super::verify(&info_handles());
    }
}
