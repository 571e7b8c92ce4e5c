#!/usr/bin/env bash
# Runs the library's unit tests and a small set of integration tests under Miri, which
# checks the unsafe code (frame casts, the seed's in-place job, the reply slot) for
# undefined behaviour on the interleavings it explores. Not part of CI (slow).
# Needs: rustup toolchain install nightly && rustup +nightly component add miri rust-src
set -euo pipefail
cd "$(dirname "$0")/.."
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation -Zmiri-permissive-provenance -Zmiri-many-seeds=0..4}"
cargo +nightly miri test -p offshoot --test miri_smoke "$@"
