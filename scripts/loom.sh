#!/usr/bin/env bash
# Model-checks the request handshake (crates/offshoot/src/mailbox.rs) with loom.
# Not part of CI (it explores every interleaving and takes a while); run before changing
# the handshake. Usage: scripts/loom.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}" LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}" \
  cargo test -p offshoot --release --lib --target-dir target/loom -- loom_tests "$@"
