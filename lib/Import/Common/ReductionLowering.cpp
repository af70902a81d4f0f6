//===- ReductionLowering.cpp - Reductions and normalizations for the importers ===//
#include "Common/ReductionLowering.h"

#include "Common/ElementwiseLowering.h"
#include "kiln/Support/CheckedArithmetic.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kiln::import {

using ir::DType;
using ir::Opcode;
using ir::ReducerKind;

namespace {
Value mul(GraphBuilder &b, Value x, Value y) {
  return b.binary(Opcode::Multiply, x, y);
}
Value sub(GraphBuilder &b, Value x, Value y) {
  return b.binary(Opcode::Subtract, x, y);
}

std::vector<int64_t> reducedDims(const std::vector<int64_t> &dims,
                                 const std::vector<int64_t> &axes,
                                 bool keepDims) {
  std::vector<int64_t> result;
  for (size_t i = 0; i < dims.size(); ++i) {
    bool reduced = std::find(axes.begin(), axes.end(), int64_t(i)) != axes.end();
    if (!reduced)
      result.push_back(dims[i]);
    else if (keepDims)
      result.push_back(1);
  }
  return result;
}

int64_t elementCount(const std::vector<int64_t> &dims,
                     const std::vector<int64_t> &axes) {
  int64_t count = 1;
  for (int64_t axis : axes)
    count *= dims.at(size_t(axis));
  return count;
}

/// Sum with f16/bf16 accumulated in f32, the result in x's dtype. A null
/// `x` (the op before it failed, e.g. abs of a bool) stays null: the
/// builder holds that error.
Value sumOf(GraphBuilder &b, Value x, const std::vector<int64_t> &axes,
            bool keepDims) {
  if (!x)
    return x;
  DType dtype = x->shape().dtype();
  Value wide = b.convert(x, computeType(dtype));
  return b.convert(b.reduce(wide, axes, ReducerKind::Add, keepDims), dtype);
}

/// Mean in the computation dtype (integers: truncating division).
Value meanOf(GraphBuilder &b, Value x, const std::vector<int64_t> &axes,
             bool keepDims) {
  if (!x)
    return x;
  DType dtype = x->shape().dtype();
  Value wide = b.convert(x, computeType(dtype));
  Value sum = b.reduce(wide, axes, ReducerKind::Add, keepDims);
  Value count = b.like(sum, double(elementCount(x->shape().dims(), axes)));
  return b.binary(Opcode::Divide, sum, count);
}

/// log(sum(exp(x))) as max + log(sum(exp(x - max))); an infinite max (all
/// -inf, or an empty axis) shifts by 0 instead so no NaN appears.
Value logSumExp(GraphBuilder &b, Value x, const std::vector<int64_t> &axes,
                bool keepDims) {
  DType dtype = x->shape().dtype();
  Value v = b.convert(x, computeType(dtype));
  Value max = b.reduce(v, axes, ReducerKind::Max, /*keepDims=*/true);
  Value shift = b.select(b.unary(Opcode::IsFinite, max), max, b.like(max, 0));
  Value sum = b.reduce(b.unary(Opcode::Exp, sub(b, v, shift)), axes,
                       ReducerKind::Add, true);
  Value r = b.binary(Opcode::Add, b.unary(Opcode::Log, sum), shift);
  r = b.reshape(r, reducedDims(x->shape().dims(), axes, keepDims));
  return b.convert(r, dtype);
}

/// Runs `fn` in f64 for integer inputs (sqrt/log are float-only), converting
/// back afterwards as ONNX Runtime's integer kernels do.
template <typename Fn> Value inFloat(GraphBuilder &b, Value x, Fn fn) {
  DType dtype = x->shape().dtype();
  if (ir::isFloat(dtype))
    return fn(x);
  return b.convert(fn(b.convert(x, DType::F64)), dtype);
}

ReducerKind plainReducer(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Max:
    return ReducerKind::Max;
  case ReduceKind::Min:
    return ReducerKind::Min;
  case ReduceKind::Prod:
    return ReducerKind::Mul;
  case ReduceKind::All:
    return ReducerKind::And;
  case ReduceKind::Any:
    return ReducerKind::Or;
  default:
    return ReducerKind::Add;
  }
}
} // namespace

std::optional<std::vector<int64_t>>
normalizeAxes(GraphBuilder &b, const std::vector<int64_t> &axes, int64_t rank) {
  std::set<int64_t> unique;
  for (int64_t axis : axes) {
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized) {
      b.fail(fmt::format("axis {} is out of range for a tensor of rank {}",
                         axis, rank));
      return std::nullopt;
    }
    unique.insert(*normalized);
  }
  return std::vector<int64_t>(unique.begin(), unique.end());
}

Value reduceAxes(GraphBuilder &b, Value x, const std::vector<int64_t> &axes,
                 ReduceKind kind, bool keepDims) {
  if (!x)
    return b.fail("internal error: null operand");
  switch (kind) {
  case ReduceKind::Sum:
    return sumOf(b, x, axes, keepDims);
  case ReduceKind::Mean:
    return b.convert(meanOf(b, x, axes, keepDims), x->shape().dtype());
  case ReduceKind::L1:
    return sumOf(b, b.unary(Opcode::Abs, x), axes, keepDims);
  case ReduceKind::SumSquare:
    return sumOf(b, square(b, x), axes, keepDims);
  case ReduceKind::L2:
    return inFloat(b, x, [&](Value v) {
      return b.unary(Opcode::Sqrt, sumOf(b, square(b, v), axes, keepDims));
    });
  case ReduceKind::LogSum:
    return inFloat(b, x, [&](Value v) {
      return b.unary(Opcode::Log, sumOf(b, v, axes, keepDims));
    });
  case ReduceKind::LogSumExp:
    return inFloat(b, x, [&](Value v) { return logSumExp(b, v, axes, keepDims); });
  default:
    return b.reduce(x, axes, plainReducer(kind), keepDims);
  }
}

Value argMinMax(GraphBuilder &b, Value x, int64_t axis, bool isMax,
                DType indexType, bool keepDims, bool selectLast) {
  if (!x)
    return b.fail("internal error: null operand");
  const std::vector<int64_t> &dims = x->shape().dims();
  Value input = selectLast ? b.reverse(x, {axis}) : x;
  ir::Attributes attrs;
  attrs.dimensions = {axis};
  Value index = b.add(isMax ? Opcode::ArgMax : Opcode::ArgMin, {input}, attrs,
                      ir::Shape(indexType, {}));
  // The first extreme of the reversed tensor is the last of the original.
  if (selectLast)
    index = sub(b, b.scalar(indexType, double(dims.at(size_t(axis)) - 1)),
                index);
  return keepDims ? b.reshape(index, reducedDims(dims, {axis}, true)) : index;
}

Value cumulative(GraphBuilder &b, Value x, int64_t axis, bool exclusive,
                 bool reverse, ReducerKind reducer) {
  if (!x)
    return b.fail("internal error: null operand");
  int64_t n = x->shape().dim(size_t(axis));
  if (n == 0)
    return x;
  Value init = b.like(x, reducer == ReducerKind::Mul ? 1 : 0);
  Value v = reverse ? b.reverse(x, {axis}) : x;
  if (exclusive) { // Shift by one: the identity in front, the last dropped.
    std::vector<ir::PadDim> shift(size_t(x->shape().rank()));
    shift[size_t(axis)] = {1, -1, 0};
    v = b.pad(v, init, shift);
  }
  // Element i sums the window ending at i: n wide, n - 1 identities in front.
  ir::Attributes attrs;
  attrs.reducer = reducer;
  attrs.window.resize(size_t(x->shape().rank()));
  attrs.window[size_t(axis)] = {n, 1, n - 1, 0, 1, 1};
  Value r = b.add(Opcode::ReduceWindow, {v, init}, attrs);
  return reverse ? b.reverse(r, {axis}) : r;
}

LayerNormResult layerNormalization(GraphBuilder &b, Value x, Value scale,
                                   Value bias, int64_t axis, double epsilon) {
  if (!x)
    return {b.fail("internal error: null operand")};
  DType dtype = x->shape().dtype();
  Value v = b.convert(x, computeType(dtype));
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < x->shape().rank(); ++d)
    axes.push_back(d);
  LayerNormResult result;
  result.mean = meanOf(b, v, axes, true);
  Value centered = sub(b, v, result.mean);
  Value variance = meanOf(b, square(b, centered), axes, true);
  result.invStdDev = b.unary(
      Opcode::Rsqrt, b.binary(Opcode::Add, variance, b.like(variance, epsilon)));
  Value y = b.convert(mul(b, centered, result.invStdDev), dtype);
  y = mul(b, y, scale);
  result.y = bias ? b.binary(Opcode::Add, y, bias) : y;
  return result;
}

Value instanceNormalization(GraphBuilder &b, Value x, Value scale, Value bias,
                            double epsilon) {
  if (!x || !scale || !bias)
    return b.fail("internal error: null operand");
  int64_t rank = x->shape().rank();
  if (rank < 2)
    return b.fail("instance normalization needs an input of rank >= 2");
  DType dtype = x->shape().dtype();
  Value v = b.convert(x, computeType(dtype));
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  Value centered = sub(b, v, meanOf(b, v, axes, true));
  Value variance = meanOf(b, square(b, centered), axes, true);
  Value inv = b.unary(Opcode::Rsqrt, b.binary(Opcode::Add, variance,
                                              b.like(variance, epsilon)));
  // [C] -> [C, 1, ..., 1] so it lines up with the channel dimension.
  std::vector<int64_t> channel(size_t(rank - 1), 1);
  channel[0] = x->shape().dim(1);
  Value s = b.reshape(b.convert(scale, computeType(dtype)), channel);
  Value c = b.reshape(b.convert(bias, computeType(dtype)), channel);
  Value y = b.binary(Opcode::Add, mul(b, mul(b, centered, inv), s), c);
  return b.convert(y, dtype);
}

Value meanVarianceNormalization(GraphBuilder &b, Value x,
                                const std::vector<int64_t> &axes) {
  if (!x)
    return b.fail("internal error: null operand");
  // Written as ONNX's function body: E[x^2] - E[x]^2, epsilon after sqrt.
  Value mean = meanOf(b, x, axes, true);
  Value meanOfSquares = meanOf(b, square(b, x), axes, true);
  Value variance = sub(b, meanOfSquares, square(b, mean));
  Value stdDev = b.binary(Opcode::Add, b.unary(Opcode::Sqrt, variance),
                          b.like(variance, 1e-9));
  return b.binary(Opcode::Divide, sub(b, x, mean), stdDev);
}

Value lpNormalization(GraphBuilder &b, Value x, int64_t axis, int64_t p) {
  if (!x)
    return b.fail("internal error: null operand");
  if (p != 1 && p != 2)
    return b.fail(fmt::format("Lp normalization supports p = 1 or 2, not {}", p));
  Value norm = reduceAxes(b, x, {axis}, p == 1 ? ReduceKind::L1 : ReduceKind::L2,
                          true);
  return b.binary(Opcode::Divide, x, norm);
}

Value localResponseNormalization(GraphBuilder &b, Value x, int64_t axis,
                                 int64_t before, int64_t after, double alpha,
                                 double beta, double bias) {
  if (!x)
    return b.fail("internal error: null operand");
  if (axis < 0 || axis >= x->shape().rank())
    return b.fail(fmt::format("local response normalization over dimension "
                              "{} of {}: there is no such dimension",
                              axis, x->shape().toString()));
  // The window spans before + after + 1 positions; both come from the model.
  std::optional<int64_t> span = checkedAdd(before, after);
  if (before < 0 || after < 0 || !span || *span == INT64_MAX)
    return b.fail(fmt::format("local response normalization window of {} "
                              "before and {} after is invalid",
                              before, after));
  DType dtype = x->shape().dtype();
  Value v = b.convert(x, computeType(dtype));
  ir::Attributes attrs;
  attrs.reducer = ReducerKind::Add;
  attrs.window.resize(size_t(x->shape().rank()));
  attrs.window[size_t(axis)] = {*span + 1, 1, before, after, 1, 1};
  Value sum = b.add(Opcode::ReduceWindow, {square(b, v), b.like(v, 0)}, attrs);
  Value base = b.binary(Opcode::Add, b.like(v, bias), mul(b, sum, b.like(v, alpha)));
  Value denominator = b.binary(Opcode::Power, base, b.like(v, beta));
  return b.convert(b.binary(Opcode::Divide, v, denominator), dtype);
}

} // namespace kiln::import
