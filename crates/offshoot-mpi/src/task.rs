//! Tasks that can travel: a [`Task`] is a serializable value with a name every process
//! knows; [`Tasks`] is the table of them a run is given, the same on every rank.
//!
//! Invariants:
//! * A package names its task; the receiving rank runs it only through its own table, so a
//!   task is never run under another's type. An unknown name or bytes that do not decode
//!   are an error that travels back to the victim as the task's failure, never a hang.
//! * Every task's output is encoded on the rank that ran it and decoded only by the frame
//!   that exported it, which knows its type.

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A piece of work that can be shipped to another process: its data (`Self`, serialized
/// with serde) and the function that computes it ([`run`](Task::run)), known to every rank
/// by [`NAME`](Task::NAME).
///
/// ```
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// struct Fib(u64);
///
/// impl offshoot_mpi::Task for Fib {
///     const NAME: &'static str = "fib";
///     type Output = u64;
///     fn run(self) -> u64 {
///         fn fib(n: u64) -> u64 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }
///         fib(self.0)
///     }
/// }
///
/// let tasks = offshoot_mpi::Tasks::new().with::<Fib>();
/// assert!(tasks.knows("fib"));
/// ```
pub trait Task: Serialize + DeserializeOwned + Send + 'static {
    /// The name every rank registers this task under; unique within a run's [`Tasks`].
    const NAME: &'static str;
    /// What the task computes; sent back to the rank that gave the task away.
    type Output: Serialize + DeserializeOwned + Send + 'static;
    /// Computes the task. It runs on a worker of the receiving rank's pool, and may fork,
    /// loop and give work away again (locally and to other ranks) like any offshoot code.
    fn run(self) -> Self::Output;
}

/// Runs a task from its payload: decode, run, encode. `Err` says why it could not run.
type Runner = fn(&[u8]) -> Result<Vec<u8>, String>;

/// The tasks a distributed run knows, by name. Every rank must be given the same table.
///
/// ```
/// # use serde::{Deserialize, Serialize};
/// # #[derive(Serialize, Deserialize)] struct Sum(Vec<u32>);
/// # impl offshoot_mpi::Task for Sum {
/// #     const NAME: &'static str = "sum";
/// #     type Output = u64;
/// #     fn run(self) -> u64 { self.0.iter().map(|&x| x as u64).sum() }
/// # }
/// let tasks = offshoot_mpi::Tasks::new().with::<Sum>();
/// assert!(tasks.knows("sum") && !tasks.knows("fib"));
/// ```
#[derive(Clone, Default)]
pub struct Tasks {
    runners: HashMap<&'static str, (TypeId, Runner)>,
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<_> = self.runners.keys().collect();
        names.sort();
        f.debug_struct("Tasks").field("names", &names).finish()
    }
}

impl Tasks {
    /// An empty table.
    pub fn new() -> Tasks {
        Tasks::default()
    }

    /// Adds task `T` under `T::NAME`.
    ///
    /// # Panics
    ///
    /// If another task type has this name already: two tasks with one name would run each
    /// other's packages.
    pub fn with<T: Task>(mut self) -> Tasks {
        let entry: (TypeId, Runner) = (TypeId::of::<T>(), run_encoded::<T>);
        if let Some((old, _)) = self.runners.insert(T::NAME, entry) {
            assert!(
                old == TypeId::of::<T>(),
                "offshoot-mpi: two task types are registered as {:?}; give each Task a unique NAME",
                T::NAME
            );
        }
        self
    }

    /// Whether a task of this name is registered.
    pub fn knows(&self, name: &str) -> bool {
        self.runners.contains_key(name)
    }

    /// Runs the task `name` on `payload`, returning its encoded output.
    pub(crate) fn run(&self, name: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
        match self.runners.get(name) {
            Some((_, r)) => r(payload),
            None => Err(format!(
                "the task {name:?} is not registered on this rank; give every rank the same \
                 Tasks table (Tasks::new().with::<YourTask>())"
            )),
        }
    }
}

fn run_encoded<T: Task>(payload: &[u8]) -> Result<Vec<u8>, String> {
    let task: T = postcard::from_bytes(payload).map_err(|e| {
        format!(
            "a package of task {:?} did not decode ({e}); are all ranks running the same build?",
            T::NAME
        )
    })?;
    let out = task.run();
    postcard::to_stdvec(&out)
        .map_err(|e| format!("the output of task {:?} did not encode: {e}", T::NAME))
}
