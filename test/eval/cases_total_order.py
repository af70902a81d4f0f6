"""NumPy cases for compare's type=TOTALORDER (XLA's total order of floats,
the comparator jnp.sort uses): -NaN < -inf < ... < -0 < +0 < ... < inf <
+NaN. The reference is written from that definition, not from the bit
trick the evaluator uses: a value's place is (group, value, zero sign)
with group 0 for -NaN, 1 for numbers and 2 for +NaN, and -0 before +0
among equal numbers. Inputs hold NaN of both signs (one payload each), ±0,
±inf and repeated values. With only +NaN and no -0 the order is NumPy's own
np.sort order (NaN last), checked against np.sort directly."""
import numpy as np

from cases_control import computation
from cases_conv import expect_sorted
from evalcase import Case, NP_TYPES

COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less,
           "LE": np.less_equal, "GT": np.greater, "GE": np.greater_equal}


def specials(rng, n, dtype):
    """n values of `dtype` drawn from a small set with every special."""
    pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -1.5,
                     2.0, -2.0, 1e-3], dtype=NP_TYPES[dtype])
    pool[1] = -pool[0]  # -NaN: negate, since -np.nan may keep the sign bit off
    return pool[rng.integers(0, len(pool), n)]


def place(x):
    """The (group, value, zero sign) key of every element of x."""
    nan = np.isnan(x)
    negative = np.signbit(x)
    group = np.where(nan, np.where(negative, 0, 2), 1)
    value = np.where(nan, 0, x).astype(np.float64)
    zero_sign = np.where(negative, 0, 1)
    return group, value, zero_sign


def total_order_argsort(x):
    """Stable positions of x in total order (np.lexsort is stable)."""
    group, value, zero_sign = place(x)
    return np.lexsort((zero_sign, value, group))


def total_less(a, b):
    """a < b in total order, elementwise."""
    ga, va, za = place(a)
    gb, vb, zb = place(b)
    return (ga < gb) | ((ga == gb) & ((va < vb) | ((va == vb) & (za < zb))))


def elementwise_case(rng, dtype):
    case = Case(f"compare {dtype} type=TOTALORDER", ["compare"])
    a = specials(rng, 40, dtype)
    b = specials(rng, 40, dtype)
    b[:11] = a[:11]  # equal pairs, NaN with NaN of the same sign included
    less = total_less(a, b)
    greater = total_less(b, a)
    equal = ~less & ~greater
    expected = {"LT": less, "GT": greater, "EQ": equal, "NE": ~equal,
                "LE": less | equal, "GE": greater | equal}
    pa, pb = case.param(a), case.param(b)
    for direction in COMPARE:
        r = case.op("pred[40]", "compare", [pa, pb],
                    f"direction={direction}, type=TOTALORDER")
        case.expect(r, expected[direction])
    return case


def sort_case(rng, dtype, direction, length):
    """sort(x, iota) along dimension 1 with a bare TOTALORDER comparator."""
    case = Case(f"sort {dtype} TOTALORDER {direction} rows of {length}",
                ["sort", "compare"])
    callee = computation(case, "total", [
        f"{{p}}a = {dtype}[] parameter(0)", f"{{p}}b = {dtype}[] parameter(1)",
        "{p}i = s32[] parameter(2)", "{p}j = s32[] parameter(3)",
        f"ROOT {{p}}r = pred[] compare({{p}}a, {{p}}b), direction={direction},"
        " type=TOTALORDER"])
    x = specials(rng, 3 * length, dtype).reshape(3, length)
    payload = np.tile(np.arange(length, dtype=np.int32), (3, 1))
    if direction == "LT":
        order = np.array([total_order_argsort(row) for row in x])
    else:  # descending and stable: ascending order of the negated places
        order = np.array([np.lexsort((-place(r)[2], -place(r)[1],
                                      -place(r)[0])) for r in x])
    attrs = f"dimensions={{1}}, is_stable=true, to_apply={callee}"
    return expect_sorted(case, [x, payload], 1, order, attrs)


def numpy_nan_last_case(rng):
    """+NaN and infinities, no -0 or -NaN: TOTALORDER LT is np.sort's order;
    the payload is np.argsort(kind="stable")'s."""
    case = Case("sort f32 TOTALORDER matches np.sort", ["sort", "compare"])
    callee = computation(case, "lt", [
        "{p}a = f32[] parameter(0)", "{p}b = f32[] parameter(1)",
        "{p}i = s32[] parameter(2)", "{p}j = s32[] parameter(3)",
        "ROOT {p}r = pred[] compare({p}a, {p}b), direction=LT, type=TOTALORDER"])
    x = rng.integers(-3, 4, (2, 50)).astype(np.float32)
    x[0, [3, 17, 40]] = np.nan
    x[1, [0, 9]] = [np.inf, -np.inf]
    x[1, [5, 31]] = np.nan
    payload = np.tile(np.arange(50, dtype=np.int32), (2, 1))
    attrs = f"dimensions={{1}}, is_stable=true, to_apply={callee}"
    case = expect_sorted(case, [x, payload], 1,
                         np.argsort(x, axis=1, kind="stable"), attrs)
    # The values are np.sort's too.
    assert np.array_equal(np.take_along_axis(x, np.argsort(x, 1, kind="stable"),
                                             1), np.sort(x, 1), equal_nan=True)
    return case


def cases(rng):
    return ([elementwise_case(rng, t) for t in ["f32", "f16", "f64"]] +
            [sort_case(rng, "f32", "LT", 37), sort_case(rng, "f64", "GT", 70),
             sort_case(rng, "f16", "LT", 9), numpy_nan_last_case(rng)])
