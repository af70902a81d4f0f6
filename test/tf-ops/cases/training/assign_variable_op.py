"""Reference for assign_variable_op.pbtxt: TensorFlow.js has no variables (AssignVariableOp)."""
import numpy as np


def reference(inputs):
    h = inputs["h"]
    new = np.float32(h.astype(np.float64) * inputs["x"])
    return [h, new, new]
