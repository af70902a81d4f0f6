"""Reference for truncatediv_float.pbtxt: TensorFlow.js has no TruncateDiv"""
import numpy as np


def reference(inputs):
    x, y = inputs["x"], inputs["y"]
    return [(np.trunc(x / y)).astype(np.float32)]
