#!/usr/bin/env bash
# Builds kiln and runs every test: the full ctest suite in ./build, then the
# unit and lit tests again under AddressSanitizer + UndefinedBehaviorSanitizer
# in ./build-asan, plus a sweep of every real and ONNX conformance model
# through that sanitized kiln (scripts/sanitizer_sweep.py), then each libFuzzer
# target for a short fixed time in ./build-fuzz (fuzz/run.sh; skipped with a
# an error when clang's libFuzzer is not installed). Run from anywhere; uses
# ccache when it is installed.
# Set KILN_JOBS to limit parallel jobs (default: all cores),
# KILN_FUZZ_SECONDS to change the time per fuzz target (default 10).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${KILN_JOBS:-$(nproc)}
cd "$root"
# Let ccache hit across clones in different folders (CI clones afresh each
# run): paths are hashed relative to the checkout, not the build directory.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

configure_and_build() { # build-dir, targets ("all" for everything), cmake args...
  local dir=$1 targets=$2
  shift 2
  cmake -G Ninja -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
  cmake --build "$dir" -j "$jobs" --target $targets
}

echo "== build and test (./build)"
configure_and_build build all
(cd build && ctest --output-on-failure -j "$jobs")

echo "== build and test with ASan + UBSan (./build-asan): unit and lit tests"
# Only what the unit and lit tests run is built, to keep CI time down.
configure_and_build build-asan "kiln kiln-unit-tests" -DKILN_SANITIZE=ON
# detect_leaks=1: LeakSanitizer is on (it needs ptrace, which works as root
# and in ordinary containers; see docs/architecture.md, Sanitizers).
(cd build-asan &&
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure -j "$jobs" -R '^(unit|lit)$')

echo "== every real and ONNX conformance model through the sanitized kiln"
# Import + verify + optimize (kiln inspect) for all; evaluation (kiln run
# --reference) for the real models up to 1 MiB of weights and one
# conformance model in 4, to keep CI time down (docs/fuzzing.md).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
  /usr/bin/python3 scripts/sanitizer_sweep.py --kiln build-asan/tools/kiln/kiln \
  --work build-asan/sanitizer-sweep --jobs "$jobs" --evaluate-every 4

echo "== libFuzzer targets, ${KILN_FUZZ_SECONDS:-10} s each (./build-fuzz)"
fuzzer_probe='extern "C" int LLVMFuzzerTestOneInput(const char *, long) { return 0; }'
if ! echo "$fuzzer_probe" | clang++-19 -x c++ -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  echo "error: clang++-19 cannot link libFuzzer (-fsanitize=fuzzer); install clang-19 and" \
    "libclang-rt-19-dev (scripts/install-deps.sh)" >&2
  exit 1
fi
KILN_JOBS=$jobs fuzz/run.sh --seconds "${KILN_FUZZ_SECONDS:-10}"
echo "== all tests passed"
