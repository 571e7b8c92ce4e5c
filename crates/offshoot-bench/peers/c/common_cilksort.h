/*
 * offshoot-bench peers: `cilksort`'s input and plain serial version, shared by the C/OpenMP and the
 * C++/oneTBB peers. Included by peer_common.h only (inside its `extern "C"` block, after the
 * protocol and the generator), as every family's header is.
 */

/* ---- cilksort: Cilk-5 `cilksort` (BOTS `sort`): four quarters sorted, two merges, then the
 * final merge; a merge splits the larger input at its middle key, finds its rank in the other
 * by binary search and merges both sides. Serial quicksort (median of three, Hoare partition)
 * below QUICKSIZE keys, insertion sort at INSERTIONSIZE, serial merge below MERGESIZE keys in
 * the smaller input: Cilk-5's cutoffs, as crates/offshoot-bench/src/kernels/cilksort.rs. ---- */

enum { CS_QUICKSIZE = 2048, CS_MERGESIZE = 2048, CS_INSERTIONSIZE = 20 };

/* The `n` keys to sort: SplitMix64's first `n` outputs. */
static inline void cs_input(size_t n, uint64_t seed, uint64_t *keys) {
    uint64_t st = seed;
    for (size_t i = 0; i < n; i++) keys[i] = sm_next(&st);
}

static inline void cs_insertion(uint64_t *a, size_t n) {
    for (size_t i = 1; i < n; i++) {
        uint64_t v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

static inline void cs_swap(uint64_t *a, size_t i, size_t j) {
    uint64_t t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* Returns s with 0 < s < n, every key of a[..s] <= every key of a[s..]. */
static inline size_t cs_partition(uint64_t *a, size_t n) {
    size_t lo = 0, mid = n / 2, hi = n - 1;
    if (a[mid] < a[lo]) cs_swap(a, mid, lo);
    if (a[hi] < a[lo]) cs_swap(a, hi, lo);
    if (a[hi] < a[mid]) cs_swap(a, hi, mid);
    uint64_t pivot = a[mid];
    size_t i = lo, j = hi;
    for (;;) {
        while (a[i] < pivot) i++;
        while (a[j] > pivot) j--;
        if (i >= j) return j + 1;
        cs_swap(a, i, j);
        i++;
        j--;
    }
}

static inline void cs_quick(uint64_t *a, size_t n) {
    while (n > CS_INSERTIONSIZE) {
        size_t split = cs_partition(a, n);
        cs_quick(a, split);
        a += split;
        n -= split;
    }
    cs_insertion(a, n);
}

static inline void cs_seqmerge(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny,
                               uint64_t *dest) {
    size_t i = 0, j = 0;
    for (size_t d = 0; d < nx + ny; d++) {
        if (j >= ny || (i < nx && x[i] <= y[j]))
            dest[d] = x[i++];
        else
            dest[d] = y[j++];
    }
}

/* The number of keys of sorted y that are <= pivot. */
static inline size_t cs_rank(const uint64_t *y, size_t ny, uint64_t pivot) {
    size_t lo = 0, hi = ny;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (y[mid] <= pivot)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A merge of sorted x and y into dest, split for its two halves. */
struct cs_merge {
    const uint64_t *x, *y;
    size_t nx, ny; /* nx >= ny once split */
    size_t m, k;   /* x[m] goes to dest[m + k]: x[..m] and y[..k] before it, the rest after */
};

/* Orders the inputs larger first; below MERGESIZE keys in the smaller one merges serially and
 * returns 1; else places the middle key of x (k: the keys of y <= it) and returns 0. */
static inline int cs_split(struct cs_merge *g, uint64_t *dest) {
    if (g->ny > g->nx) {
        const uint64_t *t = g->x;
        size_t tn = g->nx;
        g->x = g->y;
        g->nx = g->ny;
        g->y = t;
        g->ny = tn;
    }
    if (g->ny <= CS_MERGESIZE) {
        cs_seqmerge(g->x, g->nx, g->y, g->ny, dest);
        return 1;
    }
    g->m = g->nx / 2;
    g->k = cs_rank(g->y, g->ny, g->x[g->m]);
    dest[g->m + g->k] = g->x[g->m];
    return 0;
}

static inline void cs_merge_serial(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny,
                                   uint64_t *dest) {
    struct cs_merge g = {x, y, nx, ny, 0, 0};
    if (cs_split(&g, dest)) return;
    cs_merge_serial(g.x, g.m, g.y, g.k, dest);
    cs_merge_serial(g.x + g.m + 1, g.nx - g.m - 1, g.y + g.k, g.ny - g.k, dest + g.m + g.k + 1);
}

static inline void cs_serial(uint64_t *a, uint64_t *tmp, size_t n) {
    if (n < CS_QUICKSIZE) {
        cs_quick(a, n);
        return;
    }
    size_t q = n / 4;
    cs_serial(a, tmp, q);
    cs_serial(a + q, tmp + q, q);
    cs_serial(a + 2 * q, tmp + 2 * q, q);
    cs_serial(a + 3 * q, tmp + 3 * q, n - 3 * q);
    cs_merge_serial(a, q, a + q, q, tmp);
    cs_merge_serial(a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q);
    cs_merge_serial(tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}
