"""NumPy cases for scatter.

Each expectation is a plain loop over the update windows written for that
case's dimension numbers (slices and fancy indexing, not a general scatter
model), so it shares nothing with the evaluator's index arithmetic. Indices
are drawn past both ends of the operand: a window that does not fit is
skipped whole; colliding windows combine in update order."""
import numpy as np

from cases_control import computation
from cases_elementwise import floats, ints
from evalcase import Case, array_type


def binary_combiner(case, name, dtype, body):
    """A two-parameter combiner; `body` is its ROOT line's right-hand side
    over {p}a and {p}b."""
    return computation(case, name, [
        f"{{p}}a = {dtype}[] parameter(0)",
        f"{{p}}b = {dtype}[] parameter(1)",
        f"ROOT {{p}}r = {dtype}[] {body}"])


def rows_add_case(rng):
    """ONNX ScatterND-style row updates, added."""
    case = Case("scatter rows, add, out-of-range rows skipped", ["scatter"])
    add = binary_combiner(case, "add", "f32", "add({p}a, {p}b)")
    x = floats(rng, (5, 3), "f32")
    idx = np.array([[0], [4], [-1], [2], [5], [0]], dtype=np.int32)
    u = floats(rng, (6, 3), "f32")
    r = case.op("f32[5,3]", "scatter",
                [case.param(x), case.param(idx), case.param(u)],
                "update_window_dims={1}, inserted_window_dims={0}, "
                "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
                f"to_apply={add}")
    expected = x.copy()
    for j in range(6):
        row = idx[j, 0]
        if 0 <= row < 5:
            expected[row] += u[j]
    case.expect(r, expected, (1e-6, 1e-6))
    return case


def windows_overwrite_case(rng):
    """Windows of 5x2 placed along dim 1 by an implicit index vector; the
    combiner returns the update, so later windows win."""
    case = Case("scatter 2-wide windows, overwrite", ["scatter"])
    second = binary_combiner(case, "second", "s32", "copy({p}b)")
    x = ints(rng, (5, 6), "s32", -50, 50)
    idx = np.array([1, 4, 5, -1, 3], dtype=np.int64)
    u = ints(rng, (5, 5, 2), "s32", -50, 50)
    r = case.op("s32[5,6]", "scatter",
                [case.param(x), case.param(idx), case.param(u)],
                "update_window_dims={1,2}, inserted_window_dims={}, "
                "scatter_dims_to_operand_dims={1}, index_vector_dim=1, "
                f"to_apply={second}")
    expected = x.copy()
    for j, start in enumerate(idx):
        if 0 <= start <= 6 - 2:
            expected[:, start:start + 2] = u[j]
    case.expect(r, expected)
    return case


def points_multiply_case(rng):
    """Single elements at (row, column) pairs given column first, the index
    vector in dim 0 of the indices."""
    case = Case("scatter points, index_vector_dim 0, multiply", ["scatter"])
    mul = binary_combiner(case, "mul", "s32", "multiply({p}a, {p}b)")
    x = ints(rng, (4, 3), "s32", -5, 5)
    cols = np.array([0, 2, 3, 1, 2, 2], dtype=np.int32)
    rows = np.array([1, 3, 0, -1, 3, 3], dtype=np.int32)
    idx = np.stack([cols, rows])
    u = ints(rng, (6,), "s32", -3, 3)
    r = case.op("s32[4,3]", "scatter",
                [case.param(x), case.param(idx), case.param(u)],
                "update_window_dims={}, inserted_window_dims={0,1}, "
                "scatter_dims_to_operand_dims={1,0}, index_vector_dim=0, "
                f"to_apply={mul}")
    expected = x.copy()
    for j in range(6):
        if 0 <= rows[j] < 4 and 0 <= cols[j] < 3:
            expected[rows[j], cols[j]] *= u[j]
    case.expect(r, expected)
    return case


def variadic_min_case(rng):
    """Two operands scattered together: the smaller value and its tag."""
    case = Case("scatter variadic (value, tag), keep the minimum", ["scatter"])
    keep = computation(case, "keep_min", [
        "{p}v0 = f32[] parameter(0)",
        "{p}t0 = s32[] parameter(1)",
        "{p}v1 = f32[] parameter(2)",
        "{p}t1 = s32[] parameter(3)",
        "{p}lt = pred[] compare({p}v1, {p}v0), direction=LT",
        "{p}v = f32[] select({p}lt, {p}v1, {p}v0)",
        "{p}t = s32[] select({p}lt, {p}t1, {p}t0)",
        "ROOT {p}r = (f32[], s32[]) tuple({p}v, {p}t)"])
    x = floats(rng, (6,), "f32")
    tags = np.arange(6, dtype=np.int32)
    idx = np.array([[2], [5], [2], [6], [0], [-3], [5]], dtype=np.int32)
    u = floats(rng, (7,), "f32")
    utags = np.arange(100, 107, dtype=np.int32)
    r = case.op("(f32[6], s32[6])", "scatter",
                [case.param(x), case.param(tags), case.param(idx),
                 case.param(u), case.param(utags)],
                "update_window_dims={}, inserted_window_dims={0}, "
                "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
                f"to_apply={keep}")
    values, kept = x.copy(), tags.copy()
    for j in range(7):
        at = idx[j, 0]
        if 0 <= at < 6 and u[j] < values[at]:
            values[at], kept[at] = u[j], utags[j]
    case.expect(case.op("f32[6]", "get-tuple-element", [r], "index=0"), values)
    case.expect(case.op("s32[6]", "get-tuple-element", [r], "index=1"), kept)
    return case


def batching_case(rng):
    """Operand dim 0 pairs with indices dim 0: batch b writes rows of its
    own slice only."""
    case = Case("scatter with batching dims, add", ["scatter"])
    add = binary_combiner(case, "add", "f64", "add({p}a, {p}b)")
    x = floats(rng, (2, 4, 3), "f64")
    idx = np.array([[[0], [3], [4]], [[1], [-1], [1]]], dtype=np.int32)
    u = floats(rng, (2, 3, 3), "f64")
    r = case.op("f64[2,4,3]", "scatter",
                [case.param(x), case.param(idx), case.param(u)],
                "update_window_dims={2}, inserted_window_dims={1}, "
                "scatter_dims_to_operand_dims={1}, input_batching_dims={0}, "
                "scatter_indices_batching_dims={0}, index_vector_dim=2, "
                f"to_apply={add}")
    expected = x.copy()
    for b in range(2):
        for j in range(3):
            row = idx[b, j, 0]
            if 0 <= row < 4:
                expected[b, row] += u[b, j]
    case.expect(r, expected, (1e-12, 1e-12))
    return case


def empty_updates_case(rng):
    """No update windows: the operand comes back unchanged."""
    case = Case("scatter with no updates", ["scatter"])
    add = binary_combiner(case, "add", "f32", "add({p}a, {p}b)")
    x = floats(rng, (3, 2), "f32")
    idx = np.zeros((0, 1), dtype=np.int32)
    u = np.zeros((0, 2), dtype=np.float32)
    r = case.op(array_type(x), "scatter",
                [case.param(x), case.param(idx), case.param(u)],
                "update_window_dims={1}, inserted_window_dims={0}, "
                "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
                f"to_apply={add}")
    case.expect(r, x)
    return case


def cases(rng):
    return [rows_add_case(rng), windows_overwrite_case(rng),
            points_multiply_case(rng), variadic_min_case(rng),
            batching_case(rng), empty_updates_case(rng)]
