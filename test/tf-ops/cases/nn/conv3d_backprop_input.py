"""Reference for conv3d_backprop_input.pbtxt: TF.js has no Conv3DBackpropInputV2."""
import numpy as np
from convref import w


def reference(inputs):
    g = inputs['g'].astype(np.float64)
    k = w(16).reshape(2, 2, 2, 1, 2)
    size = (4, 5, 3)
    # Forward SAME pads for k 2, s 2: depth 4 -> out 2, total 0; height 5 -> out 3, total 1
    # -> (0, 1); width 3 -> out 2, total 1 -> (0, 1). Only the low pads shift the scatter.
    low = (0, 0, 0)
    full = np.zeros((1, 4 + 2, 5 + 2, 3 + 2, 1))
    for d in range(g.shape[1]):
        for h in range(g.shape[2]):
            for w_ in range(g.shape[3]):
                for i in range(2):
                    for j in range(2):
                        for l in range(2):
                            full[0, 2 * d + i, 2 * h + j, 2 * w_ + l, :] += k[i, j, l] @ g[0, d, h, w_]
    return [full[:, low[0]:low[0] + size[0], low[1]:low[1] + size[1], low[2]:low[2] + size[2], :].astype(np.float32)]
