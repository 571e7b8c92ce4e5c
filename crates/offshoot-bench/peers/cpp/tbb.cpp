/*
 * offshoot-bench peer: C++ with oneTBB (written for offshoot, not copied from anywhere; the
 * kernels are ports of peers/c/omp.c, which follows the Rust kernels). The protocol, the
 * inputs and the serial versions are the C peer's: peers/c/peer_common.h and its family
 * headers (common_*.h); this file has the oneTBB versions and the driver.
 *
 * Usage: tbb <kernel> <workers> <warm-ups> <kernel arguments...>
 * Protocol (see crates/offshoot-bench/src/peers/mod.rs): builds the input (untimed), runs the
 * plain serial version <warm-ups> times untimed and once timed, then the oneTBB version
 * <warm-ups> times untimed and once timed on <workers> threads, and prints
 *     serial <seconds> <answer>
 *     parallel <seconds> <answer>
 * Errors go to stderr with a non-zero exit status.
 *
 * Every kernel runs the same algorithm, input and cutoffs as the Rust kernel of the same name
 * (crates/offshoot-bench/src/kernels/) and as the C/OpenMP peer. The parallel versions are
 * written the way oneTBB users write them: `tbb::parallel_invoke` where a kernel forks a fixed
 * number of branches (fib, tree-sum, matmul, knapsack, cilksort), a `tbb::task_group` with a
 * `run` per branch and one `wait` where the number of branches is known only at run time
 * (nqueens, uts) and as the future of futures-fib, `tbb::parallel_reduce` over a
 * `blocked_range` (default partitioner) for par-for. oneTBB's parallel_invoke spawns every
 * function but its last, which the calling thread runs itself: the fork's first branch is the
 * task and the second runs inline, as in the C peer; knapsack, whose pruning depends on the
 * order, passes its branches the other way round (see there). The worker count is a
 * `tbb::task_arena(workers)` that every parallel version runs in (`execute`; the calling
 * thread is one of its workers) under a `tbb::global_control` of `max_allowed_parallelism =
 * workers` (without it oneTBB starts at most one thread per core whatever the arena asks).
 *
 * Build: g++ -O2 -std=c++17 -ffp-contract=off -I ../c tbb.cpp -ltbb (no fused multiply-add,
 * so matmul's products equal the Rust serial product bit for bit).
 */
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "peer_common.h" /* the protocol, the inputs and the serial versions (peers/c/) */

namespace {

/* Hides a value from the optimiser, so that repeated calls of a pure function are neither
 * merged nor dropped. */
template <class T> inline void opaque(T &v) { asm volatile("" : "+r"(v)); }

/* ---- fib: Cilk-5 `fib`, no cutoff. ---- */

uint64_t fib_par(uint64_t n) {
    if (n < 2) return n;
    uint64_t a, b;
    tbb::parallel_invoke([&] { a = fib_par(n - 1); }, [&] { b = fib_par(n - 2); });
    return a + b;
}

/* ---- futures-fib: fib with a future per call (Imam's thesis §3.6.2), no cutoff. oneTBB has no future
 * type; its future is a task_group running the one task that computes fib(n-1), and the get
 * is that group's `wait`, which waits for that task alone. Serial: fib_serial. ---- */

uint64_t futures_fib_par(uint64_t n) {
    if (n < 2) return n;
    uint64_t a;
    tbb::task_group future;
    future.run([&] { a = futures_fib_par(n - 1); });
    uint64_t b = futures_fib_par(n - 2);
    future.wait();
    return a + b;
}

/* ---- nqueens: Cilk-5 `queens` (bitmask form, all solutions), no cutoff. A task per
 * candidate placement in the row's loop but the last, which runs inline, then one wait: the
 * C peer's form. ---- */

uint64_t nq_task(uint32_t all, uint32_t cols, uint32_t d1, uint32_t d2) {
    if (cols == all) return 1;
    uint32_t free_ = all & ~(cols | d1 | d2);
    uint64_t counts[32];
    int k = 0;
    tbb::task_group g;
    while (free_ != 0) {
        uint32_t bit = free_ & (~free_ + 1);
        free_ ^= bit;
        uint64_t *slot = &counts[k++];
        if (free_ == 0) {
            *slot = nq_task(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
        } else {
            g.run([=] { *slot = nq_task(all, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1); });
        }
    }
    g.wait();
    uint64_t count = 0;
    for (int i = 0; i < k; i++) count += counts[i];
    return count;
}

uint64_t nq_par(uint64_t n) { return nq_task(nq_mask(n), 0, 0, 0); }

/* ---- par-for: a loop with a trivial body; parallel_reduce over a
 * blocked_range with the default (auto) partitioner; unsigned addition wraps as Rust's
 * wrapping_add does. ---- */

uint64_t pf_par(uint64_t n) {
    return tbb::parallel_reduce(
        tbb::blocked_range<uint64_t>(0, n), uint64_t{0},
        [](const tbb::blocked_range<uint64_t> &r, uint64_t s) {
            for (uint64_t i = r.begin(); i != r.end(); i++) s += pf_f(i);
            return s;
        },
        std::plus<uint64_t>());
}

/* ---- matmul: Cilk-5 `notempmul`: recursive quadrants, quadtree layout, 16x16 row-major
 * leaves (i-k-j), two phases of four branches (a parallel_invoke each). ---- */

void mm_par(double *c, const double *a, const double *b, size_t len, bool add) {
    if (len == MM_LEAF) {
        mm_leaf(c, a, b, add);
        return;
    }
    size_t q = len / 4;
    tbb::parallel_invoke([=] { mm_par(c, a, b, q, add); },
                         [=] { mm_par(c + q, a, b + q, q, add); },
                         [=] { mm_par(c + 2 * q, a + 2 * q, b, q, add); },
                         [=] { mm_par(c + 3 * q, a + 2 * q, b + q, q, add); });
    tbb::parallel_invoke([=] { mm_par(c, a + q, b + 2 * q, q, true); },
                         [=] { mm_par(c + q, a + q, b + 3 * q, q, true); },
                         [=] { mm_par(c + 2 * q, a + 3 * q, b + 2 * q, q, true); },
                         [=] { mm_par(c + 3 * q, a + 3 * q, b + 3 * q, q, true); });
}

/* ---- tree-sum: the Spice / chili binary-tree sum; heap nodes built depth-first, node i in
 * heap numbering holds i; a fork per inner node, no cutoff. ---- */

uint64_t ts_par(const node *n) {
    if (n->left && n->right) {
        uint64_t a, b;
        tbb::parallel_invoke([&] { a = ts_par(n->left); }, [&] { b = ts_par(n->right); });
        return n->value + a + b;
    }
    if (n->left) return n->value + ts_par(n->left);
    if (n->right) return n->value + ts_par(n->right);
    return n->value;
}

/* ---- knapsack: Cilk-5 `knapsack`: 0/1 knapsack by branch and bound, items sorted by
 * value/weight, best first; a node forks "with the item" and "without it", and is pruned when
 * v + c * value / weight of its first remaining item (integer division) is below the best
 * solution so far, which all threads share (an atomic raised by compare-and-swap). No cutoff.
 * "With" runs on the calling thread and "without" is the task (parallel_invoke's last function
 * runs inline), as offshoot's and rayon's join run their first closure on the caller: on one
 * thread the tree is walked in the serial order, which decides how much the bound prunes. ---- */

/* Raises the shared best to `b` (most nodes do not improve it: one load and no write). */
void ks_raise(std::atomic<int64_t> &best, int64_t b) {
    int64_t cur = best.load(std::memory_order_relaxed);
    while (b > cur && !best.compare_exchange_weak(cur, b, std::memory_order_relaxed)) {
    }
}

int64_t ks_task(const ks_item *e, size_t n, int64_t c, int64_t v, std::atomic<int64_t> &best) {
    if (c < 0) return INT64_MIN;
    if (n == 0 || c == 0) return v;
    if (v + c * e->value / e->weight < best.load(std::memory_order_relaxed)) return INT64_MIN;
    int64_t with, without;
    tbb::parallel_invoke([&] { without = ks_task(e + 1, n - 1, c, v, best); },
                         [&] { with = ks_task(e + 1, n - 1, c - e->weight, v + e->value, best); });
    int64_t b = std::max(with, without);
    ks_raise(best, b);
    return b;
}

uint64_t ks_par(const ks_problem *p) {
    std::atomic<int64_t> best{INT64_MIN};
    return static_cast<uint64_t>(ks_task(p->items, p->n, p->capacity, 0, best));
}

/* ---- cilksort: Cilk-5 `cilksort`: four quarters sorted in parallel, two merges in parallel,
 * then the final merge; a merge splits the larger input at its middle key, finds its rank in
 * the other by binary search and merges both sides in parallel. Serial quicksort (median of
 * three, Hoare partition) below QUICKSIZE keys, insertion sort at INSERTIONSIZE, serial merge
 * below MERGESIZE keys in the smaller input: Cilk-5's cutoffs, as the Rust kernel. ---- */

void cs_merge_par(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, uint64_t *dest) {
    cs_merge g{x, y, nx, ny, 0, 0};
    if (cs_split(&g, dest)) return;
    tbb::parallel_invoke(
        [&] { cs_merge_par(g.x, g.m, g.y, g.k, dest); },
        [&] { cs_merge_par(g.x + g.m + 1, g.nx - g.m - 1, g.y + g.k, g.ny - g.k, dest + g.m + g.k + 1); });
}

void cs_par(uint64_t *a, uint64_t *tmp, size_t n) {
    if (n < CS_QUICKSIZE) {
        cs_quick(a, n);
        return;
    }
    size_t q = n / 4;
    tbb::parallel_invoke([=] { cs_par(a, tmp, q); }, [=] { cs_par(a + q, tmp + q, q); },
                         [=] { cs_par(a + 2 * q, tmp + 2 * q, q); },
                         [=] { cs_par(a + 3 * q, tmp + 3 * q, n - 3 * q); });
    tbb::parallel_invoke([=] { cs_merge_par(a, q, a + q, q, tmp); },
                         [=] { cs_merge_par(a + 2 * q, q, a + 3 * q, n - 3 * q, tmp + 2 * q); });
    cs_merge_par(tmp, 2 * q, tmp + 2 * q, n - 2 * q, a);
}

/* ---- uts: Unbalanced Tree Search (Olivier et al., LCPC 2006; the reference's uts.c), the
 * tree generated as crates/offshoot-bench/src/kernels/uts.rs does (common_uts.h). A
 * task_group per node: a task per child but the last, which runs inline, then one wait (the
 * C peer's form). No cutoff. ---- */

uts_counts uts_par(const uts_tree *t, const uts_node *n) {
    uint32_t k = uts_num_children(t, n);
    if (k == 0) return uts_self(n, 1);
    uts_counts small[100];
    std::vector<uts_counts> large(k > 100 ? k : 0);
    uts_counts *counts = k <= 100 ? small : large.data();
    tbb::task_group g;
    for (uint32_t i = 0; i + 1 < k; i++) {
        uts_counts *slot = &counts[i];
        g.run([t, n, slot, i] {
            const uts_node child = uts_child(n, i);
            *slot = uts_par(t, &child);
        });
    }
    const uts_node last = uts_child(n, k - 1);
    counts[k - 1] = uts_par(t, &last);
    g.wait();
    uts_counts c = uts_self(n, 0);
    for (uint32_t i = 0; i < k; i++) c = uts_merge(c, counts[i]);
    return c;
}

/* ---- driver ---- */

/* Runs `reset` then `run` <warm-ups> times untimed and once timed (only `run` is timed), and
 * prints its line: `report(what, seconds)` (report_u64, report_hex or report_uts). */
template <class Reset, class Run, class Report>
void timed(const char *what, uint64_t warmups, Reset reset, Run run, Report report) {
    double seconds = 0;
    for (uint64_t r = 0; r <= warmups; r++) {
        reset();
        double t0 = now();
        run();
        seconds = now() - t0;
    }
    report(what, seconds);
}

/* The serial version, then the parallel one in `arena`, of a kernel whose input is `in` and
 * whose answer is a u64 (reset: nothing; the input is hidden from the optimiser each call, so
 * no call is merged with another). */
template <class In, class Serial, class Par>
void run_u64(tbb::task_arena &arena, uint64_t warmups, In in, Serial serial, Par par) {
    uint64_t r = 0;
    auto answer = [&](const char *what, double seconds) { report_u64(what, seconds, r); };
    auto nothing = [] {};
    timed("serial", warmups, nothing, [&] {
        In x = in;
        opaque(x);
        r = serial(x);
        opaque(r);
    }, answer);
    timed("parallel", warmups, nothing, [&] {
        In x = in;
        opaque(x);
        arena.execute([&] { r = par(x); });
        opaque(r);
    }, answer);
}

/* The same for a kernel with a reset and an answer line of its own (matmul, cilksort, uts). */
template <class Reset, class Serial, class Par, class Report>
void run_both(tbb::task_arena &arena, uint64_t warmups, Reset reset, Serial serial, Par par,
              Report answer) {
    timed("serial", warmups, reset, serial, answer);
    timed("parallel", warmups, reset, [&] { arena.execute(par); }, answer);
}

} // namespace

int main(int argc, char **argv) {
    const peer_args cmd = peer_start("tbb", argc, argv);
    const std::string kernel = cmd.kernel;
    const uint64_t workers = cmd.workers, warmups = cmd.warmups;
    // `workers` threads in all (the calling thread and workers - 1 of oneTBB's), each with a
    // 64 MiB stack: uts' binomial tree is 1,572 levels deep, and a thread that waits runs other
    // tasks on top of the frames of the one it waits in.
    tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, workers);
    tbb::global_control stack(tbb::global_control::thread_stack_size, size_t{64} << 20);
    tbb::task_arena arena(static_cast<int>(workers));
    const int nargs = cmd.nargs; /* kernel arguments: args[0..nargs] */
    char **args = cmd.args;

    if (kernel == "fib" && nargs == 1) {
        run_u64(arena, warmups, arg_u64(args[0]), fib_serial, fib_par);
    } else if (kernel == "futures-fib" && nargs == 1) {
        run_u64(arena, warmups, arg_u64(args[0]), fib_serial, futures_fib_par);
    } else if (kernel == "nqueens" && nargs == 1) {
        run_u64(arena, warmups, arg_u64(args[0]), nq_serial, nq_par);
    } else if (kernel == "par-for" && nargs == 1) {
        run_u64(arena, warmups, arg_u64(args[0]), pf_serial, pf_par);
    } else if (kernel == "tree-sum" && nargs == 1) {
        uint64_t depth = arg_u64(args[0]);
        if (depth < 1 || depth > 40) die("tree-sum depth must be in 1..=40");
        node *root = ts_build(static_cast<unsigned>(depth), 1, 1); /* subtrees first */
        run_u64(arena, warmups, static_cast<const node *>(root), ts_serial, ts_par);
        ts_free(root);
    } else if (kernel == "matmul" && nargs == 2) {
        uint64_t n = arg_u64(args[0]);
        uint64_t seed = arg_u64(args[1]);
        if (n < MM_BLOCK || (n & (n - 1)) != 0 || n > 8192)
            die("matmul n must be a power of two in 16..=8192");
        size_t len = static_cast<size_t>(n * n);
        std::vector<double> a(len), b(len), c(len);
        mm_input(static_cast<size_t>(n), seed, a.data(), b.data());
        run_both(
            arena, warmups, [&] { std::fill(c.begin(), c.end(), std::nan("")); },
            [&] { mm_serial(c.data(), a.data(), b.data(), len, false); },
            [&] { mm_par(c.data(), a.data(), b.data(), len, false); },
            [&](const char *what, double s) { report_hex(what, s, fnv1a_words(c.data(), len)); });
    } else if (kernel == "knapsack" && nargs == 2) {
        uint64_t n = arg_u64(args[0]);
        uint64_t seed = arg_u64(args[1]);
        if (n < 1 || n > 1000) die("knapsack n must be in 1..=1000");
        std::vector<ks_item> items(static_cast<size_t>(n));
        const ks_problem p{items.data(), items.size(), ks_input(items.size(), seed, items.data())};
        run_u64(arena, warmups, &p, ks_serial, ks_par);
    } else if (kernel == "cilksort" && nargs == 2) {
        uint64_t n = arg_u64(args[0]);
        uint64_t seed = arg_u64(args[1]);
        if (n > (uint64_t{1} << 32)) die("cilksort n must be at most 2^32");
        size_t len = static_cast<size_t>(n);
        std::vector<uint64_t> input(len), a(len), tmp(len);
        cs_input(len, seed, input.data());
        run_both(
            arena, warmups,
            [&] {
                a = input;
                std::fill(tmp.begin(), tmp.end(), 0);
            },
            [&] { cs_serial(a.data(), tmp.data(), len); }, [&] { cs_par(a.data(), tmp.data(), len); },
            [&](const char *what, double s) { report_hex(what, s, fnv1a_words(a.data(), len)); });
    } else if ((kernel == "uts" || kernel == "uts-bin") && nargs == 8) {
        const uts_tree t = uts_args(args);
        const uts_node root = uts_root(&t);
        uts_counts c{0, 0, 0};
        run_both(
            arena, warmups, [] {}, [&] { c = uts_serial(&t, &root); }, [&] { c = uts_par(&t, &root); },
            [&](const char *what, double s) { report_uts(what, s, c); });
    } else {
        return peer_unknown(&cmd);
    }
    return 0;
}
