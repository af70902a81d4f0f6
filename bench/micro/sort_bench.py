#!/usr/bin/python3
"""sort_bench.py - A sort with a general comparator (kept as to_apply: not kiln's descending=
form): f32 keys with an s32 iota payload, one row of LENGTH elements, ordered by a NaN-last
comparator (lhs < rhs, or lhs is a number and rhs is NaN) that both old and new kiln read, and
by jnp.argsort's total-order comparator (type=TOTALORDER, new kiln only), on kiln profile's
seeded inputs (uniform in [0, 1)). The time is CPU time, not wall time: on a loaded shared host
a run longer than a scheduler slice is stretched by other processes, so wall-clock means jump by
10x and more between lengths. `kiln profile --no-opt --runs N` is run with N = 1 and N = 1 +
RUNS, and the difference of the two processes' user + system time, over RUNS, is one run's
(compilation and the untimed warm-up run cancel). Nothing asserts on these times.

Usage: bench/micro/sort_bench.py --kiln build/tools/kiln/kiln --work DIR
                                 [--before OLD_KILN] [--lengths 4096,65536] [--runs 5]
Prints a markdown table (the one in docs/performance.md, "Sort with a comparator")."""
import argparse
import os
import resource
import subprocess
import sys

NAN_LAST = '''  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  lt = pred[] compare(a, b), direction=LT
  anum = pred[] compare(a, a), direction=EQ
  bnan = pred[] compare(b, b), direction=NE
  last = pred[] and(anum, bnan)
  ROOT r = pred[] or(lt, last)'''

TOTAL_ORDER = '''  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER'''


def sort_module(length, comparator):
    return f'''HloModule sort_bench, entry=main

comparator {{
{comparator}
}}

ENTRY main {{
  x = f32[{length}] parameter(0)
  i = s32[{length}] iota(), iota_dimension=0
  ROOT s = (f32[{length}], s32[{length}]) sort(x, i), dimensions={{0}}, to_apply=comparator
}}
'''


def cpu_seconds(command):
    """User + system CPU time of running `command` to completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f'{" ".join(command)} failed:\n{result.stderr}')
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def profile_us(kiln, path, runs, work):
    """CPU microseconds of one run of the compiled module."""
    trace = os.path.join(work, os.path.basename(path) + '.trace.json')
    def timed(n):
        return cpu_seconds([kiln, 'profile', path, '--no-opt', '--runs', str(n), '-o', trace])
    return max(timed(1 + runs) - timed(1), 0.0) / runs * 1e6


def write(work, name, text):
    path = os.path.join(work, name)
    with open(path, 'w') as f:
        f.write(text)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kiln', required=True)
    parser.add_argument('--before', help='an older kiln to compare with (NaN-last only)')
    parser.add_argument('--work', required=True)
    parser.add_argument('--lengths', default='4096,65536')
    parser.add_argument('--runs', type=int, default=5)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    print('| length | comparator | kiln CPU us per run | before CPU us per run | before / kiln |')
    print('|---:|---|---:|---:|---:|')
    for length in (int(n) for n in args.lengths.split(',')):
        nan_last = write(args.work, f'nan_last_{length}.hlo', sort_module(length, NAN_LAST))
        total = write(args.work, f'total_{length}.hlo', sort_module(length, TOTAL_ORDER))
        now = profile_us(args.kiln, nan_last, args.runs, args.work)
        before = ''
        ratio = ''
        if args.before:
            old = profile_us(args.before, nan_last, args.runs, args.work)
            before, ratio = f'{old:.1f}', f'{old / now:.1f}x'
        print(f'| {length} | NaN last | {now:.1f} | {before} | {ratio} |')
        total_us = profile_us(args.kiln, total, args.runs, args.work)
        print(f'| {length} | TOTALORDER | {total_us:.1f} | | |')


if __name__ == '__main__':
    main()
