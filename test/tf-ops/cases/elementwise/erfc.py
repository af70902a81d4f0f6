"""Reference for erfc.pbtxt: TensorFlow.js has no Erfc"""
import math

import numpy as np


def reference(inputs):
    x = inputs["x"]
    return [np.vectorize(math.erfc)(x.astype(np.float64)).astype(np.float32)]
