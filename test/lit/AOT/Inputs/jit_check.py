# jit_check.py make DIR | check DIR: inputs for sum_squares.hlo, and the
# check of `kiln run` outputs against NumPy (the independent oracle).
import sys

import numpy as np

mode, folder = sys.argv[1], sys.argv[2]
v = np.array([1.5, -2.0, 3.25, 0.5], dtype=np.float32)
k = np.float32(-0.75)
if mode == "make":
    np.save(folder + "/v.npy", v)
    np.save(folder + "/k.npy", np.array(k, dtype=np.float32))
    sys.exit(0)
sq = np.load(folder + "/sq.npy")
total = np.load(folder + "/total.npy")
assert sq.dtype == np.float32 and sq.shape == (4,), (sq.dtype, sq.shape)
assert total.dtype == np.float32 and total.shape == (), (total.dtype, total.shape)
np.testing.assert_array_equal(sq, v * v)
np.testing.assert_allclose(total, np.sum(v * v, dtype=np.float32) * k, rtol=1e-6)
print("jit results match numpy")
