"""NumPy cases for sort with a to_apply comparator (XLA's general sort): the
comparator takes (lhs, rhs) of every operand and says whether lhs goes first.
Expected orders come from NumPy's stable sorts (np.lexsort, np.argsort with
kind="stable") of the same keys, so every case also checks stability: the
keys have many ties and an iota payload records where each element came
from."""
import numpy as np

from cases_control import computation
from cases_elementwise import floats, ints
from cases_conv import expect_sorted
from evalcase import Case, braces


def sort_op(case, arrays, axis, callee, order):
    """sort(arrays) along `axis` with comparator `callee`; expects every
    operand permuted by `order` (positions along `axis`)."""
    attrs = f"dimensions={braces([axis])}, is_stable=true, to_apply={callee}"
    return expect_sorted(case, arrays, axis, order, attrs)


def along(axis, fn, *keys):
    """fn(*rows) -> order, applied to every 1-D row of `keys` along `axis`."""
    moved = [np.moveaxis(k, axis, -1) for k in keys]
    flat = [m.reshape(-1, m.shape[-1]) for m in moved]
    rows = [fn(*(f[r] for f in flat)) for r in range(flat[0].shape[0])]
    order = np.array(rows, dtype=np.int64).reshape(moved[0].shape)
    return np.moveaxis(order, -1, axis)


def two_key_case(rng):
    """Primary key s32 ascending, secondary key f32 descending, s32 payload:
    a comparator of two keys (the multi-key sort of lax.sort num_keys=2)."""
    case = Case("sort comparator two keys", ["sort"])
    callee = computation(case, "twokey", [
        "{p}a0 = s32[] parameter(0)", "{p}b0 = s32[] parameter(1)",
        "{p}a1 = f32[] parameter(2)", "{p}b1 = f32[] parameter(3)",
        "{p}a2 = s32[] parameter(4)", "{p}b2 = s32[] parameter(5)",
        "{p}lt0 = pred[] compare({p}a0, {p}b0), direction=LT",
        "{p}eq0 = pred[] compare({p}a0, {p}b0), direction=EQ",
        "{p}gt1 = pred[] compare({p}a1, {p}b1), direction=GT",
        "{p}tie = pred[] and({p}eq0, {p}gt1)",
        "ROOT {p}r = pred[] or({p}lt0, {p}tie)"])
    k0 = ints(rng, (3, 12), "s32", -2, 2)
    k1 = rng.integers(0, 3, (3, 12)).astype(np.float32) * np.float32(0.5)
    payload = np.tile(np.arange(12, dtype=np.int32), (3, 1))
    order = along(1, lambda a, b: np.lexsort((-b, a)), k0, k1)
    return sort_op(case, [k0, k1, payload], 1, callee, order)


def second_operand_key_case(rng):
    """The comparator reads only operand 1: operand 0 is carried along."""
    case = Case("sort comparator keyed on operand 1", ["sort"])
    callee = computation(case, "bysecond", [
        "{p}a0 = f64[] parameter(0)", "{p}b0 = f64[] parameter(1)",
        "{p}a1 = u8[] parameter(2)", "{p}b1 = u8[] parameter(3)",
        "ROOT {p}r = pred[] compare({p}a1, {p}b1), direction=LT"])
    values = floats(rng, (7, 2), "f64")
    keys = ints(rng, (7, 2), "u8", 0, 3)
    order = along(0, lambda k: np.argsort(k, kind="stable"), keys)
    return sort_op(case, [values, keys], 0, callee, order)


def magnitude_case(rng):
    """One operand ordered by |x|: ties between x and -x keep input order."""
    case = Case("sort comparator by magnitude", ["sort"])
    callee = computation(case, "bymag", [
        "{p}a = f32[] parameter(0)", "{p}b = f32[] parameter(1)",
        "{p}aa = f32[] abs({p}a)", "{p}ab = f32[] abs({p}b)",
        "ROOT {p}r = pred[] compare({p}aa, {p}ab), direction=LT"])
    x = (ints(rng, (2, 15), "s32", -3, 3)).astype(np.float32)
    order = along(1, lambda r: np.argsort(np.abs(r), kind="stable"), x)
    return sort_op(case, [x], 1, callee, order)


def nan_last_case(rng):
    """A comparator that orders NaN after every number (NumPy's order):
    lhs < rhs, or lhs is a number and rhs is NaN."""
    case = Case("sort comparator NaN last", ["sort"])
    callee = computation(case, "nanlast", [
        "{p}a = f32[] parameter(0)", "{p}b = f32[] parameter(1)",
        "{p}ia = s32[] parameter(2)", "{p}ib = s32[] parameter(3)",
        "{p}lt = pred[] compare({p}a, {p}b), direction=LT",
        "{p}anum = pred[] compare({p}a, {p}a), direction=EQ",
        "{p}bnan = pred[] compare({p}b, {p}b), direction=NE",
        "{p}last = pred[] and({p}anum, {p}bnan)",
        "ROOT {p}r = pred[] or({p}lt, {p}last)"])
    x = floats(rng, (20,), "f32", specials=True).round()
    x[[5, 11]] = np.nan
    payload = np.arange(20, dtype=np.int32)
    order = np.argsort(x, kind="stable")
    return sort_op(case, [x, payload], 0, callee, order)


def reversed_compare_case(rng):
    """compare(rhs, lhs), direction=LT is a plain descending order: the
    parser reads it as descending=true, stable like the general form."""
    case = Case("sort comparator rhs < lhs (descending)", ["sort"])
    callee = computation(case, "desc", [
        "{p}a = f16[] parameter(0)", "{p}b = f16[] parameter(1)",
        "{p}ia = s32[] parameter(2)", "{p}ib = s32[] parameter(3)",
        "ROOT {p}r = pred[] compare({p}b, {p}a), direction=LT"])
    x = floats(rng, (4, 9), "f16").round()
    payload = np.tile(np.arange(9, dtype=np.int32), (4, 1))
    order = along(1, lambda r: np.argsort(-r.astype(np.float64), kind="stable"),
                  x)
    return sort_op(case, [x, payload], 1, callee, order)


def cases(rng):
    return [two_key_case(rng), second_operand_key_case(rng),
            magnitude_case(rng), nan_last_case(rng),
            reversed_compare_case(rng)]
