#!/usr/bin/python3
"""movement_share.py - Compares the share of kernel time spent in kernels without arithmetic
(bench/models.py's movement_share: `kiln profile MODEL --runs 20`, events whose FLOPs are 0)
between two kiln binaries, alternating them call by call, and prints each run and the medians.

Usage: movement_share.py --kiln BEFORE --kiln AFTER [--pairs N] MODEL.onnx...
The machine is shared and noisy: compare medians of several pairs, never single runs."""
import argparse
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--kiln', action='append', required=True, help='a kiln binary (give two)')
    p.add_argument('--pairs', type=int, default=5, help='alternated runs per binary')
    p.add_argument('models', nargs='+')
    opts = p.parse_args()
    shares = {}
    with tempfile.TemporaryDirectory() as wdir:
        for model in opts.models:
            for i in range(opts.pairs):
                for kiln in opts.kiln:
                    share = models.movement_share(kiln, model, [], wdir)
                    if share is None:
                        continue
                    shares.setdefault((model, kiln), []).append(share[0])
                    print(f'{os.path.basename(model)} {kiln} run {i}: {share[0] * 100:.2f}% '
                          f'(largest {share[1]}: {share[2] * 100:.2f}%)', flush=True)
    for (model, kiln), values in shares.items():
        print(f'median {os.path.basename(model)} {kiln}: '
              f'{statistics.median(values) * 100:.2f}% over {len(values)} runs')


if __name__ == '__main__':
    main()
