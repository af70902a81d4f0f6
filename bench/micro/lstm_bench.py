#!/usr/bin/python3
"""lstm_bench.py - the batch-1 ONNX LSTMs of lstm_models.py (16, 256 and
4096 steps) compiled by kiln, against ONNX Runtime through bench/'s harness
(harness.js: kiln and ORT alternate call by call in one node process,
medians, outputs compared). Reports compile seconds, object bytes and both
latencies. Not part of run.sh; docs/performance.md, "Loop state updated in
place".

    eval "$(bench/setup.sh runtimes | sed 's/^/export /')"
    bench/micro/lstm_bench.py --kiln build/tools/kiln/kiln --work /tmp/lstm --node-path "$NODE_PATH"
"""
import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import models  # noqa: E402
import lstm_models  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--kiln', required=True)
    p.add_argument('--work', required=True)
    p.add_argument('--node-path', required=True)
    p.add_argument('--steps', default='16,256,4096')
    p.add_argument('--quick', action='store_true')
    args = p.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    addon = os.path.join(work, 'kiln_bench.node')
    subprocess.run(['bash', os.path.join(os.path.dirname(HERE), 'addon', 'build.sh'),
                    args.node_path, addon], check=True)
    bench = models.Bench(os.path.abspath(args.kiln), work, args.node_path, addon, args.quick)
    print('| steps | compile s | object bytes | kiln us | ORT us | kiln/ORT | outputs match |')
    print('|---|---|---|---|---|---|---|')
    for steps in [int(s) for s in args.steps.split(',')]:
        path = os.path.join(work, f'lstm_{steps}.onnx')
        lstm_models.onnx.save(lstm_models.lstm_model(steps), path)
        x = np.random.default_rng(1).uniform(
            -1, 1, (steps, 1, lstm_models.INPUT)).astype(np.float32)
        row = bench.measure('onnx', path, f'lstm_{steps}', [('X', x)])
        if 'error' in row:
            print(f'| {steps} | error: {row["error"]} |')
            continue
        print(f'| {steps} | {row["compile_s"]:.2f} | {row["object_bytes"]} | '
              f'{row["kiln_ms"] * 1e3:.1f} | {row["ref_ms"] * 1e3:.1f} | '
              f'{row["ratio"]:.2f} | {row["match"]} |', flush=True)


if __name__ == '__main__':
    main()
