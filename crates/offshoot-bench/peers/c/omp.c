/*
 * offshoot-bench peer: C with OpenMP (written for offshoot, not copied from anywhere).
 *
 * Usage: omp <kernel> <workers> <warm-ups> <kernel arguments...>
 * Protocol (see crates/offshoot-bench/src/peers/mod.rs): builds the input (untimed), runs the
 * plain serial version <warm-ups> times untimed and once timed, then the OpenMP version
 * <warm-ups> times untimed and once timed on <workers> threads (omp_set_num_threads), and
 * prints
 *     serial <seconds> <answer>
 *     parallel <seconds> <answer>
 * Errors go to stderr with a non-zero exit status.
 *
 * Every kernel runs the same algorithm, input and cutoffs as the Rust kernel of the same name
 * (crates/offshoot-bench/src/kernels/). The parallel versions are written the way OpenMP users
 * write them: `#pragma omp task` / `taskwait` inside `parallel` + `single` for the recursive
 * kernels, `parallel for` with a `reduction` for the loop. Where the Rust kernel joins two
 * branches, the first branch is a task and the second runs inline before the `taskwait` (the
 * OpenMP Examples' `fib` (tasking.4) with its second task replaced by a plain call, the usual
 * refinement), so both offer exactly one branch per fork.
 *
 * Build: gcc -O2 -fopenmp -ffp-contract=off (no fused multiply-add, so matmul's products equal
 * the Rust serial product bit for bit).
 */
#include <inttypes.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *msg) {
    fprintf(stderr, "omp peer: %s\n", msg);
    exit(2);
}

static uint64_t arg_u64(const char *s) {
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*s == '\0' || *end != '\0') die("bad numeric argument");
    return (uint64_t)v;
}

/* ---- fib: follows Cilk-5 `fib` / the OpenMP Examples' tasking.4; no cutoff. ---- */

static uint64_t fib_serial(uint64_t n) {
    return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static uint64_t fib_task(uint64_t n) {
    if (n < 2) return n;
    uint64_t a, b;
#pragma omp task shared(a) firstprivate(n)
    a = fib_task(n - 1);
    b = fib_task(n - 2);
#pragma omp taskwait
    return a + b;
}

static uint64_t fib_par(uint64_t n) {
    uint64_t r = 0;
#pragma omp parallel
#pragma omp single
    r = fib_task(n);
    return r;
}

/* ---- nqueens: follows Cilk-5 `queens` and BOTS `nqueens` (bitmask form, all solutions);
 * no cutoff. The Rust kernel splits the candidate set in halves with a join down to single
 * candidates; here, as BOTS and OpenMP users write it, a task per candidate placement in the
 * row's loop and one taskwait: the same placements visited in the same order. ---- */

static uint64_t nq_serial_rec(uint32_t all, uint32_t cols, uint32_t d1, uint32_t d2) {
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

static uint64_t nq_task(uint32_t all, uint32_t cols, uint32_t d1, uint32_t d2) {
    if (cols == all) return 1;
    uint32_t free_ = all & ~(cols | d1 | d2);
    uint64_t counts[32];
    int k = 0;
    while (free_ != 0) {
        uint32_t bit = free_ & (~free_ + 1);
        free_ ^= bit;
        if (free_ == 0) {
            /* the last candidate runs inline, as a join's second branch does */
            counts[k++] = nq_task(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
        } else {
            uint64_t *slot = &counts[k++];
#pragma omp task firstprivate(slot, bit)
            *slot = nq_task(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
        }
    }
#pragma omp taskwait
    uint64_t count = 0;
    for (int i = 0; i < k; i++) count += counts[i];
    return count;
}

static uint32_t nq_mask(uint64_t n) {
    if (n > 16) die("nqueens supports n <= 16");
    return (uint32_t)((1u << n) - 1);
}

static uint64_t nq_serial(uint64_t n) { return nq_serial_rec(nq_mask(n), 0, 0, 0); }

static uint64_t nq_par(uint64_t n) {
    uint64_t r = 0;
    uint32_t all = nq_mask(n);
#pragma omp parallel
#pragma omp single
    r = nq_task(all, 0, 0, 0);
    return r;
}

/* ---- par-for: a loop with a trivial body (issue 5's par-for); `parallel for` with a
 * reduction (static schedule, OpenMP's default); unsigned addition wraps as Rust's
 * wrapping_add does. ---- */

static inline uint64_t pf_f(uint64_t i) { return (i * 0x9E3779B97F4A7C15ull) >> 7; }

static uint64_t pf_serial(uint64_t n) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += pf_f(i);
    return s;
}

static uint64_t pf_par(uint64_t n) {
    uint64_t s = 0;
#pragma omp parallel for reduction(+ : s)
    for (uint64_t i = 0; i < n; i++) s += pf_f(i);
    return s;
}

/* ---- matmul: follows Cilk-5 `notempmul`: recursive quadrants, quadtree layout, 16x16
 * row-major leaves (i-k-j), two phases of four tasks and a taskwait each. ---- */

#define MM_BLOCK 16
#define MM_LEAF (MM_BLOCK * MM_BLOCK)

static void mm_leaf(double *c, const double *a, const double *b, int add) {
    if (!add) memset(c, 0, sizeof(double) * MM_LEAF);
    for (int i = 0; i < MM_BLOCK; i++)
        for (int k = 0; k < MM_BLOCK; k++) {
            double aik = a[i * MM_BLOCK + k];
            for (int j = 0; j < MM_BLOCK; j++) c[i * MM_BLOCK + j] += aik * b[k * MM_BLOCK + j];
        }
}

static void mm_serial(double *c, const double *a, const double *b, size_t len, int add) {
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

static void mm_task(double *c, const double *a, const double *b, size_t len, int add) {
    if (len == MM_LEAF) {
        mm_leaf(c, a, b, add);
        return;
    }
    size_t q = len / 4;
#pragma omp task
    mm_task(c, a, b, q, add);
#pragma omp task
    mm_task(c + q, a, b + q, q, add);
#pragma omp task
    mm_task(c + 2 * q, a + 2 * q, b, q, add);
    mm_task(c + 3 * q, a + 2 * q, b + q, q, add);
#pragma omp taskwait
#pragma omp task
    mm_task(c, a + q, b + 2 * q, q, 1);
#pragma omp task
    mm_task(c + q, a + q, b + 3 * q, q, 1);
#pragma omp task
    mm_task(c + 2 * q, a + 3 * q, b + 2 * q, q, 1);
    mm_task(c + 3 * q, a + 3 * q, b + 3 * q, q, 1);
#pragma omp taskwait
}

static void mm_par(double *c, const double *a, const double *b, size_t len) {
#pragma omp parallel
#pragma omp single
    mm_task(c, a, b, len, 0);
}

/* SplitMix64, as crates/offshoot-bench/src/rng.rs. */
static uint64_t sm_next(uint64_t *state) {
    *state += 0x9E3779B97F4A7C15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static size_t mm_index(size_t n, size_t i, size_t j) {
    if (n == MM_BLOCK) return i * MM_BLOCK + j;
    size_t h = n / 2;
    size_t quadrant = (i >= h) * 2 + (j >= h);
    return quadrant * h * h + mm_index(h, i % h, j % h);
}

/* A and B drawn row-major, A first, from one generator, stored in quadtree layout. */
static void mm_input(size_t n, uint64_t seed, double *a, double *b) {
    uint64_t st = seed;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            a[mm_index(n, i, j)] = (double)(sm_next(&st) >> 11) * (1.0 / 9007199254740992.0);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            b[mm_index(n, i, j)] = (double)(sm_next(&st) >> 11) * (1.0 / 9007199254740992.0);
}

/* FNV-1a over the 64-bit patterns of C in quadtree layout: the answer line. */
static uint64_t mm_digest(const double *c, size_t len) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        uint64_t bits;
        memcpy(&bits, &c[i], sizeof bits);
        h ^= bits;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- tree-sum: the Spice / chili binary-tree sum; heap nodes built depth-first, node i in
 * heap numbering holds i; a task per inner node's left subtree, no cutoff. ---- */

struct node {
    uint64_t value;
    struct node *left, *right;
};

static struct node *ts_build(unsigned levels, uint64_t index) {
    struct node *n = malloc(sizeof *n);
    if (!n) die("out of memory");
    n->value = index;
    n->left = levels > 1 ? ts_build(levels - 1, 2 * index) : NULL;
    n->right = levels > 1 ? ts_build(levels - 1, 2 * index + 1) : NULL;
    return n;
}

static void ts_free(struct node *n) {
    if (!n) return;
    ts_free(n->left);
    ts_free(n->right);
    free(n);
}

static uint64_t ts_serial(const struct node *n) {
    uint64_t s = n->value;
    if (n->left) s += ts_serial(n->left);
    if (n->right) s += ts_serial(n->right);
    return s;
}

static uint64_t ts_task(const struct node *n) {
    if (n->left && n->right) {
        uint64_t a, b;
#pragma omp task shared(a)
        a = ts_task(n->left);
        b = ts_task(n->right);
#pragma omp taskwait
        return n->value + a + b;
    }
    if (n->left) return n->value + ts_task(n->left);
    if (n->right) return n->value + ts_task(n->right);
    return n->value;
}

static uint64_t ts_par(const struct node *n) {
    uint64_t r = 0;
#pragma omp parallel
#pragma omp single
    r = ts_task(n);
    return r;
}

/* ---- driver ---- */

static void report_u64(const char *what, double seconds, uint64_t answer) {
    printf("%s %.9f %" PRIu64 "\n", what, seconds, answer);
}

/* Hides a value from the optimiser, so that repeated calls of a pure function are not merged. */
#define OPAQUE(v) __asm__ volatile("" : "+r"(v))

/* Warm-up run, then one timed run, of `serial(x)` and then of `par(x)`. */
#define RUN_U64(serial, par, x)                                                 \
    do {                                                                        \
        __typeof__(x) in = (x);                                                 \
        OPAQUE(in);                                                             \
        volatile uint64_t sink = 0;                                             \
        for (uint64_t w = 0; w < warmups; w++) sink = serial(in);               \
        (void)sink;                                                             \
        OPAQUE(in);                                                             \
        double t0 = now();                                                      \
        uint64_t s = serial(in);                                                \
        double t1 = now();                                                      \
        report_u64("serial", t1 - t0, s);                                       \
        OPAQUE(in);                                                             \
        for (uint64_t w = 0; w < warmups; w++) sink = par(in);                  \
        OPAQUE(in);                                                             \
        t0 = now();                                                             \
        uint64_t p = par(in);                                                   \
        t1 = now();                                                             \
        report_u64("parallel", t1 - t0, p);                                     \
    } while (0)

int main(int argc, char **argv) {
    if (argc < 5) die("usage: omp <kernel> <workers> <warm-ups> <kernel arguments...>");
    const char *kernel = argv[1];
    uint64_t workers = arg_u64(argv[2]);
    if (workers < 1 || workers > 4096) die("workers must be in 1..=4096");
    uint64_t warmups = arg_u64(argv[3]);
    if (warmups > 100) die("warm-ups must be in 0..=100");
    omp_set_num_threads((int)workers);
    argc -= 1; /* kernel arguments start at argv[3] below */
    argv += 1;

    if (strcmp(kernel, "fib") == 0 && argc == 4) {
        uint64_t n = arg_u64(argv[3]);
        RUN_U64(fib_serial, fib_par, n);
    } else if (strcmp(kernel, "nqueens") == 0 && argc == 4) {
        uint64_t n = arg_u64(argv[3]);
        RUN_U64(nq_serial, nq_par, n);
    } else if (strcmp(kernel, "par-for") == 0 && argc == 4) {
        uint64_t n = arg_u64(argv[3]);
        RUN_U64(pf_serial, pf_par, n);
    } else if (strcmp(kernel, "tree-sum") == 0 && argc == 4) {
        uint64_t depth = arg_u64(argv[3]);
        if (depth < 1 || depth > 40) die("tree-sum depth must be in 1..=40");
        struct node *root = ts_build((unsigned)depth, 1);
        RUN_U64(ts_serial, ts_par, root);
        ts_free(root);
    } else if (strcmp(kernel, "matmul") == 0 && argc == 5) {
        uint64_t n = arg_u64(argv[3]);
        uint64_t seed = arg_u64(argv[4]);
        if (n < MM_BLOCK || (n & (n - 1)) != 0 || n > 8192) die("matmul n must be a power of two in 16..=8192");
        size_t len = (size_t)(n * n);
        double *a = malloc(len * sizeof(double)), *b = malloc(len * sizeof(double));
        double *c = malloc(len * sizeof(double));
        if (!a || !b || !c) die("out of memory");
        mm_input((size_t)n, seed, a, b);
        const char *what[2] = {"serial", "parallel"};
        for (int v = 0; v < 2; v++) {
            double t0 = 0, t1 = 0;
            for (uint64_t run = 0; run <= warmups; run++) { /* warm-ups, then the timed run */
                for (size_t i = 0; i < len; i++) c[i] = 0.0 / 0.0;
                t0 = now();
                if (v == 0)
                    mm_serial(c, a, b, len, 0);
                else
                    mm_par(c, a, b, len);
                t1 = now();
            }
            printf("%s %.9f %016" PRIx64 "\n", what[v], t1 - t0, mm_digest(c, len));
        }
        free(a);
        free(b);
        free(c);
    } else {
        fprintf(stderr, "omp peer: unknown kernel `%s` or wrong argument count\n", kernel);
        return 2;
    }
    return 0;
}
