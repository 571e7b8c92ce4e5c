#!/usr/bin/env bash
# Installs the toolchains of the benchmark suite's peers in other languages
# (crates/offshoot-bench/src/peers/mod.rs) that are missing, with apt (Debian/Ubuntu):
#   c-openmp: gcc with libgomp (Debian's gcc package brings libgomp);
#   go:       Go (Debian's golang-go; the peer needs only the standard library);
#   java:     a JDK, javac and java (Debian's default-jdk-headless; the peer needs only the
#             standard library of JDK 17 or later; with JAVA_HOME set, its bin/ is used);
#   c-openmp-clang: clang with LLVM's OpenMP runtime (Debian's clang and libomp-dev; $CLANG
#             when set);
#   cpp-tbb:  a C++17 compiler and oneTBB (Debian's g++ and libtbb-dev, oneTBB 2021 or later;
#             $CXX when set).
# The suite builds the peers itself and skips, with a one-line reason, any peer whose
# toolchain is missing; nothing else needs them.
# Usage: scripts/peers.sh   (as root, or with sudo available)
set -euo pipefail
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
cc="${CC:-gcc}"
if ! command -v "$cc" >/dev/null 2>&1 \
  || ! printf 'int main(void){return 0;}\n' | "$cc" -fopenmp -x c -o /dev/null - >/dev/null 2>&1; then
  missing+=(gcc libgomp1)
fi
if ! command -v "${GO:-go}" >/dev/null 2>&1; then
  missing+=(golang-go)
fi
if [ -n "${JAVA_HOME:-}" ]; then
  javac="$JAVA_HOME/bin/javac" java="$JAVA_HOME/bin/java"
else
  javac=javac java=java
fi
if ! command -v "$javac" >/dev/null 2>&1 || ! command -v "$java" >/dev/null 2>&1; then
  missing+=(default-jdk-headless)
fi
clang="${CLANG:-clang}"
if ! command -v "$clang" >/dev/null 2>&1; then
  missing+=(clang libomp-dev)
elif ! printf '#include <omp.h>\nint main(void){return omp_get_max_threads() < 1;}\n' \
  | "$clang" -fopenmp=libomp -x c -o /dev/null - >/dev/null 2>&1; then
  missing+=(libomp-dev)
fi
cxx="${CXX:-g++}"
if ! command -v "$cxx" >/dev/null 2>&1; then
  missing+=(g++ libtbb-dev)
elif ! printf '#include <tbb/parallel_invoke.h>\nint main(){tbb::parallel_invoke([]{}, []{});}\n' \
  | "$cxx" -std=c++17 -x c++ -o /dev/null - -ltbb >/dev/null 2>&1; then
  missing+=(libtbb-dev)
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "peers.sh: every peer toolchain is installed (c-openmp: $cc -fopenmp; go: $(command -v "${GO:-go}"); java: $(command -v "$javac"); c-openmp-clang: $clang -fopenmp=libomp; cpp-tbb: $cxx -ltbb)"
  exit 0
fi
echo "peers.sh: installing ${missing[*]}"
$sudo apt-get update -q
$sudo apt-get install -y -q "${missing[@]}"
