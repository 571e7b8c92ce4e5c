#!/usr/bin/env bash
# Runs the integration tests under ThreadSanitizer (std rebuilt with TSan so its atomics and
# park/unpark are instrumented). Not part of CI (slow).
# Needs: rustup toolchain install nightly && rustup +nightly component add rust-src
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTFLAGS="-Zsanitizer=thread ${RUSTFLAGS:-}"
export RUSTDOCFLAGS="-Zsanitizer=thread"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1}"
cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu -p offshoot --tests --target-dir target/tsan "$@"
