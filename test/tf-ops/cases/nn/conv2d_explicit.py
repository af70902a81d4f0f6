"""Reference for conv2d_explicit.pbtxt: TF.js has no EXPLICIT padding."""
import numpy as np
from convref import conv_nhwc, w


def reference(inputs):
    # Explicit pads: rows (1, 2), columns (0, 1); strides (2, 1).
    y = conv_nhwc(inputs['x'], w(36).reshape(3, 3, 2, 2), (2, 1), ((1, 2), (0, 1)))
    return [y.astype(np.float32)]
