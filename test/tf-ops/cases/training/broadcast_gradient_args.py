"""Reference for broadcast_gradient_args.pbtxt: TensorFlow.js has no BroadcastGradientArgs.
The reduction indices are TensorFlow's (bcast_test.cc): x [2,3,1,5] and y [3,4,1] broadcast to
[2,3,4,5]; x is 1 in dimension 2, y is missing in 0 and 1 in 3. [1,1] and [1] reduce [0,1] both."""
import numpy as np


def reference(inputs):
    x = inputs["x"]
    sum_x = x.sum(axis=2, keepdims=True)
    return [np.array([2], np.int32), np.array([0, 3], np.int32),
            sum_x.astype(np.int32),
            (inputs["ones"] + np.array([0, 1], np.int32)).astype(np.int32),
            (inputs["ones"] + np.array([0, 1], np.int32)).astype(np.int32)]
