#!/usr/bin/python3
"""run_e2e.py - End-to-end tests: compile every case with `kiln compile`, link
it with driver.c, run it (natively or under qemu) and compare its results with
`kiln run --reference` on the same seeded random inputs. The reference outputs
are kept under WORK/references (ReferenceCache), so of the flavours one ctest
run starts on the same kiln, only the first evaluates each case.

Case files live in cases/*.hlo. One file may hold several modules separated by
a line `// -----`. Lines starting with `//` are stripped before compiling; the
ones of the form `// e2e: key=value ...` are directives for the harness:
  // e2e: arg=N range=LO,HI     integers drawn from [LO, HI] for parameter N
  // e2e: arg=N values=a,b,c    parameter N drawn from this list
  // e2e: specials              mix NaN/inf/-0 (floats), min/max (ints) in
  // e2e: tol=RTOL,ATOL         float tolerance override for this module
  // e2e: cpu-only=x86_64       run only for that flavour (documented reason)
  // e2e: subnormals            the module computes subnormal operands: not
                                run (SKIP) where NEON flushes them to zero
Every opcode of Opcodes.def must occur in some case, or the run fails.

Float tolerances (rtol, atol) by result dtype, documented here because they
are the contract: float64 1e-12/1e-12, float32 2e-5/2e-5 (summation order and
transcendental approximations differ from the evaluator's libm by a few ulps),
float16 1e-2/1e-2, and bfloat16 is only ever checked after a convert to f32
(numpy has no bfloat16) with the case's own tol directive. Integers and bool
are exact. NaN must match NaN, infinities must match exactly.

The same tolerances hold whether the target fuses multiply-adds (AArch64,
x86 FMA3, ARM VFPv4, RISC-V) or not (SSE2, ARM VFPv3): the products of a
fused step are exact and an unfused step rounds once more, a relative 2^-24
per accumulation, far inside rtol for the sweep's contractions. 32-bit ARM's
NEON flushes subnormals to zero (always, whatever the FPSCR says): on the
flavours in FLUSHES_SUBNORMALS, a float32 result the evaluator gives as a
subnormal may be zero (or another subnormal) instead; everything else is
compared as on every target.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import threading

import numpy as np

from elf_reader import undefined_symbols

TOLERANCES = {
    'float64': (1e-12, 1e-12),
    'float32': (2e-5, 2e-5),
    'float16': (1e-2, 1e-2),
}

HERE = os.path.dirname(os.path.abspath(__file__))
FREESTANDING = os.path.join(HERE, 'freestanding')
ANDROID_CC = ['clang-19', '--target=armv7-none-linux-androideabi21',
              '-mfloat-abi=softfp', '-mfpu=neon', '-ffreestanding',
              '-nostdlib', '-isystem', FREESTANDING]
ARMV6_CC = ['clang-19', '--target=armv6-linux-gnueabihf', '-mcpu=arm1176jzf-s',
            '-mfpu=vfpv2', '-mfloat-abi=hard', '-ffreestanding', '-nostdlib',
            '-isystem', FREESTANDING]

FLAVOURS = {
    # name: (triple, C compiler, link-only flags, runner prefix); the
    # runner's qemu CPU comes from QEMU_CPUS (or --qemu-cpu) where the
    # command ends in -cpu.
    'x86_64': ('x86_64-linux-gnu', ['cc'], [], []),
    'aarch64': ('aarch64-linux-gnu', ['aarch64-linux-gnu-gcc'], ['-static'],
                ['qemu-aarch64']),
    'armv7a': ('armv7a-linux-gnueabihf', ['arm-linux-gnueabihf-gcc'],
               ['-static'], ['qemu-arm', '-cpu']),
    'riscv64': ('riscv64-linux-gnu', ['riscv64-linux-gnu-gcc'], ['-static'],
                ['qemu-riscv64', '-cpu']),
    # Cortex-M4F code (Thumb-2, single-precision VFPv4, eabihf) linked into
    # an armhf Linux program: qemu-arm's user mode has no M-profile CPU, and
    # a Cortex-A7 executes the M4's instruction set (not ARMv8's: code
    # beyond it would fault). lld links it (GNU ld refuses to merge M- and
    # A-profile objects). The bare-metal board run is the Cortex-M sample's.
    'cortex-m4': ('thumbv7em-none-eabihf',
                  ['clang-19', '--target=arm-linux-gnueabihf',
                   '-march=armv7-a', '-mfloat-abi=hard'],
                  ['-static', '-fuse-ld=lld', '-lm'], ['qemu-arm', '-cpu']),
    # Android armeabi-v7a without Android's libc (there is no NDK here):
    # driver.c on freestanding/libc.c, static, 64-bit division from libgcc.
    'android-v7a': ('armv7-none-linux-androideabi21', ANDROID_CC,
                    ['-static', '-fuse-ld=lld',
                     os.path.join(FREESTANDING, 'libc.c'),
                     '@libgcc-armhf'],
                    ['qemu-arm', '-cpu']),
    # ARMv6 (Raspberry Pi 1 / Zero) on the same freestanding driver: Debian's
    # armhf libc and libgcc are ARMv7 (Thumb-2) code an ARM1176 cannot run.
    # The run-time ABI helpers come from Debian's armel libgcc instead
    # (ARMv5TE, ARM state): the __aeabi_* functions use the base procedure
    # call standard (core registers) under both float ABIs, so they serve
    # hard-float code as they are.
    'armv6': ('armv6-linux-gnueabihf', ARMV6_CC,
              ['-static', '-fuse-ld=lld', os.path.join(FREESTANDING, 'libc.c'),
               '@libgcc-armel'],
              ['qemu-arm', '-cpu']),
}

# The '@libgcc-*' link flags: the libgcc.a of a Debian cross GCC (its path has
# the GCC version; clang finds it), and the package that installs it
# (scripts/install-deps.sh installs both).
LIBGCC = {'@libgcc-armhf': ('arm-linux-gnueabihf', 'libgcc-12-dev-armhf-cross'),
          '@libgcc-armel': ('arm-linux-gnueabi', 'libgcc-12-dev-armel-cross')}


def libgcc_path(flag):
    triple, package = LIBGCC[flag]
    path = run(['clang-19', f'--target={triple}', '--rtlib=libgcc',
                '-print-libgcc-file-name']).strip()
    if not os.path.isfile(path):
        raise SystemExit(f'no libgcc for {triple} (found {path!r}): install '
                         f'{package} (scripts/install-deps.sh)')
    return path

# The qemu CPU that runs each kiln --cpu ('' = the triple's default CPU):
# the VFPv3-D16 baseline (generic) on a Cortex-A9, ARMv6 on an ARM1176.
# RISC-V code with +v is run with --qemu-cpu rv64,v=true,vlen=N instead.
QEMU_CPUS = {
    'android-v7a': {'': 'cortex-a9', 'generic': 'cortex-a9'},
    'armv6': {'': 'arm1176', 'arm1176jzf-s': 'arm1176'},
    'cortex-m4': {'': 'cortex-a7', 'cortex-m4': 'cortex-a7'},
    'armv7a': {'': 'cortex-a7', 'cortex-a7': 'cortex-a7',
               'generic': 'cortex-a9', 'cortex-a9': 'cortex-a9',
               'cortex-a15': 'cortex-a15'},
    'riscv64': {'': 'rv64', 'generic-rv64': 'rv64'},
}

# The symbols an object may need from the compiler's runtime (libgcc,
# compiler-rt) on each architecture: 32-bit ARM divides 64-bit integers and
# does f64 on single-precision FPUs through the run-time ABI's helpers.
# Everything else must be in no object (x86-64 and AArch64: nothing at all).
RUNTIME_SYMBOLS = {
    'armv7a': re.compile(r'__aeabi_\w+'),
    'android-v7a': re.compile(r'__aeabi_\w+'),
    'armv6': re.compile(r'__aeabi_\w+'),
    # f64 square roots on a single-precision FPU are libm's sqrt.
    'cortex-m4': re.compile(r'__aeabi_\w+|sqrt'),
    'riscv64': re.compile(r'__(mul|div|mod|udiv|umod)di3'),
}

TIMEOUT = 120


class CaseError(Exception):
    pass


def read_opcodes(opcodes_def):
    text = open(opcodes_def).read()
    return re.findall(r'^KILN_OPCODE\(\w+,\s*"([^"]+)"', text, re.M)


def split_cases(path):
    """Yields (name, hlo_text, directives) for every module in a case file."""
    stem = os.path.splitext(os.path.basename(path))[0]
    chunks = re.split(r'^\s*// -----.*$', open(path).read(), flags=re.M)
    chunks = [c for c in chunks if c.strip()]
    for i, chunk in enumerate(chunks):
        directives = {'args': {}, 'specials': False, 'tol': None, 'only': None,
                      'subnormals': False}
        kept = []
        for line in chunk.splitlines():
            stripped = line.strip()
            if stripped.startswith('// e2e:'):
                parse_directive(stripped[len('// e2e:'):], directives, path)
            if not stripped.startswith('//'):
                kept.append(line)
        module = re.search(r'^\s*HloModule\s+([\w.-]+)', chunk, re.M)
        name = module.group(1) if module else f'{stem}_{i}'
        name = re.sub(r'[^A-Za-z0-9_]', '_', name)
        yield name, '\n'.join(kept) + '\n', directives


def parse_directive(text, directives, path):
    fields = dict(tok.split('=', 1) if '=' in tok else (tok, '')
                  for tok in text.split())
    if 'specials' in fields:
        directives['specials'] = True
    if 'subnormals' in fields:
        directives['subnormals'] = True
    if 'tol' in fields:
        directives['tol'] = tuple(float(v) for v in fields['tol'].split(','))
    if 'cpu-only' in fields:
        directives['only'] = fields['cpu-only']
    if 'arg' in fields:
        arg = directives['args'].setdefault(int(fields['arg']), {})
        if 'range' in fields:
            arg['range'] = tuple(int(v) for v in fields['range'].split(','))
        if 'values' in fields:
            arg['values'] = [float(v) for v in fields['values'].split(',')]


def opcodes_used(text):
    return set(re.findall(r'(?<![\w.-])([a-z][a-z0-9-]*)\(', text))


def make_input(rng, dtype, shape, spec, specials):
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if 'values' in spec:
        a = rng.choice(np.array(spec['values']), size=n).astype(dt)
    elif 'range' in spec:
        lo, hi = spec['range']
        a = rng.integers(lo, hi, size=n, endpoint=True).astype(dt)
    elif dt == np.bool_:
        a = rng.integers(0, 2, size=n).astype(np.bool_)
    elif dt.kind in 'iu':
        info = np.iinfo(dt)
        lo, hi = max(int(info.min), -100), min(int(info.max), 100)
        a = rng.integers(lo, hi, size=n, endpoint=True).astype(dt)
        if specials and n:
            picks = [info.min, info.max, 0, info.max // 2 + 1]
            if info.min < 0:
                picks.append(-1)
            mask = rng.random(n) < 0.15
            a[mask] = rng.choice(np.array(picks, dtype=dt), size=int(mask.sum()))
    else:
        a = (rng.standard_normal(n) * 3).astype(dt)
        if specials and n:
            picks = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype=dt)
            mask = rng.random(n) < 0.1
            a[mask] = rng.choice(picks, size=int(mask.sum()))
    return a.reshape(shape)


def run(cmd, cwd=None):
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise CaseError(f'timeout: {" ".join(cmd)}')
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()[-8:]
        raise CaseError(f'`{" ".join(cmd)}` exited {proc.returncode}: ' +
                        ' | '.join(msg))
    return proc.stdout


def fetch_file_name(name, used):
    """`kiln run`'s output file for a fetch: sanitized, `.N` on repeats."""
    base = re.sub(r'[^A-Za-z0-9_.-]', '_', name)
    stem, n = base, 1
    while stem in used:
        stem, n = f'{base}.{n}', n + 1
    used.add(stem)
    return stem + '.npy'


def write_table(path, name, manifest):
    """The per-case C table: the header's macros, seen by the generic driver."""
    up = name.upper()
    args, results = manifest['args'], manifest['results']

    def elem(entry):
        return str(np.dtype(entry['dtype']).itemsize)

    lines = ['/* Generated by run_e2e.py. */', '#include <stddef.h>',
             f'#include "{name}.h"',
             f'_Static_assert({up}_NUM_ARGS == {len(args)}, "arg count");',
             f'_Static_assert({up}_NUM_RESULTS == {len(results)}, "result count");',
             f'const size_t kiln_e2e_num_args = {up}_NUM_ARGS;',
             f'const size_t kiln_e2e_num_results = {up}_NUM_RESULTS;',
             'const size_t kiln_e2e_arg_sizes[] = {' +
             ''.join(f'{up}_ARG{i}_SIZE, ' for i in range(len(args))) + '0};',
             'const size_t kiln_e2e_arg_elem[] = {' +
             ''.join(elem(a) + ', ' for a in args) + '0};',
             'const size_t kiln_e2e_result_sizes[] = {' +
             ''.join(f'{up}_RESULT{i}_SIZE, ' for i in range(len(results))) + '0};',
             'const size_t kiln_e2e_result_elem[] = {' +
             ''.join(elem(r) + ', ' for r in results) + '0};',
             f'const size_t kiln_e2e_arena_size = {up}_ARENA_SIZE;',
             f'const size_t kiln_e2e_arena_align = {up}_ARENA_ALIGN;',
             'int kiln_e2e_run(const void *const *a, void *const *r, void *arena) {',
             f'  return {name}_run(a, r, arena);', '}',
             'int kiln_e2e_run_parallel(const void *const *a, void *const *r, void *arena,',
             '                          const struct kiln_parallel *p) {',
             f'  return {name}_run_parallel(a, r, arena, p);', '}']
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


# Flavours whose vector unit flushes float32 subnormals to zero (ARMv7 NEON).
FLUSHES_SUBNORMALS = {'armv7a', 'android-v7a'}


def compare(name, got, want, tol, flush_subnormals=False):
    if got.shape != want.shape or got.dtype != want.dtype:
        raise CaseError(f'{name}: got {got.dtype}{list(got.shape)}, reference '
                        f'{want.dtype}{list(want.shape)}')
    if got.dtype.kind not in 'fc':
        bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1))
    else:
        rtol, atol = tol or TOLERANCES[got.dtype.name]
        g = got.reshape(-1).astype(np.float64)
        w = want.reshape(-1).astype(np.float64)
        close = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
        if flush_subnormals and got.dtype == np.float32:
            tiny = float(np.finfo(np.float32).tiny)
            close |= (np.abs(w) < tiny) & (np.abs(g) < tiny)
        inf = np.isinf(w) | np.isinf(g)
        close[inf] = g[inf] == w[inf]
        bad = np.flatnonzero(~close)
    if bad.size:
        i = int(bad[0])
        idx = np.unravel_index(i, want.shape) if want.ndim else ()
        raise CaseError(f'{name}: {bad.size} of {want.size} elements differ, '
                        f'first at {list(idx)}: got {got.reshape(-1)[i]!r}, '
                        f'reference {want.reshape(-1)[i]!r}')


class ReferenceCache:
    """`kiln run --reference` outputs, shared by every flavour of one kiln build.

    The evaluator's answer depends only on the case text and its inputs, which
    are seeded by the case name, never on the target: the first flavour to run
    a case stores the outputs, the others (run one after another or at once
    by ctest) reuse them. Entries live under a directory named after the kiln
    executable's identity (path, size, modification time), so a rebuilt kiln
    starts afresh; older identities' entries are removed."""

    def __init__(self, root, kiln):
        st = os.stat(kiln)
        identity = f'{os.path.realpath(kiln)}\0{st.st_size}\0{st.st_mtime_ns}'
        tag = hashlib.sha256(identity.encode()).hexdigest()[:16]
        os.makedirs(root, exist_ok=True)
        for old in os.listdir(root):
            if old != tag:
                shutil.rmtree(os.path.join(root, old), ignore_errors=True)
        self.dir = os.path.join(root, tag)
        os.makedirs(self.dir, exist_ok=True)

    def outputs(self, text, inputs, ref_cmd):
        """The directory holding the reference outputs of `text` on `inputs`,
        running `ref_cmd` (without --output-dir) on a miss."""
        key = hashlib.sha256(text.encode())
        for a in inputs:
            key.update(f'{a.dtype.str}{a.shape}'.encode())
            key.update(np.ascontiguousarray(a).tobytes())
        entry = os.path.join(self.dir, key.hexdigest())
        if not os.path.isdir(entry):
            staging = f'{entry}.{os.getpid()}.{threading.get_ident()}'
            try:
                run(ref_cmd + ['--output-dir', staging])
            except CaseError:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            try:  # atomic: a concurrent flavour may have stored it first
                os.rename(staging, entry)
            except OSError:
                shutil.rmtree(staging, ignore_errors=True)
        return entry


class Harness:
    def __init__(self, opts):
        self.opts = opts
        self.references = ReferenceCache(
            getattr(opts, 'reference_cache', '') or
            os.path.join(opts.work, 'references'), opts.kiln)
        self.triple, self.cc, ldflags, self.runner = FLAVOURS[opts.arch]
        self.ldflags = [libgcc_path(f) if f in LIBGCC else f for f in ldflags]
        if self.runner[-1:] == ['-cpu']:
            qemu_cpu = opts.qemu_cpu or QEMU_CPUS[opts.arch].get(opts.cpu)
            if not qemu_cpu:
                raise SystemExit(f'no qemu CPU known for --arch {opts.arch} '
                                 f'--cpu {opts.cpu}: pass --qemu-cpu')
            self.runner = self.runner + [qemu_cpu]
        self.flavour = opts.arch + (f'-{opts.cpu}' if opts.cpu else '') + (
            f'-{opts.qemu_cpu}' if opts.qemu_cpu else '')
        self.driver_obj = None
        self.lock = threading.Lock()

    def build_driver(self):
        obj = os.path.join(self.opts.work, 'driver.o')
        run(self.cc + ['-std=c11', '-O1', '-c', self.opts.driver, '-o', obj])
        self.driver_obj = obj

    def compile_case(self, name, hlo_path, work):
        cmd = [self.opts.kiln, 'compile', hlo_path, '--target', self.triple,
               '--name', name, '-o', os.path.join(work, name)]
        if self.opts.cpu:
            cmd += ['--cpu', self.opts.cpu]
        run(cmd + self.opts.compile_flag)
        with open(os.path.join(work, name + '.json')) as f:
            return json.load(f)

    def check_symbols(self, name, work, manifest):
        try:
            undefined = undefined_symbols(os.path.join(work, name + '.o'))
        except (OSError, ValueError, struct.error) as e:
            raise CaseError(f'reading the object\'s symbols: {e}')
        listed = set(manifest.get('required_symbols', []))
        if undefined != listed:
            raise CaseError('required_symbols differs from the undefined '
                            f'symbols: manifest {sorted(listed)}, nm '
                            f'{sorted(undefined)}')
        allowed = RUNTIME_SYMBOLS.get(self.opts.arch)
        extra = [s for s in sorted(undefined)
                 if not (allowed and allowed.fullmatch(s))]
        if extra:
            raise CaseError('the object calls outside the compiler runtime: ' +
                            ', '.join(extra))

    def run_case(self, name, text, directives):
        work = os.path.join(self.opts.work, name)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        hlo_path = os.path.join(work, name + '.hlo')
        with open(hlo_path, 'w') as f:
            f.write(text)
        manifest = self.compile_case(name, hlo_path, work)
        self.check_symbols(name, work, manifest)

        seed = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], 'little')
        rng = np.random.default_rng(seed)
        ref_cmd = [self.opts.kiln, 'run', hlo_path, '--reference']
        arg_files, inputs = [], []
        for i, arg in enumerate(manifest['args']):
            a = make_input(rng, arg['dtype'], arg['shape'],
                           directives['args'].get(i, {}), directives['specials'])
            npy = os.path.join(work, f'arg{i}.npy')
            np.save(npy, a)
            a.tofile(npy[:-4] + '.bin')
            arg_files.append(npy[:-4] + '.bin')
            inputs.append(a)
            ref_cmd += ['--input', f'{arg["name"]}={npy}']
        ref_dir = self.references.outputs(text, inputs, ref_cmd)

        table = os.path.join(work, 'table.c')
        write_table(table, name, manifest)
        exe = os.path.join(work, name + '.exe')
        run(self.cc + ['-std=c11', '-I', work, table, self.driver_obj,
                       os.path.join(work, name + '.o'), '-o', exe] +
            self.ldflags)
        result_files = [os.path.join(work, f'result{i}.bin')
                        for i in range(len(manifest['results']))]
        run(self.runner + [exe] + arg_files + ['--'] + result_files)

        used = set()
        for i, res in enumerate(manifest['results']):
            want = np.load(os.path.join(ref_dir, fetch_file_name(res['name'], used)))
            got = np.fromfile(result_files[i], dtype=np.dtype(res['dtype']))
            got = got.reshape(res['shape'])
            compare(f'result {i} ({res["name"]})', got, want, directives['tol'],
                    self.opts.arch in FLUSHES_SUBNORMALS)
        if not self.opts.keep:
            shutil.rmtree(work, ignore_errors=True)

    def attempt(self, case):
        name, text, directives = case
        try:
            self.run_case(name, text, directives)
            line, ok = f'PASS {name} [{self.flavour}]', True
        except CaseError as e:
            line, ok = f'FAIL {name} [{self.flavour}]: {e}', False
        except Exception as e:  # a harness bug must still count as a failure
            line, ok = f'FAIL {name} [{self.flavour}]: harness: {e!r}', False
        with self.lock:
            print(line, flush=True)
        return ok


def main():
    here = HERE
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--arch', choices=sorted(FLAVOURS), default='x86_64')
    p.add_argument('--cpu', default='')
    p.add_argument('--qemu-cpu', default='',
                   help='qemu -cpu for the run (default: from --cpu)')
    p.add_argument('--work', required=True)
    p.add_argument('--reference-cache', default='',
                   help='where reference outputs are kept across flavours '
                        '(default: WORK/references)')
    p.add_argument('--cases', default=os.path.join(here, 'cases'))
    p.add_argument('--opcodes-def', default=os.path.join(
        here, '..', '..', 'include', 'kiln', 'IR', 'Opcodes.def'))
    p.add_argument('--driver', default=os.path.join(here, 'driver.c'))
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--compile-flag', action='append', default=[],
                   help='extra `kiln compile` argument (repeatable)')
    p.add_argument('--filter', default='', help='regex on case names')
    p.add_argument('--keep', action='store_true', help='keep work files')
    opts = p.parse_args()
    if not opts.reference_cache:  # shared by the flavours: above their folders
        opts.reference_cache = os.path.join(os.path.abspath(opts.work), 'references')
    opts.work = os.path.abspath(os.path.join(opts.work, opts.arch + (
        '-' + opts.cpu if opts.cpu else '') + (
        '-' + opts.qemu_cpu.replace(',', '_').replace('=', '')
        if opts.qemu_cpu else '')))
    os.makedirs(opts.work, exist_ok=True)

    cases, used = [], set()
    for fname in sorted(os.listdir(opts.cases)):
        if fname.endswith('.hlo'):
            for case in split_cases(os.path.join(opts.cases, fname)):
                used |= opcodes_used(case[1])
                if case[2]['only'] and case[2]['only'] != opts.arch:
                    continue
                if case[2]['subnormals'] and opts.arch in FLUSHES_SUBNORMALS:
                    # Their operands, computed by NEON, are flushed to zero
                    # (a remainder by zero is NaN): nothing to compare.
                    if re.search(opts.filter, case[0]):
                        print(f'SKIP {case[0]} [{opts.arch}]: needs subnormals',
                              flush=True)
                    continue
                if re.search(opts.filter, case[0]):
                    cases.append(case)
    failed = 0
    missing = [op for op in read_opcodes(opts.opcodes_def) if op not in used]
    if missing and not opts.filter:
        print('FAIL coverage: no case uses ' + ', '.join(missing), flush=True)
        failed += 1

    harness = Harness(opts)
    try:
        harness.build_driver()
    except CaseError as e:
        print(f'FAIL driver: {e}')
        print(f'0 passed, {len(cases) + failed} failed')
        return 1
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        results = list(pool.map(harness.attempt, cases))
    passed = sum(results)
    failed += len(results) - passed
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
