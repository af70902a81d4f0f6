"""Reference for apply_gradient_descent.pbtxt: TensorFlow.js has no variables
(ApplyGradientDescent)."""
import numpy as np


def reference(inputs):
    x, t = inputs["x"].astype(np.float64), inputs["t"].astype(np.float64)
    w = inputs["W"].astype(np.float64)
    err = x @ w - t
    grad = 2 / 8 * x.T @ err
    new = np.float32(w - np.float32(0.1) * grad)
    return [np.float32((err ** 2).mean()), new, new]
