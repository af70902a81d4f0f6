"""Writes the .npy inputs and expected outputs of the kiln run tests.

Run with a Python that has NumPy: python3 make-run-inputs.py DIR
Expected outputs are computed here by NumPy, never by kiln.
"""
import sys

import numpy as np

d = sys.argv[1]
x = np.array([[1.5, -2.0, 3.0], [0.25, 8.0, -1.0]], dtype=np.float32)
y = np.array([[0.5, 2.0, -4.0], [1.0, 0.125, 6.5]], dtype=np.float32)
np.save(f"{d}/x.npy", x)
np.save(f"{d}/y.npy", y)
np.save(f"{d}/sum.npy", x + y)
np.save(f"{d}/diff.npy", x - y)
np.save(f"{d}/prod.npy", x * y)
np.save(f"{d}/x_f64.npy", np.array([1.0, 2.0, 3.0]))
np.save(f"{d}/x_t.npy", x.T.copy())
