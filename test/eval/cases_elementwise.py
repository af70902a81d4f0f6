"""NumPy cases for elementwise opcodes: unary, binary, compare, select,
clamp and convert, over every dtype family they accept."""
import numpy as np

from evalcase import Case, ERF, INT_TYPES, NP_TYPES, round_bf16, shape_text

F32 = np.float32
# Tolerances (rtol, atol): arithmetic that rounds once is exact; libm
# functions may differ by an ulp or two from NumPy's; f16 by one f16 ulp.
EXACT = (0, 0)
TRANSCENDENTAL = {"f16": (2e-3, 1e-3), "f32": (2e-6, 1e-6),
                  "f64": (1e-13, 1e-14)}


def floats(rng, shape, dtype, scale=3.0, positive=False, specials=False):
    x = rng.standard_normal(shape) * scale
    if positive:
        x = np.abs(x) + 0.1
    x = x.astype(NP_TYPES[dtype])
    if specials and x.size >= 4:
        flat = x.reshape(-1)
        flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return x


def ints(rng, shape, dtype, low=None, high=None):
    info = np.iinfo(NP_TYPES[dtype])
    low = info.min if low is None else max(low, info.min)
    high = info.max if high is None else min(high, info.max)
    x = rng.integers(low, high, size=shape, endpoint=True, dtype=NP_TYPES[dtype])
    if x.size >= 2 and low == info.min and high == info.max:
        x.reshape(-1)[:2] = [info.min, info.max]
    return x


def in_f32(fn, dtype):
    """Computes fn in f32 for f16 (like the evaluator) and in dtype otherwise."""
    def run(*args):
        if dtype == "f16":
            return fn(*(a.astype(F32) for a in args)).astype(np.float16)
        return np.asarray(fn(*args)).astype(NP_TYPES[dtype])
    return run


def round_afz(x):
    trunc = np.trunc(x)
    return np.where(np.abs(x - trunc) >= 0.5, trunc + np.sign(x), trunc)


# opcode -> (NumPy function, input needs positive values, transcendental)
UNARY_FLOAT = {
    "abs": (np.abs, False, False),
    "negate": (np.negative, False, False),
    "exponential": (np.exp, False, True),
    "log": (np.log, True, True),
    "sqrt": (np.sqrt, True, False),
    "rsqrt": (lambda x: 1 / np.sqrt(x), True, True),
    "tanh": (np.tanh, False, True),
    "logistic": (lambda x: 1 / (1 + np.exp(-x)), False, True),
    "erf": (ERF, False, True),
    "sine": (np.sin, False, True),
    "cosine": (np.cos, False, True),
    "floor": (np.floor, False, False),
    "ceil": (np.ceil, False, False),
    "round-nearest-even": (np.rint, False, False),
    "round-nearest-afz": (round_afz, False, False),
    "sign": (np.sign, False, False),
    "copy": (lambda x: x, False, False),
}


def unary_float_cases(rng):
    cases = []
    for opcode, (fn, positive, transcendental) in UNARY_FLOAT.items():
        for dtype, shape in [("f32", (3, 4)), ("f64", (5,)), ("f16", (2, 3)),
                             ("f32", (0, 3)), ("f64", ())]:
            case = Case(f"{opcode} {shape_text(dtype, shape)}", [opcode])
            x = floats(rng, shape, dtype, positive=positive)
            if opcode.startswith("round") and x.size >= 4:
                x.reshape(-1)[:4] = [0.5, -2.5, 1.5, -0.5]
            p = case.param(x)
            r = case.op(shape_text(dtype, shape), opcode, [p])
            exact = (np.exp, np.log, np.sqrt, np.tanh, np.sin, np.cos)
            tol = TRANSCENDENTAL[dtype] if transcendental or fn in exact else EXACT
            case.expect(r, in_f32(fn, dtype)(x), tol)
            cases.append(case)
    return cases


UNARY_INT = {"abs": np.abs, "negate": np.negative, "sign": np.sign,
             "not": np.invert, "copy": lambda x: x}


def unary_int_cases(rng):
    cases = []
    for opcode, fn in UNARY_INT.items():
        for dtype in INT_TYPES:
            if opcode == "sign" and dtype.startswith("u"):
                continue  # the verifier takes sign on signed types only
            case = Case(f"{opcode} {dtype}[7]", [opcode])
            x = ints(rng, (7,), dtype)
            r = case.op(shape_text(dtype, (7,)), opcode, [case.param(x)])
            case.expect(r, fn(x))
            cases.append(case)
    case = Case("not pred[6]", ["not"])
    x = rng.integers(0, 2, size=6).astype(bool)
    case.expect(case.op("pred[6]", "not", [case.param(x)]), ~x)
    cases.append(case)
    case = Case("is-finite f32/f16", ["is-finite"])
    for dtype in ["f32", "f16", "f64"]:
        x = floats(rng, (2, 4), dtype, specials=True)
        case.expect(case.op("pred[2,4]", "is-finite", [case.param(x)]),
                    np.isfinite(x))
    cases.append(case)
    return cases


BINARY_FLOAT = {
    "add": (np.add, False), "subtract": (np.subtract, False),
    "multiply": (np.multiply, False), "divide": (np.divide, False),
    "remainder": (np.fmod, False), "power": (np.power, True),
    "maximum": (np.maximum, False), "minimum": (np.minimum, False),
    "atan2": (np.arctan2, False),
}


def binary_float_cases(rng):
    cases = []
    for opcode, (fn, positive) in BINARY_FLOAT.items():
        for dtype, shape in [("f32", (3, 4)), ("f64", (6,)), ("f16", (2, 5)),
                             ("f32", (4, 0)), ("f32", ())]:
            case = Case(f"{opcode} {shape_text(dtype, shape)}", [opcode])
            a = floats(rng, shape, dtype, positive=positive)
            b = floats(rng, shape, dtype, scale=2.0)
            if opcode in ("maximum", "minimum") and a.size >= 3:
                a.reshape(-1)[0] = np.nan  # NaN propagates from either side
                b.reshape(-1)[1] = np.nan
            r = case.op(shape_text(dtype, shape), opcode,
                        [case.param(a), case.param(b)])
            tol = TRANSCENDENTAL[dtype] if opcode in ("power", "atan2") else EXACT
            case.expect(r, in_f32(fn, dtype)(a, b), tol)
            cases.append(case)
    for opcode in ["add", "multiply", "maximum"]:
        case = Case(f"{opcode} bf16[2,3]", [opcode])
        a = floats(rng, (2, 3), "f32")
        b = floats(rng, (2, 3), "f32")
        r = case.op("bf16[2,3]", opcode, [case.bf16(a), case.bf16(b)])
        fn = BINARY_FLOAT[opcode][0]
        case.expect_bf16(r, (2, 3), fn(round_bf16(a), round_bf16(b)))
        cases.append(case)
    return cases


def trunc_divide(a, b, dtype):
    """XLA integer division: x/0 = -1, INT_MIN/-1 = INT_MIN, else truncate."""
    info = np.iinfo(NP_TYPES[dtype])
    overflow = (a == info.min) & (b == -1) if info.min < 0 else b != b
    safe = np.where((b == 0) | overflow, 1, b).astype(a.dtype)
    q = a // safe
    inexact = (a % safe != 0) & ((a < 0) != (safe < 0))
    q = np.where(inexact, q + 1, q).astype(a.dtype)
    q = np.where(overflow, a, q)
    return np.where(b == 0, np.array(-1).astype(a.dtype), q).astype(a.dtype)


def trunc_remainder(a, b, dtype):
    info = np.iinfo(NP_TYPES[dtype])
    overflow = (a == info.min) & (b == -1) if info.min < 0 else b != b
    safe = np.where((b == 0) | overflow, 1, b).astype(a.dtype)
    r = np.fmod(a, safe)
    return np.where(b == 0, a, np.where(overflow, 0, r)).astype(a.dtype)


def shift(a, b, kind):
    bits = a.dtype.itemsize * 8
    unsigned = np.dtype(f"uint{bits}")
    signed = np.dtype(f"int{bits}")
    amount = b.view(unsigned)
    too_wide = amount >= bits
    safe = np.where(too_wide, 0, amount).astype(unsigned)
    if kind == "left":
        r = np.where(too_wide, 0, a.view(unsigned) << safe).astype(unsigned)
    elif kind == "logical":
        r = np.where(too_wide, 0, a.view(unsigned) >> safe).astype(unsigned)
    else:
        s = a.view(signed)
        fill = np.where(s < 0, -1, 0).astype(signed)
        r = np.where(too_wide, fill, s >> safe.astype(signed)).astype(signed)
    return r.view(a.dtype)


BINARY_INT = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "maximum": np.maximum, "minimum": np.minimum, "and": np.bitwise_and,
    "or": np.bitwise_or, "xor": np.bitwise_xor,
}


def binary_int_cases(rng):
    cases = []
    with np.errstate(over="ignore"):
        for dtype in INT_TYPES:
            bits = np.dtype(NP_TYPES[dtype]).itemsize * 8
            for opcode, fn in BINARY_INT.items():
                case = Case(f"{opcode} {dtype}[2,4]", [opcode])
                a, b = ints(rng, (2, 4), dtype), ints(rng, (2, 4), dtype)
                r = case.op(shape_text(dtype, (2, 4)), opcode,
                            [case.param(a), case.param(b)])
                case.expect(r, fn(a, b))
                cases.append(case)
            cases.append(division_case(rng, dtype))
            case = Case(f"power {dtype}[8]", ["power"])
            a = ints(rng, (8,), dtype, -6, 6)
            b = ints(rng, (8,), dtype, 0, 9)
            r = case.op(shape_text(dtype, (8,)), "power",
                        [case.param(a), case.param(b)])
            case.expect(r, np.power(a, b))
            cases.append(case)
            for opcode, kind in [("shift-left", "left"),
                                 ("shift-right-logical", "logical"),
                                 ("shift-right-arithmetic", "arith")]:
                case = Case(f"{opcode} {dtype}[10]", [opcode])
                a = ints(rng, (10,), dtype)
                b = ints(rng, (10,), dtype, -2, bits + 3)
                r = case.op(shape_text(dtype, (10,)), opcode,
                            [case.param(a), case.param(b)])
                case.expect(r, shift(a, b, kind))
                cases.append(case)
    for opcode, fn in [("and", np.logical_and), ("or", np.logical_or),
                       ("xor", np.logical_xor)]:
        case = Case(f"{opcode} pred[5]", [opcode])
        a = rng.integers(0, 2, 5).astype(bool)
        b = rng.integers(0, 2, 5).astype(bool)
        case.expect(case.op("pred[5]", opcode, [case.param(a), case.param(b)]),
                    fn(a, b))
        cases.append(case)
    return cases


def division_case(rng, dtype):
    """divide and remainder with zero divisors and INT_MIN / -1."""
    case = Case(f"divide/remainder {dtype}[12]", ["divide", "remainder"])
    a, b = ints(rng, (12,), dtype), ints(rng, (12,), dtype, -20, 20)
    info = np.iinfo(NP_TYPES[dtype])
    b[0] = b[1] = 0
    if info.min < 0:
        a[2], b[2] = info.min, -1
    pa, pb = case.param(a), case.param(b)
    case.expect(case.op(shape_text(dtype, (12,)), "divide", [pa, pb]),
                trunc_divide(a, b, dtype))
    case.expect(case.op(shape_text(dtype, (12,)), "remainder", [pa, pb]),
                trunc_remainder(a, b, dtype))
    return case


COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less,
           "LE": np.less_equal, "GT": np.greater, "GE": np.greater_equal}


def compare_cases(rng):
    cases = []
    for dtype in ["f32", "f16", "f64", "s32", "u64", "s8"]:
        case = Case(f"compare {dtype}[9]", ["compare"])
        if dtype.startswith("f"):
            a = floats(rng, (9,), dtype, specials=True)
            b = floats(rng, (9,), dtype)
            b[5] = a[5]
        else:
            a, b = ints(rng, (9,), dtype, -3, 3), ints(rng, (9,), dtype, -3, 3)
        pa, pb = case.param(a), case.param(b)
        for direction, fn in COMPARE.items():
            r = case.op("pred[9]", "compare", [pa, pb], f"direction={direction}")
            case.expect(r, fn(a, b))
        cases.append(case)
    case = Case("compare pred[4]", ["compare"])
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    pa, pb = case.param(a), case.param(b)
    for direction in ["EQ", "NE"]:
        r = case.op("pred[4]", "compare", [pa, pb], f"direction={direction}")
        case.expect(r, COMPARE[direction](a, b))
    cases.append(case)
    return cases


def ternary_cases(rng):
    cases = []
    for dtype in ["f32", "s32", "u8", "f16", "pred"]:
        case = Case(f"select {dtype}[3,4]", ["select"])
        which = rng.integers(0, 2, (3, 4)).astype(bool)
        if dtype == "pred":
            t = rng.integers(0, 2, (3, 4)).astype(bool)
            f = rng.integers(0, 2, (3, 4)).astype(bool)
        elif dtype in INT_TYPES:
            t, f = ints(rng, (3, 4), dtype), ints(rng, (3, 4), dtype)
        else:
            t, f = floats(rng, (3, 4), dtype), floats(rng, (3, 4), dtype)
        r = case.op(shape_text(dtype, (3, 4)), "select",
                    [case.param(which), case.param(t), case.param(f)])
        case.expect(r, np.where(which, t, f))
        cases.append(case)
    for dtype in ["f32", "s32", "u16", "f64"]:
        case = Case(f"clamp {dtype}[8]", ["clamp"])
        if dtype.startswith("f"):
            lo, x = floats(rng, (8,), dtype) - 1, floats(rng, (8,), dtype)
            hi = lo + np.abs(floats(rng, (8,), dtype))
        else:
            lo, x = ints(rng, (8,), dtype, 0, 50), ints(rng, (8,), dtype, 0, 100)
            hi = (lo + ints(rng, (8,), dtype, 0, 50)).astype(lo.dtype)
        r = case.op(shape_text(dtype, (8,)), "clamp",
                    [case.param(lo), case.param(x), case.param(hi)])
        case.expect(r, np.minimum(np.maximum(x, lo), hi))
        cases.append(case)
    return cases


def saturate(x, dtype):
    """float -> int: truncate toward zero, saturate, NaN -> 0."""
    info = np.iinfo(NP_TYPES[dtype])
    x = x.astype(np.float64)
    past_max = 2.0 ** (info.bits - (1 if info.min < 0 else 0))
    low, high = x <= float(info.min), x >= past_max
    inside = ~(low | high | np.isnan(x))
    safe = np.where(inside, np.trunc(np.where(inside, x, 0)), 0)
    out = safe.astype(NP_TYPES[dtype])
    out[low] = info.min
    out[high] = info.max
    return out


def convert_expected(x, to):
    if to == "pred":
        return x != 0
    if to in INT_TYPES and x.dtype.kind == "f":
        return saturate(x, to)
    return x.astype(NP_TYPES[to])


def convert_cases(rng):
    pairs = [("f32", t) for t in INT_TYPES + ["pred", "f16", "f64"]]
    pairs += [("f64", t) for t in ["s64", "u32", "f32", "f16"]]
    pairs += [("f16", t) for t in ["f32", "s16", "u8"]]
    pairs += [("s32", t) for t in ["s8", "u8", "u64", "f32", "f16", "pred"]]
    pairs += [("u64", "s32"), ("s64", "f32"), ("u8", "s64"), ("pred", "f32"),
              ("pred", "s32"), ("s16", "u16")]
    cases = []
    for src, dst in pairs:
        case = Case(f"convert {src}->{dst}", ["convert"])
        if src == "pred":
            x = rng.integers(0, 2, 6).astype(bool)
        elif src.startswith("f"):
            x = floats(rng, (12,), src, scale=100.0)
            x[:6] = [np.nan, np.inf, -np.inf, 3e9 if src != "f16" else 6e4,
                     -2.5, 0.0]
        else:
            x = ints(rng, (12,), src)
        with np.errstate(invalid="ignore", over="ignore"):
            expected = convert_expected(x, dst)
        r = case.op(shape_text(dst, x.shape), "convert", [case.param(x)])
        case.expect(r, expected)
        cases.append(case)
    case = Case("convert f32->bf16->f32", ["convert"])
    x = floats(rng, (10,), "f32", specials=True)
    case.expect_bf16(case.bf16(x), (10,), x)
    cases.append(case)
    return cases


def cases(rng):
    return (unary_float_cases(rng) + unary_int_cases(rng) +
            binary_float_cases(rng) + binary_int_cases(rng) +
            compare_cases(rng) + ternary_cases(rng) + convert_cases(rng))
