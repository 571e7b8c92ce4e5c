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
 * refinement), so both offer exactly one branch per fork; knapsack, whose pruning depends on
 * the order, makes its second branch the task instead (see there). Kernels: fib, nqueens,
 * par-for, matmul, tree-sum, knapsack, cilksort, uts (and uts-bin), and futures-fib, whose
 * futures are tasks with `depend` clauses. Link with -lm (uts).
 *
 * Build: gcc -O2 -fopenmp -ffp-contract=off (no fused multiply-add, so matmul's products equal
 * the Rust serial product bit for bit).
 */
#include <inttypes.h>
#include <math.h>
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

static int64_t arg_i64(const char *s) {
    char *end;
    long long v = strtoll(s, &end, 0);
    if (*s == '\0' || *end != '\0') die("bad numeric argument");
    return (int64_t)v;
}

static double arg_f64(const char *s) {
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || v != v) die("bad numeric argument");
    return v;
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

/* Runs the task-parallel `f(n)` on a team: one thread starts it, every thread runs its tasks. */
static uint64_t in_team(uint64_t (*f)(uint64_t), uint64_t n) {
    uint64_t r = 0;
#pragma omp parallel
#pragma omp single
    r = f(n);
    return r;
}

static uint64_t fib_par(uint64_t n) { return in_team(fib_task, n); }

/* ---- futures-fib: fib with a future per call (002 §3.6.2), no cutoff. The future of fib(n-1)
 * is a task that writes it with `depend(out: a)`; getting it is `taskwait depend(in: a)`
 * (OpenMP 5.0), which waits for the task producing `a` alone, not for every child task as a
 * plain `taskwait` would. Serial: fib_serial. ---- */

static uint64_t futures_fib_task(uint64_t n) {
    if (n < 2) return n;
    uint64_t a, b;
#pragma omp task shared(a) firstprivate(n) depend(out: a)
    a = futures_fib_task(n - 1);
    b = futures_fib_task(n - 2);
#pragma omp taskwait depend(in: a)
    return a + b;
}

static uint64_t futures_fib_par(uint64_t n) { return in_team(futures_fib_task, n); }

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

/* FNV-1a over `len` 64-bit words (their bit patterns) from `words`: the answer of matmul
 * (the product in quadtree layout) and cilksort (the sorted keys), 16 hex digits. */
static uint64_t fnv1a_words(const void *words, size_t len) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        uint64_t bits;
        memcpy(&bits, (const char *)words + i * sizeof bits, sizeof bits);
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

/* ---- knapsack: follows Cilk-5 `knapsack` (also in BOTS): 0/1 knapsack by branch and
 * bound, items sorted by value/weight, best first; a node forks "with the item" and "without
 * it", and is pruned when v + c * value / weight of its first remaining item (integer
 * division) is below the best solution so far, which all threads share. No cutoff.
 * Unlike the other kernels here, the second branch ("without") is the task and the first
 * ("with") runs inline before the taskwait, as offshoot's and rayon's join run their first
 * closure on the caller: on one thread the tree is walked in the serial order, which decides
 * how much the bound prunes. ---- */

struct ks_item {
    int64_t value, weight;
};

/* `n` items from SplitMix64 (weight 90..=110, value = weight * 5 + -25..=25, the draws as
 * rng.rs's range_i64), stably sorted by value/weight, best first (as Rust's sort_by), and
 * capacity 2/5 of the total weight: crates/offshoot-bench/src/kernels/knapsack.rs's
 * `instance`. */
static int64_t sm_range_i64(uint64_t *state, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int64_t)(sm_next(state) % span);
}

static int64_t ks_input(size_t n, uint64_t seed, struct ks_item *items) {
    uint64_t st = seed;
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t weight = sm_range_i64(&st, 90, 110);
        int64_t value = weight * 5 + sm_range_i64(&st, -25, 25);
        items[i] = (struct ks_item){value, weight};
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

struct ks_problem {
    const struct ks_item *items;
    size_t n;
    int64_t capacity;
};

static int64_t ks_serial_rec(const struct ks_item *e, size_t n, int64_t c, int64_t v, int64_t *best) {
    if (c < 0) return INT64_MIN;
    if (n == 0 || c == 0) return v;
    if (v + c * e->value / e->weight < *best) return INT64_MIN;
    int64_t with = ks_serial_rec(e + 1, n - 1, c - e->weight, v + e->value, best);
    int64_t without = ks_serial_rec(e + 1, n - 1, c, v, best);
    int64_t b = with > without ? with : without;
    if (b > *best) *best = b;
    return b;
}

static uint64_t ks_serial(const struct ks_problem *p) {
    int64_t best = INT64_MIN;
    return (uint64_t)ks_serial_rec(p->items, p->n, p->capacity, 0, &best);
}

/* Raises the shared best to `b`: an atomic read first (most nodes do not improve it), then
 * a critical section to re-check and write. */
static void ks_raise(int64_t *best, int64_t b) {
    int64_t cur;
#pragma omp atomic read
    cur = *best;
    if (b <= cur) return;
#pragma omp critical(ks_best)
    {
#pragma omp atomic read
        cur = *best;
        if (b > cur) {
#pragma omp atomic write
            *best = b;
        }
    }
}

static int64_t ks_task(const struct ks_item *e, size_t n, int64_t c, int64_t v, int64_t *best) {
    if (c < 0) return INT64_MIN;
    if (n == 0 || c == 0) return v;
    int64_t bound;
#pragma omp atomic read
    bound = *best;
    if (v + c * e->value / e->weight < bound) return INT64_MIN;
    int64_t with, without;
#pragma omp task shared(without)
    without = ks_task(e + 1, n - 1, c, v, best);
    with = ks_task(e + 1, n - 1, c - e->weight, v + e->value, best);
#pragma omp taskwait
    int64_t b = with > without ? with : without;
    ks_raise(best, b);
    return b;
}

static uint64_t ks_par(const struct ks_problem *p) {
    int64_t best = INT64_MIN, r = 0;
#pragma omp parallel shared(best)
#pragma omp single
    r = ks_task(p->items, p->n, p->capacity, 0, &best);
    return (uint64_t)r;
}

/* ---- cilksort: follows Cilk-5 `cilksort` (BOTS `sort`): four quarters sorted as tasks,
 * two merges as tasks, then the final merge; a merge splits the larger input at its middle
 * key, finds its rank in the other by binary search and merges both sides as tasks. Serial
 * quicksort (median of three, Hoare partition) below QUICKSIZE keys, insertion sort at
 * INSERTIONSIZE, serial merge below MERGESIZE keys in the smaller input: Cilk-5's cutoffs,
 * as crates/offshoot-bench/src/kernels/cilksort.rs. ---- */

#define CS_QUICKSIZE 2048
#define CS_MERGESIZE 2048
#define CS_INSERTIONSIZE 20

static void cs_insertion(uint64_t *a, size_t n) {
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

static void cs_swap(uint64_t *a, size_t i, size_t j) {
    uint64_t t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* Returns s with 0 < s < n, every key of a[..s] <= every key of a[s..]. */
static size_t cs_partition(uint64_t *a, size_t n) {
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

static void cs_quick(uint64_t *a, size_t n) {
    while (n > CS_INSERTIONSIZE) {
        size_t split = cs_partition(a, n);
        cs_quick(a, split);
        a += split;
        n -= split;
    }
    cs_insertion(a, n);
}

static void cs_seqmerge(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, uint64_t *dest) {
    size_t i = 0, j = 0;
    for (size_t d = 0; d < nx + ny; d++) {
        if (j >= ny || (i < nx && x[i] <= y[j]))
            dest[d] = x[i++];
        else
            dest[d] = y[j++];
    }
}

/* The number of keys of sorted y that are <= pivot. */
static size_t cs_rank(const uint64_t *y, size_t ny, uint64_t pivot) {
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
static int cs_split(struct cs_merge *g, uint64_t *dest) {
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

static void cs_merge_serial(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, uint64_t *dest) {
    struct cs_merge g = {x, y, nx, ny, 0, 0};
    if (cs_split(&g, dest)) return;
    cs_merge_serial(g.x, g.m, g.y, g.k, dest);
    cs_merge_serial(g.x + g.m + 1, g.nx - g.m - 1, g.y + g.k, g.ny - g.k, dest + g.m + g.k + 1);
}

static void cs_serial(uint64_t *a, uint64_t *tmp, size_t n) {
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

static void cs_merge_task(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, uint64_t *dest) {
    struct cs_merge g = {x, y, nx, ny, 0, 0};
    if (cs_split(&g, dest)) return;
#pragma omp task
    cs_merge_task(g.x, g.m, g.y, g.k, dest);
    cs_merge_task(g.x + g.m + 1, g.nx - g.m - 1, g.y + g.k, g.ny - g.k, dest + g.m + g.k + 1);
#pragma omp taskwait
}

static void cs_task(uint64_t *a, uint64_t *tmp, size_t n) {
    if (n < CS_QUICKSIZE) {
        cs_quick(a, n);
        return;
    }
    size_t q = n / 4;
#pragma omp task
    cs_task(a, tmp, q);
#pragma omp task
    cs_task(a + q, tmp + q, q);
#pragma omp task
    cs_task(a + 2 * q, tmp + 2 * q, q);
    cs_task(a + 3 * q, tmp + 3 * q, n - 3 * q);
#pragma omp taskwait
#pragma omp task
    cs_merge_task(a, q, a + q, q, tmp);
    cs_merge_task(a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q);
#pragma omp taskwait
    cs_merge_task(tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}

static void cs_par(uint64_t *a, uint64_t *tmp, size_t n) {
#pragma omp parallel
#pragma omp single
    cs_task(a, tmp, n);
}

/* ---- uts: Unbalanced Tree Search (Olivier et al., LCPC 2006; the reference's uts.c), the
 * tree generated as crates/offshoot-bench/src/kernels/uts.rs does: a node's state is a SHA-1
 * digest (the root's: of 16 zero bytes and the root seed, big-endian; child i's: of its
 * parent's digest and i, big-endian), its random number the big-endian u32 of the digest's
 * last 4 bytes masked with 0x7fffffff, over 2^31 as a probability; the number of children by
 * the reference's binomial, geometric (four shapes), hybrid and balanced rules, at most 100
 * (but a binomial root). A task per child but the last, which runs inline (as nqueens here);
 * the Rust kernel forks halves of the child range. No cutoff. ---- */

/* SHA-1 (FIPS 180-4), written for this file: the whole message in one call. */
static uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static void sha1_block(uint32_t h[5], const uint8_t block[64]) {
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

static void sha1(const uint8_t *msg, size_t len, uint8_t out[20]) {
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

static void put_be32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static struct uts_node uts_root(const struct uts_tree *t) {
    uint8_t seed[20] = {0};
    put_be32(seed + 16, (uint32_t)t->root_seed);
    struct uts_node n = {.height = 0};
    sha1(seed, sizeof seed, n.state);
    return n;
}

static struct uts_node uts_child(const struct uts_node *parent, uint32_t i) {
    uint8_t msg[24];
    memcpy(msg, parent->state, 20);
    put_be32(msg + 20, i);
    struct uts_node n = {.height = parent->height + 1};
    sha1(msg, sizeof msg, n.state);
    return n;
}

static double uts_probability(const struct uts_node *n) {
    uint32_t r = (uint32_t)n->state[16] << 24 | (uint32_t)n->state[17] << 16 |
                 (uint32_t)n->state[18] << 8 | n->state[19];
    return (double)(r & 0x7fffffff) / 2147483648.0;
}

/* A double as Rust's `as i64`: NaN is 0, out of range saturates. */
static int64_t sat_i64(double x) {
    if (x != x) return 0;
    if (x >= 9223372036854775807.0) return INT64_MAX;
    if (x <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)x;
}

static int64_t uts_binomial(const struct uts_tree *t, const struct uts_node *n) {
    return uts_probability(n) < t->non_leaf_prob ? (int64_t)t->non_leaf_bf : 0;
}

static int64_t uts_geometric(const struct uts_tree *t, const struct uts_node *n) {
    double depth = n->height, gen_mx = t->gen_mx, b0 = t->b0, b_i;
    if (n->height == 0)
        b_i = b0;
    else if (t->shape == UTS_EXPDEC)
        b_i = b0 * pow(depth, -log(b0) / log(gen_mx));
    else if (t->shape == UTS_CYCLIC)
        b_i = n->height > 5 * t->gen_mx ? 0.0 : pow(b0, sin(2.0 * M_PI * depth / gen_mx));
    else if (t->shape == UTS_FIXED)
        b_i = n->height < t->gen_mx ? b0 : 0.0;
    else
        b_i = b0 * (1.0 - depth / gen_mx);
    double p = 1.0 / (1.0 + b_i);
    double u = uts_probability(n);
    return sat_i64(floor(log(1.0 - u) / log(1.0 - p)));
}

static uint32_t uts_num_children(const struct uts_tree *t, const struct uts_node *n) {
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

static struct uts_counts uts_merge(struct uts_counts a, struct uts_counts b) {
    return (struct uts_counts){a.nodes + b.nodes, a.leaves + b.leaves, a.depth > b.depth ? a.depth : b.depth};
}

static struct uts_counts uts_serial_rec(const struct uts_tree *t, const struct uts_node *n) {
    uint32_t k = uts_num_children(t, n);
    if (k == 0) return (struct uts_counts){1, 1, n->height};
    struct uts_counts c = {1, 0, n->height};
    for (uint32_t i = 0; i < k; i++) {
        struct uts_node child = uts_child(n, i);
        c = uts_merge(c, uts_serial_rec(t, &child));
    }
    return c;
}

static struct uts_counts uts_task(const struct uts_tree *t, const struct uts_node *n) {
    uint32_t k = uts_num_children(t, n);
    if (k == 0) return (struct uts_counts){1, 1, n->height};
    struct uts_counts small[100], *counts = k <= 100 ? small : malloc(k * sizeof *counts);
    if (!counts) die("out of memory");
    for (uint32_t i = 0; i + 1 < k; i++) {
        struct uts_counts *slot = &counts[i];
#pragma omp task firstprivate(slot, i)
        {
            struct uts_node child = uts_child(n, i);
            *slot = uts_task(t, &child);
        }
    }
    struct uts_node last = uts_child(n, k - 1);
    counts[k - 1] = uts_task(t, &last);
#pragma omp taskwait
    struct uts_counts c = {1, 0, n->height};
    for (uint32_t i = 0; i < k; i++) c = uts_merge(c, counts[i]);
    if (counts != small) free(counts);
    return c;
}

/* The answer token: nodes/leaves/depth. */
static void report_uts(const char *what, double seconds, struct uts_counts c) {
    printf("%s %.9f %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n", what, seconds, c.nodes, c.leaves, c.depth);
}

static void uts_run(const struct uts_tree *t, uint64_t warmups) {
    struct uts_node root = uts_root(t);
    struct uts_counts c = {0, 0, 0};
    for (int v = 0; v < 2; v++) {
        double t0 = 0, t1 = 0;
        for (uint64_t run = 0; run <= warmups; run++) { /* warm-ups, then the timed run */
            t0 = now();
            if (v == 0) {
                c = uts_serial_rec(t, &root);
            } else {
#pragma omp parallel
#pragma omp single
                c = uts_task(t, &root);
            }
            t1 = now();
        }
        report_uts(v == 0 ? "serial" : "parallel", t1 - t0, c);
    }
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
    } else if (strcmp(kernel, "futures-fib") == 0 && argc == 4) {
        uint64_t n = arg_u64(argv[3]);
        RUN_U64(fib_serial, futures_fib_par, n);
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
            printf("%s %.9f %016" PRIx64 "\n", what[v], t1 - t0, fnv1a_words(c, len));
        }
        free(a);
        free(b);
        free(c);
    } else if (strcmp(kernel, "knapsack") == 0 && argc == 5) {
        uint64_t n = arg_u64(argv[3]);
        uint64_t seed = arg_u64(argv[4]);
        if (n < 1 || n > 1000) die("knapsack n must be in 1..=1000");
        struct ks_item *items = malloc((size_t)n * sizeof *items);
        if (!items) die("out of memory");
        struct ks_problem p = {items, (size_t)n, ks_input((size_t)n, seed, items)};
        const struct ks_problem *pp = &p;
        RUN_U64(ks_serial, ks_par, pp);
        free(items);
    } else if (strcmp(kernel, "cilksort") == 0 && argc == 5) {
        uint64_t n = arg_u64(argv[3]);
        uint64_t seed = arg_u64(argv[4]);
        if (n > ((uint64_t)1 << 32)) die("cilksort n must be at most 2^32");
        size_t len = (size_t)n;
        uint64_t *input = malloc(len * sizeof(uint64_t) + 1), *a = malloc(len * sizeof(uint64_t) + 1);
        uint64_t *tmp = malloc(len * sizeof(uint64_t) + 1);
        if (!input || !a || !tmp) die("out of memory");
        uint64_t st = seed;
        for (size_t i = 0; i < len; i++) input[i] = sm_next(&st);
        const char *what[2] = {"serial", "parallel"};
        for (int v = 0; v < 2; v++) {
            double t0 = 0, t1 = 0;
            for (uint64_t run = 0; run <= warmups; run++) { /* warm-ups, then the timed run */
                memcpy(a, input, len * sizeof(uint64_t));
                memset(tmp, 0, len * sizeof(uint64_t));
                t0 = now();
                if (v == 0)
                    cs_serial(a, tmp, len);
                else
                    cs_par(a, tmp, len);
                t1 = now();
            }
            printf("%s %.9f %016" PRIx64 "\n", what[v], t1 - t0, fnv1a_words(a, len));
        }
        free(input);
        free(a);
        free(tmp);
    } else if ((strcmp(kernel, "uts") == 0 || strcmp(kernel, "uts-bin") == 0) && argc == 11) {
        /* type shape gen_mx b0 root_seed non_leaf_bf non_leaf_prob shift_depth */
        struct uts_tree t = {
            .type = (int)arg_u64(argv[3]),
            .shape = (int)arg_u64(argv[4]),
            .gen_mx = (uint32_t)arg_u64(argv[5]),
            .b0 = arg_f64(argv[6]),
            .root_seed = (int32_t)arg_i64(argv[7]),
            .non_leaf_bf = (uint32_t)arg_u64(argv[8]),
            .non_leaf_prob = arg_f64(argv[9]),
            .shift_depth = arg_f64(argv[10]),
        };
        if (t.type > UTS_BALANCED || t.shape > UTS_FIXED) die("uts: bad tree type or shape");
        uts_run(&t, warmups);
    } else {
        fprintf(stderr, "omp peer: unknown kernel `%s` or wrong argument count\n", kernel);
        return 2;
    }
    return 0;
}
