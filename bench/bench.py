#!/usr/bin/python3
"""bench.py - Runs the parts of kiln's benchmark and records the numbers in WORK/results.json
(bench/run.sh is the documented entry point: it builds kiln and installs the references first).

Parts (--only, comma-separated; default all): peak (the FMA peak of one core), micro (GEMM/GEMV
against OpenBLAS), conv (single conv layers against ONNX Runtime), models (the real models against
ONNX Runtime or TF.js wasm), threads (NAME_run_parallel on 2 threads against NAME_run, threads.py),
mca (llvm-mca's cycles of the hot loops on ARM cores against their FMA bound, mca.py; needs no
references). A part that runs replaces its entry in results.json and the others
are kept, so one part can be rerun and the report still shows everything."""
import argparse
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, 'micro'))
import conv_models  # noqa: E402
import gemm  # noqa: E402
import mca  # noqa: E402
import models  # noqa: E402
import threads  # noqa: E402

PARTS = ['peak', 'micro', 'conv', 'models', 'threads', 'mca']  # in the order they run
# Parts that run kiln's code next to a reference (the node addon, the installed references).
REFERENCE_PARTS = {'micro', 'conv', 'models', 'threads'}
# The ISA extensions that decide which kernels a CPU can run (shown in the report).
ISA_FLAGS = ['sse4_2', 'avx', 'avx2', 'fma', 'f16c', 'avx512f', 'avx512dq', 'avx512bw', 'avx512vl',
             'avx512_vnni', 'avx512_bf16', 'avx512_fp16', 'avx_vnni', 'amx_tile', 'amx_bf16']


def log(msg):
    print(msg, flush=True)


def log_row(row):
    if 'error' in row:
        log(f'  {row["model"]}: ERROR {row["error"]}')
    else:
        log(f'  {row["model"]}: kiln {row["kiln_ms"]:.3f} ms, {row["reference"]} '
            f'{row["ref_ms"]:.3f} ms, ratio {row["ratio"]:.2f}, compile {row["compile_s"]:.1f} s, '
            f'{row["iters"]} iters, match {row["match"]}')


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ''


def machine(kiln):
    model = next((ln.split(':', 1)[1].strip() for ln in sh(['lscpu']).splitlines()
                  if ln.startswith('Model name')), 'unknown')
    flags = gemm.cpu_flags()
    return {
        'cpu': model, 'cores': os.cpu_count(),
        'isa': [f for f in ISA_FLAGS if f in flags],
        'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC'),
        # KILN_BENCH_COMMIT: for a --kiln built from another tree than this checkout.
        'commit': os.environ.get('KILN_BENCH_COMMIT') or
                  sh(['git', '-C', REPO, 'describe', '--always', '--dirty', '--abbrev=12']),
        'kiln_version': sh([kiln, '--version']),
        'openblas': sh(['dpkg-query', '-W', '-f=${Version}', 'libopenblas0-pthread']) or
                    sh(['dpkg-query', '-W', '-f=${Version}', 'libopenblas0']),
        'node': sh(['node', '--version']),
    }


def peak(work, best=None):
    """One sample of the FMA peak; with `best` (an earlier result), the higher of the two, and
    every sample in 'samples'. The peak is sampled before and after every other part: a shared
    host's load moves the core's clock by several percent within one run, and the highest sample
    is the nearest to what the core can do (a lower one let tuned kernels exceed "100%")."""
    exe = os.path.join(work, 'peak')
    if not os.path.exists(exe):
        subprocess.run(['gcc', '-std=c11', '-O2', os.path.join(HERE, 'micro', 'peak.c'), '-o', exe],
                       check=True)
    res = json.loads(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)
    log(f'  FMA peak sample: {res["peak_gflops"]:.1f} GFLOP/s ({res["isa"]}); variants {res["variants"]}')
    samples = (best or {}).get('samples', []) + [res['peak_gflops']]
    if best and best['peak_gflops'] >= res['peak_gflops']:
        res = best
    return dict(res, samples=samples)


def conv(bench, work, quick):
    """Each conv layer as an ONNX model, timed like a real model; rows carry GFLOP/s."""
    rows = []
    d = os.path.join(work, 'conv-models')
    os.makedirs(d, exist_ok=True)
    for name in conv_models.LAYERS:
        path = os.path.join(d, name + '.onnx')
        conv_models.write(name, path)
        m = models.run_models.Model('onnx', name, path)
        row = bench.measure('onnx', path, name, models.seeded_inputs(m))
        log_row(row)
        if 'kiln_ms' in row:
            f = conv_models.flops(name)
            row['kiln_gflops'] = f / row['kiln_ms'] / 1e6
            row['ref_gflops'] = f / row['ref_ms'] / 1e6
        row['kernel'] = name
        rows.append(row)
    return rows


def run_threads(kiln, work, models_dir, quick):
    """threads.py's rows. As root, each measurement runs with its scheduling group at nice -19
    (--boost): on a shared host, autogroup scheduling otherwise gives the process one share of
    the machine however many threads it runs."""
    rows = threads.measure(kiln, os.path.join(work, 'threads'), models_dir,
                           runs=10 if quick else 100, boost=os.geteuid() == 0)
    for r in rows:
        log(f'  {r["model"]}: serial {r["serial_ms"]:.3f} ms, {r["threads"]} threads '
            f'{r["pooled_ms"]:.3f} ms, speed-up {r["speedup"]:.2f}x')
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--node-path', default='', help='node_modules of bench/package.json')
    p.add_argument('--models', default='', help='the model packages (setup_refs.sh models)')
    p.add_argument('--only', default=','.join(PARTS))
    p.add_argument('--quick', action='store_true')
    opts = p.parse_args()
    parts = opts.only.split(',')
    if set(parts) - set(PARTS):
        p.error(f'--only: parts are {",".join(PARTS)}')
    work, kiln = os.path.abspath(opts.work), os.path.abspath(opts.kiln)
    os.makedirs(work, exist_ok=True)
    results_path = os.path.join(work, 'results.json')
    results = json.load(open(results_path)) if os.path.exists(results_path) else {}
    results['machine'] = machine(kiln)
    results['quick'] = opts.quick

    bench = None
    needs = REFERENCE_PARTS & set(parts)
    if needs:
        if not opts.node_path or not opts.models:
            p.error(f'--node-path and --models are needed for {",".join(sorted(needs))}')
        addon = os.path.join(work, 'kiln_bench.node')
        subprocess.run(['bash', os.path.join(HERE, 'addon', 'build.sh'), opts.node_path, addon],
                       check=True)
        bench = models.Bench(kiln, work, opts.node_path, addon, opts.quick)

    def save():
        with open(results_path, 'w') as f:
            json.dump(results, f, indent=1)

    stamp = {'date': results['machine']['date'], 'commit': results['machine']['commit'],
             'quick': opts.quick}
    for part in PARTS:  # a fixed order: the peak first, while the machine is least warm
        if part not in parts:
            continue
        log(f'== {part}')
        if part == 'peak':
            results['peak'] = dict(peak(work), **stamp)
            continue  # sampled again after every other part, below
        elif part == 'micro':
            results['micro'] = dict(gemm.run(kiln, os.path.join(work, 'gemm'), opts.quick, log),
                                    **stamp)
        elif part == 'conv':
            results['conv'] = dict(rows=conv(bench, work, opts.quick), **stamp)
        elif part == 'models':
            results['models'] = dict(rows=models.run(bench, opts.models, opts.quick, log_row),
                                     **stamp)
        elif part == 'threads':
            results['threads'] = dict(rows=run_threads(kiln, work, opts.models, opts.quick),
                                      **stamp)
        elif part == 'mca':
            rows = mca.measure(kiln, os.path.join(work, 'mca'), log)
            log('\n'.join(mca.table(rows)))
            results['mca'] = dict(rows=rows, **stamp)
        if 'peak' in parts:
            results['peak'] = dict(peak(work, results['peak']), **stamp)
        save()
    log(f'results: {results_path}')


if __name__ == '__main__':
    main()
