"""NumPy cases for reduce-window with a to_apply computation (XLA's variadic
reduce-window: N inputs, N inits, a tuple result; the arg-max pool is the
common case). Expected values come from a plain Python walk over each
window: taps in row-major order, a tap on padding or a base-dilation hole
reads the init values, and the fold is written here in Python."""
import itertools

import numpy as np

from cases_control import computation
from cases_elementwise import floats, ints
from evalcase import Case, array_type, shape_text


def window_text(sizes, strides, pads, base=None):
    text = "size=" + "x".join(map(str, sizes))
    text += " stride=" + "x".join(map(str, strides))
    text += " pad=" + "x".join(f"{lo}_{hi}" for lo, hi in pads)
    if base:
        text += " lhs_dilate=" + "x".join(map(str, base))
    return "{" + text + "}"


def window_taps(shape, sizes, strides, pads, base=None):
    """Output shape and, per output position (row-major), the operand
    positions of its taps in row-major order (None on padding or a hole)."""
    base = base or [1] * len(shape)
    dilated = [(n - 1) * b + 1 if n else 0 for n, b in zip(shape, base)]
    out = [max(0, (d + lo + hi - s) // st + 1)
           for d, s, st, (lo, hi) in zip(dilated, sizes, strides, pads)]
    windows = []
    for o in itertools.product(*[range(n) for n in out]):
        taps = []
        for t in itertools.product(*[range(s) for s in sizes]):
            pos = [oi * st + ti - lo
                   for oi, ti, st, (lo, _) in zip(o, t, strides, pads)]
            inside = all(0 <= p < d and p % b == 0
                         for p, d, b in zip(pos, dilated, base))
            taps.append(tuple(p // b for p, b in zip(pos, base))
                        if inside else None)
        windows.append(taps)
    return out, windows


def argmax_pool_case(rng, x, sizes, strides, pads, base=None):
    """(value, index) pairs: the larger value wins, ties keep the lower
    index; index = the row-major position, init (-inf, -1)."""
    dtype = array_type(x).split("[")[0]
    case = Case(f"reduce-window to_apply argmax {array_type(x)}",
                ["reduce-window"])
    callee = computation(case, "argmax", [
        f"{{p}}av = {dtype}[] parameter(0)", "{p}ai = s32[] parameter(1)",
        f"{{p}}bv = {dtype}[] parameter(2)", "{p}bi = s32[] parameter(3)",
        "{p}gt = pred[] compare({p}bv, {p}av), direction=GT",
        "{p}eq = pred[] compare({p}bv, {p}av), direction=EQ",
        "{p}lower = pred[] compare({p}bi, {p}ai), direction=LT",
        "{p}tie = pred[] and({p}eq, {p}lower)",
        "{p}take = pred[] or({p}gt, {p}tie)",
        f"{{p}}v = {dtype}[] select({{p}}take, {{p}}bv, {{p}}av)",
        "{p}i = s32[] select({p}take, {p}bi, {p}ai)",
        f"ROOT {{p}}r = ({dtype}[], s32[]) tuple({{p}}v, {{p}}i)"])
    index = np.arange(x.size, dtype=np.int32).reshape(x.shape)
    out, windows = window_taps(x.shape, sizes, strides, pads, base)
    values, indices = [], []
    for taps in windows:
        best_v, best_i = -np.inf, -1
        for tap in taps:
            v, i = (x[tap], index[tap]) if tap is not None else (-np.inf, -1)
            if v > best_v or (v == best_v and i < best_i):
                best_v, best_i = v, i
        values.append(best_v)
        indices.append(best_i)
    types = f"({shape_text(dtype, out)}, {shape_text('s32', out)})"
    r = case.op(types, "reduce-window",
                [case.param(x), case.param(index), case.const(f"{dtype}[]", "-inf"),
                 case.const("s32[]", "-1")],
                f"window={window_text(sizes, strides, pads, base)}, "
                f"to_apply={callee}")
    case.opcodes.add("get-tuple-element")
    case.expect(case.op(shape_text(dtype, out), "get-tuple-element", [r],
                        "index=0"),
                np.array(values, dtype=x.dtype).reshape(out))
    case.expect(case.op(shape_text("s32", out), "get-tuple-element", [r],
                        "index=1"),
                np.array(indices, dtype=np.int32).reshape(out))
    return case


def sum_min_count_case(rng):
    """Three inputs in one pass: a sum of s32 (init 7, which every padding
    tap adds again), a minimum of f64 and a count of the window's
    non-padding taps (input of ones, init 0)."""
    case = Case("reduce-window to_apply three inputs", ["reduce-window"])
    callee = computation(case, "three", [
        "{p}as = s32[] parameter(0)", "{p}am = f64[] parameter(1)",
        "{p}ac = s32[] parameter(2)", "{p}bs = s32[] parameter(3)",
        "{p}bm = f64[] parameter(4)", "{p}bc = s32[] parameter(5)",
        "{p}s = s32[] add({p}as, {p}bs)", "{p}m = f64[] minimum({p}am, {p}bm)",
        "{p}c = s32[] add({p}ac, {p}bc)",
        "ROOT {p}r = (s32[], f64[], s32[]) tuple({p}s, {p}m, {p}c)"])
    a = ints(rng, (6, 5), "s32", -50, 50)
    b = floats(rng, (6, 5), "f64")
    ones = np.ones((6, 5), dtype=np.int32)
    sizes, strides, pads = [3, 2], [2, 1], [(1, 1), (0, 1)]
    out, windows = window_taps(a.shape, sizes, strides, pads)
    sums, mins, counts = [], [], []
    for taps in windows:
        # A padding tap combines the init values (7, inf, 0) like an element.
        sums.append(7 + sum(int(a[t]) if t is not None else 7 for t in taps))
        mins.append(min([np.inf] + [b[t] for t in taps if t is not None]))
        counts.append(sum(t is not None for t in taps))
    inits = [case.const("s32[]", "7"), case.const("f64[]", "inf"),
             case.const("s32[]", "0")]
    types = (f"({shape_text('s32', out)}, {shape_text('f64', out)}, "
             f"{shape_text('s32', out)})")
    r = case.op(types, "reduce-window",
                [case.param(a), case.param(b), case.param(ones)] + inits,
                f"window={window_text(sizes, strides, pads)}, "
                f"to_apply={callee}")
    case.opcodes.add("get-tuple-element")
    for k, (expected, dtype) in enumerate([(sums, "s32"), (mins, "f64"),
                                           (counts, "s32")]):
        array = np.array(expected, dtype=np.int32 if dtype == "s32"
                         else np.float64).reshape(out)
        case.expect(case.op(shape_text(dtype, out), "get-tuple-element", [r],
                            f"index={k}"), array)
    return case


def sum_of_squares_case(rng):
    """One input with a body that is no reducer kind: acc + x * x, over a
    base-dilated input (holes read init 0)."""
    case = Case("reduce-window to_apply sum of squares dilated",
                ["reduce-window"])
    callee = computation(case, "sumsq", [
        "{p}a = f32[] parameter(0)", "{p}b = f32[] parameter(1)",
        "{p}bb = f32[] multiply({p}b, {p}b)",
        "ROOT {p}s = f32[] add({p}a, {p}bb)"])
    x = floats(rng, (3, 4), "f32")
    sizes, strides, pads, base = [2, 3], [1, 2], [(0, 0), (1, 0)], [2, 1]
    out, windows = window_taps(x.shape, sizes, strides, pads, base)
    expected = [sum((float(x[t]) ** 2 for t in taps if t is not None), 0.0)
                for taps in windows]
    r = case.op(shape_text("f32", out), "reduce-window",
                [case.param(x), case.const("f32[]", "0")],
                f"window={window_text(sizes, strides, pads, base)}, "
                f"to_apply={callee}")
    case.expect(r, np.array(expected, dtype=np.float32).reshape(out),
                (1e-5, 1e-6))
    return case


def cases(rng):
    ties = rng.integers(-2, 3, (1, 5, 5, 2)).astype(np.float32)  # many ties
    return [argmax_pool_case(rng, ties, [1, 2, 2, 1], [1, 2, 2, 1],
                             [(0, 0), (0, 1), (0, 1), (0, 0)]),
            argmax_pool_case(rng, floats(rng, (7,), "f64"), [3], [2],
                             [(1, 1)]),
            argmax_pool_case(rng, ints(rng, (4, 4), "s16", -3, 3).astype(
                np.float32), [2, 2], [1, 1], [(0, 0), (0, 0)], [1, 2]),
            sum_min_count_case(rng), sum_of_squares_case(rng)]
