#!/usr/bin/env python3
"""Regenerates fuzz/dicts/*.dict, libFuzzer dictionaries for each format.

make_dicts.py [--check]

The words come from kiln's own sources, so a new op or attribute reaches the
dictionaries when this is rerun: HLO opcodes from include/kiln/IR/Opcodes.def
and attribute names from the HLO parser; op and attribute names from the
string literals of the ONNX and TensorFlow importers; field names from the
proto/ schemas; JSON keys of TF.js model.json and the .npy header keys.
--check exits 1 when a checked-in dictionary differs (for CI or review).
"""
import argparse
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DICTS = os.path.join(ROOT, 'fuzz', 'dicts')


def source(*patterns):
    text = ''
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            with open(path, encoding='utf-8') as f:
                text += f.read()
    return text


def literals(text, pattern):
    return {s for s in re.findall(r'"([^"\\\n]{1,40})"', text) if re.fullmatch(pattern, s)}


def proto_fields(path):
    text = source(path)
    fields = set(re.findall(r'^\s*(?:repeated\s+|optional\s+)?[\w.]+\s+(\w+)\s*=\s*\d+', text, re.M))
    enums = set(re.findall(r'^\s*([A-Z][A-Z0-9_]+)\s*=\s*\d+', text, re.M))
    return fields, enums


def quoted(words):
    lines = []
    for word in sorted(words):
        lines.append('"' + word.replace('"', '\\"') + '"')
    return lines


def hlo_words():
    opcodes = re.findall(r'KILN_OPCODE\(\w+,\s*"([^"]+)"', source('include/kiln/IR/Opcodes.def'))
    parser = source('lib/IR/Parse*.cpp', 'lib/IR/Parser.cpp', 'lib/IR/HloSyntax.cpp',
                    'lib/IR/DType.cpp')
    attributes = literals(parser, r'[a-z][a-z0-9_]*')
    keywords = {'HloModule', 'ENTRY', 'ROOT', '{', '}', '(', ')', '[', ']', '=', ',', ':',
                'true', 'false', 'inf', '-inf', 'nan', '0x', '->',
                # XLA's text (docs/hlo.md, "Reading XLA's HLO text").
                '%', '"', '/*', '*/', '//', '{1,0}', '{0,1}', ':T(8,128)', 'S(1)', '<=',
                'FileNames', 'FunctionNames', 'FileLocations', 'StackFrames',
                'control-predecessors='}
    return set(opcodes) | {a + '=' for a in attributes} | attributes | keywords


def onnx_words():
    importer = source('lib/Import/Onnx/*.cpp', 'lib/Import/Common/*.cpp')
    fields, enums = proto_fields('proto/onnx/onnx.proto')
    ops = literals(importer, r'[A-Z][A-Za-z0-9]+')
    attributes = literals(importer, r'[a-z][a-z0-9_]*')
    return ops | attributes | fields | enums | {'ai.onnx', 'ai.onnx.ml', 'external_data',
                                                'location', 'offset', 'length'}


def graphdef_words():
    importer = source('lib/Import/TensorFlow/*.cpp', 'lib/Import/Common/*.cpp')
    fields, enums = proto_fields('proto/tensorflow/graph.proto')
    ops = literals(importer, r'[A-Z][A-Za-z0-9]+')
    attributes = literals(importer, r'[a-z][a-z0-9_]*')
    return ops, attributes, fields, enums


def npy_words():
    return {'\\x93NUMPY', '\\x01\\x00', '\\x02\\x00', '\\x03\\x00', "{'descr': '",
            "', 'fortran_order': False, 'shape': (", '), }', 'True', 'False',
            '<f4', '<f8', '<f2', '|b1', '|i1', '|u1', '<i2', '<i4', '<i8', '<u2', '<u4',
            '<u8', '<V2', '>f4', '|O', '<c8'}


def write_dicts():
    ops, tf_attributes, graph_fields, graph_enums = graphdef_words()
    config_fields, config_enums = proto_fields('proto/tensorflow/tf2xla.proto')
    tfjs_keys = {'format', 'graph-model', 'generatedBy', 'convertedBy', 'modelTopology',
                 'node', 'name', 'op', 'input', 'attr', 'device', 'library', 'versions',
                 'weightsManifest', 'paths', 'weights', 'dtype', 'shape', 'quantization',
                 'scale', 'min', 'original_dtype', 'float16', 'uint8', 'uint16', 'float32',
                 'int32', 'bool', 'string', 'signature', 'inputs', 'outputs', 'tensorShape',
                 'dim', 'size', 'shard.bin'}
    json_keys = {re.sub(r'_(\w)', lambda m: m.group(1).upper(), f) for f in graph_fields}
    files = {
        'hlo.dict': quoted(hlo_words()),
        'onnx.dict': quoted(onnx_words()),
        'graphdef-text.dict': quoted(ops | tf_attributes | graph_fields | graph_enums
                                     | {'{', '}', ':', '"'}),
        'graphdef-binary.dict': quoted(ops | tf_attributes | graph_enums),
        'graphdef-json.dict': quoted({f'"{k}":' for k in json_keys} | ops | tf_attributes
                                     | graph_enums),
        'tfjs.dict': quoted({f'"{k}":' for k in tfjs_keys} | ops | tf_attributes
                            | graph_enums) + ['"\\x0a--kiln-shard--\\x0a"'],
        'tf2xla-config.dict': quoted(config_fields | config_enums | graph_enums
                                     | {'x', 'y', 'w', 'mm', 'sum', 'split', 'assign',
                                        'w_read', '{', '}', ':'}),
        'npy.dict': [f'"{w}"' for w in sorted(npy_words())],
    }
    files['pipeline.dict'] = files['hlo.dict']
    return {name: '# Generated by fuzz/make_dicts.py; do not edit.\n' + '\n'.join(lines) + '\n'
            for name, lines in files.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--check', action='store_true')
    args = p.parse_args()
    stale = []
    os.makedirs(DICTS, exist_ok=True)
    for name, text in write_dicts().items():
        path = os.path.join(DICTS, name)
        old = open(path, encoding='utf-8').read() if os.path.exists(path) else None
        if args.check:
            if old != text:
                stale.append(name)
        elif old != text:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(text)
    if stale:
        print('make_dicts: out of date (rerun fuzz/make_dicts.py): ' + ', '.join(stale))
        sys.exit(1)


if __name__ == '__main__':
    main()
