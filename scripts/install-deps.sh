#!/usr/bin/env bash
# Installs the Debian 12 packages kiln needs to build and test, and only those
# that are missing. Idempotent. Run it as any user: as root it calls apt-get
# directly (containers often have no sudo), otherwise through sudo.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache      # toolchain
  llvm-19-dev llvm-19-tools                     # LLVM libraries, lit, FileCheck
  libcli11-dev nlohmann-json3-dev libfmt-dev    # CLI, JSON, formatting
  catch2                                        # unit tests
  libprotobuf-dev protobuf-compiler             # TensorFlow/ONNX importers
  python3-numpy                                 # reference values in tests
  python3-onnx libonnx-testdata                 # ONNX conformance runner
  g++-aarch64-linux-gnu qemu-user               # AArch64 cross tests
  gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf libc6-dev-armhf-cross # 32-bit ARM Linux e2e and C++ samples (qemu-arm)
  gcc-riscv64-linux-gnu libc6-dev-riscv64-cross # RISC-V 64 e2e (qemu-riscv64)
  libgcc-12-dev-armel-cross                     # ARMv6 e2e: ARMv5TE run-time helpers (armhf's are Thumb-2)
  lld qemu-system-arm                           # Android v7a harness; Cortex-M boards
  python3-protobuf                              # TF.js / ONNX Runtime references (test/models, test/tf-ops)
  zlib1g-dev dataset-fashion-mnist              # MNIST softmax sample
  pkg-config                                    # the kiln-runtime.pc test (samples/)
  graphviz                                      # SVG of --emit dot (optional at run time)
  clang-19 libclang-rt-19-dev                   # sanitizer build and libFuzzer (fuzz/)
  lld qemu-system-arm                           # the Cortex-M sample: link, run on MPS2/MPS3 boards (M4, M7, M33, M55)
)

missing=()
for package in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$package")
done
# Node.js runs the TF.js / ONNX Runtime reference runners. Any node + npm on
# PATH will do (e.g. a NodeSource build, which bundles npm); Debian's npm
# would conflict with such a build, so only install Debian's when absent.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all dependencies present"
  exit 0
fi

# apt-get needs root: run it directly as root, through sudo otherwise.
as_root=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null; then
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: error: installing them needs root, and there is no sudo: run $0 as root" >&2
    exit 1
  fi
  as_root=(sudo)
fi

echo "install-deps: installing ${missing[*]}${as_root:+ (through sudo)}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  "${missing[@]}"
