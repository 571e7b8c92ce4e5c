/*
 * offshoot-bench peer: C++ with oneTBB (written for offshoot, not copied from anywhere; the
 * kernels are ports of peers/c/omp.c, which follows the Rust kernels).
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
 * Build: g++ -O2 -std=c++17 -ffp-contract=off tbb.cpp -ltbb (no fused multiply-add, so
 * matmul's products equal the Rust serial product bit for bit).
 */
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace {

double now() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

[[noreturn]] void die(const char *msg) {
    std::fprintf(stderr, "tbb peer: %s\n", msg);
    std::exit(2);
}

/* A numeric argument: `parse` (strtoull, strtoll, strtod) must read all of `s`, to a number. */
template <class Parse> auto arg(const char *s, Parse parse) {
    char *end;
    auto v = parse(s, &end);
    bool nan = false;
    if constexpr (std::is_floating_point_v<decltype(v)>) nan = std::isnan(v);
    if (*s == '\0' || *end != '\0' || nan) die("bad numeric argument");
    return v;
}

uint64_t arg_u64(const char *s) {
    return arg(s, [](const char *p, char **e) { return std::strtoull(p, e, 0); });
}

int64_t arg_i64(const char *s) {
    return arg(s, [](const char *p, char **e) { return std::strtoll(p, e, 0); });
}

double arg_f64(const char *s) { return arg(s, [](const char *p, char **e) { return std::strtod(p, e); }); }

/* Hides a value from the optimiser, so that repeated calls of a pure function are neither
 * merged nor dropped. */
template <class T> inline void opaque(T &v) { asm volatile("" : "+r"(v)); }

/* ---- fib: Cilk-5 `fib`, no cutoff. ---- */

uint64_t fib_serial(uint64_t n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

uint64_t fib_par(uint64_t n) {
    if (n < 2) return n;
    uint64_t a, b;
    tbb::parallel_invoke([&] { a = fib_par(n - 1); }, [&] { b = fib_par(n - 2); });
    return a + b;
}

/* ---- futures-fib: fib with a future per call (002 §3.6.2), no cutoff. oneTBB has no future
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

uint64_t nq_serial_rec(uint32_t all, uint32_t cols, uint32_t d1, uint32_t d2) {
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

uint32_t nq_mask(uint64_t n) {
    if (n > 16) die("nqueens supports n <= 16");
    return static_cast<uint32_t>((1u << n) - 1);
}

uint64_t nq_serial(uint64_t n) { return nq_serial_rec(nq_mask(n), 0, 0, 0); }

uint64_t nq_par(uint64_t n) { return nq_task(nq_mask(n), 0, 0, 0); }

/* ---- par-for: a loop with a trivial body (issue 5's par-for); parallel_reduce over a
 * blocked_range with the default (auto) partitioner; unsigned addition wraps as Rust's
 * wrapping_add does. ---- */

inline uint64_t pf_f(uint64_t i) { return (i * 0x9E3779B97F4A7C15ull) >> 7; }

uint64_t pf_serial(uint64_t n) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += pf_f(i);
    return s;
}

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

constexpr size_t MM_BLOCK = 16;
constexpr size_t MM_LEAF = MM_BLOCK * MM_BLOCK;

void mm_leaf(double *c, const double *a, const double *b, bool add) {
    if (!add) std::fill(c, c + MM_LEAF, 0.0);
    for (size_t i = 0; i < MM_BLOCK; i++)
        for (size_t k = 0; k < MM_BLOCK; k++) {
            double aik = a[i * MM_BLOCK + k];
            for (size_t j = 0; j < MM_BLOCK; j++) c[i * MM_BLOCK + j] += aik * b[k * MM_BLOCK + j];
        }
}

void mm_serial(double *c, const double *a, const double *b, size_t len, bool add) {
    if (len == MM_LEAF) {
        mm_leaf(c, a, b, add);
        return;
    }
    size_t q = len / 4;
    mm_serial(c, a, b, q, add);
    mm_serial(c + q, a, b + q, q, add);
    mm_serial(c + 2 * q, a + 2 * q, b, q, add);
    mm_serial(c + 3 * q, a + 2 * q, b + q, q, add);
    mm_serial(c, a + q, b + 2 * q, q, true);
    mm_serial(c + q, a + q, b + 3 * q, q, true);
    mm_serial(c + 2 * q, a + 3 * q, b + 2 * q, q, true);
    mm_serial(c + 3 * q, a + 3 * q, b + 3 * q, q, true);
}

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

/* SplitMix64, as crates/offshoot-bench/src/rng.rs. */
struct SplitMix64 {
    uint64_t state;
    uint64_t next() {
        state += 0x9E3779B97F4A7C15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /* A uniform double in [0, 1): the top 53 bits. */
    double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
    /* lo..=hi, as rng.rs's range_i64. */
    int64_t range_i64(int64_t lo, int64_t hi) {
        uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
        return lo + static_cast<int64_t>(next() % span);
    }
};

size_t mm_index(size_t n, size_t i, size_t j) {
    if (n == MM_BLOCK) return i * MM_BLOCK + j;
    size_t h = n / 2;
    size_t quadrant = (i >= h) * 2 + (j >= h);
    return quadrant * h * h + mm_index(h, i % h, j % h);
}

/* A and B drawn row-major, A first, from one generator, stored in quadtree layout. */
void mm_input(size_t n, uint64_t seed, std::vector<double> &a, std::vector<double> &b) {
    SplitMix64 rng{seed};
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) a[mm_index(n, i, j)] = rng.unit();
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) b[mm_index(n, i, j)] = rng.unit();
}

/* FNV-1a over 64-bit words (their bit patterns, each XORed in whole): the answer of matmul
 * (the product in quadtree layout) and cilksort (the sorted keys), 16 hex digits. */
template <class T> std::string fnv1a_words(const std::vector<T> &words) {
    static_assert(sizeof(T) == 8, "64-bit words");
    uint64_t h = 0xcbf29ce484222325ull;
    for (const T &w : words) {
        uint64_t bits;
        std::memcpy(&bits, &w, sizeof bits);
        h ^= bits;
        h *= 0x100000001b3ull;
    }
    char out[17];
    std::snprintf(out, sizeof out, "%016" PRIx64, h);
    return out;
}

/* ---- tree-sum: the Spice / chili binary-tree sum; heap nodes built depth-first, node i in
 * heap numbering holds i; a fork per inner node, no cutoff. ---- */

struct Node {
    uint64_t value;
    Node *left, *right;
};

Node *ts_build(unsigned levels, uint64_t index) {
    Node *l = levels > 1 ? ts_build(levels - 1, 2 * index) : nullptr;
    Node *r = levels > 1 ? ts_build(levels - 1, 2 * index + 1) : nullptr;
    return new Node{index, l, r};
}

void ts_free(Node *n) {
    if (!n) return;
    ts_free(n->left);
    ts_free(n->right);
    delete n;
}

uint64_t ts_serial(const Node *n) {
    uint64_t s = n->value;
    if (n->left) s += ts_serial(n->left);
    if (n->right) s += ts_serial(n->right);
    return s;
}

uint64_t ts_par(const Node *n) {
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

struct Item {
    int64_t value, weight;
};

struct Knapsack {
    std::vector<Item> items;
    int64_t capacity;
};

/* `n` items from SplitMix64 (weight 90..=110, value = weight * 5 + -25..=25), stably sorted
 * by value/weight, best first (as Rust's sort_by), and capacity 2/5 of the total weight:
 * crates/offshoot-bench/src/kernels/knapsack.rs's `instance`. */
Knapsack ks_input(size_t n, uint64_t seed) {
    SplitMix64 rng{seed};
    Knapsack p{{}, 0};
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t weight = rng.range_i64(90, 110);
        int64_t value = weight * 5 + rng.range_i64(-25, 25);
        p.items.push_back(Item{value, weight});
        total += weight;
    }
    std::stable_sort(p.items.begin(), p.items.end(), [](const Item &x, const Item &y) {
        return x.value * y.weight > y.value * x.weight;
    });
    p.capacity = total * 2 / 5;
    return p;
}

constexpr int64_t KS_NONE = std::numeric_limits<int64_t>::min();

int64_t ks_serial_rec(const Item *e, size_t n, int64_t c, int64_t v, int64_t &best) {
    if (c < 0) return KS_NONE;
    if (n == 0 || c == 0) return v;
    if (v + c * e->value / e->weight < best) return KS_NONE;
    int64_t with = ks_serial_rec(e + 1, n - 1, c - e->weight, v + e->value, best);
    int64_t without = ks_serial_rec(e + 1, n - 1, c, v, best);
    int64_t b = std::max(with, without);
    if (b > best) best = b;
    return b;
}

uint64_t ks_serial(const Knapsack *p) {
    int64_t best = KS_NONE;
    return static_cast<uint64_t>(ks_serial_rec(p->items.data(), p->items.size(), p->capacity, 0, best));
}

/* Raises the shared best to `b` (most nodes do not improve it: one load and no write). */
void ks_raise(std::atomic<int64_t> &best, int64_t b) {
    int64_t cur = best.load(std::memory_order_relaxed);
    while (b > cur && !best.compare_exchange_weak(cur, b, std::memory_order_relaxed)) {
    }
}

int64_t ks_task(const Item *e, size_t n, int64_t c, int64_t v, std::atomic<int64_t> &best) {
    if (c < 0) return KS_NONE;
    if (n == 0 || c == 0) return v;
    if (v + c * e->value / e->weight < best.load(std::memory_order_relaxed)) return KS_NONE;
    int64_t with, without;
    tbb::parallel_invoke([&] { without = ks_task(e + 1, n - 1, c, v, best); },
                         [&] { with = ks_task(e + 1, n - 1, c - e->weight, v + e->value, best); });
    int64_t b = std::max(with, without);
    ks_raise(best, b);
    return b;
}

uint64_t ks_par(const Knapsack *p) {
    std::atomic<int64_t> best{KS_NONE};
    return static_cast<uint64_t>(ks_task(p->items.data(), p->items.size(), p->capacity, 0, best));
}

/* ---- cilksort: Cilk-5 `cilksort`: four quarters sorted in parallel, two merges in parallel,
 * then the final merge; a merge splits the larger input at its middle key, finds its rank in
 * the other by binary search and merges both sides in parallel. Serial quicksort (median of
 * three, Hoare partition) below QUICKSIZE keys, insertion sort at INSERTIONSIZE, serial merge
 * below MERGESIZE keys in the smaller input: Cilk-5's cutoffs, as the Rust kernel. ---- */

constexpr size_t CS_QUICKSIZE = 2048;
constexpr size_t CS_MERGESIZE = 2048;
constexpr size_t CS_INSERTIONSIZE = 20;

void cs_insertion(uint64_t *a, size_t n) {
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

/* Returns s with 0 < s < n, every key of a[..s] <= every key of a[s..]. */
size_t cs_partition(uint64_t *a, size_t n) {
    size_t lo = 0, mid = n / 2, hi = n - 1;
    if (a[mid] < a[lo]) std::swap(a[mid], a[lo]);
    if (a[hi] < a[lo]) std::swap(a[hi], a[lo]);
    if (a[hi] < a[mid]) std::swap(a[hi], a[mid]);
    uint64_t pivot = a[mid];
    size_t i = lo, j = hi;
    for (;;) {
        while (a[i] < pivot) i++;
        while (a[j] > pivot) j--;
        if (i >= j) return j + 1;
        std::swap(a[i], a[j]);
        i++;
        j--;
    }
}

void cs_quick(uint64_t *a, size_t n) {
    while (n > CS_INSERTIONSIZE) {
        size_t split = cs_partition(a, n);
        cs_quick(a, split);
        a += split;
        n -= split;
    }
    cs_insertion(a, n);
}

void cs_seqmerge(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, uint64_t *dest) {
    size_t i = 0, j = 0;
    for (size_t d = 0; d < nx + ny; d++) {
        if (j >= ny || (i < nx && x[i] <= y[j]))
            dest[d] = x[i++];
        else
            dest[d] = y[j++];
    }
}

/* A merge of sorted x and y into dest, split for its two halves. */
struct Merge {
    const uint64_t *x, *y;
    size_t nx, ny; /* nx >= ny once split */
    size_t m, k;   /* x[m] goes to dest[m + k]: x[..m] and y[..k] before it, the rest after */

    /* Orders the inputs larger first; below MERGESIZE keys in the smaller one merges serially
     * and returns true; else places the middle key of x (k: the keys of y <= it). */
    bool split(uint64_t *dest) {
        if (ny > nx) {
            std::swap(x, y);
            std::swap(nx, ny);
        }
        if (ny <= CS_MERGESIZE) {
            cs_seqmerge(x, nx, y, ny, dest);
            return true;
        }
        m = nx / 2;
        k = static_cast<size_t>(std::upper_bound(y, y + ny, x[m]) - y);
        dest[m + k] = x[m];
        return false;
    }
};

void cs_merge_serial(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, uint64_t *dest) {
    Merge g{x, y, nx, ny, 0, 0};
    if (g.split(dest)) return;
    cs_merge_serial(g.x, g.m, g.y, g.k, dest);
    cs_merge_serial(g.x + g.m + 1, g.nx - g.m - 1, g.y + g.k, g.ny - g.k, dest + g.m + g.k + 1);
}

void cs_serial(uint64_t *a, uint64_t *tmp, size_t n) {
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

void cs_merge_par(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, uint64_t *dest) {
    Merge g{x, y, nx, ny, 0, 0};
    if (g.split(dest)) return;
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
 * tree generated as crates/offshoot-bench/src/kernels/uts.rs does: a node's state is a SHA-1
 * digest (the root's: of 16 zero bytes and the root seed, big-endian; child i's: of its
 * parent's digest and i, big-endian), its random number the big-endian u32 of the digest's
 * last 4 bytes masked with 0x7fffffff, over 2^31 as a probability; the number of children by
 * the reference's binomial, geometric (four shapes), hybrid and balanced rules, at most 100
 * (but a binomial root). A task_group per node: a task per child but the last, which runs
 * inline, then one wait (the C peer's form). No cutoff. ---- */

/* SHA-1 (FIPS 180-4), written for this file: the whole message in one call. */
uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

void sha1_block(uint32_t h[5], const uint8_t block[64]) {
    uint32_t w[80];
    for (int t = 0; t < 16; t++)
        w[t] = uint32_t{block[4 * t]} << 24 | uint32_t{block[4 * t + 1]} << 16 |
               uint32_t{block[4 * t + 2]} << 8 | block[4 * t + 3];
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

void sha1(const uint8_t *msg, size_t len, uint8_t out[20]) {
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    uint8_t block[64];
    size_t done = 0;
    for (; len - done >= 64; done += 64) sha1_block(h, msg + done);
    size_t rest = len - done;
    std::memcpy(block, msg + done, rest);
    block[rest] = 0x80;
    if (rest >= 56) {
        std::memset(block + rest + 1, 0, 63 - rest);
        sha1_block(h, block);
        std::memset(block, 0, 56);
    } else {
        std::memset(block + rest + 1, 0, 55 - rest);
    }
    uint64_t bits = static_cast<uint64_t>(len) * 8;
    for (int i = 0; i < 8; i++) block[56 + i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
    sha1_block(h, block);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = static_cast<uint8_t>(h[i] >> (24 - 8 * j));
}

enum { UTS_BINOMIAL, UTS_GEOMETRIC, UTS_HYBRID, UTS_BALANCED };
enum { UTS_LINEAR, UTS_EXPDEC, UTS_CYCLIC, UTS_FIXED };

/* The reference's flags -t -a -d -b -r -m -q -f. */
struct UtsTree {
    int type, shape;
    uint32_t gen_mx;
    double b0;
    int32_t root_seed;
    uint32_t non_leaf_bf;
    double non_leaf_prob, shift_depth;
};

struct UtsNode {
    uint8_t state[20];
    uint32_t height;
};

struct UtsCounts {
    uint64_t nodes, leaves, depth;
};

void put_be32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

UtsNode uts_root(const UtsTree &t) {
    uint8_t seed[20] = {0};
    put_be32(seed + 16, static_cast<uint32_t>(t.root_seed));
    UtsNode n{};
    sha1(seed, sizeof seed, n.state);
    return n;
}

UtsNode uts_child(const UtsNode &parent, uint32_t i) {
    uint8_t msg[24];
    std::memcpy(msg, parent.state, 20);
    put_be32(msg + 20, i);
    UtsNode n{};
    n.height = parent.height + 1;
    sha1(msg, sizeof msg, n.state);
    return n;
}

double uts_probability(const UtsNode &n) {
    uint32_t r = uint32_t{n.state[16]} << 24 | uint32_t{n.state[17]} << 16 |
                 uint32_t{n.state[18]} << 8 | n.state[19];
    return static_cast<double>(r & 0x7fffffff) / 2147483648.0;
}

/* A double as Rust's `as i64`: NaN is 0, out of range saturates. */
int64_t sat_i64(double x) {
    if (std::isnan(x)) return 0;
    if (x >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
    if (x <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(x);
}

int64_t uts_binomial(const UtsTree &t, const UtsNode &n) {
    return uts_probability(n) < t.non_leaf_prob ? int64_t{t.non_leaf_bf} : 0;
}

int64_t uts_geometric(const UtsTree &t, const UtsNode &n) {
    constexpr double pi = 3.14159265358979323846;
    double depth = n.height, gen_mx = t.gen_mx, b0 = t.b0, b_i;
    if (n.height == 0)
        b_i = b0;
    else if (t.shape == UTS_EXPDEC)
        b_i = b0 * std::pow(depth, -std::log(b0) / std::log(gen_mx));
    else if (t.shape == UTS_CYCLIC)
        b_i = n.height > 5 * t.gen_mx ? 0.0 : std::pow(b0, std::sin(2.0 * pi * depth / gen_mx));
    else if (t.shape == UTS_FIXED)
        b_i = n.height < t.gen_mx ? b0 : 0.0;
    else
        b_i = b0 * (1.0 - depth / gen_mx);
    double p = 1.0 / (1.0 + b_i);
    double u = uts_probability(n);
    return sat_i64(std::floor(std::log(1.0 - u) / std::log(1.0 - p)));
}

uint32_t uts_num_children(const UtsTree &t, const UtsNode &n) {
    int64_t k, limit = 100;
    switch (t.type) {
    case UTS_BINOMIAL:
        k = n.height == 0 ? sat_i64(std::floor(t.b0)) : uts_binomial(t, n);
        if (n.height == 0) limit = sat_i64(std::ceil(t.b0));
        break;
    case UTS_GEOMETRIC:
        k = uts_geometric(t, n);
        break;
    case UTS_HYBRID:
        k = static_cast<double>(n.height) < t.shift_depth * t.gen_mx ? uts_geometric(t, n)
                                                                     : uts_binomial(t, n);
        break;
    default:
        k = n.height < t.gen_mx ? sat_i64(t.b0) : 0;
        limit = std::numeric_limits<int64_t>::max();
    }
    return static_cast<uint32_t>(k < 0 ? 0 : k > limit ? limit : k);
}

UtsCounts uts_merge(UtsCounts a, UtsCounts b) {
    return UtsCounts{a.nodes + b.nodes, a.leaves + b.leaves, std::max(a.depth, b.depth)};
}

UtsCounts uts_serial(const UtsTree &t, const UtsNode &n) {
    uint32_t k = uts_num_children(t, n);
    if (k == 0) return UtsCounts{1, 1, n.height};
    UtsCounts c{1, 0, n.height};
    for (uint32_t i = 0; i < k; i++) c = uts_merge(c, uts_serial(t, uts_child(n, i)));
    return c;
}

UtsCounts uts_par(const UtsTree &t, const UtsNode &n) {
    uint32_t k = uts_num_children(t, n);
    if (k == 0) return UtsCounts{1, 1, n.height};
    UtsCounts small[100];
    std::vector<UtsCounts> large(k > 100 ? k : 0);
    UtsCounts *counts = k <= 100 ? small : large.data();
    tbb::task_group g;
    for (uint32_t i = 0; i + 1 < k; i++) {
        UtsCounts *slot = &counts[i];
        g.run([&t, &n, slot, i] { *slot = uts_par(t, uts_child(n, i)); });
    }
    counts[k - 1] = uts_par(t, uts_child(n, k - 1));
    g.wait();
    UtsCounts c{1, 0, n.height};
    for (uint32_t i = 0; i < k; i++) c = uts_merge(c, counts[i]);
    return c;
}

/* ---- driver ---- */

/* Runs `reset` then `run` <warm-ups> times untimed and once timed (only `run` is timed), and
 * prints `<what> <seconds> <answer()>`. */
template <class Reset, class Run, class Answer>
void timed(const char *what, uint64_t warmups, Reset reset, Run run, Answer answer) {
    double seconds = 0;
    for (uint64_t r = 0; r <= warmups; r++) {
        reset();
        double t0 = now();
        run();
        seconds = now() - t0;
    }
    std::printf("%s %.9f %s\n", what, seconds, answer().c_str());
}

/* The serial version, then the parallel one in `arena`, of a kernel whose input is `in` and
 * whose answer is a u64 (reset: nothing; the input is hidden from the optimiser each call, so
 * no call is merged with another). */
template <class In, class Serial, class Par>
void run_u64(tbb::task_arena &arena, uint64_t warmups, In in, Serial serial, Par par) {
    uint64_t r = 0;
    auto answer = [&] { return std::to_string(r); };
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

/* The same for a kernel with a reset and an answer of its own (matmul, cilksort, uts). */
template <class Reset, class Serial, class Par, class Answer>
void run_both(tbb::task_arena &arena, uint64_t warmups, Reset reset, Serial serial, Par par,
              Answer answer) {
    timed("serial", warmups, reset, serial, answer);
    timed("parallel", warmups, reset, [&] { arena.execute(par); }, answer);
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 5) die("usage: tbb <kernel> <workers> <warm-ups> <kernel arguments...>");
    const std::string kernel = argv[1];
    uint64_t workers = arg_u64(argv[2]);
    if (workers < 1 || workers > 4096) die("workers must be in 1..=4096");
    uint64_t warmups = arg_u64(argv[3]);
    if (warmups > 100) die("warm-ups must be in 0..=100");
    // `workers` threads in all (the calling thread and workers - 1 of oneTBB's), each with a
    // 64 MiB stack: uts' binomial tree is 1,572 levels deep, and a thread that waits runs other
    // tasks on top of the frames of the one it waits in.
    tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, workers);
    tbb::global_control stack(tbb::global_control::thread_stack_size, size_t{64} << 20);
    tbb::task_arena arena(static_cast<int>(workers));
    const int nargs = argc - 4; /* kernel arguments: argv[4..] */
    char **args = argv + 4;

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
        Node *root = ts_build(static_cast<unsigned>(depth), 1);
        run_u64(arena, warmups, static_cast<const Node *>(root), ts_serial, ts_par);
        ts_free(root);
    } else if (kernel == "matmul" && nargs == 2) {
        uint64_t n = arg_u64(args[0]);
        uint64_t seed = arg_u64(args[1]);
        if (n < MM_BLOCK || (n & (n - 1)) != 0 || n > 8192)
            die("matmul n must be a power of two in 16..=8192");
        size_t len = static_cast<size_t>(n * n);
        std::vector<double> a(len), b(len), c(len);
        mm_input(static_cast<size_t>(n), seed, a, b);
        run_both(
            arena, warmups, [&] { std::fill(c.begin(), c.end(), std::nan("")); },
            [&] { mm_serial(c.data(), a.data(), b.data(), len, false); },
            [&] { mm_par(c.data(), a.data(), b.data(), len, false); }, [&] { return fnv1a_words(c); });
    } else if (kernel == "knapsack" && nargs == 2) {
        uint64_t n = arg_u64(args[0]);
        uint64_t seed = arg_u64(args[1]);
        if (n < 1 || n > 1000) die("knapsack n must be in 1..=1000");
        Knapsack p = ks_input(static_cast<size_t>(n), seed);
        run_u64(arena, warmups, static_cast<const Knapsack *>(&p), ks_serial, ks_par);
    } else if (kernel == "cilksort" && nargs == 2) {
        uint64_t n = arg_u64(args[0]);
        uint64_t seed = arg_u64(args[1]);
        if (n > (uint64_t{1} << 32)) die("cilksort n must be at most 2^32");
        size_t len = static_cast<size_t>(n);
        std::vector<uint64_t> input(len), a(len), tmp(len);
        SplitMix64 rng{seed};
        for (uint64_t &key : input) key = rng.next();
        run_both(
            arena, warmups,
            [&] {
                a = input;
                std::fill(tmp.begin(), tmp.end(), 0);
            },
            [&] { cs_serial(a.data(), tmp.data(), len); }, [&] { cs_par(a.data(), tmp.data(), len); },
            [&] { return fnv1a_words(a); });
    } else if ((kernel == "uts" || kernel == "uts-bin") && nargs == 8) {
        /* type shape gen_mx b0 root_seed non_leaf_bf non_leaf_prob shift_depth */
        UtsTree t{
            static_cast<int>(arg_u64(args[0])),
            static_cast<int>(arg_u64(args[1])),
            static_cast<uint32_t>(arg_u64(args[2])),
            arg_f64(args[3]),
            static_cast<int32_t>(arg_i64(args[4])),
            static_cast<uint32_t>(arg_u64(args[5])),
            arg_f64(args[6]),
            arg_f64(args[7]),
        };
        if (t.type > UTS_BALANCED || t.shape > UTS_FIXED) die("uts: bad tree type or shape");
        const UtsNode root = uts_root(t);
        UtsCounts c{0, 0, 0};
        run_both(
            arena, warmups, [] {}, [&] { c = uts_serial(t, root); }, [&] { c = uts_par(t, root); },
            [&] {
                /* The answer token: nodes/leaves/depth. */
                return std::to_string(c.nodes) + "/" + std::to_string(c.leaves) + "/" +
                       std::to_string(c.depth);
            });
    } else {
        std::fprintf(stderr, "tbb peer: unknown kernel `%s` or wrong argument count\n", kernel.c_str());
        return 2;
    }
    return 0;
}
