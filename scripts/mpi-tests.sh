#!/usr/bin/env bash
# offshoot-mpi under real MPI: builds the `mpi` feature and runs the distributed kernels
# with 1, 2 and 4 local ranks (oversubscribed on a small machine). Each run checks its own
# answer (published UTS node counts, known N-Queens counts, the knapsack optimum by
# dynamic programming) and exits non-zero on a wrong one; mpirun must exit 0.
# Installs Open MPI first if it is missing (scripts/install-mpi.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-mpi.sh
cargo build --release -p offshoot-mpi --features mpi --example cluster-bench
B=target/release/examples/cluster-bench
MPIRUN=(mpirun --oversubscribe --bind-to none)
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
for np in 1 2 4; do
  for k in queens-11 uts-t3 knapsack-24 pentomino-4; do
    echo "== mpirun -np $np $k"
    timeout 300 "${MPIRUN[@]}" -np "$np" "$B" "$k" mpi 1
  done
done
echo "== several runs on one session (each run's messages stay in it)"
CLUSTER_BENCH_RUNS=5 timeout 300 "${MPIRUN[@]}" -np 3 "$B" queens-10 mpi 1
CLUSTER_BENCH_RUNS=3 timeout 300 "${MPIRUN[@]}" -np 2 "$B" knapsack-22 mpi 2
echo "== a program started without mpirun runs as one rank"
timeout 120 "$B" queens-10 mpi 2
echo "mpi tests: ok"
