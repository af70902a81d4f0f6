"""A bidirectional LSTM with sequence_lens as a graph input, and its NumPy
reference (ONNX's LSTM definition, written out step by step).

  lstm_reference.py make DIR      writes DIR/m.onnx, DIR/x.npy, DIR/lens.npy
  lstm_reference.py check DIR RUN...  compares each RUN/{y,y_h,y_c}.npy
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEQ, BATCH, INPUT, HIDDEN = 5, 3, 4, 2
LENS = np.array([5, 2, 3], np.int32)


def weights():
    rng = np.random.default_rng(7)
    w = rng.uniform(-1, 1, (2, 4 * HIDDEN, INPUT)).astype(np.float32)
    r = rng.uniform(-1, 1, (2, 4 * HIDDEN, HIDDEN)).astype(np.float32)
    b = rng.uniform(-1, 1, (2, 8 * HIDDEN)).astype(np.float32)
    x = rng.uniform(-1, 1, (SEQ, BATCH, INPUT)).astype(np.float32)
    return w, r, b, x


def make(out):
    w, r, b, x = weights()
    node = helper.make_node('LSTM', ['x', 'w', 'r', 'b', 'lens'],
                            ['y', 'y_h', 'y_c'], name='lstm',
                            direction='bidirectional', hidden_size=HIDDEN)
    graph = helper.make_graph(
        [node], 'g',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, x.shape),
         helper.make_tensor_value_info('lens', TensorProto.INT32, [BATCH])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
         for n in ('y', 'y_h', 'y_c')],
        [numpy_helper.from_array(w, 'w'), numpy_helper.from_array(r, 'r'),
         numpy_helper.from_array(b, 'b')])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 14)])
    onnx.save(model, f'{out}/m.onnx')
    np.save(f'{out}/x.npy', x)
    np.save(f'{out}/lens.npy', LENS)


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def reference():
    w, r, b, x = weights()
    y = np.zeros((SEQ, 2, BATCH, HIDDEN), np.float64)
    y_h = np.zeros((2, BATCH, HIDDEN))
    y_c = np.zeros((2, BATCH, HIDDEN))
    for d in range(2):
        for n in range(BATCH):
            h = np.zeros(HIDDEN)
            c = np.zeros(HIDDEN)
            steps = range(LENS[n]) if d == 0 else reversed(range(LENS[n]))
            for t in steps:
                g = (w[d] @ x[t, n] + r[d] @ h + b[d][:4 * HIDDEN]
                     + b[d][4 * HIDDEN:])
                i, o, f, cc = (g[k * HIDDEN:(k + 1) * HIDDEN] for k in range(4))
                c = sigmoid(f) * c + sigmoid(i) * np.tanh(cc)
                h = sigmoid(o) * np.tanh(c)
                y[t, d, n] = h
            y_h[d, n], y_c[d, n] = h, c
    return {'y': y, 'y_h': y_h, 'y_c': y_c}


def check(runs):
    want = reference()
    for run in runs:
        for name, expected in want.items():
            got = np.load(f'{run}/{name}.npy')
            assert got.shape == expected.shape, (run, name, got.shape)
            np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5,
                                       err_msg=f'{run}/{name}')
        print(run, 'matches')


if __name__ == '__main__':
    if sys.argv[1] == 'make':
        make(sys.argv[2])
    else:
        check(sys.argv[3:])
