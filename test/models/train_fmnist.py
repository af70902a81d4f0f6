#!/usr/bin/python3
"""train_fmnist.py - Trains the Fashion-MNIST MLP and CNN that kiln's ONNX model tests use, with
Debian's python3-torch on Debian's dataset-fashion-mnist, and exports them to ONNX (opset 13,
dynamic batch) together with torch's outputs on the first 1000 test images.
Deterministic: torch.manual_seed(0), single thread, 2 epochs of Adam(1e-3), batch 128.
The outputs are checked in (test/models/fmnist/), so CI needs no torch; rerun this to regenerate:
  /usr/bin/python3 test/models/train_fmnist.py test/models/fmnist
Writes OUT/fmnist_mlp.onnx, OUT/fmnist_cnn.onnx and OUT/torch_outputs.npz
(fmnist_mlp, fmnist_cnn: float32[1000,10] torch outputs; labels: int64[1000]; accuracy on them)."""
import gzip
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn

DATA = '/usr/share/datasets/fashion-mnist'
N_TEST = 1000
EPOCHS = 2


def images(name):
    raw = gzip.open(os.path.join(DATA, name)).read()
    return np.frombuffer(raw, np.uint8, offset=16).reshape(-1, 1, 28, 28).astype(np.float32) / 255


def labels(name):
    return np.frombuffer(gzip.open(os.path.join(DATA, name)).read(), np.uint8, offset=8).astype(
        np.int64)


def build():
    return {
        # logits out
        'fmnist_mlp': nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(),
                                    nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10)),
        # probabilities out (softmax is part of the exported graph); BatchNorm in inference mode
        'fmnist_cnn': nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                                    nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 7 * 7, 64),
                                    nn.ReLU(), nn.Linear(64, 10), nn.Softmax(dim=1)),
    }


def train(model, xtr, ytr):
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    logits_of = model[:-1] if isinstance(model[-1], nn.Softmax) else model
    for _ in range(EPOCHS):
        model.train()
        perm = torch.randperm(len(xtr))
        for i in range(0, len(xtr), 128):
            idx = perm[i:i + 128]
            loss = nn.functional.cross_entropy(logits_of(torch.from_numpy(xtr[idx])),
                                               torch.from_numpy(ytr[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    xtr, ytr = images('train-images-idx3-ubyte.gz'), labels('train-labels-idx1-ubyte.gz')
    xte, yte = images('t10k-images-idx3-ubyte.gz')[:N_TEST], labels('t10k-labels-idx1-ubyte.gz')[:N_TEST]
    saved = {'labels': yte}
    for name, model in build().items():
        t0 = time.time()
        train(model, xtr, ytr)
        path = os.path.join(out, name + '.onnx')
        torch.onnx.export(model, torch.from_numpy(xte[:1]), path, input_names=['input'],
                          output_names=['output'], opset_version=13,
                          dynamic_axes={'input': {0: 'batch'}, 'output': {0: 'batch'}})
        onnx.checker.check_model(onnx.load(path))
        with torch.no_grad():
            y = model(torch.from_numpy(xte)).numpy()
        saved[name] = y
        saved[name + '_accuracy'] = np.float64((y.argmax(1) == yte).mean())
        print(f'{name}: {time.time() - t0:.0f} s, accuracy on {N_TEST} test images '
              f'{saved[name + "_accuracy"]:.4f}, {os.path.getsize(path)} bytes')
    np.savez_compressed(os.path.join(out, 'torch_outputs.npz'), **saved)


if __name__ == '__main__':
    main()
