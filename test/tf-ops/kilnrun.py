"""kilnrun.py - What kiln's model-level tests share: the seeded input generator of the reference
runners (mulberry32, seed 1), `kiln compile` + link with test/e2e/driver.c + run natively or under
qemu-aarch64, tolerance comparison, and locating the pinned npm reference runtimes."""
import json
import os
import subprocess
import sys
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'test', 'e2e'))
from run_e2e import write_table  # noqa: E402  (the e2e harness's header-driven C table)

DRIVER_C = os.path.join(REPO, 'test', 'e2e', 'driver.c')
# NAME_run_parallel through kiln/runtime_threads.h's pool against NAME_run, bitwise.
THREADS_DRIVER_C = os.path.join(REPO, 'test', 'e2e', 'threads_driver.c')
RUNTIME_INCLUDE = os.path.join(REPO, 'runtime', 'include')
VAR_DRIVER_C = os.path.join(HERE, 'var_driver.c')  # also writes the (updated) args back out
SETUP_REFS = os.path.join(REPO, 'test', 'models', 'setup_refs.sh')

FLAVOURS = {
    # arch: (triple, cpu, compiler + flags, runner prefix)
    'x86_64': ('x86_64-linux-gnu', None, ['cc'], []),
    'aarch64': ('aarch64-linux-gnu', 'cortex-a53', ['aarch64-linux-gnu-gcc', '-static'],
                ['qemu-aarch64']),
}


class Failure(Exception):
    """A test failure with a short reason (shown on the FAIL line); `output` keeps the failing
    command's whole stderr/stdout for callers that classify it."""

    def __init__(self, message, output=''):
        super().__init__(message)
        self.output = output


class Mulberry32:
    """The generator of the reference runners (tfjs_reference.js, ort_reference.js)."""

    def __init__(self, seed=1):
        self.a = seed & 0xFFFFFFFF

    def next(self):
        self.a = (self.a + 0x6D2B79F5) & 0xFFFFFFFF
        a = self.a
        t = _imul(a ^ (a >> 15), 1 | a)
        t = ((t + _imul(t ^ (t >> 7), 61 | t)) & 0xFFFFFFFF) ^ t
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296.0

    def floats(self, n):
        """n draws at once: the state advances by a constant, so each draw is independent."""
        m = np.uint64(0xFFFFFFFF)
        k = np.arange(1, n + 1, dtype=np.uint64)
        a = (np.uint64(self.a) + k * np.uint64(0x6D2B79F5)) & m
        self.a = int(a[-1]) if n else self.a
        t = ((a ^ (a >> np.uint64(15))) * (a | np.uint64(1))) & m
        t = ((t + (((t ^ (t >> np.uint64(7))) * (t | np.uint64(61))) & m)) & m) ^ t
        return ((t ^ (t >> np.uint64(14))) & m).astype(np.float64) / 4294967296.0


def _imul(a, b):
    return (a * b) & 0xFFFFFFFF


def make_input(rng, dtype, shape, spec=None):
    """Floats uniform in [0,1), integers in [0,255], bools p=0.5; spec may give
    range=(lo, hi) (inclusive for integers, [lo,hi) for floats) or values=[...]."""
    spec = spec or {}
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) if shape else 1
    u = rng.floats(n)
    if 'values' in spec:
        vals = np.array(spec['values'], np.float64)
        a = vals[np.minimum((u * len(vals)).astype(np.int64), len(vals) - 1)]
    elif dtype == np.bool_:
        a = u < 0.5
    elif dtype.kind in 'iu':
        lo, hi = spec.get('range', (0, 255))
        a = lo + np.floor(u * (hi - lo + 1))
    else:
        lo, hi = spec.get('range', (0.0, 1.0))
        a = lo + u * (hi - lo)
    return a.astype(dtype).reshape(shape)


def run(cmd, timeout=600, cwd=None, env=None):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                              env=env)
    except subprocess.TimeoutExpired:
        raise Failure(f'timeout after {timeout}s: {os.path.basename(cmd[0])}')
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        raise Failure(f'{os.path.basename(cmd[0])} {cmd[1] if len(cmd) > 1 else ""} exited '
                      f'{proc.returncode}: ' + ' | '.join(lines[-12:]),
                      (proc.stderr or '') + (proc.stdout or ''))
    return proc.stdout


def node_path():
    """Installs (once, cached) and returns the node_modules folder of the pinned runtimes."""
    out = run(['bash', SETUP_REFS, 'runtimes'], timeout=900)
    return [ln.split('=', 1)[1] for ln in out.splitlines() if ln.startswith('NODE_PATH=')][0]


def models_dir():
    out = run(['bash', SETUP_REFS, 'models'], timeout=900)
    return [ln.split('=', 1)[1] for ln in out.splitlines() if ln.startswith('MODELS=')][0]


class KilnRunner:
    """Compiles a model with kiln for one flavour, links the generic driver, runs it."""

    def __init__(self, kiln, arch, work):
        self.kiln, self.arch = kiln, arch
        self.triple, self.cpu, self.cc, self.prefix = FLAVOURS[arch]
        self.work = work
        os.makedirs(work, exist_ok=True)
        self.drivers = {}
        self.lock = threading.Lock()

    def driver(self, source):
        with self.lock:
            return self._driver(source)

    def _driver(self, source):
        if source not in self.drivers:
            obj = os.path.join(self.work, os.path.basename(source)[:-2] + '.o')
            run(self.cc[:1] + ['-std=c11', '-O1', '-c', source, '-o', obj])
            self.drivers[source] = obj
        return self.drivers[source]

    def compile(self, model, name, work, extra=()):
        cmd = [self.kiln, 'compile', model, '--target', self.triple, '--name', name,
               '-o', os.path.join(work, name)] + list(extra)
        if self.cpu:
            cmd += ['--cpu', self.cpu]
        run(cmd)
        with open(os.path.join(work, name + '.json')) as f:
            return json.load(f)

    def execute_threads(self, name, work, manifest, inputs, threads=(1, 2, 7), min_tasks=2,
                        timeout=900):
        """Runs the compiled model serially and through the thread pool at each count in
        `threads` (threads_driver.c: bitwise comparison, at least one kernel split into
        `min_tasks` tasks); returns (serial results, the driver's report)."""
        table = os.path.join(work, 'table.c')
        write_table(table, name, manifest)
        exe = os.path.join(work, name + '.threads.exe')
        run(self.cc + ['-std=c11', '-O1', '-I', work, '-I', RUNTIME_INCLUDE, table,
                       THREADS_DRIVER_C, os.path.join(work, name + '.o'), '-o', exe,
                       '-pthread', '-lm'])
        args = []
        for i, (arg, a) in enumerate(zip(manifest['args'], inputs)):
            path = os.path.join(work, f'arg{i}.bin')
            a.astype(np.dtype(arg['dtype'])).reshape(arg['shape']).tofile(path)
            args.append(path)
        results = [os.path.join(work, f'result{i}.bin') for i in range(len(manifest['results']))]
        report = run(self.prefix + [exe, '--threads', ','.join(map(str, threads)),
                                    '--min-tasks', str(min_tasks)] + args + ['--'] + results,
                     timeout=timeout)
        got = [np.fromfile(p, np.dtype(r['dtype'])).reshape(r['shape'])
               for p, r in zip(results, manifest['results'])]
        return got, report

    def execute(self, name, work, manifest, inputs, timeout=600, args_out=False):
        """inputs: arrays in manifest arg order. Returns the results as arrays; with args_out,
        (results, every arg after the call) for graphs that update variables in place."""
        table = os.path.join(work, 'table.c')
        write_table(table, name, manifest)
        exe = os.path.join(work, name + '.exe')
        driver = self.driver(VAR_DRIVER_C if args_out else DRIVER_C)
        run(self.cc + ['-std=c11', '-I', work, table, driver,
                       os.path.join(work, name + '.o'), '-o', exe, '-lm'])
        args = []
        for i, (arg, a) in enumerate(zip(manifest['args'], inputs)):
            want = np.dtype(arg['dtype'])
            if list(a.shape) != list(arg['shape']):
                raise Failure(f'arg {i} ({arg["name"]}): kiln expects {arg["dtype"]}'
                              f'{arg["shape"]}, test has {a.dtype}{list(a.shape)}')
            path = os.path.join(work, f'arg{i}.bin')
            a.astype(want).tofile(path)
            args.append(path)
        results = [os.path.join(work, f'result{i}.bin') for i in range(len(manifest['results']))]
        outs = [p[:-4] + '.out' for p in args] if args_out else []
        run(self.prefix + [exe] + args + ['--'] + results + (['--'] + outs if args_out else []),
            timeout=timeout)
        got = [np.fromfile(p, np.dtype(r['dtype'])).reshape(r['shape'])
               for p, r in zip(results, manifest['results'])]
        if not args_out:
            return got
        return got, [np.fromfile(p, np.dtype(a['dtype'])).reshape(a['shape'])
                     for p, a in zip(outs, manifest['args'])]


def model_outputs(manifest):
    """The manifest's results that are model outputs: all but the counts of bounded results."""
    return [r for r in manifest['results'] if 'count_of' not in r]


def valid_results(manifest, got):
    """`got` (one array per manifest result) as the model's outputs: each bounded result
    (docs/abi.md, "Bounded results") cut to the valid entries its count result gives, and
    the counts left out."""
    outputs = []
    for result, array in zip(manifest['results'], got):
        if 'count_of' in result:
            continue
        bound = result.get('bounded')
        if bound:
            count = int(got[bound['count_result']].reshape(()))
            if not 0 <= count <= array.shape[bound['dim']]:
                raise Failure(f'{result["name"]}: count {count} outside [0, '
                              f'{array.shape[bound["dim"]]}]')
            array = np.take(array, np.arange(count), axis=bound['dim'])
        outputs.append(array)
    return outputs


def compare(label, got, want, rtol, atol):
    """Raises Failure unless got matches want (cast to got's dtype for integer/bool)."""
    want = np.asarray(want)
    if list(got.shape) != list(want.shape):
        if got.size == want.size and got.size <= 1:
            want = want.reshape(got.shape)
        else:
            raise Failure(f'{label}: shape {list(got.shape)}, reference {list(want.shape)}')
    if got.dtype.kind in 'fc':
        g, w = got.astype(np.float64).ravel(), want.astype(np.float64).ravel()
        close = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
        inf = np.isinf(g) | np.isinf(w)
        close[inf] = g[inf] == w[inf]
    else:
        g, w = got.ravel(), want.astype(got.dtype).ravel()
        close = g == w
    bad = np.flatnonzero(~close)
    if bad.size:
        i = int(bad[0])
        err = np.abs(g.astype(np.float64) - w.astype(np.float64))
        raise Failure(f'{label}: {bad.size} of {g.size} differ, first at flat {i}: got {g[i]!r}, '
                      f'reference {w[i]!r} (max abs err {np.nanmax(err):.3g})')
