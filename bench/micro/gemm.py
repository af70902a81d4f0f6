"""gemm.py - The GEMM/GEMV micro-benchmark: writes one HLO module per size (an f32[M,K] parameter
dot a constant f32[K,N], the shape of a dense layer with its weights compiled in), compiles each
with kiln under its own --name, links them all with gemm_bench.c and OpenBLAS, and runs that once
per OpenBLAS core type the CPU can execute: Debian's OpenBLAS (DYNAMIC_ARCH) may pick an older
kernel than the CPU's best on recent CPUs, so kiln is compared with the fastest one."""
import json
import os
import subprocess
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
GEMM_SIZES = [64, 128, 256, 512, 1024]
GEMV_SIZES = [256, 512, 1024, 2048]
QUICK_GEMM, QUICK_GEMV = [64, 256], [256, 1024]

# OpenBLAS core type -> the /proc/cpuinfo flags its kernels execute.
CORETYPES = {
    'Haswell': {'avx2', 'fma'},
    'Zen': {'avx2', 'fma'},
    'SkylakeX': {'avx512f', 'avx512bw', 'avx512dq', 'avx512vl', 'avx512cd'},
    'Cooperlake': {'avx512f', 'avx512bw', 'avx512dq', 'avx512vl', 'avx512cd', 'avx512_bf16'},
}


def cpu_flags():
    for line in open('/proc/cpuinfo'):
        if line.startswith('flags'):
            return set(line.split(':', 1)[1].split())
    return set()


def hlo(name, m, k, n, b):
    """The module as HLO text; B's values spelled with %.9g, which reads back to the same f32."""
    rows = ',\n    '.join('{' + ', '.join('%.9g' % v for v in row) + '}' for row in b)
    return (f'HloModule {name}\n\nENTRY main {{\n'
            f'  a = f32[{m},{k}] parameter(0)\n'
            f'  b = f32[{k},{n}] constant({{\n    {rows}\n  }})\n'
            f'  ROOT c = f32[{m},{n}] dot(a, b), lhs_contracting_dims={{1}}, '
            f'rhs_contracting_dims={{0}}\n}}\n')


def kernels(quick):
    """[(name, M, K, N)]"""
    gemm, gemv = (QUICK_GEMM, QUICK_GEMV) if quick else (GEMM_SIZES, GEMV_SIZES)
    return [(f'gemm_{s}', s, s, s) for s in gemm] + [(f'gemv_{s}', 1, s, s) for s in gemv]


def build(kiln, work, quick, log):
    """Compiles every kernel and links gemm_bench; returns (exe, {name: compile seconds})."""
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(3)
    objs, inc, compile_s = [], [], {}
    for name, m, k, n in kernels(quick):
        b = (rng.random((k, n), dtype=np.float32) * 2 - 1).astype(np.float32)
        b.tofile(os.path.join(work, name + '.b.bin'))
        src = os.path.join(work, name + '.hlo')
        with open(src, 'w') as f:
            f.write(hlo(name, m, k, n, b))
        prefix = os.path.join(work, name)
        t0 = time.monotonic()
        subprocess.run([kiln, 'compile', src, '--name', name, '-o', prefix], check=True,
                       capture_output=True, text=True, timeout=3600)
        compile_s[name] = time.monotonic() - t0
        arena = json.load(open(prefix + '.json'))['arena']['bytes']
        inc.append(f'KERNEL({name}, {m}, {k}, {n}, {arena})\n')
        objs.append(prefix + '.o')
        log(f'  compiled {name} in {compile_s[name]:.1f} s')
    with open(os.path.join(work, 'kernels.inc'), 'w') as f:
        f.writelines(inc)
    exe = os.path.join(work, 'gemm_bench')
    subprocess.run(['gcc', '-std=c11', '-O2', '-I', work, '-I', '/usr/include/x86_64-linux-gnu',
                    os.path.join(HERE, 'gemm_bench.c')] + objs +
                   ['-o', exe, '-lopenblas', '-lm'], check=True)
    return exe, compile_s


def run(kiln, work, quick, log):
    """Returns {'coretypes': {corename: rows}, 'best': corename per kernel, 'rows': [...]}."""
    exe, compile_s = build(kiln, work, quick, log)
    budget, min_iters = ('0.3', '5') if quick else ('2', '20')
    flags = cpu_flags()
    runs = {}
    for coretype in [None] + [c for c, need in CORETYPES.items() if need <= flags]:
        env = dict(os.environ, OPENBLAS_NUM_THREADS='1')
        env.pop('OPENBLAS_CORETYPE', None)
        if coretype:
            env['OPENBLAS_CORETYPE'] = coretype
        out = subprocess.run([exe, work, budget, min_iters], env=env, capture_output=True,
                             text=True, check=True, timeout=3600).stdout
        res = json.loads(out)
        core = res['corename']
        label = (f'{core}, auto' if not coretype else core if core.lower() == coretype.lower()
                 else f'{coretype}->{core}')
        log(f'  OpenBLAS {label}: ' + ', '.join(f'{r["name"]} {r["blas_ms"]:.3f} ms'
                                                for r in res['kernels']))
        runs[label] = res['kernels']
    rows = []
    for i, (name, m, k, n) in enumerate(kernels(quick)):
        # The fastest OpenBLAS core type for this kernel; kiln's time from that same process.
        label, r = min(((lbl, ks[i]) for lbl, ks in runs.items()), key=lambda x: x[1]['blas_ms'])
        flop = 2.0 * m * k * n
        rows.append({'kernel': f'{"sgemm" if m > 1 else "sgemv"} {m}x{k}x{n}', 'name': name,
                     'kiln_ms': r['kiln_ms'], 'ref_ms': r['blas_ms'], 'reference': 'OpenBLAS',
                     'ref_variant': label, 'iters': r['iters'],
                     'kiln_gflops': flop / r['kiln_ms'] / 1e6, 'ref_gflops': flop / r['blas_ms'] / 1e6,
                     'compile_s': compile_s[name],
                     'match': 'yes' if r['max_rel_err'] <= 1e-3 else f'no: max rel err {r["max_rel_err"]}'})
    return {'rows': rows, 'openblas_runs': runs}
