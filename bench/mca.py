#!/usr/bin/python3
"""mca.py - How close kiln's hot loops come to the FMA bound on in-order and out-of-order ARM
cores, by llvm-mca's models (issue 26, point 5). Needs no ARM hardware and no qemu.

For each kernel (small HLO modules, written here with seeded weights) and each CPU:
  1. `kiln compile --emit asm --target TRIPLE --cpu CPU` gives the assembly;
  2. its innermost loops are read from the comments LLVM's AsmPrinter writes on every basic
     block inside a loop ("=>This Inner Loop Header: Depth=N" on an innermost loop's header,
     "in Loop: Header=BBx" on its other blocks; a loop's body is its header's block and every
     block that names that header, in the order they appear), plus the loops inside inline
     assembly (a label and a later branch back to it between `//APP` and `//NO_APP`; an LLVM
     loop holding one is not innermost);
  3. the hot loop, on AArch64 and 32-bit ARM Linux: the innermost loop with an FMA that takes
     the most modeled time, its iterations (how often qemu-aarch64 / qemu-arm ran its header,
     counted from `-d exec,nochain` with the assembly linked into a driver that runs the model
     once on inputs of 0.5) times llvm-mca's cycles per iteration. On the Cortex-M targets (not
     run) and on a CPU llvm-mca has no model for: the innermost loop with the most FMAs;
  4. `llvm-mca-19 -mcpu=CPU` runs the loop body (its instructions, the back branch included)
     for ITERATIONS iterations: cycles per iteration = total cycles / ITERATIONS. On 32-bit ARM
     `-mattr` is the feature list kiln's manifest records: -mcpu alone enables no NEON there;
  5. the bound is the same for the loop's FMA instructions alone (on cortex-a9, without VFPv4:
     VMLA, VMUL and VADD), in their order and with their
     registers (so the accumulator chains stay), i.e. what the loop would cost if loads,
     address arithmetic and the branch were free;
  6. percentage = bound / cycles per iteration.
A loop of several blocks is modeled as if every block ran once per iteration (llvm-mca knows no
branches); the kernels' hot loops are single blocks.

Usage: mca.py --kiln KILN --work DIR [--json OUT] [--cpus TRIPLE:CPU ...]; bench.py's part
`mca` calls measure()."""
import argparse
import json
import os
import random
import re
import subprocess

ITERATIONS = 200
AARCH64 = 'aarch64-linux-gnu'
ARMV7 = 'armv7a-linux-gnueabihf'
THUMB = 'thumbv7em-none-eabihf'
# (triple, cpu): the AArch64 cores of issue 26 (neoverse-n1 stands in for the Pi 5's A76, which
# LLVM 19 models with the A57 model), 32-bit ARM Linux, then the Cortex-M cores. 32-bit ARM:
# cortex-a7 is kiln's default there, but LLVM 19 has only itineraries for it (and for the a8,
# and no AArch32 model of the a53), which llvm-mca cannot use: its row gives the loop, no
# cycles. cortex-a9 has a model (LLVM uses it for the a12, a15 and a17 too; NEON without VFPv4,
# so VMLA, no VFMA), and cortex-a72 is the A57 model in AArch32, i.e. a Raspberry Pi 4 running
# 32-bit Raspberry Pi OS. The VFPv3-D16 baseline (--cpu generic) has no model: no row.
CPUS = [(AARCH64, 'cortex-a53'), (AARCH64, 'cortex-a55'), (AARCH64, 'cortex-a72'),
        (AARCH64, 'neoverse-n1'), (ARMV7, 'cortex-a7'), (ARMV7, 'cortex-a9'),
        (ARMV7, 'cortex-a72'), (THUMB, 'cortex-m4'), (THUMB, 'cortex-m7')]
# The CPUs llvm-mca-19 has no scheduling model for (why, for the table).
NO_MODEL = {(ARMV7, 'cortex-a7'): 'no llvm-mca model (LLVM 19: itineraries only)'}
# The cores issue 26's goal (>= 80% of the bound) is set for: AArch64 only; the 32-bit ARM and
# Cortex-M rows are reported only.
GOAL_CPUS = {'cortex-a53', 'cortex-a55', 'cortex-a72', 'neoverse-n1'}
# The Linux targets whose loops are counted under qemu: (C cross compiler, qemu user emulator).
RUNNERS = {AARCH64: ('aarch64-linux-gnu-gcc', 'qemu-aarch64'),
           ARMV7: ('arm-linux-gnueabihf-gcc', 'qemu-arm')}


def is_goal(row):
    """Whether the row is one issue 26's 80% goal is set for (an AArch64 core of GOAL_CPUS)."""
    return row.get('triple') == AARCH64 and row['cpu'] in GOAL_CPUS


def cpu_label(row):
    """The table's CPU column: the core, with the architecture for 32-bit ARM Linux (where
    cortex-a72 means AArch32 code)."""
    return f'{row["cpu"]} (armv7a)' if row.get('triple') == ARMV7 else row['cpu']
# FMA mnemonics: AArch64 vector and scalar, ARM VFP/NEON fused and chained multiply-accumulate.
FMA = re.compile(r'^\s*(fmla|fmadd|vfma|vmla)(\.[\w.]+)?\s', re.I)
# On a 32-bit ARM core without VFPv4 (cortex-a9) kiln multiplies and adds apart, and LLVM
# chains the pair into a VMLA only where its VMLx heuristics allow: there the multiply-add work
# is VMLA, or VMUL and VADD.
UNFUSED = re.compile(r'^\s*(vmla|vmul|vadd)\.f32\s', re.I)


def multiply_adds(manifest):
    """The regex of the instructions that do the kernel's multiply-adds on the manifest's
    target: FMA, or UNFUSED where kiln's tuning has no fused multiply-add."""
    fused = ' fma' in manifest['target'].get('tuning', ' fma')
    return FMA if fused or not manifest['target']['triple'].startswith('arm') else UNFUSED
HEADER = re.compile(r'=>\s*This (Inner )?Loop Header: Depth=\d+')
IN_LOOP = re.compile(r'in Loop: Header=(\S+) Depth=\d+')
LABEL = re.compile(r'^(\.?L?\w+):')
BLOCK_COMMENT = re.compile(r'^\s*(//|@) %bb\.\d+:')
FUNCTION = re.compile(r'^\s*\.type\s+"?([^",]+)"?,\s*[@%]function')
# A conditional or unconditional branch to a label (AArch64 and ARM): its target.
BRANCH = re.compile(r'^(?:b(?:\.\w+)?|b\w\w|cbn?z\s+\w+,|tbn?z\s+\w+,\s*#\d+,)\s+(\.?\w+)$')


def values(rng, count):
    return ', '.join(f'{rng.uniform(-1, 1):.4g}' for _ in range(count))


def nested(shape, flat):
    """HLO literal text of `flat` (comma-separated numbers) in `shape`."""
    items = flat.split(', ')

    def build(dims, start):
        if len(dims) == 1:
            return '{' + ', '.join(items[start:start + dims[0]]) + '}', start + dims[0]
        parts = []
        for _ in range(dims[0]):
            text, start = build(dims[1:], start)
            parts.append(text)
        return '{ ' + ', '.join(parts) + ' }', start
    return build(shape, 0)[0]


def constant(rng, shape):
    count = 1
    for d in shape:
        count *= d
    return nested(shape, values(rng, count))


def kernels():
    """[(name, description, HLO text)], weights seeded so every run compiles the same code."""
    rng = random.Random(1)
    gemm = ('HloModule mca_gemm, entry=main\n\nENTRY main {\n'
            '  a = f32[64,256] parameter(0)\n'
            f'  b = f32[256,256] constant({constant(rng, [256, 256])})\n'
            '  ROOT c = f32[64,256] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n'
            '}\n')
    conv = ('HloModule mca_conv, entry=main\n\nENTRY main {\n'
            '  x = f32[1,28,28,32] parameter(0)\n'
            f'  w = f32[3,3,32,64] constant({constant(rng, [3, 3, 32, 64])})\n'
            '  ROOT c = f32[1,28,28,64] convolution(x, w), window={size=3x3 pad=1_1x1_1}, '
            'dim_labels=b01f_01io->b01f\n}\n')
    depthwise = ('HloModule mca_depthwise, entry=main\n\nENTRY main {\n'
                 '  x = f32[1,28,28,64] parameter(0)\n'
                 f'  w = f32[3,3,1,64] constant({constant(rng, [3, 3, 1, 64])})\n'
                 '  ROOT c = f32[1,28,28,64] convolution(x, w), window={size=3x3 pad=1_1x1_1}, '
                 'dim_labels=b01f_01io->b01f, feature_group_count=64\n}\n')
    return [('gemm', 'GEMM 64×256×256 (dot, constant B)', gemm),
            ('conv3x3', 'conv 3×3, 28×28×32→64, pad 1', conv),
            ('depthwise3x3', 'depthwise 3×3, 28×28×64, pad 1', depthwise)]


def is_instruction(line):
    s = line.strip()
    return bool(s) and not s.startswith(('.', '//', '@', ';', '#')) and not LABEL.match(s)


def strip_comment(line):
    for marker in ('//', '@'):
        i = line.find(marker)
        if i >= 0:
            line = line[:i]
    return line.rstrip()


def blocks(asm, asm_labels=frozenset()):
    """[(label, loop comments, instruction lines, function, holds an inline-assembly loop)]: a
    block starts at a label or at LLVM's `// %bb.N:` comment; the comment lines after it, before
    its first instruction, say which loop it is in. Inline assembly stays in its block (its
    labels, `asm_labels` among them, start none)."""
    out, function, app = [], None, False
    for line in asm.splitlines():
        stripped = line.strip()
        label = LABEL.match(stripped)
        if stripped in ('//APP', '@APP', '//NO_APP', '@NO_APP'):
            app = stripped.endswith('APP') and 'NO_' not in stripped
        elif FUNCTION.match(line):
            function = FUNCTION.match(line).group(1)
        elif app and label:
            if out and label.group(1).lstrip('.') in asm_labels:
                out[-1][4] = True
        elif label or BLOCK_COMMENT.match(line):
            out.append([label.group(1).lstrip('.') if label else None, '', [], function, False])
            out[-1][1] += line
        elif out and is_instruction(line):
            out[-1][2].append(strip_comment(line).strip())
        elif out and not out[-1][2]:
            out[-1][1] += line
    return out


def asm_loops(asm):
    """{(label, function): [instruction lines]} of the loops inside inline assembly (between
    LLVM's `//APP` and `//NO_APP`), which LLVM's loop comments do not see: a label, and the
    instructions from it to a later branch back to it in the same block, the branch included."""
    loops, function, app, labels = {}, None, False, {}
    for line in asm.splitlines():
        stripped = line.strip()
        if FUNCTION.match(line):
            function = FUNCTION.match(line).group(1)
        if stripped in ('//APP', '@APP'):
            app, labels = True, {}
            continue
        if stripped in ('//NO_APP', '@NO_APP'):
            app = False
            continue
        if not app:
            continue
        label = LABEL.match(stripped)
        if label:
            labels[label.group(1).lstrip('.')] = []
            continue
        if not is_instruction(line):
            continue
        instruction = strip_comment(line).strip()
        for body in labels.values():
            body.append(instruction)
        target = BRANCH.match(instruction)
        if target and target.group(1).lstrip('.') in labels:
            name = target.group(1).lstrip('.')
            loops[(name, function)] = list(labels.pop(name))
    return loops


def innermost_loops(asm):
    """{(header label, function): [instruction lines]} of every innermost loop: the loops inside
    inline assembly, and LLVM's innermost loops that hold none of them."""
    found = asm_loops(asm)
    loops, inner, outer = {}, set(), set()
    for label, comments, body, function, holds_asm_loop in blocks(asm, {n for n, _ in found}):
        header, in_loop = HEADER.search(comments), IN_LOOP.search(comments)
        if header and label:
            loop = label
            if header.group(1):
                inner.add(loop)
        elif in_loop:
            loop = in_loop.group(1)
        else:
            continue
        if holds_asm_loop:
            outer.add(loop)
        loops.setdefault((loop, function), []).extend(body)
    result = {key: body for key, body in loops.items() if key[0] in inner - outer}
    result.update(found)
    return result


def hot_loop(asm, fma=FMA):
    """((header, function), body, fma lines) of the innermost loop with the most FMAs (`fma`
    matches them), or None."""
    best = None
    for header, body in innermost_loops(asm).items():
        fmas = [i for i in body if fma.match(' ' + i)]
        if fmas and (best is None or len(fmas) > len(best[2])):
            best = (header, body, fmas)
    return best


def marked(asm, labels):
    """`asm` with a label `kiln_mca_loop_N:` right after the definition of labels[N] (a local
    symbol the linker keeps, where LLVM's `.L` labels are dropped)."""
    index = {label: n for n, label in enumerate(labels)}
    out = []
    for line in asm.splitlines():
        out.append(line)
        label = LABEL.match(line.strip())
        if label and label.group(1).lstrip('.') in index:
            out.append(f'kiln_mca_loop_{index[label.group(1).lstrip(".")]}:')
    return '\n'.join(out) + '\n'


DRIVER = """#include <stdlib.h>
#include <string.h>
#include "{header}"
/* Runs the model once on inputs of 0.5: mca.py counts the loops' executions under qemu. */
int main(void) {{
  const void *args[{up}_NUM_ARGS + 1];
  void *results[{up}_NUM_RESULTS + 1];
  size_t argSizes[] = {{{args}0}}, resultSizes[] = {{{results}0}};
  for (size_t i = 0; i < {up}_NUM_ARGS; ++i) {{
    float *a = malloc(argSizes[i] + 64);
    for (size_t j = 0; j < argSizes[i] / sizeof(float); ++j) a[j] = 0.5f;
    args[i] = a;
  }}
  for (size_t i = 0; i < {up}_NUM_RESULTS; ++i) results[i] = malloc(resultSizes[i] + 64);
  void *arena = aligned_alloc({up}_ARENA_ALIGN,
                              ({up}_ARENA_SIZE + {up}_ARENA_ALIGN) / {up}_ARENA_ALIGN * {up}_ARENA_ALIGN);
  return {name}_run(args, results, arena);
}}
"""
# `qemu-aarch64 -d exec,nochain` logs every translation block it runs: "Trace N: HOST [CS/PC/...]".
TRACE_PC = re.compile(rb'^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/')


def executions(triple, prefix, asm, manifest, loops):
    """{loop key: times its header ran} for `loops` (keys of innermost_loops), from one run of
    the build under qemu (RUNNERS): the assembly, with a global label at each loop header,
    linked with a driver that calls the model once; every translation block qemu executes is
    logged (-d exec,nochain), and a loop's header starts a block on every iteration."""
    keys = list(loops)
    name = manifest['name']
    with open(prefix + '.marked.s', 'w') as f:
        f.write(marked(asm, [label for label, _ in keys]))
    driver = prefix + '-driver.c'
    with open(driver, 'w') as f:
        f.write(DRIVER.format(name=name, up=name.upper(), header=os.path.basename(prefix) + '.h',
                              args=''.join(f'{name.upper()}_ARG{i}_SIZE, '
                                           for i in range(len(manifest['args']))),
                              results=''.join(f'{name.upper()}_RESULT{i}_SIZE, '
                                              for i in range(len(manifest['results'])))))
    exe = prefix + '.exe'
    compiler, emulator = RUNNERS[triple]
    subprocess.run([compiler, '-static', '-O1', '-I', os.path.dirname(prefix),
                    driver, prefix + '.marked.s', '-o', exe], check=True, capture_output=True)
    symbols = subprocess.run(['llvm-nm-19', exe], check=True, capture_output=True,
                             text=True).stdout
    address = {}
    for line in symbols.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].startswith('kiln_mca_loop_'):
            address[int(parts[0], 16)] = keys[int(parts[2][len('kiln_mca_loop_'):])]
    log = prefix + '.exec.log'
    subprocess.run([emulator, '-d', 'exec,nochain', '-D', log, exe], check=True,
                   capture_output=True)
    counts = dict.fromkeys(keys, 0)
    with open(log, 'rb') as f:
        for line in f:
            pc = TRACE_PC.match(line)
            if pc:
                key = address.get(int(pc.group(1), 16))
                if key:
                    counts[key] += 1
    os.remove(log)
    return counts


def timed_hot_loop(triple, cpu, prefix, asm, manifest):
    """The innermost loop with an FMA that takes the most modeled time: executions (from
    qemu) x llvm-mca's cycles per iteration. ((header, function), body, fmas, executions,
    cycles per iteration, its share of the modeled time of all innermost loops with an FMA,
    executed instructions of the loops llvm-mca failed on), or None. LLVM 19's Cortex-A9 model
    crashes (SIGFPE) on one of the Winograd transform loops: such a loop is left out of the
    choice and of the share, and the row says how many instructions it ran."""
    fma = multiply_adds(manifest)
    loops = {key: body for key, body in innermost_loops(asm).items()
             if any(fma.match(' ' + i) for i in body)}
    if not loops:
        return None
    counts = executions(triple, prefix, asm, manifest, loops)
    best, total, failed = None, 0.0, 0
    for key, body in loops.items():
        if not counts[key]:
            continue
        try:
            cycles = mca_cycles(triple, cpu, body, features(manifest))
        except subprocess.CalledProcessError:
            failed += counts[key] * len(body)
            continue
        total += counts[key] * cycles
        if best is None or counts[key] * cycles > best[3] * best[4]:
            best = (key, body, [i for i in body if fma.match(' ' + i)], counts[key], cycles)
    return best and best + (best[3] * best[4] / total, failed)


def features(manifest):
    """-mattr for llvm-mca on 32-bit ARM: the feature list kiln derived from the CPU (its
    manifest's target.features); elsewhere none (-mcpu is enough)."""
    triple = manifest['target']['triple']
    return manifest['target']['features'] if triple.startswith(('arm', 'thumb')) else ''


def mca_cycles(triple, cpu, lines, attributes=''):
    """llvm-mca's cycles per iteration of `lines` run back to back."""
    return mca_run(triple, cpu, lines, attributes)[0]


# A VLDM/VSTM of 1-4 consecutive D registers without write back (spill code) and the VLD1.64 /
# VST1.64 that moves the same bytes.
MULTIPLE_D = re.compile(r'^v(ld|st)mia\s+(\w+),\s*(\{d\d+(?:,\s*d\d+){0,3}\})$')


def mca_run(triple, cpu, lines, attributes=''):
    """(cycles per iteration, instructions rewritten): LLVM's Cortex-A9 model cannot time VLDM
    and VSTM ("unable to resolve scheduling class for write variant"), which spill code uses;
    for that model each one of 1-4 D registers is modeled as the VLD1.64 / VST1.64 of the same
    bytes, and the table says how many were."""
    command = ['llvm-mca-19', f'-mtriple={triple}', f'-mcpu={cpu}',
               *([f'-mattr={attributes}'] if attributes else []), f'-iterations={ITERATIONS}']
    out = subprocess.run(command, input='\n'.join(lines) + '\n', capture_output=True, text=True)
    rewritten = 0
    if out.returncode != 0 and 'write variant' in out.stderr:
        rewritten = sum(1 for line in lines if MULTIPLE_D.match(line))
        lines = [MULTIPLE_D.sub(r'v\g<1>1.64\t\3, [\2]', line) for line in lines]
        out = subprocess.run(command, input='\n'.join(lines) + '\n', capture_output=True,
                             text=True)
    if out.returncode != 0:
        raise subprocess.CalledProcessError(out.returncode, command, out.stdout, out.stderr)
    total = int(re.search(r'Total Cycles:\s+(\d+)', out.stdout).group(1))
    return total / ITERATIONS, rewritten


def compile_asm(kiln, work, name, hlo, triple, cpu):
    """(assembly, {function: manifest kernel}, manifest, output prefix)."""
    src = os.path.join(work, name + '.hlo')
    with open(src, 'w') as f:
        f.write(hlo)
    prefix = os.path.join(work, f'{name}-{triple.split("-")[0]}-{cpu}')
    subprocess.run([kiln, 'compile', src, '--target', triple, '--cpu', cpu, '--emit', 'asm',
                    '--name', name, '-o', prefix], check=True, capture_output=True, text=True)
    with open(prefix + '.json') as f:
        manifest = json.load(f)
    kinds = {k['function']: k['kernel'] for k in manifest.get('kernels', [])}
    with open(prefix + '.s') as f:
        return f.read(), kinds, manifest, prefix


def measure(kiln, work, log=print, cpus=None):
    """The table's rows for CPUS (or `cpus`, a subset of (triple, cpu) pairs)."""
    os.makedirs(work, exist_ok=True)
    rows = []
    for name, description, hlo in kernels():
        for triple, cpu in cpus or CPUS:
            row = {'kernel': name, 'description': description, 'cpu': cpu, 'triple': triple}
            try:
                asm, kinds, manifest, prefix = compile_asm(kiln, work, name, hlo, triple, cpu)
            except subprocess.CalledProcessError as e:
                row['error'] = (e.stderr or '').strip().splitlines()[-1:] or ['compile failed']
                row['error'] = row['error'][0]
                log(f'  {name} {cpu}: ERROR {row["error"]}')
                rows.append(row)
                continue
            modeled = (triple, cpu) not in NO_MODEL
            if triple in RUNNERS and modeled:
                timed = timed_hot_loop(triple, cpu, prefix, asm, manifest)
                loop = timed and timed[:3]
                if timed:
                    row.update(rule='time', executions=timed[3], share=100 * timed[5])
                    if timed[6]:
                        row['unmodeled'] = timed[6]
            else:
                loop = hot_loop(asm, multiply_adds(manifest))
                row['rule'] = 'FMAs'
            if not loop:
                row['error'] = 'no innermost loop with an FMA'
            else:
                (header, function), body, fmas = loop
                row.update(loop=header, function=function,
                           kernel_kind=kinds.get(function, function), instructions=len(body), fmas=len(fmas))
                if not modeled:
                    row['no_model'] = NO_MODEL[(triple, cpu)]
                    log(f'  {name} {cpu}: loop {header} in {function}, {len(body)} instructions, '
                        f'{len(fmas)} FMAs; {row["no_model"]}')
                    rows.append(row)
                    continue
                cycles, rewritten = mca_run(triple, cpu, body, features(manifest))
                row.update(cycles=cycles, bound=mca_cycles(triple, cpu, fmas, features(manifest)))
                if rewritten:
                    row['vldm_as_vld1'] = rewritten
                row['percent'] = 100 * row['bound'] / row['cycles']
                log(f'  {name} {cpu}: loop {header} in {function}, {len(body)} instructions, {len(fmas)} FMAs, '
                    f'{row["cycles"]:.1f} cycles/iteration, bound {row["bound"]:.1f}, '
                    f'{row["percent"]:.0f}%' +
                    (f', {row["executions"]} iterations, {row["share"]:.0f}% of the modeled loop time'
                     if 'executions' in row else ''))
            rows.append(row)
    return rows


def table(rows):
    out = ['| kernel | CPU | hot loop in (manifest kernel) | instructions | FMAs | iterations '
           '(share of loop time) | cycles / iteration | FMA bound | bound / cycles |',
           '|---|---|---|---:|---:|---:|---:|---:|---:|']
    for r in rows:
        if 'error' in r:
            out.append(f'| {r["description"]} | {cpu_label(r)} | — | — | — | — | — | — | '
                       f'error: {r["error"][:120].replace("|", "/")} |')
        elif 'no_model' in r:
            out.append(f'| {r["description"]} | {cpu_label(r)} | {r["kernel_kind"]} | '
                       f'{r["instructions"]} | {r["fmas"]} | not run (most FMAs) | — | — | '
                       f'{r["no_model"]} |')
        else:
            runs = (f'{r["executions"]} ({r["share"]:.0f}%)' if 'executions' in r
                    else 'not run (most FMAs)')
            if r.get('unmodeled'):
                runs += f'; llvm-mca failed on a loop of {r["unmodeled"]} executed instructions'

            count = (f'{r["instructions"]} ({r["vldm_as_vld1"]} VLDM/VSTM as VLD1/VST1)'
                     if r.get('vldm_as_vld1') else r['instructions'])
            out.append(f'| {r["description"]} | {cpu_label(r)} | {r["kernel_kind"]} | {count} | '
                       f'{r["fmas"]} | {runs} | {r["cycles"]:.1f} | {r["bound"]:.1f} | '
                       f'{r["percent"]:.0f}% |')
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--json', help='also write the rows here')
    p.add_argument('--cpus', nargs='*', help='only these TRIPLE:CPU pairs, e.g. '
                   f'{ARMV7}:cortex-a9 (default: all of CPUS)')
    opts = p.parse_args()
    cpus = [tuple(c.rsplit(':', 1)) for c in opts.cpus] if opts.cpus else None
    rows = measure(os.path.abspath(opts.kiln), os.path.abspath(opts.work), cpus=cpus)
    print('\n'.join(table(rows)))
    if opts.json:
        with open(opts.json, 'w') as f:
            json.dump(rows, f, indent=1)


if __name__ == '__main__':
    main()
