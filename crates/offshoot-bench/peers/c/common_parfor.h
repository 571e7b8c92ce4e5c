/*
 * offshoot-bench peers: `par-for`'s input and plain serial version, shared by the C/OpenMP and the
 * C++/oneTBB peers. Included by peer_common.h only (inside its `extern "C"` block, after the
 * protocol and the generator), as every family's header is.
 */

/* ---- par-for: a loop with a trivial body; unsigned addition wraps as
 * Rust's wrapping_add does. ---- */

static inline uint64_t pf_f(uint64_t i) { return (i * 0x9E3779B97F4A7C15ull) >> 7; }

static inline uint64_t pf_serial(uint64_t n) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += pf_f(i);
    return s;
}
