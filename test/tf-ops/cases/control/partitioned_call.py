"""TopKV2 (values, indices), Split's second part squared, FusedBatchNormV3's batch mean."""
import numpy as np


def reference(inputs):
    x = inputs['x']
    order = np.argsort(-x, axis=-1, kind='stable')[..., :2]
    values = np.take_along_axis(x, order, axis=-1)
    square = x[..., 2:] * x[..., 2:]
    mean = x.reshape(-1, 4).mean(axis=0)
    return [values, order.astype(np.int32), square, mean.astype(np.float32)]
