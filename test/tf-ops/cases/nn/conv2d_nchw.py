"""Reference for conv2d_nchw.pbtxt: TF.js reads NCHW strides in NHWC order."""
import numpy as np
from convref import conv_nhwc, w


def reference(inputs):
    x = inputs['x'].transpose(0, 2, 3, 1)
    # SAME, stride 2: rows 6 -> 3, total 1 -> (0, 1); columns 5 -> 3, total 2 -> (1, 1).
    y = conv_nhwc(x, w(54).reshape(3, 3, 3, 2), (2, 2), ((0, 1), (1, 1)))
    return [y.transpose(0, 3, 1, 2).astype(np.float32)]
