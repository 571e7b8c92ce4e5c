#!/usr/bin/env bash
# The grain-efficiency curve of Goldstein, Schauser and Culler (seed 003, Fig. 9) in
# instructions, counted by callgrind (repeatable on a loaded machine): for each grain G of
# the suite's `grain-G` kernels (a binary tree of depth DEPTH, a join per inner node, each
# of its 2^DEPTH leaves G dependent xor-multiplies), on 1 worker, the instructions per fork
# (= per leaf, within 1/2^DEPTH) of serial, offshoot, chili and rayon, their excess over
# serial, and `eff`: serial's count ÷ the contender's, the curve itself.
#
#   scripts/grain.sh [DEPTH]   default 14 (16384 leaves)
#
# The serial Ir per fork is the leaf's grain in instructions (plus the plain recursion's
# call); 003's "about 400 cycles" is G ≈ 100 at the chain's 4 cycles per xor-multiply.
set -euo pipefail
cd "$(dirname "$0")/.."
depth=${1:-14}
args=()
for g in 1 4 16 64 256 1024; do
    args+=("grain-$g" "$depth")
done
exec scripts/forkcost.sh "${args[@]}"
