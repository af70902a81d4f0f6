"""Reference for activation_grads.pbtxt: TensorFlow.js has no ReluGrad/Relu6Grad/SigmoidGrad/TanhGrad"""
import numpy as np


def reference(inputs):
    g = inputs["g"].astype(np.float64)
    f = inputs["f"].astype(np.float64)
    s = 1 / (1 + np.exp(-f))
    t = np.tanh(f)
    return [np.float32(np.where(f > 0, g, 0)),
            np.float32(np.where((f > 0) & (f < 6), g, 0)),
            np.float32(g * s * (1 - s)),
            np.float32(g * (1 - t * t))]
