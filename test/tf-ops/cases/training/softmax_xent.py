"""Reference for softmax_xent.pbtxt: TensorFlow.js has no SoftmaxCrossEntropyWithLogits"""
import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def reference(inputs):
    logits = inputs["logits"].astype(np.float64)
    labels = softmax(inputs["raw"].astype(np.float64))
    log_softmax = logits - logits.max(axis=1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(axis=1, keepdims=True))
    loss = -(labels * log_softmax).sum(axis=1)
    return [loss.astype(np.float32), (softmax(logits) - labels).astype(np.float32)]
