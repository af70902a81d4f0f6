#!/usr/bin/env bash
# The kiln demo on a fresh Debian 12 machine: installs what is missing
# (scripts/install-deps.sh: directly as root, through sudo otherwise), builds
# kiln in ./build, evaluates the shipped HLO sample, compiles a sample for the
# host and AArch64 and links and runs a C app with it, does the same with
# TensorFlow's MNIST softmax example (a GraphDef and its tfcompile config) and
# prints its test accuracy, then installs kiln into a prefix and builds a
# CMake project against the installed package. Each step is a function; new
# steps slot into main().
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${KILN_BUILD_DIR:-$root/build}"  # override to reuse another build directory
kiln="$build/tools/kiln/kiln"
out="$build/demo"
python=/usr/bin/python3 # Debian's python3, which has python3-numpy

step() { printf '\n== %s\n' "$*"; }

install_deps() {
  step "installing missing dependencies"
  "$root/scripts/install-deps.sh"
}

build_kiln() {
  step "building kiln in $build"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j "${KILN_JOBS:-$(nproc)}" --target kiln
}

run_reference() {
  step "evaluating samples/hlo/mlp.hlo with the reference evaluator"
  echo "\$ kiln run samples/hlo/mlp.hlo --input x=samples/hlo/mlp_x.npy --output-dir $out/reference --reference"
  "$kiln" run "$root/samples/hlo/mlp.hlo" --input x="$root/samples/hlo/mlp_x.npy" \
    --output-dir "$out/reference" --reference
  "$python" "$root/samples/hlo/mlp_reference.py" "$root/samples/hlo/mlp_x.npy" \
    "$out/reference/y.npy"
}

compile_and_link() {
  step "compiling samples/hlo/tiny_mlp.hlo for the host and AArch64, linking a C app"
  "$root/samples/demo/run_demo.sh" "$kiln"
}

train_mnist_softmax() {
  step "compiling the TensorFlow MNIST softmax sample (GraphDef + tfcompile config) for the host and AArch64"
  "$root/samples/mnist_softmax/run.sh" --kiln "$kiln" --work "$out/mnist"
  "$root/samples/mnist_softmax/run.sh" --kiln "$kiln" --work "$out/mnist" --arch aarch64 \
    --same-as "$out/mnist/x86_64/accuracy"
}

cmake_package() {
  step "installing kiln into $out/prefix; building samples/cmake-consumer with find_package(kiln)"
  rm -rf "$out/prefix" "$out/cmake-consumer"
  cmake --install "$build" --prefix "$out/prefix" >/dev/null
  cmake -G Ninja -S "$root/samples/cmake-consumer" -B "$out/cmake-consumer" \
    -DCMAKE_PREFIX_PATH="$out/prefix" >/dev/null
  cmake --build "$out/cmake-consumer"
  "$out/cmake-consumer/classify" /usr/share/datasets/fashion-mnist 5
}

main() {
  install_deps
  build_kiln
  run_reference
  compile_and_link
  train_mnist_softmax
  cmake_package
  step "demo finished"
}

main "$@"
