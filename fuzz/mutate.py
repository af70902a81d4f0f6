#!/usr/bin/env python3
"""Mutation campaign: mutated inputs of every format through the kiln CLI.

mutate.py [--kiln PATH] [--cases N] [--seed S] [--jobs J] [--out DIR]
          [--formats onnx,pb,...] [--timeout SECONDS] [--memory KIB]

Each case takes a seed of one format (fuzz/make_corpus.py's seeds plus the
tf2xla configs of the lit tests paired with their graphs), mutates it with
fuzz/mutators.py, and runs the kiln command that reads that format under
`ulimit -v MEMORY` and a timeout. A case passes when kiln exits 0, or exits 1
with an `error:` line and neither `bad_alloc` nor `internal error`. Anything
else is a finding: the case directory (inputs, repro.sh, output.txt) is kept
under OUT/findings and the campaign goes on. Prints a table per format and
exits 1 when there is a finding. A case depends only on --seed and its
index, so any case can be regenerated. docs/fuzzing.md has the details.
Needs /usr/bin/python3 (numpy, protobuf) and protoc, as make_corpus.py does.
"""
import argparse
import collections
import concurrent.futures
import glob
import hashlib
import io
import os
import random
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_corpus  # noqa: E402  (seed discovery is shared with the libFuzzer corpus)
import mutators  # noqa: E402

ROOT = make_corpus.ROOT
FORMATS = ['onnx', 'pb', 'pbtxt', 'json', 'tfjs', 'hlo', 'config', 'npy']
# make_corpus target -> campaign format ('pipeline' repeats the HLO seeds;
# 'tf2xla-config' seeds name FuzzTfConfig.cpp's built-in graph, which the CLI
# does not have, so configs come from config_pairs instead).
TARGET_FORMAT = {'onnx': 'onnx', 'graphdef-binary': 'pb', 'graphdef-text': 'pbtxt',
                 'graphdef-json': 'json', 'tfjs': 'tfjs', 'hlo': 'hlo', 'npy': 'npy'}
# Relative share of the cases; ONNX has the most readers and lowerings.
FORMAT_WEIGHTS = {'onnx': 3, 'pb': 1.5, 'pbtxt': 1.5, 'json': 1.5, 'tfjs': 1, 'hlo': 1.5,
                  'config': 1, 'npy': 1}
COMPILE_MAX_BYTES = 64 << 10  # larger inputs are only inspected: LLVM dominates
SANITIZER_REPORT = re.compile(r'AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|'
                              r'runtime error:|Assertion .* failed|terminate called')
OUTPUT_PREFIX = 'out'  # compile -o out: out.o, out.h, out.json


class Seeds(make_corpus.Corpus):
    """make_corpus.Corpus kept in memory: format -> [(name, bytes)]."""

    def __init__(self, max_bytes):
        super().__init__(None, max_bytes)
        self.by_format = collections.defaultdict(dict)

    def add(self, target, data, name=None):
        fmt = TARGET_FORMAT.get(target, target)
        if fmt not in FORMATS:
            return
        if isinstance(data, str):
            data = data.encode()
        if len(data) > self.max_bytes or not data:
            return
        self.by_format[fmt].setdefault(name or hashlib.sha1(data).hexdigest()[:12], data)


def config_pairs():
    """(graph path, config path) of every `--config` use in the lit tests and samples."""
    pairs = set()
    run_line = re.compile(r'(?:run|compile|inspect|check|profile)\s+(%s|%S/\S+)(?:\s+--\S+(?:\s+[^-\s]\S*)?)*?'
                          r'\s+--config\s+(%S/\S+)')
    for test in make_corpus.repo_files('test/lit/**/*.test', 'test/lit/**/*.pbtxt'):
        with open(test, errors='replace') as f:
            text = f.read()
        for graph, config in run_line.findall(text):
            graph = test if graph == '%s' else graph.replace('%S', os.path.dirname(test))
            config = config.replace('%S', os.path.dirname(test))
            if os.path.isfile(graph) and os.path.isfile(config):
                pairs.add((os.path.normpath(graph), os.path.normpath(config)))
    for config in make_corpus.repo_files('samples/**/*.config.pbtxt'):
        graph = config.replace('.config.pbtxt', '.pbtxt')
        if os.path.isfile(graph):
            pairs.add((graph, config))
    return sorted(pairs)


def add_onnx_text_models(seeds):
    """The hand-written ModelProto texts of the hardening tests, encoded with
    protoc (those with a placeholder for sed do not encode and are skipped)."""
    proto = os.path.join(ROOT, 'proto')
    for path in make_corpus.repo_files('test/**/*.onnxtxt'):
        result = subprocess.run(['protoc', '--encode=kiln.onnxpb.ModelProto', '-I', proto,
                                 os.path.join(proto, 'onnx/onnx.proto')],
                                stdin=open(path, 'rb'), capture_output=True)
        if result.returncode == 0:
            seeds.add('onnx', result.stdout)


def collect_seeds(max_bytes, cache):
    seeds = Seeds(max_bytes)
    graph_class, _ = make_corpus.message_classes()
    make_corpus.add_graphdefs(seeds, graph_class)
    make_corpus.add_frozen_models(seeds, cache)
    make_corpus.add_tfjs(seeds, cache)
    make_corpus.add_onnx(seeds, cache)
    add_onnx_text_models(seeds)
    make_corpus.add_hlo(seeds)
    make_corpus.add_npy(seeds)
    for graph, config in config_pairs():
        seeds.by_format['config'][os.path.relpath(config, ROOT)] = (graph, config)
    return {fmt: sorted(items.items()) for fmt, items in seeds.by_format.items()}


# --- building a case ----------------------------------------------------------

HLO_TYPES = {'bool': 'pred', 'int8': 's8', 'int16': 's16', 'int32': 's32', 'int64': 's64',
             'uint8': 'u8', 'uint16': 'u16', 'uint32': 'u32', 'uint64': 'u64',
             'float16': 'f16', 'float32': 'f32', 'float64': 'f64', '|V2': 'bf16'}


def npy_header(data):
    """(dtype, shape) of a .npy file, read from its header only."""
    try:
        stream = io.BytesIO(data)
        version = np.lib.format.read_magic(stream)
        shape, _, dtype = np.lib.format._read_array_header(stream, version)
        return dtype, shape
    except Exception:  # any malformed header; numpy raises many kinds
        return None


def npy_model(data, seed):
    """An HLO module taking the array as parameter 'x' and converting it to
    f32, so the reference evaluator reads every element. The type follows the
    mutated header when it parses (so a bad shape reaches kiln's checks),
    else the seed's."""
    header = npy_header(data) or npy_header(seed)
    hlo_type, dims = 'f32', (3, 4)
    if header:
        dtype, shape = header
        key = dtype.str if dtype.str == '|V2' else dtype.name
        if key in HLO_TYPES:
            hlo_type, dims = HLO_TYPES[key], shape
    dims = ','.join(str(d) for d in dims)
    return (f'HloModule npy_input, entry=main\n\nENTRY main {{\n'
            f'  x = {hlo_type}[{dims}] parameter(0)\n'
            f'  ROOT y = f32[{dims}] convert(x)\n}}\n').encode()


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def mutate_for(fmt, rng, data, other):
    if fmt in ('onnx', 'pb'):
        return mutators.mutate_protobuf(rng, data, other)
    if fmt == 'json':
        return mutators.mutate_json(rng, data, other)
    return mutators.mutate_text(rng, data, other)


def mutate_npy(rng, data, other):
    """The header's text (shape, dtype, order) or the whole file's bytes."""
    header = npy_header(data)
    if header and rng.random() < 0.6 and len(data) > 10:
        version = data[6]
        size_bytes = 2 if version == 1 else 4
        end = 8 + size_bytes + int.from_bytes(data[8:8 + size_bytes], 'little')
        mutated, strategy = mutators.mutate_text(rng, data[8 + size_bytes:end])
        if rng.random() < 0.7:  # keep the header length consistent
            length = len(mutated).to_bytes(size_bytes, 'little', signed=False) \
                if len(mutated) < 1 << (8 * size_bytes) else data[8:8 + size_bytes]
        else:
            length = data[8:8 + size_bytes]
        return data[:8] + length + mutated + data[end:], 'header_' + strategy
    return mutators.mutate_bytes(rng, data, other)


def split_tfjs(blob):
    model, _, shard = blob.partition(make_corpus.SHARD_SEPARATOR)
    return model, shard


class Case:
    """One mutated input: files to write and the kiln arguments (relative to
    the case directory)."""

    def __init__(self, index, fmt, seed_name, strategy, files, args):
        self.index, self.format, self.seed_name = index, fmt, seed_name
        self.strategy, self.files, self.args = strategy, files, args


def make_case(index, campaign_seed, seeds, formats, compile_fraction):
    rng = random.Random(f'{campaign_seed}/{index}')
    fmt = rng.choices(formats, weights=[FORMAT_WEIGHTS[f] for f in formats])[0]
    seed_name, seed = rng.choice(seeds[fmt])
    _, other = rng.choice(seeds[fmt])
    compile_it = rng.random() < compile_fraction
    if fmt == 'config':
        graph_path, config_path = seed
        config = read(config_path)
        ext = os.path.splitext(config_path)[1]
        if ext == '.json':
            mutated, strategy = mutators.mutate_json(rng, config)
        else:
            mutated, strategy = mutators.mutate_text(rng, config)
        graph = 'graph' + os.path.splitext(graph_path)[1]
        files = {graph: read(graph_path), 'config' + ext: mutated}
        args = [graph, '--config', 'config' + ext]
    elif fmt == 'tfjs':
        model, shard = split_tfjs(seed)
        if shard and rng.random() < 0.35:
            shard, strategy = mutators.mutate_bytes(rng, shard)
            strategy = 'shard_' + strategy
        else:
            model, strategy = mutators.mutate_json(rng, model, split_tfjs(other)[0])
        files = {'model.json': model}
        if shard or make_corpus.SHARD_SEPARATOR in seed:
            files['shard.bin'] = shard
        args = ['model.json']
    elif fmt == 'npy':
        mutated, strategy = mutate_npy(rng, seed, other)
        files = {'model.hlo': npy_model(mutated, seed), 'input.npy': mutated}
        return Case(index, fmt, seed_name, strategy, files,
                    ['run', 'model.hlo', '--reference', '--input', 'x=input.npy',
                     '--output-dir', 'results'])
    else:
        mutated, strategy = mutate_for(fmt, rng, seed, other)
        name = {'json': 'graph.json'}.get(fmt, 'model.' + fmt)
        files = {name: mutated}
        args = [name]
    small = sum(len(data) for data in files.values()) <= COMPILE_MAX_BYTES
    if compile_it and small:
        return Case(index, fmt, seed_name, strategy, files,
                    ['compile'] + args + ['-o', OUTPUT_PREFIX])
    if fmt == 'hlo' and rng.random() < 0.15:
        return Case(index, fmt, seed_name, strategy, files, ['opt'] + args)
    return Case(index, fmt, seed_name, strategy, files, ['inspect'] + args)


# --- running a case -------------------------------------------------------------

def classify(returncode, output, timed_out):
    """'exit0', 'clean', or the kind of finding."""
    if timed_out:
        return 'timeout'
    if returncode < 0:
        try:
            return 'signal ' + signal.Signals(-returncode).name
        except ValueError:
            return f'signal {-returncode}'
    if SANITIZER_REPORT.search(output):
        return 'sanitizer-like report'
    if 'bad_alloc' in output:
        return 'bad_alloc'
    if 'internal error' in output:
        return 'internal error'
    if returncode == 0:
        return 'exit0'
    if returncode == 1:
        return 'clean' if 'error:' in output else 'exit 1 without error:'
    return f'exit {returncode}'


def partial_outputs(directory, args, outcome):
    """Files a failed compile left behind (kiln must not leave any)."""
    if args[0] != 'compile' or outcome == 'exit0':
        return []
    return sorted(glob.glob(os.path.join(directory, OUTPUT_PREFIX + '.*')))


class Runner:
    def __init__(self, kiln, work, findings, timeout, memory_kib):
        self.kiln, self.work, self.findings = kiln, work, findings
        self.timeout, self.memory_kib = timeout, memory_kib

    def limit(self):
        limit = self.memory_kib * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def run(self, case):
        directory = os.path.join(self.work, f'case-{case.index:06d}')
        os.makedirs(directory)
        for name, data in case.files.items():
            with open(os.path.join(directory, name), 'wb') as f:
                f.write(data)
        start = time.monotonic()
        timed_out, returncode = False, None
        try:
            result = subprocess.run([self.kiln] + case.args, cwd=directory,
                                    stdin=subprocess.DEVNULL, capture_output=True,
                                    timeout=self.timeout, preexec_fn=self.limit)
            returncode = result.returncode
            output = (result.stdout + result.stderr).decode(errors='replace')
        except subprocess.TimeoutExpired as expired:
            timed_out = True
            output = ((expired.stdout or b'') + (expired.stderr or b'')).decode(errors='replace')
        seconds = time.monotonic() - start
        outcome = classify(returncode, output, timed_out)
        leftovers = partial_outputs(directory, case.args, outcome)
        if leftovers and outcome == 'clean':
            outcome = 'partial output files'
        if outcome in ('exit0', 'clean'):
            shutil.rmtree(directory)
            return case, outcome, seconds, None, first_diagnostic(output)
        kept = self.keep(case, directory, outcome, output)
        return case, outcome, seconds, kept, first_diagnostic(output)

    def keep(self, case, directory, outcome, output):
        slug = re.sub(r'[^a-z0-9]+', '-', outcome.lower()).strip('-')
        kept = os.path.join(self.findings, f'{case.format}-{case.index:06d}-{slug}')
        shutil.move(directory, kept)
        with open(os.path.join(kept, 'output.txt'), 'w') as f:
            f.write(output if len(output) < 40000 else
                    output[:20000] + '\n[...]\n' + output[-20000:])
        command = ' '.join(shlex.quote(a) for a in [self.kiln] + case.args)
        with open(os.path.join(kept, 'repro.sh'), 'w') as f:
            f.write(f'#!/bin/sh\n# case {case.index}: {case.format} seed {case.seed_name}, '
                    f'mutation {case.strategy}: {outcome}\n'
                    f'cd "$(dirname "$0")" && ulimit -v {self.memory_kib} && '
                    f'exec timeout {self.timeout} {command}\n')
        os.chmod(os.path.join(kept, 'repro.sh'), 0o755)
        return kept


def first_diagnostic(output):
    """The line that explains an outcome, with numbers and quoted names
    blurred so findings of one cause group together."""
    for line in output.splitlines():
        if 'error' in line or 'Sanitizer' in line or 'Assertion' in line:
            return re.sub(r'\d+', 'N', re.sub(r"'[^']*'", "'…'", line))[:160]
    return ''


# --- the campaign --------------------------------------------------------------

def run_campaign(args, seeds, formats):
    runner = Runner(args.kiln, os.path.join(args.out, 'work'),
                    os.path.join(args.out, 'findings'), args.timeout, args.memory)
    for directory in (runner.work, runner.findings):
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
    table = {fmt: collections.Counter() for fmt in formats}
    classes = collections.defaultdict(list)
    start = time.monotonic()
    cases = (make_case(i, args.seed, seeds, formats, args.compile_fraction)
             for i in range(args.first, args.first + args.cases))
    log = open(os.path.join(args.out, 'cases.tsv'), 'w')  # one line per case
    with log, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending, done_count = set(), 0
        for case in cases:
            pending.add(pool.submit(runner.run, case))
            if len(pending) >= 2 * args.jobs:
                done, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                done_count += record(done, table, classes, log)
                progress(done_count, args.cases, table, start)
        done_count += record(pending, table, classes, log)
    return table, classes, time.monotonic() - start


def record(futures, table, classes, log):
    for future in futures:
        case, outcome, seconds, kept, diagnostic = future.result()
        log.write(f'{case.index}\t{case.format}\t{case.args[0]}\t{case.strategy}\t'
                  f'{outcome}\t{seconds:.2f}\t{diagnostic}\n')
        counts = table[case.format]
        counts['cases'] += 1
        counts['seconds'] += seconds
        if outcome in ('exit0', 'clean'):
            counts[outcome] += 1
        else:
            counts['findings'] += 1
            classes[(case.format, outcome, diagnostic)].append(kept)
            print(f'finding: {outcome}: {kept}', flush=True)
    return len(futures)


def progress(done, total, table, start):
    if done % 500 == 0:
        findings = sum(c['findings'] for c in table.values())
        print(f'{done}/{total} cases, {findings} findings, '
              f'{time.monotonic() - start:.0f} s', flush=True)


def print_summary(table, classes, seconds):
    print('\n| format | cases | exit 0 | exit 1 clean | findings | mean s |')
    print('| --- | ---: | ---: | ---: | ---: | ---: |')
    total = collections.Counter()
    for fmt, counts in table.items():
        total.update(counts)
        mean = counts['seconds'] / counts['cases'] if counts['cases'] else 0
        print(f"| {fmt} | {counts['cases']} | {counts['exit0']} | {counts['clean']} | "
              f"{counts['findings']} | {mean:.2f} |")
    print(f"| all | {total['cases']} | {total['exit0']} | {total['clean']} | "
          f"{total['findings']} | |")
    print(f'wall time: {seconds / 60:.1f} min')
    if classes:
        print('\nfinding classes (format, outcome, first diagnostic: count, example):')
        for (fmt, outcome, diagnostic), kept in sorted(classes.items()):
            print(f'  {fmt}, {outcome}, {diagnostic or "-"}: {len(kept)}, {kept[0]}')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--kiln', default=os.path.join(ROOT, 'build/tools/kiln/kiln'))
    p.add_argument('--cases', type=int, default=10000)
    p.add_argument('--first', type=int, default=0,
                   help='index of the first case (rerun one case with --first I --cases 1)')
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--out', default='mutate-out')
    p.add_argument('--formats', default=','.join(FORMATS),
                   help='comma-separated subset of ' + ','.join(FORMATS))
    p.add_argument('--timeout', type=float, default=20, help='seconds per case')
    p.add_argument('--memory', type=int, default=4000000,
                   help='address-space limit per case in KiB, as ulimit -v')
    p.add_argument('--compile-fraction', type=float, default=0.2,
                   help='share of the cases (of inputs up to 64 KiB) run with kiln compile')
    p.add_argument('--max-seed-bytes', type=int, default=256 << 10)
    p.add_argument('--cache', default=os.environ.get(
        'KILN_TEST_CACHE', os.path.expanduser('~/.cache/kiln-test')))
    args = p.parse_args()
    args.kiln = os.path.abspath(args.kiln)
    args.out = os.path.abspath(args.out)
    formats = [f for f in args.formats.split(',') if f]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        p.error(f'unknown format {unknown[0]!r}; the formats are {", ".join(FORMATS)}')
    if not os.access(args.kiln, os.X_OK):
        p.error(f'{args.kiln} is not an executable; build kiln or pass --kiln')
    seeds = collect_seeds(args.max_seed_bytes, args.cache)
    missing = [f for f in formats if not seeds.get(f)]
    if missing:
        p.error(f'no seeds for {", ".join(missing)}')
    print('seeds: ' + ', '.join(f'{f} {len(seeds[f])}' for f in formats), flush=True)
    table, classes, seconds = run_campaign(args, seeds, formats)
    print_summary(table, classes, seconds)
    return 1 if classes else 0


if __name__ == '__main__':
    sys.exit(main())
