"""Reference for space_to_depth.pbtxt: TensorFlow.js has no SpaceToDepth; TensorFlow's definition
for NHWC is [N, H/b, b, W/b, b, C] -> transpose (0, 1, 3, 2, 4, 5) -> [N, H/b, W/b, b*b*C]"""
import numpy as np


def reference(inputs):
    x = inputs["x"]
    n, h, w, c = x.shape
    b = 2
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return [y.reshape(n, h // b, w // b, b * b * c).astype(np.float32)]
