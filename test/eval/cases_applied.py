"""NumPy cases for instructions applying a scalar to_apply computation:
map (elementwise), reduce with N inputs (arg-max/arg-min as (value, index) pairs, several
reductions in one pass) and a single input combined by a computation that
is no reducer kind. Expected values are NumPy's argmax/argmin/sum/min/max
over the same inputs."""
import numpy as np

from cases_control import computation
from cases_elementwise import floats, ints
from evalcase import Case, array_type, braces, shape_text


def arg_best_computation(case, dtype, greater):
    """(value, index) pairs: the better value wins, ties go to the lower
    index (NumPy's argmax/argmin); NaN is not involved."""
    direction = "GT" if greater else "LT"
    return computation(case, "argbest", [
        f"{{p}}av = {dtype}[] parameter(0)",
        "{p}ai = s32[] parameter(1)",
        f"{{p}}bv = {dtype}[] parameter(2)",
        "{p}bi = s32[] parameter(3)",
        f"{{p}}better = pred[] compare({{p}}av, {{p}}bv), direction={direction}",
        "{p}eq = pred[] compare({p}av, {p}bv), direction=EQ",
        "{p}lower = pred[] compare({p}ai, {p}bi), direction=LT",
        "{p}tie = pred[] and({p}eq, {p}lower)",
        "{p}keep = pred[] or({p}better, {p}tie)",
        f"{{p}}v = {dtype}[] select({{p}}keep, {{p}}av, {{p}}bv)",
        "{p}i = s32[] select({p}keep, {p}ai, {p}bi)",
        f"ROOT {{p}}r = ({dtype}[], s32[]) tuple({{p}}v, {{p}}i)"])


def arg_best_case(x, axis, greater):
    dtype = array_type(x).split("[")[0]
    kind = "argmax" if greater else "argmin"
    case = Case(f"reduce to_apply {kind} {array_type(x)} dim={axis}", ["reduce"])
    callee = arg_best_computation(case, dtype, greater)
    index = case.op(shape_text("s32", x.shape), "iota", [],
                    f"iota_dimension={axis}")
    start = "-inf" if greater else "inf"
    if dtype.startswith(("s", "u")):
        info = np.iinfo(x.dtype)
        start = info.min if greater else info.max
    init = case.const(f"{dtype}[]", start)
    zero = case.const("s32[]", "0")
    kept = [d for i, d in enumerate(x.shape) if i != axis]
    best = (np.argmax if greater else np.argmin)(x, axis=axis)
    values = (np.max if greater else np.min)(x, axis=axis)
    out = f"({shape_text(dtype, kept)}, {shape_text('s32', kept)})"
    r = case.op(out, "reduce", [case.param(x), index, init, zero],
                f"dimensions={braces([axis])}, to_apply={callee}")
    case.expect(case.op(shape_text(dtype, kept), "get-tuple-element", [r],
                        "index=0"), values)
    case.expect(case.op(shape_text("s32", kept), "get-tuple-element", [r],
                        "index=1"), best.astype(np.int32))
    return case


def three_way_case(rng):
    """Sum, min and max of three inputs in one reduce over two dimensions."""
    case = Case("reduce to_apply three inputs", ["reduce"])
    callee = computation(case, "three", [
        "{p}as = s32[] parameter(0)", "{p}am = s32[] parameter(1)",
        "{p}ax = f64[] parameter(2)", "{p}bs = s32[] parameter(3)",
        "{p}bm = s32[] parameter(4)", "{p}bx = f64[] parameter(5)",
        "{p}s = s32[] add({p}as, {p}bs)", "{p}m = s32[] minimum({p}am, {p}bm)",
        "{p}x = f64[] maximum({p}ax, {p}bx)",
        "ROOT {p}r = (s32[], s32[], f64[]) tuple({p}s, {p}m, {p}x)"])
    a, b = ints(rng, (3, 4, 5), "s32"), ints(rng, (3, 4, 5), "s32")
    c = floats(rng, (3, 4, 5), "f64")
    inits = [case.const("s32[]", "7"), case.const("s32[]", "2147483647"),
             case.const("f64[]", "-inf")]
    out = "(s32[4], s32[4], f64[4])"
    r = case.op(out, "reduce", [case.param(a), case.param(b), case.param(c)] + inits,
                f"dimensions={braces([0, 2])}, to_apply={callee}")
    with np.errstate(over="ignore"):
        sums = (a.astype(np.int64).sum(axis=(0, 2)) + 7).astype(np.int32)
    expected = [(sums, "s32"), (b.min(axis=(0, 2)), "s32"),
                (c.max(axis=(0, 2)), "f64")]
    for k, (value, dtype) in enumerate(expected):
        case.expect(case.op(f"{dtype}[4]", "get-tuple-element", [r],
                            f"index={k}"), value)
    return case


def sum_of_squares_case(rng):
    """One input, a computation that is no reducer kind (a + b*b)."""
    case = Case("reduce to_apply sum of squares", ["reduce"])
    callee = computation(case, "sumsq", [
        "{p}a = f32[] parameter(0)", "{p}b = f32[] parameter(1)",
        "{p}bb = f32[] multiply({p}b, {p}b)",
        "ROOT {p}s = f32[] add({p}a, {p}bb)"])
    x = floats(rng, (4, 6), "f32")
    zero = case.const("f32[]", "0")
    r = case.op("f32[4]", "reduce", [case.param(x), zero],
                f"dimensions={braces([1])}, to_apply={callee}")
    expected = (x.astype(np.float64) ** 2).sum(axis=1).astype(np.float32)
    case.expect(r, expected, (1e-5, 1e-6))
    return case


def map_case(rng):
    """map of two operands of different dtypes through a computation with a
    constant, a convert and a select (x > 0 ? x * 2 : y as f32)."""
    case = Case("map two operands", ["map"])
    callee = computation(case, "mapfn", [
        "{p}a = f32[] parameter(0)", "{p}b = s32[] parameter(1)",
        "{p}zero = f32[] constant(0)", "{p}two = f32[] constant(2)",
        "{p}pos = pred[] compare({p}a, {p}zero), direction=GT",
        "{p}twice = f32[] multiply({p}a, {p}two)",
        "{p}bf = f32[] convert({p}b)",
        "ROOT {p}r = f32[] select({p}pos, {p}twice, {p}bf)"])
    x = floats(rng, (3, 5), "f32")
    y = ints(rng, (3, 5), "s32", -100, 100)
    r = case.op("f32[3,5]", "map", [case.param(x), case.param(y)],
                f"dimensions={braces([0, 1])}, to_apply={callee}")
    case.expect(r, np.where(x > 0, x * np.float32(2), y.astype(np.float32)))
    return case


def map_scalar_case(rng):
    """map over a scalar returning another dtype (pred)."""
    case = Case("map scalar to pred", ["map"])
    callee = computation(case, "isneg", [
        "{p}a = f64[] parameter(0)", "{p}zero = f64[] constant(0)",
        "ROOT {p}r = pred[] compare({p}a, {p}zero), direction=LT"])
    x = floats(rng, (), "f64")
    r = case.op("pred[]", "map", [case.param(x)], f"dimensions={{}}, to_apply={callee}")
    case.expect(r, np.asarray(x < 0))
    return case


def cases(rng):
    ties = rng.integers(-3, 4, (5, 7)).astype(np.float32)  # many ties
    return [arg_best_case(floats(rng, (4, 9), "f32"), 1, True),
            arg_best_case(ties, 0, True),
            arg_best_case(ties, 1, False),
            arg_best_case(ints(rng, (6, 5), "s32"), 0, False),
            three_way_case(rng), sum_of_squares_case(rng),
            map_case(rng), map_scalar_case(rng)]
