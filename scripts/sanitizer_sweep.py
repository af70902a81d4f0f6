#!/usr/bin/env python3
"""Every real model and ONNX conformance model through a sanitized kiln.

sanitizer_sweep.py --tool build-sanitize/test/sanitizer/kiln-model-sweep
                   --work DIR [--jobs N] [--evaluate-max-flops N] [--cache DIR]

Each model gets what `kiln inspect` does (import, verify, the default
pipeline, buffer assignment, cost analysis), and is then printed as HLO,
parsed back, verified and evaluated by the reference evaluator on `kiln
check`'s seeded inputs (--evaluate-max-flops N skips the evaluation of
models costing more than N FLOPs, for a quicker local run). The work runs in
kiln-model-sweep (test/sanitizer/ModelSweep.cpp), which takes a list of
models, so a few processes do it all: a sanitized kiln takes about a third
of a second to start, which per conformance model would not fit the CI
budget. Each real model gets a process of its own, so the jobs share the
big ones evenly.

The oracle is the sanitizers and kiln's error contract, not numbers (those
are checked against ONNX, ONNX Runtime and TF.js in the normal suites): a
model passes, or is refused with a message (`rejected`: unsupported ops,
dynamic shapes). A sanitizer report, a signal, a timeout, a refusal without
a message or HLO that does not parse back fails the sweep, and names the
model the process was working on. Real models come from the cache
test/models/setup_refs.sh fills; a missing cache is an error, never a skip.
Needs /usr/bin/python3 (numpy and onnx, for test/models/run_models.py).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'test', 'models'))
import run_models  # noqa: E402  (the real-model list and each model's --shape)

CONFORMANCE = '/usr/share/libonnx-testdata/data/node'
SHARD_TIMEOUT = 1500
SANITIZER_REPORT = re.compile(r'ERROR: (Address|Leak)Sanitizer|runtime error:|'
                              r'SUMMARY: \w+Sanitizer')


def models(opts):
    """[(name, path, --shape values, bytes on disk)]."""
    out = []
    for test in sorted(glob.glob(os.path.join(CONFORMANCE, '*', 'model.onnx'))):
        out.append((f'conformance/{os.path.basename(os.path.dirname(test))}', test, [], 0))
    pkgs = os.path.join(opts.cache, 'pkgs')
    if not os.path.isdir(pkgs):
        sys.exit(f'sanitizer_sweep: error: no real models in {pkgs}; '
                 'run test/models/setup_refs.sh first')
    for name, (_, shapes, _) in run_models.ONNX_MODELS.items():
        path = run_models.onnx_model_path(name, pkgs, opts.cache)
        model = run_models.Model('onnx', name, path, shapes)
        out.append((f'onnx/{name}', model.path, shape_values(model), os.path.getsize(model.path)))
    for name in run_models.HUMAN_MODELS:
        model = run_models.Model('tfjs', name, os.path.join(pkgs, run_models.HUMAN, name + '.json'),
                                 run_models.HUMAN_SHAPES.get(name))
        size = sum(os.path.getsize(f) for f in model.files()[1:])
        out.append((f'tfjs/{name}', model.path, shape_values(model), size))
    return out


def shape_values(model):
    return [flag.split('=', 1)[1] for flag in model.dynamic()]


def run_shard(opts, index, shard):
    """{name: (outcome, detail)}; a dead or reporting process fails the
    model it had begun."""
    listing = os.path.join(opts.work, f'shard{index}.jsonl')
    with open(listing, 'w') as f:
        for name, path, shapes, _ in shard:
            f.write(json.dumps({'name': name, 'path': path, 'shapes': shapes}) + '\n')
    env = dict(os.environ, ASAN_OPTIONS='detect_leaks=1:abort_on_error=1',
               UBSAN_OPTIONS='print_stacktrace=1:halt_on_error=1')
    try:
        limit = opts.evaluate_max_flops if opts.evaluate_max_flops > 0 else -1
        proc = subprocess.run([opts.tool, '--evaluate-max-flops', str(limit), listing],
                              capture_output=True, text=True,
                              timeout=SHARD_TIMEOUT, cwd=opts.work, env=env)
        stdout, stderr, status = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as timeout:
        stdout = (timeout.stdout or b'').decode(errors='replace')
        stderr, status = f'timeout after {SHARD_TIMEOUT}s', None
    outcomes, begun = {}, None
    for line in stdout.splitlines():
        if line.startswith('begin '):
            begun = line[len('begin '):]
            continue
        name, outcome, seconds, detail = (line.split('\t') + ['', '', ''])[:4]
        outcomes[name] = (outcome, detail)
        opts.seconds[name] = float(seconds or 0)
        begun = None
    report = SANITIZER_REPORT.search(stderr)
    if begun is not None:  # died, or timed out, inside this model
        outcomes[begun] = ('FAIL', f'exit {status}: {stderr[-3000:]}')
    elif report or status not in (0, 1):  # e.g. LeakSanitizer at exit
        outcomes[f'shard {index} (after its last model)'] = (
            'FAIL', f'exit {status}: {stderr[-3000:]}')
    return outcomes


def plan_shards(selected, jobs):
    """Each real model alone, largest first, then the conformance models in
    `jobs` lists: the jobs take shards from this queue as they finish, so a
    few slow real models do not hold up one job while the other idles."""
    real = sorted((m for m in selected if m[3] > 0), key=lambda m: -m[3])
    small = [m for m in selected if m[3] == 0]
    return [[m] for m in real] + [small[i::jobs] for i in range(jobs) if small[i::jobs]]


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--tool', required=True, help='kiln-model-sweep of a sanitized build')
    p.add_argument('--work', required=True)
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--evaluate-max-flops', type=int, default=0,
                   help='evaluate only models costing at most this many FLOPs '
                        '(default 0: every model)')
    p.add_argument('--cache', default=os.environ.get(
        'KILN_TEST_CACHE', os.path.expanduser('~/.cache/kiln-test')))
    p.add_argument('--filter', default='', help='regex on model names')
    p.add_argument('--verbose', action='store_true', help='print every rejection')
    opts = p.parse_args()
    opts.tool, opts.work = os.path.abspath(opts.tool), os.path.abspath(opts.work)
    os.makedirs(opts.work, exist_ok=True)
    selected = [m for m in models(opts) if re.search(opts.filter, m[0])]
    shards = plan_shards(selected, opts.jobs)
    start, outcomes, opts.seconds = time.time(), {}, {}
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        for result in pool.map(lambda i: run_shard(opts, i, shards[i]),
                               range(len(shards))):
            outcomes.update(result)
    counts, failures = {}, []
    for name, (outcome, detail) in sorted(outcomes.items()):
        counts[outcome] = counts.get(outcome, 0) + 1
        if outcome == 'FAIL':
            failures.append(name)
            print(f'FAIL {name}: {detail}', flush=True)
        elif opts.verbose and 'rejected' in outcome:
            print(f'{outcome}: {name}: {detail}')
    if opts.verbose:
        slowest = sorted(opts.seconds.items(), key=lambda item: -item[1])[:10]
        print('slowest: ' + ', '.join(f'{name} {s:.1f} s' for name, s in slowest))
    unfinished = len(selected) - sum(1 for m in selected if m[0] in outcomes)
    summary = ', '.join(f'{n} {k}' for k, n in sorted(counts.items()))
    print(f'sanitizer sweep: {len(selected)} models: {summary}'
          f'{f", {unfinished} not reached" if unfinished else ""} ({time.time() - start:.0f} s)')
    if failures or unfinished:
        sys.exit(1)


if __name__ == '__main__':
    main()
