import numpy as np


def reference(inputs):
    x = inputs['x']
    # SAME: rows out 3, total (3-1)*2+3-5 = 2 -> 1/1; cols out 3, total (3-1)*2+2-6 = 0.
    p = np.pad(x, ((0, 0), (1, 1), (0, 0), (0, 0)), constant_values=-np.inf)
    y = np.full((1, 3, 3, 2), -np.inf, np.float32)
    for i in range(3):
        for j in range(3):
            y[:, i, j, :] = p[:, 2 * i:2 * i + 3, 2 * j:2 * j + 2, :].max(axis=(1, 2))
    return [y]
