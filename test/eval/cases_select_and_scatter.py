"""NumPy cases for select-and-scatter (XLA's; the gradient of max-pool):
the expected result comes from a plain Python walk over each window in
XLA's order (source positions row-major, taps row-major, padding never
selected, the first element selected and replaced when select(selected,
element) is false, then out = scatter(out, source) at the selection)."""
import numpy as np

from cases_control import computation
from cases_elementwise import floats, ints
from cases_window_apply import window_taps, window_text
from evalcase import Case, array_type


def select_and_scatter_case(name, x, source, init, sizes, strides, pads,
                            select, scatter, keep, combine):
    """select-and-scatter of `source` into an array of `init` shaped like
    `x`: per source position (row-major) the window's first non-padding
    element is selected and a later one replaces it when keep(selected,
    element) is false; then out[selected] = combine(out[selected], source).
    `select`/`scatter` are the HLO bodies of keep/combine."""
    dtype = array_type(x).split("[")[0]
    case = Case(f"select-and-scatter {name}", ["select-and-scatter"])
    sel = computation(case, "select", [
        f"{{p}}a = {dtype}[] parameter(0)", f"{{p}}b = {dtype}[] parameter(1)",
        f"ROOT {{p}}k = pred[] {select}"])
    sca = computation(case, "scatter", [
        f"{{p}}a = {dtype}[] parameter(0)", f"{{p}}b = {dtype}[] parameter(1)"]
        + scatter)
    out_shape, windows = window_taps(x.shape, sizes, strides, pads)
    assert list(source.shape) == out_shape
    out = np.full(x.shape, init, dtype=x.dtype)
    for position, taps in zip(np.ndindex(*out_shape), windows):
        selected = None
        for tap in taps:
            if tap is None:
                continue
            if selected is None or not keep(x[selected], x[tap]):
                selected = tap
        if selected is not None:
            out[selected] = combine(out[selected], source[position])
    r = case.op(array_type(x), "select-and-scatter",
                [case.param(x), case.param(source),
                 case.const(f"{dtype}[]", str(init))],
                f"window={window_text(sizes, strides, pads)}, select={sel}, "
                f"scatter={sca}")
    case.expect(r, out)
    return case


def cases(rng):
    ties = rng.integers(-2, 3, (5, 6)).astype(np.float32)
    grad = floats(rng, (3, 3), "f32")
    overlap = rng.integers(0, 3, (4, 5)).astype(np.float64)
    decayed = floats(rng, (4, 5), "f64")
    small = ints(rng, (9,), "s32", -4, 4)
    return [
        # Max-pool gradient: GE keeps the first maximum; padding is never
        # selected.
        select_and_scatter_case(
            "max-pool gradient f32", ties, grad, 0, [2, 2], [2, 2],
            [(0, 1), (0, 0)], "compare({p}a, {p}b), direction=GE",
            ["ROOT {p}s = f32[] add({p}a, {p}b)"],
            lambda a, b: a >= b, lambda a, b: a + b),
        # Overlapping windows with padding everywhere, GT keeps the last
        # maximum, and a scatter that depends on the order (a * 0.5 + b).
        select_and_scatter_case(
            "overlapping, last max, ordered scatter f64", overlap, decayed,
            1.0, [3, 3], [1, 1], [(1, 1), (1, 1)],
            "compare({p}a, {p}b), direction=GT",
            ["{p}half = f64[] constant(0.5)",
             "{p}ah = f64[] multiply({p}a, {p}half)",
             "ROOT {p}s = f64[] add({p}ah, {p}b)"],
            lambda a, b: a > b, lambda a, b: a * 0.5 + b),
        # Minimum selection on integers, windows of padding only at the end.
        select_and_scatter_case(
            "min select s32", small, ints(rng, (5,), "s32", -9, 9), 3, [2],
            [3], [(0, 5)], "compare({p}a, {p}b), direction=LE",
            ["ROOT {p}s = s32[] add({p}a, {p}b)"],
            lambda a, b: a <= b, lambda a, b: a + b),
    ]
