"""models.py - Benchmarks whole models: compiles each with `kiln compile` (timed), links the object
into a shared library, and lets harness.js alternate it call by call with ONNX Runtime or TF.js
(wasm) on the seeded input of the model tests; checks kiln's outputs against the reference's.

The model list, their inputs and shape overrides come from test/models/run_models.py, so the
benchmark runs exactly the models and inputs the correctness tests run."""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'test', 'models'))
sys.path.insert(0, os.path.join(REPO, 'test', 'tf-ops'))
import kilnrun  # noqa: E402
import run_models  # noqa: E402
from kilnrun import Failure  # noqa: E402

RTOL, ATOL = run_models.RTOL, run_models.ATOL
HARNESS = os.path.join(HERE, 'harness.js')

ONNX_MODELS = ['fmnist_mlp', 'fmnist_cnn', 'alexa_v0.1', 'embedding_model', 'hey_jarvis_v0.1',
               'hey_mycroft_v0.1', 'hey_rhasspy_v0.1', 'melspectrogram', 'silero_vad',
               'timer_v0.1', 'weather_v0.1', 'blazeface-front', 'blazeface-back',
               'unet-mnv2-320']
TF_MODELS = ['liveness', 'emotion', 'iris', 'posenet', 'movenet-lightning', 'faceres-deep',
             'blazeface', 'handtrack']
QUICK = {'fmnist_cnn', 'hey_jarvis_v0.1', 'blazeface-front', 'liveness', 'emotion'}


class Timing:
    """How long harness.js measures each model (see harness.js for how the fields are used)."""

    def __init__(self, quick):
        self.warmup = 3 if quick else 10
        self.warmup_sec = 0.5 if quick else 1.5
        self.min_iters = 5 if quick else 20
        self.max_iters = 100000
        self.budget_sec = 0.5 if quick else 3.0
        self.cap_sec = 5.0 if quick else 30.0


class Bench:
    def __init__(self, kiln, work, node_path, addon, quick):
        self.kiln, self.work, self.node_path, self.addon = kiln, work, node_path, addon
        self.timing = Timing(quick)

    def compile(self, model_path, name, wdir, extra):
        """kiln compile -> (manifest, wall seconds, CPU seconds, phases); then PREFIX.so for
        the addon. Phases: [(name, wall s, cpu s)] from --time-phases."""
        prefix = os.path.join(wdir, name)
        cmd = [self.kiln, 'compile', model_path, '--name', name, '-o', prefix, '--time-phases']
        t0, c0 = time.monotonic(), os.times()
        proc = subprocess.run(cmd + extra, capture_output=True, text=True, timeout=3600)
        seconds = time.monotonic() - t0
        c1 = os.times()
        if proc.returncode != 0:
            raise Failure(f'kiln compile exited {proc.returncode}: '
                          + ' | '.join(proc.stderr.strip().splitlines()[-12:]))
        cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
        kilnrun.run(['gcc', '-shared', prefix + '.o', '-o', prefix + '.so'])
        with open(prefix + '.json') as f:
            return json.load(f), seconds, cpu, parse_phases(proc.stderr)

    def measure(self, kind, model_path, name, inputs, fetches=None, extra=(), label=None):
        """inputs: [(name, array)] in the reference's feed order. Returns a result row (dict)."""
        label = label or name
        wdir = os.path.join(self.work, 'models', re.sub(r'[^A-Za-z0-9_.-]', '_', label))
        os.makedirs(wdir, exist_ok=True)
        row = {'model': label, 'format': {'onnx': 'ONNX', 'tfjs': 'TF.js'}[kind],
               'reference': {'onnx': 'ONNX Runtime', 'tfjs': 'TF.js wasm'}[kind]}
        try:
            cname = re.sub(r'\W', '_', name)
            manifest, row['compile_s'], row['compile_cpu_s'], row['compile_phases'] = \
                self.compile(model_path, cname, wdir, list(extra))
        except Failure as e:
            row['error'] = 'kiln compile: ' + str(e)[:300]
            return row
        row['arena_bytes'] = manifest['arena']['bytes']
        # The schedule's lower bound on the arena; manifests before it existed lack it.
        row['peak_live_bytes'] = manifest['arena'].get('peak_live_bytes')
        row['object_bytes'] = os.path.getsize(os.path.join(wdir, cname + '.o'))
        row['weights_bytes'] = manifest.get('weights_bytes')
        feeds = []
        for k, (n, a) in enumerate(inputs):
            f = os.path.join(wdir, f'input_{k}.bin')
            a.tofile(f)
            feeds.append({'name': n, 'dtype': str(a.dtype) if a.dtype != np.bool_ else 'bool',
                          'shape': list(a.shape), 'file': f})
        try:
            order = run_models.match([a['name'] for a in manifest['args']], [n for n, _ in inputs],
                                     'args')
        except Failure as e:
            row['error'] = str(e)
            return row
        # order[i] = kiln arg index of feed i; the addon wants the feed index of each kiln arg.
        arg_feed = [order.index(j) for j in range(len(order))]
        t = self.timing
        job = {'kind': kind, 'model': model_path, 'addon': self.addon, 'dir': wdir, 'feeds': feeds,
               'fetches': fetches,
               'kiln': {'so': os.path.join(wdir, cname + '.so'), 'entry': manifest['entry'],
                        'args': [a['bytes'] for a in manifest['args']],
                        'results': [r['bytes'] for r in manifest['results']],
                        'arena': manifest['arena']['bytes'], 'order': arg_feed},
               'warmup': t.warmup, 'warmupSec': t.warmup_sec, 'minIters': t.min_iters,
               'maxIters': t.max_iters, 'budgetSec': t.budget_sec, 'capSec': t.cap_sec}
        job_path = os.path.join(wdir, 'job.json')
        with open(job_path, 'w') as f:
            json.dump(job, f)
        timing_path = os.path.join(wdir, 'timing.json')
        if os.path.exists(timing_path):
            os.remove(timing_path)
        env = dict(os.environ, NODE_PATH=self.node_path)
        proc = subprocess.run(['node', HARNESS, job_path], env=env, capture_output=True, text=True,
                              timeout=1800)
        if not os.path.exists(timing_path):
            row['error'] = 'harness: ' + (proc.stderr.strip()[-300:] or 'no timing.json')
            return row
        res = json.load(open(timing_path))
        if 'error' in res:
            row['error'] = 'harness: ' + res['error'][:300]
            return row
        row.update(kiln_ms=res['kiln_median_ms'], ref_ms=res['ref_median_ms'],
                   iters=len(res['kiln_ms']), ref_version=res['ref_version'])
        row['ratio'] = row['kiln_ms'] / row['ref_ms']
        row['match'] = self.check(wdir, manifest, res['ref_outputs'])
        if row['match'] != 'yes':
            row['wasm_mismatch'] = row['match'][len('no: '):]
        return row

    @staticmethod
    def check(wdir, manifest, ref_outputs, prefix='ref'):
        """'yes', or 'no: why' when kiln's results differ from the reference's beyond tolerance."""
        dt = {'bool': np.uint8}
        got = [(r['name'], np.fromfile(os.path.join(wdir, f'kiln_{i}.bin'),
                                       np.dtype(dt.get(r['dtype'], r['dtype']))).reshape(r['shape']))
               for i, r in enumerate(manifest['results'])]
        want = [(o['name'], np.fromfile(os.path.join(wdir, f'{prefix}_{i}.bin'),
                                        np.dtype(dt.get(o['dtype'], o['dtype']))).reshape(o['shape']))
                for i, o in enumerate(ref_outputs)]
        try:
            order = run_models.match([n for n, _ in got], [n for n, _ in want], 'results')
            for (wname, w), i in zip(want, order):
                kilnrun.compare(f'output {wname}', got[i][1], w, RTOL, ATOL)
        except Failure as e:
            return 'no: ' + str(e)[:200]
        return 'yes'


def parse_phases(stderr):
    """The rows of `kiln compile --time-phases` (docs/cli.md) as [(phase, wall s, cpu s)],
    without the total."""
    phases = []
    for line in stderr.splitlines():
        m = re.match(r'^(\S.*?)\s+([0-9.]+)\s+([0-9.]+)\s+[0-9.]+%$', line)
        if m and m.group(1) != 'total':
            phases.append((m.group(1), float(m.group(2)), float(m.group(3))))
    return phases


def seeded_inputs(m):
    """The model tests' input: mulberry32 seed 1 over the inputs in order (run_models.References)."""
    rng = kilnrun.Mulberry32(1)
    out = []
    for name, dtype, shape in m.inputs:
        spec = {'values': [m.fixed[name]]} if name in m.fixed else {}
        out.append((name, kilnrun.make_input(rng, dtype, shape, spec)))
    return out


def check_against_cpu_backend(bench, m, row):
    """TF.js's wasm backend (XNNPACK) rounds differently from its cpu backend, the model tests'
    reference. When kiln differs from wasm but matches the cpu backend's outputs for the same
    seeded input (the tests' cached reference, computed if missing), the outputs are right:
    the row counts as matching and says how far wasm is off."""
    cache = os.environ.get('KILN_TEST_CACHE', os.path.expanduser('~/.cache/kiln-test'))
    try:
        ref = run_models.References(cache, bench.work).get([m])[m]
    except Exception as e:  # no test references on this machine: keep the wasm verdict
        row['match'] += f' (TF.js cpu reference unavailable: {str(e)[:80]})'
        return
    if isinstance(ref, str):
        return
    inputs, outputs = ref
    if any(not np.array_equal(a, b) for (_, a), (_, b) in zip(inputs, seeded_inputs(m))):
        return
    wdir = os.path.join(bench.work, 'models', re.sub(r'[^A-Za-z0-9_.-]', '_', row['model']))
    manifest = json.load(open(os.path.join(wdir, re.sub(r'\W', '_', row['model']) + '.json')))
    cpu = [{'name': n, 'dtype': str(a.dtype), 'shape': list(a.shape)} for n, a in outputs]
    for i, (_, a) in enumerate(outputs):
        a.tofile(os.path.join(wdir, f'cpu_{i}.bin'))
    verdict = Bench.check(wdir, manifest, cpu, prefix='cpu')
    if verdict == 'yes':
        row['match'] = 'yes'
        row['match_note'] = ('matches TF.js cpu (the model tests\' reference); wasm differs: '
                             + row.pop('wasm_mismatch', ''))


def movement_share(kiln, model_path, extra, wdir):
    """The share of kiln's kernel time spent in kernels that do no arithmetic (CostAnalysis FLOPs
    0: transposes, pads, concatenates, copies, gathers and fusions of only those), from `kiln
    profile` (JIT, 20 timed runs), and the largest such kernel: (share, name, its share)."""
    trace = os.path.join(wdir, 'profile.trace.json')
    kilnrun.run([kiln, 'profile', model_path, '--runs', '20', '-o', trace] + list(extra))
    events = json.load(open(trace))['traceEvents']
    kernels = {}
    for e in events:
        if e.get('ph') == 'X' and e.get('cat') != 'run':
            name = e['name']
            moves = e['args'].get('flops', 1) == 0
            total, _ = kernels.get(name, (0.0, moves))
            kernels[name] = (total + e['dur'], moves)
    whole = sum(t for t, _ in kernels.values())
    moving = {n: t for n, (t, moves) in kernels.items() if moves}
    if not whole:
        return None
    top = max(moving, key=moving.get) if moving else None
    return (sum(moving.values()) / whole, top, moving[top] / whole if top else 0.0)


def has_conv(path):
    import onnx
    g = onnx.load(path, load_external_data=False).graph
    return any(n.op_type == 'Conv' for n in g.node)


def run(bench, models_dir, quick, log):
    """Benchmarks every real model; returns the rows."""
    h = run_models.Harness.__new__(run_models.Harness)  # only for its model constructors
    h.pkgs = models_dir
    h.opts = argparse.Namespace(cache=run_models.default_cache())  # generated models
    rows = []
    for name in ONNX_MODELS:
        if quick and name not in QUICK:
            continue
        m = h.onnx_model(name)
        row = bench.measure('onnx', m.path, name, seeded_inputs(m), extra=m.dynamic())
        row['conv_net'] = has_conv(m.path)
        if row['conv_net'] and 'error' not in row:
            wdir = os.path.join(bench.work, 'models', re.sub(r'[^A-Za-z0-9_.-]', '_', name))
            share = movement_share(bench.kiln, m.path, m.dynamic(), wdir)
            if share:
                row['movement_share'], row['movement_top'], row['movement_top_share'] = share
        log(row)
        rows.append(row)
    for name in TF_MODELS:
        if quick and name not in QUICK:
            continue
        m = h.tfjs_model(name)
        row = bench.measure('tfjs', m.path, name, seeded_inputs(m), fetches=m.fetches(),
                            extra=m.dynamic())
        if row.get('match', 'yes') != 'yes':
            check_against_cpu_backend(bench, m, row)
        log(row)
        rows.append(row)
    return rows
