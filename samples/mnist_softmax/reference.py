#!/usr/bin/python3
"""reference.py - The sample's training in NumPy, independent of kiln: the same
data order (xorshift32 shuffle, seed 42), the same SGD step on the softmax
cross entropy (learning rate 0.5, batch 100, W and b from zeros), the same
evaluation. Prints the final loss and test accuracy for comparison with
train.cpp's output.

    /usr/bin/python3 reference.py [DATA_DIR] [STEPS]
"""
import gzip
import os
import sys

import numpy as np


def load(directory, stem, dims):
    path = os.path.join(directory, stem)
    opener = gzip.open if os.path.exists(path + '.gz') else open
    with opener(path + '.gz' if opener is gzip.open else path, 'rb') as f:
        data = f.read()
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims)


def shuffled(count, seed):
    order = list(range(count))
    for i in range(count - 1, 0, -1):
        seed ^= (seed << 13) & 0xffffffff
        seed ^= seed >> 17
        seed ^= (seed << 5) & 0xffffffff
        j = seed % (i + 1)
        order[i], order[j] = order[j], order[i]
    return np.array(order)


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else '/usr/share/datasets/fashion-mnist'
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    train_x = load(directory, 'train-images-idx3-ubyte', 3).reshape(60000, 784)
    train_y = load(directory, 'train-labels-idx1-ubyte', 1)
    test_x = load(directory, 't10k-images-idx3-ubyte', 3).reshape(10000, 784)
    test_y = load(directory, 't10k-labels-idx1-ubyte', 1)
    w = np.zeros((784, 10), np.float32)
    b = np.zeros(10, np.float32)
    order = shuffled(60000, 42)
    for step in range(steps):
        start = step * 100 % 60000
        batch = order[start:start + 100]
        x = train_x[batch].astype(np.float32) / np.float32(255)
        y = np.eye(10, dtype=np.float32)[train_y[batch]]
        logits = x @ w + b
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        loss = np.mean(np.sum(y * (np.log(s) - shifted), axis=1))
        grad = (e / s - y) / np.float32(100)
        w -= np.float32(0.5) * (x.T @ grad)
        b -= np.float32(0.5) * grad.sum(axis=0)
        if step % 100 == 0 or step == steps - 1:
            print(f'step {step:4d}  loss {loss:.4f}')
    predictions = np.argmax(test_x.astype(np.float32) / np.float32(255) @ w + b, axis=1)
    print(f'test accuracy: {np.mean(predictions == test_y):.4f}')


if __name__ == '__main__':
    main()
