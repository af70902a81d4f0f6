"""Building blocks of the NumPy evaluator suite: HLO text builder and dtypes.

A Case holds the HLO instructions for one check, its random inputs and the
expected outputs that NumPy computed from those same inputs. Instruction
names carry a per-case prefix so that many cases can share one module.
"""
import math

import numpy as np

# HLO element type name -> NumPy dtype (bf16 has no NumPy dtype: cases pass it
# as f32 and convert inside the module, see Case.bf16).
NP_TYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32,
    "s64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
    "u64": np.uint64, "f16": np.float16, "f32": np.float32, "f64": np.float64,
}
INT_TYPES = ["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"]
FLOAT_TYPES = ["f16", "f32", "f64"]


def hlo_name(dtype):
    for name, np_type in NP_TYPES.items():
        if np.dtype(np_type) == np.dtype(dtype):
            return name
    raise ValueError(f"no HLO type for {dtype}")


def shape_text(dtype_name, shape):
    return f"{dtype_name}[{','.join(str(d) for d in shape)}]"


def array_type(array):
    return shape_text(hlo_name(array.dtype), array.shape)


def braces(values):
    return "{" + ",".join(str(v) for v in values) + "}"


def round_bf16(x):
    """Rounds float32 values to the nearest bfloat16 (ties to even), as f32."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = (rounded & 0xFFFFFFFF).astype(np.uint32).view(np.float32).copy()
    out[np.isnan(x)] = np.nan
    return out.reshape(x.shape)


def vectorize(fn):
    """Applies a Python float function elementwise (math.erf has no ufunc)."""
    return lambda x: np.vectorize(fn, otypes=[np.float64])(x.astype(np.float64))


ERF = vectorize(math.erf)


class Case:
    """One check: inputs, instructions, and NumPy's expected results."""

    counter = 0

    def __init__(self, name, opcodes):
        Case.counter += 1
        self.name = name
        self.opcodes = set(opcodes)
        self.prefix = f"c{Case.counter}_"
        self.params = []        # (name, array)
        self.lines = []         # instruction text
        self.results = []       # (name, expected array, (rtol, atol) or None)
        self.computations = []  # extra computations (fusion callees)
        self.next = 0

    def fresh(self, hint="v"):
        self.next += 1
        return f"{self.prefix}{hint}{self.next}"

    def param(self, array):
        name = self.fresh("p")
        self.params.append((name, np.array(array, order="C")))  # keeps 0-d
        return name

    def op(self, result_type, opcode, operands, attrs=""):
        name = self.fresh()
        text = f"{name} = {result_type} {opcode}({', '.join(operands)})"
        if attrs:
            text += f", {attrs}"
        self.lines.append(text)
        return name

    def const(self, result_type, literal):
        name = self.fresh("k")
        self.lines.append(f"{name} = {result_type} constant({literal})")
        return name

    def expect(self, name, expected, tol=None):
        self.results.append((name, np.asarray(expected), tol))

    def bf16(self, array):
        """A bf16 value: the f32 parameter `array` converted inside HLO."""
        p = self.param(array.astype(np.float32))
        return self.op(shape_text("bf16", array.shape), "convert", [p])

    def expect_bf16(self, name, shape, expected, tol=None):
        """Converts bf16 `name` back to f32 and expects NumPy's bf16 rounding."""
        out = self.op(shape_text("f32", shape), "convert", [name])
        self.expect(out, round_bf16(expected), tol)


def module_text(name, cases):
    """One module whose root tuple holds every case's results."""
    text = [f"HloModule {name}, entry=main", ""]
    for case in cases:
        for computation in case.computations:
            text += [computation, ""]
    text.append("ENTRY main {")
    number = 0
    for case in cases:
        for pname, array in case.params:
            text.append(f"  {pname} = {array_type(array)} parameter({number})")
            number += 1
    results = []
    for case in cases:
        text += ["  " + line for line in case.lines]
        results += case.results
    types = ", ".join(array_type_of_result(r) for r in results)
    names = ", ".join(r[0] for r in results)
    text.append(f"  ROOT {name}_root = ({types}) tuple({names})")
    text.append("}")
    return "\n".join(text) + "\n"


def array_type_of_result(result):
    _, expected, _ = result
    return array_type(expected)
