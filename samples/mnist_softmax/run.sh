#!/usr/bin/env bash
# run.sh - Builds and runs the MNIST softmax sample for one architecture:
# compiles the training step and the classifier with kiln, links them into
# train.cpp, trains 1000 steps on Fashion-MNIST and checks the test accuracy.
#
#   run.sh --kiln PATH --work DIR [--arch x86_64|aarch64|armv7a] [--data DIR]
#          [--steps N] [--min-accuracy A] [--same-as FILE]
#
# x86_64 runs natively (zlib reads the .gz files); aarch64 is cross-compiled
# with aarch64-linux-gnu-g++ -static and run under qemu-aarch64, armv7a (32-bit
# ARM Linux, Cortex-A7) with arm-linux-gnueabihf-g++ -static under qemu-arm,
# both on decompressed copies of the data. The accuracy is written to
# WORK/ARCH/accuracy; --same-as FILE requires it to equal the one in FILE
# (the host's), since both runs do the same arithmetic in the same order up
# to rounding.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kiln="" work="" arch=x86_64 data=/usr/share/datasets/fashion-mnist
steps=1000 min_accuracy=0.80 same_as="" tolerance=0.002
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kiln) kiln=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --min-accuracy) min_accuracy=$2; shift 2 ;;
    --same-as) same_as=$2; shift 2 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n "$kiln" && -n "$work" ]] || { echo "run.sh: --kiln and --work are required" >&2; exit 2; }
[[ -d "$data" ]] || { echo "run.sh: no data in $data (install dataset-fashion-mnist)" >&2; exit 2; }

out="$work/$arch"
rm -rf "$out" && mkdir -p "$out"
# No zlib for the cross targets on the build machine: decompress on the host.
decompressed_data() {
  mkdir -p "$out/data"
  for f in "$data"/*-ubyte.gz; do
    gzip -dc "$f" > "$out/data/$(basename "$f" .gz)"
  done
  echo "$out/data"
}
case "$arch" in
  x86_64)
    target=(--target x86_64-linux-gnu)
    cxx=(c++ -DKILN_SAMPLE_ZLIB)
    libs=(-lz)
    runner=()
    datadir=$data ;;
  aarch64)
    target=(--target aarch64-linux-gnu --cpu cortex-a72)
    cxx=(aarch64-linux-gnu-g++ -static)
    libs=()
    runner=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
    datadir=$(decompressed_data) ;;
  armv7a)
    target=(--target armv7a-linux-gnueabihf --cpu cortex-a7)
    cxx=(arm-linux-gnueabihf-g++ -static)
    libs=()
    runner=(qemu-arm -cpu cortex-a7)
    datadir=$(decompressed_data) ;;
  *) echo "run.sh: unknown --arch '$arch'" >&2; exit 2 ;;
esac

"$kiln" compile "$here/train_step.pbtxt" --config "$here/train_step.config.pbtxt" \
  "${target[@]}" --name train_step --namespace mnist -o "$out/train_step"
"$kiln" compile "$here/inference.pbtxt" --config "$here/inference.config.pbtxt" \
  "${target[@]}" --name infer --namespace mnist -o "$out/infer"
"${cxx[@]}" -std=c++17 -O2 -Wall -Wextra -Werror -I"$out" -I"$repo/runtime/include" \
  "$here/train.cpp" "$out/train_step.o" "$out/infer.o" "${libs[@]}" -o "$out/train"

"${runner[@]}" "$out/train" "$datadir" "$steps" | tee "$out/log"
accuracy=$(sed -n 's/^test accuracy: //p' "$out/log")
[[ -n "$accuracy" ]] || { echo "run.sh: no accuracy in the output" >&2; exit 1; }
echo "$accuracy" > "$out/accuracy"

python3 - "$accuracy" "$min_accuracy" "$same_as" "$tolerance" <<'EOF'
import sys
accuracy, minimum, same_as, tolerance = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], float(sys.argv[4])
if accuracy < minimum:
    sys.exit(f"run.sh: test accuracy {accuracy:.4f} is below {minimum:.2f}")
if same_as:
    reference = float(open(same_as).read())
    if abs(accuracy - reference) > tolerance:
        sys.exit(f"run.sh: test accuracy {accuracy:.4f} differs from {reference:.4f} ({same_as})")
    print(f"same accuracy as {same_as}: {reference:.4f}")
print(f"mnist-softmax ok: test accuracy {accuracy:.4f}")
EOF
