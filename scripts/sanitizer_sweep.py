#!/usr/bin/env python3
"""Every real model and ONNX conformance model through a sanitized kiln.

sanitizer_sweep.py --kiln build-asan/tools/kiln/kiln --work DIR [--jobs N]
                   [--evaluate-max-bytes N] [--cache DIR]

For each model: `kiln inspect` (import, verify, the optimization pipeline,
buffer assignment, cost analysis); then, for models whose weights are at most
--evaluate-max-bytes (default 1 MiB: every conformance model and the small
real models), `kiln compile --no-opt --emit hlo` and `kiln run --reference`,
which evaluates the imported module with the reference evaluator on seeded
inputs. The oracle is the sanitizers and kiln's error contract, not numbers
(those are checked against ONNX, ONNX Runtime and TF.js in the normal suites):
each command must exit 0, or 1 with an `error:` line; a signal, a sanitizer
report, a timeout or any other exit status fails the sweep. Models kiln
rejects cleanly (unsupported ops, dynamic shapes) count as `rejected`.
Real models come from the cache test/models/setup_refs.sh fills; a missing
cache is an error, never a skip. Needs /usr/bin/python3 (numpy, onnx).
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'test', 'models'))
import run_models  # noqa: E402  (the real-model list and each model's --shape)

CONFORMANCE = '/usr/share/libonnx-testdata/data/node'
TIMEOUT = 300
SANITIZER_REPORT = re.compile(r'ERROR: (Address|Leak)Sanitizer|runtime error:|'
                              r'SUMMARY: \w+Sanitizer')
HLO_DTYPES = {'pred': np.bool_, 's8': np.int8, 's16': np.int16, 's32': np.int32,
              's64': np.int64, 'u8': np.uint8, 'u16': np.uint16, 'u32': np.uint32,
              'u64': np.uint64, 'f16': np.float16, 'f32': np.float32, 'f64': np.float64}
PARAMETER = re.compile(r'^\s*(?:ROOT\s+)?(\S+)\s*=\s*(\w+)\[([\d,]*)\]\S*\s+parameter\((\d+)\)')


class Finding(Exception):
    pass


class Rejected(Exception):
    """kiln refused the model with a clean error (exit 1, `error:`)."""


def run(cmd, work):
    """'ok'; Rejected for exit 1 with an `error:` line; Finding otherwise."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=work)
    except subprocess.TimeoutExpired:
        raise Finding(f'timeout after {TIMEOUT}s: {" ".join(cmd)}')
    report = SANITIZER_REPORT.search(proc.stderr)
    if report or proc.returncode not in (0, 1) or (
            proc.returncode == 1 and 'error:' not in proc.stderr):
        raise Finding(f'exit {proc.returncode}: {" ".join(cmd)}\n{proc.stderr[-3000:]}')
    if proc.returncode == 1:
        raise Rejected(next(line for line in proc.stderr.splitlines() if 'error:' in line))
    return 'ok'


def entry_parameters(hlo_path):
    """[(name, numpy dtype or None, shape)] of the entry computation."""
    params, in_entry = [], False
    with open(hlo_path) as f:
        for line in f:
            if line.startswith('ENTRY'):
                in_entry = True
            elif in_entry and line.startswith('}'):
                break
            elif in_entry and (m := PARAMETER.match(line)):
                shape = [int(d) for d in m.group(3).split(',') if d]
                params.append((int(m.group(4)), m.group(1), HLO_DTYPES.get(m.group(2)), shape))
    return [p[1:] for p in sorted(params)]


def seeded_input(dtype, shape, rng):
    if np.issubdtype(dtype, np.floating):
        return rng.random(shape).astype(dtype)
    return np.zeros(shape, dtype)  # valid as an index, a count or a flag


def evaluate(kiln, model, extra, work):
    prefix = os.path.join(work, 'm')
    run([kiln, 'compile', model, *extra, '--no-opt', '--emit', 'hlo', '-o', prefix], work)
    rng = np.random.default_rng(1)
    cmd = [kiln, 'run', prefix + '.hlo', '--reference', '--output-dir', work]
    for i, (name, dtype, shape) in enumerate(entry_parameters(prefix + '.hlo')):
        if dtype is None:
            return 'ok'  # an element type numpy cannot write (bfloat16): import only
        path = os.path.join(work, f'in{i}.npy')
        np.save(path, seeded_input(dtype, shape, rng))
        cmd += ['--input', f'{name}={path}']
    return run(cmd, work)


def sweep_one(opts, name, model, extra, weight_bytes):
    work = os.path.join(opts.work, re.sub(r'[^\w.-]', '_', name))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    outcome = 'imported'
    try:
        run([opts.kiln, 'inspect', model, *extra], work)
        if weight_bytes <= opts.evaluate_max_bytes and evaluated(name, opts):
            evaluate(opts.kiln, model, extra, work)
            outcome = 'evaluated'
    except Rejected as rejected:
        outcome = 'rejected' if outcome == 'imported' else 'evaluation rejected'
        if opts.verbose:
            print(f'{outcome}: {name}: {rejected}', flush=True)
    except Finding as finding:
        return name, 'FAIL', str(finding)
    shutil.rmtree(work, ignore_errors=True)
    return name, outcome, ''


def evaluated(name, opts):
    """Conformance models are evaluated one in --evaluate-every (a fixed
    sample, to bound the time); real models always (below the size cap)."""
    if not name.startswith('conformance/'):
        return True
    return int(hashlib.sha1(name.encode()).hexdigest(), 16) % opts.evaluate_every == 0


def models(opts):
    """[(name, path, extra kiln args, weight bytes)]."""
    out = []
    for test in sorted(glob.glob(os.path.join(CONFORMANCE, '*', 'model.onnx'))):
        out.append((f'conformance/{os.path.basename(os.path.dirname(test))}', test, [], 0))
    pkgs = os.path.join(opts.cache, 'pkgs')
    if not os.path.isdir(pkgs):
        sys.exit(f'sanitizer_sweep: error: no real models in {pkgs}; '
                 'run test/models/setup_refs.sh first')
    for name, (path, shapes, _) in run_models.ONNX_MODELS.items():
        base = run_models.HERE if path.split('/')[0] in run_models.LOCAL_DIRS else pkgs
        model = run_models.Model('onnx', name, os.path.join(base, path), shapes)
        out.append((f'onnx/{name}', model.path, model.dynamic(), os.path.getsize(model.path)))
    for name in run_models.HUMAN_MODELS:
        model = run_models.Model('tfjs', name, os.path.join(pkgs, run_models.HUMAN, name + '.json'),
                                 run_models.HUMAN_SHAPES.get(name))
        weights = sum(os.path.getsize(f) for f in model.files()[1:])
        out.append((f'tfjs/{name}', model.path, model.dynamic(), weights))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--evaluate-max-bytes', type=int, default=1 << 20)
    p.add_argument('--cache', default=os.environ.get(
        'KILN_TEST_CACHE', os.path.expanduser('~/.cache/kiln-test')))
    p.add_argument('--evaluate-every', type=int, default=1,
                   help='evaluate one conformance model in N (a fixed hash-based sample)')
    p.add_argument('--filter', default='', help='regex on model names')
    p.add_argument('--verbose', action='store_true', help='print every rejection')
    opts = p.parse_args()
    opts.kiln = os.path.abspath(opts.kiln)
    selected = [m for m in models(opts) if re.search(opts.filter, m[0])]
    start, counts, failures = time.time(), {}, []
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        for name, outcome, detail in pool.map(lambda m: sweep_one(opts, *m), selected):
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome == 'FAIL':
                failures.append(name)
                print(f'FAIL {name}: {detail}', flush=True)
    summary = ', '.join(f'{n} {k}' for k, n in sorted(counts.items()))
    print(f'sanitizer sweep: {len(selected)} models: {summary} ({time.time() - start:.0f} s)')
    if failures:
        sys.exit(1)


if __name__ == '__main__':
    main()
