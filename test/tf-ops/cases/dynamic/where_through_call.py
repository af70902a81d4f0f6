"""Where's coordinates padded to 8 rows with -1, and their count."""
import numpy as np


def reference(inputs):
    rows = np.argwhere(inputs['x'] > 0.5).astype(np.int64)
    padded = np.full((8, 1), -1, np.int64)
    padded[:len(rows)] = rows
    return [padded, np.int32(len(rows))]
