"""Reference for inv.pbtxt: TensorFlow.js has no Inv (old name of Reciprocal)"""
import numpy as np


def reference(inputs):
    x = inputs["x"]
    return [(1 / x).astype(np.float32)]
