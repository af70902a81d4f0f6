"""Reference for bitwise_and.pbtxt: TensorFlow.js 4.22.0 cannot run BitwiseAnd from a graph"""
import numpy as np


def reference(inputs):
    return [(inputs["x"].astype(np.int32) & inputs["y"].astype(np.int32))]
