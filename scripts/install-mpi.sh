#!/usr/bin/env bash
# Installs what offshoot-mpi's `mpi` feature needs on Debian or Ubuntu: Open MPI (library,
# headers, mpirun) and libclang (the `mpi` crate generates its bindings with bindgen).
# Run as root (or with sudo). Other systems: install an MPI (Open MPI 4+ or MPICH 3.3+)
# and libclang with the system's package manager.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
if command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 \
  && command -v clang >/dev/null 2>&1; then
  echo "Open MPI is installed: $(mpirun --version | head -1)"
  exit 0
fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
  libopenmpi-dev openmpi-bin libclang-dev clang pkg-config
mpirun --version | head -1
