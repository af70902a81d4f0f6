"""Writes x.npy and NumPy's answers for where-output.pbtxt into DIR (bounded-output.test):
indices.npy (np.argwhere(x > 0.5), TensorFlow Where's row-major order), doubled.npy, and
an all-zero input none.npy with its empty answer no_indices.npy. make-where-inputs.py DIR"""
import sys

import numpy as np

out = sys.argv[1]
x = np.array([[0.9, 0.1, 0.7], [0.2, 0.6, 0.0]], dtype=np.float32)
np.save(f"{out}/x.npy", x)
np.save(f"{out}/indices.npy", np.argwhere(x > 0.5).astype(np.int64))
np.save(f"{out}/doubled.npy", x + x)
np.save(f"{out}/none.npy", np.zeros((2, 3), dtype=np.float32))
np.save(f"{out}/no_indices.npy", np.argwhere(np.zeros((2, 3)) > 0.5).astype(np.int64))
