"""NumPy cases for control flow: while, conditional and call.

Expected values come from plain Python loops and branches over the same
inputs, so they share nothing with the evaluator."""
import numpy as np

from cases_elementwise import floats
from evalcase import Case


def computation(case, name, lines):
    """Adds a computation named case.prefix + name; `lines` write {p} for
    the case prefix so names stay unique when cases share one module."""
    full = case.prefix + name
    body = [f"{full} {{"] + ["  " + line.replace("{p}", case.prefix)
                             for line in lines]
    case.computations.append("\n".join(body + ["}"]))
    return full


def while_case(rng, trips):
    """x <- x * 0.5 + c, trips times, counted by an s32 induction variable
    against a bound that is itself loop state (read from a parameter)."""
    case = Case(f"while, {trips} iterations", ["while"])
    state = "(s32[], s32[], f32[4], f32[4])"
    cond = computation(case, "cond", [
        f"{{p}}cs = {state} parameter(0)",
        "{p}ci = s32[] get-tuple-element({p}cs), index=0",
        "{p}cn = s32[] get-tuple-element({p}cs), index=1",
        "ROOT {p}clt = pred[] compare({p}ci, {p}cn), direction=LT"])
    body = computation(case, "body", [
        f"{{p}}bs = {state} parameter(0)",
        "{p}bi = s32[] get-tuple-element({p}bs), index=0",
        "{p}bn = s32[] get-tuple-element({p}bs), index=1",
        "{p}bx = f32[4] get-tuple-element({p}bs), index=2",
        "{p}bc = f32[4] get-tuple-element({p}bs), index=3",
        "{p}one = s32[] constant(1)",
        "{p}half = f32[] constant(0.5)",
        "{p}halves = f32[4] broadcast({p}half), dimensions={}",
        "{p}next = s32[] add({p}bi, {p}one)",
        "{p}scaled = f32[4] multiply({p}bx, {p}halves)",
        "{p}bx2 = f32[4] add({p}scaled, {p}bc)",
        f"ROOT {{p}}bt = {state} tuple({{p}}next, {{p}}bn, {{p}}bx2, {{p}}bc)"])
    x, c = floats(rng, (4,), "f32"), floats(rng, (4,), "f32")
    n = case.param(np.int32(trips))
    zero = case.const("s32[]", "0")
    init = case.op(state, "tuple", [zero, n, case.param(x), case.param(c)])
    loop = case.op(state, "while", [init], f"condition={cond}, body={body}")
    expected = x.copy()
    for _ in range(trips):
        expected = (expected * np.float32(0.5) + c).astype(np.float32)
    case.expect(case.op("f32[4]", "get-tuple-element", [loop], "index=2"),
                expected, (1e-6, 1e-6))
    case.expect(case.op("s32[]", "get-tuple-element", [loop], "index=0"),
                np.int32(max(trips, 0)))
    return case


def predicate_conditional_case(rng, flag):
    case = Case(f"conditional on pred {flag}", ["conditional"])
    on_true = computation(case, "t", [
        "{p}tx = f32[3] parameter(0)",
        "ROOT {p}tr = f32[3] negate({p}tx)"])
    on_false = computation(case, "f", [
        "{p}fx = (f32[3], f32[3]) parameter(0)",
        "{p}fa = f32[3] get-tuple-element({p}fx), index=0",
        "{p}fb = f32[3] get-tuple-element({p}fx), index=1",
        "ROOT {p}fr = f32[3] multiply({p}fa, {p}fb)"])
    x, y = floats(rng, (3,), "f32"), floats(rng, (3,), "f32")
    px, py = case.param(x), case.param(y)
    pair = case.op("(f32[3], f32[3])", "tuple", [px, py])
    chosen = case.op("f32[3]", "conditional", [case.param(np.bool_(flag)), px, pair],
                     f"true_computation={on_true}, false_computation={on_false}")
    case.expect(chosen, -x if flag else x * y)
    return case


def indexed_conditional_case(rng, index):
    """Three branches; an index outside [0, 3) runs the last one."""
    case = Case(f"conditional on index {index}", ["conditional"])
    branches = []
    for k, op in enumerate(["add", "subtract", "maximum"]):
        branches.append(computation(case, f"b{k}", [
            f"{{p}}b{k}x = f32[2] parameter(0)",
            f"{{p}}b{k}k = f32[2] constant({{{k + 1}, {k + 2}}})",
            f"ROOT {{p}}b{k}r = f32[2] {op}({{p}}b{k}x, {{p}}b{k}k)"]))
    x = floats(rng, (2,), "f32")
    px = case.param(x)
    chosen = case.op("f32[2]", "conditional",
                     [case.param(np.int32(index)), px, px, px],
                     "branch_computations={" + ", ".join(branches) + "}")
    pick = index if 0 <= index < 3 else 2
    consts = np.array([pick + 1, pick + 2], np.float32)
    expected = [x + consts, x - consts, np.maximum(x, consts)][pick]
    case.expect(chosen, expected)
    return case


def call_case(rng):
    case = Case("call", ["call"])
    callee = computation(case, "callee", [
        "{p}ca = f32[5] parameter(0)",
        "{p}cb = f32[5] parameter(1)",
        "{p}cm = f32[5] multiply({p}ca, {p}cb)",
        "ROOT {p}cr = (f32[5], f32[5]) tuple({p}cm, {p}ca)"])
    x, y = floats(rng, (5,), "f32"), floats(rng, (5,), "f32")
    result = case.op("(f32[5], f32[5])", "call", [case.param(x), case.param(y)],
                     f"to_apply={callee}")
    case.expect(case.op("f32[5]", "get-tuple-element", [result], "index=0"), x * y)
    case.expect(case.op("f32[5]", "get-tuple-element", [result], "index=1"), x)
    return case


def cases(rng):
    return ([while_case(rng, trips) for trips in (0, 1, 7)] +
            [predicate_conditional_case(rng, flag) for flag in (True, False)] +
            [indexed_conditional_case(rng, index) for index in (0, 1, 2, 3, -1)] +
            [call_case(rng)])
