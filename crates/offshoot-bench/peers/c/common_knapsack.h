/*
 * offshoot-bench peers: `knapsack`'s input and plain serial version, shared by the C/OpenMP and the
 * C++/oneTBB peers. Included by peer_common.h only (inside its `extern "C"` block, after the
 * protocol and the generator), as every family's header is.
 */

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
