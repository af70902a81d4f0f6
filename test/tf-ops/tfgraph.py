"""tfgraph.py - GraphDef helpers for kiln's tests: protobuf classes generated from the project's
own proto/tensorflow/*.proto, TensorProto <-> NumPy, and GraphDef -> TF.js graph model
(model.json + one .bin shard) so TensorFlow.js can produce reference outputs.
Used by test/tf-ops/run_tf_ops.py and the scripts under test/models."""
import glob
import importlib
import json
import os
import subprocess
import sys

import numpy as np

_PB = None

# TensorFlow DataType enum values (types.proto) -> NumPy dtype.
DT_NUMPY = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8,
            9: np.int64, 10: np.bool_, 17: np.uint16, 19: np.float16, 22: np.uint32, 23: np.uint64}
NUMPY_DT = {np.dtype(v): k for k, v in DT_NUMPY.items()}
DT_NAMES = {1: 'DT_FLOAT', 2: 'DT_DOUBLE', 3: 'DT_INT32', 4: 'DT_UINT8', 5: 'DT_INT16',
            6: 'DT_INT8', 9: 'DT_INT64', 10: 'DT_BOOL', 17: 'DT_UINT16', 19: 'DT_HALF',
            22: 'DT_UINT32', 23: 'DT_UINT64'}
# Which TensorProto field holds the values when tensor_content is empty.
VAL_FIELD = {1: 'float_val', 2: 'double_val', 3: 'int_val', 4: 'int_val', 5: 'int_val',
             6: 'int_val', 9: 'int64_val', 10: 'bool_val', 17: 'int_val', 19: 'half_val',
             22: 'uint32_val', 23: 'uint64_val'}


def tfjs_dtype(np_dtype):
    """TF.js has float32, int32 and bool tensors only."""
    d = np.dtype(np_dtype)
    if d == np.bool_:
        return 'bool'
    return 'float32' if d.kind == 'f' else 'int32'


def load_protos(proto_dir, out_dir):
    """Generates Python classes for every .proto in proto_dir with protoc and returns a module
    namespace holding GraphDef (and tf2xla's Config when present)."""
    global _PB
    if _PB is not None:
        return _PB
    protos = sorted(glob.glob(os.path.join(proto_dir, '**', '*.proto'), recursive=True))
    if not protos:
        raise RuntimeError(f'no .proto files under {proto_dir}')
    os.makedirs(out_dir, exist_ok=True)
    # Imports may be written relative to proto/ ("tensorflow/x.proto") or to the folder itself.
    errors = []
    for include in (os.path.dirname(proto_dir.rstrip('/')), proto_dir):
        rel = [os.path.relpath(p, include) for p in protos]
        proc = subprocess.run(['protoc', f'-I{include}', f'--python_out={out_dir}'] + rel,
                              cwd=include, capture_output=True, text=True)
        if proc.returncode == 0:
            break
        errors.append(proc.stderr.strip())
    else:
        raise RuntimeError('protoc failed: ' + ' | '.join(errors))
    sys.path.insert(0, out_dir)
    ns = type('Protos', (), {})()
    for path in sorted(glob.glob(os.path.join(out_dir, '**', '*_pb2.py'), recursive=True)):
        modname = os.path.relpath(path, out_dir)[:-3].replace(os.sep, '.')
        mod = importlib.import_module(modname)
        for cls in ('GraphDef', 'TensorProto', 'Config', 'NodeDef'):
            if hasattr(mod, cls) and not hasattr(ns, cls):
                setattr(ns, cls, getattr(mod, cls))
    if not hasattr(ns, 'GraphDef'):
        raise RuntimeError(f'no GraphDef message in {proto_dir}')
    _PB = ns
    return ns


def parse_pbtxt(pb, text):
    from google.protobuf import text_format
    g = pb.GraphDef()
    text_format.Parse(text, g, allow_unknown_field=True)
    return g


def shape_of(tensor_shape):
    return [int(d.size) for d in tensor_shape.dim]


def tensor_to_numpy(t):
    """Decodes a TensorProto as TensorFlow does (a short *_val list repeats its last value)."""
    dtype = np.dtype(DT_NUMPY[t.dtype])
    shape = shape_of(t.tensor_shape)
    n = int(np.prod(shape)) if shape else 1
    if t.tensor_content:
        return np.frombuffer(t.tensor_content, dtype, n).reshape(shape).copy()
    vals = list(getattr(t, VAL_FIELD[t.dtype]))
    if t.dtype == 19:
        arr = np.array(vals, np.uint16).view(np.float16)
    else:
        arr = np.array(vals, dtype)
    if arr.size == 0:
        arr = np.zeros(1, dtype)
    if arr.size < n:
        arr = np.concatenate([arr, np.full(n - arr.size, arr[-1], dtype)])
    return arr[:n].reshape(shape)


def numpy_to_tensor(pb, arr):
    t = pb.TensorProto(dtype=NUMPY_DT[arr.dtype], tensor_content=arr.tobytes())
    for s in arr.shape:
        t.tensor_shape.dim.add(size=s)
    return t


def placeholders(graph):
    """[(name, numpy dtype, static shape)] of every Placeholder, in graph order."""
    out = []
    for n in graph.node:
        if n.op == 'Placeholder':
            shape = shape_of(n.attr['shape'].shape)
            if n.attr['shape'].shape.unknown_rank or any(d < 0 for d in shape):
                raise ValueError(f'placeholder {n.name} needs a static shape')
            out.append((n.name, np.dtype(DT_NUMPY[n.attr['dtype'].type]), shape))
    return out


def sink_fetches(graph):
    consumed = {i.lstrip('^').split(':')[0] for n in graph.node for i in n.input}
    return [n.name for n in graph.node
            if n.name not in consumed and n.op not in ('Const', 'NoOp', 'Placeholder')]


def graph_to_tfjs(graph, out_dir):
    """Writes out_dir/model.json + weights.bin: every Const's value moves into the shard, as the
    TF.js converter does (int64 and float16/float64 stored as int32/float32, which TF.js uses),
    the Consts of library functions too (weights named by their node names, which TF.js looks
    up for function bodies as for the graph)."""
    from google.protobuf import json_format
    g = type(graph)()
    g.CopyFrom(graph)
    weights, blobs = [], []
    nodes = list(g.node)
    if g.HasField('library'):
        for function in g.library.function:
            nodes.extend(function.node_def)
    for n in nodes:
        if n.op != 'Const':
            continue
        arr = tensor_to_numpy(n.attr['value'].tensor)
        dt = tfjs_dtype(arr.dtype)
        data = arr.astype(np.uint8 if dt == 'bool' else dt)
        weights.append({'name': n.name, 'shape': list(arr.shape), 'dtype': dt})
        blobs.append(data.tobytes())
        t = n.attr['value'].tensor
        t.ClearField('tensor_content')
        for f in set(VAL_FIELD.values()):
            t.ClearField(f)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'weights.bin'), 'wb') as f:
        f.write(b''.join(blobs))
    topo = json_format.MessageToDict(g)
    topo.setdefault('versions', {}).setdefault('producer', 1)  # TF.js reads versions.producer
    model = {'format': 'graph-model', 'generatedBy': 'kiln-test', 'convertedBy': 'kiln tfgraph.py',
             'modelTopology': topo,
             'weightsManifest': [{'paths': ['weights.bin'], 'weights': weights}]}
    with open(os.path.join(out_dir, 'model.json'), 'w') as f:
        json.dump(model, f)
