#!/usr/bin/env bash
# Installs what bench/run.sh measures kiln against; idempotent, cached, safe to rerun.
#   - ONNX Runtime 1.30.0, TensorFlow.js 4.22.0 (core, converter, wasm backend) and the Node-API
#     headers: `npm ci` of bench/package-lock.json into $KILN_BENCH_CACHE/npm-<hash of the lock>;
#   - Debian's OpenBLAS (libopenblas-dev), with apt-get only when it is missing;
#   - the real models: test/models/setup_refs.sh (the same npm packages and cache as the tests).
# Usage: setup.sh [runtimes|blas|models|all]   (default all)
# Prints NODE_PATH=<dir> and MODELS=<dir> lines for bench/run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KILN_BENCH_CACHE:-$HOME/.cache/kiln-bench}
what=${1:-all}
mkdir -p "$cache"
exec 9>"$cache/.setup.lock"
flock 9

if [[ $what == runtimes || $what == all ]]; then
  command -v npm >/dev/null || { echo "setup.sh: node and npm are needed (scripts/install-deps.sh)" >&2; exit 1; }
  # Keyed by the lock file: a version bump installs into a new folder, an old one stays usable.
  key=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-16)
  dir=$cache/npm-$key
  if [[ ! -f $dir/.done ]]; then
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$here/package.json" "$here/package-lock.json" "$dir/"
    # onnxruntime-node's install script would download GPU libraries; its CPU library ships in the package.
    (cd "$dir" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error >&2)
    touch "$dir/.done"
  fi
  echo "NODE_PATH=$dir/node_modules"
fi

if [[ $what == blas || $what == all ]]; then
  if ! dpkg-query -W -f='${Status}' libopenblas-dev 2>/dev/null | grep -q 'install ok installed'; then
    echo "setup.sh: installing libopenblas-dev" >&2
    sudo_=""; [[ $(id -u) == 0 ]] || sudo_=sudo
    $sudo_ apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq libopenblas-dev >&2
  fi
fi

if [[ $what == models || $what == all ]]; then
  bash "$here/../test/models/setup_refs.sh" models
fi
