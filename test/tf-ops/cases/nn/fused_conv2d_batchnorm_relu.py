"""Reference for fused_conv2d_batchnorm_relu.pbtxt: TF.js rejects FusedBatchNorm in fused
convolutions."""
import numpy as np
from convref import conv_nhwc, w


def reference(inputs):
    y = conv_nhwc(inputs['x'], w(54).reshape(3, 3, 2, 3), (1, 1), ((1, 1), (1, 1)))
    scale, offset = np.array([1, 0.5, -2]), np.array([0, 1, -1])
    mean, var = np.array([0.5, 0.25, -0.75]), np.array([1, 0.25, 4])
    y = (y - mean) / np.sqrt(var + 0.001) * scale + offset
    return [np.maximum(y, 0).astype(np.float32)]
