#!/usr/bin/python3
"""report.py - size, memory and cycle estimate of the Cortex-M sample (docs/performance.md).

For each build of samples/cortex-m: Cortex-M4F (mps2-an386), Cortex-M7 (mps2-an500), Cortex-M33
(mps2-an505) and Cortex-M55 (mps3-an547), the M55 scalar and with Helium (--features +mve.fp):
  sizes   text, rodata (weights apart) and bss bytes of app.elf and of kiln's kws.o
          (llvm-readelf-19 section headers), and the model's arena;
  cycles  qemu-system-arm runs app.elf once with `-d in_asm,exec,nochain`: every translated
          block's instructions and how often each block ran. The blocks' instructions, as
          llvm-objdump-19 prints them from app.elf, go through llvm-mca-19 (the core's triple,
          -mcpu and features, 100 iterations, one code region per block); a block's cycles are
          its region's cycles per iteration, weighted by its executions (IT instructions, which
          llvm-mca does not model, are skipped). Blocks llvm-mca cannot read count one
          cycle per instruction (the report says how many instructions that is).
          llvm-mca's models charge 1 cycle for a multi-register load/store (LDM, STM, PUSH,
          POP, VLDM, VSTM) and nothing for a taken branch; the "adjusted" estimate adds what the
          cores' manuals give: on the M4, 1+N cycles for N registers and a 2-cycle pipeline
          refill per taken branch (the trace says which were taken); on the M7 (64-bit loads,
          branch prediction), N/2 cycles and no refill. The M4's manual lists VFMA at 3 cycles
          where llvm-mca's model issues one per cycle, and hardware reports vary (2 to 3 in
          unrolled runs): the M4's lines "VFMA 2" and "VFMA 3" charge every executed
          VFMA/VFMS/VMLA/VMLS that many cycles on top of "adjusted".
          LLVM 19 has no model of its own for the Cortex-M33: it schedules cortex-m33 with the
          M4's model (the report says so), and neither the M33's nor the M55's manual gives the
          per-instruction timings "adjusted" would add, so those rows are llvm-mca's alone.
          The Cortex-M55 has its own model (issue width 2, Helium's beats included).
  per MAC cycles / 2,656,768 multiply-adds, and milliseconds at 120 MHz; the issue's anchors.

Usage: report.py --kiln KILN --work DIR [--markdown] [--cores cortex-m33 ...]
"""
import argparse
import collections
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MACS = 2656768
CLOCK_HZ = 120e6
# (report name, --cpu, qemu board, kiln compile --features)
CORES = [('cortex-m4', 'cortex-m4', 'mps2-an386', ''), ('cortex-m7', 'cortex-m7', 'mps2-an500', ''),
         ('cortex-m33', 'cortex-m33', 'mps2-an505', ''),
         ('cortex-m55', 'cortex-m55', 'mps3-an547', ''),
         ('cortex-m55+mve.fp', 'cortex-m55', 'mps3-an547', '+mve.fp')]
TRIPLES = {'cortex-m4': 'thumbv7em-none-eabihf', 'cortex-m7': 'thumbv7em-none-eabihf',
           'cortex-m33': 'thumbv8m.main-none-eabihf', 'cortex-m55': 'thumbv8.1m.main-none-eabihf'}
# The scheduling model llvm-mca-19 uses for each --cpu (LLVM's ARM.td: cortex-m33 is a
# ProcessorModel with CortexM4Model), and the cores whose manuals give the cycles "adjusted" adds.
MCA_MODEL = {'cortex-m4': 'Cortex-M4', 'cortex-m7': 'Cortex-M7', 'cortex-m33': 'Cortex-M4',
             'cortex-m55': 'Cortex-M55'}
ADJUSTED = {'cortex-m4', 'cortex-m7'}
MCA_ITERATIONS = 100
MULTI_REGISTER = re.compile(r'^(v?ldm\w*|v?stm\w*|v?push|v?pop)(\.w)?\b')
M4_TAKEN_BRANCH_REFILL = 2
# Branches whose target becomes a label; the Armv8.1-M loop ends (LE, LETP) and starts (WLS,
# WLSTP) too, which LLVM's M55 model has no timing for: llvm-mca skips them (no cycle, as the
# M55's loop cache gives after a loop's first iteration).
BRANCH = re.compile(r'^((bl?x?|cbn?z)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?'
                    r'(\.[wn])?|letp|le|wlstp\.\d+|wls)$')  # not bkpt, bic, bfi
IT = re.compile(r'^it[te]*\s')
VPT = re.compile(r'^(vpst|vpt)([te]*)(?=\.|$)')  # its then/else letters: the predicated count - 1
FP_MULTIPLY_ADD = re.compile(r'^v(fm|ml)[as]\.f32\b')
HOT_BLOCKS = 6  # the blocks listed per core, most cycles first
ANCHORS = [('TFLite Micro + CMSIS-NN (int8, real M4 at 120 MHz)', 8.2),
           ('microTVM + CMSIS-NN (int8, real M4 at 120 MHz)', 4.5),
           ('goal for float', 3.0)]


def run(cmd, **kwargs):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        sys.exit(f'{" ".join(cmd)} exited {proc.returncode}:\n{(proc.stdout + proc.stderr)[-3000:]}')
    return proc.stdout


# --- sizes --------------------------------------------------------------------------------------

def section_sizes(path):
    """{name: (size, flags, type)} of the allocated sections (llvm-readelf-19 -SW)."""
    sizes = {}
    for m in re.finditer(r'^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)'
                         r'\s+[0-9a-f]+\s+(\S*A\S*)\s', run(['llvm-readelf-19', '-SW', path]), re.M):
        sizes[m[1]] = (int(m[3], 16), m[4], m[2])
    return sizes


def summarize_sizes(path):
    """text (code), rodata (read-only data but the weights), weights, data, bss bytes."""
    total = collections.Counter()
    for name, (size, flags, kind) in section_sizes(path).items():
        if name == '.stack':
            total['stack'] += size
        elif name == '.kiln_weights':
            total['weights'] += size
        elif 'X' in flags:
            total['text'] += size
        elif kind == 'NOBITS':
            total['bss'] += size
        elif 'W' in flags:
            total['data'] += size
        else:
            total['rodata'] += size
    return total


# --- the trace ----------------------------------------------------------------------------------

def trace_blocks(elf, machine, log):
    """Runs app.elf under qemu with the block log; returns ({pc: [(address, bytes)] of the
    block's instructions}, Counter of executions per pc, Counter of taken exits per pc: the
    next block did not start right after this one)."""
    run(['qemu-system-arm', '-M', machine, '-nographic', '-semihosting-config',
         'enable=on,target=native', '-kernel', elf, '-d', 'in_asm,exec,nochain', '-D', log],
        timeout=900)
    blocks, executions, taken = {}, collections.Counter(), collections.Counter()
    current, previous_end, previous = None, None, None
    with open(log) as f:
        for line in f:
            if line.startswith('Trace '):
                pc = int(line.split('[')[1].split('/')[1], 16)
                executions[pc] += 1
                if previous is not None and pc != previous_end:
                    taken[previous] += 1
                last_address, last_bytes = blocks.get(pc, [(pc, 0)])[-1]
                previous, previous_end, current = pc, last_address + last_bytes, None
            elif line.startswith('IN:'):
                current = []
            elif current is not None and line.startswith('0x'):
                # "0x00000086:  466f       mov  r7, sp" or "0x00000088:  f64e 5088  movw ..."
                address, rest = line.split(':', 1)
                halfwords = re.match(r'\s*((?:[0-9a-f]{4} ?)+)\s', rest)[1].split()
                if not current:
                    blocks.setdefault(int(address, 16), current)
                current.append((int(address, 16), 2 * len(halfwords)))
    os.remove(log)
    return blocks, executions, taken


# --- llvm-mca -----------------------------------------------------------------------------------

def attributes(features):
    """llvm-objdump/llvm-mca -mattr for kiln's --features (empty: the CPU's own)."""
    return [f'--mattr={features}'] if features else []


def disassembly(elf, cpu, features):
    """{address: (instruction text for llvm-mca, size in bytes)} of app.elf's code, and the
    functions' start addresses with their names, sorted."""
    text = run(['llvm-objdump-19', '-d', f'--triple={TRIPLES[cpu]}', f'--mcpu={cpu}',
                *attributes(features), elf])
    functions = sorted((int(a, 16), name) for a, name in re.findall(r'^([0-9a-f]+) <(.+)>:$',
                                                                      text, re.M))
    out, predicated = {}, 0
    for m in re.finditer(r'^\s*([0-9a-f]+):\s((?:[0-9a-f]{4} ?)+)\s*\t(\S+)(?:\t(.*))?$', text, re.M):
        mnemonic, operands = m[3], (m[4] or '')
        operands = re.sub(r'\s*@.*$', '', operands)
        if BRANCH.match(mnemonic):  # branch targets become a local label
            operands = re.sub(r'0x[0-9a-f]+(\s*<[^>]*>)?', '9f', operands)
        mnemonic, operands, predicated = unpredicated(mnemonic, operands, predicated)
        out[int(m[1], 16)] = (f'{mnemonic}\t{operands}'.strip(), 2 * len(m[2].split()))
    return out, functions


def unpredicated(mnemonic, operands, predicated):
    """(mnemonic, operands, instructions still predicated after this one) with Helium's VPT
    blocks taken apart: llvm-mca's assembler, like for IT, wants a VPT block whole, and QEMU may
    split one across translation blocks. `vpt.f32 gt, q5, zr` becomes its compare (`vcmp`), `vpst`
    a `nop` (a slot in the issue, as it takes one), and the 1-4 instructions they predicate
    (`vaddt.f32`, `vstrwe.32`) their unpredicated forms: the same work, as far as the model
    can tell."""
    block = VPT.match(mnemonic)
    if block:
        count = 1 + len(block[2])
        if block[1] == 'vpst':
            return 'nop', '', count
        return 'vcmp' + mnemonic[len(block[0]):], operands, count
    if predicated:
        base, dot, suffix = mnemonic.partition('.')
        return base[:-1] + dot + suffix, operands, predicated - 1
    return mnemonic, operands, 0


def merge_split_instructions(blocks, code):
    """The blocks with each instruction whole: QEMU 7.2's disassembler does not know the
    Armv8.1-M loop instructions (LE, WLS, ...) and logs their two halfwords as two lines; the
    second one (inside an instruction llvm-objdump decoded) joins the first."""
    merged = {}
    for pc, instructions in blocks.items():
        whole = []
        for address, size in instructions:
            start = whole[-1][0] if whole else None
            inside = start is not None and start + code.get(start, ('', 0))[1] > address
            if inside and address not in code:
                whole[-1] = (whole[-1][0], whole[-1][1] + size)
            else:
                whole.append((address, size))
        merged[pc] = whole
    return merged


def function_of(functions, pc):
    name = '?'
    for start, function in functions:
        if start > pc:
            break
        name = function
    return name


def it_complete(pc, lines, code):
    """A block's lines with every IT block whole, as llvm-mca's assembler requires: qemu may end
    a block right after an IT, whose conditional instructions then start the next block. The
    dangling IT is dropped and the next block gets it back (IT is not modeled either way)."""
    if lines and IT.match(lines[-1]):
        lines = lines[:-1]
    before = code.get(pc - 2)
    if before and IT.match(before[0]):
        lines = [before[0]] + lines
    return lines


def mca_cycles(blocks, code, cpu, features, wanted):
    """{pc: cycles per execution} from one llvm-mca run with a region per block; regions it
    cannot read are dropped and retried without."""
    regions = {pc: [code[a][0] for a, _ in blocks[pc] if a in code] for pc in wanted}
    regions = {pc: it_complete(pc, lines, code) for pc, lines in regions.items()
               if len(lines) == len(blocks[pc])}
    while regions:
        source, line_of = [], {}
        for pc, lines in regions.items():
            source.append(f'@ LLVM-MCA-BEGIN b{pc:x}')
            for text in lines:
                source.append(text)
                line_of[len(source)] = pc
            source += ['9:', '@ LLVM-MCA-END']
        proc = subprocess.run(['llvm-mca-19', f'-mtriple={TRIPLES[cpu]}', f'-mcpu={cpu}',
                               *attributes(features), f'-iterations={MCA_ITERATIONS}',
                               '-all-views=false',
                               '-skip-unsupported-instructions=lack-sched',
                               '-summary-view'], input='\n'.join(source) + '\n',
                              capture_output=True, text=True)
        bad = {line_of.get(int(n)) for n in re.findall(r'<stdin>:(\d+):\d+: error', proc.stderr)}
        if proc.returncode == 0 and not bad:
            found = re.findall(r'Code Region - b([0-9a-f]+)\s.*?Total Cycles:\s+(\d+)',
                               proc.stdout, re.S)
            return {int(pc, 16): int(c) / MCA_ITERATIONS for pc, c in found}
        if not bad - {None}:
            sys.exit(f'llvm-mca failed:\n{proc.stderr[-2000:]}')
        for pc in bad - {None}:
            del regions[pc]
    return {}


def multi_register_extra(text, cpu):
    """Cycles the core spends beyond llvm-mca's 1 on a load or store of N words (a d register
    is two)."""
    m = MULTI_REGISTER.match(text)
    if not m or '{' not in text or cpu not in ADJUSTED:
        return 0
    inside = text[text.index('{') + 1:text.index('}')]
    count = 0
    for part in inside.split(','):
        ends = re.findall(r'\d+', part)
        count += int(ends[-1]) - int(ends[0]) + 1 if '-' in part else 1
    if re.search(r'\bd\d', inside):
        count *= 2
    # M4: 1+N cycles in all; M7: N/2 (two words per cycle), llvm-mca's 1 included.
    return count if cpu == 'cortex-m4' else max(0, (count + 1) // 2 - 1)


def estimate(elf, name, cpu, machine, features, work):
    blocks, executions, taken = trace_blocks(elf, machine, os.path.join(work, f'{name}.log'))
    code, functions = disassembly(elf, cpu, features)
    blocks = merge_split_instructions(blocks, code)
    instructions = {pc: len(blocks[pc]) * n for pc, n in executions.items() if pc in blocks}
    total_instructions = sum(instructions.values())
    cycles = mca_cycles(blocks, code, cpu, features, [pc for pc in instructions])
    raw = adjusted = unread = 0.0
    multiply_adds = 0  # executed VFMA/VFMS/VMLA/VMLS instructions
    per_block = []
    for pc, n in executions.items():
        if pc not in blocks:
            continue
        per = cycles.get(pc)
        if per is None:
            per = len(blocks[pc])
            unread += len(blocks[pc]) * n
        extra = sum(multi_register_extra(code[a][0], cpu) for a, _ in blocks[pc] if a in code)
        refill = M4_TAKEN_BRANCH_REFILL * taken[pc] if cpu == 'cortex-m4' else 0
        raw += per * n
        adjusted += (per + extra) * n + refill
        multiply_adds += n * sum(1 for a, _ in blocks[pc]
                                 if a in code and FP_MULTIPLY_ADD.match(code[a][0]))
        per_block.append(((per + extra) * n + refill, pc, function_of(functions, pc), n,
                          len(blocks[pc]), per))
    per_block.sort(reverse=True)
    return {'instructions': total_instructions, 'blocks': len(instructions), 'raw': raw,
            'adjusted': adjusted, 'unread': unread, 'hot': per_block[:HOT_BLOCKS],
            'multiply_adds': multiply_adds}


def build(kiln, name, cpu, machine, features, work):
    directory = os.path.join(work, name)
    run(['make', '--no-print-directory', '-C', HERE, f'KILN={kiln}', f'BUILD={directory}',
         f'CPU={cpu}', f'MACHINE={machine}', f'FEATURES={features}'])
    return directory


def report(args):
    rows = []
    for name, cpu, machine, features in CORES:
        if args.cores and name not in args.cores:
            continue
        directory = build(os.path.abspath(args.kiln), name, cpu, machine, features, args.work)
        app = summarize_sizes(os.path.join(directory, 'app.elf'))
        model = summarize_sizes(os.path.join(directory, 'kws.o'))
        arena = int(re.search(r'#define KWS_ARENA_SIZE (\d+)',
                              open(os.path.join(directory, 'kws.h')).read())[1])
        rows.append((name, machine, app, model, arena,
                     estimate(os.path.join(directory, 'app.elf'), name, cpu, machine, features,
                              args.work)))
    print_tables(rows, args.markdown)


def print_tables(rows, markdown):
    def table(header, lines):
        if markdown:
            print('| ' + ' | '.join(header) + ' |')
            print('|' + '|'.join(' --- ' for _ in header) + '|')
            for line in lines:
                print('| ' + ' | '.join(str(c) for c in line) + ' |')
        else:
            widths = [max(len(str(c)) for c in col) for col in zip(header, *lines)]
            for line in [header] + lines:
                print('  '.join(str(c).ljust(w) for c, w in zip(line, widths)))
        print()

    table(['core', 'kws.o text', 'kws.o rodata', 'weights', 'app text', 'app rodata',
           'app bss', 'arena', 'stack'],
          [[cpu, model['text'], model['rodata'], app['weights'], app['text'], app['rodata'],
            app['bss'], arena, app['stack']] for cpu, _, app, model, arena, _ in rows])
    lines = []
    for cpu, machine, _, _, _, e in rows:
        core = cpu.split('+')[0]
        estimates = [(f'llvm-mca ({MCA_MODEL[core]} model)', e['raw'])]
        if core in ADJUSTED:
            estimates.append(('adjusted', e['adjusted']))
        if cpu == 'cortex-m4':
            estimates += [(f'VFMA {c}', e['adjusted'] + (c - 1) * e['multiply_adds'])
                          for c in (2, 3)]
        for kind, cycles in estimates:
            lines.append([cpu, machine, kind, e['instructions'], f'{cycles / 1e6:.2f} M',
                          f'{cycles / MACS:.2f}', f'{cycles / CLOCK_HZ * 1e3:.1f}'])
    table(['core', 'qemu board', 'estimate', 'instructions', 'cycles', 'cycles/MAC',
           'ms at 120 MHz'], lines)
    table(['core', 'block', 'function', 'executions', 'instructions', 'llvm-mca cycles',
           'share'],
          [[cpu, f'0x{pc:x}', name, n, count, f'{per:.1f}', f'{total / e["adjusted"]:.0%}']
           for cpu, _, _, _, _, e in rows for total, pc, name, n, count, per in e['hot']])
    for cpu, _, _, _, _, e in rows:
        print(f'{cpu}: {e["blocks"]} blocks, {e["multiply_adds"]} floating-point multiply-adds '
              f'executed; {e["unread"]:.0f} of {e["instructions"]} executed instructions in '
              f'blocks llvm-mca could not read (counted 1 cycle each)')
    print()
    table(['reference', 'cycles/MAC', 'ms at 120 MHz'],
          [[name, per, f'{per * MACS / CLOCK_HZ * 1e3:.0f}'] for name, per in ANCHORS])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--kiln', required=True)
    parser.add_argument('--work', required=True)
    parser.add_argument('--markdown', action='store_true')
    parser.add_argument('--cores', nargs='*',
                        help='report only these of ' + ', '.join(c[0] for c in CORES))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    report(args)


main()
