import numpy as np


def reference(inputs):
    x = inputs['x'].astype(np.float64)
    mean = x.mean(axis=(0, 1, 2))
    var = x.var(axis=(0, 1, 2))
    y = (x - mean) / np.sqrt(var + 0.001) * np.array([1, 0.5, -2]) + np.array([0, 1, -1])
    n = x.size // 3
    return [y.astype(np.float32), mean.astype(np.float32), (var * n / (n - 1)).astype(np.float32)]
