#!/usr/bin/python3
"""check_models.py - `kiln check` on real models against saved references.

For each model (ONNX: BlazeFace back, the Fashion-MNIST CNN; TF.js:
BlazeFace back), the seeded inputs and the ONNX Runtime / TF.js outputs that
run_models.py caches (setup_refs.sh must have run) are written as .npy, then
`kiln check MODEL --input ... --expect ... --f64` must exit 0: every
instruction of the compiled code agrees with the evaluator, the outputs with
the evaluator on the imported module and with the other runtime, and the
report has the float64 growth figure.

    /usr/bin/python3 test/models/check_models.py --kiln build/tools/kiln/kiln --work /tmp/W
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_models  # noqa: E402

CHECKED = [('onnx', 'blazeface-back'), ('onnx', 'fmnist_cnn'), ('tfjs', 'blazeface-back')]


def check(opts, h, kind, name, ref):
    model = h.onnx_model(name) if kind == 'onnx' else h.tfjs_model(name)
    if isinstance(ref, str):
        return f'{name}: no reference ({ref})'
    inputs, outputs = ref
    work = os.path.join(opts.work, f'{kind}-{name}')
    os.makedirs(work, exist_ok=True)
    cmd = [opts.kiln, 'check', model.path, '--f64'] + model.dynamic()
    for k, (input_name, value) in enumerate(inputs):
        path = os.path.join(work, f'input_{k}.npy')
        np.save(path, value)
        cmd.append(f'--input={input_name}={path}')
    if kind == 'tfjs':
        # kiln names TF.js results after the fetched node ("Identity:0" is
        # the node's output 0, which kiln calls "Identity").
        names = [re.sub(r':0$', '', n) for n, _ in outputs]
    else:
        names = [n for n, _ in outputs]
    for k, (result_name, (_, value)) in enumerate(zip(names, outputs)):
        path = os.path.join(work, f'expect_{k}.npy')
        np.save(path, value)
        cmd.append(f'--expect={result_name}={path}')
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    report = proc.stdout
    problems = []
    if proc.returncode != 0:
        problems.append(f'exit {proc.returncode}: {proc.stderr.strip()[-500:]}')
    if 'result: agree' not in report:
        problems.append('no "result: agree" line')
    if len(re.findall(r"vs --expect .*: agree", report)) != len(outputs):
        problems.append(f'not every one of the {len(outputs)} outputs agrees with the reference')
    if not re.search(r'float64: largest error growth [0-9.]+x at', report):
        problems.append('no float64 growth figure')
    with open(os.path.join(work, 'report.txt'), 'w') as f:
        f.write(report)
    if problems:
        return f'{kind} {name}: ' + '; '.join(problems) + f' (report: {work}/report.txt)'
    print(f'PASS {kind} {name}', flush=True)
    for line in report.splitlines():
        if line.startswith(('all ', 'float64:', 'output ')):
            print('  ' + line)
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--kiln', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--cache', default=os.environ.get(
        'KILN_TEST_CACHE', os.path.expanduser('~/.cache/kiln-test')))
    opts = p.parse_args()
    opts.work, opts.cache = os.path.abspath(opts.work), os.path.abspath(opts.cache)
    os.makedirs(opts.work, exist_ok=True)
    opts.jobs, opts.filter = 1, ''
    h = run_models.Harness(opts)
    h.pkgs = run_models.kilnrun.models_dir()
    models = {(kind, name): (h.onnx_model(name) if kind == 'onnx' else h.tfjs_model(name))
              for kind, name in CHECKED}
    refs = h.refs.get(set(models.values()))
    failures = [f for f in (check(opts, h, kind, name, refs[models[(kind, name)]])
                            for kind, name in CHECKED) if f]
    for failure in failures:
        print('FAIL ' + failure)
    print(f'{len(CHECKED) - len(failures)} passed, {len(failures)} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
