#!/usr/bin/env bash
# Times offshoot-mpi's kernels side by side in one run: the plain serial program, plain
# offshoot on one process (1 and 2 workers), and under mpirun 1 rank (1 and 2 workers),
# 2 ranks x 1 worker, 4 ranks x 1 worker (oversubscribed on a 2-core machine: for
# correctness, not speed). Medians of REPS runs (default 5) with their range, as ratios to
# the serial median; every run checks its answer. For the 2-rank runs, the median run's
# per-rank statistics (steals, packages, bytes, idle time) follow.
#
#   bash scripts/mpi-bench.sh [REPS] [KERNEL ...]     (default: uts-t1 uts-t3 queens-15 knapsack-32 pentomino-6)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-5}
shift || true
KERNELS=("$@")
if [ ${#KERNELS[@]} -eq 0 ]; then KERNELS=(uts-t1 uts-t3 queens-15 knapsack-32 pentomino-6); fi
bash scripts/install-mpi.sh >/dev/null
cargo build --release -q -p offshoot-mpi --features mpi --example cluster-bench
B=target/release/examples/cluster-bench
MPIRUN=(mpirun --oversubscribe --bind-to none)
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run_mode() { # label, command...
  local label=$1
  shift
  : >"$TMP/$label"
  for _ in $(seq "$REPS"); do
    "$@" >"$TMP/out" 2>&1 || { cat "$TMP/out"; exit 1; }
    local line
    line=$(grep -E "^[a-z0-9-]+ (serial|plain|mpi) " "$TMP/out" | head -1)
    echo "$(echo "$line" | awk '{print $5}') $(grep -c '^  rank' "$TMP/out" || true)" >>"$TMP/$label"
    cp "$TMP/out" "$TMP/$label.$(echo "$line" | awk '{print $5}')"
  done
}

printf '%-12s %-22s %10s %22s %8s\n' kernel mode median-s range-s ×serial
for k in "${KERNELS[@]}"; do
  run_mode serial "$B" "$k" serial
  run_mode plain1 "$B" "$k" plain 1
  run_mode plain2 "$B" "$k" plain 2
  run_mode r1w1 "${MPIRUN[@]}" -np 1 "$B" "$k" mpi 1
  run_mode r1w2 "${MPIRUN[@]}" -np 1 "$B" "$k" mpi 2
  run_mode r2w1 "${MPIRUN[@]}" -np 2 "$B" "$k" mpi 1
  run_mode r4w1 "${MPIRUN[@]}" -np 4 "$B" "$k" mpi 1
  serial_med=$(sort -g "$TMP/serial" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  for m in serial plain1 plain2 r1w1 r1w2 r2w1 r4w1; do
    case $m in
      serial) name="serial" ;; plain1) name="offshoot 1 worker" ;; plain2) name="offshoot 2 workers" ;;
      r1w1) name="1 rank x 1 worker" ;; r1w2) name="1 rank x 2 workers" ;;
      r2w1) name="2 ranks x 1 worker" ;; r4w1) name="4 ranks x 1 (oversub.)" ;;
    esac
    sort -g "$TMP/$m" | awk -v k="$k" -v n="$name" -v s="$serial_med" '
      {a[NR]=$1} END {med=a[int((NR+1)/2)]; printf "%-12s %-22s %10.4f %10.4f..%-10.4f %8.2f\n", k, n, med, a[1], a[NR], med/s}'
  done
  med=$(sort -g "$TMP/r2w1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  grep '^  rank' "$TMP/r2w1.$med" || true
done
