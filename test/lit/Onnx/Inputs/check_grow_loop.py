"""Checks loop-computed-condition's results (JIT and evaluator) against
NumPy's loop: double and add one until the sum reaches 100."""
import sys

import numpy

x = numpy.load(sys.argv[1])
s, steps = x.copy(), 0
while True:
    s = s * numpy.float32(2) + numpy.float32(1)
    steps += 1
    if not s.sum() < 100:
        break
for run in sys.argv[2:]:
    y = numpy.load(f"{run}/y.npy")
    n = numpy.load(f"{run}/steps.npy")
    print(run, y, n)
    assert y.dtype == numpy.float32 and numpy.allclose(y, s), (y, s)
    assert n.dtype == numpy.int64 and int(n) == steps, (n, steps)
