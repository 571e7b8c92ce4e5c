#!/usr/bin/env bash
# Many tasks parked at once (crates/offshoot/tests/parking.rs), in release mode: 100,000 by
# default, or as many as the first argument says; then the per-task figures of the parking
# example (time per spawn+park+resume at 10^3, 10^4, 10^5 parked tasks, resident memory and
# kernel mappings while parked). Not part of CI (a few GB of memory at 10^5+).
# Usage: scripts/parking.sh [TASKS]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-100000}"
OFFSHOOT_PARKED_TASKS="$n" OFFSHOOT_TEST_TIMEOUT_S=600 \
  cargo test --release -q -p offshoot --test parking -- --include-ignored
cargo run --release -q -p offshoot --example parking -- parked
echo "parking: $n tasks parked at once, all woken"
