//! [`Mpi`]: the product's transport, on MPI point-to-point messages (feature `mpi`).
//!
//! Every message is one MPI message of bytes on `MPI_COMM_WORLD` with tag 0. Sends are
//! immediate (`MPI_Isend`): the buffer is kept until the send completes, which the agent
//! checks at every receive, so two ranks that send each other large messages at once never
//! wait on each other. Receives probe (`MPI_Improbe`) and never block.
//!
//! Invariants:
//! * Only the thread that called [`Mpi::init`] uses MPI (`MPI_THREAD_FUNNELED`): the
//!   agent is that thread, since [`Session::run`](crate::Session::run) runs the agent on
//!   its caller.
//! * A send buffer lives, leaked, from its `MPI_Isend` until its request completes; then it
//!   is freed exactly once. `flush` (and drop) complete every request before MPI finalizes.

use mpi::environment::Universe;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::request::{Request, StaticScope};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Threading;

use crate::transport::Transport;

/// A send in flight: its request and its leaked buffer.
type InFlight = (Request<'static, [u8], StaticScope>, *mut [u8]);

/// The MPI transport: one per process, made once with [`Mpi::init`] and given to a
/// [`Session`](crate::Session), which runs any number of distributed runs on it; MPI is
/// finalized when it is dropped (with the session, at the end of the program).
///
/// ```no_run
/// // Under `mpirun -np 4 ./program`:
/// let mut session = offshoot_mpi::Session::new(offshoot_mpi::Mpi::init().expect("MPI"));
/// let pool = offshoot::ThreadPool::builder().build().unwrap();
/// let tasks = offshoot_mpi::Tasks::new();
/// let out = session.run(&pool, &tasks, &Default::default(), || 42).unwrap();
/// if out.rank == 0 {
///     assert_eq!(out.value, Some(42));
/// }
/// ```
pub struct Mpi {
    /// Outstanding sends and their leaked buffers; completed before `universe` drops.
    sends: Vec<InFlight>,
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
    /// Ranks on this rank's node (`MPI_Comm_split_type` with `MPI_COMM_TYPE_SHARED`).
    local_size: usize,
    // Dropped last: finalizes MPI.
    _universe: Universe,
}

impl std::fmt::Debug for Mpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mpi")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .field("sends in flight", &self.sends.len())
            .finish()
    }
}

/// Why [`Mpi::init`] failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InitError {
    /// MPI was initialized already in this process (by this crate or another).
    AlreadyInitialized,
    /// The MPI library gives less than `MPI_THREAD_FUNNELED` (the pool's workers exist
    /// beside the thread that uses MPI).
    ThreadLevel,
}

impl std::fmt::Display for InitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InitError::AlreadyInitialized => {
                write!(
                    f,
                    "offshoot-mpi: MPI is initialized already in this process"
                )
            }
            InitError::ThreadLevel => write!(
                f,
                "offshoot-mpi: this MPI library does not support MPI_THREAD_FUNNELED"
            ),
        }
    }
}

impl std::error::Error for InitError {}

impl Mpi {
    /// Initializes MPI (`MPI_Init_thread` with `MPI_THREAD_FUNNELED`) on the calling thread,
    /// which must then be the one that calls [`Session::run`](crate::Session::run).
    ///
    /// Started without `mpirun`, an MPI program runs as one rank (a *singleton*): the run
    /// is then plain offshoot on this process.
    ///
    /// # Errors
    ///
    /// [`InitError`] when MPI is initialized already or lacks the thread level.
    pub fn init() -> Result<Mpi, InitError> {
        let (universe, level) = mpi::initialize_with_threading(Threading::Funneled)
            .ok_or(InitError::AlreadyInitialized)?;
        if level < Threading::Funneled {
            return Err(InitError::ThreadLevel);
        }
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        // A collective call: every rank makes it here, in `init`.
        let local_size = world.split_shared(world.rank()).size() as usize;
        Ok(Mpi {
            sends: Vec::new(),
            world,
            rank,
            size,
            local_size,
            _universe: universe,
        })
    }

    /// Frees the buffers of the sends that have completed.
    fn progress(&mut self) {
        let mut i = 0;
        while i < self.sends.len() {
            let (req, buf) = self.sends.swap_remove(i);
            match req.test() {
                Ok(_) => {
                    // SAFETY: `buf` came from `Box::into_raw` in `send`, and its request has
                    // completed, so MPI no longer reads it; it is freed once, here.
                    drop(unsafe { Box::from_raw(buf) });
                }
                Err(req) => {
                    self.sends.push((req, buf));
                    let last = self.sends.len() - 1;
                    self.sends.swap(i, last);
                    i += 1;
                }
            }
        }
    }
}

impl Transport for Mpi {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn send(&mut self, to: usize, bytes: Vec<u8>) {
        let buf: *mut [u8] = Box::into_raw(bytes.into_boxed_slice());
        // SAFETY: the buffer is leaked until its request completes (`progress`, `flush`), so
        // the `'static` borrow MPI holds stays valid for as long as MPI uses it.
        let data: &'static [u8] = unsafe { &*buf };
        let req = self
            .world
            .process_at_rank(to as i32)
            .immediate_send(StaticScope, data);
        self.sends.push((req, buf));
    }

    fn try_recv(&mut self) -> Option<(usize, Vec<u8>)> {
        self.progress();
        let probed = self.world.any_process().immediate_matched_probe()?;
        let (data, status) = probed.matched_receive_vec::<u8>();
        Some((status.source_rank() as usize, data))
    }

    fn local_size(&self) -> usize {
        self.local_size
    }

    fn flush(&mut self) {
        for (req, buf) in self.sends.drain(..) {
            req.wait();
            // SAFETY: as in `progress`: the request completed.
            drop(unsafe { Box::from_raw(buf) });
        }
    }
}

impl Drop for Mpi {
    fn drop(&mut self) {
        // Every request completes before MPI finalizes (and before a Request drops).
        self.flush();
    }
}
