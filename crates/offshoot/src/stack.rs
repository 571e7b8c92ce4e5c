//! Fiber stacks, carved from larger mappings so that many parked tasks cost few kernel
//! mappings (`vm.max_map_count`, 65,530 by default, caps the mappings of a process).
//!
//! A stack with its own `mmap` and an `mprotect`ed guard page costs two mappings, so a
//! process could park about 32,000 tasks at once. Here a worker maps a **slab** of up to
//! [`SLAB_STACKS`] stacks at once (one mapping, about [`SLAB_BYTES`] of address space,
//! reserved, not committed: `MAP_NORESERVE`, and pages are backed only when touched) and
//! hands its stacks out in order. Each stack is `[guard page | usable stack]`, the guard at
//! the low end (stacks grow down). The guard is made with `MADV_GUARD_INSTALL` (Linux 6.13
//! and later): a marker in the page tables that faults like a `PROT_NONE` page but does not
//! split the mapping, so a slab stays one mapping whatever its number of stacks. On older
//! kernels `madvise` refuses it, and the guard falls back to `mprotect(PROT_NONE)`, which
//! splits the slab into two mappings per stack (the old cost; the park then fails with a
//! clear error near 32,000 parked tasks).
//!
//! Invariants:
//! * A stack's guard page is `[limit, limit + page)` and its usable part `[limit + page,
//!   base)`, as for corosensei's `DefaultStack`, so `overflow.rs` finds the guard from
//!   `limit()` alone; a fault there is a fiber overflow.
//! * A slab stays mapped while any of its stacks is alive (each holds an `Arc` of it) and
//!   the worker may still carve from it; the last one unmaps it. So a slab that a parked
//!   task leaks (a task that waits forever) stays mapped.
//! * A dropped stack gives its pages back (`MADV_DONTNEED`) but not its address range:
//!   stacks are not reused singly (fibers are, `fiber/mod.rs` keeps a few free ones), so at worst
//!   one live stack keeps its slab's address range reserved. Live slabs are therefore at
//!   most the live fibers plus one, and mappings at most that (one per slab).
//! * Slabs are huge-page free (`MAP_STACK`, `MADV_NOHUGEPAGE`): a touched stack page must
//!   not bring in a 2 MiB page.
//!
//! Elsewhere than Linux (and under Miri, which runs no fibers) a stack is corosensei's
//! `DefaultStack`.

pub(crate) use imp::*;

/// Address space one slab of stacks aims at.
#[cfg_attr(not(all(target_os = "linux", not(miri))), allow(dead_code))]
pub(crate) const SLAB_BYTES: usize = 256 << 20;
/// The most stacks one slab holds.
#[cfg_attr(not(all(target_os = "linux", not(miri))), allow(dead_code))]
pub(crate) const SLAB_STACKS: usize = 128;

#[cfg(all(target_os = "linux", not(miri)))]
mod imp {
    use std::io;
    use std::mem::ManuallyDrop;
    use std::ptr;
    use std::sync::atomic::{AtomicU8, Ordering};
    use std::sync::Arc;

    use corosensei::stack::valgrind::ValgrindStackRegistration;
    use corosensei::stack::{Stack, StackPointer, MIN_STACK_SIZE};

    use super::{SLAB_BYTES, SLAB_STACKS};

    /// `madvise` advice that installs guard markers (Linux 6.13, uapi `mman-common.h`; not
    /// in the `libc` crate yet).
    const MADV_GUARD_INSTALL: libc::c_int = 102;

    /// Whether `MADV_GUARD_INSTALL` works here: unknown, yes, no (then `mprotect`).
    static GUARD_ADVICE: AtomicU8 = AtomicU8::new(UNKNOWN);
    const UNKNOWN: u8 = 0;
    const ADVICE: u8 = 1;
    const PROTECT: u8 = 2;

    fn page_size() -> usize {
        // SAFETY: sysconf has no preconditions.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(p).unwrap_or(4096)
    }

    /// One mapping that stacks are carved from.
    struct Slab {
        addr: usize,
        len: usize,
    }

    impl Drop for Slab {
        fn drop(&mut self) {
            // SAFETY: the slab's own mapping; no stack of it is alive (each holds an Arc).
            let r = unsafe { libc::munmap(self.addr as *mut libc::c_void, self.len) };
            debug_assert_eq!(r, 0, "munmap of a stack slab failed");
        }
    }

    /// One fiber's stack: a guard page, then the usable stack, inside a slab.
    pub(crate) struct FiberStack {
        /// The start of the guard page.
        limit: usize,
        /// The end of the stack (its highest address, exclusive).
        base: usize,
        valgrind: ManuallyDrop<ValgrindStackRegistration>,
        slab: Arc<Slab>,
    }

    impl Drop for FiberStack {
        fn drop(&mut self) {
            // SAFETY: dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.valgrind) };
            if Arc::strong_count(&self.slab) > 1 {
                // The slab stays mapped: give this stack's pages back now. The guard marker
                // stays (DONTNEED keeps guard markers), and the range is not handed out again.
                let lo = self.limit + page_size();
                // SAFETY: the usable part of this stack, which nothing uses any more (its
                // coroutine is gone); the slab is mapped (this stack holds it).
                unsafe {
                    libc::madvise(lo as *mut libc::c_void, self.base - lo, libc::MADV_DONTNEED)
                };
            }
        }
    }

    // SAFETY: `base` is the top of a mapped, writable range down to `limit + page`, which
    // stays mapped as long as this value (it holds its slab), and `limit` is its lowest
    // address (the guard page, which faults).
    unsafe impl Stack for FiberStack {
        fn base(&self) -> StackPointer {
            StackPointer::new(self.base).expect("a stack at address 0")
        }

        fn limit(&self) -> StackPointer {
            StackPointer::new(self.limit).expect("a stack at address 0")
        }
    }

    /// A worker's source of stacks of one size (owner thread only).
    pub(crate) struct Stacks {
        /// Usable bytes of each stack (a whole number of pages).
        usable: usize,
        /// Guard page plus usable bytes.
        stride: usize,
        per_slab: usize,
        /// The slab being carved, and how many of its stacks were handed out.
        current: Option<(Arc<Slab>, usize)>,
    }

    impl Stacks {
        /// Stacks of at least `size` usable bytes.
        pub(crate) fn new(size: usize) -> Stacks {
            let page = page_size();
            let usable = size
                .max(MIN_STACK_SIZE)
                .checked_next_multiple_of(page)
                .unwrap_or(usize::MAX & !(page - 1));
            let stride = usable.saturating_add(page);
            Stacks {
                usable,
                stride,
                per_slab: (SLAB_BYTES / stride).clamp(1, SLAB_STACKS),
                current: None,
            }
        }

        /// A new stack; fails when no address space can be mapped for it or its guard.
        pub(crate) fn take(&mut self) -> io::Result<FiberStack> {
            let (slab, i) = match self.current.take() {
                Some((slab, i)) if i < self.per_slab => (slab, i),
                _ => (self.map_slab()?, 0),
            };
            let limit = slab.addr + i * self.stride;
            self.current = Some((slab.clone(), i + 1));
            guard(limit, page_size())?;
            let lo = limit + page_size();
            Ok(FiberStack {
                limit,
                base: lo + self.usable,
                valgrind: ManuallyDrop::new(ValgrindStackRegistration::new(
                    lo as *mut u8,
                    self.usable,
                )),
                slab,
            })
        }

        fn map_slab(&self) -> io::Result<Arc<Slab>> {
            let len = self
                .stride
                .checked_mul(self.per_slab)
                .ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))?;
            // SAFETY: a fresh anonymous mapping; no existing memory is affected.
            let addr = unsafe {
                libc::mmap(
                    ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                    -1,
                    0,
                )
            };
            if addr == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            // Only a hint for the kernel: failure leaves the slab usable.
            // SAFETY: the mapping just made.
            unsafe { libc::madvise(addr, len, libc::MADV_NOHUGEPAGE) };
            Ok(Arc::new(Slab {
                addr: addr as usize,
                len,
            }))
        }
    }

    /// Makes `[lo, lo + page)`, a page of a slab, fault on access.
    fn guard(lo: usize, page: usize) -> io::Result<()> {
        let p = lo as *mut libc::c_void;
        if GUARD_ADVICE.load(Ordering::Relaxed) != PROTECT {
            // SAFETY: a page of a private anonymous mapping of ours that nothing uses yet.
            if unsafe { libc::madvise(p, page, MADV_GUARD_INSTALL) } == 0 {
                GUARD_ADVICE.store(ADVICE, Ordering::Relaxed);
                return Ok(());
            }
            let e = io::Error::last_os_error();
            // EINVAL: a kernel without guard markers. Anything else (ENOMEM: out of page
            // table memory) is a real failure.
            if e.raw_os_error() != Some(libc::EINVAL)
                || GUARD_ADVICE.load(Ordering::Relaxed) == ADVICE
            {
                return Err(e);
            }
            GUARD_ADVICE.store(PROTECT, Ordering::Relaxed);
        }
        // SAFETY: as above.
        if unsafe { libc::mprotect(p, page, libc::PROT_NONE) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

#[cfg(not(all(target_os = "linux", not(miri))))]
mod imp {
    use corosensei::stack::DefaultStack;

    /// One fiber's stack: a mapping of its own with a guard page.
    pub(crate) type FiberStack = DefaultStack;

    /// A worker's source of stacks of one size.
    pub(crate) struct Stacks {
        size: usize,
    }

    impl Stacks {
        pub(crate) fn new(size: usize) -> Stacks {
            Stacks { size }
        }

        pub(crate) fn take(&mut self) -> std::io::Result<FiberStack> {
            DefaultStack::new(self.size)
        }
    }
}
