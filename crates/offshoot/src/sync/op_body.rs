//! [`Body`]: one operation's body in an [`Object`](super::Object)'s table, with its type
//! erased but reached in one step — the closure's address and a plain function that calls
//! it, side by side in the table entry — instead of through a `Box<dyn Any>` holding a
//! `Box<dyn Fn>` (an allocation read, then a vtable read, at every call).
//!
//! Invariants:
//! * `data` is the address of a `Box<F>` (dangling, as `Box` makes it, if `F` is zero-sized)
//!   that the body owns; `drop` is `drop_box::<F>`, which frees it, for that same `F`.
//! * `call` is a function pointer of type `C`, stored as a `*const ()`, that calls the `F`
//!   behind `data` (one of the `*_shim::<F, …>` functions), and `sig` is `TypeId::of::<C>()`:
//!   [`Body::entry`] gives the pointer back only as that `C`, so it is called with the
//!   argument types it was made for.

use std::any::TypeId;
use std::ptr::NonNull;

use super::object::{Call, Exclusive};

/// A read operation's entry: the closure's address, the state, the argument.
pub(super) type ReadCall<T, A, R> = unsafe fn(NonNull<()>, &T, A) -> R;
/// A write operation's entry.
pub(super) type WriteCall<T, A, R> =
    for<'a, 'b> unsafe fn(NonNull<()>, &'a mut Call<'b, T>, A) -> R;
/// An exclusive operation's entry.
pub(super) type ExclusiveCall<T, A, R> =
    for<'a, 'b> unsafe fn(NonNull<()>, &'a mut Exclusive<'b, T>, A) -> R;

/// A type-erased operation body (module invariants).
pub(super) struct Body {
    data: NonNull<()>,
    call: *const (),
    drop: unsafe fn(NonNull<()>),
    sig: TypeId,
}

// SAFETY: a `Body` is made only from closures that are `Send + Sync` (the builder's bounds),
// and it hands out nothing but shared calls of that closure (`Fn`), so moving it to another
// thread or sharing it between threads is what sending or sharing the closure is; `call`
// and `drop` are plain functions.
unsafe impl Send for Body {}
// SAFETY: as for `Send`.
unsafe impl Sync for Body {}

impl Body {
    /// A read body.
    pub(super) fn read<T: 'static, A: 'static, R: 'static, F>(f: F) -> Body
    where
        F: Fn(&T, A) -> R + Send + Sync + 'static,
    {
        Body::of::<F, ReadCall<T, A, R>>(f, read_shim::<T, A, R, F>)
    }

    /// A write body.
    pub(super) fn write<T: 'static, A: 'static, R: 'static, F>(f: F) -> Body
    where
        F: Fn(&mut Call<'_, T>, A) -> R + Send + Sync + 'static,
    {
        Body::of::<F, WriteCall<T, A, R>>(f, write_shim::<T, A, R, F>)
    }

    /// An exclusive body.
    pub(super) fn exclusive<T: 'static, A: 'static, R: 'static, F>(f: F) -> Body
    where
        F: Fn(&mut Exclusive<'_, T>, A) -> R + Send + Sync + 'static,
    {
        Body::of::<F, ExclusiveCall<T, A, R>>(f, exclusive_shim::<T, A, R, F>)
    }

    /// Boxes `f` and keeps `call`, a function pointer of type `C` that calls it.
    fn of<F: Send + Sync + 'static, C: Copy + 'static>(f: F, call: C) -> Body {
        assert!(
            size_of::<C>() == size_of::<*const ()>(),
            "offshoot::sync::Object: an operation entry is a function pointer"
        );
        // SAFETY: `C` is one of this module's function pointer types (the only callers are
        // `read`, `write` and `exclusive`), the size of a pointer (checked above); a function
        // pointer may be kept as a raw pointer and turned back into the same type, which
        // `entry` does only for this `C` (`sig`).
        let call = unsafe { std::mem::transmute_copy::<C, *const ()>(&call) };
        Body {
            data: NonNull::from(Box::leak(Box::new(f))).cast(),
            call,
            drop: drop_box::<F>,
            sig: TypeId::of::<C>(),
        }
    }

    /// The body's entry, as a `C`, and the address to call it with.
    ///
    /// # Panics
    /// If the body was made for another entry type (cannot happen: `Object::call` looks up
    /// a handle's body by its own signature, and `replace` accepts only the same one).
    #[inline(always)]
    pub(super) fn entry<C: Copy + 'static>(&self) -> (C, NonNull<()>) {
        assert!(self.sig == TypeId::of::<C>(), "{}", super::object::RESIGNED);
        // SAFETY: `call` was made from a `C` (module invariants, checked by `sig` above):
        // turning it back gives that same function pointer.
        let call = unsafe { std::mem::transmute_copy::<*const (), C>(&self.call) };
        (call, self.data)
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        // SAFETY: `drop` frees the box behind `data`, of the type it was made with, once:
        // this is the body's one drop (module invariants).
        unsafe { (self.drop)(self.data) }
    }
}

/// Frees the `Box<F>` at `data`.
///
/// # Safety
/// `data` is the address of a live `Box<F>` that nothing uses afterwards.
unsafe fn drop_box<F>(data: NonNull<()>) {
    // SAFETY: the caller's contract: `data` came from `Box::leak` of a `Box<F>`.
    drop(unsafe { Box::from_raw(data.cast::<F>().as_ptr()) });
}

/// Calls the read body `F` at `data`.
///
/// # Safety
/// `data` is the address of a live `F` (a [`Body`] made by `Body::read::<T, A, R, F>`).
unsafe fn read_shim<T, A, R, F: Fn(&T, A) -> R>(data: NonNull<()>, value: &T, arg: A) -> R {
    // SAFETY: the caller's contract; the body lives as long as its table, which outlives
    // the call.
    let f = unsafe { data.cast::<F>().as_ref() };
    f(value, arg)
}

/// Calls the write body `F` at `data`.
///
/// # Safety
/// As for [`read_shim`], for `Body::write`.
unsafe fn write_shim<T, A, R, F: Fn(&mut Call<'_, T>, A) -> R>(
    data: NonNull<()>,
    call: &mut Call<'_, T>,
    arg: A,
) -> R {
    // SAFETY: as in `read_shim`.
    let f = unsafe { data.cast::<F>().as_ref() };
    f(call, arg)
}

/// Calls the exclusive body `F` at `data`.
///
/// # Safety
/// As for [`read_shim`], for `Body::exclusive`.
unsafe fn exclusive_shim<T, A, R, F: Fn(&mut Exclusive<'_, T>, A) -> R>(
    data: NonNull<()>,
    ex: &mut Exclusive<'_, T>,
    arg: A,
) -> R {
    // SAFETY: as in `read_shim`.
    let f = unsafe { data.cast::<F>().as_ref() };
    f(ex, arg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn a_body_calls_its_closure_and_frees_it_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        struct Count(Arc<AtomicUsize>);
        impl Drop for Count {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
        let held = Count(drops.clone());
        let b = Body::read::<u32, u32, u32, _>(move |v, a| {
            let _keep = &held;
            v + a
        });
        let (call, data) = b.entry::<ReadCall<u32, u32, u32>>();
        // SAFETY: the entry of a read body of this signature, while the body lives.
        assert_eq!(unsafe { call(data, &40, 2) }, 42);
        assert_eq!(drops.load(Ordering::Relaxed), 0);
        drop(b);
        assert_eq!(drops.load(Ordering::Relaxed), 1);
        // A zero-sized closure: no allocation, still called.
        let z = Body::read::<u32, (), u32, _>(|v, ()| *v);
        let (call, data) = z.entry::<ReadCall<u32, (), u32>>();
        // SAFETY: as above.
        assert_eq!(unsafe { call(data, &7, ()) }, 7);
    }

    #[test]
    #[should_panic(expected = "re-pointed to another signature")]
    fn an_entry_of_another_signature_is_refused() {
        let b = Body::read::<u32, (), u32, _>(|v, ()| *v);
        let _ = b.entry::<ReadCall<u32, (), u64>>();
    }
}
