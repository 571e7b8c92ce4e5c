#!/usr/bin/env bash
# The protocol model (crates/offshoot-mpi/examples/cluster-sim): calibrates it on this
# machine, checks it against measured runs, then predicts large clusters.
#
# 1. Costs: the MPI transport's latency, bandwidth and empty probe, and the CPU an agent's
#    wake (a probe and a nap) takes (cluster-bench pingpong, 2 ranks); the kernel's time
#    per node on one rank, how much longer than asked a nap lasts, and a package's cut,
#    encode and decode per node (cluster-sim calibrate).
# 2. Check: UTS T1 and T3 measured under mpirun on 1, 2 and 4 ranks x 1 worker (medians
#    of REPS runs) beside the model's prediction for the same ranks sharing this machine's
#    cores. The model's time per node is the measured 1-rank time over the node count, so
#    its 1-rank row matches by construction; the 2- and 4-rank rows are the test (the
#    issue asks for 15%).
# 3. Predictions: T1XXL-like and T3L-like trees (the published shapes, a cheap generator)
#    on 16 to 4096 ranks of their own cores, with the measured costs. T1XXL-like has 2.6
#    billion nodes: this step takes several minutes a rank count on a small machine.
#
#   bash scripts/mpi-sim.sh [REPS] [RANKS...]     (defaults: 3; 16 64 256 1024 4096)
#   MPI_SIM_CHECK_ONLY=1 bash scripts/mpi-sim.sh   (steps 1 and 2: a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
shift || true
RANKS=("$@")
if [ ${#RANKS[@]} -eq 0 ]; then RANKS=(16 64 256 1024 4096); fi
bash scripts/install-mpi.sh >/dev/null
cargo build --release -q -p offshoot-mpi --features mpi --example cluster-bench --example cluster-sim
B=target/release/examples/cluster-bench
S=target/release/examples/cluster-sim
MPIRUN=(mpirun --oversubscribe --bind-to none)
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
CORES=$(nproc)

echo "== costs"
read -r LAT BW PROBE WAKE < <("${MPIRUN[@]}" -np 2 "$B" pingpong mpi | awk '/^pingpong/ {print $3, $5, $7, $9}')
CAL=$("$S" calibrate)
val() { echo "$CAL" | awk -v k="$1" '$1 == k {print $2}'; }
PACK=$(val pack-ns)
UNPACK=$(val unpack-ns)
BYTES=$(val node-bytes)
OVER=$(val nap-overshoot-us)
echo "latency-us $LAT  bandwidth-gb/s $BW  probe-us $PROBE  wake-us $WAKE  nap-overshoot-us $OVER  pack-ns $PACK  unpack-ns $UNPACK  node-bytes $BYTES"
echo "$CAL" | grep '^node-ns'
COSTS=(--pack-ns "$PACK" --unpack-ns "$UNPACK" --node-bytes "$BYTES" --latency-us "$LAT" --gbps "$BW" --wake-us "$WAKE" --nap-overshoot-us "$OVER")

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "== the model against measured runs ($CORES cores; medians of $REPS)"
printf '%-5s %6s %12s %12s %8s\n' tree ranks measured-s model-s error
for t in t1 t3; do
  nodes=$("$S" count "$t" | awk '{print $3}')
  node_ns=""
  for np in 1 2 4; do
    m=$(for _ in $(seq "$REPS"); do
      "${MPIRUN[@]}" -np "$np" "$B" "uts-$t" mpi 1 | awk '/ mpi / {print $5}'
    done | median)
    if [ "$np" = 1 ]; then node_ns=$(awk -v s="$m" -v n="$nodes" 'BEGIN {print s * 1e9 / n}'); fi
    p=$("$S" predict "$t" "$np" --node-ns "$node_ns" --cores "$CORES" "${COSTS[@]}" | awk -v t="$t" '$1 == t {print $3}')
    printf '%-5s %6s %12.4f %12.4f %7.1f%%\n' "$t" "$np" "$m" "$p" "$(awk -v m="$m" -v p="$p" 'BEGIN {print (p - m) / m * 100}')"
  done
done

if [ "${MPI_SIM_CHECK_ONLY:-}" = 1 ]; then exit 0; fi
echo "== predictions: one core per rank, the measured costs"
"$S" predict t3l-like 1 "${RANKS[@]}" --node-ns "$(val node-ns-t3)" "${COSTS[@]}"
"$S" predict t1xxl-like 1 "${RANKS[@]}" --node-ns "$(val node-ns-t1)" "${COSTS[@]}"
