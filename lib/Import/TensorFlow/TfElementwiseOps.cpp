//===- TfElementwiseOps.cpp - TensorFlow math, comparison, cast and reduction ops ===//
//
// Semantics follow TensorFlow's CPU kernels: Div/Mod/TruncateDiv on integers
// round toward zero, FloorDiv/FloorMod toward -inf (floats too), Round and
// Rint are half-to-even, Cast from float to integer truncates, integer Mean
// truncates. Broadcasting is NumPy's, through GraphBuilder.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include "Common/ElementwiseLowering.h"
#include "Common/ReductionLowering.h"
#include "Common/RuleShapes.h"

#include <fmt/format.h>

namespace kiln::import::tf {

namespace {
using ir::ComparisonDirection;
using ir::DType;
using ir::Opcode;

// --- Table-driven shapes of rules (Common/RuleShapes.h) -----------------------

template <Opcode Op> constexpr TfLowering unaryOp = rules::unaryOp<TfNodeContext, Op>;
template <Opcode Op>
constexpr TfLowering binaryOp = rules::binaryOp<TfNodeContext, Op>;
template <ComparisonDirection Dir>
constexpr TfLowering compareOp = rules::compareOp<TfNodeContext, Dir>;
template <Value (*Fn)(GraphBuilder &, Value)>
constexpr TfLowering unaryFn = rules::unaryFn<TfNodeContext, Fn>;
template <Value (*Fn)(GraphBuilder &, Value, Value)>
constexpr TfLowering binaryFn = rules::binaryFn<TfNodeContext, Fn>;

// --- Arithmetic ------------------------------------------------------------

void lowerAddN(TfNodeContext &c) {
  if (!c.requireInputs(1))
    return;
  Value sum = c.input(0);
  for (size_t i = 1; i < c.inputCount(); ++i)
    sum = c.builder().binary(Opcode::Add, sum, c.input(i));
  c.setOutput(0, sum);
}

/// Shifts clamp the amount to [0, bits - 1] like TensorFlow's kernels, so
/// over-wide shifts saturate instead of giving HLO's 0.
template <bool Left> void lowerShift(TfNodeContext &c) {
  if (!c.requireInputs(2))
    return;
  GraphBuilder &b = c.builder();
  Value x = c.input(0), y = c.input(1);
  if (!x || !y)
    return;
  DType dtype = x->shape().dtype();
  Value amount = clip(b, y, b.like(y, 0),
                      b.like(y, double(ir::byteSize(dtype) * 8 - 1)));
  Opcode opcode = Left                     ? Opcode::ShiftLeft
                  : ir::isSignedInt(dtype) ? Opcode::ShiftRightArithmetic
                                           : Opcode::ShiftRightLogical;
  c.setOutput(0, b.binary(opcode, x, amount));
}

// --- Activations -----------------------------------------------------------

void lowerElu(TfNodeContext &c) {
  if (c.requireInputs(1))
    c.setOutput(0, elu(c.builder(), c.input(0), 1.0));
}

void lowerSelu(TfNodeContext &c) {
  // The constants of tf.nn.selu (Klambauer et al.).
  if (c.requireInputs(1))
    c.setOutput(0, selu(c.builder(), c.input(0), 1.6732632423543772848170429916717,
                        1.0507009873554804934193349852946));
}

void lowerLeakyRelu(TfNodeContext &c) {
  if (c.requireInputs(1))
    c.setOutput(0, leakyRelu(c.builder(), c.input(0), c.attrFloat("alpha", 0.2)));
}

void lowerIsFinite(TfNodeContext &c) {
  if (c.requireInputs(1))
    c.setOutput(0, c.builder().unary(Opcode::IsFinite, c.input(0)));
}

void lowerClipByValue(TfNodeContext &c) {
  if (c.requireInputs(3))
    c.setOutput(0, clip(c.builder(), c.input(0), c.input(1), c.input(2)));
}

// --- Selection, casts ------------------------------------------------------

/// Select (v1) also takes a rank-1 condition that picks whole rows of
/// higher-rank operands; SelectV2 broadcasts all three.
void lowerSelect(TfNodeContext &c) {
  if (!c.requireInputs(3))
    return;
  GraphBuilder &b = c.builder();
  Value cond = c.input(0), t = c.input(1);
  if (cond && t && cond->shape().rank() == 1 && t->shape().rank() > 1) {
    std::vector<int64_t> dims(size_t(t->shape().rank()), 1);
    dims[0] = cond->shape().dim(0);
    cond = b.reshape(cond, dims);
  }
  c.setOutput(0, b.select(cond, t, c.input(2)));
}

void lowerSelectV2(TfNodeContext &c) {
  if (c.requireInputs(3))
    c.setOutput(0, c.builder().select(c.input(0), c.input(1), c.input(2)));
}

void lowerCast(TfNodeContext &c) {
  std::optional<DType> dtype = c.attrType("DstT");
  if (!dtype)
    return void(c.fail("Cast needs a DstT attribute"));
  if (c.requireInputs(1))
    c.setOutput(0, c.builder().convert(c.input(0), *dtype));
}

// --- Reductions ------------------------------------------------------------

/// Sum/Mean/...: input 1 holds reduction_indices (scalar or vector, may be
/// negative); keep_dims keeps the reduced dimensions as size 1.
template <ReduceKind Kind> void lowerReduction(TfNodeContext &c) {
  if (!c.requireInputs(2) || !c.input(0))
    return;
  std::optional<std::vector<int64_t>> indices =
      c.constantInts(1, "reduction_indices");
  if (!indices)
    return;
  GraphBuilder &b = c.builder();
  std::optional<std::vector<int64_t>> axes =
      normalizeAxes(b, *indices, c.input(0)->shape().rank());
  if (!axes)
    return;
  c.setOutput(0, reduceAxes(b, c.input(0), *axes, Kind,
                            c.attrBool("keep_dims", false)));
}

template <bool IsMax> void lowerArgMinMax(TfNodeContext &c) {
  if (!c.requireInputs(2) || !c.input(0))
    return;
  std::optional<std::vector<int64_t>> dimension = c.constantInts(1, "dimension");
  if (!dimension)
    return;
  std::optional<int64_t> axis =
      dimension->size() == 1
          ? normalizeAxis(dimension->front(), c.input(0)->shape().rank())
          : std::nullopt;
  if (!axis)
    return void(c.fail("dimension must be one axis within the input's rank"));
  std::optional<DType> type = c.hasAttr("output_type")
                                  ? c.attrType("output_type")
                                  : std::optional<DType>(DType::S64);
  if (type)
    c.setOutput(0, argMinMax(c.builder(), c.input(0), *axis, IsMax, *type,
                             /*keepDims=*/false));
}

template <bool Log> void lowerSoftmax(TfNodeContext &c) {
  if (!c.requireInputs(1) || !c.input(0))
    return;
  int64_t rank = c.input(0)->shape().rank();
  if (rank == 0)
    return void(c.fail("softmax needs an input of rank >= 1"));
  GraphBuilder &b = c.builder();
  c.setOutput(0, Log ? logSoftmax(b, c.input(0), rank - 1)
                     : softmax(b, c.input(0), rank - 1));
}

/// LRN normalizes over the last (depth) dimension of an NHWC tensor.
void lowerLrn(TfNodeContext &c) {
  Value x = c.requireInputs(1) ? c.input(0) : nullptr;
  if (!x)
    return;
  if (x->shape().rank() == 0)
    return void(c.fail(fmt::format(
        "LRN needs an input of rank >= 1 (depth last) but got {}",
        x->shape().toString())));
  int64_t radius = c.attrInt("depth_radius", 5);
  c.setOutput(0, localResponseNormalization(
                     c.builder(), x, x->shape().rank() - 1, radius, radius,
                     c.attrFloat("alpha", 1.0), c.attrFloat("beta", 0.5),
                     c.attrFloat("bias", 1.0)));
}

void lowerL2Loss(TfNodeContext &c) {
  if (!c.requireInputs(1) || !c.input(0))
    return;
  GraphBuilder &b = c.builder();
  Value x = c.input(0);
  std::vector<int64_t> all;
  for (int64_t d = 0; d < x->shape().rank(); ++d)
    all.push_back(d);
  Value sum = reduceAxes(b, x, all, ReduceKind::SumSquare, false);
  c.setOutput(0, b.binary(Opcode::Multiply, sum, b.like(sum, 0.5)));
}

template <ir::ReducerKind Reducer> void lowerCumulative(TfNodeContext &c) {
  if (!c.requireInputs(2) || !c.input(0))
    return;
  std::optional<std::vector<int64_t>> axis = c.constantInts(1, "axis");
  if (!axis)
    return;
  std::optional<int64_t> normalized =
      axis->size() == 1 ? normalizeAxis(axis->front(), c.input(0)->shape().rank())
                        : std::nullopt;
  if (!normalized)
    return void(c.fail("axis must be one axis within the input's rank"));
  c.setOutput(0, cumulative(c.builder(), c.input(0), *normalized,
                            c.attrBool("exclusive", false),
                            c.attrBool("reverse", false), Reducer));
}

using CD = ComparisonDirection;

const TfOpRule kRules[] = {
    // Arithmetic. Div/RealDiv on integers truncate toward zero (C++ '/').
    {"Add", binaryOp<Opcode::Add>},
    {"AddV2", binaryOp<Opcode::Add>},
    {"AddN", lowerAddN},
    {"Sub", binaryOp<Opcode::Subtract>},
    {"Mul", binaryOp<Opcode::Multiply>},
    {"Div", binaryOp<Opcode::Divide>},
    {"RealDiv", binaryOp<Opcode::Divide>},
    {"DivNoNan", binaryFn<divideNoNan>},
    {"FloorDiv", binaryFn<floorDivide>},
    {"FloorMod", binaryFn<floorRemainder>},
    {"TruncateDiv", binaryFn<truncateDivide>},
    {"TruncateMod", binaryOp<Opcode::Remainder>},
    {"Mod", binaryOp<Opcode::Remainder>}, // TF's kernel: C fmod / %.
    {"Maximum", binaryOp<Opcode::Maximum>},
    {"Minimum", binaryOp<Opcode::Minimum>},
    {"Pow", binaryOp<Opcode::Power>},
    {"Atan2", binaryOp<Opcode::Atan2>},
    {"SquaredDifference", binaryFn<squaredDifference>},
    // Unary math.
    {"Neg", unaryOp<Opcode::Negate>},
    {"Abs", unaryOp<Opcode::Abs>},
    {"Sign", unaryFn<signOf>},
    {"Square", unaryFn<square>},
    {"Sqrt", unaryOp<Opcode::Sqrt>},
    {"Rsqrt", unaryOp<Opcode::Rsqrt>},
    {"Reciprocal", unaryFn<reciprocal>},
    {"Inv", unaryFn<reciprocal>},
    {"Exp", unaryOp<Opcode::Exp>},
    {"Expm1", unaryFn<expm1>},
    {"Log", unaryOp<Opcode::Log>},
    {"Log1p", unaryFn<log1p>},
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
    {"Erfc", unaryFn<erfcOf>},
    {"Floor", unaryFn<floorOf>},
    {"Ceil", unaryFn<ceilOf>},
    {"Round", unaryFn<roundHalfEven>}, // half to even, like Rint
    {"Rint", unaryFn<roundHalfEven>},
    {"IsNan", unaryFn<isNan>},
    {"IsInf", [](TfNodeContext &c) {
       if (c.requireInputs(1))
         c.setOutput(0, isInf(c.builder(), c.input(0)));
     }},
    {"IsFinite", lowerIsFinite},
    // Activations.
    {"Sigmoid", unaryOp<Opcode::Logistic>},
    {"Relu", unaryFn<relu>},
    {"Relu6", unaryFn<relu6>},
    {"Elu", lowerElu},
    {"Selu", lowerSelu},
    {"LeakyRelu", lowerLeakyRelu},
    {"Prelu", binaryFn<preluOf>}, // TensorFlow.js's fused PReLU
    {"Softplus", unaryFn<softplus>},
    {"Softsign", unaryFn<softsign>},
    {"ClipByValue", lowerClipByValue},
    // Comparison and logic.
    {"Equal", compareOp<CD::EQ>},
    {"NotEqual", compareOp<CD::NE>},
    {"Less", compareOp<CD::LT>},
    {"LessEqual", compareOp<CD::LE>},
    {"Greater", compareOp<CD::GT>},
    {"GreaterEqual", compareOp<CD::GE>},
    {"LogicalAnd", binaryOp<Opcode::And>},
    {"LogicalOr", binaryOp<Opcode::Or>},
    {"LogicalNot", unaryOp<Opcode::Not>},
    {"Select", lowerSelect},
    {"SelectV2", lowerSelectV2},
    // Bits.
    {"BitwiseAnd", binaryOp<Opcode::And>},
    {"BitwiseOr", binaryOp<Opcode::Or>},
    {"BitwiseXor", binaryOp<Opcode::Xor>},
    {"Invert", unaryOp<Opcode::Not>},
    {"LeftShift", lowerShift<true>},
    {"RightShift", lowerShift<false>},
    {"Cast", lowerCast},
    // Reductions and normalizations.
    {"Sum", lowerReduction<ReduceKind::Sum>},
    {"Mean", lowerReduction<ReduceKind::Mean>},
    {"Max", lowerReduction<ReduceKind::Max>},
    {"Min", lowerReduction<ReduceKind::Min>},
    {"Prod", lowerReduction<ReduceKind::Prod>},
    {"All", lowerReduction<ReduceKind::All>},
    {"Any", lowerReduction<ReduceKind::Any>},
    {"ArgMax", lowerArgMinMax<true>},
    {"ArgMin", lowerArgMinMax<false>},
    {"Softmax", lowerSoftmax<false>},
    {"LogSoftmax", lowerSoftmax<true>},
    {"LRN", lowerLrn},
    {"L2Loss", lowerL2Loss},
    {"Cumsum", lowerCumulative<ir::ReducerKind::Add>},
    {"Cumprod", lowerCumulative<ir::ReducerKind::Mul>},
};
} // namespace

std::span<const TfOpRule> tfElementwiseRules() { return kRules; }

} // namespace kiln::import::tf
