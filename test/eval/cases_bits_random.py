"""NumPy cases for bitcast-convert, reduce-precision and rng.

The expectations are computed independently of kiln's implementation:
bitcast-convert through NumPy views of explicitly little-endian buffers,
reduce-precision through float64 value arithmetic (frexp/ldexp and NumPy's
round-half-to-even) rather than bit manipulation, and rng from the
generator's specification in docs/hlo.md, plus sample means and variances
that any correct uniform or normal generator must show.
"""
import math

import numpy as np

from cases_elementwise import floats, ints
from evalcase import NP_TYPES, Case, array_type, round_bf16, shape_text

# (exponent bits, mantissa bits) of each float storage format.
FORMATS = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23), "f64": (11, 52)}


def little_endian(dtype):
    return np.dtype(NP_TYPES[dtype]).newbyteorder("<")


def bitcast_expected(x, from_type, to_type):
    """x's little-endian bytes read as to_type, with kiln's minor dimension."""
    data = np.ascontiguousarray(x, dtype=little_endian(from_type)).tobytes()
    values = np.frombuffer(data, dtype=little_endian(to_type))
    from_size = np.dtype(NP_TYPES[from_type]).itemsize
    to_size = np.dtype(NP_TYPES[to_type]).itemsize
    if from_size > to_size:
        shape = x.shape + (from_size // to_size,)
    elif from_size < to_size:
        shape = x.shape[:-1]
    else:
        shape = x.shape
    return values.reshape(shape).astype(NP_TYPES[to_type])


def bitcast_cases(rng):
    f32_specials = floats(rng, (5,), "f32", specials=True)
    rows = [
        ("f32", f32_specials, "u8"),
        ("f32", floats(rng, (2, 3), "f32"), "s32"),
        ("u8", ints(rng, (3, 4), "u8"), "f32"),
        ("u8", ints(rng, (3, 4), "u8"), "s32"),
        ("f64", floats(rng, (2, 3), "f64"), "s16"),
        ("s16", ints(rng, (2, 4), "s16"), "f64"),
        ("f16", floats(rng, (6,), "f16", specials=True), "s16"),
        ("u16", ints(rng, (3, 2), "u16"), "u32"),
        ("u64", ints(rng, (2,), "u64"), "s8"),
        ("f64", floats(rng, (), "f64"), "u32"),
        ("u32", ints(rng, (2,), "u32"), "f64"),
        ("s32", ints(rng, (4,), "s32", -1000, 1000), "f32"),
    ]
    cases = []
    for from_type, x, to_type in rows:
        y = bitcast_expected(x, from_type, to_type)
        case = Case(f"bitcast-convert {array_type(x)} -> {array_type(y)}",
                    ["bitcast-convert"])
        case.expect(case.op(array_type(y), "bitcast-convert", [case.param(x)]),
                    y)
        cases.append(case)
    # bf16 (no NumPy dtype): f32 -> bf16 -> u16 gives the top half of the
    # rounded f32's bits.
    x = floats(rng, (7,), "f32")
    case = Case("bitcast-convert bf16[7] -> u16[7]", ["bitcast-convert"])
    b = case.bf16(x)
    top = (round_bf16(x).view(np.uint32) >> 16).astype(np.uint16)
    case.expect(case.op("u16[7]", "bitcast-convert", [b]), top)
    cases.append(case)
    return cases


def reduce_precision_expected(x, dtype, exponent_bits, mantissa_bits):
    """XLA's reduce-precision by value arithmetic in float64 (exact for
    every source format): round to mantissa_bits below the source's own
    exponent (its subnormal quantum for subnormals), then overflow to
    infinity and flush below the reduced format's smallest normal."""
    src_exponent, src_mantissa = FORMATS[dtype]
    v = np.asarray(x, dtype=np.float64).copy()
    regular = np.isfinite(v) & (v != 0)
    r = v[regular]
    if mantissa_bits < src_mantissa:
        _, e = np.frexp(r)  # r = m * 2^e, 0.5 <= |m| < 1
        src_bias = 2 ** (src_exponent - 1) - 1
        quantum_exp = np.maximum(e - 1, 1 - src_bias) - mantissa_bits
        r = np.ldexp(np.round(np.ldexp(r, -quantum_exp)), quantum_exp)
    if exponent_bits < src_exponent:
        bias = 2 ** (exponent_bits - 1) - 1
        magnitude = np.abs(r)
        r = np.where(magnitude >= 2.0 ** (bias + 1), np.copysign(np.inf, r), r)
        r = np.where(magnitude < 2.0 ** (1 - bias), np.copysign(0.0, r), r)
    v[regular] = r
    return v


def random_bits_floats(rng, shape, dtype):
    """Every bit pattern: NaNs, infinities, subnormals, zeros and ties."""
    width = {"f16": np.uint16, "f32": np.uint32, "f64": np.uint64}[dtype]
    bits = rng.integers(0, np.iinfo(width).max, size=shape, dtype=width,
                        endpoint=True)
    return bits.view(NP_TYPES[dtype])


def reduce_precision_cases(rng):
    edges = np.array([65504, 65519.99, 65520, -7e4, 6.1035156e-05, 6.1e-05,
                      3e-05, -1e-8, 0.0, -0.0, 1 + 2.0 ** -11,
                      1 + 3 * 2.0 ** -11, np.inf, -np.inf, np.nan, 1.5],
                     np.float32)
    rows = [
        ("f32", edges, 5, 10),
        ("f32", random_bits_floats(rng, (6, 7), "f32"), 5, 10),
        ("f32", random_bits_floats(rng, (40,), "f32"), 8, 7),
        ("f32", floats(rng, (9,), "f32", specials=True), 8, 23),
        ("f32", random_bits_floats(rng, (40,), "f32"), 3, 2),
        ("f32", random_bits_floats(rng, (20,), "f32"), 1, 0),
        ("f32", floats(rng, (5,), "f32"), 11, 52),
        ("f64", random_bits_floats(rng, (40,), "f64"), 8, 23),
        ("f64", random_bits_floats(rng, (40,), "f64"), 5, 0),
        ("f16", random_bits_floats(rng, (40,), "f16"), 5, 4),
        ("f16", random_bits_floats(rng, (40,), "f16"), 3, 10),
    ]
    cases = []
    for dtype, x, e, m in rows:
        expected = reduce_precision_expected(x, dtype, e, m).astype(x.dtype)
        case = Case(f"reduce-precision {array_type(x)} e={e} m={m}",
                    ["reduce-precision"])
        case.expect(case.op(array_type(x), "reduce-precision", [case.param(x)],
                            f"exponent_bits={e}, mantissa_bits={m}"),
                    expected)
        cases.append(case)
    # bf16 through converts; the result is a bf16 value, exact in f32.
    x = floats(rng, (9,), "f32", scale=100.0)
    case = Case("reduce-precision bf16[9] e=5 m=3", ["reduce-precision"])
    reduced = case.op("bf16[9]", "reduce-precision", [case.bf16(x)],
                      "exponent_bits=5, mantissa_bits=3")
    expected = reduce_precision_expected(round_bf16(x), "bf16", 5, 3)
    case.expect(case.op("f32[9]", "convert", [reduced]),
                expected.astype(np.float32))
    cases.append(case)
    return cases


# The generator of docs/hlo.md, "Random numbers (rng)".
MASK = (1 << 64) - 1


def splitmix_bits(seed, counters):
    z = (np.uint64(seed & MASK) +
         (counters.astype(np.uint64) + np.uint64(1)) *
         np.uint64(0x9E3779B97F4A7C15))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def unit_values(bits, compute):
    if compute == np.float64:
        return (bits >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    return (bits >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24)


def rng_expected(distribution, seed, shape, a, b, dtype):
    compute = np.float64 if dtype == "f64" else np.float32
    a, b = compute(a), compute(b)
    index = np.arange(math.prod(shape), dtype=np.uint64)
    with np.errstate(over="ignore"):
        if distribution == "rng_uniform":
            u = unit_values(splitmix_bits(seed, index), compute)
            values = a + (b - a) * u
        else:
            u1 = unit_values(splitmix_bits(seed, 2 * index), compute)
            u2 = unit_values(splitmix_bits(seed, 2 * index + 1), compute)
            radius = np.sqrt(compute(-2) * np.log(compute(1) - u1))
            values = a + b * (radius * np.cos(compute(2 * np.pi) * u2))
    return values.astype(NP_TYPES[dtype]).reshape(shape)


def rng_case(distribution, seed, shape, a, b, dtype, tol=None):
    case = Case(f"rng {distribution} {shape_text(dtype, shape)} seed={seed}",
                ["rng"])
    scalar = f"{dtype}[]"
    ka, kb = case.const(scalar, repr(a)), case.const(scalar, repr(b))
    seed_attr = f", seed={seed}" if seed else ""
    out = case.op(shape_text(dtype, shape), "rng", [ka, kb],
                  f"distribution={distribution}{seed_attr}")
    case.expect(out, rng_expected(distribution, seed, shape, a, b, dtype), tol)
    return case


def rng_moment_case(distribution, a, b, mean, second_moment):
    """Sample mean and mean square of 20000 values against the
    distribution's own (independent of the generator's definition)."""
    n = 20000
    case = Case(f"rng {distribution} moments", ["rng"])
    ka, kb = case.const("f32[]", repr(a)), case.const("f32[]", repr(b))
    zero = case.const("f32[]", "0")
    count = case.const("f32[]", repr(float(n)))
    values = case.op(f"f32[{n}]", "rng", [ka, kb],
                     f"distribution={distribution}, seed=2026")
    squares = case.op(f"f32[{n}]", "multiply", [values, values])
    for name, expected, tol in [(values, mean, 0.02),
                                (squares, second_moment, 0.05)]:
        total = case.op("f32[]", "reduce", [name, zero],
                        "dimensions={0}, reducer=add")
        case.expect(case.op("f32[]", "divide", [total, count]),
                    np.float32(expected), (0, tol))
    return case


def rng_cases():
    normal_tol = (1e-5, 1e-5)
    return [
        rng_case("rng_uniform", 42, (1000,), -2.0, 3.0, "f32"),
        rng_case("rng_uniform", 0, (7, 5), 0.0, 1.0, "f64"),
        rng_case("rng_uniform", 1, (64,), 1.0, 2.0, "f16"),
        rng_case("rng_uniform", -5, (3, 4), -1.0, 1.0, "f32"),
        rng_case("rng_normal", 123, (999,), 1.0, 2.0, "f32", normal_tol),
        rng_case("rng_normal", 9, (10, 10), 0.0, 1.0, "f64", (1e-12, 1e-12)),
        rng_case("rng_normal", 3, (32,), -1.0, 0.5, "f16", (1e-3, 1e-3)),
        rng_moment_case("rng_uniform", 0.0, 1.0, 0.5, 1 / 3),
        rng_moment_case("rng_normal", 0.0, 1.0, 0.0, 1.0),
    ]


def cases(rng):
    return bitcast_cases(rng) + reduce_precision_cases(rng) + rng_cases()
