#!/usr/bin/python3
"""math_accuracy.py - Error of kiln's f32 transcendentals in ulps, measured.

Compiles one module per op (erf, sine, cosine, atan2, power, remainder) over
inputs chosen to stress each one (dense ranges, large sine arguments,
arguments next to multiples of pi/2, erf tails, negative bases with integer
exponents, results near overflow and underflow, remainders over the whole
exponent range), runs it on a flavour of test/e2e/run_e2e.py (natively or
under qemu) and compares each result with glibc's f64 function of the same
f32 inputs (NumPy), in f32 ulps of that reference. Prints the maximum and
99.9th percentile per input set, and the worst input.

  /usr/bin/python3 bench/math_accuracy.py --kiln build/tools/kiln/kiln \
      --work /tmp/math-acc [--arch cortex-m4] [--cpu CPU]
"""
import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'test', 'e2e'))
import run_e2e  # noqa: E402  (FLAVOURS, Harness, run)

N = 1 << 15
F32 = np.float32


def log_uniform(rng, lo, hi, n=N, signed=True):
    a = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    if signed:
        a *= rng.choice([-1.0, 1.0], n)
    return a.astype(F32)


def near_half_pi_multiples(rng, top):
    """f32 neighbours of k * pi/2 for random k < top: the worst cases of the
    reduction (the remainder loses the most bits there)."""
    k = rng.integers(1, top, N).astype(np.float64)
    base = (k * (np.pi / 2)).astype(F32)
    steps = rng.integers(-2, 3, N)
    return np.nextafter(base, np.where(steps > 0, np.inf, -np.inf).astype(F32)) \
        * (steps != 0) + base * (steps == 0)


def input_sets(rng):
    """(op, set name, operands, reference in f64)."""
    erf = np.vectorize(math.erf)
    sets = []
    for name, x in [('[-6, 6]', rng.uniform(-6, 6, N).astype(F32)),
                    ('tiny', log_uniform(rng, 1e-40, 1e-3)),
                    ('[0.8, 1.2]', rng.uniform(0.8, 1.2, N).astype(F32)),
                    ('[3, 4.5]', rng.uniform(3, 4.5, N).astype(F32))]:
        sets.append(('erf', name, [x], lambda x: erf(x)))
    for op, fn in [('sine', np.sin), ('cosine', np.cos)]:
        for name, x in [('[-10, 10]', rng.uniform(-10, 10, N).astype(F32)),
                        ('|x| < 2^20 pi/2', log_uniform(rng, 10, 2**20 * 1.57)),
                        ('|x| < 2^22 pi/2', log_uniform(rng, 2**20, 2**22 * 1.57)),
                        ('near k pi/2, k < 2^21', near_half_pi_multiples(rng, 2**21))]:
            sets.append((op, name, [x], fn))
    sets.append(('atan2', 'normal', [rng.standard_normal(N).astype(F32),
                                     rng.standard_normal(N).astype(F32)],
                 np.arctan2))
    sets.append(('atan2', 'wide magnitudes', [log_uniform(rng, 1e-30, 1e30),
                                              log_uniform(rng, 1e-30, 1e30)],
                 np.arctan2))
    sets.append(('power', 'x in [1e-3, 1e3], y in [-10, 10]',
                 [log_uniform(rng, 1e-3, 1e3, signed=False),
                  rng.uniform(-10, 10, N).astype(F32)], np.power))
    sets.append(('power', 'negative x, integer y',
                 [-log_uniform(rng, 0.1, 10, signed=False),
                  rng.integers(-30, 31, N).astype(F32)], np.power))
    big = log_uniform(rng, 1.5, 1e6, signed=False)
    sets.append(('power', 'results near overflow and underflow',
                 [big, (rng.uniform(-149, 127.9, N) / np.log2(big.astype(np.float64))).astype(F32)],
                 np.power))
    sets.append(('remainder', 'wide exponents',
                 [log_uniform(rng, 1e-44, 3e38), log_uniform(rng, 1e-44, 3e38)],
                 np.fmod))
    sets.append(('remainder', 'x/y up to 2^40',
                 [log_uniform(rng, 1, 1e12), log_uniform(rng, 1e-1, 10)], np.fmod))
    return sets


def ulps(got, want):
    """|got - want| in f32 ulps at want (want in f64); NaN/inf must match."""
    want32 = want.astype(F32)
    spacing = np.spacing(np.abs(want32)).astype(np.float64)
    err = np.abs(got.astype(np.float64) - want) / spacing
    special = ~np.isfinite(want) | ~np.isfinite(got)
    same = (np.isnan(want) & np.isnan(got)) | (got.astype(np.float64) == want)
    err[special] = np.where(same[special], 0.0, np.inf)
    return err


def measure(harness, op, name, operands, reference, work):
    arity = len(operands)
    params = '\n'.join(f'  p{i} = f32[{N}] parameter({i})' for i in range(arity))
    hlo = (f'HloModule acc, entry=main\nENTRY main {{\n{params}\n'
           f'  ROOT r = f32[{N}] {op}({", ".join(f"p{i}" for i in range(arity))})\n}}\n')
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, 'acc.hlo')
    open(path, 'w').write(hlo)
    manifest = harness.compile_case('acc', path, work)
    args = []
    for i, a in enumerate(operands):
        args.append(os.path.join(work, f'arg{i}.bin'))
        a.tofile(args[-1])
    table = os.path.join(work, 'table.c')
    run_e2e.write_table(table, 'acc', manifest)
    exe = os.path.join(work, 'acc.exe')
    run_e2e.run(harness.cc + ['-std=c11', '-I', work, table, harness.driver_obj,
                              os.path.join(work, 'acc.o'), '-o', exe] + harness.ldflags)
    out = os.path.join(work, 'result0.bin')
    run_e2e.run(harness.runner + [exe] + args + ['--', out])
    got = np.fromfile(out, dtype=F32)
    want = reference(*[a.astype(np.float64) for a in operands])
    err = ulps(got, want)
    worst = int(np.argmax(err))
    where = ', '.join(repr(float(a[worst])) for a in operands)
    print(f'| {op} | {name} | {err.max():.2f} | {np.percentile(err, 99.9):.2f} '
          f'| ({where}): {float(got[worst])!r} vs {float(want[worst])!r} |', flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--arch', choices=sorted(run_e2e.FLAVOURS), default='x86_64')
    p.add_argument('--cpu', default='')
    p.add_argument('--qemu-cpu', default='')
    p.add_argument('--work', required=True)
    p.add_argument('--compile-flag', action='append', default=[])
    p.add_argument('--only', default='', help='comma-separated ops')
    opts = p.parse_args()
    opts.driver = os.path.join(os.path.dirname(run_e2e.__file__), 'driver.c')
    opts.work = os.path.abspath(opts.work)
    os.makedirs(opts.work, exist_ok=True)
    harness = run_e2e.Harness(opts)
    harness.build_driver()
    print(f'{harness.flavour}: error in f32 ulps against glibc f64\n')
    print('| op | inputs | max | 99.9% | worst input: kiln vs reference |')
    print('| --- | --- | --- | --- | --- |')
    rng = np.random.default_rng(26)
    for op, name, operands, reference in input_sets(rng):
        if opts.only and op not in opts.only.split(','):
            continue
        measure(harness, op, name, operands, reference, os.path.join(opts.work, op))


if __name__ == '__main__':
    main()
