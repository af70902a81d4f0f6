"""Reference for matrix_band_part.pbtxt: TensorFlow.js 4.22's converter reads num_upper from
input 1, so NumPy computes TensorFlow's definition"""
import numpy as np


def band(x, lower, upper):
    i = np.arange(x.shape[-2])[:, None]
    j = np.arange(x.shape[-1])[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return np.where(keep, x, 0).astype(np.float32)


def reference(inputs):
    x = inputs["x"]
    return [band(x, 1, 0), band(x, -1, 2)]
