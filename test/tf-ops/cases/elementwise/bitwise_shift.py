"""Reference for bitwise_shift.pbtxt: TensorFlow.js lacks these bit ops"""
import numpy as np


def reference(inputs):
    x, s = inputs["x"].astype(np.int32), inputs["s"].astype(np.int32)
    return [x | s, x ^ s, ~x, np.left_shift(x, s), np.right_shift(x, s)]
