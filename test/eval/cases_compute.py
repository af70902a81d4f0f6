"""NumPy cases for reductions, reduce-window, arg-max/min, dot, convolution,
sort and top-k. Windowed ops and convolution are computed from their
definitions: pad/dilate with NumPy, then reduce or contract each window."""
import itertools

import numpy as np

from cases_elementwise import floats, ints
from evalcase import NP_TYPES, Case, array_type, braces, shape_text

ACCUMULATED = {"f16": (3e-3, 3e-3), "f32": (2e-6, 1e-5), "f64": (1e-12, 1e-12)}
REDUCERS = {"add": (np.sum, 0), "mul": (np.prod, 1), "max": (np.max, -np.inf),
            "min": (np.min, np.inf), "and": (np.all, True), "or": (np.any, False)}
INT_REDUCERS = {"add": np.add, "mul": np.multiply, "max": np.maximum,
                "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or}


def literal(value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, float) and np.isinf(value):
        return "inf" if value > 0 else "-inf"
    return str(value)


def dtype_of(x):
    return array_type(x).split("[")[0]


def init_for(reducer, dtype):
    if dtype == "pred":
        return REDUCERS[reducer][1]
    if dtype.startswith(("s", "u")):
        info = np.iinfo(NP_TYPES[dtype])
        return {"add": 0, "mul": 1, "max": int(info.min), "min": int(info.max),
                "and": -1 if info.min < 0 else int(info.max), "or": 0}[reducer]
    return float(REDUCERS[reducer][1])


def reduce_expected(x, dims, reducer, init):
    dtype = dtype_of(x)
    if dtype in ("f16",):
        y = REDUCERS[reducer][0](x.astype(np.float32), axis=dims)
        return np.asarray(y).astype(np.float16)
    if dtype.startswith(("s", "u")):
        y = INT_REDUCERS[reducer].reduce(x, axis=dims,
                                         initial=x.dtype.type(init))
        return np.asarray(y).astype(x.dtype)
    with np.errstate(invalid="ignore"):
        y = REDUCERS[reducer][0](x, axis=dims, initial=init) if x.size == 0 \
            else REDUCERS[reducer][0](x, axis=dims)
    return np.asarray(y).astype(x.dtype)


def reduce_cases(rng):
    cases = []
    rows = [(floats(rng, (3, 4, 5), "f32"), (1,), "add"),
            (floats(rng, (3, 4, 5), "f32"), (0, 2), "add"),
            (floats(rng, (2, 3), "f64"), (0, 1), "mul"),
            (floats(rng, (4, 6), "f32", specials=True), (1,), "max"),
            (floats(rng, (4, 6), "f32", specials=True), (0,), "min"),
            (floats(rng, (3, 16), "f16"), (1,), "add"),
            (ints(rng, (3, 5), "s32"), (1,), "add"),
            (ints(rng, (4, 3), "u8"), (0,), "mul"),
            (ints(rng, (2, 3, 2), "s64"), (0, 2), "max"),
            (ints(rng, (5,), "u16"), (0,), "min"),
            (ints(rng, (3, 4), "s8"), (1,), "and"),
            (ints(rng, (3, 4), "u32"), (0,), "or"),
            (rng.integers(0, 2, (3, 4)).astype(bool), (1,), "and"),
            (rng.integers(0, 2, (3, 4)).astype(bool), (0,), "or"),
            (floats(rng, (3, 0), "f32"), (1,), "add"),
            (floats(rng, (0, 2), "f32"), (0,), "max")]
    for x, dims, reducer in rows:
        dtype = dtype_of(x)
        init = init_for(reducer, dtype)
        with np.errstate(over="ignore"):
            expected = reduce_expected(x, dims, reducer, init)
        case = Case(f"reduce {array_type(x)} dims={dims} {reducer}", ["reduce"])
        k = case.const(f"{dtype}[]", literal(init))
        r = case.op(array_type(expected), "reduce", [case.param(x), k],
                    f"dimensions={braces(dims)}, reducer={reducer}")
        case.expect(r, expected, ACCUMULATED.get(dtype))
        cases.append(case)
    return cases


def window_text(window):
    text = "size=" + "x".join(str(w["size"]) for w in window)
    fields = [("stride", "stride", 1), ("lhs_dilate", "base", 1),
              ("rhs_dilate", "dil", 1)]
    if any(w.get("lo", 0) or w.get("hi", 0) for w in window):
        text += " pad=" + "x".join(f"{w.get('lo', 0)}_{w.get('hi', 0)}"
                                   for w in window)
    for name, key, default in fields:
        if any(w.get(key, default) != default for w in window):
            text += f" {name}=" + "x".join(str(w.get(key, default))
                                          for w in window)
    return "{" + text + "}"


def dilate_pad(x, window, fill):
    """Base-dilates x (holes = fill) and pads its edges with fill."""
    shape = [(n - 1) * w.get("base", 1) + 1 if n else 0
             for n, w in zip(x.shape, window)]
    y = np.full(shape, fill, dtype=np.float64 if x.dtype.kind == "f" else x.dtype)
    y[tuple(slice(None, None, w.get("base", 1)) for w in window)] = x
    widths = [(w.get("lo", 0), w.get("hi", 0)) for w in window]
    return np.pad(y, widths, constant_values=fill)


def windows(padded, window):
    """Yields (output index, window elements) over every output position."""
    spans = [(w["size"] - 1) * w.get("dil", 1) + 1 for w in window]
    out = [(n - s) // w.get("stride", 1) + 1 if n >= s else 0
           for n, s, w in zip(padded.shape, spans, window)]
    for index in itertools.product(*(range(n) for n in out)):
        region = tuple(slice(o * w.get("stride", 1),
                             o * w.get("stride", 1) + s, w.get("dil", 1))
                       for o, s, w in zip(index, spans, window))
        yield out, index, padded[region]


def reduce_window_expected(x, window, reducer):
    init = init_for(reducer, dtype_of(x))
    padded = dilate_pad(x, window, init)
    result = None
    for out, index, block in windows(padded, window):
        if result is None:
            result = np.zeros(out, dtype=padded.dtype)
        values = np.concatenate([[init], block.ravel()]).astype(padded.dtype)
        result[index] = REDUCERS[reducer][0](values)
    if result is None:
        spans = [(w["size"] - 1) * w.get("dil", 1) + 1 for w in window]
        result = np.zeros([max((n - s) // w.get("stride", 1) + 1, 0)
                           for n, s, w in zip(padded.shape, spans, window)])
    return result.astype(x.dtype), init


def reduce_window_cases(rng):
    cases = []
    pool = [dict(size=1), dict(size=2, stride=2), dict(size=2, stride=2),
            dict(size=1)]
    rows = [(floats(rng, (1, 4, 6, 1), "f32"), pool, "max"),
            (floats(rng, (5, 5), "f32"), [dict(size=3, lo=1, hi=1)] * 2, "add"),
            (floats(rng, (4,), "f64"), [dict(size=3, base=2, lo=1, hi=2)], "add"),
            (floats(rng, (7,), "f32"), [dict(size=2, dil=2, stride=2)], "max"),
            (ints(rng, (3, 6), "s32", -50, 50),
             [dict(size=2, lo=1), dict(size=3, stride=2, hi=1)], "add"),
            (floats(rng, (2, 5), "f16"), [dict(size=1), dict(size=3, lo=2)], "min"),
            (floats(rng, (6,), "f32"), [dict(size=2, base=3, dil=2, lo=2, hi=1,
                                             stride=2)], "max")]
    for x, window, reducer in rows:
        expected, init = reduce_window_expected(x, window, reducer)
        case = Case(f"reduce-window {array_type(x)} {window_text(window)} "
                    f"{reducer}", ["reduce-window"])
        k = case.const(f"{dtype_of(x)}[]", literal(init))
        r = case.op(array_type(expected), "reduce-window", [case.param(x), k],
                    f"window={window_text(window)}, reducer={reducer}")
        case.expect(r, expected, ACCUMULATED.get(dtype_of(x)))
        cases.append(case)
    return cases


def arg_cases(rng):
    cases = []
    x = floats(rng, (3, 5), "f32")
    x[0] = [1, 3, 3, np.nan, np.nan]  # first NaN wins both ways
    x[1] = [2, 2, -1, 5, 5]           # ties: first occurrence
    rows = [(x, 1, "s32"), (floats(rng, (4, 3), "f64"), 0, "s64"),
            (ints(rng, (2, 6), "s32", -3, 3), 1, "s32"),
            (floats(rng, (3, 4), "f16"), 1, "u8"),
            (ints(rng, (5,), "u8", 0, 3), 0, "s16")]
    for data, axis, index_type in rows:
        for opcode, fn in [("arg-max", np.argmax), ("arg-min", np.argmin)]:
            expected = fn(data, axis=axis).astype(NP_TYPES[index_type])
            case = Case(f"{opcode} {array_type(data)} dim {axis}", [opcode])
            r = case.op(array_type(expected), opcode, [case.param(data)],
                        f"dimensions={{{axis}}}")
            case.expect(r, expected)
            cases.append(case)
    return cases


def dot_attrs(lc, rc, lb=(), rb=()):
    text = f"lhs_contracting_dims={braces(lc)}, rhs_contracting_dims={braces(rc)}"
    if lb:
        text = (f"lhs_batch_dims={braces(lb)}, " + text.replace(
            "rhs_contracting", f"rhs_batch_dims={braces(rb)}, rhs_contracting"))
    return text


def dot_cases(rng):
    cases = []
    def small(shape, dtype):
        if dtype.startswith(("s", "u")):
            return ints(rng, shape, dtype, -20, 20)
        return floats(rng, shape, dtype)
    rows = [("f32", (3, 4), (4, 5), "ij,jk->ik", ((1,), (0,))),
            ("f64", (3, 4), (4, 5), "ij,jk->ik", ((1,), (0,))),
            ("s32", (2, 3), (3, 2), "ij,jk->ik", ((1,), (0,))),
            ("f16", (4, 8), (8, 3), "ij,jk->ik", ((1,), (0,))),
            ("f32", (4,), (4,), "i,i->", ((0,), (0,))),
            ("f32", (4, 3), (5, 4), "ki,jk->ij", ((0,), (1,))),
            ("f32", (2, 3, 4), (3, 4, 5), "ijk,jkl->il", ((1, 2), (0, 1))),
            ("f32", (3, 0), (0, 2), "ij,jk->ik", ((1,), (0,))),
            ("f32", (0, 3), (0, 2), "ji,jk->ik", ((0,), (0,)))]
    for dtype, ls, rs, spec, (lc, rc) in rows:
        a, b = small(ls, dtype), small(rs, dtype)
        cases.append(dot_case(a, b, spec, dot_attrs(lc, rc)))
    a, b = floats(rng, (2, 3, 4), "f32"), floats(rng, (2, 4, 5), "f32")
    cases.append(dot_case(a, b, "bij,bjk->bik", dot_attrs((2,), (1,), (0,), (0,))))
    a, b = floats(rng, (3, 2, 4), "f64"), floats(rng, (4, 2), "f64")
    cases.append(dot_case(a, b, "ibj,jb->bi", dot_attrs((2,), (0,), (1,), (1,))))
    return cases


def dot_case(a, b, spec, attrs):
    dtype = dtype_of(a)
    if dtype.startswith(("s", "u")):
        expected = np.einsum(spec, a.astype(np.int64), b.astype(np.int64))
    else:
        expected = np.einsum(spec, a.astype(np.float64), b.astype(np.float64))
    expected = np.asarray(expected).astype(a.dtype)
    case = Case(f"dot {array_type(a)} x {array_type(b)} {spec}", ["dot"])
    r = case.op(array_type(expected), "dot", [case.param(a), case.param(b)], attrs)
    case.expect(r, expected, ACCUMULATED.get(dtype))
    return case


def cases(rng):
    from cases_conv import conv_cases, ordering_cases
    return (reduce_cases(rng) + reduce_window_cases(rng) + arg_cases(rng) +
            dot_cases(rng) + conv_cases(rng) + ordering_cases(rng))
