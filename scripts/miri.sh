#!/usr/bin/env bash
# Runs a small set of integration tests (tests/miri_smoke.rs: joins, spawns, loops, bridged
# pieces, futures dropped while another worker completes them, a
# mutex, a monitor and a reader-writer lock contended by tasks and a thread, `sync::Shared` versions
# reclaimed while readers hold them, an `opa::Fifo`) under Miri, which checks the
# unsafe code (frame casts, the seed's in-place job, the reply slot, the future block's
# counts, the finish state's last release, arc-swap's loads and stores under Shared) for undefined behaviour and data races on the
# interleavings it explores — once under Stacked Borrows and once under Tree Borrows, each
# with 4 scheduling seeds. Not part of CI (slow: tens of minutes; pass a test filter to
# narrow it, e.g. `scripts/miri.sh future`).
# Needs: rustup toolchain install nightly && rustup +nightly component add miri rust-src
set -euo pipefail
cd "$(dirname "$0")/.."
base="${MIRIFLAGS:--Zmiri-disable-isolation -Zmiri-permissive-provenance -Zmiri-many-seeds=0..4}"
for model in "" "-Zmiri-tree-borrows"; do
  echo "== miri: ${model:-stacked borrows}"
  MIRIFLAGS="$base $model" cargo +nightly miri test -p offshoot --test miri_smoke "$@"
done
