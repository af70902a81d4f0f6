"""Checks that each ACTUAL.npy equals EXPECTED.npy (dtype, shape, values).

Usage: compare-npy.py ACTUAL EXPECTED [ACTUAL EXPECTED ...]
"""
import sys

import numpy as np

pairs = sys.argv[1:]
failed = False
for actual_path, expected_path in zip(pairs[::2], pairs[1::2]):
    actual, expected = np.load(actual_path), np.load(expected_path)
    if (actual.dtype != expected.dtype or actual.shape != expected.shape
            or not np.array_equal(actual, expected)):
        print(f"{actual_path}: {actual.dtype}{list(actual.shape)} {actual}\n"
              f"  expected {expected.dtype}{list(expected.shape)} {expected}")
        failed = True
sys.exit(1 if failed else 0)
