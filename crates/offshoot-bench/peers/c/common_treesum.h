/*
 * offshoot-bench peers: `tree-sum`'s input and plain serial version, shared by the C/OpenMP and the
 * C++/oneTBB peers. Included by peer_common.h only (inside its `extern "C"` block, after the
 * protocol and the generator), as every family's header is.
 */

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
