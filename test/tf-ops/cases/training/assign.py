"""Reference for assign.pbtxt: TensorFlow.js has no variables (Assign)."""
import numpy as np


def reference(inputs):
    new = np.float32(inputs["W"].astype(np.float64) * inputs["x"])
    return [new, new]
