"""map_fn over rows: stacked rows tanh(x) * 2, their sum, the list's length (4)."""
import numpy as np


def reference(inputs):
    rows = np.tanh(inputs['x'].astype(np.float64)) * 2
    return [rows.astype(np.float32), rows.sum(axis=0).astype(np.float32), np.int32(4)]
