"""Reference for fused_conv2d_bias_add_relu.pbtxt: TF.js has no Add in fused convolutions."""
import numpy as np
from convref import conv_nhwc, w


def reference(inputs):
    # SAME, stride 2 on 5: out 3, total padding 2 -> 1/1.
    y = conv_nhwc(inputs['x'], w(54).reshape(3, 3, 2, 3), (2, 2), ((1, 1), (1, 1)))
    y = y + np.array([0.5, -0.25, -1]) + inputs['side']
    return [np.maximum(y, 0).astype(np.float32)]
