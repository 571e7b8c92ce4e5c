#!/usr/bin/env bash
# Runs the integration tests under ThreadSanitizer (std rebuilt with TSan so its atomics and
# park/unpark are instrumented). Not part of CI (slow).
# `--cfg offshoot_tsan` builds in the fiber-switch annotations (src/tsan.rs): without them
# TSan's shadow call stack follows no stack switch and overflows with many parked tasks.
# The bounded tests get a longer limit (OFFSHOOT_TEST_TIMEOUT_S): TSan runs them 5-15x
# slower, and their limit only bounds a hang.
# Needs: rustup toolchain install nightly && rustup +nightly component add rust-src
set -euo pipefail
cd "$(dirname "$0")/.."
export RUSTFLAGS="-Zsanitizer=thread --cfg offshoot_tsan ${RUSTFLAGS:-}"
export RUSTDOCFLAGS="-Zsanitizer=thread --cfg offshoot_tsan"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1}"
export OFFSHOOT_TEST_TIMEOUT_S="${OFFSHOOT_TEST_TIMEOUT_S:-600}"
# With no arguments every test binary runs; arguments replace `--tests` (e.g. `--test bridge
# --test sync`, optionally followed by `--` and a test-name filter).
if [ "$#" -eq 0 ]; then set -- --tests; fi
cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu -p offshoot --target-dir target/tsan "$@"
