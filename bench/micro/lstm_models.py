#!/usr/bin/python3
"""lstm_models.py - writes batch-1 ONNX LSTM models (input 16, hidden 32,
seeded weights as initializers) at the given sequence lengths, for the
scan-output measurements of docs/performance.md ("Loop state updated in
place"). Every step writes one row of Y: the dynamic-update-slice into loop
state that kiln now does in place.

    bench/micro/lstm_models.py --out DIR --steps 16,256,4096
writes DIR/lstm_T.onnx for each T."""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INPUT, HIDDEN = 16, 32


def lstm_model(steps, seed=1):
    rng = np.random.default_rng(seed)
    w = rng.uniform(-0.3, 0.3, (1, 4 * HIDDEN, INPUT)).astype(np.float32)
    r = rng.uniform(-0.3, 0.3, (1, 4 * HIDDEN, HIDDEN)).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, (1, 8 * HIDDEN)).astype(np.float32)
    node = helper.make_node('LSTM', ['X', 'W', 'R', 'B'], ['Y', 'Y_h'],
                            hidden_size=HIDDEN)
    graph = helper.make_graph(
        [node], f'lstm_{steps}',
        [helper.make_tensor_value_info('X', TensorProto.FLOAT,
                                       [steps, 1, INPUT])],
        [helper.make_tensor_value_info('Y', TensorProto.FLOAT,
                                       [steps, 1, 1, HIDDEN]),
         helper.make_tensor_value_info('Y_h', TensorProto.FLOAT,
                                       [1, 1, HIDDEN])],
        [numpy_helper.from_array(w, 'W'), numpy_helper.from_array(r, 'R'),
         numpy_helper.from_array(b, 'B')])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid('', 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--out', required=True)
    parser.add_argument('--steps', default='16,256,4096')
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for steps in [int(s) for s in args.steps.split(',')]:
        path = os.path.join(args.out, f'lstm_{steps}.onnx')
        onnx.save(lstm_model(steps), path)
        print(path)


if __name__ == '__main__':
    main()
