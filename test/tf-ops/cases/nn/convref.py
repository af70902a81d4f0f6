"""convref.py - What the NumPy references of the convolution cases share (not a case itself: it
has no .pbtxt beside it): the cases' generated filter values and a direct float64 convolution."""
import numpy as np


def w(n, offset=0):
    """The case's Const values: ((i * 37) % 17 - 8) / 8."""
    return np.array([((i + offset) * 37 % 17 - 8) * 0.125 for i in range(n)])


def conv_nhwc(x, k, strides, pads, dil=(1, 1), groups=1):
    """Direct NHWC/HWIO convolution in float64; pads ((top, bottom), (left, right))."""
    x = np.pad(x.astype(np.float64), ((0, 0), pads[0], pads[1], (0, 0)))
    kh, kw, ci, co = k.shape
    oh = (x.shape[1] - (kh - 1) * dil[0] - 1) // strides[0] + 1
    ow = (x.shape[2] - (kw - 1) * dil[1] - 1) // strides[1] + 1
    y = np.zeros((x.shape[0], oh, ow, co))
    og = co // groups
    for i in range(kh):
        for j in range(kw):
            r, c = i * dil[0], j * dil[1]
            patch = x[:, r:r + (oh - 1) * strides[0] + 1:strides[0],
                      c:c + (ow - 1) * strides[1] + 1:strides[1], :]
            for g in range(groups):
                y[..., g * og:(g + 1) * og] += (patch[..., g * ci:(g + 1) * ci]
                                                @ k[i, j, :, g * og:(g + 1) * og])
    return y
