#!/usr/bin/python3
"""run_tf_ops.py - TensorFlow op tests: every case under cases/<family>/*.pbtxt is a small GraphDef
(text form) run by TensorFlow.js 4.22.0 (cpu backend) for reference outputs, compiled with
`kiln compile`, linked with test/e2e/driver.c, run natively or under qemu-aarch64 and compared.

Directives (comment lines at the top of a case):
  # fetch: y, z:1                 what to fetch (default: every sink node's output 0)
  # input: NAME range=LO,HI       integer range (inclusive) or float range [LO,HI) for a placeholder
  # input: NAME values=a,b,c      draw the placeholder's values from this list
  # tol: RTOL,ATOL                float tolerance (default 1e-3,1e-4)
  # reference: numpy              reference from <case>.py's `reference(inputs) -> [arrays]`
                                  (for ops TensorFlow.js does not have; inputs: name -> array)
  # variable: W [readonly]        a tfcompile variable (VariableV2 / VarHandleOp node W): an arg
                                  drawn like an input; writable ones are compared after the step
                                  too (numpy reference: return fetches, then each writable
                                  variable's new value, in directive order)
  # arch: x86_64                  run only for that architecture (say why in a comment)
Inputs are seeded (mulberry32, seed 1, drawn per placeholder in graph order). Reference outputs are
cached under --cache keyed by the case, the runner and the package lock. Every op of kiln's TF rule
tables (lib/Import/TensorFlow/Tf*Ops.cpp) must appear in a case that runs for the architecture: a
full run fails otherwise (--coverage report only lists the missing ops, for work in progress).
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import kilnrun  # noqa: E402
import tfgraph  # noqa: E402
from kilnrun import Failure  # noqa: E402

DEFAULT_TOL = (1e-3, 1e-4)
REF_VERSION = 'tf-ops-ref-1'  # bump when the reference procedure changes
LOCK = os.path.join(REPO, 'test', 'models', 'package-lock.json')
TFJS_RUNNER = os.path.join(HERE, 'tfjs_reference.js')


class Case:
    def __init__(self, path, root):
        self.path = path
        self.family = os.path.basename(os.path.dirname(path))
        self.name = os.path.relpath(path, root)[:-len('.pbtxt')].replace(os.sep, '/')
        self.ident = re.sub(r'[^A-Za-z0-9_]', '_', self.name)
        self.text = open(path).read()
        self.fetches, self.inputs, self.tol = None, {}, DEFAULT_TOL
        self.numpy_ref, self.only, self.variables = False, None, []  # [(name, readonly)]
        self.tfjs_format = False  # kiln compiles the converted model.json, not the .pbtxt
        for line in self.text.splitlines():
            m = re.match(r'\s*#\s*(fetch|input|tol|reference|arch|variable|format)\s*:\s*(.*)$',
                         line)
            if m:
                self.directive(m.group(1), m.group(2).strip())
        # 'op: "X"' anywhere: one-line nodes and FunctionDef node_defs count too.
        self.ops = set(re.findall(r'(?<![\w])op\s*:\s*"([^"]+)"', self.text))

    def directive(self, key, value):
        if key == 'fetch':
            self.fetches = [v.strip() for v in value.split(',') if v.strip()]
        elif key == 'tol':
            self.tol = tuple(float(v) for v in value.split(','))
        elif key == 'reference':
            self.numpy_ref = value == 'numpy'
        elif key == 'arch':
            self.only = value
        elif key == 'format':
            if value != 'tfjs':
                raise ValueError(f'{self.path}: unknown format directive {value!r}')
            self.tfjs_format = True
        elif key == 'variable':
            name, *flags = value.split()
            self.variables.append((name, 'readonly' in flags))
        elif key == 'input':
            name, *fields = value.split()
            spec = self.inputs.setdefault(name, {})
            for f in fields:
                k, v = f.split('=', 1)
                if k == 'range':
                    spec['range'] = tuple(float(x) for x in v.split(','))
                elif k == 'values':
                    spec['values'] = [float(x) for x in v.split(',')]

    def spec(self, name, dtype):
        """The input directive for a placeholder or variable; integer ranges as ints."""
        spec = dict(self.inputs.get(name, {}))
        if 'range' in spec and dtype.kind in 'iub':
            spec['range'] = tuple(int(v) for v in spec['range'])
        return spec

    def key(self, extra):
        h = hashlib.sha256()
        for part in [REF_VERSION, self.text, extra]:
            h.update(part.encode() if isinstance(part, str) else part)
        if self.numpy_ref:
            for py in [self.path[:-len('.pbtxt')] + '.py'] + helper_modules(self.path):
                h.update(open(py, 'rb').read())
        return h.hexdigest()[:24]


def helper_modules(case_path):
    """The .py files beside a case that its NumPy reference may use, part of its cache key: those
    that belong to no case (no .pbtxt of the same name: modules the references share, e.g.
    nn/convref.py), and another case's reference that this one imports."""
    folder = os.path.dirname(case_path)
    source = open(case_path[:-len('.pbtxt')] + '.py').read()
    imported = set(re.findall(r'^\s*(?:from|import)\s+(\w+)', source, re.M))
    return [os.path.join(folder, f) for f in sorted(os.listdir(folder))
            if f.endswith('.py') and f != os.path.basename(case_path)[:-len('.pbtxt')] + '.py' and
            (not os.path.exists(os.path.join(folder, f[:-3] + '.pbtxt')) or f[:-3] in imported)]


def publish(tmp, cdir):
    """Moves a finished cache entry into place; another process may have done it first."""
    try:
        os.rename(tmp, cdir)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def tf_rule_ops():
    """Op names in kiln's TF rule tables: rows {"OpName", ...} of `TfOpRule NAME[] = {...};`."""
    ops = set()
    for fname in sorted(os.listdir(os.path.join(REPO, 'lib', 'Import', 'TensorFlow'))):
        if re.fullmatch(r'Tf\w*Ops\.cpp', fname):
            text = open(os.path.join(REPO, 'lib', 'Import', 'TensorFlow', fname)).read()
            for table in re.findall(r'TfOpRule\s+\w+\[\]\s*=\s*\{(.*?)\n\};', text, re.S):
                ops |= set(re.findall(r'\{\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*,', table))
    return ops


class Harness:
    def __init__(self, opts, pb):
        self.opts, self.pb = opts, pb
        self.lock = threading.Lock()
        self.runner = None

    def prepare(self, case):
        """Parses the case and draws its inputs: (graph, [(name, array)], fetches)."""
        graph = tfgraph.parse_pbtxt(self.pb, case.text)
        rng = kilnrun.Mulberry32(1)
        feeds = []
        for name, dtype, shape in tfgraph.placeholders(graph):
            feeds.append((name, kilnrun.make_input(rng, dtype, shape, case.spec(name, dtype))))
        unknown = set(case.inputs) - {n for n, _ in feeds}
        nodes = {n.name: n for n in graph.node}
        for name, _ in case.variables:  # variables are drawn after the placeholders
            node = nodes.get(name)
            if node is None or node.op not in ('VariableV2', 'Variable', 'VarHandleOp'):
                raise Failure(f'variable directive: {name} is not a variable node')
            shape = tfgraph.shape_of(node.attr['shape'].shape)
            dtype = np.dtype(tfgraph.DT_NUMPY[node.attr['dtype'].type % 100])
            feeds.append((name, kilnrun.make_input(rng, dtype, shape, case.spec(name, dtype))))
        unknown -= {v for v, _ in case.variables}
        if unknown:
            raise Failure('input directive names no placeholder: ' + ', '.join(sorted(unknown)))
        fetches = case.fetches or tfgraph.sink_fetches(graph)
        return graph, feeds, fetches

    # --- reference outputs (cached) ----------------------------------------------------------
    def references(self, cases):
        """case.name -> list of arrays or an error string; runs TF.js once for all misses."""
        lock_hash = open(LOCK, 'rb').read() + open(TFJS_RUNNER, 'rb').read()
        refs, jobs, pending = {}, [], []
        for case in cases:
            cdir = os.path.join(self.opts.cache, 'tf-ops', case.key(lock_hash))
            meta = os.path.join(cdir, 'result.json')
            if os.path.exists(meta):
                refs[case.name] = self.load_ref(cdir)
                continue
            try:
                graph, feeds, fetches = self.prepare(case)
            except Exception as e:  # a malformed case is a failure of that case only
                refs[case.name] = f'case: {e}'
                continue
            tmp = f'{cdir}.tmp{os.getpid()}'  # x86_64 and aarch64 runs may fill the cache at once
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            if case.numpy_ref:
                refs[case.name] = self.numpy_reference(case, feeds, tmp, cdir)
                continue
            if case.variables:
                refs[case.name] = 'case: variables need `# reference: numpy` (TF.js has none)'
                continue
            tfgraph.graph_to_tfjs(graph, tmp)
            job = {'dir': tmp, 'fetches': fetches, 'feeds': []}
            for k, (name, a) in enumerate(feeds):
                dt = tfgraph.tfjs_dtype(a.dtype)
                f = os.path.join(tmp, f'input_{k}.bin')
                a.astype(np.uint8 if dt == 'bool' else dt).tofile(f)
                job['feeds'].append({'name': name, 'dtype': dt, 'shape': list(a.shape), 'file': f})
            jobs.append(job)
            pending.append((case, tmp, cdir))
        if jobs:
            self.run_tfjs(jobs)
            for case, tmp, cdir in pending:
                if not os.path.exists(os.path.join(tmp, 'result.json')):
                    refs[case.name] = 'reference: TF.js produced no result'
                    continue
                publish(tmp, cdir)
                refs[case.name] = self.load_ref(cdir)
        return refs

    def run_tfjs(self, jobs):
        path = os.path.join(self.opts.work, 'tfjs_jobs.json')
        with open(path, 'w') as f:
            json.dump(jobs, f)
        env = dict(os.environ, NODE_PATH=kilnrun.node_path())
        print(f'running TensorFlow.js for {len(jobs)} uncached case(s)', flush=True)
        proc = subprocess.run(['node', TFJS_RUNNER, path], env=env, capture_output=True,
                              text=True, timeout=1800)
        if proc.returncode != 0:  # per-case errors land in result.json; this is the runner itself
            print(proc.stderr.strip(), flush=True)

    def numpy_reference(self, case, feeds, tmp, cdir):
        import importlib.util
        folder = os.path.dirname(case.path)  # so references can import the helper modules there
        if folder not in sys.path:
            sys.path.insert(0, folder)
        spec = importlib.util.spec_from_file_location('ref_' + case.ident,
                                                      case.path[:-len('.pbtxt')] + '.py')
        mod = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)
            outs = [np.asarray(o) for o in mod.reference({n: a for n, a in feeds})]
        except Exception as e:
            return f'numpy reference: {e!r}'
        meta = {'outputs': [], 'reference': 'numpy'}
        for k, o in enumerate(outs):
            np.save(os.path.join(tmp, f'output_{k}.npy'), o)
            meta['outputs'].append({'dtype': str(o.dtype), 'shape': list(o.shape)})
        with open(os.path.join(tmp, 'result.json'), 'w') as f:
            json.dump(meta, f)
        publish(tmp, cdir)
        return self.load_ref(cdir)

    @staticmethod
    def load_ref(cdir):
        try:
            return Harness.read_ref(cdir)
        except Exception as e:  # a damaged cache entry fails that case only
            return f'reference: cannot read {cdir}: {e}'

    @staticmethod
    def read_ref(cdir):
        meta = json.load(open(os.path.join(cdir, 'result.json')))
        if 'error' in meta:
            return 'reference (TF.js): ' + meta['error']
        outs = []
        for k, o in enumerate(meta['outputs']):
            npy = os.path.join(cdir, f'output_{k}.npy')
            if os.path.exists(npy):
                outs.append(np.load(npy))
                continue
            dt = {'float32': np.float32, 'int32': np.int32, 'bool': np.uint8}[o['dtype']]
            a = np.fromfile(os.path.join(cdir, f'output_{k}.bin'), dt).reshape(o['shape'])
            outs.append(a.astype(np.bool_) if o['dtype'] == 'bool' else a)
        return outs

    # --- kiln side ---------------------------------------------------------------------------
    def write_config(self, case, feeds, fetches, path):
        lines, readonly = [], dict(case.variables)
        for name, a in feeds:
            dims = ' '.join(f'dim {{ size: {d} }}' for d in a.shape)
            ident = re.sub(r'[^A-Za-z0-9_]', '_', name)
            if name in readonly:
                dt = tfgraph.DT_NAMES[tfgraph.NUMPY_DT[a.dtype]]
                lines.append(f'variable {{ node_name: "{name}" name: "{ident}" shape {{ {dims} }} '
                             f'type: {dt} readonly: {str(readonly[name]).lower()} }}')
                continue
            lines.append(f'feed {{ id {{ node_name: "{name}" }} shape {{ {dims} }} '
                         f'name: "{ident}" }}')
        for fetch in fetches:
            node, _, idx = fetch.partition(':')
            lines.append(f'fetch {{ id {{ node_name: "{node}" output_index: {idx or 0} }} '
                         f'name: "{re.sub(r"[^A-Za-z0-9_]", "_", fetch)}" }}')
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')

    def run_case(self, case, ref):
        if isinstance(ref, str):
            raise Failure(ref)
        graph, feeds, fetches = self.prepare(case)
        work = os.path.join(self.opts.work, case.ident)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        config = os.path.join(work, 'config.pbtxt')
        self.write_config(case, feeds, fetches, config)
        model = case.path
        if case.tfjs_format:
            tfgraph.graph_to_tfjs(graph, work)
            model = os.path.join(work, 'model.json')
        manifest = self.runner.compile(model, case.ident, work, ['--config', config])
        outputs = len(kilnrun.model_outputs(manifest))
        if len(manifest['args']) != len(feeds) or outputs != len(fetches):
            raise Failure(f'kiln has {len(manifest["args"])} args / {outputs} '
                          f'outputs, the case {len(feeds)} feeds / {len(fetches)} fetches')
        writable = [i for i, (n, _) in enumerate(feeds) if dict(case.variables).get(n) is False]
        labels = [f'fetch {f}' for f in fetches] + [f'variable {feeds[i][0]}' for i in writable]
        if case.variables:
            got, after = self.runner.execute(case.ident, work, manifest, [a for _, a in feeds],
                                             args_out=True)
            got = kilnrun.valid_results(manifest, got) + [after[i] for i in writable]
        else:
            got = kilnrun.valid_results(
                manifest, self.runner.execute(case.ident, work, manifest, [a for _, a in feeds]))
        if len(ref) != len(got):
            raise Failure(f'{len(got)} results, reference has {len(ref)}')
        for label, g, w in zip(labels, got, ref):
            kilnrun.compare(label, g, w, *case.tol)
        if not self.opts.keep:
            shutil.rmtree(work, ignore_errors=True)

    def attempt(self, case, ref):
        try:
            self.run_case(case, ref)
            line, ok = f'PASS {case.name} [{self.opts.arch}]', True
        except Failure as e:
            line, ok = f'FAIL {case.name} [{self.opts.arch}]: {e}', False
        except Exception as e:  # a harness bug still counts as a failure
            line, ok = f'FAIL {case.name} [{self.opts.arch}]: harness: {e!r}', False
        with self.lock:
            print(line, flush=True)
        return ok


def coverage(cases, arch, mode):
    """Lists rule-table ops that no case running on `arch` uses; returns the failures it counts."""
    used = set().union(*(c.ops for c in cases if not c.only or c.only == arch))
    missing = sorted(tf_rule_ops() - used)
    if not missing:
        print(f'coverage: every op in the TF rule tables has a case [{arch}]')
        return 0
    word = 'FAIL' if mode == 'strict' else 'NOTE'
    print(f'{word} coverage: {len(missing)} op(s) in the TF rule tables have no case [{arch}]: '
          + ', '.join(missing), flush=True)
    return 1 if mode == 'strict' else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--arch', choices=sorted(kilnrun.FLAVOURS), default='x86_64')
    p.add_argument('--work', required=True)
    p.add_argument('--cache', default=os.environ.get(
        'KILN_TEST_CACHE', os.path.expanduser('~/.cache/kiln-test')))
    p.add_argument('--cases', default=os.path.join(HERE, 'cases'))
    p.add_argument('--proto-dir', default=os.environ.get(
        'KILN_TF_PROTO_DIR', os.path.join(REPO, 'proto', 'tensorflow')))
    p.add_argument('--coverage', choices=['report', 'strict'], default='strict',
                   help='strict: an op of the TF rule tables without a case fails the run; '
                        'report: only list such ops')
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--filter', default='', help='regex on case names (family/name)')
    p.add_argument('--keep', action='store_true', help='keep work files')
    opts = p.parse_args()
    opts.work = os.path.abspath(os.path.join(opts.work, opts.arch))
    os.makedirs(opts.work, exist_ok=True)
    opts.cache = os.path.abspath(opts.cache)

    pb = tfgraph.load_protos(os.path.abspath(opts.proto_dir), os.path.join(opts.work, 'proto_py'))
    all_cases = [Case(os.path.join(d, f), opts.cases) for d, _, files in sorted(os.walk(opts.cases))
                 for f in sorted(files) if f.endswith('.pbtxt')]
    failed = 0 if opts.filter else coverage(all_cases, opts.arch, opts.coverage)
    cases = [c for c in all_cases if re.search(opts.filter, c.name)
             and (not c.only or c.only == opts.arch)]
    harness = Harness(opts, pb)
    refs = harness.references(cases)
    harness.runner = kilnrun.KilnRunner(opts.kiln, opts.arch, opts.work)
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        results = list(pool.map(lambda c: harness.attempt(c, refs[c.name]), cases))
    passed = sum(results)
    failed += len(results) - passed
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
