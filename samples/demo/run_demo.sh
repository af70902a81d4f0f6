#!/usr/bin/env bash
# run_demo.sh - the AOT demo: compile samples/hlo/tiny_mlp.hlo for the host and
# for AArch64 (cortex-a72), link each with samples/demo/main.c (only the
# generated header and kiln/runtime.h), run natively and under qemu-aarch64,
# and check both against `kiln run --reference` (the evaluator).
# Usage: samples/demo/run_demo.sh [KILN_BINARY]   (default: build/tools/kiln/kiln)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kiln=${1:-${KILN:-$root/build/tools/kiln/kiln}}
model=$root/samples/hlo/tiny_mlp.hlo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
features=(0.5 -1.25 2 0.75)
step() { printf '\n$ %s\n' "$*" >&2; "$@"; }

mkdir -p "$work/host" "$work/arm" "$work/ref"
step "$kiln" compile "$model" --name tiny_mlp -o "$work/host/tiny_mlp"
step gcc -std=c99 -O2 -Wall -Wextra -I"$work/host" -I"$root/runtime/include" \
  "$root/samples/demo/main.c" "$work/host/tiny_mlp.o" -o "$work/host/demo"
step "$work/host/demo" "${features[@]}" | tee "$work/host.txt"

step "$kiln" compile "$model" --name tiny_mlp --target aarch64-linux-gnu \
  --cpu cortex-a72 -o "$work/arm/tiny_mlp"
step aarch64-linux-gnu-gcc -std=c99 -O2 -Wall -Wextra -I"$work/arm" \
  -I"$root/runtime/include" "$root/samples/demo/main.c" "$work/arm/tiny_mlp.o" \
  -o "$work/arm/demo"
step qemu-aarch64 -L /usr/aarch64-linux-gnu "$work/arm/demo" "${features[@]}" |
  tee "$work/arm.txt"

# The reference: the same input through kiln's evaluator.
/usr/bin/python3 - "$work/ref/x.npy" "${features[@]}" <<'PY'
import sys
import numpy as np
np.save(sys.argv[1], np.array([[float(v) for v in sys.argv[2:]]], dtype=np.float32))
PY
step "$kiln" run "$model" --input x="$work/ref/x.npy" --output-dir "$work/ref" \
  --reference
/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
work = sys.argv[1]
ref = {name: np.load(f"{work}/ref/{name}.npy").reshape(-1) for name in ("logits", "probs")}
print("reference: " + "; ".join(f"{k}: " + " ".join(f"{v:.7g}" for v in ref[k]) for k in ref))
for run in ("host", "arm"):
    got = {}
    for line in open(f"{work}/{run}.txt"):
        name, values = line.split(":")
        got[name] = np.array([float(v) for v in values.split()], dtype=np.float32)
    for name, expected in ref.items():
        if not np.allclose(got[name], expected, rtol=1e-5, atol=1e-6):
            sys.exit(f"{run} {name} {got[name]} differs from the reference {expected}")
    print(f"{run}: matches the reference")
PY
