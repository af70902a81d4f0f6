"""NumPy reference for samples/hlo/mlp.hlo (same weights, written out again).

Usage: mlp_reference.py X.npy [KILN_Y.npy]
Prints the expected result; with KILN_Y.npy, also checks kiln's output
against it and exits non-zero on a mismatch.
"""
import sys

import numpy as np

w1 = np.array([[0.5, -1, 0.25], [1, 0.5, -0.5], [-0.25, 1, 0.75],
               [0.125, -0.5, 1]], dtype=np.float32)
b1 = np.array([0.1, -0.2, 0.3], dtype=np.float32)
w2 = np.array([[1, -1], [0.5, 2], [-1.5, 0.25]], dtype=np.float32)
b2 = np.array([0.05, -0.05], dtype=np.float32)

x = np.load(sys.argv[1])
expected = np.maximum(x @ w1 + b1, 0) @ w2 + b2
print("numpy reference:\n", expected)
if len(sys.argv) > 2:
    actual = np.load(sys.argv[2])
    print("kiln:\n", actual)
    if actual.dtype != np.float32 or actual.shape != expected.shape or \
            not np.allclose(actual, expected, rtol=1e-6, atol=1e-6):
        sys.exit("mismatch between kiln and the NumPy reference")
    print("kiln matches the NumPy reference")
