#!/usr/bin/python3
"""run_conformance.py - ONNX operator conformance: every node test of ONNX's
own backend test data (Debian's libonnx-testdata), compiled ahead of time with
`kiln compile`, linked with driver.c, run on each test_data_set's inputs and
compared with the expected outputs.

Comparison is ONNX's own (onnx/backend/test/runner: assert_similar_outputs):
the output dtype must match, then numpy.testing.assert_allclose with
rtol=1e-3, atol=1e-7 (the loader's defaults for node tests; NaN equals NaN).
Shapes must match exactly.

expected_failures.txt lists every test expected not to pass, one per line:
    test_name  category  [# note]
Categories: unsupported-op:<Op>, not-aot:data-dependent-shape,
not-aot:strings, not-aot:sequences, not-aot:random,
training-domain, unsupported-domain, unsupported-dtype, unsupported-opset,
test-data-mismatch (the test's inputs contradict its model, or a checker in
KNOWN_DEFECTIVE_DATA proves its expected output wrong and kiln's right),
compile-error, link-error, runtime-error, crash, timeout, wrong-answer.
The run fails if a listed test passes, an unlisted test fails, or a listed
test now fails in a worse way (wrong-answer, crash, runtime-error, timeout)
than its listed category says. `--update-list` rewrites the list from this
run's results, keeping the notes of entries whose category did not change.

Ahead-of-time compilation needs static shapes, so an input that a lowering
requires to be a compile-time constant (Reshape's shape, Slice's starts, ...)
is bound to the test's own value with `kiln compile --freeze NAME=FILE.npy`
and the test is compiled again; such passes are reported as
`PASS (frozen: NAMES)`. `--no-freeze` turns that off, to count what it adds.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import threading

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'tf-ops'))
import kilnrun  # noqa: E402  (bounded results: the manifest's 'bounded'/'count_of')

RTOL, ATOL = 1e-3, 1e-7
TIMEOUT = 120
# AArch64 runs a fixed sample: every SAMPLE_STRIDE-th test in name order,
# plus, for every op type the node tests use, the first test using it that
# is expected to pass (so every op kiln lowers runs on AArch64), plus
# SAMPLE_EXTRA, variants worth running there too.
SAMPLE_STRIDE = 4
SAMPLE_EXTRA = {
    'test_det_nd',
    'test_dft_inverse',
    'test_gridsample_bicubic',
    'test_gridsample_reflection_padding',
    'test_hammingwindow',
    'test_hannwindow',
    'test_maxunpool_export_without_output_shape',
    'test_melweightmatrix',
    'test_reversesequence_batch',
    'test_roialign_aligned_true',
    'test_sce_none_weights_log_prob',
}

FLAVOURS = {
    # name: (triple, C compiler + link flags, runner prefix)
    'x86_64': ('x86_64-linux-gnu', ['cc'], []),
    'aarch64': ('aarch64-linux-gnu', ['aarch64-linux-gnu-gcc', '-static'],
                ['qemu-aarch64']),
}
# Failures that must never hide under another listed category.
BAD_CATEGORIES = {'wrong-answer', 'crash', 'runtime-error', 'timeout', 'unrolled',
                  'link-error'}


class TestFailure(Exception):
    def __init__(self, category, detail):
        super().__init__(detail)
        self.category = category
        self.detail = detail


def run(cmd, category, timeout=TIMEOUT):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TestFailure('timeout', f'timeout after {timeout}s: {cmd[0]}')
    if proc.returncode < 0:
        raise TestFailure('crash', f'{os.path.basename(cmd[0])} killed by '
                          f'signal {-proc.returncode}: ' +
                          (proc.stderr or '').strip()[-300:])
    if proc.returncode != 0:
        raise TestFailure(category, (proc.stderr or proc.stdout).strip())
    return proc.stdout


# --- Classifying compile errors -----------------------------------------

UNSUPPORTED_REASONS = [
    # substring of the importer's reason -> category
    ('training domain', 'training-domain'),
    ('output shape depends on input values', 'not-aot:data-dependent-shape'),
    ('string tensors', 'not-aot:strings'),
    ('sequence and optional types', 'not-aot:sequences'),
    ('random number generation', 'not-aot:random'),
    ("is not supported; kiln reads the default", 'unsupported-domain'),
]

COMPILE_ERRORS = [
    # regex on the message -> category
    (r'string tensor', 'not-aot:strings'),
    (r'sequence, map and optional types', 'not-aot:sequences'),
    (r'(must be|needs) (a )?(compile-time )?constant', 'not-aot:data-dependent-shape'),
    (r'random numbers', 'not-aot:random'),
    (r'supports opsets', 'unsupported-opset'),
    (r'element type \w+ is not supported', 'unsupported-dtype'),
]


def classify_compile_error(message):
    """(category, short detail) for a `kiln compile` error message."""
    lines = message.splitlines()
    if lines and re.search(r'unsupported ops? \(', lines[0]):
        entry = lines[1].strip() if len(lines) > 1 else ''
        op = entry.split(' ', 1)[0].rstrip(':')
        for needle, category in UNSUPPORTED_REASONS:
            if needle in entry:
                return category, entry
        return f'unsupported-op:{op}', entry
    for pattern, category in COMPILE_ERRORS:
        if re.search(pattern, message):
            return category, lines[0] if lines else message
    return 'compile-error', lines[0] if lines else message


CONSTANT_INPUT = re.compile(
    r"node '(?P<node>.*?)' \((?P<op>\w+)\): input (?P<index>\d+) .*?"
    r"must be a compile-time constant")


NODE = re.compile(r"node '(?P<node>.*?)' \((?P<op>\w+)\):")
INTEGER_TYPES = {onnx.TensorProto.INT32, onnx.TensorProto.INT64}


def inputs_to_freeze(model, message, frozen):
    """The graph inputs a lowering wants as constants: the one the message
    names, else (a constant computed inside the graph) every integer graph
    input, which is what shape-like values are made of, else every scalar
    one (a float Range's start, limit and delta give a Loop's trip count)."""
    named = input_to_freeze(model, message, frozen)
    if named:
        return [named]
    graph_inputs = {i.name for i in model.graph.input} - frozen
    node = NODE.search(message)
    for n in model.graph.node if node else []:
        if (n.name or (n.output[0] if n.output else '')) == node['node']:
            direct = [x for x in n.input if x in graph_inputs]
            if direct:
                return direct
    remaining = [i for i in model.graph.input if i.name not in frozen]
    integers = [i.name for i in remaining
                if i.type.tensor_type.elem_type in INTEGER_TYPES]
    return integers or [i.name for i in remaining
                        if i.type.tensor_type.HasField('shape') and
                        not i.type.tensor_type.shape.dim]


def input_to_freeze(model, message, frozen):
    """The graph input a lowering wants as a constant, or None."""
    match = CONSTANT_INPUT.search(message)
    if not match:
        return None
    graph_inputs = {i.name for i in model.graph.input} - frozen
    for node in model.graph.node:
        name = node.name or (node.output[0] if node.output else node.op_type)
        if name != match['node'] or node.op_type != match['op']:
            continue
        index = int(match['index'])
        if index < len(node.input) and node.input[index] in graph_inputs:
            return node.input[index]
    return None


# --- Tensors ---------------------------------------------------------------

def load_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, 'rb') as f:
        tensor.ParseFromString(f.read())
    return tensor


def read_tensors(data_dir, kind):
    """input_0.pb, input_1.pb, ... of a data set as numpy arrays."""
    paths = glob.glob(os.path.join(data_dir, f'{kind}_*.pb'))
    paths.sort(key=lambda p: int(re.search(r'(\d+)\.pb$', p)[1]))
    return [to_array(load_tensor(p)) for p in paths]


def to_array(tensor):
    if tensor.data_type == onnx.TensorProto.BFLOAT16:
        # numpy has no bfloat16: keep the raw bits as uint16.
        if tensor.raw_data:
            bits = np.frombuffer(tensor.raw_data, dtype=np.uint16)
        else:
            bits = np.array(tensor.int32_data, dtype=np.uint16)
        return bits.reshape(tuple(tensor.dims)).view(np.dtype('V2'))
    return numpy_helper.to_array(tensor)


def manifest_dtype(name):
    return np.dtype('V2') if name == 'bfloat16' else np.dtype(name)


def compare(index, got, want):
    if got.dtype.kind == 'V' and want.dtype == np.uint16:
        want = want.view(got.dtype)  # bfloat16 expected as raw bits
    if got.dtype != want.dtype:
        raise TestFailure('wrong-answer', f'output {index}: dtype {got.dtype}, '
                          f'expected {want.dtype}')
    if got.shape != want.shape:
        raise TestFailure('wrong-answer', f'output {index}: shape '
                          f'{list(got.shape)}, expected {list(want.shape)}')
    shape = want.shape
    got, want = got.reshape(-1), want.reshape(-1)  # 0-d arrays too
    if got.dtype.kind == 'V':
        got, want = got.view(np.uint16), want.view(np.uint16)
    if got.dtype.kind in 'fc':
        close = np.isclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
        inf = np.isinf(want) | np.isinf(got)
        close[inf] = got[inf] == want[inf]
    else:
        close = got == want
    bad = np.flatnonzero(~np.asarray(close).reshape(-1))
    if bad.size:
        i = int(bad[0])
        idx = list(np.unravel_index(i, shape)) if shape else []
        raise TestFailure('wrong-answer', f'output {index}: {bad.size} of '
                          f'{want.size} elements differ, first at {idx}: got '
                          f'{got.reshape(-1)[i]!r}, expected '
                          f'{want.reshape(-1)[i]!r}')


# --- Test data known to be defective ----------------------------------------
#
# A few expected outputs in the test data are wrong by the operator's current
# definition. Such a test is reclassified from wrong-answer to
# test-data-mismatch only when a checker proves it for this very run: the
# checker recomputes, in NumPy and independently of kiln, both the defective
# rule and the correct one from the test's inputs, and succeeds only if the
# expected output equals the defective rule and kiln's output equals the
# correct one. Anything else stays a wrong answer.

def bfloat16_bits_truncated(x):
    """float32 -> bfloat16 by dropping the low 16 bits."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    return (bits >> 16).astype(np.uint16)


def bfloat16_bits_nearest_even(x):
    """float32 -> bfloat16 rounded to nearest, ties to even (NaN stays a
    quiet NaN)."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    wide = bits.astype(np.uint64)
    rounded = (wide + 0x7FFF + ((wide >> 16) & 1)) >> 16
    quiet_nan = (wide >> 16) | 0x0040
    return np.where(np.isnan(x), quiet_nan, rounded).astype(np.uint16)


def same_bfloat16(a, b):
    """Bitwise equality of bfloat16 bit arrays, any NaN equal to any NaN."""
    a, b = a.reshape(-1), b.reshape(-1)
    nan_a, nan_b = (a & 0x7FFF) > 0x7F80, (b & 0x7FFF) > 0x7F80
    return a.shape == b.shape and bool(np.all(np.where(
        nan_a | nan_b, nan_a & nan_b, a == b)))


def check_bfloat16_truncated(model, inputs, expected, got):
    """Cast float32 -> bfloat16: ONNX 1.12's test data truncates, while the
    operator rounds to nearest even (onnx/onnx#3876, clarified in #5004;
    ONNX Runtime and kiln round). A note when proven, else None."""
    if len(inputs) != 1 or len(expected) != 1 or len(got) != 1:
        return None
    x = inputs[0]
    want = expected[0].view(np.uint16)
    have = got[0].view(np.uint16)
    truncated = bfloat16_bits_truncated(x)
    nearest = bfloat16_bits_nearest_even(x)
    differ = int(np.count_nonzero(truncated != nearest))
    if (differ == 0 or not same_bfloat16(want, truncated) or
            not same_bfloat16(have, nearest)):
        return None
    # Short enough (<= 110 characters) to be the list's note in full.
    return (f'expected output truncates to bfloat16, kiln\'s is NumPy\'s '
            f'round-to-nearest-even ({differ}/{x.size} differ; onnx#5004)')


def unpool_flat(x, indices, shape):
    """MaxUnpool's scatter: zeros of `shape`, y.flat[I[i]] = X.flat[i]."""
    y = np.zeros(int(np.prod(shape)), dtype=x.dtype)
    y[indices.reshape(-1)] = x.reshape(-1)
    return y.reshape(tuple(shape))


def check_maxunpool_padded(model, inputs, expected, got):
    """MaxUnpool with output_shape: ONNX 1.12's expected output scatters
    the indices into the shape inferred from kernel_shape/strides/pads and
    pads that at the end, while ONNX Runtime and PyTorch read the indices
    as flat offsets into output_shape
    (onnx/onnx#2398). A note when proven, else None."""
    if len(inputs) != 3 or len(expected) != 1 or len(got) != 1:
        return None
    x, indices, shape = inputs
    attrs = {a.name: onnx.helper.get_attribute_value(a)
             for a in model.graph.node[0].attribute}
    spatial = x.ndim - 2
    kernel = attrs['kernel_shape']
    strides = attrs.get('strides', [1] * spatial)
    pads = attrs.get('pads', [0] * (2 * spatial))
    inferred = list(x.shape[:2]) + [
        (x.shape[d + 2] - 1) * strides[d] - pads[d] - pads[d + spatial] +
        kernel[d] for d in range(spatial)]
    extra = [int(s) - i for s, i in zip(shape, inferred)]
    if min(extra) < 0:
        return None
    padded = np.pad(unpool_flat(x, indices, inferred),
                    [(0, e) for e in extra])
    flat = unpool_flat(x, indices, shape)
    if (np.array_equal(padded, flat) or
            not np.array_equal(expected[0], padded) or
            not np.array_equal(got[0], flat)):
        return None
    return ('expected output pads an unpool into the inferred shape; kiln\'s '
            'scatters flat into output_shape (onnx#2398)')


# test name -> checker(model, inputs (frozen ones included), expected outputs,
# kiln's outputs) -> note or None
KNOWN_DEFECTIVE_DATA = {
    'test_cast_FLOAT_to_BFLOAT16': check_bfloat16_truncated,
    'test_maxunpool_export_with_output_shape': check_maxunpool_padded,
}


def explain_wrong_answer(name, model, inputs, failure, expected, got):
    """`failure`, or a test-data-mismatch when a checker proves the expected
    output defective and kiln's output right."""
    checker = KNOWN_DEFECTIVE_DATA.get(name)
    if failure.category != 'wrong-answer' or checker is None:
        return failure
    note = checker(model, inputs, expected, got)
    if note is None:
        return failure
    return TestFailure('test-data-mismatch', note)


# --- One test ---------------------------------------------------------------

class Runner:
    def __init__(self, opts):
        self.opts = opts
        self.triple, self.cc, self.prefix = FLAVOURS[opts.arch]
        self.lock = threading.Lock()
        self.driver_obj = os.path.join(opts.work, 'driver.o')

    def build_driver(self):
        run(self.cc[:1] + ['-std=c11', '-O1', '-c', self.opts.driver, '-o',
                           self.driver_obj], 'link-error')

    def compile(self, model_path, work, freeze=(), loops=()):
        """`loops`: HLO control flow (`while`, `conditional`) the imported
        module must contain, so a loop the importer unrolled fails the test.
        The imported module, not the optimized one: loop simplification
        legitimately removes a loop of one iteration (the RNN tests'
        sequences of length 1, for example)."""
        out = os.path.join(work, 'kiln_model')
        cmd = [self.opts.kiln, 'compile', model_path, '--target', self.triple,
               '--name', 'kiln_model', '-o', out]
        cmd += [f'--freeze={spec}' for spec in freeze]
        if loops:
            cmd += ['--emit', 'dot']
        if self.opts.cpu:
            cmd += ['--cpu', self.opts.cpu]
        try:
            run(cmd, 'compile-error')
        except TestFailure as failure:
            if failure.category == 'compile-error':
                category, detail = classify_compile_error(failure.detail)
                raise TestFailure(category, failure.detail) from None
            raise
        if loops:
            with open(out + '.import.dot') as f:
                graph = f.read()  # node labels: "%name\nOPCODE shape"
            missing = [op for op in loops if f'\\n{op} ' not in graph]
            if missing:
                raise TestFailure('unrolled', 'the imported HLO has no '
                                  + ' or '.join(missing))
        with open(out + '.json') as f:
            manifest = json.load(f)
        exe = out + '.exe'
        run(self.cc + [self.driver_obj, out + '.o', '-o', exe, '-lm'],
            'link-error')
        return manifest, exe

    def run_data_set(self, test, manifest, exe, inputs, outputs, work):
        """Runs one data set; `test` is (name, model, all of the data set's
        inputs, frozen ones included) for explain_wrong_answer."""
        args = manifest['args']
        if len(inputs) != len(args):
            raise TestFailure('compile-error', f'the artifact takes {len(args)}'
                              f' args but the test gives {len(inputs)} inputs')
        cmd = self.prefix + [exe, str(manifest['arena']['bytes']),
                             str(manifest['arena']['alignment']), str(len(args))]
        for i, (arg, value) in enumerate(zip(args, inputs)):
            dtype = manifest_dtype(arg['dtype'])
            if dtype.kind == 'V' and value.dtype == np.uint16:
                value = value.view(dtype)  # bfloat16 test data as raw bits
            if value.dtype != dtype or list(value.shape) != arg['shape']:
                raise TestFailure('test-data-mismatch', f'arg {i} ({arg["name"]}) '
                                  f'is {arg["dtype"]}{arg["shape"]} but the test '
                                  f'input is {value.dtype}{list(value.shape)}')
            path = os.path.join(work, f'in{i}.bin')
            np.ascontiguousarray(value).tofile(path)
            cmd += [path, str(value.nbytes), str(dtype.itemsize)]
        results = manifest['results']
        cmd.append(str(len(results)))
        paths = []
        for i, res in enumerate(results):
            path = os.path.join(work, f'out{i}.bin')
            paths.append(path)
            cmd += [path, str(res['bytes']),
                    str(manifest_dtype(res['dtype']).itemsize)]
        run(cmd, 'runtime-error')
        got = [np.fromfile(path, dtype=manifest_dtype(res['dtype']))
               .reshape(res['shape']) for path, res in zip(paths, results)]
        try:  # a bounded output: its valid entries; its count is no output
            got = kilnrun.valid_results(manifest, got)
        except kilnrun.Failure as failure:
            raise TestFailure('wrong-answer', str(failure)) from None
        if len(got) != len(outputs):
            raise TestFailure('wrong-answer', f'{len(got)} results, '
                              f'expected {len(outputs)}')
        try:
            for i, (have, want) in enumerate(zip(got, outputs)):
                compare(i, have, want)
        except TestFailure as failure:
            raise explain_wrong_answer(*test, failure, outputs, got) from None

    def run_test(self, name):
        """(category or 'pass', detail)."""
        test_dir = os.path.join(self.opts.data, name)
        work = os.path.join(self.opts.work, name)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        model_path = os.path.join(test_dir, 'model.onnx')
        model = onnx.load(model_path)
        names = [i.name for i in model.graph.input]
        frozen = set()
        # Inputs are read only once the model compiled: sequence and optional
        # test data is not a TensorProto.
        for data_dir in sorted(glob.glob(os.path.join(test_dir,
                                                      'test_data_set_*'))):
            inputs = lambda: read_tensors(data_dir, 'input')
            manifest, exe, frozen = self.compile_freezing(
                model, model_path, inputs, work)
            values = inputs()
            kept = [v for n, v in zip(names, values) if n not in frozen]
            self.run_data_set((name, model, values), manifest, exe, kept,
                              read_tensors(data_dir, 'output'), work)
        if not self.opts.keep:
            shutil.rmtree(work, ignore_errors=True)
        note = f' (frozen: {", ".join(sorted(frozen))})' if frozen else ''
        return 'pass', note

    def compile_freezing(self, model, model_path, inputs, work):
        """Compiles, binding graph inputs that must be constants to this data
        set's values with `kiln compile --freeze NAME=FILE.npy` (the model
        file is not rewritten)."""
        frozen = {}
        names = [i.name for i in model.graph.input]
        while True:
            try:
                manifest, exe = self.compile(
                    model_path, work, self.freeze_specs(frozen, names, work),
                    expected_control_flow(model.graph, frozen))
                return manifest, exe, set(frozen)
            except TestFailure as failure:
                if (failure.category != 'not-aot:data-dependent-shape' or
                        self.opts.no_freeze):
                    raise
                values = inputs()
                targets = [t for t in inputs_to_freeze(
                    model, failure.detail, set(frozen))
                    if names.index(t) < len(values)]
                if not targets:
                    raise
                for target in targets:
                    frozen[target] = values[names.index(target)]

    @staticmethod
    def freeze_specs(frozen, names, work):
        """NAME=FILE.npy for every frozen input, the value saved by NumPy."""
        specs = []
        for name, value in frozen.items():
            path = os.path.join(work, f'frozen_{names.index(name)}.npy')
            np.save(path, value)
            specs.append(f'{name}={path}')
        return specs

    def attempt(self, name):
        try:
            category, detail = self.run_test(name)
        except TestFailure as failure:
            category, detail = failure.category, failure.detail
        except Exception as e:  # a harness bug still counts as a failure
            category, detail = 'harness-error', repr(e)
        return name, category, detail


# --- The expected-failure list ---------------------------------------------

def read_list(path):
    entries = {}
    if not os.path.exists(path):
        return entries
    with open(path) as f:
        for line in f:
            text = line.split('#', 1)
            fields = text[0].split()
            if not fields:
                continue
            note = text[1].strip() if len(text) > 1 else ''
            entries[fields[0]] = (fields[1] if len(fields) > 1 else '?', note)
    return entries


def short(detail, limit=110):
    line = ' '.join(detail.split())
    line = re.sub(r'^(error: )?\S*\.onnx: ', '', line)
    return line if len(line) <= limit else line[:limit - 3] + '...'


def write_list(path, entries):
    header = ('# ONNX node tests expected not to pass with kiln, one per line:\n'
              '#   test_name  category  # note\n'
              '# Regenerate with run_conformance.py --update-list (see README).\n'
              '# A wrong numerical answer may only appear as `wrong-answer`.\n')
    width = max([len(n) for n in entries] + [10])
    with open(path, 'w') as f:
        f.write(header)
        for name in sorted(entries):
            category, note = entries[name]
            line = f'{name:<{width}}  {category}'
            if note:
                line += f'  # {note}'
            f.write(line + '\n')


def check_results(results, expected):
    """Lines describing every mismatch with the list, and notes."""
    problems, notes = [], []
    for name, category, detail in results:
        listed = expected.get(name)
        if category == 'pass':
            if listed:
                problems.append(f'UNEXPECTED PASS {name} (listed as '
                                f'{listed[0]}): remove it from the list '
                                f'(--update-list)')
        elif not listed:
            problems.append(f'UNEXPECTED FAIL {name} [{category}]: '
                            f'{short(detail)}')
        elif category != listed[0]:
            if category in BAD_CATEGORIES or listed[0] in BAD_CATEGORIES:
                problems.append(f'CHANGED {name}: listed as {listed[0]}, now '
                                f'{category}: {short(detail)}')
            else:
                notes.append(f'note: {name} listed as {listed[0]}, now fails '
                             f'as {category}')
    return problems, notes


def update_list(path, results, expected):
    entries = dict(expected)
    for name, category, detail in results:
        if category == 'pass':
            entries.pop(name, None)
        elif name in expected and expected[name][0] == category:
            continue
        else:
            entries[name] = (category, short(detail))
    write_list(path, entries)


# --- Main -----------------------------------------------------------------

def op_types(graph):
    """The op types of a graph's nodes and of their subgraphs."""
    ops = set()
    for node in graph.node:
        ops.add(node.op_type)
        for attribute in node.attribute:
            if attribute.HasField('g'):
                ops |= op_types(attribute.g)
            for subgraph in attribute.graphs:
                ops |= op_types(subgraph)
    return ops


# Ops that must compile to a loop, whatever their trip count.
LOOP_OPS = {'Loop', 'Scan', 'RNN', 'GRU', 'LSTM'}


def expected_control_flow(graph, frozen):
    """The HLO control flow a model's top-level nodes must become: `while`
    for loops, `conditional` for an If whose condition is not frozen (a
    constant condition inlines its branch)."""
    ops = []
    if any(node.op_type in LOOP_OPS for node in graph.node):
        ops.append('while')
    if any(node.op_type == 'If' and node.input[0] not in frozen
           for node in graph.node):
        ops.append('conditional')
    return ops


def op_coverage(data, names, expected_failures):
    """{op type: first test in `names` expected to pass that uses it}."""
    first = {}
    for name in names:
        if name in expected_failures:
            continue
        model = onnx.load(os.path.join(data, name, 'model.onnx'),
                          load_external_data=False)
        for op in op_types(model.graph):
            first.setdefault(op, name)
    return first


def select_tests(opts):
    names = sorted(d for d in os.listdir(opts.data)
                   if os.path.isfile(os.path.join(opts.data, d, 'model.onnx')))
    if opts.sample:
        coverage = op_coverage(opts.data, names, read_list(opts.list))
        sample = (set(names[::SAMPLE_STRIDE]) | set(coverage.values()) |
                  (SAMPLE_EXTRA & set(names)))
        print(f'sample: {len(sample)} tests; every {SAMPLE_STRIDE}th, plus one '
              f'per op type ({len(coverage)} op types pass on x86-64)')
        names = sorted(sample)
    if opts.shard:
        index, count = (int(v) for v in opts.shard.split('/'))
        names = names[index::count]
    if opts.filter:
        names = [n for n in names if re.search(opts.filter, n)]
    return names


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--data', default='/usr/share/libonnx-testdata/data/node')
    p.add_argument('--work', required=True)
    p.add_argument('--arch', choices=sorted(FLAVOURS), default='x86_64')
    p.add_argument('--cpu', default='')
    p.add_argument('--sample', action='store_true',
                   help=f'run every {SAMPLE_STRIDE}th test and SAMPLE_EXTRA '
                   'only (AArch64)')
    p.add_argument('--filter', default='', help='regex on test names')
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--list', default=os.path.join(here, 'expected_failures.txt'))
    p.add_argument('--update-list', action='store_true',
                   help='rewrite the list from this run (keeps notes)')
    p.add_argument('--shard', default='',
                   help='K/N: run every Nth test starting at the Kth')
    p.add_argument('--results-json', default='',
                   help='also write [name, category, detail] rows here')
    p.add_argument('--from-results', nargs='*', default=[],
                   help='with --update-list: merge these --results-json '
                   'files instead of running tests')
    p.add_argument('--driver', default=os.path.join(here, 'driver.c'))
    p.add_argument('--keep', action='store_true', help='keep work files')
    p.add_argument('--no-freeze', action='store_true',
                   help='do not retry with --freeze (to count what it adds)')
    p.add_argument('--quiet', action='store_true',
                   help='print only failures and the summary')
    opts = p.parse_args()
    opts.work = os.path.abspath(os.path.join(
        opts.work, opts.arch + ('-' + opts.cpu if opts.cpu else '')))
    os.makedirs(opts.work, exist_ok=True)
    if not os.path.isdir(opts.data):
        print(f'error: no ONNX test data at {opts.data} '
              '(install libonnx-testdata: scripts/install-deps.sh)')
        return 1

    expected = read_list(opts.list)
    if opts.from_results:
        results = []
        for path in opts.from_results:
            with open(path) as f:
                results += [tuple(row) for row in json.load(f)]
        update_list(opts.list, results, expected)
        print(f'updated {opts.list} from {len(results)} results')
        return 0

    runner = Runner(opts)
    runner.build_driver()
    names = select_tests(opts)
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for name, category, detail in pool.map(runner.attempt, names):
            results.append((name, category, detail))
            if category == 'pass':
                if not opts.quiet:
                    print(f'PASS {name}{detail}', flush=True)
            elif not opts.quiet or name not in expected:
                print(f'FAIL {name} [{category}]: {short(detail, 300)}',
                      flush=True)

    if opts.results_json:
        with open(opts.results_json, 'w') as f:
            json.dump(results, f, indent=0)
    passed = sum(1 for r in results if r[1] == 'pass')
    failed = len(results) - passed
    categories = {}
    for _, category, _ in results:
        if category != 'pass':
            key = category.split(':')[0] if category.startswith(
                'unsupported-op') else category
            categories[key] = categories.get(key, 0) + 1
    frozen = sum(1 for r in results if r[1] == 'pass' and r[2])
    print('failures by category: ' + ', '.join(
        f'{k} {v}' for k, v in sorted(categories.items())))
    print(f'({frozen} of the passes compiled with shape inputs frozen)')

    if opts.update_list:
        update_list(opts.list, results, expected)
        print(f'updated {opts.list}')
        problems = []
    else:
        problems, notes = check_results(results, expected)
        for line in notes + problems:
            print(line)
        if problems:
            print(f'{len(problems)} mismatches with {opts.list}; if the '
                  'changes are intended, rerun with --update-list')
    print(f'{passed} passed, {failed} failed')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
