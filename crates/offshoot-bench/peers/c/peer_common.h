/*
 * offshoot-bench peers: what the C/OpenMP peer (peers/c/omp.c) and the C++/oneTBB peer
 * (peers/cpp/tbb.cpp) share (written for offshoot, not copied from anywhere): the protocol's
 * command line, clock and output lines, the inputs (SplitMix64 as
 * crates/offshoot-bench/src/rng.rs), the answers' FNV-1a digest, the UTS tree (its SHA-1 and
 * the reference's child counts) and every kernel's plain serial version, each following the
 * same published program as the peers' parallel versions (named in their sections). The
 * kernels' parts are a header per family (common_fib.h, common_nqueens.h, ...), included
 * below; each peer keeps its parallel versions and its driver.
 *
 * Plain C11 that is also C++17 (in `extern "C"`): every function `static inline`, no macros
 * but the include guard; one GNU attribute (`noreturn`, which gcc and clang take in both
 * languages). The harness writes this file and the family headers beside the peer's source in
 * its build folder and passes `-I` that folder (crates/offshoot-bench/src/peers/, `RECIPES` and `native.rs`); the
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

/* ---- the kernels' inputs and serial versions, a header per family ---- */

#include "common_fib.h"
#include "common_nqueens.h"
#include "common_parfor.h"
#include "common_matmul.h"
#include "common_treesum.h"
#include "common_knapsack.h"
#include "common_cilksort.h"
#include "common_uts.h"

#ifdef __cplusplus
}
#endif

#endif /* OFFSHOOT_PEER_COMMON_H */
