"""Reference for sparse_softmax_xent.pbtxt: TensorFlow.js has no SparseSoftmaxCrossEntropyWithLogits"""
import numpy as np


def xent(logits, labels):
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_softmax = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    onehot = np.eye(logits.shape[1])[labels]
    loss = -(onehot * log_softmax).sum(axis=1)
    return [loss.astype(np.float32), (np.exp(log_softmax) - onehot).astype(np.float32)]


def reference(inputs):
    logits = inputs["logits"].astype(np.float64)
    return xent(logits, inputs["labels"]) + xent(logits, inputs["labels64"])
