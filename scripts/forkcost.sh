#!/usr/bin/env bash
# Instructions per fork of the fork-join kernels, counted by callgrind (repeatable on a
# loaded machine, unlike wall-clock time), on 1 worker, built with the workspace's release
# profile (Cargo's default code generation: what a user's crate gets).
#
#   scripts/forkcost.sh [KERNEL N]...      default: fib 30 nqueens 12 knapsack 41 tree-sum 18
#
# For each kernel and contender it counts one run (2 runs minus 1 run, so pool start-up
# cancels) and prints the total and, per fork, the contender's instructions minus those of
# `plain` (the same parallel algorithm with `join` as two plain calls): the runtime's cost
# of one fork. `serial` is the plain serial program the suite divides by.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "forkcost.sh: valgrind is not installed" >&2; exit 1; }
cargo build --release -q -p offshoot-bench --example forkcost
bin=target/release/examples/forkcost
[ $# -gt 0 ] || set -- fib 30 nqueens 12 knapsack 41 tree-sum 18

count() { # kernel contender n runs -> instructions
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

while [ $# -ge 2 ]; do
    kernel=$1 n=$2
    shift 2
    forks=$("$bin" "$kernel" count "$n" 1 | sed -n 's/.*forks per run \([0-9]*\).*/\1/p')
    printf '%s(%s): %s forks per run\n' "$kernel" "$n" "$forks"
    plain=""
    for c in plain serial offshoot chili rayon; do
        one=$(( $(count "$kernel" "$c" "$n" 2) - $(count "$kernel" "$c" "$n" 1) ))
        [ -n "$plain" ] || plain=$one
        awk -v c="$c" -v i="$one" -v p="$plain" -v f="$forks" 'BEGIN {
            printf "  %-9s %13d instructions", c, i
            if (c != "plain" && c != "serial" && f > 0) printf "   %6.1f per fork over plain", (i - p) / f
            printf "\n" }'
    done
done
