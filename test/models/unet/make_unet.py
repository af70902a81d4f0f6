#!/usr/bin/python3
"""make_unet.py - Writes a MobileNetV2 U-Net as tf2onnx exports a Keras segmentation model, the
pattern of the outside models kiln was measured on (docs/performance.md): the model tests run it
against ONNX Runtime (suite onnx) and bench/ times it.

Usage: make_unet.py OUT.onnx [--size S]   (default 320: input [1,3,S,S])

The graph, in ONNX's NCHW layout:
- encoder: MobileNetV2 (width 0.5): a stride-2 3x3 stem, inverted residual blocks (1x1 expand,
  ReLU6, 3x3 depthwise, ReLU6, 1x1 project, residual add when the shape allows); every stride-2
  convolution reads an explicit `Pad` ((0,1) on H and W, Keras' ZeroPadding2D) instead of
  padding itself, as tf2onnx writes it;
- decoder (FPN style): four stages of `Transpose` to NHWC, 2x `Resize` (bilinear,
  half_pixel: TF2's tf.image.resize) in NHWC, `Transpose` back, `Concat` with the encoder's skip
  tensor on channels, 3x3 convolution + ReLU; the NHWC resize between transposes is what
  tf2onnx leaves of TensorFlow's own layout;
- head: 1x1 convolution to 2 classes, a last 2x resize, sigmoid.

Weights come from a fixed seed (numpy default_rng(0)), He-scaled so activations stay in range:
the file is the same on every run. Batch-norm is folded into the convolutions, as tf2onnx does.
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

WIDTH = 0.5
# MobileNetV2's blocks: expansion, output channels (before WIDTH), repeats, first stride.
BLOCKS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
          (6, 160, 3, 2), (6, 320, 1, 1)]
DECODER = [96, 48, 24, 16]  # channels of the decoder stages, coarse to fine


def channels(c):
    """MobileNetV2's rounding of scaled channel counts to multiples of 8."""
    return max(8, int(c * WIDTH + 4) // 8 * 8)


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, kind):
        self.count += 1
        return f'{kind}_{self.count}'

    def init(self, kind, array):
        name = self.name(kind)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, kind=None, **attrs):
        out = self.name(kind or op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, group=1, pad=None):
        """Conv with folded batch norm (bias); pad: symmetric padding in the Conv itself."""
        fan_in = cin // group * k * k
        w = self.rng.standard_normal((cout, cin // group, k, k)) * np.sqrt(2.0 / fan_in)
        b = self.rng.standard_normal(cout) * 0.05
        pads = [pad, pad, pad, pad] if pad else [0, 0, 0, 0]
        return self.node('Conv', [x, self.init('w', w.astype(np.float32)),
                                  self.init('b', b.astype(np.float32))],
                         kernel_shape=[k, k], strides=[stride, stride], group=group, pads=pads)

    def relu6(self, x):
        lo = self.init('lo', np.array(0, np.float32))
        hi = self.init('hi', np.array(6, np.float32))
        return self.node('Clip', [x, lo, hi], 'relu6')

    def zero_pad(self, x):
        """Keras' ZeroPadding2D(((0, 1), (0, 1))) before a stride-2 convolution."""
        pads = self.init('pads', np.array([0, 0, 0, 0, 0, 0, 1, 1], np.int64))
        return self.node('Pad', [x, pads], mode='constant')

    def strided(self, x, cin, cout, k, group=1):
        return self.conv(self.zero_pad(x), cin, cout, k, stride=2, group=group)

    def block(self, x, cin, cout, expansion, stride):
        hidden = cin * expansion
        y = x
        if expansion != 1:
            y = self.relu6(self.conv(y, cin, hidden, 1))
        if stride == 2:
            y = self.relu6(self.strided(y, hidden, hidden, 3, group=hidden))
        else:
            y = self.relu6(self.conv(y, hidden, hidden, 3, group=hidden, pad=1))
        y = self.conv(y, hidden, cout, 1)
        if stride == 1 and cin == cout:
            y = self.node('Add', [x, y])
        return y

    def upsample(self, x):
        """tf.image.resize(x, 2x) in NHWC between tf2onnx's transposes."""
        nhwc = self.node('Transpose', [x], perm=[0, 2, 3, 1])
        roi = self.init('roi', np.zeros(0, np.float32))
        scales = self.init('scales', np.array([1, 2, 2, 1], np.float32))
        up = self.node('Resize', [nhwc, roi, scales], mode='linear',
                       coordinate_transformation_mode='half_pixel')
        return self.node('Transpose', [up], perm=[0, 3, 1, 2])


def build(size):
    g = Graph(0)
    x = 'input'
    stem = channels(32)
    y = g.relu6(g.strided(x, 3, stem, 3))
    cin, skips = stem, []
    for expansion, c, repeats, stride in BLOCKS:
        cout = channels(c)
        for i in range(repeats):
            s = stride if i == 0 else 1
            if s == 2:
                skips.append((y, cin))  # the last tensor at each resolution
            y = g.block(y, cin, cout, expansion, s)
            cin = cout
    for c, (skip, skip_c) in zip(DECODER, reversed(skips)):
        y = g.node('Concat', [g.upsample(y), skip], axis=1)
        y = g.node('Relu', [g.conv(y, cin + skip_c, c, 3, pad=1)])
        cin = c
    y = g.upsample(g.conv(y, cin, 2, 1))
    out = g.node('Sigmoid', [y], 'mask')
    graph = helper.make_graph(
        g.nodes, 'unet_mobilenetv2',
        [helper.make_tensor_value_info('input', TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 2, size, size])], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)],
                              producer_name='kiln test/models/unet/make_unet.py')
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('out')
    p.add_argument('--size', type=int, default=320)
    opts = p.parse_args()
    onnx.save(build(opts.size), opts.out)


if __name__ == '__main__':
    main()
