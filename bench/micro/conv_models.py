"""conv_models.py - The single-layer convolution micro-benchmarks as ONNX models (NCHW, batch 1,
constant seeded weights and bias), written with onnx.helper; kiln compiles them from the ONNX
file and models.py times them against ONNX Runtime like any other model.

Usage as a script: conv_models.py OUT_DIR  (writes OUT_DIR/NAME.onnx for every layer)."""
import os
import sys

import numpy as np

# name: (in channels, out channels, kernel, spatial size, padding, groups)
LAYERS = {
    'conv3x3_56x56x64to64': (64, 64, 3, 56, 1, 1),
    'conv1x1_28x28x128to256': (128, 256, 1, 28, 0, 1),
    'dwconv3x3_56x56x128': (128, 128, 3, 56, 1, 128),
}


def flops(name):
    """2 x multiply-accumulates (bias adds not counted), as kiln inspect counts convolution."""
    cin, cout, k, hw, pad, groups = LAYERS[name]
    out_hw = hw + 2 * pad - k + 1
    return 2 * out_hw * out_hw * cout * (cin // groups) * k * k


def write(name, path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    cin, cout, k, hw, pad, groups = LAYERS[name]
    out_hw = hw + 2 * pad - k + 1
    rng = np.random.default_rng(7)
    # Weights of the scale a trained layer has (He-like), so results stay O(1).
    w = (rng.standard_normal((cout, cin // groups, k, k)) *
         np.sqrt(2.0 / (cin // groups * k * k))).astype(np.float32)
    b = (rng.standard_normal(cout) * 0.1).astype(np.float32)
    node = helper.make_node('Conv', ['x', 'w', 'b'], ['y'], kernel_shape=[k, k],
                            pads=[pad] * 4, strides=[1, 1], group=groups)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, cin, hw, hw])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, cout, out_hw, out_hw])],
        [numpy_helper.from_array(w, 'w'), numpy_helper.from_array(b, 'b')])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    model.ir_version = 8  # readable by ONNX Runtime 1.30 and kiln alike
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == '__main__':
    os.makedirs(sys.argv[1], exist_ok=True)
    for n in LAYERS:
        write(n, os.path.join(sys.argv[1], n + '.onnx'))
