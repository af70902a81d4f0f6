"""Reference for mod_float.pbtxt: TensorFlow's Mod kernel is C fmod, TensorFlow.js maps Mod to floor mod"""
import numpy as np


def reference(inputs):
    x, y = inputs["x"], inputs["y"]
    return [(np.fmod(x, y)).astype(np.float32)]
