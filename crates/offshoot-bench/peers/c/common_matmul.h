/*
 * offshoot-bench peers: `matmul`'s input and plain serial version, shared by the C/OpenMP and the
 * C++/oneTBB peers. Included by peer_common.h only (inside its `extern "C"` block, after the
 * protocol and the generator), as every family's header is.
 */

/* ---- matmul: Cilk-5 `notempmul`: recursive quadrants, quadtree layout, 16x16 row-major
 * leaves (i-k-j); the serial version runs the two phases of four one after the other. ---- */

enum { MM_BLOCK = 16, MM_LEAF = MM_BLOCK * MM_BLOCK };

static inline void mm_leaf(double *c, const double *a, const double *b, int add) {
    if (!add) memset(c, 0, sizeof(double) * MM_LEAF);
    for (int i = 0; i < MM_BLOCK; i++)
        for (int k = 0; k < MM_BLOCK; k++) {
            double aik = a[i * MM_BLOCK + k];
            for (int j = 0; j < MM_BLOCK; j++) c[i * MM_BLOCK + j] += aik * b[k * MM_BLOCK + j];
        }
}

static inline void mm_serial(double *c, const double *a, const double *b, size_t len, int add) {
    if (len == MM_LEAF) {
        mm_leaf(c, a, b, add);
        return;
    }
    size_t q = len / 4;
    mm_serial(c, a, b, q, add);
    mm_serial(c + q, a, b + q, q, add);
    mm_serial(c + 2 * q, a + 2 * q, b, q, add);
    mm_serial(c + 3 * q, a + 2 * q, b + q, q, add);
    mm_serial(c, a + q, b + 2 * q, q, 1);
    mm_serial(c + q, a + q, b + 3 * q, q, 1);
    mm_serial(c + 2 * q, a + 3 * q, b + 2 * q, q, 1);
    mm_serial(c + 3 * q, a + 3 * q, b + 3 * q, q, 1);
}

static inline size_t mm_index(size_t n, size_t i, size_t j) {
    if (n == MM_BLOCK) return i * MM_BLOCK + j;
    size_t h = n / 2;
    size_t quadrant = (i >= h) * 2 + (j >= h);
    return quadrant * h * h + mm_index(h, i % h, j % h);
}

/* A and B (n * n each) drawn row-major, A first, from one generator, stored in quadtree
 * layout; each a uniform double in [0, 1), the top 53 bits. */
static inline void mm_input(size_t n, uint64_t seed, double *a, double *b) {
    uint64_t st = seed;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            a[mm_index(n, i, j)] = (double)(sm_next(&st) >> 11) * (1.0 / 9007199254740992.0);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            b[mm_index(n, i, j)] = (double)(sm_next(&st) >> 11) * (1.0 / 9007199254740992.0);
}
