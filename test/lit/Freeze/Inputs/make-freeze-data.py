"""Writes the inputs and the NumPy-computed expected outputs of the --freeze
tests into DIR: data.npy (float32[2,3,4]), shape.npy (int64[2] = [4,-1]),
bad-dtype.npy (float32 shape values), bad-rank.npy (int64[1,2]), and the
expectations reshaped.npy (data.reshape(4,6)[:, None, :]) and range.npy
(arange(0, 5, 2) as int64); for the GraphDef: x.npy (float32[2,3]) and
x-reshaped.npy (x.reshape(3,2))."""
import os
import sys

import numpy as np

out = sys.argv[1]
data = (np.arange(24, dtype=np.float32) * 0.5 - 3).reshape(2, 3, 4)
np.save(os.path.join(out, 'data.npy'), data)
np.save(os.path.join(out, 'shape.npy'), np.array([4, -1], np.int64))
np.save(os.path.join(out, 'bad-dtype.npy'), np.array([4, -1], np.float32))
np.save(os.path.join(out, 'bad-rank.npy'), np.array([[4, -1]], np.int64))
np.save(os.path.join(out, 'reshaped.npy'), data.reshape(4, 6)[:, None, :])
np.save(os.path.join(out, 'range.npy'), np.arange(0, 5, 2, dtype=np.int64))
x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
np.save(os.path.join(out, 'x.npy'), x)
np.save(os.path.join(out, 'x-reshaped.npy'), x.reshape(3, 2))
