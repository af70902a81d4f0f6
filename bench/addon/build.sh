#!/usr/bin/env bash
# Builds the timing addon: gcc -shared against the Node-API headers of the npm package
# node-api-headers (no node-gyp, nothing downloaded). The napi_* symbols stay undefined in the
# .node file; node provides them when it loads the addon.
# Usage: build.sh NODE_MODULES_DIR OUT.node
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
node_modules=$1 out=$2
gcc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC \
  -DNAPI_VERSION=8 -DNODE_GYP_MODULE_NAME=kiln_bench \
  -I "$node_modules/node-api-headers/include" \
  "$here/kiln_bench.c" -o "$out" -ldl
