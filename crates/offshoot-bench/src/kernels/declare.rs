//! How a kernel is declared: once, as a [`Kernel`] that names its description, how its input
//! is prepared, and each contender it has together with the function that runs it. The
//! contender list the harness and the reports read ([`KernelInfo::contenders`]) is derived
//! from those functions, so the two cannot disagree: a contender is listed exactly when the
//! kernel gives it a function, and the function's type is the one its contender needs
//! (chili's gets the pool's scope, tokio's and kameo's the runtime) — a mismatch does not
//! compile.
//!
//! A kernel's state (its input, its output and the reference answer) implements [`Work`]:
//! the untimed reset, the oracle that accepts the serial answer and the check of every
//! later answer. Kernels whose answer is one value use [`super::plain::Plain`] as their
//! state and share that code; the loop kernels share [`super::items`]'s.
//!
//! ```ignore
//! pub fn info() -> KernelInfo {
//!     Kernel::new(ABOUT, prepare, |k| serial(k))
//!         .offshoot(|k| par::<Offshoot>(k))
//!         .rayon(|k| par::<Rayon>(k))
//!         .chili(|k, s| chili(s, k))
//!         .build()
//! }
//! ```

use std::sync::Arc;
use std::time::Duration;

use crate::curve::Point;
use crate::harness::{Contender, Pools};
use crate::peers::PeerInput;

use super::Size;

/// What a kernel is, as every report shows it.
#[derive(Clone, Copy, Debug)]
pub struct About {
    /// Name used on the command line (`--kernels`).
    pub name: &'static str,
    /// What it computes, in one sentence.
    pub about: &'static str,
    /// The cutoff used by every contender ("none" when there is none).
    pub cutoff: &'static str,
    /// Where the kernel comes from.
    pub source: &'static str,
}

/// A kernel's prepared state: its input, its last answer and the reference answer.
pub trait Work: Send + 'static {
    /// A short description of the input, e.g. `fib(32)`.
    fn input(&self) -> String;
    /// Untimed: restores the input and forgets the last answer, so that every run starts
    /// from the same state and a contender that produced nothing cannot pass
    /// [`Work::check`].
    fn reset(&mut self);
    /// Untimed: validates the last (serial) answer against an independent oracle (known
    /// values, a DP, std's sort, the naive product, ...) and keeps it as the reference for
    /// [`Work::check`].
    fn accept_reference(&mut self) -> Result<(), String>;
    /// Untimed: compares the last answer with the reference.
    fn check(&self) -> Result<(), String>;
    /// Untimed, after a run: the interval the last run timed itself, for a kernel whose
    /// figure is not the whole call (the abort kernels: from the failure to the caller's
    /// return). The harness records it in place of the call's wall time. `None`, the
    /// default: the call is what is timed.
    fn timed(&self) -> Option<Duration> {
        None
    }
}

/// A function given a scope of the chili pool.
type ChiliFn<S> = Box<dyn Fn(&mut S, &mut chili::Scope<'_>) + Send + Sync>;
/// A function given the tokio runtime.
type RuntimeFn<S> = Box<dyn Fn(&mut S, &tokio::runtime::Runtime) + Send + Sync>;
/// A `prepare` that may run the kernel's contenders.
type PrepareFn<S> = Box<dyn Fn(Size, &Kernel<S>) -> S + Send + Sync>;

/// A contender's function, of the form its runtime calls it in.
enum Version<S> {
    /// Called on the current thread: serial and threads as they are, offshoot's versions
    /// inside `ThreadPool::run`, rayon's inside `ThreadPool::install`.
    Call(Box<dyn Fn(&mut S) + Send + Sync>),
    /// Given a scope of the chili pool.
    Chili(ChiliFn<S>),
    /// Given the tokio runtime (tokio, kameo); it calls `block_on` itself.
    Runtime(RuntimeFn<S>),
}

/// The peers' arguments and expected answer, from a state whose reference was accepted.
type PeerArgs<S> = Box<dyn Fn(&S) -> Result<PeerInput, String> + Send + Sync>;

/// A kernel's declaration: build it with [`Kernel::new`], give each contender its function,
/// and turn it into the registry's [`KernelInfo`] with [`Kernel::build`].
pub struct Kernel<S> {
    about: About,
    prepare: PrepareFn<S>,
    versions: Vec<(Contender, Version<S>)>,
    peers: Vec<Contender>,
    peer_input: Option<PeerArgs<S>>,
    curve: Option<Point>,
}

/// The builder methods of the contenders that are called on the current thread.
macro_rules! call_contenders {
    ($($(#[$doc:meta])* $method:ident => $contender:ident,)*) => {
        $(
            $(#[$doc])*
            pub fn $method(self, f: impl Fn(&mut S) + Send + Sync + 'static) -> Self {
                self.with(Contender::$contender, Version::Call(Box::new(f)))
            }
        )*
    };
}

impl<S: Work> Kernel<S> {
    /// A kernel described by `about`, whose input `prepare` builds (untimed), with its plain
    /// serial program `serial` (the reference every other contender is checked against).
    pub fn new(
        about: About,
        prepare: impl Fn(Size) -> S + Send + Sync + 'static,
        serial: impl Fn(&mut S) + Send + Sync + 'static,
    ) -> Self {
        Self::new_with(about, move |size, _| prepare(size), serial)
    }

    /// Like [`Kernel::new`], for a `prepare` that runs the kernel's own contenders once
    /// while it builds the input (untimed: the search kernels' visit counts), through
    /// [`Kernel::run`] and [`Kernel::contenders`].
    pub fn new_with(
        about: About,
        prepare: impl Fn(Size, &Kernel<S>) -> S + Send + Sync + 'static,
        serial: impl Fn(&mut S) + Send + Sync + 'static,
    ) -> Self {
        Kernel {
            about,
            prepare: Box::new(prepare),
            versions: vec![(Contender::Serial, Version::Call(Box::new(serial)))],
            peers: Vec::new(),
            peer_input: None,
            curve: None,
        }
    }

    call_contenders! {
        /// offshoot's version; the harness calls it inside `ThreadPool::run`.
        offshoot => Offshoot,
        /// offshoot with a hand-threaded cancellation token (search kernels).
        offshoot_ct => OffshootCt,
        /// offshoot with no termination (search kernels).
        offshoot_af => OffshootAf,
        /// offshoot with a fork-join per step, rayon's way (phaser kernels).
        offshoot_fj => OffshootFj,
        /// offshoot's plain actors instead of selectors (selector kernels).
        offshoot_actors => OffshootActors,
        /// offshoot's tasks and channels instead of actors (actor kernels).
        offshoot_tasks => OffshootTasks,
        /// rayon's version; the harness calls it inside `ThreadPool::install`.
        rayon => Rayon,
        /// The version on plain OS threads with `std::sync` (the blocking baseline); it
        /// starts and joins its own threads.
        threads => Threads,
    }

    /// chili's version, given a scope of the chili pool.
    pub fn chili(self, f: impl Fn(&mut S, &mut chili::Scope<'_>) + Send + Sync + 'static) -> Self {
        self.with(Contender::Chili, Version::Chili(Box::new(f)))
    }

    /// tokio's version, given the runtime (it calls `rt.block_on` itself).
    pub fn tokio(
        self,
        f: impl Fn(&mut S, &tokio::runtime::Runtime) + Send + Sync + 'static,
    ) -> Self {
        self.with(Contender::Tokio, Version::Runtime(Box::new(f)))
    }

    /// kameo's version (Savina kernels), given the tokio runtime (it calls `rt.block_on`
    /// itself).
    pub fn kameo(
        self,
        f: impl Fn(&mut S, &tokio::runtime::Runtime) + Send + Sync + 'static,
    ) -> Self {
        self.with(Contender::Kameo, Version::Runtime(Box::new(f)))
    }

    /// The peers in other languages ([`crate::peers`]) that have this kernel, and how they
    /// get their arguments and expected answer (untimed, after the serial answer was
    /// accepted).
    ///
    /// # Panics
    /// If `peers` names a contender that is not a peer, or the kernel has peers already.
    pub fn peers(
        mut self,
        peers: &[Contender],
        input: impl Fn(&S) -> Result<PeerInput, String> + Send + Sync + 'static,
    ) -> Self {
        assert!(
            self.peer_input.is_none(),
            "{}: peers given twice",
            self.about.name
        );
        for &p in peers {
            assert!(
                p.is_peer(),
                "{}: {} is not a peer",
                self.about.name,
                p.name()
            );
        }
        self.peers = peers.to_vec();
        self.peer_input = Some(Box::new(input));
        self
    }

    /// Declares the kernel a point of a curve ([`crate::curve`]): the reports read it with
    /// the kernel's other points, as one table of efficiencies by `point.x`.
    pub fn curve(mut self, point: Point) -> Self {
        self.curve = Some(point);
        self
    }

    fn with(mut self, contender: Contender, version: Version<S>) -> Self {
        assert!(
            self.versions.iter().all(|(c, _)| *c != contender),
            "{}: {} declared twice",
            self.about.name,
            contender.name()
        );
        self.versions.push((contender, version));
        self
    }

    /// The kernel's parallel contenders, in report order ([`Contender::PARALLEL`]): those
    /// it gave a function, and its peers.
    pub fn contenders(&self) -> Vec<Contender> {
        Contender::PARALLEL
            .into_iter()
            .filter(|c| self.peers.contains(c) || self.versions.iter().any(|(v, _)| v == c))
            .collect()
    }

    /// Runs `contender`'s function on `state`: serial and threads on this thread, the
    /// others on their runtime in `pools`.
    ///
    /// # Panics
    /// If the kernel has no function for `contender` (a peer, or one it does not have), or
    /// a pooled contender is given no pools.
    pub fn run(&self, state: &mut S, contender: Contender, pools: Option<&Pools>) {
        let version = self
            .versions
            .iter()
            .find(|(c, _)| *c == contender)
            .map(|(_, v)| v)
            .unwrap_or_else(|| {
                panic!(
                    "{}: no {} version to run",
                    self.about.name,
                    contender.name()
                )
            });
        let pools = || pools.unwrap_or_else(|| panic!("{} runs in a pool", contender.name()));
        match version {
            Version::Call(f) => match contender {
                Contender::Serial | Contender::Threads => f(state),
                Contender::Rayon => pools().rayon.install(|| f(state)),
                _ => pools().offshoot.run(|| f(state)),
            },
            Version::Chili(f) => {
                let mut scope = pools().chili.scope();
                f(state, &mut scope);
            }
            Version::Runtime(f) => f(state, &pools().tokio),
        }
    }

    /// Runs `contender`'s function on `state` on the current thread: for a caller that
    /// already runs inside the contender's pool (the profiler's traced pool).
    ///
    /// # Panics
    /// If `contender`'s function needs a chili scope or a runtime, or there is none.
    pub fn call(&self, state: &mut S, contender: Contender) {
        match self.versions.iter().find(|(c, _)| *c == contender) {
            Some((_, Version::Call(f))) => f(state),
            _ => panic!(
                "{}: no {} version to call on this thread",
                self.about.name,
                contender.name()
            ),
        }
    }

    /// The registry entry: the description, the derived contender list, and a `prepare`
    /// that builds a state and pairs it with this declaration.
    pub fn build(self) -> KernelInfo {
        let contenders = self.contenders();
        let about = self.about;
        let curve = self.curve;
        let kernel = Arc::new(self);
        KernelInfo {
            about,
            contenders,
            curve,
            prepare: Arc::new(move |size| {
                let state = (kernel.prepare)(size, &kernel);
                Box::new(Prepared {
                    state,
                    kernel: kernel.clone(),
                })
            }),
        }
    }
}

/// A registry entry: what every report shows of a kernel, and how to prepare it.
#[derive(Clone)]
pub struct KernelInfo {
    about: About,
    contenders: Vec<Contender>,
    curve: Option<Point>,
    prepare: Arc<dyn Fn(Size) -> Box<dyn Instance> + Send + Sync>,
}

impl std::ops::Deref for KernelInfo {
    type Target = About;
    fn deref(&self) -> &About {
        &self.about
    }
}

impl KernelInfo {
    /// Its parallel contenders, in the order of [`Contender::PARALLEL`] (serial always
    /// runs), as its declaration gives them.
    pub fn contenders(&self) -> &[Contender] {
        &self.contenders
    }

    /// The kernel's place on a curve, if its declaration gives one ([`Kernel::curve`]).
    pub fn curve(&self) -> Option<Point> {
        self.curve
    }

    /// Builds an instance (untimed): input generation and any setup.
    pub fn prepare(&self, size: Size) -> Box<dyn Instance> {
        (self.prepare)(size)
    }
}

/// A prepared kernel input that every contender of the kernel can run: what the harness
/// drives.
pub trait Instance: Send {
    /// A short description of the input, e.g. `fib(32)`.
    fn input(&self) -> String;
    /// Untimed: restores the input and forgets the last answer.
    fn reset(&mut self);
    /// Runs `contender` (see [`Kernel::run`]).
    fn run(&mut self, contender: Contender, pools: Option<&Pools>);
    /// Runs `contender` on this thread, inside its pool (see [`Kernel::call`]).
    fn call(&mut self, contender: Contender);
    /// Untimed: validates the serial answer and keeps it (see [`Work::accept_reference`]).
    fn accept_reference(&mut self) -> Result<(), String>;
    /// Untimed: compares the last answer with the reference.
    fn check(&self) -> Result<(), String>;
    /// Untimed: the interval the last run timed itself, if the kernel times one (see
    /// [`Work::timed`]).
    fn timed(&self) -> Option<Duration>;
    /// Untimed, after [`Instance::accept_reference`]: the arguments and the expected answer
    /// of the peers in other languages ([`crate::peers`]).
    fn peer_input(&self) -> Result<PeerInput, String>;
}

/// A kernel's state paired with its declaration.
struct Prepared<S> {
    state: S,
    kernel: Arc<Kernel<S>>,
}

impl<S: Work> Instance for Prepared<S> {
    fn input(&self) -> String {
        self.state.input()
    }
    fn reset(&mut self) {
        self.state.reset();
    }
    fn run(&mut self, contender: Contender, pools: Option<&Pools>) {
        self.kernel.run(&mut self.state, contender, pools);
    }
    fn call(&mut self, contender: Contender) {
        self.kernel.call(&mut self.state, contender);
    }
    fn accept_reference(&mut self) -> Result<(), String> {
        self.state.accept_reference()
    }
    fn check(&self) -> Result<(), String> {
        self.state.check()
    }
    fn timed(&self) -> Option<Duration> {
        self.state.timed()
    }
    fn peer_input(&self) -> Result<PeerInput, String> {
        match &self.kernel.peer_input {
            Some(f) => f(&self.state),
            None => Err("this kernel has no peer version".to_string()),
        }
    }
}
