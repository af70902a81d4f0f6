import numpy as np


def reference(inputs):
    z = inputs['m'] + np.array([10, 20, 30], np.float32)
    y = inputs['x'] + np.array([1, -2, 0.5, 0], np.float32).reshape(1, 4, 1, 1)
    return [z, y]
