/*
 * offshoot-bench peers: `nqueens`'s input and plain serial version, shared by the C/OpenMP and the
 * C++/oneTBB peers. Included by peer_common.h only (inside its `extern "C"` block, after the
 * protocol and the generator), as every family's header is.
 */

/* ---- nqueens: Cilk-5 `queens` and BOTS `nqueens` (bitmask form, all solutions). ---- */

static inline uint64_t nq_serial_rec(uint32_t all, uint32_t cols, uint32_t d1, uint32_t d2) {
    if (cols == all) return 1;
    uint32_t free_ = all & ~(cols | d1 | d2);
    uint64_t count = 0;
    while (free_ != 0) {
        uint32_t bit = free_ & (~free_ + 1);
        free_ ^= bit;
        count += nq_serial_rec(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
    }
    return count;
}

static inline uint32_t nq_mask(uint64_t n) {
    if (n > 16) die("nqueens supports n <= 16");
    return (uint32_t)((1u << n) - 1);
}

static inline uint64_t nq_serial(uint64_t n) { return nq_serial_rec(nq_mask(n), 0, 0, 0); }
