/*
 * offshoot-bench peers: what the C/OpenMP peer (peers/c/omp.c) and the C++/oneTBB peer
 * (peers/cpp/tbb.cpp) share (written for offshoot, not copied from anywhere): the protocol's
 * command line, clock and output lines, the inputs (SplitMix64 as
 * crates/offshoot-bench/src/rng.rs), the answers' FNV-1a digest, the UTS tree (its SHA-1 and
 * the reference's child counts) and every kernel's plain serial version, each following the
 * same published program as the peers' parallel versions (named in their sections). Each peer
 * keeps its parallel versions and its driver.
 *
 * Plain C11 that is also C++17 (in `extern "C"`): every function `static inline`, no macros
 * but the include guard; one GNU attribute (`noreturn`, which gcc and clang take in both
 * languages). The harness writes this file beside the peer's source in its build folder and
 * passes `-I` that folder (crates/offshoot-bench/src/peers/, `RECIPES` and `native.rs`); the
 * file is part of the peers' cache key, so an edit here rebuilds them. By hand, from the
 * repository: omp.c finds it beside itself; tbb.cpp with `-I ../c`.
 */
#ifndef OFFSHOOT_PEER_COMMON_H
#define OFFSHOOT_PEER_COMMON_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- protocol: arguments, clock, output ---- */

/* The peer's name in its messages (`<name> peer: ...`), set by peer_start. */
static const char *peer_name = "peer";

__attribute__((noreturn)) static inline void die(const char *msg) {
    fprintf(stderr, "%s peer: %s\n", peer_name, msg);
    exit(2);
}

static inline double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t arg_u64(const char *s) {
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*s == '\0' || *end != '\0') die("bad numeric argument");
    return (uint64_t)v;
}

static inline int64_t arg_i64(const char *s) {
    char *end;
    long long v = strtoll(s, &end, 0);
    if (*s == '\0' || *end != '\0') die("bad numeric argument");
    return (int64_t)v;
}

static inline double arg_f64(const char *s) {
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || v != v) die("bad numeric argument");
    return v;
}

/* The command line: `<name> <kernel> <workers> <warm-ups> <kernel arguments...>`. */
struct peer_args {
    const char *kernel;
    uint64_t workers, warmups;
    int nargs;   /* the kernel's arguments: args[0..nargs] */
    char **args;
};

/* Names the peer for its messages and reads its command line; dies on a bad one. */
static inline struct peer_args peer_start(const char *name, int argc, char **argv) {
    peer_name = name;
    if (argc < 5) {
        fprintf(stderr, "%s peer: usage: %s <kernel> <workers> <warm-ups> <kernel arguments...>\n",
                name, name);
        exit(2);
    }
    struct peer_args a;
    a.kernel = argv[1];
    a.workers = arg_u64(argv[2]);
    if (a.workers < 1 || a.workers > 4096) die("workers must be in 1..=4096");
    a.warmups = arg_u64(argv[3]);
    if (a.warmups > 100) die("warm-ups must be in 0..=100");
    a.nargs = argc - 4;
    a.args = argv + 4;
    return a;
}

/* What main returns for a kernel it does not know or the wrong number of arguments. */
static inline int peer_unknown(const struct peer_args *a) {
    fprintf(stderr, "%s peer: unknown kernel `%s` or wrong argument count\n", peer_name, a->kernel);
    return 2;
}

/* The output lines `<what> <seconds> <answer>`: a u64, 16 hex digits (a digest), or uts'
 * nodes/leaves/depth (report_uts, below). */
static inline void report_u64(const char *what, double seconds, uint64_t answer) {
    printf("%s %.9f %" PRIu64 "\n", what, seconds, answer);
}

static inline void report_hex(const char *what, double seconds, uint64_t answer) {
    printf("%s %.9f %016" PRIx64 "\n", what, seconds, answer);
}

/* SplitMix64, as crates/offshoot-bench/src/rng.rs. */
static inline uint64_t sm_next(uint64_t *state) {
    *state += 0x9E3779B97F4A7C15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* FNV-1a over `len` 64-bit words (their bit patterns, each XORed in whole) from `words`: the
 * answer of matmul (the product in quadtree layout) and cilksort (the sorted keys), 16 hex
 * digits (report_hex). */
static inline uint64_t fnv1a_words(const void *words, size_t len) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        uint64_t bits;
        memcpy(&bits, (const char *)words + i * sizeof bits, sizeof bits);
        h ^= bits;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- fib (and futures-fib's serial version): Cilk-5 `fib`, no cutoff. ---- */

static inline uint64_t fib_serial(uint64_t n) {
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

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

/* ---- par-for: a loop with a trivial body; unsigned addition wraps as
 * Rust's wrapping_add does. ---- */

static inline uint64_t pf_f(uint64_t i) { return (i * 0x9E3779B97F4A7C15ull) >> 7; }

static inline uint64_t pf_serial(uint64_t n) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += pf_f(i);
    return s;
}

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

/* ---- tree-sum: the Spice / chili binary-tree sum; heap nodes built depth-first, node i in
 * heap numbering holds i. ---- */

struct node {
    uint64_t value;
    struct node *left, *right;
};

static inline struct node *ts_alloc(void) {
    struct node *n = (struct node *)malloc(sizeof *n);
    if (!n) die("out of memory");
    return n;
}

/* The subtree of `levels` levels whose root is node `index`. `subtrees_first`: each node is
 * allocated after its subtrees, as the Rust kernel's `Box::new(Node { .. })` and the C++
 * peer do; else before them, as the C peer does. The order decides where the nodes lie in
 * memory, and so the kernel's time: each peer keeps its own. */
static inline struct node *ts_build(unsigned levels, uint64_t index, int subtrees_first) {
    struct node *n = subtrees_first ? NULL : ts_alloc();
    struct node *left = levels > 1 ? ts_build(levels - 1, 2 * index, subtrees_first) : NULL;
    struct node *right = levels > 1 ? ts_build(levels - 1, 2 * index + 1, subtrees_first) : NULL;
    if (subtrees_first) n = ts_alloc();
    n->value = index;
    n->left = left;
    n->right = right;
    return n;
}

static inline void ts_free(struct node *n) {
    if (!n) return;
    ts_free(n->left);
    ts_free(n->right);
    free(n);
}

static inline uint64_t ts_serial(const struct node *n) {
    uint64_t s = n->value;
    if (n->left) s += ts_serial(n->left);
    if (n->right) s += ts_serial(n->right);
    return s;
}

/* ---- knapsack: Cilk-5 `knapsack` (also in BOTS): 0/1 knapsack by branch and bound, items
 * sorted by value/weight, best first; a node tries "with the item", then "without it", and is
 * pruned when v + c * value / weight of its first remaining item (integer division) is below
 * the best solution so far (INT64_MIN: none). ---- */

struct ks_item {
    int64_t value, weight;
};

struct ks_problem {
    const struct ks_item *items;
    size_t n;
    int64_t capacity;
};

/* lo..=hi, as rng.rs's range_i64. */
static inline int64_t sm_range_i64(uint64_t *state, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(sm_next(state) % span);
}

/* `n` items from SplitMix64 (weight 90..=110, value = weight * 5 + -25..=25), stably sorted
 * by value/weight, best first (as Rust's sort_by), into `items`; returns the capacity, 2/5 of
 * the total weight: crates/offshoot-bench/src/kernels/knapsack.rs's `instance`. */
static inline int64_t ks_input(size_t n, uint64_t seed, struct ks_item *items) {
    uint64_t st = seed;
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t weight = sm_range_i64(&st, 90, 110);
        int64_t value = weight * 5 + sm_range_i64(&st, -25, 25);
        items[i].value = value;
        items[i].weight = weight;
        total += weight;
    }
    for (size_t i = 1; i < n; i++) { /* insertion sort: stable */
        struct ks_item it = items[i];
        size_t j = i;
        while (j > 0 && it.value * items[j - 1].weight > items[j - 1].value * it.weight) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = it;
    }
    return total * 2 / 5;
}

static inline int64_t ks_serial_rec(const struct ks_item *e, size_t n, int64_t c, int64_t v,
                                    int64_t *best) {
    if (c < 0) return INT64_MIN;
    if (n == 0 || c == 0) return v;
    if (v + c * e->value / e->weight < *best) return INT64_MIN;
    int64_t with = ks_serial_rec(e + 1, n - 1, c - e->weight, v + e->value, best);
    int64_t without = ks_serial_rec(e + 1, n - 1, c, v, best);
    int64_t b = with > without ? with : without;
    if (b > *best) *best = b;
    return b;
}

static inline uint64_t ks_serial(const struct ks_problem *p) {
    int64_t best = INT64_MIN;
    return (uint64_t)ks_serial_rec(p->items, p->n, p->capacity, 0, &best);
}

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

/* ---- uts: Unbalanced Tree Search (Olivier et al., LCPC 2006; the reference's uts.c), the
 * tree generated as crates/offshoot-bench/src/kernels/uts.rs does: a node's state is a SHA-1
 * digest (the root's: of 16 zero bytes and the root seed, big-endian; child i's: of its
 * parent's digest and i, big-endian), its random number the big-endian u32 of the digest's
 * last 4 bytes masked with 0x7fffffff, over 2^31 as a probability; the number of children by
 * the reference's binomial, geometric (four shapes), hybrid and balanced rules, at most 100
 * (but a binomial root). ---- */

/* SHA-1 (FIPS 180-4), written for this file: the whole message in one call. */
static inline uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static inline void sha1_block(uint32_t h[5], const uint8_t block[64]) {
    uint32_t w[80];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
               (uint32_t)block[4 * t + 2] << 8 | block[4 * t + 3];
    for (int t = 16; t < 80; t++) w[t] = rotl32(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999;
        } else if (t < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDC;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6;
        }
        uint32_t tmp = rotl32(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = rotl32(b, 30);
        b = a;
        a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

static inline void sha1(const uint8_t *msg, size_t len, uint8_t out[20]) {
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    uint8_t block[64];
    size_t done = 0;
    for (; len - done >= 64; done += 64) sha1_block(h, msg + done);
    size_t rest = len - done;
    memcpy(block, msg + done, rest);
    block[rest] = 0x80;
    if (rest >= 56) {
        memset(block + rest + 1, 0, 63 - rest);
        sha1_block(h, block);
        memset(block, 0, 56);
    } else {
        memset(block + rest + 1, 0, 55 - rest);
    }
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++) block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    sha1_block(h, block);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(h[i] >> (24 - 8 * j));
}

enum { UTS_BINOMIAL, UTS_GEOMETRIC, UTS_HYBRID, UTS_BALANCED };
enum { UTS_LINEAR, UTS_EXPDEC, UTS_CYCLIC, UTS_FIXED };

/* The reference's flags -t -a -d -b -r -m -q -f. */
struct uts_tree {
    int type, shape;
    uint32_t gen_mx;
    double b0;
    int32_t root_seed;
    uint32_t non_leaf_bf;
    double non_leaf_prob, shift_depth;
};

struct uts_node {
    uint8_t state[20];
    uint32_t height;
};

struct uts_counts {
    uint64_t nodes, leaves, depth;
};

/* The tree of uts' 8 arguments: type shape gen_mx b0 root_seed non_leaf_bf non_leaf_prob
 * shift_depth. */
static inline struct uts_tree uts_args(char **args) {
    struct uts_tree t;
    t.type = (int)arg_u64(args[0]);
    t.shape = (int)arg_u64(args[1]);
    t.gen_mx = (uint32_t)arg_u64(args[2]);
    t.b0 = arg_f64(args[3]);
    t.root_seed = (int32_t)arg_i64(args[4]);
    t.non_leaf_bf = (uint32_t)arg_u64(args[5]);
    t.non_leaf_prob = arg_f64(args[6]);
    t.shift_depth = arg_f64(args[7]);
    if (t.type > UTS_BALANCED || t.shape > UTS_FIXED) die("uts: bad tree type or shape");
    return t;
}

static inline void put_be32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static inline struct uts_node uts_root(const struct uts_tree *t) {
    uint8_t seed[20] = {0};
    put_be32(seed + 16, (uint32_t)t->root_seed);
    struct uts_node n = {{0}, 0};
    sha1(seed, sizeof seed, n.state);
    return n;
}

static inline struct uts_node uts_child(const struct uts_node *parent, uint32_t i) {
    uint8_t msg[24];
    memcpy(msg, parent->state, 20);
    put_be32(msg + 20, i);
    struct uts_node n = {{0}, parent->height + 1};
    sha1(msg, sizeof msg, n.state);
    return n;
}

static inline double uts_probability(const struct uts_node *n) {
    uint32_t r = (uint32_t)n->state[16] << 24 | (uint32_t)n->state[17] << 16 |
                 (uint32_t)n->state[18] << 8 | n->state[19];
    return (double)(r & 0x7fffffff) / 2147483648.0;
}

/* A double as Rust's `as i64`: NaN is 0, out of range saturates. */
static inline int64_t sat_i64(double x) {
    if (x != x) return 0;
    if (x >= 9223372036854775807.0) return INT64_MAX;
    if (x <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)x;
}

static inline int64_t uts_binomial(const struct uts_tree *t, const struct uts_node *n) {
    return uts_probability(n) < t->non_leaf_prob ? (int64_t)t->non_leaf_bf : 0;
}

static inline int64_t uts_geometric(const struct uts_tree *t, const struct uts_node *n) {
    const double pi = 3.14159265358979323846; /* M_PI, which ISO C and C++ do not have */
    double depth = n->height, gen_mx = t->gen_mx, b0 = t->b0, b_i;
    if (n->height == 0)
        b_i = b0;
    else if (t->shape == UTS_EXPDEC)
        b_i = b0 * pow(depth, -log(b0) / log(gen_mx));
    else if (t->shape == UTS_CYCLIC)
        b_i = n->height > 5 * t->gen_mx ? 0.0 : pow(b0, sin(2.0 * pi * depth / gen_mx));
    else if (t->shape == UTS_FIXED)
        b_i = n->height < t->gen_mx ? b0 : 0.0;
    else
        b_i = b0 * (1.0 - depth / gen_mx);
    double p = 1.0 / (1.0 + b_i);
    double u = uts_probability(n);
    return sat_i64(floor(log(1.0 - u) / log(1.0 - p)));
}

static inline uint32_t uts_num_children(const struct uts_tree *t, const struct uts_node *n) {
    int64_t k, limit = 100;
    switch (t->type) {
    case UTS_BINOMIAL:
        k = n->height == 0 ? sat_i64(floor(t->b0)) : uts_binomial(t, n);
        if (n->height == 0) limit = sat_i64(ceil(t->b0));
        break;
    case UTS_GEOMETRIC:
        k = uts_geometric(t, n);
        break;
    case UTS_HYBRID:
        k = (double)n->height < t->shift_depth * t->gen_mx ? uts_geometric(t, n) : uts_binomial(t, n);
        break;
    default:
        k = n->height < t->gen_mx ? sat_i64(t->b0) : 0;
        limit = INT64_MAX;
    }
    return (uint32_t)(k < 0 ? 0 : k > limit ? limit : k);
}

/* A leaf's counts, or an inner node's before its children's are merged in. */
static inline struct uts_counts uts_self(const struct uts_node *n, int leaf) {
    struct uts_counts c = {1, leaf ? 1u : 0u, n->height};
    return c;
}

static inline struct uts_counts uts_merge(struct uts_counts a, struct uts_counts b) {
    struct uts_counts c = {a.nodes + b.nodes, a.leaves + b.leaves, a.depth > b.depth ? a.depth : b.depth};
    return c;
}

static inline struct uts_counts uts_serial(const struct uts_tree *t, const struct uts_node *n) {
    uint32_t k = uts_num_children(t, n);
    if (k == 0) return uts_self(n, 1);
    struct uts_counts c = uts_self(n, 0);
    for (uint32_t i = 0; i < k; i++) {
        struct uts_node child = uts_child(n, i);
        c = uts_merge(c, uts_serial(t, &child));
    }
    return c;
}

/* The answer line of uts: nodes/leaves/depth. */
static inline void report_uts(const char *what, double seconds, struct uts_counts c) {
    printf("%s %.9f %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n", what, seconds, c.nodes, c.leaves, c.depth);
}

#ifdef __cplusplus
}
#endif

#endif /* OFFSHOOT_PEER_COMMON_H */
