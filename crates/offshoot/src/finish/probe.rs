//! A probe for the benchmark suite: the cost of a spawn split into its phases.

use super::task::HeapJob;
use super::{finish_core, resume_failure};
use crate::pool::in_worker;

/// How long each part of `finish::spawn` took for a run of tasks; see [`spawn_phases`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SpawnPhases {
    /// Making the descriptors: a block from the worker's free list, the task written in.
    pub create: std::time::Duration,
    /// Putting them on the worker's frame of the finish, with the poll `finish::spawn` does.
    pub enqueue: std::time::Duration,
    /// Taking them off again and running them (empty), freeing their blocks — plus
    /// waiting for tasks that thieves took.
    pub start: std::time::Duration,
}

/// A measurement probe for the benchmark suite (Venetis et al.'s cost split of a task: create,
/// enqueue, start): spawns `n` empty tasks in a new finish on the current worker, one
/// phase at a time for all `n`, and times each phase. Together the phases do what `n`
/// calls of [`finish::spawn`](crate::finish::spawn()) and the end of their finish do,
/// except that the descriptors wait in a vector between creating and enqueueing.
///
/// Outside every pool it runs in the global pool.
///
/// ```
/// let p = offshoot::probe::spawn_phases(1000);
/// assert!(p.create + p.enqueue + p.start > std::time::Duration::ZERO);
/// ```
#[doc(hidden)]
pub fn spawn_phases(n: usize) -> SpawnPhases {
    use std::time::Instant;
    in_worker(|w| {
        let r = finish_core(w, |state| {
            // SAFETY: `finish_core` made its owner frame the current finish frame of `w`.
            let frame = unsafe { &*w.current_finish() };
            let mut jobs = Vec::with_capacity(n);
            let t0 = Instant::now();
            for _ in 0..n {
                jobs.push(HeapJob::into_job(|| {}, Some(w), state));
            }
            let t1 = Instant::now();
            for job in jobs.drain(..) {
                frame.push_task(job);
                w.poll();
            }
            let t2 = Instant::now();
            frame.drain(w);
            w.wait_finish(state, frame);
            SpawnPhases {
                create: t1 - t0,
                enqueue: t2 - t1,
                start: t2.elapsed(),
            }
        });
        match r {
            Ok(v) => v,
            Err(f) => resume_failure(f),
        }
    })
}
