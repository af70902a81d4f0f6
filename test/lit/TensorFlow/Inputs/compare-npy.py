"""Compares .npy files pairwise: compare-npy.py [--tol T] GOT EXPECTED [...].

Dtype and shape must match exactly. Values must be equal bit for bit (NaNs
equal) unless --tol gives a relative and absolute tolerance for floats.
"""
import sys

import numpy as np

args = sys.argv[1:]
tol = 0.0
if args[:1] == ["--tol"]:
    tol = float(args[1])
    args = args[2:]
assert len(args) % 2 == 0, "pairs of files expected"
for got_path, want_path in zip(args[::2], args[1::2]):
    got, want = np.load(got_path), np.load(want_path)
    if got.dtype != want.dtype or got.shape != want.shape:
        sys.exit(f"{got_path}: {got.dtype}{list(got.shape)} but expected "
                 f"{want.dtype}{list(want.shape)}")
    if tol and got.dtype.kind == "f":
        same = np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    else:
        same = np.array_equal(got, want, equal_nan=got.dtype.kind == "f")
    if not same:
        sys.exit(f"{got_path}: {got} but expected {want}")
print("ok")
