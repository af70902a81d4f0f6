//===- TfDynamicOps.cpp - TensorFlow ops aware of run-time sizes ----------===//
//
// The ops whose result extent comes from a run-time size (Fill, Range,
// Slice, Pad, Reshape), that read a run-time size (Shape, Size), or that
// would see a dynamic input's padding (ConcatV2 along the dynamic dim,
// TopKV2, reductions). The rest go through the propagation rules
// (TfDynamicRules.cpp). See TfDynamic.h.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfDynamic.h"

#include "Common/ArrayLowering.h"
#include "Common/DynamicLowering.h"
#include "Common/PoolLowering.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace kiln::import::tf {

using ir::DType;
using ir::Opcode;

namespace {
// --- Helpers -----------------------------------------------------------------

DType outType(TfNodeContext &ctx, std::string_view key, DType fallback) {
  if (!ctx.hasAttr(key))
    return fallback;
  return ctx.attrType(key).value_or(fallback);
}

/// The largest value of `dtype` as a scalar constant (+inf for floats).
Value highest(GraphBuilder &b, DType dtype) {
  if (ir::isFloat(dtype))
    return b.scalar(dtype, std::numeric_limits<double>::infinity());
  if (dtype == DType::Pred)
    return b.scalar(dtype, 1);
  int bits = int(ir::byteSize(dtype)) * 8 - (ir::isSignedInt(dtype) ? 1 : 0);
  int64_t value = bits >= 63 ? std::numeric_limits<int64_t>::max()
                             : (int64_t(1) << bits) - 1;
  return b.constant(literalFromInts(ir::Shape::scalar(dtype), {value}));
}

Value lowest(GraphBuilder &b, DType dtype) {
  return b.scalar(dtype, lowestValue(dtype));
}

/// Input i's constant axes normalized for `rank`, or nullopt (error set).
std::optional<std::vector<int64_t>> axesInput(TfNodeContext &ctx, size_t i,
                                              int64_t rank, const char *what) {
  std::optional<std::vector<int64_t>> values = ctx.constantInts(i, what);
  if (!values)
    return std::nullopt;
  return normalizeAxes(ctx.builder(), *values, rank, what);
}

/// Records the dims of a reduction's result: `x`'s dynamic dims that are
/// not reduced, renumbered (or kept in place with keep_dims).
void reducedDims(GraphBuilder &b, Value x, Value result,
                 const std::vector<int64_t> &axes, bool keepDims) {
  if (!result)
    return;
  int64_t out = 0;
  for (int64_t d = 0; d < int64_t(x->shape().rank()); ++d) {
    bool reduced = std::count(axes.begin(), axes.end(), d) > 0;
    if (reduced && !keepDims)
      continue;
    if (const DynamicDim *dim = b.dynamic().dim(x, d); dim && !reduced)
      b.dynamic().setDim(result, out, *dim);
    ++out;
  }
}

/// The number of elements a reduction over `axes` combines, run time.
Value reducedCount(GraphBuilder &b, Value x, const std::vector<int64_t> &axes) {
  Value count = b.scalar(DType::S32, 1);
  for (int64_t axis : axes)
    count = b.binary(Opcode::Multiply, count, extentOf(b, x, axis));
  return count;
}

// --- Reading sizes -----------------------------------------------------------

void lowerShape(TfNodeContext &ctx, const Relower &) {
  DType type = outType(ctx, "out_type", DType::S32);
  for (size_t i = 0; i < ctx.inputCount(); ++i)
    ctx.setOutput(i, shapeVector(ctx.builder(), ctx.input(i), type));
}

void lowerSize(TfNodeContext &ctx, const Relower &) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  SizeForm form = SizeForm::of(1);
  Value size = b.scalar(DType::S32, 1);
  for (int64_t d = 0; d < int64_t(x->shape().rank()); ++d) {
    SizeForm extent = extentForm(b, x, d);
    if (!extent.isConstant() && !form.isConstant())
      return void(ctx.fail("Size of a tensor with two run-time sized "
                           "dimensions is not supported"));
    form = extent.isConstant() ? form.scaled(extent.constant)
                               : extent.scaled(form.constant);
    size = b.binary(Opcode::Multiply, size, extentOf(b, x, d));
  }
  Value result = b.convert(size, outType(ctx, "out_type", DType::S32));
  if (result)
    b.dynamic().setForms(result, {form});
  ctx.setOutput(0, result);
}

// --- Results sized at run time -----------------------------------------------

void lowerFill(TfNodeContext &ctx, const Relower &) {
  ctx.setOutput(0, fillDims(ctx.builder(), ctx.input(0), ctx.input(1)));
}

void lowerRange(TfNodeContext &ctx, const Relower &) {
  GraphBuilder &b = ctx.builder();
  if (b.dynamic().isDynamic(ctx.input(0)) || b.dynamic().isDynamic(ctx.input(2)))
    return void(ctx.fail("a Range whose start or delta is a run-time size is "
                         "not supported (only its limit may be)"));
  std::optional<double> start = ctx.constantScalar(0, "start");
  std::optional<double> delta = ctx.constantScalar(2, "delta");
  if (!start || !delta)
    return;
  if (*start != std::floor(*start) || *delta != std::floor(*delta))
    return void(ctx.fail("a run-time sized Range needs integer start and delta"));
  DType type = outType(ctx, "Tidx", ctx.input(0)->shape().dtype());
  ctx.setOutput(0, rangeToLimit(b, type, int64_t(*start), ctx.input(1),
                                int64_t(*delta), ctx.name()));
}

void lowerSlice(TfNodeContext &ctx, const Relower &) {
  if (ctx.builder().dynamic().isDynamic(ctx.input(1)))
    return void(ctx.fail("a Slice whose begin is a run-time size is not "
                         "supported (only its size may be)"));
  std::optional<std::vector<int64_t>> begin = ctx.constantInts(1, "begin");
  if (begin)
    ctx.setOutput(0, sliceSizes(ctx.builder(), ctx.input(0), *begin,
                                ctx.input(2), ctx.name()));
}

void lowerPad(TfNodeContext &ctx, const Relower &) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  Value value = ctx.inputCount() > 2 ? ctx.input(2)
                                     : b.scalar(x->shape().dtype(), 0);
  ctx.setOutput(0, padBy(b, x, ctx.input(1), value));
}

/// Reshape of a tensor whose leading dim is dynamic, to a shape whose
/// leading element may be that dim's size: the padded rows stay rows.
void lowerReshape(TfNodeContext &ctx, const Relower &relower) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  std::optional<std::vector<SizeForm>> target = formsOf(b, ctx.input(1));
  if (!target)
    return void(ctx.constantInts(1, "shape")); // records the error
  std::vector<std::optional<DynamicDim>> dims = b.dynamic().dims(x);
  for (size_t d = 1; d < dims.size(); ++d)
    if (dims[d])
      return void(ctx.fail(fmt::format(
          "Reshape of a tensor whose dimension {} is a run-time size (from "
          "node '{}') is not supported: only the leading dimension may be",
          d, b.dynamic().origin(dims[d]->form))));
  // Elements given as a run-time size become its bound.
  std::vector<int64_t> shape;
  int64_t dynamicAt = -1;
  for (size_t i = 0; i < target->size(); ++i) {
    const SizeForm &form = (*target)[i];
    if (form.isConstant()) {
      shape.push_back(form.constant);
      continue;
    }
    if (dynamicAt >= 0 || i != 0)
      return void(ctx.fail("Reshape to a shape with a run-time size that is "
                           "not its leading element is not supported"));
    dynamicAt = int64_t(i);
    shape.push_back(b.dynamic().upperBound(form));
  }
  std::vector<Value> outputs =
      relower(findTfLowering("Reshape"),
              {x, b.ints(ctx.input(1)->shape().dtype(), shape)});
  Value result = outputs.empty() ? nullptr : outputs[0];
  if (!result)
    return;
  if (const std::vector<SizeForm> *forms = b.dynamic().forms(x))
    b.dynamic().setForms(result, *forms); // row-major order is kept
  const DynamicDim *lead = b.dynamic().dim(x, 0);
  if (lead) {
    // Rows of x ([size, rest...]) map to rows of the result by the ratio of
    // the row sizes.
    int64_t inRow = product(dimsOf(x), 1), outRow = product(dimsOf(result), 1);
    if (result->shape().rank() == 0 || outRow == 0 || inRow % outRow != 0)
      return void(ctx.fail("Reshape of a run-time sized tensor must keep whole "
                           "rows of its leading dimension"));
    int64_t factor = inRow / outRow;
    b.dynamic().setDim(result, 0,
                       {b.binary(Opcode::Multiply, lead->size,
                                 b.scalar(DType::S32, double(factor))),
                        lead->form.scaled(factor)});
  } else if (dynamicAt == 0) {
    b.dynamic().setDim(result, 0,
                       {elementAsS32(b, ctx.input(1), 0), target->front()});
  }
  ctx.setOutput(0, result);
}

// --- Ops that must not see padding ---------------------------------------------

void lowerConcat(TfNodeContext &ctx, const Relower &relower) {
  GraphBuilder &b = ctx.builder();
  size_t n = ctx.inputCount();
  std::vector<Value> parts = inputsOf(ctx);
  parts.pop_back(); // the axis
  if (parts.empty())
    return void(ctx.fail("concat needs at least one input"));
  std::optional<std::vector<int64_t>> axis =
      axesInput(ctx, n - 1, int64_t(parts[0]->shape().rank()), "axis");
  if (!axis || axis->size() != 1)
    return void(ctx.fail("axis must be one axis within the inputs' rank"));
  bool dynamicAlongAxis = false;
  for (Value part : parts)
    dynamicAlongAxis |= b.dynamic().dim(part, axis->front()) != nullptr;
  if (!dynamicAlongAxis) {
    if (!lowerWithPropagation(ctx, findTfLowering("ConcatV2"), relower))
      ctx.fail("ConcatV2 has no propagation rule");
    return;
  }
  ctx.setOutput(0, concatDynamic(b, parts, axis->front()));
}

/// Sum, Mean, Max, Min, Prod, Any, All: padding replaced by the reducer's
/// identity; Mean divides the masked sum by the run-time count.
void lowerReduction(TfNodeContext &ctx, const Relower &relower) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  const std::string &op = ctx.op();
  std::optional<std::vector<int64_t>> axes =
      axesInput(ctx, 1, int64_t(x->shape().rank()), "reduction_indices");
  if (!axes)
    return;
  DType dtype = x->shape().dtype();
  Value identity = op == "Max" || op == "Any"   ? lowest(b, dtype)
                   : op == "Min" || op == "All" ? highest(b, dtype)
                   : op == "Prod"               ? b.scalar(dtype, 1)
                                                : b.scalar(dtype, 0);
  Value masked = maskPadding(b, x, identity);
  std::string_view lowering = op == "Mean" ? "Sum" : std::string_view(op);
  std::vector<Value> outputs =
      relower(findTfLowering(lowering), {masked, ctx.input(1)});
  Value result = outputs.empty() ? nullptr : outputs[0];
  if (op == "Mean" && result)
    result = b.binary(Opcode::Divide, result,
                      b.convert(reducedCount(b, x, *axes), dtype));
  reducedDims(b, x, result, *axes, ctx.attrBool("keep_dims", false));
  // A count of true elements (Sum of a Cast from bool) is at most the
  // number of elements: its size form, for Range/Fill/Slice downstream.
  if (op == "Sum" && result && result->shape().numElements() == 1 &&
      x->opcode() == Opcode::Convert &&
      x->operand(0)->shape().dtype() == DType::Pred) {
    int64_t elements = 1;
    for (int64_t axis : *axes)
      elements *= x->shape().dim(size_t(axis));
    b.dynamic().setForms(result, {b.dynamic().newSymbol(0, elements, ctx.name())});
  }
  ctx.setOutput(0, result);
}

void lowerArgMinMax(TfNodeContext &ctx, const Relower &relower) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  std::optional<std::vector<int64_t>> axes =
      axesInput(ctx, 1, int64_t(x->shape().rank()), "dimension");
  if (!axes)
    return;
  DType dtype = x->shape().dtype();
  Value masked = maskPadding(
      b, x, ctx.op() == "ArgMax" ? lowest(b, dtype) : highest(b, dtype));
  std::vector<Value> outputs =
      relower(findTfLowering(ctx.op()), {masked, ctx.input(1)});
  Value result = outputs.empty() ? nullptr : outputs[0];
  reducedDims(b, x, result, *axes, false);
  ctx.setOutput(0, result);
}

/// TopKV2 along the last dim: padding never wins; a run-time k makes the
/// result dynamic with k as its size.
void lowerTopK(TfNodeContext &ctx, const Relower &) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  std::optional<std::vector<SizeForm>> k = formsOf(b, ctx.input(1));
  if (!k || k->size() != 1)
    return void(ctx.constantInts(1, "k")); // records the error
  int64_t axis = int64_t(x->shape().rank()) - 1;
  int64_t bound = std::min(b.dynamic().upperBound(k->front()),
                           x->shape().dim(size_t(axis)));
  Value masked = maskPadding(b, x, lowest(b, x->shape().dtype()));
  auto [values, indices] = topK(b, masked, bound, axis, true,
                                outType(ctx, "index_type", DType::S32));
  for (Value result : {values, indices}) {
    if (!result)
      return;
    copyDynamicDims(b, x, result);
    DynamicDim size{k->front().isConstant()
                        ? b.scalar(DType::S32, double(bound))
                        : elementAsS32(b, ctx.input(1), 0),
                    k->front().isConstant() ? SizeForm::of(bound) : k->front()};
    b.dynamic().setDim(result, axis, size);
  }
  ctx.setOutput(0, values);
  ctx.setOutput(1, indices);
}

// --- The table ---------------------------------------------------------------

using DynamicLowering = void (*)(TfNodeContext &, const Relower &);

struct DynamicRule {
  std::string_view op;
  DynamicLowering lower;
};

const DynamicRule kDynamicRules[] = {
    {"Shape", lowerShape},       {"ShapeN", lowerShape},
    {"Size", lowerSize},         {"Fill", lowerFill},
    {"Range", lowerRange},       {"Slice", lowerSlice},
    {"Pad", lowerPad},           {"PadV2", lowerPad},
    {"Reshape", lowerReshape},   {"ConcatV2", lowerConcat},
    {"Sum", lowerReduction},     {"Mean", lowerReduction},
    {"Max", lowerReduction},     {"Min", lowerReduction},
    {"Prod", lowerReduction},    {"Any", lowerReduction},
    {"All", lowerReduction},     {"ArgMax", lowerArgMinMax},
    {"ArgMin", lowerArgMinMax},  {"TopKV2", lowerTopK},
};

/// Ops whose own lowering reads its inputs' dynamic dims (the selection
/// ops mask a run-time sized candidate list themselves), and inlined calls,
/// whose body is lowered into the caller's builder and so sees them too.
constexpr std::string_view kSelfAware[] = {
    "NonMaxSuppressionV2", "NonMaxSuppressionV3", "NonMaxSuppressionV4",
    "NonMaxSuppressionV5", "Where", "PartitionedCall",
    "StatefulPartitionedCall"};

/// The input that is run-time sized, for the error.
std::string dynamicOrigin(TfNodeContext &ctx) {
  for (Value input : inputsOf(ctx))
    if (input && ctx.builder().dynamic().isDynamic(input))
      return ctx.builder().dynamic().originOf(input);
  return "";
}
} // namespace

std::vector<Value> inputsOf(TfNodeContext &ctx) {
  std::vector<Value> inputs;
  for (size_t i = 0; i < ctx.inputCount(); ++i)
    inputs.push_back(ctx.input(i));
  return inputs;
}

/// A Select between integer constants: its result has a known range even
/// when the predicate is data, which detection post-processors use as a
/// slice size (`n > 100 ? 100 : -1`).
bool selectsBetweenConstants(TfNodeContext &ctx) {
  if ((ctx.op() != "Select" && ctx.op() != "SelectV2") || ctx.inputCount() != 3)
    return false;
  for (size_t i = 1; i < 3; ++i) {
    Value branch = ctx.input(i);
    if (!branch || !ir::isInteger(branch->shape().dtype()) ||
        !GraphBuilder::constantValue(branch))
      return false;
  }
  return !GraphBuilder::constantValue(ctx.input(0));
}

bool hasDynamicInput(TfNodeContext &ctx) {
  for (Value input : inputsOf(ctx))
    if (input && ctx.builder().dynamic().isDynamic(input))
      return true;
  return selectsBetweenConstants(ctx);
}

void lowerDynamicNode(TfNodeContext &ctx, TfLowering plain,
                      const Relower &relower) {
  for (std::string_view op : kSelfAware)
    if (ctx.op() == op)
      return plain(ctx);
  if (plain == &lowerFunctionOp) // a library function called by name: inlined
    return plain(ctx);
  for (const DynamicRule &rule : kDynamicRules)
    if (rule.op == ctx.op())
      return rule.lower(ctx, relower);
  if (lowerWithPropagation(ctx, plain, relower))
    return;
  // Forms are only knowledge: without dynamic dims the data is what the
  // plain lowering expects, and the result just has no forms.
  bool dynamicDims = false;
  for (Value input : inputsOf(ctx))
    dynamicDims |= input && ctx.builder().dynamic().hasDynamicDims(input);
  if (!dynamicDims)
    return plain(ctx);
  ctx.fail(fmt::format(
      "{} cannot take a run-time sized input (its size comes from node "
      "'{}'); kiln supports run-time sizes through elementwise ops, element "
      "moves, Shape, Fill, Range, Slice, Pad, ConcatV2, GatherV2, TopKV2 and "
      "reductions",
      ctx.op(), dynamicOrigin(ctx)));
}

} // namespace kiln::import::tf
