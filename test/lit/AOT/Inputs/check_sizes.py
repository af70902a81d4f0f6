"""Checks `kiln compile --emit report` sizes against the object file itself.

usage: check_sizes.py PREFIX

Reads PREFIX.report.json, PREFIX.json (manifest) and the symbol table of
PREFIX.o as GNU binutils' `nm -S --size-sort` prints it (an implementation
independent of kiln's LLVM-based reader), and checks that
  - every function symbol nm lists is in the report's "code" section with
    nm's size, and nothing else is; the total is their sum;
  - every constant symbol (const.*, packed.*) nm lists is in the "weights"
    section with nm's size; unpacked ones have dtype size * elements bytes;
  - the manifest's "sizes" equal the report's totals, its weights_bytes
    (code generation's own count) is at least the weight symbols' sum, and
    its arena equals the report's memory section.
Prints one summary line; exits non-zero with the first mismatch.
"""
import json
import subprocess
import sys

DTYPE_BYTES = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "s8": 1, "u8": 1,
               "s16": 2, "u16": 2, "s32": 4, "u32": 4, "s64": 8, "u64": 8,
               "pred": 1}


def fail(message):
    sys.exit("check_sizes: " + message)


def nm_symbols(path):
    """name -> (size, type letter) for every symbol nm gives a size."""
    text = subprocess.run(["nm", "-S", "--size-sort", "-t", "d", path],
                          check=True, capture_output=True, text=True).stdout
    symbols = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 4:
            continue
        _, size, kind, name = fields
        symbols[name] = (int(size), kind)
    return symbols


def expect_equal(what, got, want):
    if got != want:
        fail(f"{what}: report/manifest says {got}, expected {want}")


def main():
    prefix = sys.argv[1]
    report = json.load(open(prefix + ".report.json"))
    manifest = json.load(open(prefix + ".json"))
    symbols = nm_symbols(prefix + ".o")

    functions = {n: s for n, (s, k) in symbols.items() if k in "tT"}
    weights = {n: s for n, (s, k) in symbols.items()
               if k in "rRdD" and n.startswith(("const.", "packed."))}

    listed = {f["symbol"]: f["bytes"] for f in report["code"]["functions"]}
    expect_equal("code functions", listed, functions)
    code_bytes = sum(functions.values())
    expect_equal("code bytes", report["code"]["bytes"], code_bytes)
    if not any(f["kind"] == "instruction" for f in report["code"]["functions"]):
        fail("no per-instruction function in the report")

    listed = {w["symbol"]: w["bytes"] for w in report["weights"]["weights"]}
    expect_equal("weights", listed, weights)
    weight_bytes = sum(weights.values())
    expect_equal("weight bytes", report["weights"]["bytes"], weight_bytes)
    if not weights:
        fail("the object holds no weights; the test model needs some")
    for weight in report["weights"]["weights"]:
        if weight["packed"]:
            continue
        elements = 1
        for dim in weight["shape"]:
            elements *= dim
        expect_equal(f"bytes of {weight['symbol']} ({weight['dtype']}"
                     f"{weight['shape']})", weight["bytes"],
                     elements * DTYPE_BYTES[weight["dtype"]])

    sizes = manifest["sizes"]
    expect_equal("manifest sizes.code_bytes", sizes["code_bytes"], code_bytes)
    expect_equal("manifest sizes.weight_bytes", sizes["weight_bytes"],
                 weight_bytes)
    # weights_bytes is code generation's count, before LLVM folds small
    # constants (sizes.hlo's bias) into instructions or constant pools.
    if manifest["weights_bytes"] < weight_bytes:
        fail(f"manifest weights_bytes {manifest['weights_bytes']} is below "
             f"the weight symbols' {weight_bytes} bytes")
    expect_equal("manifest sizes.arena_bytes", sizes["arena_bytes"],
                 manifest["arena"]["bytes"])
    expect_equal("report arena", report["memory"]["arena_bytes"],
                 manifest["arena"]["bytes"])
    expect_equal("manifest sizes.peak_live_bytes", sizes["peak_live_bytes"],
                 report["memory"]["peak_live_bytes"])
    totals = report["totals"]
    expect_equal("totals", {k: totals[k] for k in sizes}, sizes)
    print(f"sizes agree: {len(functions)} functions, {code_bytes} code bytes, "
          f"{len(weights)} weights, {weight_bytes} weight bytes")


main()
