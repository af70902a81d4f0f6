"""Writes a small TensorFlow.js graph model and its expected outputs.

make-tfjs.py DIR writes DIR/model/{model.json, group1-shard1of2.bin,
group1-shard2of2.bin} with one weight of every storage kind TF.js reads
(float32, int32, bool, float16-, uint8- and uint16-quantized float32,
uint8-quantized int32, int32 stored for DT_INT64), the expected values as DIR/expect/<name>.npy, and
broken variants: DIR/short (last shard 3 bytes short), DIR/mismatch (a
manifest dtype that disagrees with its Const node), DIR/nosig (no
signature). Dequantization follows tfjs-core io_utils.decodeWeight:
q * scale + min in float64 rounded to float32; Math.round for int32.
"""
import copy
import json
import os
import sys

import numpy as np

out = sys.argv[1]


def const(name, dtype):
    return {"name": name, "op": "Const",
            "attr": {"dtype": {"type": dtype},
                     "value": {"tensor": {"dtype": dtype, "tensorShape": {}}}}}


def identity(name, source):
    return {"name": name, "op": "Identity", "input": [source],
            "attr": {"T": {"type": "DT_FLOAT"}}}


f32 = np.array([[1.5, -2.25], [3.0, 1e-3]], dtype=np.float32)
f16_bits = np.array([0x3C00, 0xC500, 0x0001], dtype=np.uint16)  # 1, -5, 2^-24
u8 = np.array([0, 1, 128, 255], dtype=np.uint8)
u8_scale, u8_min = 0.0123, -1.5
u16 = np.array([7, 65535], dtype=np.uint16)
u16_scale, u16_min = 1.0 / 3.0, 0.1
i32 = np.array([5, -7, 2147483647], dtype=np.int32)
i32q = np.array([0, 1, 2, 3], dtype=np.uint8)
i32q_scale, i32q_min = 0.5, -0.75  # -0.75, -0.25, 0.25, 0.75 -> -1, 0, 0, 1
bools = np.array([0, 1, 0], dtype=np.uint8)
i64 = np.array([3, -4], dtype=np.int32)

weights = [  # (manifest entry, stored bytes, expected value)
    ({"name": "w_f32", "shape": [2, 2], "dtype": "float32"}, f32.tobytes(), f32),
    ({"name": "w_f16", "shape": [3], "dtype": "float32",
      "quantization": {"dtype": "float16", "original_dtype": "float32"}},
     f16_bits.tobytes(), f16_bits.view(np.float16).astype(np.float32)),
    ({"name": "w_u8", "shape": [2, 2], "dtype": "float32",
      "quantization": {"dtype": "uint8", "scale": u8_scale, "min": u8_min}},
     u8.tobytes(),
     (u8.astype(np.float64) * u8_scale + u8_min).astype(np.float32).reshape(2, 2)),
    ({"name": "w_u16", "shape": [2], "dtype": "float32",
      "quantization": {"dtype": "uint16", "scale": u16_scale, "min": u16_min}},
     u16.tobytes(), (u16.astype(np.float64) * u16_scale + u16_min).astype(np.float32)),
    ({"name": "w_i32", "shape": [3], "dtype": "int32"}, i32.tobytes(), i32),
    ({"name": "w_i32q", "shape": [4], "dtype": "int32",
      "quantization": {"dtype": "uint8", "scale": i32q_scale, "min": i32q_min}},
     i32q.tobytes(),
     np.floor(i32q.astype(np.float64) * i32q_scale + i32q_min + 0.5).astype(np.int32)),
    ({"name": "w_bool", "shape": [3], "dtype": "bool"}, bools.tobytes(),
     bools.astype(bool)),
    # TF.js stores DT_INT64 weights as int32; kiln widens them back.
    ({"name": "w_i64", "shape": [2], "dtype": "int32"}, i64.tobytes(),
     i64.astype(np.int64)),
]
graph_types = {"w_f32": "DT_FLOAT", "w_f16": "DT_FLOAT", "w_u8": "DT_FLOAT",
               "w_u16": "DT_FLOAT", "w_i32": "DT_INT32", "w_i32q": "DT_INT32",
               "w_bool": "DT_BOOL", "w_i64": "DT_INT64"}

nodes = [{"name": "input", "op": "Placeholder",
          "attr": {"dtype": {"type": "DT_FLOAT"},
                   "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "2"}]}}}}]
nodes += [const(name, dtype) for name, dtype in graph_types.items()]
nodes += [identity("out_" + name[2:], name) for name in graph_types]
nodes.append(identity("echo", "input"))
model = {
    "format": "graph-model",
    "generatedBy": "kiln test",
    "convertedBy": "make-tfjs.py",
    "signature": {
        "inputs": {"input:0": {"name": "input:0", "dtype": "DT_FLOAT",
                               "tensorShape": {"dim": [{"size": "2"}, {"size": "2"}]}}},
        "outputs": dict(
            [(name[2:], {"name": "out_" + name[2:] + ":0"}) for name in graph_types]
            + [("echo", {"name": "echo:0", "dtype": "DT_FLOAT"})]),
    },
    "modelTopology": {"node": nodes, "library": {}, "versions": {"producer": 1}},
    "weightsManifest": [{"paths": ["group1-shard1of2.bin", "group1-shard2of2.bin"],
                         "weights": [entry for entry, _, _ in weights]}],
}
data = b"".join(stored for _, stored, _ in weights)
split = 21  # inside w_f16: shards are one byte stream


def write(directory, model, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "model.json"), "w") as f:
        json.dump(model, f, indent=1)
    with open(os.path.join(directory, "group1-shard1of2.bin"), "wb") as f:
        f.write(data[:split])
    with open(os.path.join(directory, "group1-shard2of2.bin"), "wb") as f:
        f.write(data[split:])


write(os.path.join(out, "model"), model, data)
write(os.path.join(out, "short"), model, data[:-3])
mismatch = copy.deepcopy(model)
mismatch["weightsManifest"][0]["weights"][4]["dtype"] = "float32"  # w_i32
write(os.path.join(out, "mismatch"), mismatch, data)
nosig = copy.deepcopy(model)
del nosig["signature"]
write(os.path.join(out, "nosig"), nosig, data)

os.makedirs(os.path.join(out, "expect"), exist_ok=True)
for entry, _, value in weights:
    np.save(os.path.join(out, "expect", entry["name"][2:] + ".npy"), value)
np.save(os.path.join(out, "expect", "input.npy"),
        np.array([[1, 2], [3, 4]], dtype=np.float32))
