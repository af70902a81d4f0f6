"""Reference for assign_sub.pbtxt: TensorFlow.js has no variables (AssignSub)."""
import numpy as np


def reference(inputs):
    f = np.float32(inputs["F"].astype(np.float64) - inputs["x"])
    i = (inputs["I"] - inputs["k"]).astype(np.int32)
    return [f, i, f, i]
