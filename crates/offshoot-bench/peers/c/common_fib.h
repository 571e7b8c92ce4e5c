/*
 * offshoot-bench peers: `fib`'s input and plain serial version, shared by the C/OpenMP and the
 * C++/oneTBB peers. Included by peer_common.h only (inside its `extern "C"` block, after the
 * protocol and the generator), as every family's header is.
 */

/* ---- fib (and futures-fib's serial version): Cilk-5 `fib`, no cutoff. ---- */

static inline uint64_t fib_serial(uint64_t n) {
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}
