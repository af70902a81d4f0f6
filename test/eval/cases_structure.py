"""NumPy cases for data movement, gather, iota and structural opcodes
(parameter, constant, tuple, get-tuple-element, fusion)."""
import numpy as np

from cases_elementwise import floats, ints
from evalcase import NP_TYPES, Case, array_type, braces, shape_text


def one_op(name, opcodes, x, result_type, opcode, attrs, expected):
    case = Case(name, opcodes)
    case.expect(case.op(result_type, opcode, [case.param(x)], attrs), expected)
    return case


def broadcast_cases(rng):
    x0 = floats(rng, (), "f32")
    x1 = ints(rng, (3,), "s32")
    x2 = ints(rng, (2,), "u8")
    x3 = floats(rng, (2, 4), "f16")
    x4 = floats(rng, (0,), "f32")
    x5 = floats(rng, (3, 2), "f64")
    x6 = rng.integers(0, 2, (2,)).astype(bool)
    rows = [
        (x0, "f32[2,3]", "{}", np.broadcast_to(x0, (2, 3))),
        (x1, "s32[2,3]", "{1}", np.broadcast_to(x1, (2, 3))),
        (x2, "u8[2,3,4]", "{0}", np.broadcast_to(x2[:, None, None], (2, 3, 4))),
        (x3, "f16[2,3,4]", "{0,2}", np.broadcast_to(x3[:, None, :], (2, 3, 4))),
        (x4, "f32[3,0]", "{1}", np.zeros((3, 0), np.float32)),
        (x5, "f64[3,4,2]", "{0,2}",
         np.broadcast_to(x5[:, None, :], (3, 4, 2))),
        (x6, "pred[2,2]", "{0}", np.broadcast_to(x6[:, None], (2, 2))),
    ]
    return [one_op(f"broadcast {array_type(x)} -> {t} dims={d}", ["broadcast"],
                   x, t, "broadcast", f"dimensions={d}", e)
            for x, t, d, e in rows]


def reshape_transpose_reverse_cases(rng):
    cases = []
    for x, shape in [(floats(rng, (2, 3), "f32"), (3, 2)),
                     (ints(rng, (6,), "s64"), (1, 2, 3)),
                     (floats(rng, (0, 3), "f16"), (3, 0)),
                     (floats(rng, (), "f64"), (1, 1)),
                     (rng.integers(0, 2, 4).astype(bool), (2, 2))]:
        t = shape_text(array_type(x).split("[")[0], shape)
        cases.append(one_op(f"reshape {array_type(x)} -> {t}", ["reshape"], x,
                            t, "reshape", "", x.reshape(shape)))
    for x, perm in [(floats(rng, (2, 3, 4), "f32"), (2, 0, 1)),
                    (ints(rng, (3, 2), "s8"), (1, 0)),
                    (floats(rng, (2, 0, 3), "f16"), (1, 2, 0))]:
        y = np.transpose(x, perm)
        cases.append(one_op(f"transpose {array_type(x)} {perm}", ["transpose"],
                            x, array_type(y), "transpose",
                            f"dimensions={braces(perm)}", y))
    for x, dims in [(floats(rng, (2, 3, 4), "f32"), (0, 2)),
                    (ints(rng, (5,), "u16"), (0,)), (ints(rng, (2, 2), "s32"), ())]:
        y = np.flip(x, dims) if dims else x
        cases.append(one_op(f"reverse {array_type(x)} {dims}", ["reverse"], x,
                            array_type(y), "reverse",
                            f"dimensions={braces(dims)}", y))
    return cases


def slice_text(ranges):
    parts = [f"[{a}:{b}:{s}]" if s != 1 else f"[{a}:{b}]" for a, b, s in ranges]
    return "slice={" + ", ".join(parts) + "}"


def slice_cases(rng):
    cases = []
    x = ints(rng, (10,), "s32")
    cases.append(one_op("slice stride 3", ["slice"], x, "s32[3]", "slice",
                        slice_text([(1, 8, 3)]), x[1:8:3]))
    y = floats(rng, (4, 6), "f32")
    cases.append(one_op("slice 2-d strides", ["slice"], y, "f32[2,2]", "slice",
                        slice_text([(1, 4, 2), (0, 6, 4)]), y[1:4:2, 0:6:4]))
    cases.append(one_op("slice empty", ["slice"], y, "f32[0,6]", "slice",
                        slice_text([(2, 2, 1), (0, 6, 1)]), y[2:2, :]))
    z = floats(rng, (7,), "f64")
    # NumPy's negative indices x[-4:-1] are the positive slice [3:6].
    cases.append(one_op("slice negative indices", ["slice"], z, "f64[3]",
                        "slice", slice_text([(3, 6, 1)]), z[-4:-1]))
    # Negative steps x[::-2], x[::-1, 1::2]: reverse, then a strided slice.
    case = Case("slice negative step", ["slice", "reverse"])
    rev = case.op("f64[7]", "reverse", [case.param(z)], "dimensions={0}")
    case.expect(case.op("f64[4]", "slice", [rev], slice_text([(0, 7, 2)])),
                z[::-2])
    cases.append(case)
    case = Case("slice 2-d negative step", ["slice", "reverse"])
    rev = case.op("f32[4,6]", "reverse", [case.param(y)], "dimensions={0}")
    case.expect(case.op("f32[4,3]", "slice", [rev],
                        slice_text([(0, 4, 1), (1, 6, 2)])), y[::-1, 1::2])
    cases.append(case)
    return cases


def dynamic_slice_cases(rng):
    cases = []
    rows = [(floats(rng, (6, 5), "f32"), (4, -2), (3, 2), "s32"),
            (ints(rng, (8,), "u8"), (7,), (3,), "s64"),
            (floats(rng, (3, 4, 5), "f16"), (1, 1, 2), (2, 2, 2), "u32"),
            (ints(rng, (4,), "s16"), (-9,), (4,), "s8")]
    for x, starts, sizes, index_type in rows:
        case = Case(f"dynamic-slice {array_type(x)} at {starts}",
                    ["dynamic-slice"])
        px = case.param(x)
        idx = [case.param(np.array(s).astype(NP_TYPES[index_type]))
               for s in starts]
        clamped = [min(max(s, 0), n - k) for s, n, k in zip(starts, x.shape, sizes)]
        expected = x[tuple(slice(c, c + k) for c, k in zip(clamped, sizes))]
        r = case.op(array_type(expected), "dynamic-slice", [px] + idx,
                    f"dynamic_slice_sizes={braces(sizes)}")
        case.expect(r, expected)
        cases.append(case)
    for x, update, starts in [(floats(rng, (5, 5), "f32"),
                               floats(rng, (2, 3), "f32"), (4, 1)),
                              (ints(rng, (6,), "s32"), ints(rng, (2,), "s32"),
                               (-1,)),
                              (floats(rng, (3, 4), "f64"),
                               floats(rng, (3, 4), "f64"), (1, 1))]:
        case = Case(f"dynamic-update-slice {array_type(x)} at {starts}",
                    ["dynamic-update-slice"])
        args = [case.param(x), case.param(update)]
        args += [case.param(np.int32(s)) for s in starts]
        clamped = [min(max(s, 0), n - k)
                   for s, n, k in zip(starts, x.shape, update.shape)]
        expected = x.copy()
        expected[tuple(slice(c, c + k) for c, k in zip(clamped, update.shape))] = update
        case.expect(case.op(array_type(x), "dynamic-update-slice", args),
                    expected)
        cases.append(case)
    return cases


def concatenate_pad_cases(rng):
    cases = []
    for parts, axis in [([floats(rng, (2, 1), "f32"), floats(rng, (2, 0), "f32"),
                          floats(rng, (2, 3), "f32")], 1),
                        ([ints(rng, (1, 2), "s16"), ints(rng, (3, 2), "s16")], 0),
                        ([rng.integers(0, 2, 3).astype(bool)] * 2, 0)]:
        y = np.concatenate(parts, axis)
        case = Case(f"concatenate {len(parts)} along {axis}", ["concatenate"])
        r = case.op(array_type(y), "concatenate",
                    [case.param(p) for p in parts], f"dimensions={{{axis}}}")
        case.expect(r, y)
        cases.append(case)
    for x, config in [(floats(rng, (5,), "f32"), [(-1, 2, 1)]),
                      (ints(rng, (3, 4), "s32"), [(1, -1, 0), (-2, 3, 2)]),
                      (floats(rng, (2, 3), "f16"), [(0, 0, 1), (1, 1, 0)]),
                      (floats(rng, (0, 2), "f64"), [(2, 1, 3), (0, -1, 0)])]:
        value = x.dtype.type(7)
        y = np_pad(x, config, value)
        case = Case(f"pad {array_type(x)} {config}", ["pad"])
        pv = case.param(np.array(value, dtype=x.dtype))
        text = "x".join(f"{lo}_{hi}_{i}" for lo, hi, i in config)
        case.expect(case.op(array_type(y), "pad", [case.param(x), pv],
                            f"padding={text}"), y)
        cases.append(case)
    return cases


def np_pad(x, config, value):
    """Interior padding by strided assignment, then edges (negative crops)."""
    for axis, (low, high, interior) in enumerate(config):
        n = x.shape[axis]
        shape = list(x.shape)
        shape[axis] = n + max(n - 1, 0) * interior
        y = np.full(shape, value, dtype=x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, shape[axis], interior + 1)
        y[tuple(index)] = x
        for amount, at_end in [(low, False), (high, True)]:
            if amount >= 0:
                edge = list(y.shape)
                edge[axis] = amount
                block = np.full(edge, value, dtype=x.dtype)
                y = np.concatenate([y, block] if at_end else [block, y], axis)
            else:
                index = [slice(None)] * y.ndim
                index[axis] = slice(0, amount) if at_end else slice(-amount, None)
                y = y[tuple(index)]
        x = y
    return x


def gather_text(offset, collapsed, start_map, vector_dim, sizes):
    return (f"offset_dims={braces(offset)}, collapsed_slice_dims={braces(collapsed)}, "
            f"start_index_map={braces(start_map)}, index_vector_dim={vector_dim}, "
            f"slice_sizes={braces(sizes)}")


def gather_cases(rng):
    cases = []
    x = floats(rng, (5, 3), "f32")
    idx = np.array([4, 0, 7, -2], np.int32)  # 7 and -2 are clamped
    cases.append(gather_case("gather rows", x, idx, gather_text([1], [0], [0], 1, [1, 3]),
                             x[np.clip(idx, 0, 4)]))
    y = ints(rng, (3, 5), "s32")
    idx2 = np.array([[3], [9]], np.int64)
    cases.append(gather_case("gather columns", y, idx2,
                             gather_text([0], [1], [1], 1, [3, 1]),
                             y[:, np.clip(idx2[:, 0], 0, 4)]))
    z = floats(rng, (4, 5), "f64")
    starts = np.array([[0, 0], [3, 4], [1, 2]], np.int32)
    windows = np.stack([z[min(i, 2):min(i, 2) + 2, min(j, 2):min(j, 2) + 3]
                        for i, j in starts])
    cases.append(gather_case("gather 2-d windows", z, starts,
                             gather_text([1, 2], [], [0, 1], 1, [2, 3]), windows))
    # index_vector_dim=0 and a permuted start_index_map: column b of the
    # indices is (start in dim 1, start in dim 0).
    cols = np.array([[1, 3, 0], [2, 0, 5]], np.int32)
    expected = np.stack([z[min(r, 2):min(r, 2) + 2, min(c, 3):min(c, 3) + 2]
                         for c, r in cols.T])
    cases.append(gather_case("gather index_vector_dim=0", z, cols,
                             gather_text([1, 2], [], [1, 0], 0, [2, 2]), expected))
    return cases


def gather_case(name, x, indices, attrs, expected):
    case = Case(name, ["gather"])
    r = case.op(array_type(expected), "gather",
                [case.param(x), case.param(indices)], attrs)
    case.expect(r, expected)
    return case


def iota_cases():
    cases = []
    for dtype, shape, dim in [("s32", (3, 4), 1), ("f32", (2, 3), 0),
                              ("u8", (5,), 0), ("f16", (4, 2), 0),
                              ("s64", (2, 0), 1)]:
        case = Case(f"iota {shape_text(dtype, shape)} dim {dim}", ["iota"])
        expected = np.indices(shape)[dim] if shape else np.arange(0)
        r = case.op(shape_text(dtype, shape), "iota", [], f"iota_dimension={dim}")
        case.expect(r, expected.astype(NP_TYPES[dtype]))
        cases.append(case)
    return cases


def structural_cases(rng):
    cases = []
    case = Case("tuple and get-tuple-element", ["tuple", "get-tuple-element",
                                                "parameter"])
    a, b = floats(rng, (2,), "f32"), ints(rng, (3,), "u16")
    pa, pb = case.param(a), case.param(b)
    t = case.op("(f32[2], u16[3])", "tuple", [pa, pb])
    case.expect(case.op("u16[3]", "get-tuple-element", [t], "index=1"), b)
    case.expect(case.op("f32[2]", "get-tuple-element", [t], "index=0"), a)
    cases.append(case)
    case = Case("constants", ["constant"])
    x = floats(rng, (3,), "f32")
    k = case.const("f32[3]", "{1.5, -2, 3}")
    case.expect(case.op("f32[3]", "add", [case.param(x), k]),
                x + np.array([1.5, -2, 3], np.float32))
    case.expect(case.const("s32[2,2]", "{{1, 2}, {3, 4}}"),
                np.array([[1, 2], [3, 4]], np.int32))
    case.expect(case.const("pred[2]", "{true, false}"), np.array([True, False]))
    case.expect(case.const("f64[]", "-0.25"), np.float64(-0.25))
    cases.append(case)
    case = Case("fusion", ["fusion"])
    x, y = floats(rng, (4,), "f32"), floats(rng, (4,), "f32")
    callee = case.prefix + "fused"
    p0, p1, m, r = (case.prefix + s for s in ["fp0", "fp1", "fm", "fr"])
    case.computations.append("\n".join([
        f"{callee} {{", f"  {p0} = f32[4] parameter(0)",
        f"  {p1} = f32[4] parameter(1)",
        f"  {m} = f32[4] multiply({p0}, {p1})",
        f"  ROOT {r} = f32[4] add({m}, {p0})", "}"]))
    out = case.op("f32[4]", "fusion", [case.param(x), case.param(y)],
                  f"kind=kLoop, calls={callee}")
    case.expect(out, x * y + x)
    cases.append(case)
    return cases


def cases(rng):
    return (broadcast_cases(rng) + reshape_transpose_reverse_cases(rng) +
            slice_cases(rng) + dynamic_slice_cases(rng) +
            concatenate_pad_cases(rng) + gather_cases(rng) + iota_cases() +
            structural_cases(rng))
