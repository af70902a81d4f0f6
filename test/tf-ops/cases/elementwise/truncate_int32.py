"""Reference for truncate_int32.pbtxt: C integer division"""
import numpy as np


def reference(inputs):
    x, y = inputs["x"].astype(np.int64), inputs["y"].astype(np.int64)
    q = (np.abs(x) // np.abs(y)) * np.sign(x) * np.sign(y)
    r = x - q * y
    return [a.astype(np.int32) for a in (q, q, r, r)]
