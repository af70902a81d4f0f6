"""Reference for global_step_increment.pbtxt: TensorFlow.js has no variables (AssignAdd).
The step adds x to W and counts itself; the initializer global_step/Assign is not part of it."""
import numpy as np


def reference(inputs):
    w = np.float32(inputs["W"] + inputs["x"])
    step = np.int64(inputs["global_step"] + 1)
    return [w, w, step]
