"""Reference for strided_slice_ellipsis_shrink.pbtxt: TensorFlow.js 4.22 mishandles an ellipsis
combined with shrink_axis_mask; TensorFlow's StridedSlice follows NumPy's basic indexing"""
import numpy as np


def reference(inputs):
    x = inputs["x"]
    return [x[::-1, ..., 2].astype(np.float32), x[-1, ..., -5:-1:3].astype(np.float32)]
