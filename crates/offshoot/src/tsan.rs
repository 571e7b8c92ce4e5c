//! Telling ThreadSanitizer about fiber switches (`fiber/mod.rs`).
//!
//! TSan keeps a shadow call stack per thread and pushes/pops it on every function entry
//! and exit. A fiber switch changes stacks under it without a call or a return, so without
//! being told, the frames of every fiber pile onto the thread's one shadow stack (10,000
//! parked tasks overflow it) and its race reports name the wrong stacks. So each fiber gets
//! a TSan fiber context, and every switch is announced (`__tsan_switch_to_fiber`, with
//! synchronisation: everything before the switch happens before everything after it, as on
//! the one thread). Both directions are announced on the fiber's side — to the driver right
//! before the fiber suspends or returns, to the fiber right after it gains control — because
//! the frames between an announcement and corosensei's actual stack switch are instrumented
//! and differ between `resume` and `suspend`: announced on the driver's side, every round
//! trip would move entries from one shadow stack to the other until one underflows. This
//! way the driver's `resume` frames and the fiber's `suspend` frame both enter and leave the
//! driver's shadow stack; only the few frames of corosensei's start of a fiber stay on the
//! driver's while that fiber lives.
//!
//! Built in only with `--cfg offshoot_tsan`, which `scripts/tsan.sh` sets together with
//! `-Zsanitizer=thread` (the TSan runtime provides the functions). Otherwise every
//! operation is a no-op on a zero-sized type.
//!
//! Invariants: a context made with [`TsanFiber::new`] is destroyed once, when its fiber is
//! dropped, which happens on the driver (never while that context runs); the driver's
//! context is the thread's own ([`TsanFiber::current`]) and is never destroyed.

#[cfg(offshoot_tsan)]
mod imp {
    use std::ffi::c_void;

    extern "C" {
        fn __tsan_get_current_fiber() -> *mut c_void;
        fn __tsan_create_fiber(flags: u32) -> *mut c_void;
        fn __tsan_destroy_fiber(fiber: *mut c_void);
        fn __tsan_switch_to_fiber(fiber: *mut c_void, flags: u32);
    }

    /// A TSan fiber context.
    pub(crate) struct TsanFiber {
        ctx: *mut c_void,
        /// Made by `new` (destroyed on drop), rather than the thread's own.
        owned: bool,
    }

    impl TsanFiber {
        /// The context running now (the driver's: the thread's own).
        pub(crate) fn current() -> TsanFiber {
            // SAFETY: a plain query of the TSan runtime.
            let ctx = unsafe { __tsan_get_current_fiber() };
            TsanFiber { ctx, owned: false }
        }

        /// A fresh context for a new fiber.
        pub(crate) fn new() -> TsanFiber {
            // SAFETY: a plain call of the TSan runtime; flags 0.
            let ctx = unsafe { __tsan_create_fiber(0) };
            TsanFiber { ctx, owned: true }
        }

        /// The context as a plain value, to switch to after the borrow that reached it has
        /// ended (see [`TsanCtx::switch_to`]).
        #[inline(always)]
        pub(crate) fn ctx(&self) -> TsanCtx {
            TsanCtx(self.ctx)
        }
    }

    /// A TSan fiber context read out of its [`TsanFiber`].
    #[derive(Clone, Copy)]
    pub(crate) struct TsanCtx(*mut c_void);

    impl TsanCtx {
        /// Announces a switch to this context (see `Worker::tsan_to_driver` for where).
        /// Inlined, and called with no frame of the caller's still to return before the
        /// stack switch (no closure around it): a frame entered on one shadow stack and left
        /// on the other moves an entry between them for good, and enough of those overflow or
        /// underflow one.
        #[inline(always)]
        pub(crate) fn switch_to(self) {
            // SAFETY: the context is live (see the module invariants); flags 0 keeps the
            // happens-before edge across the switch.
            unsafe { __tsan_switch_to_fiber(self.0, 0) };
        }
    }

    impl Drop for TsanFiber {
        fn drop(&mut self) {
            if self.owned {
                // SAFETY: made by `new`, destroyed once, not running (module invariants).
                unsafe { __tsan_destroy_fiber(self.ctx) };
            }
        }
    }
}

#[cfg(not(offshoot_tsan))]
mod imp {
    /// Nothing to tell: not built for ThreadSanitizer.
    pub(crate) struct TsanFiber;

    impl TsanFiber {
        #[inline(always)]
        pub(crate) fn current() -> TsanFiber {
            TsanFiber
        }

        #[inline(always)]
        pub(crate) fn new() -> TsanFiber {
            TsanFiber
        }

        #[inline(always)]
        pub(crate) fn ctx(&self) -> TsanCtx {
            TsanCtx
        }
    }

    /// Nothing to tell: not built for ThreadSanitizer.
    #[derive(Clone, Copy)]
    pub(crate) struct TsanCtx;

    impl TsanCtx {
        #[inline(always)]
        pub(crate) fn switch_to(self) {}
    }
}

pub(crate) use imp::TsanFiber;
