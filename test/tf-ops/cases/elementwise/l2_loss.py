"""Reference for l2_loss.pbtxt: TensorFlow.js has no L2Loss"""
import numpy as np


def reference(inputs):
    x = inputs["x"].astype(np.float64)
    return [np.float32((x * x).sum() / 2)]
