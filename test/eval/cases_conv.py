"""NumPy cases for convolution (computed from XLA's definition on canonical
NC-spatial layouts), sort and top-k (from stable argsorts)."""
import itertools

import numpy as np

from cases_elementwise import floats, ints
from evalcase import Case, array_type

CONV_TOL = {"f16": (3e-3, 3e-3), "f32": (2e-6, 1e-5), "f64": (1e-12, 1e-12)}


def parse_labels(labels):
    lhs, rest = labels.split("_")
    rhs, out = rest.split("->")
    return lhs, rhs, out


def canonical(x, labels, first, second):
    """Transposes x to (first, second, spatial 0, spatial 1, ...)."""
    spatial = sorted(c for c in labels if c.isdigit())
    order = [labels.index(first), labels.index(second)]
    order += [labels.index(c) for c in spatial]
    return np.transpose(x, order)


def dilate(x, axis, factor):
    if factor == 1:
        return x
    shape = list(x.shape)
    shape[axis] = (shape[axis] - 1) * factor + 1 if shape[axis] else 0
    y = np.zeros(shape, dtype=x.dtype)
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, factor)
    y[tuple(index)] = x
    return y


def pad_axis(x, axis, low, high):
    widths = [(0, 0)] * x.ndim
    widths[axis] = (max(low, 0), max(high, 0))
    x = np.pad(x, widths)
    index = [slice(None)] * x.ndim
    index[axis] = slice(max(-low, 0), x.shape[axis] - max(-high, 0))
    return x[tuple(index)]


def conv_reference(lhs, rhs, labels, window, groups=1, batch_groups=1):
    """XLA convolution from its definition, in float64 (or int64)."""
    in_labels, k_labels, out_labels = parse_labels(labels)
    wide = np.float64 if lhs.dtype.kind == "f" else np.int64
    x = canonical(lhs, in_labels, "b", "f").astype(wide)
    k = canonical(rhs, k_labels, "o", "i").astype(wide)
    for s, w in enumerate(window):
        x = pad_axis(dilate(x, 2 + s, w.get("base", 1)), 2 + s,
                     w.get("lo", 0), w.get("hi", 0))
        k = dilate(k, 2 + s, w.get("dil", 1))
    n, c = x.shape[:2]
    o, i = k.shape[:2]
    spans = k.shape[2:]
    strides = [w.get("stride", 1) for w in window]
    out_sp = [max((size - span) // st + 1, 0)
              for size, span, st in zip(x.shape[2:], spans, strides)]
    result = np.zeros([n // batch_groups, o] + out_sp, dtype=wide)
    for f in range(o):
        group = f // (o // groups)
        batch_group = f // (o // batch_groups)
        rows = x[batch_group * (n // batch_groups):(batch_group + 1) *
                 (n // batch_groups), group * i:(group + 1) * i]
        for pos in itertools.product(*(range(m) for m in out_sp)):
            region = tuple(slice(p * st, p * st + span)
                           for p, st, span in zip(pos, strides, spans))
            patch = rows[(slice(None), slice(None)) + region]
            result[(slice(None), f) + pos] = np.tensordot(
                patch, k[f], axes=(list(range(1, patch.ndim)),
                                   list(range(k[f].ndim))))
    # Back from (b, f, spatial...) to the output labels' order.
    spatial = sorted(ch for ch in out_labels if ch.isdigit())
    canonical_labels = ["b", "f"] + spatial
    order = [canonical_labels.index(ch) for ch in out_labels]
    return np.transpose(result, order).astype(lhs.dtype)


def conv_window_text(window, kernel_sizes):
    from cases_compute import window_text
    return window_text([dict(w, size=s) for w, s in zip(window, kernel_sizes)])


def conv_case(rng, dtype, lhs_shape, rhs_shape, labels, window, groups=1,
              batch_groups=1):
    make = (lambda s: ints(rng, s, dtype, -5, 5)) if dtype.startswith("s") \
        else (lambda s: floats(rng, s, dtype))
    lhs, rhs = make(lhs_shape), make(rhs_shape)
    expected = conv_reference(lhs, rhs, labels, window, groups, batch_groups)
    k_labels = parse_labels(labels)[1]
    sizes = [rhs_shape[k_labels.index(str(s))] for s in range(len(window))]
    attrs = f"window={conv_window_text(window, sizes)}, dim_labels={labels}"
    if groups != 1:
        attrs += f", feature_group_count={groups}"
    if batch_groups != 1:
        attrs += f", batch_group_count={batch_groups}"
    case = Case(f"convolution {labels} {attrs}", ["convolution"])
    r = case.op(array_type(expected), "convolution",
                [case.param(lhs), case.param(rhs)], attrs)
    case.expect(r, expected, CONV_TOL.get(dtype))
    return case


def conv_cases(rng):
    same = dict(lo=1, hi=1)
    return [
        conv_case(rng, "f32", (1, 5, 5, 2), (3, 3, 2, 4), "b01f_01io->b01f",
                  [same, same]),
        conv_case(rng, "f32", (2, 3, 6, 5), (4, 3, 2, 2), "bf01_oi01->bf01",
                  [dict(stride=2, hi=1), dict(lo=1, dil=2)]),
        conv_case(rng, "f64", (1, 4, 1), (3, 1, 2), "b0f_0io->b0f",
                  [dict(lo=2, hi=2, base=2)]),
        conv_case(rng, "f32", (1, 6, 4), (3, 2, 6), "b0f_0io->b0f",
                  [dict(lo=-1, hi=1)], groups=2),
        conv_case(rng, "f32", (2, 5, 3), (2, 1, 3), "b0f_0io->b0f",
                  [dict(dil=2)], groups=3),
        conv_case(rng, "f32", (4, 5, 2), (2, 2, 4), "b0f_0io->b0f", [dict()],
                  batch_groups=2),
        conv_case(rng, "s32", (1, 4, 4, 1), (2, 2, 1, 2), "b01f_01io->b01f",
                  [dict(stride=2), dict(base=2, lo=1)]),
        conv_case(rng, "f16", (1, 2, 5, 5), (2, 2, 3, 3), "bf01_oi01->bf01",
                  [same, same]),
        conv_case(rng, "f32", (3, 6, 2), (3, 2, 2), "f0b_i0o->b0f",
                  [dict(stride=2)]),
        conv_case(rng, "f32", (1, 0, 2), (2, 2, 3), "b0f_0io->b0f",
                  [dict(lo=1, hi=1)]),
    ]


def stable_order(keys, axis, descending):
    """Stable ascending order with NaN last, or descending with NaN first."""
    moved = np.moveaxis(keys, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1]) if moved.size else \
        moved.reshape(-1, moved.shape[-1])
    orders = []
    for row in flat:
        values = row.astype(np.float64)
        nan = np.isnan(values)
        if descending:
            orders.append(np.lexsort((-values, ~nan)))
        else:
            orders.append(np.lexsort((values, nan)))
    order = np.array(orders, dtype=np.int64).reshape(moved.shape)
    return np.moveaxis(order, -1, axis)


def expect_sorted(case, arrays, axis, order, attrs):
    """sort(arrays) with `attrs`; expects every operand permuted by `order`
    (positions along `axis`)."""
    params = [case.param(a) for a in arrays]
    expected = [np.take_along_axis(a, order, axis) for a in arrays]
    if len(arrays) == 1:
        case.expect(case.op(array_type(expected[0]), "sort", params, attrs),
                    expected[0])
        return case
    case.opcodes.add("get-tuple-element")
    types = "(" + ", ".join(array_type(e) for e in expected) + ")"
    t = case.op(types, "sort", params, attrs)
    for i, e in enumerate(expected):
        case.expect(case.op(array_type(e), "get-tuple-element", [t],
                            f"index={i}"), e)
    return case


def sort_case(name, arrays, axis, descending):
    attrs = f"dimensions={{{axis}}}"
    if descending:
        attrs += ", descending=true"
    return expect_sorted(Case(name, ["sort"]), arrays, axis,
                         stable_order(arrays[0], axis, descending), attrs)


def ordering_cases(rng):
    keys = floats(rng, (3, 6), "f32")
    keys[0] = [3, np.nan, 1, 3, -np.inf, np.nan]
    ties = floats(rng, (7,), "f32").round()
    ties[2] = np.nan
    cases = [
        sort_case("sort f32[3,6] ascending", [keys], 1, False),
        sort_case("sort f32[3,6] descending", [keys], 1, True),
        sort_case("sort s32[8] descending", [ints(rng, (8,), "s32", -3, 3)], 0,
                  True),
        sort_case("sort u8[4,3] along 0", [ints(rng, (4, 3), "u8", 0, 3)], 0,
                  False),
        sort_case("sort keys with payloads", [ties, np.arange(7, dtype=np.int32),
                                              floats(rng, (7,), "f16")], 0, False),
        sort_case("sort f64[2,5] payload descending",
                  [floats(rng, (2, 5), "f64").round(),
                   ints(rng, (2, 5), "s64")], 1, True),
        sort_case("sort f32[0,3]", [floats(rng, (0, 3), "f32")], 1, False),
    ]
    for x, k, largest in [(keys, 3, True), (keys, 2, False),
                          (ints(rng, (6,), "s32", -2, 2), 4, True),
                          (floats(rng, (2, 5), "f16"), 5, False),
                          (ints(rng, (2, 4), "u16", 0, 2), 0, True)]:
        cases.append(top_k_case(x, k, largest))
    return cases


def top_k_case(x, k, largest):
    order = stable_order(x, x.ndim - 1, largest)[..., :k]
    values = np.take_along_axis(x, order, -1)
    indices = order.astype(np.int32)
    case = Case(f"top-k {array_type(x)} k={k} largest={largest}",
                ["top-k", "get-tuple-element"])
    attrs = f"k={k}" + ("" if largest else ", largest=false")
    t = case.op(f"({array_type(values)}, {array_type(indices)})", "top-k",
                [case.param(x)], attrs)
    case.expect(case.op(array_type(values), "get-tuple-element", [t], "index=0"),
                values)
    case.expect(case.op(array_type(indices), "get-tuple-element", [t],
                        "index=1"), indices)
    return case
