"""Inputs and hand-computed expected values for training-variables.pbtxt.

training-variables.py DIR writes x.npy, one NAME.npy per variable (its value
before the step) and NAME.want.npy (after the step, computed by hand below).
"""
import os
import sys

import numpy as np

out = sys.argv[1]
f32 = lambda *v: np.array(v, np.float32)
x = f32(1, 2, 4)
before = {"W": f32(1, 1, 1), "b": f32(0, 1, 2), "c": f32(10, 10, 10),
          "h": f32(0, 0, 0), "k": f32(2, 2, 2), "m": f32(1, 2, 3),
          "n": f32(5, 5, 5)}
# W: ApplyGradientDescent(lr 0.5, x); b: AssignAdd x; c: AssignSub x;
# h: AssignVariableOp x; k: ResourceApplyGradientDescent(0.5, x);
# m: AssignAddVariableOp x twice; n: AssignSubVariableOp x.
after = {"W": f32(0.5, 0, -1), "b": f32(1, 3, 6), "c": f32(9, 8, 6),
         "h": f32(1, 2, 4), "k": f32(1.5, 1, 0), "m": f32(3, 6, 11),
         "n": f32(4, 3, 1)}
np.save(os.path.join(out, "x.npy"), x)
for name, value in before.items():
    np.save(os.path.join(out, name + ".npy"), value)
    np.save(os.path.join(out, name + ".want.npy"), after[name])
# y = (new W) + (new b), read through the update ops' ref outputs.
np.save(os.path.join(out, "y.want.npy"), f32(1.5, 3, 5))
