/*
 * offshoot-bench peers: `uts`'s input and plain serial version, shared by the C/OpenMP and the
 * C++/oneTBB peers. Included by peer_common.h only (inside its `extern "C"` block, after the
 * protocol and the generator), as every family's header is.
 */

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
