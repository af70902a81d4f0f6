#!/usr/bin/env python3
"""Collects the seed corpus of every kiln fuzz target (docs/fuzzing.md).

make_corpus.py OUT [--cache DIR] [--max-bytes N]

writes OUT/<target>/<sha1 of the seed> for the targets in fuzz/CMakeLists.txt
from what the repository already has: test/lit and test/tf-ops inputs,
samples, the ONNX conformance models of Debian's libonnx-testdata, the real
models cached by test/models/setup_refs.sh (when present), and .npy arrays
written here with NumPy. Text GraphDefs are also converted to binary and
JSON with the project's own proto/ schema, so all three readers start from
the same graphs. Seeds larger than --max-bytes are skipped: big inputs make
every mutation slow. Needs Python with numpy and protobuf (/usr/bin/python3)
and protoc.
"""
import argparse
import glob
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, json_format
from google.protobuf import message_factory, text_format

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ONNX_TESTDATA = '/usr/share/libonnx-testdata/data/node'
# Must match kShardSeparator in FuzzTfJs.cpp.
SHARD_SEPARATOR = b'\n--kiln-shard--\n'


class Corpus:
    def __init__(self, out, max_bytes):
        self.out, self.max_bytes, self.counts = out, max_bytes, {}

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode()
        if len(data) > self.max_bytes:
            return
        directory = os.path.join(self.out, target)
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, hashlib.sha1(data).hexdigest()), 'wb') as f:
            f.write(data)
        self.counts[target] = self.counts.get(target, 0) + 1


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def repo_files(*patterns):
    found = set()
    for pattern in patterns:
        found.update(glob.glob(os.path.join(ROOT, pattern), recursive=True))
    return sorted(found)


def message_classes():
    """GraphDef and tf2xla Config classes built from proto/ with protoc."""
    with tempfile.TemporaryDirectory() as tmp:
        descriptors = os.path.join(tmp, 'tf.desc')
        subprocess.run(['protoc', '-I', os.path.join(ROOT, 'proto'), '--include_imports',
                        '--descriptor_set_out', descriptors, 'tensorflow/tf2xla.proto'],
                       check=True)
        files = descriptor_pb2.FileDescriptorSet.FromString(read(descriptors))
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    factory = message_factory.MessageFactory(pool)
    return (factory.GetPrototype(pool.FindMessageTypeByName('tensorflow.GraphDef')),
            factory.GetPrototype(pool.FindMessageTypeByName('tensorflow.tf2xla.Config')))


def add_graphdefs(corpus, graph_class):
    for path in repo_files('test/**/*.pbtxt', 'samples/**/*.pbtxt'):
        text = read(path)
        if b'fetch' in text and 'config' in os.path.basename(path):
            continue  # tf2xla configs: add_configs
        corpus.add('graphdef-text', text)
        graph = graph_class()
        try:
            text_format.Parse(text.decode(), graph)
        except (text_format.ParseError, UnicodeDecodeError):
            continue  # a deliberately broken test input: text seed only
        corpus.add('graphdef-binary', graph.SerializeToString())
        corpus.add('graphdef-json', json_format.MessageToJson(graph))
    for path in repo_files('test/lit/TensorFlow/Inputs/*.json'):
        if 'config' not in path and b'modelTopology' not in read(path):
            corpus.add('graphdef-json', read(path))


def add_frozen_models(corpus, cache):
    for path in sorted(glob.glob(os.path.join(cache, 'graphdef', '*', '*.pb'))):
        corpus.add('graphdef-binary', read(path))


def add_configs(corpus):
    for path in repo_files('test/**/*config*.pbtxt', 'samples/**/*config*.pbtxt',
                           'test/**/*config*.json'):
        corpus.add('tf2xla-config', read(path))
    # Configs naming the fixed graph of FuzzTfConfig.cpp, so mutations start
    # from imports that succeed.
    corpus.add('tf2xla-config', 'feed { id { node_name: "x" } }\n'
                                'feed { id { node_name: "y" } shape { dim { size: 3 } dim { size: 2 } } }\n'
                                'fetch { id { node_name: "sum" } name: "out" }\n'
                                'variable { node_name: "w" shape { dim { size: 2 } dim { size: 2 } } '
                                'type: DT_FLOAT }\n')
    corpus.add('tf2xla-config', 'feed { id { node_name: "x" } }\nfeed { id { node_name: "y" } }\n'
                                'fetch { id { node_name: "split" output_index: 1 } }\n'
                                'fetch { id { node_name: "mm" } }\n')
    corpus.add('tf2xla-config', json.dumps({
        'feed': [{'id': {'nodeName': 'x'}}, {'id': {'nodeName': 'y'}}],
        'fetch': [{'id': {'nodeName': 'mm'}, 'name': 'product'}]}))


def tfjs_seed(model_json, shard_paths):
    """model.json rewritten to one group in one shard, plus that shard."""
    model = json.loads(model_json)
    groups = model.get('weightsManifest', [])
    data = b''.join(read(p) for group_paths in shard_paths for p in group_paths)
    model['weightsManifest'] = [{
        'paths': ['shard.bin'],
        'weights': [w for group in groups for w in group.get('weights', [])]}]
    return json.dumps(model).encode() + SHARD_SEPARATOR + data


def add_tfjs(corpus, cache):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(
            ROOT, 'test/lit/TensorFlow/Inputs/make-tfjs.py'), tmp], check=True)
        models = glob.glob(os.path.join(tmp, '*', 'model.json'))
        models += glob.glob(os.path.join(cache, 'pkgs', '*', 'package', 'models', '*.json'))
        for path in sorted(models):
            text = read(path)
            if b'modelTopology' not in text:
                continue
            directory = os.path.dirname(path)
            groups = [[os.path.join(directory, p) for p in group.get('paths', [])]
                      for group in json.loads(text).get('weightsManifest', [])]
            if all(os.path.exists(p) for group in groups for p in group):
                corpus.add('tfjs', tfjs_seed(text, groups))
    for path in repo_files('test/lit/TensorFlow/Inputs/*.json'):
        corpus.add('tfjs', read(path))


def add_onnx(corpus, cache):
    for path in repo_files('test/**/*.onnx', 'samples/**/*.onnx'):
        corpus.add('onnx', read(path))
    for path in sorted(glob.glob(os.path.join(ONNX_TESTDATA, '*', 'model.onnx'))):
        corpus.add('onnx', read(path))
    for path in sorted(glob.glob(os.path.join(cache, 'pkgs', '**', '*.onnx'), recursive=True)):
        corpus.add('onnx', read(path))


def add_hlo(corpus):
    for path in repo_files('test/**/*.hlo', 'samples/**/*.hlo', 'bench/**/*.hlo'):
        corpus.add('hlo', read(path))
        corpus.add('pipeline', read(path))


def npy_bytes(array, version=None):
    buffer = io.BytesIO()
    if version is None:
        np.save(buffer, array)
    else:
        np.lib.format.write_array(buffer, array, version=version)
    return buffer.getvalue()


def add_npy(corpus):
    for path in repo_files('test/**/*.npy', 'samples/**/*.npy'):
        corpus.add('npy', read(path))
    values = np.arange(12).reshape(3, 4)
    for dtype in ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32',
                  'uint64', 'float16', 'float32', 'float64']:
        corpus.add('npy', npy_bytes(values.astype(dtype)))
    corpus.add('npy', npy_bytes(np.float32(1.5)))
    corpus.add('npy', npy_bytes(np.zeros((0, 3), np.float32)))
    corpus.add('npy', npy_bytes(np.asfortranarray(values.astype(np.float32))))
    corpus.add('npy', npy_bytes(values.astype('>i4')))  # big-endian: rejected
    corpus.add('npy', npy_bytes(values.astype(np.float32), version=(2, 0)))
    corpus.add('npy', npy_bytes(values.astype(np.float32), version=(3, 0)))
    bf16 = npy_bytes(values.astype(np.uint16).view('V2'))
    corpus.add('npy', bf16)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('out')
    p.add_argument('--cache', default=os.environ.get(
        'KILN_TEST_CACHE', os.path.expanduser('~/.cache/kiln-test')))
    p.add_argument('--max-bytes', type=int, default=1 << 20)
    args = p.parse_args()
    corpus = Corpus(args.out, args.max_bytes)
    graph_class, _ = message_classes()
    add_graphdefs(corpus, graph_class)
    add_frozen_models(corpus, args.cache)
    add_configs(corpus)
    add_tfjs(corpus, args.cache)
    add_onnx(corpus, args.cache)
    add_hlo(corpus)
    add_npy(corpus)
    for target, count in sorted(corpus.counts.items()):
        print(f'{target}: {count} seeds')


if __name__ == '__main__':
    main()
