//===- OnnxElementwiseOps.cpp - ONNX math, comparison, cast and reduction ops ===//
//
// Semantics follow the ONNX operator specification per opset (and ONNX
// Runtime where the spec leaves room): integer Div truncates, Mod's fmod=0
// takes the divisor's sign, Clip reads attributes before opset 11 and inputs
// after, reductions read `axes` from an attribute until opset 13 (ReduceSum)
// or 18 (the rest), Softmax-style ops coerce to 2-D before opset 13.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

#include "Common/ElementwiseLowering.h"
#include "Common/EinsumLowering.h"
#include "Common/ReductionLowering.h"
#include "Common/RuleShapes.h"

#include <fmt/format.h>

#include <limits>
#include <utility>

namespace kiln::import::onnx {

namespace {
using ir::ComparisonDirection;
using ir::DType;
using ir::Opcode;

/// A normalized `axis` attribute, or nullopt after recording an error.
std::optional<int64_t> axisAttr(OnnxNodeContext &c, int64_t fallback,
                                int64_t rank) {
  int64_t axis = c.attrInt("axis", fallback);
  std::optional<int64_t> normalized = normalizeAxis(axis, rank);
  if (!normalized)
    c.fail(fmt::format("axis {} is out of range for rank {}", axis, rank));
  return normalized;
}

// --- Table-driven shapes of rules (Common/RuleShapes.h) -----------------------

template <Opcode Op>
constexpr OnnxLowering unaryOp = rules::unaryOp<OnnxNodeContext, Op>;
template <Opcode Op>
constexpr OnnxLowering binaryOp = rules::binaryOp<OnnxNodeContext, Op>;
template <ComparisonDirection Dir>
constexpr OnnxLowering compareOp = rules::compareOp<OnnxNodeContext, Dir>;
template <Value (*Fn)(GraphBuilder &, Value)>
constexpr OnnxLowering unaryFn = rules::unaryFn<OnnxNodeContext, Fn>;

/// Activations with one float attribute and its default.
template <Value (*Fn)(GraphBuilder &, Value, double), double Default>
void alphaFn(OnnxNodeContext &c) {
  if (c.requireInputs(1))
    c.setOutput(0, Fn(c.builder(), c.input(0), c.attrFloat("alpha", Default)));
}

// --- Arithmetic ------------------------------------------------------------

/// Sum, Max, Min: any number of inputs, broadcast together.
template <Opcode Op> void variadicOp(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  Value r = c.input(0);
  for (size_t i = 1; i < c.inputCount(); ++i)
    r = c.builder().binary(Op, r, c.input(i));
  c.setOutput(0, r);
}

void lowerMean(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  GraphBuilder &b = c.builder();
  Value sum = c.input(0);
  for (size_t i = 1; i < c.inputCount(); ++i)
    sum = b.binary(Opcode::Add, sum, c.input(i));
  c.setOutput(0, b.binary(Opcode::Divide, sum,
                          b.like(sum, double(c.inputCount()))));
}

/// fmod=1 is C fmod / %; fmod=0 (integers) takes the divisor's sign.
void lowerMod(OnnxNodeContext &c) {
  if (!c.requireInputs(2))
    return;
  GraphBuilder &b = c.builder();
  c.setOutput(0, c.attrInt("fmod", 0)
                     ? b.binary(Opcode::Remainder, c.input(0), c.input(1))
                     : floorRemainder(b, c.input(0), c.input(1)));
}

/// Pow's exponent may have another dtype (opset 12+). The result has the
/// base's dtype; an integer base with a float exponent is computed in f64 and
/// truncated, as ONNX Runtime's static_cast<T>(std::pow(x, y)) does.
void lowerPow(OnnxNodeContext &c) {
  if (!c.requireInputs(2))
    return;
  GraphBuilder &b = c.builder();
  Value base = c.input(0), exponent = c.input(1);
  DType baseType = base->shape().dtype();
  DType expType = exponent->shape().dtype();
  if (ir::isFloat(baseType) || !ir::isFloat(expType)) {
    c.setOutput(0, b.binary(Opcode::Power, base, b.convert(exponent, baseType)));
    return;
  }
  Value r = b.binary(Opcode::Power, b.convert(base, DType::F64),
                     b.convert(exponent, DType::F64));
  c.setOutput(0, b.convert(r, baseType));
}

void lowerBitShift(OnnxNodeContext &c) {
  if (!c.requireInputs(2))
    return;
  std::string direction = c.attrString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return void(c.fail(fmt::format(
        "direction must be LEFT or RIGHT, not '{}'", direction)));
  c.setOutput(0, c.builder().binary(direction == "LEFT"
                                        ? Opcode::ShiftLeft
                                        : Opcode::ShiftRightLogical,
                                    c.input(0), c.input(1)));
}

// --- Activations -----------------------------------------------------------

void lowerSelu(OnnxNodeContext &c) {
  if (c.requireInputs(1))
    c.setOutput(0, selu(c.builder(), c.input(0),
                        c.attrFloat("alpha", 1.67326319217681884765625),
                        c.attrFloat("gamma", 1.05070102214813232421875)));
}

void lowerHardSigmoid(OnnxNodeContext &c) {
  if (c.requireInputs(1))
    c.setOutput(0, hardSigmoid(c.builder(), c.input(0),
                               c.attrFloat("alpha", 0.2),
                               c.attrFloat("beta", 0.5)));
}

void lowerShrink(OnnxNodeContext &c) {
  if (c.requireInputs(1))
    c.setOutput(0, shrink(c.builder(), c.input(0), c.attrFloat("lambd", 0.5),
                          c.attrFloat("bias", 0.0)));
}

void lowerPRelu(OnnxNodeContext &c) {
  if (c.requireInputs(2))
    c.setOutput(0, preluOf(c.builder(), c.input(0), c.input(1)));
}

void lowerIsInf(OnnxNodeContext &c) {
  if (c.requireInputs(1))
    c.setOutput(0, isInf(c.builder(), c.input(0),
                         c.attrInt("detect_negative", 1) != 0,
                         c.attrInt("detect_positive", 1) != 0));
}

/// Clip: bounds are attributes before opset 11, optional inputs after.
void lowerClip(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  GraphBuilder &b = c.builder();
  Value x = c.input(0), lo = nullptr, hi = nullptr;
  if (c.opset() < 11) {
    constexpr double kMax = std::numeric_limits<float>::max();
    lo = b.like(x, c.attrFloat("min", -kMax));
    hi = b.like(x, c.attrFloat("max", kMax));
  } else {
    lo = c.inputCount() > 1 && c.hasInput(1) ? c.input(1) : nullptr;
    hi = c.inputCount() > 2 && c.hasInput(2) ? c.input(2) : nullptr;
  }
  c.setOutput(0, clip(b, x, lo, hi));
}

// --- Selection, casts ------------------------------------------------------

void lowerWhere(OnnxNodeContext &c) {
  if (c.requireInputs(3))
    c.setOutput(0, c.builder().select(c.input(0), c.input(1), c.input(2)));
}

/// Cast's `to`: a TensorProto.DataType number.
std::optional<DType> castTarget(int64_t dataType) {
  static constexpr std::pair<int64_t, DType> kTypes[] = {
      {1, DType::F32},  {2, DType::U8},   {3, DType::S8},   {4, DType::U16},
      {5, DType::S16},  {6, DType::S32},  {7, DType::S64},  {9, DType::Pred},
      {10, DType::F16}, {11, DType::F64}, {12, DType::U32}, {13, DType::U64},
      {16, DType::BF16},
  };
  for (const auto &[number, dtype] : kTypes)
    if (number == dataType)
      return dtype;
  return std::nullopt;
}

void lowerCast(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  int64_t to = c.attrInt("to", 0);
  std::optional<DType> dtype = castTarget(to);
  if (!dtype)
    return void(c.fail(fmt::format(
        "Cast to ONNX data type {} is not supported (string and complex "
        "tensors are not supported by an ahead-of-time compiler)",
        to)));
  c.setOutput(0, c.builder().convert(c.input(0), *dtype));
}

void lowerCastLike(OnnxNodeContext &c) {
  if (c.requireInputs(2))
    c.setOutput(0, c.builder().convert(c.input(0),
                                       c.input(1)->shape().dtype()));
}

/// Inference-mode Dropout is the identity with an all-true mask; training
/// mode with a non-zero ratio would need random numbers.
void lowerDropout(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  GraphBuilder &b = c.builder();
  if (c.inputCount() > 2 && c.hasInput(2)) {
    std::optional<std::vector<int64_t>> training =
        c.constantInts(2, "training_mode");
    std::optional<std::vector<double>> ratio =
        c.hasInput(1) ? GraphBuilder::constantDoubles(c.input(1))
                      : std::optional<std::vector<double>>(std::vector{0.5});
    if (!training)
      return;
    if (!training->empty() && training->front() != 0 &&
        (!ratio || ratio->empty() || ratio->front() != 0))
      return void(c.fail("Dropout in training mode draws random numbers, "
                         "which an ahead-of-time compiler does not support"));
  }
  Value x = c.input(0);
  c.setOutput(0, x);
  if (c.outputCount() > 1 && c.wantsOutput(1))
    c.setOutput(1, b.broadcastTo(b.scalar(DType::Pred, 1), x->shape().dims()));
}

// --- Reductions ------------------------------------------------------------

/// The axes of a Reduce* node: an input from `inputOpset` on, an attribute
/// before. Empty axes reduce everything unless noop_with_empty_axes.
template <ReduceKind Kind, int64_t InputOpset>
void lowerReduce(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  Value x = c.input(0);
  std::vector<int64_t> axes;
  if (c.opset() >= InputOpset) {
    // An axes input of static shape [0] is known to be empty even when it
    // is a graph input rather than a constant.
    if (c.inputCount() > 1 && c.hasInput(1) && c.input(1) &&
        c.input(1)->shape().numElements() > 0) {
      std::optional<std::vector<int64_t>> values = c.constantInts(1, "axes");
      if (!values)
        return;
      axes = *values;
    }
  } else {
    axes = c.attrInts("axes");
  }
  if (axes.empty() && c.attrInt("noop_with_empty_axes", 0)) {
    c.setOutput(0, x);
    return;
  }
  if (axes.empty())
    for (int64_t d = 0; d < x->shape().rank(); ++d)
      axes.push_back(d);
  GraphBuilder &b = c.builder();
  std::optional<std::vector<int64_t>> normalized =
      normalizeAxes(b, axes, x->shape().rank());
  if (normalized)
    c.setOutput(0, reduceAxes(b, x, *normalized, Kind,
                              c.attrInt("keepdims", 1) != 0));
}

template <bool IsMax> void lowerArgMinMax(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  Value x = c.input(0);
  std::optional<int64_t> axis = axisAttr(c, 0, x->shape().rank());
  if (axis)
    c.setOutput(0, argMinMax(c.builder(), x, *axis, IsMax, DType::S64,
                             c.attrInt("keepdims", 1) != 0,
                             c.attrInt("select_last_index", 0) != 0));
}

using AxisFn = Value (*)(GraphBuilder &, Value, int64_t);

/// Softmax, LogSoftmax, Hardmax: per axis from opset 13; before, the input
/// is flattened to 2-D at `axis` (default 1) and the function runs on rows.
template <AxisFn Fn> void lowerSoftmaxLike(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  GraphBuilder &b = c.builder();
  Value x = c.input(0);
  int64_t rank = x->shape().rank();
  if (c.opset() >= 13) {
    if (std::optional<int64_t> axis = axisAttr(c, -1, rank))
      c.setOutput(0, Fn(b, x, *axis));
    return;
  }
  // Opset < 13 accepts axis == rank (everything in one row).
  int64_t axis = c.attrInt("axis", 1);
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis > rank)
    return void(c.fail(fmt::format("axis {} is out of range for rank {}",
                                   c.attrInt("axis", 1), rank)));
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? rows : cols) *= x->shape().dim(size_t(d));
  Value flat = b.reshape(x, {rows, cols});
  c.setOutput(0, b.reshape(Fn(b, flat, 1), x->shape().dims()));
}

void lowerCumSum(OnnxNodeContext &c) {
  if (!c.requireInputs(2))
    return;
  std::optional<std::vector<int64_t>> axis = c.constantInts(1, "axis");
  if (!axis)
    return;
  std::optional<int64_t> normalized =
      axis->size() == 1
          ? normalizeAxis(axis->front(), c.input(0)->shape().rank())
          : std::nullopt;
  if (!normalized)
    return void(c.fail("axis must be one axis within the input's rank"));
  c.setOutput(0, cumulative(c.builder(), c.input(0), *normalized,
                            c.attrInt("exclusive", 0) != 0,
                            c.attrInt("reverse", 0) != 0));
}

// --- Normalizations -------------------------------------------------------

void lowerLayerNormalization(OnnxNodeContext &c) {
  if (!c.requireInputs(2))
    return;
  Value x = c.input(0);
  std::optional<int64_t> axis = axisAttr(c, -1, x->shape().rank());
  if (!axis)
    return;
  Value bias = c.inputCount() > 2 && c.hasInput(2) ? c.input(2) : nullptr;
  LayerNormResult r = layerNormalization(c.builder(), x, c.input(1), bias,
                                         *axis, c.attrFloat("epsilon", 1e-5));
  c.setOutput(0, r.y);
  if (c.outputCount() > 1 && c.wantsOutput(1))
    c.setOutput(1, r.mean);
  if (c.outputCount() > 2 && c.wantsOutput(2))
    c.setOutput(2, r.invStdDev);
}

void lowerInstanceNormalization(OnnxNodeContext &c) {
  if (c.requireInputs(3))
    c.setOutput(0, instanceNormalization(c.builder(), c.input(0), c.input(1),
                                         c.input(2),
                                         c.attrFloat("epsilon", 1e-5)));
}

void lowerMeanVarianceNormalization(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  GraphBuilder &b = c.builder();
  std::vector<int64_t> axes = c.hasAttr("axes") ? c.attrInts("axes")
                                                : std::vector<int64_t>{0, 2, 3};
  std::optional<std::vector<int64_t>> normalized =
      normalizeAxes(b, axes, c.input(0)->shape().rank());
  if (normalized)
    c.setOutput(0, meanVarianceNormalization(b, c.input(0), *normalized));
}

void lowerLpNormalization(OnnxNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  std::optional<int64_t> axis = axisAttr(c, -1, c.input(0)->shape().rank());
  if (axis)
    c.setOutput(0, lpNormalization(c.builder(), c.input(0), *axis,
                                   c.attrInt("p", 2)));
}

/// LRN over the channel axis (1): the window is [c - floor((size-1)/2),
/// c + ceil((size-1)/2)] and alpha is divided by size.
void lowerLrn(OnnxNodeContext &c) {
  Value x = c.requireInputs(1) ? c.input(0) : nullptr;
  if (!x)
    return;
  int64_t size = c.attrInt("size", 0);
  if (size < 1 || x->shape().rank() < 2)
    return void(c.fail("LRN needs size >= 1 and an input of rank >= 2"));
  c.setOutput(0, localResponseNormalization(
                     c.builder(), x, 1, (size - 1) / 2, size / 2,
                     c.attrFloat("alpha", 1e-4) / double(size),
                     c.attrFloat("beta", 0.75), c.attrFloat("bias", 1.0)));
}

void lowerEinsum(OnnxNodeContext &c) {
  std::vector<Value> operands;
  for (size_t i = 0; i < c.inputCount(); ++i)
    operands.push_back(c.input(i));
  c.setOutput(0, einsum(c.builder(), c.attrString("equation", ""), operands));
}

using CD = ComparisonDirection;
using RK = ReduceKind;

const OnnxOpRule kRules[] = {
    // Arithmetic (integer Div truncates, as in ONNX Runtime).
    {"Add", binaryOp<Opcode::Add>},
    {"Sub", binaryOp<Opcode::Subtract>},
    {"Mul", binaryOp<Opcode::Multiply>},
    {"Div", binaryOp<Opcode::Divide>},
    {"Mod", lowerMod},
    {"Pow", lowerPow},
    {"Sum", variadicOp<Opcode::Add>},
    {"Mean", lowerMean},
    {"Max", variadicOp<Opcode::Maximum>},
    {"Min", variadicOp<Opcode::Minimum>},
    // Unary math.
    {"Neg", unaryOp<Opcode::Negate>},
    {"Abs", unaryOp<Opcode::Abs>},
    {"Sign", unaryFn<signOf>},
    {"Sqrt", unaryOp<Opcode::Sqrt>},
    {"Reciprocal", unaryFn<reciprocal>},
    {"Exp", unaryOp<Opcode::Exp>},
    {"Log", unaryOp<Opcode::Log>},
    {"Sin", unaryOp<Opcode::Sin>},
    {"Cos", unaryOp<Opcode::Cos>},
    {"Tan", unaryFn<tanOf>},
    {"Asin", unaryFn<asinOf>},
    {"Acos", unaryFn<acosOf>},
    {"Atan", unaryFn<atanOf>},
    {"Sinh", unaryFn<sinhOf>},
    {"Cosh", unaryFn<coshOf>},
    {"Tanh", unaryOp<Opcode::Tanh>},
    {"Asinh", unaryFn<asinhOf>},
    {"Acosh", unaryFn<acoshOf>},
    {"Atanh", unaryFn<atanhOf>},
    {"Erf", unaryOp<Opcode::Erf>},
    {"Floor", unaryFn<floorOf>},
    {"Ceil", unaryFn<ceilOf>},
    {"Round", unaryFn<roundHalfEven>},
    {"IsNaN", unaryFn<isNan>},
    {"IsInf", lowerIsInf},
    // Activations.
    {"Sigmoid", unaryOp<Opcode::Logistic>},
    {"HardSigmoid", lowerHardSigmoid},
    {"HardSwish", unaryFn<hardSwish>},
    {"Relu", unaryFn<relu>},
    {"LeakyRelu", alphaFn<leakyRelu, 0.01>},
    {"PRelu", lowerPRelu},
    {"Elu", alphaFn<elu, 1.0>},
    {"Selu", lowerSelu},
    {"Celu", alphaFn<celu, 1.0>},
    {"ThresholdedRelu", alphaFn<thresholdedRelu, 1.0>},
    {"Softplus", unaryFn<softplus>},
    {"Softsign", unaryFn<softsign>},
    {"Mish", unaryFn<mish>},
    {"Shrink", lowerShrink},
    {"Clip", lowerClip},
    // Comparison and logic.
    {"Equal", compareOp<CD::EQ>},
    {"Less", compareOp<CD::LT>},
    {"LessOrEqual", compareOp<CD::LE>},
    {"Greater", compareOp<CD::GT>},
    {"GreaterOrEqual", compareOp<CD::GE>},
    {"And", binaryOp<Opcode::And>},
    {"Or", binaryOp<Opcode::Or>},
    {"Xor", binaryOp<Opcode::Xor>},
    {"Not", unaryOp<Opcode::Not>},
    {"BitShift", lowerBitShift},
    {"BitwiseAnd", binaryOp<Opcode::And>},
    {"BitwiseOr", binaryOp<Opcode::Or>},
    {"BitwiseXor", binaryOp<Opcode::Xor>},
    {"BitwiseNot", unaryOp<Opcode::Not>},
    {"Where", lowerWhere},
    {"Cast", lowerCast},
    {"CastLike", lowerCastLike},
    {"Dropout", lowerDropout},
    // Reductions: axes become an input at opset 13 (Sum) or 18 (others).
    {"ReduceSum", lowerReduce<RK::Sum, 13>},
    {"ReduceMean", lowerReduce<RK::Mean, 18>},
    {"ReduceMax", lowerReduce<RK::Max, 18>},
    {"ReduceMin", lowerReduce<RK::Min, 18>},
    {"ReduceProd", lowerReduce<RK::Prod, 18>},
    {"ReduceL1", lowerReduce<RK::L1, 18>},
    {"ReduceL2", lowerReduce<RK::L2, 18>},
    {"ReduceLogSum", lowerReduce<RK::LogSum, 18>},
    {"ReduceLogSumExp", lowerReduce<RK::LogSumExp, 18>},
    {"ReduceSumSquare", lowerReduce<RK::SumSquare, 18>},
    {"ArgMax", lowerArgMinMax<true>},
    {"ArgMin", lowerArgMinMax<false>},
    {"Softmax", lowerSoftmaxLike<softmax>},
    {"LogSoftmax", lowerSoftmaxLike<logSoftmax>},
    {"Hardmax", lowerSoftmaxLike<hardmax>},
    {"CumSum", lowerCumSum},
    {"Einsum", lowerEinsum},
    // Normalizations.
    {"LayerNormalization", lowerLayerNormalization},
    {"InstanceNormalization", lowerInstanceNormalization},
    {"MeanVarianceNormalization", lowerMeanVarianceNormalization},
    {"LpNormalization", lowerLpNormalization},
    {"LRN", lowerLrn},
};
} // namespace

std::span<const OnnxOpRule> onnxElementwiseRules() { return kRules; }

} // namespace kiln::import::onnx
