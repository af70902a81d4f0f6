"""Reference for conv2d_grouped.pbtxt: TF.js has no grouped convolution."""
import numpy as np
from convref import conv_nhwc, w


def reference(inputs):
    y = conv_nhwc(inputs['x'], w(72).reshape(3, 3, 2, 4), (1, 1), ((0, 0), (0, 0)), groups=2)
    return [y.astype(np.float32)]
