"""Reference for bias_add_grad.pbtxt: TensorFlow.js has no BiasAddGrad"""
import numpy as np


def reference(inputs):
    g = inputs["g"].astype(np.float64)
    m = inputs["m"].astype(np.float64)
    return [np.float32(g.sum(axis=(0, 1, 2))), np.float32(g.sum(axis=(0, 2, 3))),
            np.float32(m.sum(axis=0))]
