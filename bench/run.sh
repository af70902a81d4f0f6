#!/usr/bin/env bash
# Measures kiln against its references and writes the numbers into docs/performance.md.
#   1. builds kiln in release mode in ./build-release (target kiln only), unless --kiln is given;
#   2. installs ONNX Runtime, TF.js (wasm backend), OpenBLAS and the real models (bench/setup.sh),
#      unless only the mca part runs;
#   3. runs bench/bench.py (FMA peak, GEMM/GEMV vs OpenBLAS, conv layers and real models vs ONNX
#      Runtime / TF.js wasm, kiln and the reference alternating call by call in one process;
#      2 threads against 1 on BlazeFace back and posenet; llvm-mca's cycles of the hot loops on
#      ARM cores against their FMA bound, bench/mca.py);
#   4. renders the results into a marked section of the output document (bench/report.py): the
#      section `latest`, or `mca` for `--only mca` (its own section, so the other parts' latest
#      numbers stay).
# Usage: bench/run.sh [--quick] [--kiln PATH] [--out FILE] [--only peak,micro,conv,models,threads,mca]
#                     [--section NAME] [--work DIR]
# Environment: KILN_BENCH_CACHE (default ~/.cache/kiln-bench), KILN_BENCH_WORK (default
# /tmp/kiln-bench), KILN_JOBS (build jobs, default all cores). See bench/README.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

quick="" kiln="" out=docs/performance.md only=peak,micro,conv,models,threads,mca section=
work=${KILN_BENCH_WORK:-/tmp/kiln-bench}
args=("$@")
while [[ $# -gt 0 ]]; do
  case $1 in
    --quick) quick=--quick ;;
    --kiln) kiln=$2; shift ;;
    --out) out=$2; shift ;;
    --only) only=$2; shift ;;
    --section) section=$2; shift ;;
    --work) work=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (--help)" >&2; exit 1 ;;
  esac
  shift
done
[[ -n $section ]] || { [[ $only == mca ]] && section=mca || section=latest; }
start=$SECONDS

if [[ -z $kiln ]]; then
  echo "== build kiln (Release, ./build-release)"
  # As scripts/test.sh: ccache (picked up by CMakeLists.txt) hits across checkouts.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  # The same configuration as scripts/test.sh's Release build (default options).
  cmake -G Ninja -S . -B build-release -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-release -j "${KILN_JOBS:-$(nproc)}" --target kiln
  kiln=build-release/tools/kiln/kiln
fi
[[ -x $kiln ]] || { echo "run.sh: no kiln executable at $kiln" >&2; exit 1; }

node_path="" models=""
if [[ ,$only, =~ ,(micro|conv|models|threads), ]]; then  # the parts that run a reference
  echo "== install the references (bench/setup.sh)"
  setup=$(bash bench/setup.sh all)
  node_path=$(sed -n 's/^NODE_PATH=//p' <<<"$setup")
  models=$(sed -n 's/^MODELS=//p' <<<"$setup")
fi

/usr/bin/python3 bench/bench.py --kiln "$kiln" --work "$work" --node-path "$node_path" \
  --models "$models" --only "$only" $quick
/usr/bin/python3 bench/report.py "$work/results.json" --out "$out" --section "$section" \
  --command "bench/run.sh${args[*]:+ ${args[*]}}"
echo "== done in $((SECONDS - start)) s"
