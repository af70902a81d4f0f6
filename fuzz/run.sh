#!/usr/bin/env bash
# Builds kiln's libFuzzer targets with clang in ./build-fuzz and runs each for
# a fixed time (docs/fuzzing.md).
#
#   fuzz/run.sh [--seconds N] [--runs R] [--jobs J] [--seed S] [--max-len B]
#               [--build-only] [TARGET...]
#
# TARGET is a name from fuzz/CMakeLists.txt (onnx, graphdef-binary, hlo, ...);
# default: all of them. Each run starts from the seed corpus (collected once
# by fuzz/make_corpus.py into build-fuzz/fuzz-seeds) and keeps what it finds
# in build-fuzz/fuzz-corpus/TARGET, so later runs continue from there.
# Crashes, leaks, timeouts and out-of-memory inputs go to
# build-fuzz/fuzz-artifacts/; the script then exits 1. One line per target
# summarizes libFuzzer's final stats: executions, cov: and ft:.
#
# A long campaign is the same command with more time and more processes,
# e.g. `fuzz/run.sh --seconds 3600 --jobs 4 onnx` (--jobs J runs J fuzzing
# processes of one target at once, sharing its corpus). --seed S fixes
# libFuzzer's random seed and --runs R stops each target after R executions
# (whichever of --seconds and --runs comes first): CI uses both, so its run
# is short and much the same on every machine (coverage feedback is not
# exactly reproducible, so later inputs can differ a little). By default each
# run draws a new seed and is bounded by time only. --max-len B caps the size
# of generated inputs (libFuzzer's -max_len; by default the largest seed, up
# to 850 KB for the real models, which slows mutation down several times).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${KILN_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=15 runs=-1 jobs=1 seed=0 max_len=0 build_only=0 targets=()
while [[ $# -gt 0 ]]; do
  case $1 in
  --seconds) seconds=$2; shift 2 ;;
  --jobs) jobs=$2; shift 2 ;;
  --seed) seed=$2; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  --max-len) max_len=$2; shift 2 ;;
  --build-only) build_only=1; shift ;;
  -*) echo "fuzz/run.sh: error: unknown option '$1'" >&2; exit 2 ;;
  *) targets+=("$1"); shift ;;
  esac
done
all_targets=(onnx graphdef-binary graphdef-text graphdef-json tfjs tf2xla-config hlo npy pipeline)
[[ ${#targets[@]} -gt 0 ]] || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
  if [[ " ${all_targets[*]} " != *" $target "* ]]; then
    echo "fuzz/run.sh: error: unknown target '$target' (expected one of: ${all_targets[*]})" >&2
    exit 2
  fi
done

export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DKILN_FUZZ=ON -DKILN_WERROR=OFF -DBUILD_TESTING=OFF
fi
cmake --build "$build" -j "${KILN_JOBS:-2}" --target "${targets[@]/#/kiln-fuzz-}"
[[ $build_only -eq 0 ]] || exit 0

seeds=$build/fuzz-seeds
if [[ ! -d $seeds ]]; then
  /usr/bin/python3 "$root/fuzz/make_corpus.py" "$seeds.tmp" && mv "$seeds.tmp" "$seeds"
fi
mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"
# The targets hand each input to the readers as a scratch file (they take
# paths). On a disk file system every rewrite of it costs a journal update:
# graphdef-binary ran 22 times slower in /tmp on ext4 than in /dev/shm.
if [[ -z ${TMPDIR:-} && -d /dev/shm && -w /dev/shm ]]; then
  export TMPDIR=/dev/shm
fi

failed=()
for target in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$target log=$build/fuzz-logs/$target.log
  mkdir -p "$corpus" "$seeds/$target"
  # -rss_limit_mb / -malloc_limit_mb: a reader that asks for gigabytes is a
  # finding (issue 14), not something to wait for. -timeout: a hang is too.
  options=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -malloc_limit_mb=2048
           -dict="$root/fuzz/dicts/$target.dict" -print_final_stats=1 -seed="$seed" -runs="$runs"
           -artifact_prefix="$build/fuzz-artifacts/$target-")
  [[ $jobs -le 1 ]] || options+=(-fork="$jobs")
  [[ $max_len -le 0 ]] || options+=(-max_len="$max_len")
  status=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$build/fuzz/kiln-fuzz-$target" "${options[@]}" "$corpus" "$seeds/$target" \
    >"$log" 2>&1 || status=$?
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
  printf '%-16s %s executions, %s%s\n' "$target" "${executed:-?}" "${coverage:-no coverage line}" \
    "$([[ $status -eq 0 ]] || echo ", FAILED (exit $status, see $log)")"
  [[ $status -eq 0 ]] || failed+=("$target")
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz/run.sh: error: findings in ${failed[*]}; inputs in $build/fuzz-artifacts/" >&2
  exit 1
fi
