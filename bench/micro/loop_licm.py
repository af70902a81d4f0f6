#!/usr/bin/python3
"""loop_licm.py - What loop-invariant code motion saves: a counted while loop whose body
reduces a pass-through f32[ROWS,COLS] matrix (the same sum in every iteration) and adds it to a
small accumulator, compiled by kiln with and without `loop-invariant-code-motion`, next to the
reduction alone. With the pass the loop should cost about one reduction plus the loop's own
small work; without it, TRIPS reductions.

Both variants go through `kiln opt` (the default pipeline, or the same passes with the loop
hoisting left out) and are then timed by `kiln profile --no-opt`, which runs the JIT-compiled
module once untimed and RUNS times timed, and reports the mean per run. Times vary with the
machine's load; this only reports, nothing asserts on them.

Usage: bench/micro/loop_licm.py --kiln build/tools/kiln/kiln --work DIR
                                [--rows 1024] [--cols 1024] [--trips 64] [--runs 20]
Prints a markdown table (the one in docs/performance.md, "Loop-invariant code motion")."""
import argparse
import os
import re
import subprocess
import sys

# The default pipeline (lib/Transforms/Pipeline.cpp) without loop-invariant-code-motion, as
# one pass each: the simplification fixed point runs once, which is enough for this module.
WITHOUT_LICM = ('verify,constant-folding,algebraic-simplifier,cse,dce,while-loop-simplifier,'
                'transpose-hoisting,output-fusion,fusion,multi-output-fusion')


def loop_module(rows, cols, trips):
    state = f'(s32[], f32[{rows},{cols}], f32[{rows}])'
    return f'''HloModule loop_licm, entry=main

cond {{
  c_s = {state} parameter(0)
  c_i = s32[] get-tuple-element(c_s), index=0
  c_n = s32[] constant({trips})
  ROOT c_lt = pred[] compare(c_i, c_n), direction=LT
}}

body {{
  b_s = {state} parameter(0)
  b_i = s32[] get-tuple-element(b_s), index=0
  b_w = f32[{rows},{cols}] get-tuple-element(b_s), index=1
  b_acc = f32[{rows}] get-tuple-element(b_s), index=2
  b_one = s32[] constant(1)
  b_next = s32[] add(b_i, b_one)
  b_zero = f32[] constant(0)
  b_rows = f32[{rows}] reduce(b_w, b_zero), dimensions={{1}}, reducer=add
  b_half = f32[] constant(0.5)
  b_halves = f32[{rows}] broadcast(b_half), dimensions={{}}
  b_scaled = f32[{rows}] multiply(b_acc, b_halves)
  b_acc2 = f32[{rows}] add(b_scaled, b_rows)
  ROOT b_out = {state} tuple(b_next, b_w, b_acc2)
}}

ENTRY main {{
  w = f32[{rows},{cols}] parameter(0)
  acc = f32[{rows}] parameter(1)
  zero = s32[] constant(0)
  init = {state} tuple(zero, w, acc)
  loop = {state} while(init), condition=cond, body=body
  ROOT r = f32[{rows}] get-tuple-element(loop), index=2
}}
'''


def reduce_module(rows, cols):
    return f'''HloModule reduce_only, entry=main

ENTRY main {{
  w = f32[{rows},{cols}] parameter(0)
  zero = f32[] constant(0)
  ROOT sum = f32[{rows}] reduce(w, zero), dimensions={{1}}, reducer=add
}}
'''


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f'{" ".join(command)} failed:\n{result.stderr}')
    return result.stdout


def profile_us(kiln, path, runs, work):
    trace = os.path.join(work, os.path.basename(path) + '.trace.json')
    out = run([kiln, 'profile', path, '--no-opt', '--runs', str(runs), '-o', trace])
    match = re.search(r'([0-9.]+) us per run', out)
    if not match:
        sys.exit(f'no time in the output of kiln profile {path}:\n{out}')
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kiln', required=True)
    parser.add_argument('--work', required=True)
    parser.add_argument('--rows', type=int, default=1024)
    parser.add_argument('--cols', type=int, default=1024)
    parser.add_argument('--trips', type=int, default=64)
    parser.add_argument('--runs', type=int, default=20)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.work, 'loop.hlo')
    with open(source, 'w') as f:
        f.write(loop_module(args.rows, args.cols, args.trips))
    reduce_path = os.path.join(args.work, 'reduce_only.hlo')
    with open(reduce_path, 'w') as f:
        f.write(reduce_module(args.rows, args.cols))
    variants = {}
    for name, passes in (('with', 'default-pipeline'), ('without', WITHOUT_LICM)):
        path = os.path.join(args.work, f'loop_{name}_licm.hlo')
        run([args.kiln, 'opt', source, f'--passes={passes}', '-o', path])
        variants[name] = path
    # The hoisting must have happened in one variant only, or the comparison means nothing.
    body_reduces = {name: open(path).read().split('ENTRY')[0].count(' reduce(')
                    for name, path in variants.items()}
    if body_reduces['with'] != 0 or body_reduces['without'] == 0:
        sys.exit(f'unexpected placement of the reduction: {body_reduces}')
    reduce_us = profile_us(args.kiln, reduce_path, args.runs, args.work)
    with_us = profile_us(args.kiln, variants['with'], args.runs, args.work)
    without_us = profile_us(args.kiln, variants['without'], args.runs, args.work)
    shape = f'f32[{args.rows},{args.cols}]'
    print(f'| module ({args.trips} trips, {shape} reduced per trip) | us per run |')
    print('|---|---:|')
    print(f'| the reduction alone | {reduce_us:.1f} |')
    print(f'| loop, with loop-invariant-code-motion | {with_us:.1f} |')
    print(f'| loop, without it | {without_us:.1f} |')
    print(f'\nwithout / with: {without_us / with_us:.1f}x; '
          f'with - reduction alone: {with_us - reduce_us:.1f} us')


if __name__ == '__main__':
    main()
