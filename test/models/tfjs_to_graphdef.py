#!/usr/bin/python3
"""tfjs_to_graphdef.py - Turns a TF.js graph model (model.json + .bin shards) into a frozen binary
GraphDef: every manifest weight is written into its Const node's value, dequantized as TF.js does
at load time (float16 -> float32; affine uint8/uint16: q * scale + min). With --unfuse the grappler
fused ops _FusedConv2D / FusedDepthwiseConv2dNative / _FusedMatMul (fused_ops BiasAdd[,Relu|Relu6|
Prelu|LeakyRelu|Elu|Sigmoid|Tanh]) become the classic frozen-graph form Conv2D /
DepthwiseConv2dNative / MatMul + BiasAdd + activation; the last node keeps the fused node's name.
Uses the project's proto/tensorflow schema (python classes generated with protoc).
Usage: /usr/bin/python3 tfjs_to_graphdef.py model.json out.pb [--unfuse] [--proto-out DIR]"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'test', 'tf-ops'))
import tfgraph  # noqa: E402

NP = {'float32': np.float32, 'int32': np.int32, 'bool': np.bool_, 'float16': np.float16,
      'uint8': np.uint8, 'uint16': np.uint16, 'int64': np.int64}
PLAIN = {'_FusedConv2D': 'Conv2D', 'FusedDepthwiseConv2dNative': 'DepthwiseConv2dNative',
         '_FusedMatMul': 'MatMul'}
KEEP = {'Conv2D': ('T', 'strides', 'padding', 'explicit_paddings', 'data_format', 'dilations'),
        'DepthwiseConv2dNative': ('T', 'strides', 'padding', 'explicit_paddings', 'data_format',
                                  'dilations'),
        'MatMul': ('T', 'transpose_a', 'transpose_b')}
ACTIVATIONS = {'Relu', 'Relu6', 'Prelu', 'LeakyRelu', 'Elu', 'Sigmoid', 'Tanh'}


def read_weights(model_json):
    """Yields (name, numpy array) for every manifest weight, dequantized."""
    j = json.load(open(model_json))
    d = os.path.dirname(model_json)
    buf = b''.join(open(os.path.join(d, p), 'rb').read()
                   for grp in j['weightsManifest'] for p in grp['paths'])
    off = 0
    for grp in j['weightsManifest']:
        for w in grp['weights']:
            shape, dtype, q = w['shape'], w['dtype'], w.get('quantization')
            n = int(np.prod(shape)) if shape else 1
            if q:
                qd = np.dtype(NP[q['dtype']])
                raw = np.frombuffer(buf, qd, n, off)
                off += n * qd.itemsize
                if q['dtype'] == 'float16':
                    arr = raw.astype(np.float32)
                else:  # tfjs computes q * scale + min in doubles, stored in a Float32Array
                    arr = (raw.astype(np.float64) * q['scale'] + q['min']).astype(np.float32)
                if dtype == 'int32':
                    arr = np.round(arr).astype(np.int32)
            else:
                dt = np.dtype(NP[dtype])
                arr = np.frombuffer(buf, dt, n, off)
                off += n * dt.itemsize
            yield w['name'], arr.astype(NP[dtype]).reshape(shape)
    if off != len(buf):
        raise ValueError(f'{model_json}: weights use {off} of {len(buf)} shard bytes')


def unfuse(graph):
    nodes = list(graph.node)
    del graph.node[:]
    for n in nodes:
        if n.op not in PLAIN:
            graph.node.append(n)
            continue
        fused = [x.decode() for x in n.attr['fused_ops'].list.s]
        if fused[:1] != ['BiasAdd'] or not set(fused[1:]) <= ACTIVATIONS or len(fused) > 2:
            raise ValueError(f'{n.name}: cannot unfuse fused_ops {fused}')
        base = PLAIN[n.op]
        data_in, filt, bias, extra = n.input[0], n.input[1], n.input[2], list(n.input[3:])
        c = graph.node.add(name=n.name + '/unfused_' + base, op=base, input=[data_in, filt])
        for k in KEEP[base]:
            if k in n.attr:
                c.attr[k].CopyFrom(n.attr[k])
        last = len(fused) == 1
        b = graph.node.add(name=n.name if last else n.name + '/unfused_BiasAdd', op='BiasAdd',
                           input=[c.name, bias])
        b.attr['T'].CopyFrom(n.attr['T'])
        if 'data_format' in n.attr and base != 'MatMul':
            b.attr['data_format'].CopyFrom(n.attr['data_format'])
        if not last:
            act = fused[1]
            a = graph.node.add(name=n.name, op=act,
                               input=[b.name] + (extra[:1] if act == 'Prelu' else []))
            a.attr['T'].CopyFrom(n.attr['T'])
            if act == 'LeakyRelu' and 'leakyrelu_alpha' in n.attr:
                a.attr['alpha'].f = n.attr['leakyrelu_alpha'].f


def convert(model_json, out, do_unfuse, proto_out):
    from google.protobuf import json_format
    pb = tfgraph.load_protos(os.path.join(REPO, 'proto', 'tensorflow'), proto_out)
    topo = json.load(open(model_json))['modelTopology']
    g = pb.GraphDef()
    json_format.ParseDict({k: v for k, v in topo.items() if k in ('node', 'versions')}, g,
                          ignore_unknown_fields=True)
    byname = {n.name: n for n in g.node}
    for name, arr in read_weights(model_json):
        node = byname[name]
        node.attr['value'].tensor.CopyFrom(tfgraph.numpy_to_tensor(pb, arr))
        node.attr['dtype'].type = tfgraph.NUMPY_DT[arr.dtype]
    if do_unfuse:
        unfuse(g)
    data = g.SerializeToString()
    with open(out, 'wb') as f:
        f.write(data)
    return len(g.node), len(data)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('model_json')
    p.add_argument('out')
    p.add_argument('--unfuse', action='store_true')
    p.add_argument('--proto-out', default=os.path.join(tempfile.gettempdir(), 'kiln-tf-proto-py'))
    a = p.parse_args()
    nodes, size = convert(a.model_json, a.out, a.unfuse, a.proto_out)
    print(f'{a.model_json} -> {a.out}: {nodes} nodes, {size} bytes')


if __name__ == '__main__':
    main()
