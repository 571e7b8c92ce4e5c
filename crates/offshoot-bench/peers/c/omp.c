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
 * futures are tasks with `depend` clauses. Link with -lm (uts). The protocol, the inputs and
 * the serial versions are in peer_common.h and its headers per kernel family (common_*.h),
 * shared with the C++/oneTBB peer; this file has the OpenMP versions and the driver.
 *
 * Build: gcc -O2 -fopenmp -ffp-contract=off (no fused multiply-add, so matmul's products equal
 * the Rust serial product bit for bit).
 */
#include <omp.h>

#include "peer_common.h" /* the protocol, the inputs and the serial versions */

/* ---- fib: follows Cilk-5 `fib` / the OpenMP Examples' tasking.4; no cutoff. ---- */

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

/* ---- futures-fib: fib with a future per call (Imam's thesis §3.6.2), no cutoff. The future of fib(n-1)
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

static uint64_t nq_par(uint64_t n) {
    uint64_t r = 0;
    uint32_t all = nq_mask(n);
#pragma omp parallel
#pragma omp single
    r = nq_task(all, 0, 0, 0);
    return r;
}

/* ---- par-for: a loop with a trivial body; `parallel for` with a
 * reduction (static schedule, OpenMP's default); unsigned addition wraps as Rust's
 * wrapping_add does. ---- */

static uint64_t pf_par(uint64_t n) {
    uint64_t s = 0;
#pragma omp parallel for reduction(+ : s)
    for (uint64_t i = 0; i < n; i++) s += pf_f(i);
    return s;
}

/* ---- matmul: follows Cilk-5 `notempmul`: recursive quadrants, quadtree layout, 16x16
 * row-major leaves (i-k-j), two phases of four tasks and a taskwait each. ---- */

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

/* ---- tree-sum: the Spice / chili binary-tree sum; heap nodes built depth-first, node i in
 * heap numbering holds i; a task per inner node's left subtree, no cutoff. ---- */

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
 * tree generated as crates/offshoot-bench/src/kernels/uts.rs does (common_uts.h). A task
 * per child but the last, which runs inline (as nqueens here); the Rust kernel forks halves
 * of the child range. No cutoff. ---- */

static struct uts_counts uts_task(const struct uts_tree *t, const struct uts_node *n) {
    uint32_t k = uts_num_children(t, n);
    if (k == 0) return uts_self(n, 1);
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
    struct uts_counts c = uts_self(n, 0);
    for (uint32_t i = 0; i < k; i++) c = uts_merge(c, counts[i]);
    if (counts != small) free(counts);
    return c;
}

static void uts_run(const struct uts_tree *t, uint64_t warmups) {
    struct uts_node root = uts_root(t);
    struct uts_counts c = {0, 0, 0};
    for (int v = 0; v < 2; v++) {
        double t0 = 0, t1 = 0;
        for (uint64_t run = 0; run <= warmups; run++) { /* warm-ups, then the timed run */
            t0 = now();
            if (v == 0) {
                c = uts_serial(t, &root);
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
    const struct peer_args cmd = peer_start("omp", argc, argv);
    const char *kernel = cmd.kernel;
    const uint64_t warmups = cmd.warmups;
    const int nargs = cmd.nargs; /* kernel arguments: args[0..nargs] */
    char **args = cmd.args;
    omp_set_num_threads((int)cmd.workers);

    if (strcmp(kernel, "fib") == 0 && nargs == 1) {
        uint64_t n = arg_u64(args[0]);
        RUN_U64(fib_serial, fib_par, n);
    } else if (strcmp(kernel, "futures-fib") == 0 && nargs == 1) {
        uint64_t n = arg_u64(args[0]);
        RUN_U64(fib_serial, futures_fib_par, n);
    } else if (strcmp(kernel, "nqueens") == 0 && nargs == 1) {
        uint64_t n = arg_u64(args[0]);
        RUN_U64(nq_serial, nq_par, n);
    } else if (strcmp(kernel, "par-for") == 0 && nargs == 1) {
        uint64_t n = arg_u64(args[0]);
        RUN_U64(pf_serial, pf_par, n);
    } else if (strcmp(kernel, "tree-sum") == 0 && nargs == 1) {
        uint64_t depth = arg_u64(args[0]);
        if (depth < 1 || depth > 40) die("tree-sum depth must be in 1..=40");
        struct node *root = ts_build((unsigned)depth, 1, 0); /* a node before its subtrees */
        RUN_U64(ts_serial, ts_par, root);
        ts_free(root);
    } else if (strcmp(kernel, "matmul") == 0 && nargs == 2) {
        uint64_t n = arg_u64(args[0]);
        uint64_t seed = arg_u64(args[1]);
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
            report_hex(what[v], t1 - t0, fnv1a_words(c, len));
        }
        free(a);
        free(b);
        free(c);
    } else if (strcmp(kernel, "knapsack") == 0 && nargs == 2) {
        uint64_t n = arg_u64(args[0]);
        uint64_t seed = arg_u64(args[1]);
        if (n < 1 || n > 1000) die("knapsack n must be in 1..=1000");
        struct ks_item *items = malloc((size_t)n * sizeof *items);
        if (!items) die("out of memory");
        struct ks_problem p = {items, (size_t)n, ks_input((size_t)n, seed, items)};
        const struct ks_problem *pp = &p;
        RUN_U64(ks_serial, ks_par, pp);
        free(items);
    } else if (strcmp(kernel, "cilksort") == 0 && nargs == 2) {
        uint64_t n = arg_u64(args[0]);
        uint64_t seed = arg_u64(args[1]);
        if (n > ((uint64_t)1 << 32)) die("cilksort n must be at most 2^32");
        size_t len = (size_t)n;
        uint64_t *input = malloc(len * sizeof(uint64_t) + 1), *a = malloc(len * sizeof(uint64_t) + 1);
        uint64_t *tmp = malloc(len * sizeof(uint64_t) + 1);
        if (!input || !a || !tmp) die("out of memory");
        cs_input(len, seed, input);
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
            report_hex(what[v], t1 - t0, fnv1a_words(a, len));
        }
        free(input);
        free(a);
        free(tmp);
    } else if ((strcmp(kernel, "uts") == 0 || strcmp(kernel, "uts-bin") == 0) && nargs == 8) {
        const struct uts_tree t = uts_args(args);
        uts_run(&t, warmups);
    } else {
        return peer_unknown(&cmd);
    }
    return 0;
}
