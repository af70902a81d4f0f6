"""Reference for assign_sub_variable_op.pbtxt: TensorFlow.js has no variables
(AssignSubVariableOp)."""
import numpy as np


def reference(inputs):
    n = np.float32(inputs["n"].astype(np.float64) - inputs["x"])
    return [n, n]
