"""Writes an ONNX model whose output is a chain of N elementwise ops on x.

Usage: make-elementwise-chain.py N MODEL.onnx INPUT.npy EXPECTED.npy

The ops cycle through Add, Mul, Sigmoid, Tanh and Relu; each Add and Mul
has its own [64] weight (seeded, so the model is the same every run) and
the Sigmoid/Tanh steps keep values in range however long the chain is.
Also writes an input for x: float32[1,64], and y for it computed here with
NumPy in float32, a reference independent of kiln.
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

WIDTH = 64
CYCLE = ["Add", "Mul", "Sigmoid", "Tanh", "Relu"]


NUMPY_OPS = {
    "Add": lambda v, w: v + w,
    "Mul": lambda v, w: v * w,
    "Sigmoid": lambda v, _: np.float32(1) / (np.float32(1) + np.exp(-v)),
    "Tanh": lambda v, _: np.tanh(v),
    "Relu": lambda v, _: np.maximum(v, np.float32(0)),
}


def build(length, x):
    """The model and its output for input x."""
    rng = np.random.default_rng(14)
    nodes, weights = [], []
    value = x
    current = "x"
    for i in range(length):
        op = CYCLE[i % len(CYCLE)]
        out = f"t{i}"
        inputs = [current]
        if op in ("Add", "Mul"):
            low, high = (-0.5, 0.5) if op == "Add" else (0.5, 1.5)
            weight = rng.uniform(low, high, WIDTH).astype(np.float32)
            weights.append(numpy_helper.from_array(weight, name=f"w{i}"))
            inputs.append(f"w{i}")
        else:
            weight = None
        value = NUMPY_OPS[op](value, weight).astype(np.float32)
        nodes.append(helper.make_node(op, inputs, [out], name=f"{op}_{i}"))
        current = out
    nodes.append(helper.make_node("Identity", [current], ["y"], name="out"))
    shape = [1, WIDTH]
    graph = helper.make_graph(
        nodes, "elementwise_chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
        initializer=weights)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    return model, value


def main():
    length = int(sys.argv[1])
    model_path, input_path, expected_path = sys.argv[2:5]
    x = np.random.default_rng(41).uniform(-2, 2, (1, WIDTH)).astype(np.float32)
    model, expected = build(length, x)
    with open(model_path, "wb") as f:
        f.write(model.SerializeToString())
    np.save(input_path, x)
    np.save(expected_path, expected)


if __name__ == "__main__":
    main()
