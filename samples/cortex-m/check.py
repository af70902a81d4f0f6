#!/usr/bin/python3
"""check.py - the Cortex-M sample as a test (ctest: samples-cortex-m4, -m7, -m33, -m55, -m55-mve,
-m33-cmake, -m55-mve-cmake).

Builds samples/cortex-m with its Makefile (--build make) or its CMakeLists.txt and the installed
kiln package (--build cmake: kiln_add_model, toolchain-cortex-m.cmake), runs app.elf under
qemu-system-arm, and checks:
  - the run exits 0 through semihosting and prints both results;
  - the results equal kiln's evaluator (`kiln run --reference`, float64 accumulation) on the
    same seeded input within float32 tolerances (the Cortex-M code uses fused multiply-add);
  - the weights are in the part's flash (.kiln_weights) and the arena in its RAM (.bss);
  - kws.o needs nothing from a C library: its only undefined symbols are the helpers the
    sample provides (aeabi.c, libm.c), and the link uses no other library (-nostdlib); the
    manifest's required_symbols lists exactly them; and no instruction of it is
    double-precision (.f64: the M4's FPU has none);
  - with --features (`kiln compile --features`, e.g. +mve.fp on the M55): the manifest's
    target.features ends with them, and with +mve/+mve.fp kws.o has Helium instructions
    (vector Q registers);
  - with --oversize: a 256-channel model is refused by `kiln compile --max-flash` writing
    nothing, and without the kiln-side limits the link fails against mps2.ld's regions.
Exits 77 (ctest: skipped) only when qemu-system-arm is not installed.

Usage: check.py --kiln PREFIX/bin/kiln --work DIR [--cpu cortex-m4 [--machine mps2-an386]]
                [--features +mve.fp] [--build make|cmake] [--oversize]
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SKIPPED = 77
# mps2.ld's regions (start, size): FLASH and RAM, where the Makefile puts them on each board.
PART_FLASH, PART_RAM = 512 * 1024, 128 * 1024
REGIONS = {'mps2-an505': ((0x10000000, PART_FLASH), (0x38000000, PART_RAM))}
DEFAULT_REGIONS = ((0x00000000, PART_FLASH), (0x20000000, PART_RAM))
TRIPLES = {'cortex-m4': 'thumbv7em-none-eabihf', 'cortex-m7': 'thumbv7em-none-eabihf',
           'cortex-m33': 'thumbv8m.main-none-eabihf',
           'cortex-m55': 'thumbv8.1m.main-none-eabihf'}
MACHINES = {'cortex-m4': 'mps2-an386', 'cortex-m7': 'mps2-an500', 'cortex-m33': 'mps2-an505',
            'cortex-m55': 'mps3-an547'}
RTOL, ATOL = 1e-4, 1e-6


class Failure(Exception):
    pass


def run(cmd, expect_ok=True):
    print('$ ' + ' '.join(cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    output = proc.stdout + proc.stderr
    if expect_ok and proc.returncode != 0:
        raise Failure(f'{os.path.basename(cmd[0])} exited {proc.returncode}:\n{output[-4000:]}')
    if not expect_ok and proc.returncode == 0:
        raise Failure(f'{" ".join(cmd)} succeeded, but it should have failed:\n{output[-2000:]}')
    return output


def make(args, build, *variables, target='all', expect_ok=True):
    return run(['make', '--no-print-directory', '-C', HERE, f'KILN={args.kiln}', f'BUILD={build}',
                f'CPU={args.cpu}', f'MACHINE={args.machine}', f'FEATURES={args.features}',
                *variables, target], expect_ok)


def qemu(args, elf):
    return run(['qemu-system-arm', '-M', args.machine, '-nographic', '-semihosting-config',
                'enable=on,target=native', '-kernel', elf])


def build_and_run(args, build):
    """Builds app.elf into `build` the chosen way, runs it; returns its output."""
    if args.build == 'make':
        output = make(args, build, target='run')
    else:
        prefix = os.path.dirname(os.path.dirname(args.kiln))
        run(['cmake', '-S', HERE, '-B', build, f'-DCMAKE_PREFIX_PATH={prefix}',
             f'-DCMAKE_TOOLCHAIN_FILE={os.path.join(HERE, "toolchain-cortex-m.cmake")}',
             f'-DKWS_CPU={args.cpu}', f'-DKWS_BOARD={args.machine}',
             f'-DKWS_FEATURES={args.features}'])
        run(['cmake', '--build', build])
        model = os.path.join(build, 'kiln', 'kws')  # where kiln_add_model writes kws.*
        for name in ('kws.o', 'kws.h', 'kws.json'):
            shutil.copy(os.path.join(model, name), build)
        for name in ('kws.onnx', 'kws_input.npy'):
            shutil.copy(os.path.join(build, 'model', name), build)
        output = qemu(args, os.path.join(build, 'app.elf'))
    print(output.strip())
    return output


def parse_results(output):
    """{name: float32 array} from the app's 'NAME: xxxxxxxx ...' lines."""
    results = {}
    for name, words in re.findall(r'^(logits|probs):((?: [0-9a-f]{8})+)$', output, re.M):
        bits = [int(w, 16) for w in words.split()]
        results[name] = np.array(struct.unpack(f'<{len(bits)}f', struct.pack(f'<{len(bits)}I',
                                                                              *bits)), np.float32)
    if set(results) != {'logits', 'probs'} or 'kws: done' not in output:
        raise Failure(f'the app did not print both results:\n{output}')
    return results


def check_against_evaluator(args, build, got):
    reference = os.path.join(build, 'reference')
    run([args.kiln, 'run', os.path.join(build, 'kws.onnx'), '--reference', '--input',
         f'input={os.path.join(build, "kws_input.npy")}', '--output-dir', reference])
    for name in ('logits', 'probs'):
        want = np.load(os.path.join(reference, f'{name}.npy')).reshape(-1)
        error = np.abs(got[name].astype(np.float64) - want).max()
        if got[name].shape != want.shape or not np.allclose(got[name], want, RTOL, ATOL):
            raise Failure(f'{name}: the Cortex-M run gives {got[name]}, the evaluator {want}')
        print(f'{name}: matches the evaluator (largest difference {error:.3g})')


def sections(elf):
    """{name: (address, size)} of app.elf's allocated sections (llvm-readelf-19 -S)."""
    out = {}
    for m in re.finditer(r'^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)'
                         r'\s+[0-9a-f]+\s+(\S*A\S*)\s', run(['llvm-readelf-19', '-SW', elf]), re.M):
        out[m[1]] = (int(m[2], 16), int(m[3], 16))
    return out


def inside(region, address, size):
    return region[0] <= address and address + size <= region[0] + region[1]


def check_placement(args, build):
    flash, ram = REGIONS.get(args.machine, DEFAULT_REGIONS)
    placed = sections(os.path.join(build, 'app.elf'))
    arena = re.search(r'#define KWS_ARENA_SIZE (\d+)', open(os.path.join(build, 'kws.h')).read())
    weights = placed.get('.kiln_weights')
    if not weights or not inside(flash, *weights) or weights[1] < 20000 * 4:
        raise Failure(f'.kiln_weights is not the weights in flash: {placed}')
    bss = placed.get('.bss')
    if not bss or not inside(ram, *bss) or bss[1] < int(arena[1]):
        raise Failure(f'.bss does not hold the {arena[1]}-byte arena in RAM: {placed}')
    print(f'weights: {weights[1]} bytes in flash at 0x{weights[0]:x}; arena of {arena[1]} bytes '
          f'in .bss ({bss[1]} bytes) in RAM at 0x{bss[0]:x}')


# What kiln's object may call, all provided by the sample itself.
PROVIDED = {'__aeabi_uldivmod', 'roundevenf'}


def check_undefined(build):
    undefined = set(run(['llvm-nm-19', '-u', '--format=just-symbols',
                         os.path.join(build, 'kws.o')]).split())
    if not undefined <= PROVIDED:
        raise Failure(f'kws.o calls {sorted(undefined - PROVIDED)}, which the sample does not '
                      f'provide')
    listed = set(json.load(open(os.path.join(build, 'kws.json')))['required_symbols'])
    if listed != undefined:
        raise Failure(f'kws.json lists required_symbols {sorted(listed)}, but kws.o calls '
                      f'{sorted(undefined)}')
    print(f'kws.o calls {sorted(undefined) or "nothing"} outside itself: no C library needed')


def check_single_precision(args, build):
    code = disassemble(args, build)
    doubles = re.findall(r'^\s*[0-9a-f]+:.*\t(v[\w.]*\.f64\b.*)$', code, re.M)
    if doubles:
        raise Failure(f'kws.o has double-precision instructions: {doubles[:5]}')
    print('kws.o: no double-precision instruction')


def disassemble(args, build):
    mattr = [f'--mattr={args.features}'] if args.features else []
    return run(['llvm-objdump-19', '-d', f'--triple={TRIPLES[args.cpu]}', f'--mcpu={args.cpu}',
                *mattr, os.path.join(build, 'kws.o')])


def check_features(args, build):
    """The manifest records --features, and a Helium build really has vector code."""
    listed = json.load(open(os.path.join(build, 'kws.json')))['target']['features'].split(',')
    wanted = args.features.split(',')
    # --features comes last (after the CPU's own), so it wins: the manifest ends with it.
    if listed[-len(wanted):] != wanted:
        raise Failure(f'kws.json target.features does not end with {wanted}: {listed}')
    if not {'+mve', '+mve.fp'} & set(wanted):
        return
    vector = re.findall(r'^\s*[0-9a-f]+:.*\t(v\w*(?:\.\w+)*\s+q\d.*)$',
                        disassemble(args, build), re.M)
    if not vector:
        raise Failure(f'kws.o was compiled with {args.features} but has no Helium instruction')
    print(f'kws.o: {len(vector)} Helium instructions, e.g. {vector[0].strip()}')


def check_oversize(args, work):
    wide = os.path.join(work, 'wide')
    refused = make(args, wide, 'CHANNELS=256', expect_ok=False)
    if not re.search(r'error: the model does not fit --max-flash 491520: it needs \d+ bytes of '
                     r'flash', refused) or os.path.exists(os.path.join(wide, 'kws.o')):
        raise Failure(f'kiln did not refuse the 256-channel model cleanly:\n{refused[-2000:]}')
    print('kiln compile --max-flash refuses the 256-channel model and writes nothing')
    linked = make(args, wide, 'CHANNELS=256', 'MODEL_FLASH=', 'MODEL_RAM=', expect_ok=False)
    if not re.search(r"ld.lld: error: .*will not fit in region 'FLASH'", linked):
        raise Failure(f'the link did not fail on the flash region:\n{linked[-2000:]}')
    print("without kiln's limits the link fails: the model will not fit in region 'FLASH'")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--kiln', required=True)
    parser.add_argument('--work', required=True)
    parser.add_argument('--cpu', default='cortex-m4')
    parser.add_argument('--machine', default='', help='qemu board (default: the core\'s)')
    parser.add_argument('--features', default='', help='kiln compile --features')
    parser.add_argument('--build', choices=['make', 'cmake'], default='make')
    parser.add_argument('--oversize', action='store_true')
    args = parser.parse_args()
    if args.cpu not in TRIPLES:
        parser.error(f'--cpu {args.cpu}: expected one of {", ".join(TRIPLES)}')
    args.machine = args.machine or MACHINES[args.cpu]
    if not shutil.which('qemu-system-arm'):
        print('SKIP: qemu-system-arm is not installed (scripts/install-deps.sh installs it)')
        return SKIPPED
    args.kiln = os.path.abspath(args.kiln)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    build = os.path.join(work, 'build')
    try:
        output = build_and_run(args, build)
        check_against_evaluator(args, build, parse_results(output))
        check_placement(args, build)
        check_undefined(build)
        check_single_precision(args, build)
        if args.features:
            check_features(args, build)
        if args.oversize:
            check_oversize(args, work)
    except Failure as e:
        print(f'FAIL: {e}', flush=True)
        return 1
    features = f' --features {args.features}' if args.features else ''
    print(f'PASS: {args.cpu}{features} on {args.machine}, built with {args.build}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
