#!/usr/bin/env python3
"""Checks kiln's reference evaluator against NumPy, opcode by opcode.

For every case the script writes random inputs as .npy files, runs
`kiln run MODULE.hlo --reference`, and compares each output with NumPy's
computation of the same operation on the same inputs (exact for integers and
pred, a small tolerance for floats). Cases are batched many per module so
the whole suite takes a few kiln invocations; a failing batch is re-run case
by case to name the culprit. Every opcode in Opcodes.def must have a case.

Prints one line per case and finally "N passed, N failed"; exits non-zero on
any failure (including an opcode without a case).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases_applied  # noqa: E402
import cases_bits_random  # noqa: E402
import cases_compute  # noqa: E402
import cases_control  # noqa: E402
import cases_elementwise  # noqa: E402
import cases_scatter  # noqa: E402
import cases_select_and_scatter  # noqa: E402
import cases_sort_comparator  # noqa: E402
import cases_structure  # noqa: E402
import cases_total_order  # noqa: E402
import cases_window_apply  # noqa: E402
from evalcase import module_text  # noqa: E402

BATCH = 60


def opcode_spellings(opcodes_def):
    with open(opcodes_def) as f:
        return re.findall(r'^KILN_OPCODE\(\w+,\s*"([^"]+)"', f.read(), re.M)


def run_kiln(kiln, cases, directory, name):
    """Runs one module holding `cases`; returns (outputs dict, error text)."""
    os.makedirs(directory, exist_ok=True)
    module = os.path.join(directory, f"{name}.hlo")
    with open(module, "w") as f:
        f.write(module_text(name, cases))
    command = [kiln, "run", module, "--reference", "--output-dir",
               os.path.join(directory, "out")]
    for case in cases:
        for pname, array in case.params:
            path = os.path.join(directory, f"{pname}.npy")
            np.save(path, array)
            command += ["--input", f"{pname}={path}"]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, (proc.stderr or proc.stdout).strip()
    outputs = {}
    for case in cases:
        for rname, _, _ in case.results:
            outputs[rname] = np.load(os.path.join(directory, "out",
                                                  f"{rname}.npy"))
    return outputs, ""


def compare(actual, expected, tol):
    """None if equal (within tol for floats), else a description."""
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return (f"got {actual.dtype}{list(actual.shape)}, expected "
                f"{expected.dtype}{list(expected.shape)}")
    if expected.dtype.kind != "f":
        if np.array_equal(actual, expected):
            return None
        bad = np.argwhere(actual != expected)[0]
        return f"at {tuple(bad)}: got {actual[tuple(bad)]}, expected {expected[tuple(bad)]}"
    rtol, atol = tol or (0, 0)
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    same_nan = np.isnan(a) == np.isnan(e)
    close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    ok = same_nan & close
    if ok.all():
        return None
    bad = tuple(np.argwhere(~ok)[0])
    return f"at {bad}: got {a[bad]!r}, expected {e[bad]!r} (rtol={rtol}, atol={atol})"


def check_case(case, outputs):
    for rname, expected, tol in case.results:
        problem = compare(outputs[rname], expected, tol)
        if problem:
            return f"{rname}: {problem}"
    return None


def run_batch(kiln, batch, workdir, number, report):
    directory = os.path.join(workdir, f"batch{number}")
    outputs, error = run_kiln(kiln, batch, directory, f"batch{number}")
    if outputs is not None:
        for case in batch:
            report(case, check_case(case, outputs))
        return
    # Isolate the case(s) kiln rejects.
    for i, case in enumerate(batch):
        single = os.path.join(directory, f"case{i}")
        outputs, error = run_kiln(kiln, [case], single, f"case{i}")
        report(case, check_case(case, outputs) if outputs is not None
               else f"kiln failed: {error}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kiln", required=True, help="path to the kiln binary")
    parser.add_argument("--opcodes-def", required=True,
                        help="include/kiln/IR/Opcodes.def")
    parser.add_argument("--work-dir", help="keep modules and .npy files here")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--filter", default="", help="run cases whose name "
                        "contains this text")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    cases = (cases_elementwise.cases(rng) + cases_structure.cases(rng) +
             cases_compute.cases(rng) + cases_control.cases(rng) +
             cases_bits_random.cases(rng) + cases_applied.cases(rng) +
             cases_scatter.cases(rng) + cases_sort_comparator.cases(rng) +
             cases_window_apply.cases(rng) +
             cases_select_and_scatter.cases(rng) +
             cases_total_order.cases(rng))
    covered = set().union(*(case.opcodes for case in cases))
    missing = [op for op in opcode_spellings(args.opcodes_def) if op not in covered]
    cases = [c for c in cases if args.filter in c.name]

    counts = {"passed": 0, "failed": 0}

    def report(case, problem):
        counts["failed" if problem else "passed"] += 1
        print(f"{'FAIL' if problem else 'PASS'}: {case.name}"
              + (f": {problem}" if problem else ""), flush=True)

    with tempfile.TemporaryDirectory(prefix="kiln-numpy-") as tmp:
        workdir = args.work_dir or tmp
        for start in range(0, len(cases), BATCH):
            run_batch(args.kiln, cases[start:start + BATCH], workdir,
                      start // BATCH, report)
    for opcode in missing:
        counts["failed"] += 1
        print(f"FAIL: coverage: opcode '{opcode}' has no NumPy case")
    print(f"{counts['passed']} passed, {counts['failed']} failed")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
