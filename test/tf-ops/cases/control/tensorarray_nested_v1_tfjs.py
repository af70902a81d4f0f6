"""Entry i * 3 + j of the array is float(i * 3 + j) * x, for i < 2, j < 3."""
import numpy as np


def reference(inputs):
    x = inputs['x'].astype(np.float32)
    return [np.stack([np.float32(k) * x for k in range(6)])]
