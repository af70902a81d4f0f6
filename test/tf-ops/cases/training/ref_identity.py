"""Reference for ref_identity.pbtxt: TensorFlow.js has no variables (RefIdentity, AssignAdd)."""
import numpy as np


def reference(inputs):
    x, w = inputs["x"].astype(np.float64), inputs["W"].astype(np.float64)
    new = w + (2 * w + x)
    return [np.float32(2 * w), np.float32(new), np.float32(new)]
