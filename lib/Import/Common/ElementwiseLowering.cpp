//===- ElementwiseLowering.cpp - Math and activations shared by the importers ===//
#include "Common/ElementwiseLowering.h"

#include <cmath>
#include <limits>

namespace kiln::import {

using ir::ComparisonDirection;
using ir::DType;
using ir::Opcode;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

bool isFloatValue(Value x) { return x && ir::isFloat(x->shape().dtype()); }

Value add(GraphBuilder &b, Value x, Value y) {
  return b.binary(Opcode::Add, x, y);
}
Value sub(GraphBuilder &b, Value x, Value y) {
  return b.binary(Opcode::Subtract, x, y);
}
Value mul(GraphBuilder &b, Value x, Value y) {
  return b.binary(Opcode::Multiply, x, y);
}
Value div(GraphBuilder &b, Value x, Value y) {
  return b.binary(Opcode::Divide, x, y);
}
Value eq(GraphBuilder &b, Value x, Value y) {
  return b.compare(ComparisonDirection::EQ, x, y);
}
Value ne(GraphBuilder &b, Value x, Value y) {
  return b.compare(ComparisonDirection::NE, x, y);
}
Value lt(GraphBuilder &b, Value x, Value y) {
  return b.compare(ComparisonDirection::LT, x, y);
}
Value gt(GraphBuilder &b, Value x, Value y) {
  return b.compare(ComparisonDirection::GT, x, y);
}

/// Runs `fn` on x widened to f32 when x is f16/bf16, narrowing the result
/// back: composite formulas lose too much when every step rounds to half.
template <typename Fn> Value widened(GraphBuilder &b, Value x, Fn fn) {
  if (!x)
    return b.fail("internal error: null operand");
  DType dtype = x->shape().dtype();
  DType wide = computeType(dtype);
  if (wide == dtype)
    return fn(x);
  return b.convert(fn(b.convert(x, wide)), dtype);
}

/// Where a truncating quotient or remainder must step toward -inf: the
/// remainder is non-zero and its sign differs from the divisor's.
Value needsFloorAdjust(GraphBuilder &b, Value remainder, Value divisor) {
  Value nonZero = ne(b, remainder, b.like(remainder, 0));
  Value signsDiffer = ne(b, lt(b, remainder, b.like(remainder, 0)),
                         lt(b, divisor, b.like(divisor, 0)));
  return b.binary(Opcode::And, nonZero, signsDiffer);
}
} // namespace

DType computeType(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 ? DType::F32 : dtype;
}

// --- Integer-aware arithmetic ----------------------------------------------

Value floorDivide(GraphBuilder &b, Value x, Value y) {
  if (isFloatValue(x))
    return b.unary(Opcode::Floor, div(b, x, y));
  Value quotient = div(b, x, y);
  if (!x || ir::isUnsignedInt(x->shape().dtype()))
    return quotient;
  Value remainder = b.binary(Opcode::Remainder, x, y);
  return b.select(needsFloorAdjust(b, remainder, y),
                  sub(b, quotient, b.like(quotient, 1)), quotient);
}

Value floorRemainder(GraphBuilder &b, Value x, Value y) {
  Value remainder = b.binary(Opcode::Remainder, x, y);
  if (!x || ir::isUnsignedInt(x->shape().dtype()))
    return remainder;
  return b.select(needsFloorAdjust(b, remainder, y), add(b, remainder, y),
                  remainder);
}

Value truncate(GraphBuilder &b, Value x) {
  if (!isFloatValue(x))
    return x;
  return b.select(lt(b, x, b.like(x, 0)), b.unary(Opcode::Ceil, x),
                  b.unary(Opcode::Floor, x));
}

Value truncateDivide(GraphBuilder &b, Value x, Value y) {
  return truncate(b, div(b, x, y));
}

Value divideNoNan(GraphBuilder &b, Value x, Value y) {
  Value quotient = div(b, x, y);
  return b.select(eq(b, y, b.like(y, 0)), b.like(quotient, 0), quotient);
}

Value squaredDifference(GraphBuilder &b, Value x, Value y) {
  return square(b, sub(b, x, y));
}

// --- Unary math ---------------------------------------------------------------

Value square(GraphBuilder &b, Value x) { return mul(b, x, x); }

Value reciprocal(GraphBuilder &b, Value x) { return div(b, b.like(x, 1), x); }

Value signOf(GraphBuilder &b, Value x) {
  if (x && ir::isUnsignedInt(x->shape().dtype()))
    return b.convert(ne(b, x, b.like(x, 0)), x->shape().dtype());
  return b.unary(Opcode::Sign, x);
}

Value roundHalfEven(GraphBuilder &b, Value x) {
  return isFloatValue(x) ? b.unary(Opcode::RoundNearestEven, x) : x;
}
Value floorOf(GraphBuilder &b, Value x) {
  return isFloatValue(x) ? b.unary(Opcode::Floor, x) : x;
}
Value ceilOf(GraphBuilder &b, Value x) {
  return isFloatValue(x) ? b.unary(Opcode::Ceil, x) : x;
}

Value expm1(GraphBuilder &b, Value x) {
  // Kahan: with u = exp(x) rounded, (u - 1) * x / log(u) cancels the
  // rounding error of u; u == 1 means |x| is below half an ulp of 1.
  return widened(b, x, [&](Value v) {
    Value u = b.unary(Opcode::Exp, v);
    Value um1 = sub(b, u, b.like(u, 1));
    Value general = div(b, mul(b, um1, v), b.unary(Opcode::Log, u));
    Value r = b.select(eq(b, um1, b.like(u, -1)), b.like(u, -1), general);
    r = b.select(eq(b, u, b.like(u, kInf)), u, r);
    return b.select(eq(b, u, b.like(u, 1)), v, r);
  });
}

Value log1p(GraphBuilder &b, Value x) {
  // Kahan: log(u) * x / (u - 1) with u = 1 + x rounded.
  return widened(b, x, [&](Value v) {
    Value u = add(b, v, b.like(v, 1));
    Value general =
        div(b, mul(b, b.unary(Opcode::Log, u), v), sub(b, u, b.like(u, 1)));
    Value r = b.select(eq(b, u, b.like(u, kInf)), u, general);
    return b.select(eq(b, u, b.like(u, 1)), v, r);
  });
}

Value tanOf(GraphBuilder &b, Value x) {
  return widened(b, x, [&](Value v) {
    return div(b, b.unary(Opcode::Sin, v), b.unary(Opcode::Cos, v));
  });
}

namespace {
/// sqrt(1 - x^2) as sqrt((1 - x)(1 + x)), exact near |x| = 1.
Value sqrtOneMinusSquare(GraphBuilder &b, Value x) {
  Value one = b.like(x, 1);
  return b.unary(Opcode::Sqrt, mul(b, sub(b, one, x), add(b, one, x)));
}
} // namespace

Value asinOf(GraphBuilder &b, Value x) {
  return widened(b, x, [&](Value v) {
    return b.binary(Opcode::Atan2, v, sqrtOneMinusSquare(b, v));
  });
}

Value acosOf(GraphBuilder &b, Value x) {
  return widened(b, x, [&](Value v) {
    return b.binary(Opcode::Atan2, sqrtOneMinusSquare(b, v), v);
  });
}

Value atanOf(GraphBuilder &b, Value x) {
  return b.binary(Opcode::Atan2, x, b.like(x, 1));
}

Value sinhOf(GraphBuilder &b, Value x) {
  // (expm1(x) - expm1(-x)) / 2 keeps sinh(x) ~ x accurate near 0.
  return widened(b, x, [&](Value v) {
    Value d = sub(b, expm1(b, v), expm1(b, b.unary(Opcode::Negate, v)));
    return mul(b, d, b.like(v, 0.5));
  });
}

Value coshOf(GraphBuilder &b, Value x) {
  return widened(b, x, [&](Value v) {
    Value s = add(b, b.unary(Opcode::Exp, v),
                  b.unary(Opcode::Exp, b.unary(Opcode::Negate, v)));
    return mul(b, s, b.like(v, 0.5));
  });
}

Value asinhOf(GraphBuilder &b, Value x) {
  // sign(x) * log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), accurate near 0.
  return widened(b, x, [&](Value v) {
    Value a = b.unary(Opcode::Abs, v);
    Value a2 = mul(b, a, a);
    Value root = b.unary(Opcode::Sqrt, add(b, a2, b.like(a, 1)));
    Value inner = add(b, a, div(b, a2, add(b, root, b.like(a, 1))));
    // Past 1e18 the square overflows single precision; asinh ~ log(2|x|).
    Value big = b.unary(Opcode::Log, mul(b, a, b.like(a, 2)));
    Value r = b.select(gt(b, a, b.like(a, 1e18)), big, log1p(b, inner));
    return mul(b, b.unary(Opcode::Sign, v), r);
  });
}

Value acoshOf(GraphBuilder &b, Value x) {
  // log(x + sqrt(x - 1) * sqrt(x + 1)) never squares x, so never overflows.
  return widened(b, x, [&](Value v) {
    Value one = b.like(v, 1);
    Value root = mul(b, b.unary(Opcode::Sqrt, sub(b, v, one)),
                     b.unary(Opcode::Sqrt, add(b, v, one)));
    return b.unary(Opcode::Log, add(b, v, root));
  });
}

Value atanhOf(GraphBuilder &b, Value x) {
  // 0.5 * log1p(2x / (1 - x)).
  return widened(b, x, [&](Value v) {
    Value ratio =
        div(b, mul(b, v, b.like(v, 2)), sub(b, b.like(v, 1), v));
    return mul(b, log1p(b, ratio), b.like(v, 0.5));
  });
}

Value erfcOf(GraphBuilder &b, Value x) {
  return widened(b, x, [&](Value v) {
    return sub(b, b.like(v, 1), b.unary(Opcode::Erf, v));
  });
}

Value isNan(GraphBuilder &b, Value x) {
  if (!isFloatValue(x))
    return x ? b.broadcastTo(b.scalar(DType::Pred, 0), x->shape().dims())
             : nullptr;
  return ne(b, x, x);
}

Value isInf(GraphBuilder &b, Value x, bool negative, bool positive) {
  if (!isFloatValue(x) || (!negative && !positive))
    return x ? b.broadcastTo(b.scalar(DType::Pred, 0), x->shape().dims())
             : nullptr;
  if (negative && positive)
    return eq(b, b.unary(Opcode::Abs, x), b.like(x, kInf));
  return eq(b, x, b.like(x, negative ? -kInf : kInf));
}

// --- Activations ------------------------------------------------------------

Value relu(GraphBuilder &b, Value x) {
  return b.binary(Opcode::Maximum, x, b.like(x, 0));
}

Value relu6(GraphBuilder &b, Value x) {
  return b.binary(Opcode::Minimum, relu(b, x), b.like(x, 6));
}

Value elu(GraphBuilder &b, Value x, double alpha) {
  Value negative = mul(b, expm1(b, x), b.like(x, alpha));
  return b.select(gt(b, x, b.like(x, 0)), x, negative);
}

Value selu(GraphBuilder &b, Value x, double alpha, double scale) {
  return mul(b, elu(b, x, alpha), b.like(x, scale));
}

Value celu(GraphBuilder &b, Value x, double alpha) {
  Value negative =
      mul(b, expm1(b, div(b, x, b.like(x, alpha))), b.like(x, alpha));
  return add(b, relu(b, x),
             b.binary(Opcode::Minimum, b.like(x, 0), negative));
}

Value leakyRelu(GraphBuilder &b, Value x, double alpha) {
  return b.select(lt(b, x, b.like(x, 0)), mul(b, x, b.like(x, alpha)), x);
}

Value preluOf(GraphBuilder &b, Value x, Value slope) {
  return b.select(lt(b, x, b.like(x, 0)), mul(b, x, slope), x);
}

Value softplus(GraphBuilder &b, Value x) {
  // max(x, 0) + log1p(exp(-|x|)): exp never overflows.
  return widened(b, x, [&](Value v) {
    Value negAbs = b.unary(Opcode::Negate, b.unary(Opcode::Abs, v));
    return add(b, relu(b, v), log1p(b, b.unary(Opcode::Exp, negAbs)));
  });
}

Value softsign(GraphBuilder &b, Value x) {
  return div(b, x, add(b, b.unary(Opcode::Abs, x), b.like(x, 1)));
}

Value hardSigmoid(GraphBuilder &b, Value x, double alpha, double beta) {
  Value linear = add(b, mul(b, x, b.like(x, alpha)), b.like(x, beta));
  return clip(b, linear, b.like(x, 0), b.like(x, 1));
}

Value hardSwish(GraphBuilder &b, Value x) {
  return mul(b, x, hardSigmoid(b, x, 1.0 / 6.0, 0.5));
}

Value mish(GraphBuilder &b, Value x) {
  return mul(b, x, b.unary(Opcode::Tanh, softplus(b, x)));
}

Value thresholdedRelu(GraphBuilder &b, Value x, double alpha) {
  return b.select(gt(b, x, b.like(x, alpha)), x, b.like(x, 0));
}

Value shrink(GraphBuilder &b, Value x, double lambd, double bias) {
  Value zero = b.like(x, 0);
  Value above = b.select(gt(b, x, b.like(x, lambd)),
                         sub(b, x, b.like(x, bias)), zero);
  return b.select(lt(b, x, b.like(x, -lambd)), add(b, x, b.like(x, bias)),
                  above);
}

Value clip(GraphBuilder &b, Value x, Value lo, Value hi) {
  Value r = lo ? b.binary(Opcode::Maximum, x, lo) : x;
  return hi ? b.binary(Opcode::Minimum, r, hi) : r;
}

// --- Along one axis -----------------------------------------------------------

namespace {
/// x - max(x) along `axis`: the shift that keeps exp from overflowing.
Value shiftByMax(GraphBuilder &b, Value x, int64_t axis) {
  Value max = b.reduce(x, {axis}, ir::ReducerKind::Max, /*keepDims=*/true);
  return sub(b, x, max);
}
} // namespace

Value softmax(GraphBuilder &b, Value x, int64_t axis) {
  return widened(b, x, [&](Value v) {
    Value e = b.unary(Opcode::Exp, shiftByMax(b, v, axis));
    return div(b, e, b.reduce(e, {axis}, ir::ReducerKind::Add, true));
  });
}

Value logSoftmax(GraphBuilder &b, Value x, int64_t axis) {
  return widened(b, x, [&](Value v) {
    Value shifted = shiftByMax(b, v, axis);
    Value sum = b.reduce(b.unary(Opcode::Exp, shifted), {axis},
                         ir::ReducerKind::Add, true);
    return sub(b, shifted, b.unary(Opcode::Log, sum));
  });
}

Value hardmax(GraphBuilder &b, Value x, int64_t axis) {
  if (!x)
    return b.fail("internal error: null operand");
  ir::Attributes attrs;
  attrs.dimensions = {axis};
  Value index = b.add(Opcode::ArgMax, {x}, attrs, ir::Shape(DType::S64, {}));
  std::vector<int64_t> kept = x->shape().dims();
  kept.at(size_t(axis)) = 1;
  Value iota =
      b.add(Opcode::Iota, {}, attrs, ir::Shape(DType::S64, x->shape().dims()));
  return b.convert(eq(b, iota, b.reshape(index, kept)), x->shape().dtype());
}

} // namespace kiln::import
