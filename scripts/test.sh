#!/usr/bin/env bash
# Builds kiln and runs every test: the ctest suite in ./build (warnings in
# kiln's own code are errors there; of lit, only the tests the sanitized
# build cannot run, the rest runs there); the compiler in Release as a user
# builds it (./build-release), compiling a sample for the host, AArch64 and a
# Cortex-M4;
# then, under
# AddressSanitizer + UndefinedBehaviorSanitizer in ./build-sanitize, the unit,
# lit and evaluator-vs-NumPy tests, every real and conformance model imported
# and evaluated (scripts/sanitizer_sweep.py) and every libFuzzer target for a
# few seconds (fuzz/run.sh). Run from anywhere; uses ccache when it is
# installed. Set KILN_JOBS to limit parallel jobs (default: all cores) and
# KILN_FUZZ_RUNS to fuzz each target longer.
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
# LLVM linked statically: the suites start kiln thousands of times, and each
# start is ~30 ms shorter without libLLVM.so (docs/cmake.md).
configure_and_build build all -DKILN_WERROR=ON -DKILN_LLVM_STATIC=ON
# The lit suite runs once, on the strictest build: under ASan + UBSan below.
# Here, only its tests that need this build: those the sanitizers cannot run
# (UNSUPPORTED: kiln-sanitize) and those whose address-space limit
# (%ulimit-v) the sanitizers' shadow memory voids. Every other suite drives
# this build's kiln.
(cd build && ctest --output-on-failure -j "$jobs" -E '^lit$')
unsanitizable=$(cd test/lit && grep -rlE 'ulimit-v|UNSUPPORTED: *kiln-sanitize' . |
  grep -v 'lit\.cfg' | sed 's|^\./||' | sort | paste -sd'|')
(cd build && LIT_FILTER="^kiln :: ($unsanitizable)\$" ctest --output-on-failure -R '^lit$')

echo "== the compiler as a user builds it: Release, default options (./build-release)"
# The documented install (docs/cmake.md) and bench/run.sh build this; GCC's
# -O3 warnings inside system headers once stopped it under -Werror.
configure_and_build build-release kiln -DCMAKE_BUILD_TYPE=Release
release_out=$(mktemp -d)
build-release/tools/kiln/kiln compile samples/hlo/tiny_mlp.hlo -o "$release_out/tiny_mlp"
build-release/tools/kiln/kiln compile samples/hlo/tiny_mlp.hlo --target aarch64-linux-gnu \
  --cpu cortex-a72 -o "$release_out/tiny_mlp_arm"
build-release/tools/kiln/kiln compile samples/hlo/tiny_mlp.hlo --target thumbv7em-none-eabihf \
  -o "$release_out/tiny_mlp_m4"
rm -rf "$release_out"

echo "== build with ASan + UBSan and the libFuzzer targets (./build-sanitize, clang 19)"
# One sanitized build serves three stages: the unit and lit tests, the model
# sweep and the fuzz smoke run. clang, because libFuzzer needs it; the GCC
# build above keeps -Werror (clang 19 warns inside libstdc++ 12's headers).
# Only what the stages run is built, to keep CI time down.
configure_and_build build-sanitize "kiln kiln-unit-tests kiln-model-sweep kiln-fuzzers" \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DKILN_SANITIZE=ON -DKILN_FUZZ=ON -DKILN_WERROR=OFF

echo "== unit, lit and evaluator-vs-NumPy tests under ASan + UBSan"
# detect_leaks=1: LeakSanitizer is on (it needs ptrace, which works as root
# and in ordinary containers; see docs/architecture.md, Sanitizers).
(cd build-sanitize &&
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure -j "$jobs" -R '^(unit|lit|eval-numpy)$')

echo "== sanitizer sweep: every real model and ONNX conformance model"
# Models above 2 GFLOP are imported and optimized but not evaluated: the
# seven largest took most of the stage in the evaluator (docs/fuzzing.md).
/usr/bin/python3 scripts/sanitizer_sweep.py --jobs "$jobs" --evaluate-max-flops 2000000000 \
  --tool build-sanitize/test/sanitizer/kiln-model-sweep --work build-sanitize/sweep

echo "== fuzz smoke run: every libFuzzer target from its seeds (docs/fuzzing.md)"
# A fixed seed and number of executions, so every CI run tries much the same
# inputs however fast the machine (new ones come from the long campaigns of
# docs/fuzzing.md). The time limit only caps a slow machine.
KILN_FUZZ_BUILD_DIR=$root/build-sanitize fuzz/run.sh --seed 1 --runs "${KILN_FUZZ_RUNS:-3000}" --seconds 120
echo "== all tests passed"
