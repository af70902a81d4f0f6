#!/usr/bin/python3
"""report.py - Renders WORK/results.json (bench.py) as Markdown and puts it into a document
between `<!-- bench:begin NAME -->` and `<!-- bench:end NAME -->`, replacing what was there (the
section is appended when the markers are missing), so rerunning the benchmark updates the numbers
in place and leaves every other section — the committed baseline, say — alone.
Usage: report.py RESULTS.json --out docs/performance.md [--section latest] [--command CMD]"""
import argparse
import math
import os
import re
import json

import mca

# The TF.js pose models, whose compile-time target is 5 s rather than 3 s.
POSE_MODELS = {'posenet', 'movenet-lightning'}


def fmt(x, digits=3):
    if x is None:
        return '—'
    if isinstance(x, int):
        return f'{x:,}'
    return f'{x:.{digits}g}' if abs(x) < 1000 else f'{x:,.0f}'


def ms(x):
    return '—' if x is None else (f'{x:.3f}' if x < 10 else f'{x:.1f}')


def ok(row):
    """Timed and with outputs that match the reference."""
    return 'kiln_ms' in row and row.get('match') == 'yes'


def match_cell(row):
    if 'error' in row:
        return 'error: ' + row['error'].replace('|', '/').replace('\n', ' ')[:160]
    note = f' ({row["match_note"]})' if row.get('match_note') else ''
    return (row['match'] + note).replace('|', '/')


def machine(res, command):
    m = res['machine']
    lines = [f'- Command: `{command}`' + (' (quick: fewer models and iterations; a smoke run)'
                                          if res.get('quick') else ''),
             f'- Machine: {m["cpu"]}, {m["cores"]} cores (shared); ISA: {", ".join(m["isa"])}',
             f'- Date: {m["date"]}; kiln commit `{m["commit"]}` ({m["kiln_version"]})',
             f'- References: OpenBLAS {m["openblas"]} (Debian), node {m["node"]}']
    refs = sorted({r['ref_version'] for part in ('models', 'conv')
                   for r in res.get(part, {}).get('rows', []) if 'ref_version' in r})
    if refs:
        lines[-1] += ', ' + ', '.join(refs)
    if 'peak' in res:
        p = res['peak']
        samples = p.get('samples', [p['peak_gflops']])
        lines.append(f'- One core\'s FMA peak (bench/micro/peak.c): **{p["peak_gflops"]:.1f} GFLOP/s** '
                     f'({p["isa"]}; ' + ', '.join(f'{k} {v:.1f}' for k, v in p['variants'].items()) +
                     f'), the highest of {len(samples)} samples across the run (' +
                     ', '.join(f'{x:.0f}' for x in samples) + ')')
    for part in ('peak', 'micro', 'conv', 'models'):
        if part in res and res[part].get('date') != m['date']:
            lines.append(f'- The {part} part is from an earlier run: {res[part]["date"]}, '
                         f'commit `{res[part]["commit"]}`')
    return lines


def ratio2(x):
    return '—' if x is None else f'{x:.2f}'


def arena_over_peak(row):
    """Arena bytes over the schedule's peak live bytes (1 = placement loses nothing)."""
    arena, peak = row.get('arena_bytes'), row.get('peak_live_bytes')
    return arena / peak if arena is not None and peak else None


def models_table(rows):
    out = ['| model | format | kiln ms | reference | reference ms | kiln/ref time | compile s | '
           'arena bytes | arena / peak live | object bytes | iterations | outputs match |',
           '|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|']
    for r in rows:
        out.append(f'| {r["model"]}{" (conv)" if r.get("conv_net") else ""} | {r["format"]} | '
                   f'{ms(r.get("kiln_ms"))} | {r["reference"]} | {ms(r.get("ref_ms"))} | '
                   f'{fmt(r.get("ratio"))} | {fmt(r.get("compile_s"), 2)} | '
                   f'{fmt(r.get("arena_bytes"))} | {ratio2(arena_over_peak(r))} | '
                   f'{fmt(r.get("object_bytes"))} | '
                   f'{fmt(r.get("iters"))} | {match_cell(r)} |')
    return out


def compile_table(rows):
    """Compile time per model: wall and CPU seconds, then each --time-phases phase's wall
    seconds (the phases as kiln printed them, in order)."""
    names = []
    for r in rows:
        for name, _, _ in r.get('compile_phases') or []:
            if name not in names:
                names.append(name)
    out = ['| model | wall s | CPU s | ' + ' | '.join(names) + ' |',
           '|---|---:|---:|' + '---:|' * len(names)]
    for r in rows:
        if r.get('compile_s') is None:
            continue
        wall = {n: w for n, w, _ in r.get('compile_phases') or []}
        out.append(f'| {r["model"]} | {fmt(r.get("compile_s"), 2)} | '
                   f'{fmt(r.get("compile_cpu_s"), 2)} | '
                   + ' | '.join(fmt(wall.get(n), 2) for n in names) + ' |')
    return out


def threads_table(rows):
    out = ['| model | kernels split | serial ms | threads | pooled ms | speed-up | '
           'split share of a serial run | reading another core\'s writes / own, GB/s |',
           '|---|---:|---:|---:|---:|---:|---:|---:|']
    for r in rows:
        cross = r.get('cross_core')
        probe = f'{cross["cross_gbps"]} / {cross["own_gbps"]}' if cross else ''
        out.append(f'| {r["model"]} | {r["split"]} of {r["kernels"]} | {ms(r["serial_ms"])} | '
                   f'{r["threads"]} | {ms(r["pooled_ms"])} | {r["speedup"]:.2f} | '
                   f'{100 * r["split_share"]:.1f}% | {probe} |')
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def micro_table(rows, peak):
    out = ['| kernel | kiln GFLOP/s | reference GFLOP/s | reference | kiln ÷ ref speed | '
           'kiln % of peak | kiln ms | compile s | outputs match |',
           '|---|---:|---:|---|---:|---:|---:|---:|---|']
    for r in rows:
        pct = (f'{100 * r["kiln_gflops"] / peak:.1f}%' if peak and 'kiln_gflops' in r else '—')
        speed = r['kiln_gflops'] / r['ref_gflops'] if 'kiln_gflops' in r else None
        ref = r['reference'] + (f' ({r["ref_variant"]})' if r.get('ref_variant') else '')
        out.append(f'| {r["kernel"]} | {fmt(r.get("kiln_gflops"))} | {fmt(r.get("ref_gflops"))} | '
                   f'{ref} | {fmt(speed)} | {pct} | {ms(r.get("kiln_ms"))} | '
                   f'{fmt(r.get("compile_s"), 2)} | {match_cell(r)} |')
    return out


def movement_top(row):
    """' (largest: NAME 1.2%)' for a conv net's largest kernel without arithmetic."""
    if not row.get('movement_top'):
        return ''
    return f' (largest: {row["movement_top"]} {100 * row["movement_top_share"]:.1f}%)'


def targets(res):
    """[(target, what was measured, met)]; a row without a valid measurement misses its target."""
    peak = res.get('peak', {}).get('peak_gflops')
    micro = res.get('micro', {}).get('rows', [])
    conv = res.get('conv', {}).get('rows', [])
    mrows = res.get('models', {}).get('rows', [])
    out = []

    def each(title, rows, value, good, label, unit='', valid=ok):
        if not rows:
            return
        vals = [(label(r), value(r) if valid(r) else None) for r in rows]
        text = ', '.join(f'{n} {"—" if v is None else fmt(v, 3) + unit}' for n, v in vals)
        out.append((title, text, all(v is not None and good(v) for _, v in vals)))

    big = [r for r in micro if r['name'] in ('gemm_256', 'gemm_512', 'gemm_1024')]
    each('sgemm, constant B, 256–1024: kiln ≥ 0.9 × best OpenBLAS', big,
         lambda r: r['kiln_gflops'] / r['ref_gflops'], lambda v: v >= 0.9, lambda r: r['name'])
    if peak:
        each('sgemm, constant B, 256–1024: kiln ≥ 60% of FMA peak', big,
             lambda r: 100 * r['kiln_gflops'] / peak, lambda v: v >= 60, lambda r: r['name'], '%')
    each('sgemv (M=1): kiln ≥ 1.2 × OpenBLAS', [r for r in micro if r['name'].startswith('gemv')],
         lambda r: r['kiln_gflops'] / r['ref_gflops'], lambda v: v >= 1.2, lambda r: r['name'])
    each('each conv layer: kiln ≥ 1.0 × ONNX Runtime (speed)', conv,
         lambda r: r['ref_ms'] / r['kiln_ms'], lambda v: v >= 1.0, lambda r: r['kernel'])
    onnx = [r for r in mrows if r['format'] == 'ONNX']
    each('every ONNX model: kiln/ORT time ≤ 1.0', onnx, lambda r: r['ratio'],
         lambda v: v <= 1.0, lambda r: r['model'])
    def geomean_at_most(title, rows, bound):
        """A target on the geometric mean of the rows' kiln/ORT ratios; any row without a valid
        measurement misses it."""
        if not rows:
            return
        ratios = [r['ratio'] for r in rows if ok(r)]
        g = geomean(ratios)
        missing = len(rows) - len(ratios)
        out.append((title, f'{fmt(g, 3)} over {len(ratios)} models' +
                    (f' ({missing} without a valid measurement)' if missing else ''),
                    g is not None and g <= bound and not missing))

    geomean_at_most('geometric mean of kiln/ORT time over the ONNX models ≤ 0.7', onnx, 0.7)
    convnets = [r for r in onnx if r.get('conv_net')]
    each('every ONNX conv net: kiln/ORT time ≤ 0.8', convnets, lambda r: r['ratio'],
         lambda v: v <= 0.8, lambda r: r['model'])
    geomean_at_most('geometric mean of kiln/ORT time over the ONNX conv nets ≤ 0.6', convnets,
                    0.6)
    each('every ONNX conv net: kernels without arithmetic (transpose, pad, concatenate, copy, '
         'gather) ≤ 5% of the profile', convnets, lambda r: 100 * r['movement_share'],
         lambda v: v <= 5, lambda r: r['model'] + movement_top(r), '%',
         valid=lambda r: r.get('movement_share') is not None)
    each('every TF model: kiln/TF.js-wasm time ≤ 0.4', [r for r in mrows if r['format'] == 'TF.js'],
         lambda r: r['ratio'], lambda v: v <= 0.4, lambda r: r['model'])
    each('every model: arena ≤ 1.1 × peak live bytes', mrows, arena_over_peak,
         lambda v: v <= 1.1, lambda r: r['model'],
         valid=lambda r: arena_over_peak(r) is not None)
    compiled = lambda r: r.get('compile_s') is not None  # noqa: E731
    each('every other model compiles in ≤ 3 s (wall)',
         [r for r in mrows if r['model'] not in POSE_MODELS], lambda r: r['compile_s'],
         lambda v: v <= 3.0, lambda r: r['model'], ' s', valid=compiled)
    each('the pose models compile in ≤ 5 s (wall)',
         [r for r in mrows if r['model'] in POSE_MODELS], lambda r: r['compile_s'],
         lambda v: v <= 5.0, lambda r: r['model'], ' s', valid=compiled)
    each('hot loops of GEMM, conv and depthwise ≥ 80% of the FMA bound (llvm-mca; cortex-a53, '
         'a55, a72, neoverse-n1)',
         [r for r in res.get('mca', {}).get('rows', []) if mca.is_goal(r)],
         lambda r: r['percent'], lambda v: v >= 80, lambda r: f'{r["kernel"]} {r["cpu"]}', '%',
         valid=lambda r: 'percent' in r)
    each('2 threads ≥ 1.6 × faster than 1 thread', res.get('threads', {}).get('rows', []),
         lambda r: r['speedup'], lambda v: v >= 1.6, lambda r: r['model'], '×',
         valid=lambda r: 'speedup' in r)
    return out


def render(res, command):
    lines = machine(res, command)
    peak = res.get('peak', {}).get('peak_gflops')
    if 'models' in res:
        rows = res['models']['rows']
        lines += ['', '#### Real models (median latency of one call, 1 thread)', '']
        lines += models_table(rows)
        g = geomean([r['ratio'] for r in rows if r['format'] == 'ONNX' and ok(r)])
        if g is not None:
            lines += ['', f'Geometric mean of kiln/ONNX Runtime time over the ONNX models with '
                      f'matching outputs: **{g:.3f}**.']
        if any(r.get('compile_phases') for r in rows):
            lines += ['', '#### Compile time (`kiln compile --time-phases`, seconds)', '']
            lines += compile_table(rows)
    micro = res.get('micro', {}).get('rows', []) + res.get('conv', {}).get('rows', [])
    if micro:
        lines += ['', '#### Micro-benchmarks (median of one call, 1 thread)', '']
        lines += micro_table(micro, peak)
    trows = res.get('threads', {}).get('rows', [])
    if trows:
        lines += ['', '#### Threads (`NAME_run_parallel` through `kiln/runtime_threads.h`, '
                  'medians of alternating calls)', '']
        lines += threads_table(trows)
    if res.get('mca', {}).get('rows'):
        lines += ['', '#### Hot loops against the FMA bound (llvm-mca-19 models, bench/mca.py)', '']
        lines += mca.table(res['mca']['rows'])
    t = targets(res)
    if t:
        lines += ['', '#### Targets', '', '| target | measured | |', '|---|---|---|']
        lines += [f'| {a} | {b} | {"met" if c else "**missed**"} |' for a, b, c in t]
    return '\n'.join(lines) + '\n'


def splice(doc, name, body):
    begin, end = f'<!-- bench:begin {name} -->', f'<!-- bench:end {name} -->'
    block = f'{begin}\n{body}{end}'
    pat = re.compile(re.escape(begin) + '.*?' + re.escape(end), re.S)
    if pat.search(doc):
        return pat.sub(lambda _: block, doc)
    return doc.rstrip('\n') + f'\n\n## Results ({name})\n\n{block}\n'


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('results')
    p.add_argument('--out', required=True)
    p.add_argument('--section', default='latest')
    p.add_argument('--command', default='bench/run.sh')
    opts = p.parse_args()
    res = json.load(open(opts.results))
    doc = open(opts.out).read() if os.path.exists(opts.out) else '# Performance\n'
    with open(opts.out, 'w') as f:
        f.write(splice(doc, opts.section, render(res, opts.command)))
    print(f'wrote the {opts.section} section of {opts.out}')


if __name__ == '__main__':
    main()
