//! Who holds a lock a parked task waits for, read through the lock's probe at a check.

/// Who holds a lock that a task waits for, as the watch reads it during a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holder {
    /// Nobody: a release happened, and its wake of a waiter is on its way.
    Free,
    /// Tasks (the identity of the one that holds it alone, 0 for readers).
    Task(u64),
    /// A thread outside every pool (its identity, or 0 when the lock cannot say which).
    Outside(u64),
    /// Read shares of the reader-writer lock at `lock`, `count` of them held or sought by
    /// threads outside every pool (the others by tasks).
    OutsideReaders { lock: usize, count: usize },
}

impl Holder {
    /// Classifies the identity a lock records for its holder (0: free).
    pub(crate) fn of(id: u64) -> Holder {
        if id == 0 {
            Holder::Free
        } else if id & crate::worker::task_id::OUTSIDE_THREAD != 0 {
            Holder::Outside(id)
        } else {
            Holder::Task(id)
        }
    }
}

/// A lock that can say who holds it now, for [`HolderProbe`].
pub(crate) trait HoldsLock {
    /// Who holds it: a snapshot, exact while nothing else runs.
    fn holder_now(&self) -> Holder;
}

/// How the watch reads who holds the lock a parked task waits for (`WaitOn::probe`): the
/// lock's address and a reader for its type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HolderProbe {
    addr: usize,
    read: unsafe fn(usize) -> Holder,
}

impl HolderProbe {
    /// A probe of `lock`.
    pub(crate) fn of<L: HoldsLock>(lock: &L) -> HolderProbe {
        /// # Safety
        /// `addr` is the address of a live `L`.
        unsafe fn read<L: HoldsLock>(addr: usize) -> Holder {
            // SAFETY: guaranteed by the caller.
            unsafe { (*(addr as *const L)).holder_now() }
        }
        HolderProbe {
            addr: lock as *const L as usize,
            read: read::<L>,
        }
    }

    /// Reads the holder.
    ///
    /// # Safety
    /// The lock must be alive: the watch calls this only for a task parked in a wait on it
    /// (the wait borrows the lock) while it holds the list the task is parked on.
    pub(super) unsafe fn holder(self) -> Holder {
        // SAFETY: guaranteed by the caller.
        unsafe { (self.read)(self.addr) }
    }
}
