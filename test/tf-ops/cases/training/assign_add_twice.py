"""Reference for assign_add_twice.pbtxt: TensorFlow.js has no variables (AssignAdd, AssignSub).
TensorFlow runs a step's ref updates in place, so every one of them lands; the initializers
are not part of the step."""
import numpy as np


def reference(inputs):
    x, y = inputs["x"].astype(np.float64), inputs["y"].astype(np.float64)
    w = np.float32(inputs["W"] + x + y)
    v = np.float32(inputs["V"] + x - y)
    return [w, w, v]
