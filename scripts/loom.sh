#!/usr/bin/env bash
# Model-checks with loom (every `loom_tests` module of crates/offshoot/src): the request
# handshake and a thief sleeping with its request posted (mailbox.rs), the limit word's raise against
# its re-arm and its detach (limit_word.rs, mailbox.rs), work injected as a
# worker goes to sleep (worker/sleep.rs), the park/wake token and who queues a parked fiber (token.rs), the
# lock-free stack of fibers woken from other threads with the worker's sleep handshake
# (ready_stack.rs), Event's check-then-park (sync/event.rs), the lock word under Mutex and Monitor (sync/lock_word.rs), Shared's commit against a reader (sync/shared.rs: arc-swap's load and store run as one step each there), an Object's suspended read against its restore, whose lock-free side takes the wait lists' mutex only when a caller is announced (sync/object.rs), the reader-writer word under RwLock (sync/rw_word.rs), an owned handle's claim, completion against its waker's registration, drop and last owner's free (sync/handle.rs, with the completion words of sync/completion.rs), and an actor's idle/scheduled
# handshake with its senders (actor/handshake.rs). `.ci/run` runs it (it
# explores every interleaving up to LOOM_MAX_PREEMPTIONS, default 3; about 10 s once built,
# a minute with the build); run it before changing any of them.
# Usage: scripts/loom.sh [test filter and harness options]
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTFLAGS="--cfg loom ${RUSTFLAGS:-}" LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}" \
  cargo test -p offshoot --release --lib --target-dir target/loom -- loom_tests "$@"
