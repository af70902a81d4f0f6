"""Reference for mean_int32.pbtxt: truncating integer mean"""
import numpy as np


def reference(inputs):
    x = inputs["x"].astype(np.int64)
    s = x.sum(axis=1)
    return [(np.sign(s) * (np.abs(s) // 5)).astype(np.int32)]
