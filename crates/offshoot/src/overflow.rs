//! A task that overflows its fiber's stack: abort with a message that says what to change,
//! instead of dying of a bare SIGSEGV.
//!
//! A fiber's stack (`stack.rs`) has a guard page at its **lowest** page, which faults on
//! any access (a guard marker, or `PROT_NONE`). Its `limit()` is the start of that page,
//! so the guard page is `[limit, limit + page)` and the usable stack `[limit + page, base)`. A task that recurses
//! past the end touches the guard page (Rust's stack probes touch every page of a big frame
//! in order, so a frame cannot skip it) and the kernel raises SIGSEGV.
//!
//! Invariants:
//! * One handler, for SIGSEGV and SIGBUS, is installed once per process, the first time a
//!   pool's driver starts, with `SA_ONSTACK | SA_SIGINFO`. It keeps the actions it replaced
//!   and hands every fault that is not a fiber overflow on to them (std's own handler, which
//!   reports overflows of thread stacks, or the default action).
//! * A fault is a fiber overflow when the kernel raised it (`si_code > 0`) at an address in
//!   the guard page of the fiber the faulting thread is running. The driver records that
//!   guard page in the thread's `RUNNING` record before it resumes a fiber and clears it
//!   when the fiber gives control back; only the running fiber's stack can overflow.
//! * The handler reads only `RUNNING` (atomics in a `const`-initialised thread-local without
//!   destructor: no lazy initialisation, no allocation), allocates nothing, takes no lock,
//!   and calls only async-signal-safe functions (`write`, `abort`, `sigaction`, `raise`).
//!   The message is assembled in a fixed buffer on the signal stack.
//! * A worker thread has an alternate signal stack while it runs fibers (the handler cannot
//!   run on the stack that overflowed). std gives one to the threads it spawns only when it
//!   installed its own handler at startup; when a worker has none, its driver maps one
//!   (with a guard page) and unmaps it when it returns.
//!
//! Elsewhere than Linux this module does nothing (a fiber overflow stays a bare fault).

pub(crate) use imp::*;

/// The message for an overflow of a `size`-byte fiber stack, written into `buf`; returns
/// its length. Pure code on a fixed buffer, so that the signal handler may call it.
#[cfg_attr(not(all(target_os = "linux", not(miri))), allow(dead_code))]
fn overflow_message(size: usize, buf: &mut [u8; 160]) -> usize {
    const KIB: usize = 1 << 10;
    const MIB: usize = 1 << 20;
    let mut out = Out { buf, len: 0 };
    out.push(b"offshoot: a task overflowed its ");
    if size >= MIB && size.is_multiple_of(MIB) {
        out.push_num(size / MIB);
        out.push(b" MiB");
    } else if size >= KIB && size.is_multiple_of(KIB) {
        out.push_num(size / KIB);
        out.push(b" KiB");
    } else {
        out.push_num(size);
        out.push(b"-byte");
    }
    out.push(b" fiber stack; give tasks more with `Builder::stack_size` (or RUST_MIN_STACK)\n");
    out.len
}

/// A bounded writer over a byte buffer (what does not fit is dropped).
struct Out<'a> {
    buf: &'a mut [u8; 160],
    len: usize,
}

impl Out<'_> {
    fn push(&mut self, s: &[u8]) {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s[..n]);
        self.len += n;
    }

    fn push_num(&mut self, mut v: usize) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.push(&digits[i..]);
    }
}

#[cfg(all(target_os = "linux", not(miri)))]
mod imp {
    use std::ffi::{c_int, c_void};
    use std::mem::MaybeUninit;
    use std::ptr;
    use std::sync::atomic::{compiler_fence, AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    use corosensei::stack::Stack;

    /// The guard page of one fiber's stack, and the stack's configured size.
    #[derive(Clone, Copy)]
    pub(crate) struct Guard {
        lo: usize,
        hi: usize,
        size: usize,
    }

    impl Guard {
        /// The guard page of `stack`, made for `size` usable bytes (`stack.rs`).
        pub(crate) fn of(stack: &impl Stack, size: usize) -> Guard {
            let lo = stack.limit().get();
            Guard {
                lo,
                hi: lo + page_size(),
                size,
            }
        }
    }

    /// The running fiber's guard page; `lo == hi == 0` when no fiber runs.
    struct Running {
        lo: AtomicUsize,
        hi: AtomicUsize,
        size: AtomicUsize,
    }

    thread_local! {
        static RUNNING: Running = const {
            Running {
                lo: AtomicUsize::new(0),
                hi: AtomicUsize::new(0),
                size: AtomicUsize::new(0),
            }
        };
    }

    /// The driver is about to resume the fiber with this guard page.
    pub(crate) fn enter(g: Guard) {
        RUNNING.with(|r| {
            r.lo.store(g.lo, Ordering::Relaxed);
            r.hi.store(g.hi, Ordering::Relaxed);
            r.size.store(g.size, Ordering::Relaxed);
        });
        // The handler runs on this thread: keep the stores before the switch.
        // SeqCst: a compiler fence for the guard-page handler on this thread (no other thread
        // reads these); release would be enough, SeqCst is the plain choice and costs no
        // instruction.
        compiler_fence(Ordering::SeqCst);
    }

    /// The fiber gave control back to the driver.
    pub(crate) fn leave() {
        // SeqCst: as in `enter`; keeps the clears after the switch back (acquire would be
        // enough).
        compiler_fence(Ordering::SeqCst);
        RUNNING.with(|r| {
            r.lo.store(0, Ordering::Relaxed);
            r.hi.store(0, Ordering::Relaxed);
        });
    }

    fn page_size() -> usize {
        static PAGE: AtomicUsize = AtomicUsize::new(0);
        let p = PAGE.load(Ordering::Relaxed);
        if p != 0 {
            return p;
        }
        // SAFETY: sysconf has no preconditions.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let p = if p > 0 { p as usize } else { 4096 };
        PAGE.store(p, Ordering::Relaxed);
        p
    }

    const SIGNALS: [c_int; 2] = [libc::SIGSEGV, libc::SIGBUS];

    /// The actions our handler replaced, by index in `SIGNALS`. Set before the handler is
    /// installed, never changed after: the handler reads them with a plain `get`.
    static PREVIOUS: [OnceLock<libc::sigaction>; 2] = [OnceLock::new(), OnceLock::new()];

    /// Installs the handler (once per process; later calls do nothing).
    pub(crate) fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            for (i, &sig) in SIGNALS.iter().enumerate() {
                // SAFETY: `sigaction` is plain data for which all-zero is valid (empty mask,
                // no flags, SIG_DFL). The first call only reads the current action into
                // `old`; the second installs `on_fault`, whose signature is the
                // three-argument one that SA_SIGINFO asks for. The previous action is
                // stored before ours can run, so the handler always finds it.
                unsafe {
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(sig, ptr::null(), &mut old) != 0 {
                        continue;
                    }
                    let _ = PREVIOUS[i].set(old);
                    let mut new: libc::sigaction = std::mem::zeroed();
                    let handler: unsafe extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void) =
                        on_fault;
                    new.sa_sigaction = handler as libc::sighandler_t;
                    new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                    libc::sigemptyset(&mut new.sa_mask);
                    libc::sigaction(sig, &new, ptr::null_mut());
                }
            }
        });
    }

    /// The signal handler. Everything it calls must be async-signal-safe.
    ///
    /// # Safety
    /// Called only by the kernel, as the `SA_SIGINFO` handler that `install` registers for
    /// SIGSEGV and SIGBUS: `info` points to a valid `siginfo_t` for signal `sig`. Not to be
    /// called from Rust.
    unsafe extern "C" fn on_fault(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
        // SAFETY: with SA_SIGINFO the kernel passes a valid `siginfo_t`; `si_addr` is the
        // faulting address for the kernel-raised SIGSEGV/SIGBUS we look at (si_code > 0).
        let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
        if code > 0 {
            let hit = RUNNING
                .try_with(|r| {
                    let (lo, hi) = (r.lo.load(Ordering::Relaxed), r.hi.load(Ordering::Relaxed));
                    (lo <= addr && addr < hi).then(|| r.size.load(Ordering::Relaxed))
                })
                .ok()
                .flatten();
            if let Some(size) = hit {
                let mut buf = [0u8; 160];
                let len = super::overflow_message(size, &mut buf);
                write_stderr(&buf[..len]);
                // SAFETY: abort is async-signal-safe and does not return.
                unsafe { libc::abort() };
            }
        }
        // SAFETY: called from the handler with the handler's own arguments.
        unsafe { pass_on(sig, info, ctx) };
    }

    fn write_stderr(mut s: &[u8]) {
        while !s.is_empty() {
            // SAFETY: `s` is a live buffer of `s.len()` bytes; write is async-signal-safe.
            let n = unsafe { libc::write(2, s.as_ptr().cast(), s.len()) };
            if n > 0 {
                s = &s[n as usize..];
            // SAFETY: errno is thread-local and always readable.
            } else if n < 0 && unsafe { *libc::__errno_location() } == libc::EINTR {
                continue;
            } else {
                return;
            }
        }
    }

    /// Hands a fault that is not ours to the action we replaced.
    ///
    /// # Safety
    /// Only from `on_fault`, with its arguments.
    unsafe fn pass_on(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
        let prev = SIGNALS
            .iter()
            .position(|&s| s == sig)
            .and_then(|i| PREVIOUS[i].get());
        let Some(prev) = prev else {
            // SAFETY: as in `restore`, with the default action.
            unsafe { restore(sig, info, None) };
            return;
        };
        let h = prev.sa_sigaction;
        if h == libc::SIG_DFL || h == libc::SIG_IGN {
            // SAFETY: as documented on `restore`.
            unsafe { restore(sig, info, Some(prev)) };
        } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
            // SAFETY: the previous action was installed with SA_SIGINFO, so its handler has
            // the three-argument signature; it gets the arguments the kernel gave us.
            let f: extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void) =
                unsafe { std::mem::transmute(h) };
            f(sig, info, ctx);
        } else {
            // SAFETY: without SA_SIGINFO the previous handler takes the signal number only.
            let f: extern "C" fn(c_int) = unsafe { std::mem::transmute(h) };
            f(sig);
        }
    }

    /// Puts back the default (or ignore) action that we replaced and lets the signal take
    /// it: a fault re-executes the faulting instruction when the handler returns and faults
    /// again; a signal that was sent (si_code <= 0) is raised again (it stays pending until
    /// the handler returns, as the signal is blocked while it runs).
    ///
    /// # Safety
    /// Only from the handler of `sig`, with the kernel's `info`.
    unsafe fn restore(sig: c_int, info: *mut libc::siginfo_t, prev: Option<&libc::sigaction>) {
        let mut act = MaybeUninit::<libc::sigaction>::zeroed();
        // SAFETY: all-zero is a valid `sigaction` (SIG_DFL, empty mask, no flags); `prev`
        // is a complete action read by `sigaction`. sigaction and raise are
        // async-signal-safe; `info` is valid (see `on_fault`).
        unsafe {
            if let Some(p) = prev {
                act.as_mut_ptr().write(*p);
            }
            libc::sigaction(sig, act.as_ptr(), ptr::null_mut());
            if (*info).si_code <= 0 {
                libc::raise(sig);
            }
        }
    }

    /// An alternate signal stack this module mapped for the current thread, removed and
    /// unmapped on drop (on the same thread: the type is not `Send`).
    pub(crate) struct AltStack {
        map: *mut c_void,
        len: usize,
    }

    impl AltStack {
        /// Gives the calling thread an alternate signal stack if it has none. Best effort:
        /// if none can be mapped, an overflow stays a bare SIGSEGV.
        pub(crate) fn ensure() -> AltStack {
            let none = AltStack {
                map: ptr::null_mut(),
                len: 0,
            };
            let mut cur = MaybeUninit::<libc::stack_t>::zeroed();
            // SAFETY: a null new stack makes sigaltstack only report the current one into
            // `cur`, a valid `stack_t` buffer.
            if unsafe { libc::sigaltstack(ptr::null(), cur.as_mut_ptr()) } != 0 {
                return none;
            }
            // SAFETY: sigaltstack succeeded and filled `cur`.
            let cur = unsafe { cur.assume_init() };
            if cur.ss_flags & libc::SS_DISABLE == 0 {
                return none; // std's, or the embedder's: keep it
            }
            let page = page_size();
            // SAFETY: getauxval has no preconditions (0 when the kernel gives no value).
            let min = unsafe { libc::getauxval(libc::AT_MINSIGSTKSZ) } as usize;
            // Room for chained handlers too (std's formats its message); only touched
            // pages cost memory.
            let size = (libc::SIGSTKSZ.max(min).max(64 << 10) + page - 1) & !(page - 1);
            let len = size + page;
            // SAFETY: a fresh private anonymous mapping; nothing else refers to it.
            let map = unsafe {
                libc::mmap(
                    ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                    -1,
                    0,
                )
            };
            if map == libc::MAP_FAILED {
                return none;
            }
            let st = libc::stack_t {
                // SAFETY: `map + page` lies inside the `len`-byte mapping.
                ss_sp: unsafe { map.cast::<u8>().add(page) }.cast(),
                ss_flags: 0,
                ss_size: size,
            };
            // SAFETY: the lowest page of our own mapping becomes its guard page; the rest
            // (`st`) is writable memory that this thread alone uses, until `drop`.
            let ok = unsafe {
                libc::mprotect(map, page, libc::PROT_NONE) == 0
                    && libc::sigaltstack(&st, ptr::null_mut()) == 0
            };
            if !ok {
                // SAFETY: the mapping is ours and not in use.
                unsafe { libc::munmap(map, len) };
                return none;
            }
            AltStack { map, len }
        }
    }

    impl Drop for AltStack {
        fn drop(&mut self) {
            if self.map.is_null() {
                return;
            }
            let off = libc::stack_t {
                ss_sp: ptr::null_mut(),
                ss_flags: libc::SS_DISABLE,
                ss_size: 0,
            };
            // SAFETY: this thread installed the stack and is not running on it (drop runs
            // outside any signal handler), so it can be disabled, then unmapped.
            unsafe {
                libc::sigaltstack(&off, ptr::null_mut());
                libc::munmap(self.map, self.len);
            }
        }
    }
}

#[cfg(not(all(target_os = "linux", not(miri))))]
mod imp {
    //! Nothing to do: overflows stay bare faults here. (Under Miri the driver runs no
    //! fibers, so nothing calls these.)
    #![cfg_attr(miri, allow(dead_code))]
    use corosensei::stack::Stack;

    #[derive(Clone, Copy)]
    pub(crate) struct Guard;

    impl Guard {
        pub(crate) fn of(_stack: &impl Stack, _size: usize) -> Guard {
            Guard
        }
    }

    pub(crate) fn enter(_g: Guard) {}
    pub(crate) fn leave() {}
    pub(crate) fn install() {}

    pub(crate) struct AltStack;

    impl AltStack {
        pub(crate) fn ensure() -> AltStack {
            AltStack
        }
    }
}

#[cfg(test)]
mod tests {
    use super::overflow_message;

    fn msg(size: usize) -> String {
        let mut buf = [0u8; 160];
        let n = overflow_message(size, &mut buf);
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn message_names_the_size_and_the_setting() {
        assert_eq!(
            msg(2 << 20),
            "offshoot: a task overflowed its 2 MiB fiber stack; give tasks more with \
             `Builder::stack_size` (or RUST_MIN_STACK)\n"
        );
        assert!(msg(64 << 10).contains(" 64 KiB fiber stack"));
        assert!(msg(100_000).contains(" 100000-byte fiber stack"));
        assert!(msg(0).contains(" 0-byte fiber stack"));
        assert!(msg(usize::MAX).contains(&format!(" {}-byte", usize::MAX)));
        assert!(msg(usize::MAX).ends_with("RUST_MIN_STACK)\n"));
    }
}
