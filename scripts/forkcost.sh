#!/usr/bin/env bash
# Instructions, loads and stores per fork of the fork-join kernels, counted by callgrind
# (repeatable on a loaded machine, unlike wall-clock time), on 1 worker, built with the
# workspace's release profile (Cargo's default code generation: what a user's crate gets).
#
#   scripts/forkcost.sh [KERNEL N]...   default: fib 27 tree-sum 18 nqueens 10 knapsack 36
#
# KERNEL may also be `grain-G` (the suite's grain kernels: a tree of depth N whose 2^N
# leaves each run G xor-multiplies, 2^N - 1 joins; `scripts/grain.sh` sweeps G).
#
# Every contender is the kernel's own plain function, written as a user writes it (see
# `crates/offshoot-bench/examples/forkcost.rs`). For each kernel and contender it counts
# one run (2 runs minus 1 run, so pool start-up cancels) and prints the instructions (Ir),
# loads (Dr) and stores (Dw) per fork, and the same minus the plain serial function's: the
# runtime's cost of one fork in the code users write; and `eff`, serial's instructions ÷ the
# contender's (the instruction-count efficiency: 100% is no cost over serial).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "forkcost.sh: valgrind is not installed" >&2; exit 1; }
cargo build --release -q -p offshoot-bench --example forkcost
bin=target/release/examples/forkcost
[ $# -gt 0 ] || set -- fib 27 tree-sum 18 nqueens 10 knapsack 36

count() { # kernel contender n runs -> "Ir Dr Dw"
    valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\) \([0-9]*\) \([0-9]*\).*/\1 \2 \3/p'
}

while [ $# -ge 2 ]; do
    kernel=$1 n=$2
    shift 2
    forks=$("$bin" "$kernel" serial "$n" 1 | sed -n 's/.*forks per run \([0-9]*\).*/\1/p')
    printf '%s(%s): %s forks per run; per fork: Ir Dr Dw, and over serial\n' "$kernel" "$n" "$forks"
    serial=""
    for c in serial offshoot chili rayon; do
        read -r i2 l2 s2 < <(count "$kernel" "$c" "$n" 2)
        read -r i1 l1 s1 < <(count "$kernel" "$c" "$n" 1)
        one="$((i2 - i1)) $((l2 - l1)) $((s2 - s1))"
        [ -n "$serial" ] || serial=$one
        awk -v c="$c" -v one="$one" -v base="$serial" -v f="$forks" 'BEGIN {
            split(one, x, " "); split(base, s, " ")
            printf "  %-9s %7.1f %6.1f %6.1f", c, x[1] / f, x[2] / f, x[3] / f
            if (c != "serial") printf "   over serial %7.1f %6.1f %6.1f   eff %5.1f%%", (x[1] - s[1]) / f, (x[2] - s[2]) / f, (x[3] - s[3]) / f, 100 * s[1] / x[1]
            printf "\n" }'
    done
done
