"""Writes inputs and NumPy-computed expected outputs for the TensorFlow tests.

make-inputs.py DIR
"""
import sys

import numpy as np

d = sys.argv[1]
x = np.array([[1.5, -2.0, 3.0], [0.25, 8.0, -1.0]], dtype=np.float32)
np.save(f"{d}/x.npy", x)
np.save(f"{d}/x4.npy", np.arange(4 * 3, dtype=np.float32).reshape(4, 3))
np.save(f"{d}/n.npy", np.array([7, -3], dtype=np.int32))
# The Const nodes of the test graphs, written out by hand from the .pbtxt.
np.save(f"{d}/c.npy", np.array([0.5, -1.0, 2.0], dtype=np.float32))
np.save(f"{d}/k.npy", np.array([[4, 4], [4, 4]], dtype=np.int32))  # int_val: 4 repeats
np.save(f"{d}/w.npy", np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32))

# tfcompile-mlp.pbtxt: y = relu(x @ W + b), h = x @ W, with W and b as in
# the graph file.
xm = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0], [0.0, 1.0, 2.0],
               [-1.5, -0.5, 4.0]], dtype=np.float32)
W = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], dtype=np.float32)
b = np.array([0.1, -0.2], dtype=np.float32)
np.save(f"{d}/xm.npy", xm)
h = (xm.astype(np.float64) @ W.astype(np.float64)).astype(np.float32)
np.save(f"{d}/h.npy", h)
np.save(f"{d}/y.npy", np.maximum(h + b, np.float32(0)))
