#!/usr/bin/python3
"""scan_bench.py - a JAX-style scan (a while whose body reads row t of its
input with dynamic-slice and writes row t of its output with
dynamic-update-slice into loop state) compiled by kiln, against the same
arithmetic as a hand-written C loop (scan_bench.c). Not part of run.sh;
docs/performance.md, "Loop state updated in place".

    bench/micro/scan_bench.py --kiln build/tools/kiln/kiln --work /tmp/scan [--steps 2000] [--width 64] [--pairs 300]
"""
import argparse
import os
import subprocess

HLO = """HloModule scan, entry=main
cond {{
  s = (s32[], f32[{W}], f32[{T},{W}], f32[{T},{W}]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant({T})
  ROOT lt = pred[] compare(i, n), direction=LT
}}
body {{
  s = (s32[], f32[{W}], f32[{T},{W}], f32[{T},{W}]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  c = f32[{W}] get-tuple-element(s), index=1
  xs = f32[{T},{W}] get-tuple-element(s), index=2
  ys = f32[{T},{W}] get-tuple-element(s), index=3
  zero = s32[] constant(0)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  x = f32[1,{W}] dynamic-slice(xs, i, zero), dynamic_slice_sizes={{1,{W}}}
  xr = f32[{W}] reshape(x)
  a = f32[] constant(0.9)
  as = f32[{W}] broadcast(a), dimensions={{}}
  ca = f32[{W}] multiply(c, as)
  s1 = f32[{W}] add(ca, xr)
  f0 = f32[] constant(0)
  f0s = f32[{W}] broadcast(f0), dimensions={{}}
  c2 = f32[{W}] maximum(s1, f0s)
  row = f32[1,{W}] reshape(c2)
  ys2 = f32[{T},{W}] dynamic-update-slice(ys, row, i, zero)
  ROOT out = (s32[], f32[{W}], f32[{T},{W}], f32[{T},{W}]) tuple(next, c2, xs, ys2)
}}
ENTRY main {{
  c0 = f32[{W}] parameter(0)
  xs = f32[{T},{W}] parameter(1)
  zero = s32[] constant(0)
  fz = f32[] constant(0)
  ys0 = f32[{T},{W}] broadcast(fz), dimensions={{}}
  init = (s32[], f32[{W}], f32[{T},{W}], f32[{T},{W}]) tuple(zero, c0, xs, ys0)
  loop = (s32[], f32[{W}], f32[{T},{W}], f32[{T},{W}]) while(init), condition=cond, body=body
  ROOT ys = f32[{T},{W}] get-tuple-element(loop), index=3
}}
"""


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--kiln', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--steps', type=int, default=2000)
    p.add_argument('--width', type=int, default=64)
    p.add_argument('--pairs', type=int, default=300)
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    hlo = os.path.join(args.work, 'scan.hlo')
    with open(hlo, 'w') as f:
        f.write(HLO.format(T=args.steps, W=args.width))
    prefix = os.path.join(args.work, 'scan')
    subprocess.run([args.kiln, 'compile', hlo, '--name', 'scan', '-o', prefix],
                   check=True, stdout=subprocess.DEVNULL)
    exe = prefix + '_bench'
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(['gcc', '-O3', '-march=native', '-std=c11', '-I', args.work,
                    f'-DSCAN_STEPS={args.steps}', f'-DSCAN_WIDTH={args.width}',
                    os.path.join(here, 'scan_bench.c'), prefix + '.o', '-lm',
                    '-o', exe], check=True)
    subprocess.run([exe, str(args.pairs)], check=True)


if __name__ == '__main__':
    main()
