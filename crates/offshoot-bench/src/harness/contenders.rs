//! Who runs a kernel (`Contender`), the pools each runtime gets per worker count
//! (`Pools`, built once before anything is timed), the unpooled contender's call, and the
//! request counters read from offshoot's pools around a run.

use std::num::NonZeroUsize;

use serde::Serialize;

use crate::kernels::Instance;

/// Who runs a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contender {
    /// The plain serial program.
    Serial,
    /// offshoot, `ThreadPool::run`.
    Offshoot,
    /// offshoot with a hand-threaded cancellation token (an `AtomicBool` the
    /// program passes down and tests), in the search kernels: the baseline a
    /// eureka must match ("CT" in Imam's thesis, Fig. 4.14).
    OffshootCt,
    /// offshoot with no termination: the whole search runs to its end ("AF").
    OffshootAf,
    /// offshoot written as rayon writes an iterative program: a fork-join (a
    /// parallel loop) per step instead of long-lived tasks meeting at a phaser
    /// (the phaser kernels), to tell the phaser's cost from the scheduler's.
    OffshootFj,
    /// offshoot's plain actors where the kernel's offshoot version uses selectors: the
    /// program as an actor library user writes it (a reply or a second source stashed
    /// in the actor's state until it can be handled), to measure what selectors save
    /// (Imam's thesis, ch. 5).
    OffshootActors,
    /// offshoot's tasks and channels (`offshoot::sync`) where the kernel's offshoot
    /// version uses actors: the same program without actors.
    OffshootTasks,
    /// rayon, `ThreadPool::install`.
    Rayon,
    /// chili, `ThreadPool::scope`.
    Chili,
    /// tokio, a multi-thread `Runtime`'s `block_on` (in the Savina kernels, ractor's
    /// actors on it).
    Tokio,
    /// kameo's actors on the same tokio multi-thread runtime (`block_on`), in the Savina
    /// kernels: a second Rust actor library beside ractor.
    Kameo,
    /// Plain OS threads (`std::thread::scope`) with `std::sync`: the blocking
    /// baseline of the kernels that wait. The program decides how many
    /// threads it starts (one per task), so this contender has no worker
    /// count and runs outside every pool.
    Threads,
    /// C with OpenMP tasks (`peers/c/omp.c`, gcc `-O2 -fopenmp`): a peer in another language,
    /// an external process the harness runs once per worker count (see [`crate::peers`]).
    COpenmp,
    /// Go with a goroutine per fork and a `sync.WaitGroup`, or goroutines and channels where
    /// the tasks wait on each other (`futures-fib`, `ring`) (`peers/go/`, `go build`,
    /// `runtime.GOMAXPROCS(workers)`): a peer in another language, like [`Contender::COpenmp`].
    Go,
    /// Java with a `ForkJoinPool` (`peers/java/`, `javac`, run by `java` on a
    /// `new ForkJoinPool(workers)`: `RecursiveTask`s with `fork`/`join`, a parallel stream for
    /// the loop, `CompletableFuture`s and `ArrayBlockingQueue`s where the tasks wait on each
    /// other (`futures-fib`, `ring`)): a peer in another language, like [`Contender::COpenmp`].
    Java,
    /// The C/OpenMP peer's `peers/c/omp.c` built by clang against LLVM's OpenMP runtime
    /// (`clang -O2 -fopenmp=libomp`) instead of gcc's libgomp: the same program on the other
    /// OpenMP runtime, a peer like [`Contender::COpenmp`] with its own serial series
    /// (`clang-serial`, clang's code).
    COpenmpClang,
    /// C++ with oneTBB (`peers/cpp/tbb.cpp`, `g++ -O2 -std=c++17 ... -ltbb`):
    /// `tbb::parallel_invoke` and `tbb::task_group` for the recursive kernels,
    /// `tbb::parallel_reduce` for the loop, in a `tbb::task_arena(workers)`: a peer in another
    /// language, like [`Contender::COpenmp`].
    CppTbb,
}

impl Contender {
    /// Every parallel contender, in report order.
    pub const PARALLEL: [Contender; 16] = [
        Contender::Offshoot,
        Contender::OffshootCt,
        Contender::OffshootAf,
        Contender::OffshootFj,
        Contender::OffshootActors,
        Contender::OffshootTasks,
        Contender::Rayon,
        Contender::Chili,
        Contender::Tokio,
        Contender::Kameo,
        Contender::Threads,
        Contender::COpenmp,
        Contender::Go,
        Contender::Java,
        Contender::COpenmpClang,
        Contender::CppTbb,
    ];

    /// The contenders of the fork-join kernels (most of the suite): the harness's tests use
    /// them; a kernel's own come from its declaration.
    pub const FORK_JOIN: &'static [Contender] =
        &[Contender::Offshoot, Contender::Rayon, Contender::Chili];

    /// The peers in other languages, in report order.
    pub const PEERS: &'static [Contender] = &[
        Contender::COpenmp,
        Contender::Go,
        Contender::Java,
        Contender::COpenmpClang,
        Contender::CppTbb,
    ];

    /// Whether it is one of offshoot's own versions (never a peer).
    pub fn is_offshoot(self) -> bool {
        matches!(
            self,
            Contender::Offshoot
                | Contender::OffshootCt
                | Contender::OffshootAf
                | Contender::OffshootFj
                | Contender::OffshootActors
                | Contender::OffshootTasks
        )
    }

    /// Whether it is a peer in another language: an external program with its own serial
    /// version, run as a process ([`crate::peers`]), never through [`Pools::run`].
    pub fn is_peer(self) -> bool {
        self.peer_serial_name().is_some()
    }

    /// The name of a peer's own serial program (`c-serial`); `None` for the Rust contenders,
    /// whose serial program is `serial`.
    pub fn peer_serial_name(self) -> Option<&'static str> {
        match self {
            Contender::COpenmp => Some("c-serial"),
            Contender::Go => Some("go-serial"),
            Contender::Java => Some("java-serial"),
            Contender::COpenmpClang => Some("clang-serial"),
            Contender::CppTbb => Some("cpp-serial"),
            _ => None,
        }
    }

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Contender::Serial => "serial",
            Contender::Offshoot => "offshoot",
            Contender::OffshootCt => "offshoot-ct",
            Contender::OffshootAf => "offshoot-af",
            Contender::OffshootFj => "offshoot-fj",
            Contender::OffshootActors => "offshoot-actors",
            Contender::OffshootTasks => "offshoot-tasks",
            Contender::Rayon => "rayon",
            Contender::Chili => "chili",
            Contender::Tokio => "tokio",
            Contender::Kameo => "kameo",
            Contender::Threads => "threads",
            Contender::COpenmp => "c-openmp",
            Contender::Go => "go",
            Contender::Java => "java",
            Contender::COpenmpClang => "c-openmp-clang",
            Contender::CppTbb => "cpp-tbb",
        }
    }

    /// Whether it runs once per worker count (in one of the [`Pools`], or, for a peer, as a
    /// process given the worker count); `serial` and `threads` run on threads of their own,
    /// once per round.
    pub fn pooled(self) -> bool {
        !matches!(self, Contender::Serial | Contender::Threads)
    }
}

/// One pool of each runtime with the same number of workers.
pub struct Pools {
    /// Worker threads of each pool.
    pub workers: usize,
    /// offshoot pool with `workers` workers.
    pub offshoot: offshoot::ThreadPool,
    /// rayon pool with `workers` threads.
    pub rayon: rayon::ThreadPool,
    /// chili pool with `thread_count = workers` (chili counts the thread
    /// that opens the scope as one of them).
    pub chili: chili::ThreadPool,
    /// tokio multi-thread runtime with `workers` worker threads (kameo's actors run on
    /// it too).
    pub tokio: tokio::runtime::Runtime,
}

impl Pools {
    /// Builds the four pools.
    pub fn new(workers: usize) -> Result<Self, String> {
        let count = NonZeroUsize::new(workers).ok_or("worker count must be at least 1")?;
        let offshoot = offshoot::ThreadPool::builder()
            .workers(workers)
            .build()
            .map_err(|e| format!("building an offshoot pool of {workers}: {e:?}"))?;
        let rayon = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("rayon-{i}"))
            .build()
            .map_err(|e| format!("building a rayon pool of {workers}: {e}"))?;
        let chili = chili::ThreadPool::with_config(chili::Config {
            thread_count: Some(count),
            ..Default::default()
        });
        let tokio = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("tokio")
            .build()
            .map_err(|e| format!("building a tokio runtime of {workers}: {e}"))?;
        Ok(Self {
            workers,
            offshoot,
            rayon,
            chili,
            tokio,
        })
    }

    /// Runs `inst` on `contender` (the unpooled ones as [`run_unpooled`]).
    pub fn run(&self, inst: &mut dyn Instance, contender: Contender) {
        inst.run(contender, Some(self));
    }
}

/// Runs `inst` on a contender that needs no pool: serial on the calling
/// thread, threads on the threads the kernel starts.
///
/// # Panics
/// On a pooled contender.
pub fn run_unpooled(inst: &mut dyn Instance, contender: Contender) {
    inst.run(contender, None);
}

/// offshoot's scheduler counters (a difference of two `pool.stats()`).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Counters {
    /// Seeds turned into real tasks because someone asked for work.
    pub tasks_materialized: u64,
    /// Steal requests sent by idle workers.
    pub requests_sent: u64,
    /// Requests answered with a task.
    pub requests_answered_work: u64,
    /// Requests answered with "nothing to give".
    pub requests_answered_empty: u64,
    /// Materialized tasks that their owner ran itself after all.
    pub steal_backs: u64,
}

impl Counters {
    /// Snapshot of a pool's counters.
    pub fn of(pool: &offshoot::ThreadPool) -> Self {
        let s = pool.stats();
        Self {
            tasks_materialized: s.tasks_materialized,
            requests_sent: s.requests_sent,
            requests_answered_work: s.requests_answered_work,
            requests_answered_empty: s.requests_answered_empty,
            steal_backs: s.steal_backs,
        }
    }

    /// What happened between `before` and `self`.
    pub fn since(self, before: Self) -> Self {
        Self {
            tasks_materialized: self
                .tasks_materialized
                .saturating_sub(before.tasks_materialized),
            requests_sent: self.requests_sent.saturating_sub(before.requests_sent),
            requests_answered_work: self
                .requests_answered_work
                .saturating_sub(before.requests_answered_work),
            requests_answered_empty: self
                .requests_answered_empty
                .saturating_sub(before.requests_answered_empty),
            steal_backs: self.steal_backs.saturating_sub(before.steal_backs),
        }
    }
}
