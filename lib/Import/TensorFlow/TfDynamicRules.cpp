//===- TfDynamicRules.cpp - Propagating run-time sizes through ops --------===//
//
// Ops that are lowered as usual when an input is run-time sized, after
// which a rule records what their outputs are:
//  - dynamic dims: elementwise ops broadcast them (right-aligned); element
//    moves (ExpandDims, Squeeze, Pack, Unpack, Transpose, ConcatV2 and
//    Split along a static dim, GatherV2, StridedSlice keeping the dim whole)
//    carry them to the output dim they become;
//  - size forms: elementwise integer arithmetic computes them (affine ops
//    exactly, Minimum/Maximum/Select/FloorDiv as a fresh symbol over the
//    operands' ranges); element moves find where each output element came
//    from by lowering the op again on iota inputs, which the builder folds.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfDynamic.h"

#include "Common/ArrayLowering.h"
#include "Common/DynamicLowering.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kiln::import::tf {

using ir::DType;

namespace {
using Forms = std::vector<SizeForm>;
using Dims = std::vector<std::optional<DynamicDim>>;

const std::set<std::string_view> kElementwise = {
    "Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "DivNoNan", "FloorDiv",
    "FloorMod", "TruncateDiv", "TruncateMod", "Mod", "Maximum", "Minimum",
    "Pow", "Atan2", "SquaredDifference", "Neg", "Abs", "Sign", "Square",
    "Sqrt", "Rsqrt", "Reciprocal", "Inv", "Exp", "Expm1", "Log", "Log1p",
    "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh",
    "Asinh", "Acosh", "Atanh", "Erf", "Erfc", "Floor", "Ceil", "Round",
    "Rint", "IsNan", "IsInf", "IsFinite", "Sigmoid", "Relu", "Relu6", "Elu",
    "Selu", "LeakyRelu", "Softplus", "Softsign", "ClipByValue", "Equal",
    "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
    "LogicalOr", "LogicalNot", "Select", "SelectV2", "BitwiseAnd",
    "BitwiseOr", "BitwiseXor", "Invert", "Cast", "AddN"};

/// Element moves and the inputs whose elements they move.
const std::map<std::string_view, std::vector<size_t>> kMoves = {
    {"Identity", {0}},  {"StopGradient", {0}}, {"Snapshot", {0}},
    {"ExpandDims", {0}}, {"Squeeze", {0}},     {"Transpose", {0}},
    {"Unpack", {0}},    {"StridedSlice", {0}}, {"GatherV2", {0}},
    {"Split", {1}},     {"SplitV", {0}},       {"Pack", {}},
    {"ConcatV2", {}}};

/// The move's value inputs: listed, or every input (Pack) or all but the
/// axis (ConcatV2).
std::vector<size_t> movedInputs(TfNodeContext &ctx) {
  std::vector<size_t> listed = kMoves.at(ctx.op());
  if (!listed.empty())
    return listed;
  size_t n = ctx.op() == "ConcatV2" ? ctx.inputCount() - 1 : ctx.inputCount();
  std::vector<size_t> all(n);
  for (size_t i = 0; i < n; ++i)
    all[i] = i;
  return all;
}

// --- Size forms --------------------------------------------------------------

/// The index into `operand` (broadcast right-aligned to `out`) of output
/// element `flat`.
int64_t broadcastIndex(const ir::Shape &operand, const ir::Shape &out,
                       int64_t flat) {
  int64_t index = 0, stride = 1;
  int64_t offset = int64_t(out.rank()) - int64_t(operand.rank());
  std::vector<int64_t> outStrides = out.strides();
  for (int64_t d = int64_t(operand.rank()) - 1; d >= 0; --d) {
    int64_t extent = operand.dim(size_t(d));
    int64_t coordinate =
        (flat / outStrides[size_t(d + offset)]) % out.dim(size_t(d + offset));
    index += (extent == 1 ? 0 : coordinate) * stride;
    stride *= extent;
  }
  return index;
}

/// The form of one element of an elementwise integer op, or nullopt.
std::optional<SizeForm> elementForm(DynamicShapes &table, std::string_view op,
                                    const std::vector<SizeForm> &in,
                                    const std::string &origin) {
  auto fresh = [&](int64_t lo, int64_t hi) {
    return table.newSymbol(std::min(lo, hi), std::max(lo, hi), origin);
  };
  auto lo = [&](const SizeForm &f) { return table.lowerBound(f); };
  auto hi = [&](const SizeForm &f) { return table.upperBound(f); };
  if (op == "Cast")
    return in[0];
  if (op == "Neg")
    return in[0].scaled(-1);
  if (op == "Add" || op == "AddV2")
    return in[0] + in[1];
  if (op == "Sub")
    return in[0] - in[1];
  if (op == "Mul") {
    if (in[1].isConstant())
      return in[0].scaled(in[1].constant);
    if (in[0].isConstant())
      return in[1].scaled(in[0].constant);
    if (lo(in[0]) < 0 || lo(in[1]) < 0)
      return std::nullopt;
    return fresh(lo(in[0]) * lo(in[1]), hi(in[0]) * hi(in[1]));
  }
  if (op == "Minimum" || op == "Maximum") {
    bool min = op == "Minimum";
    const SizeForm &a = in[0], &b = in[1];
    if (hi(a) <= lo(b))
      return min ? a : b;
    if (hi(b) <= lo(a))
      return min ? b : a;
    return min ? fresh(std::min(lo(a), lo(b)), std::min(hi(a), hi(b)))
               : fresh(std::max(lo(a), lo(b)), std::max(hi(a), hi(b)));
  }
  if (op == "Select" || op == "SelectV2") {
    if (in[1] == in[2])
      return in[1];
    return fresh(std::min(lo(in[1]), lo(in[2])), std::max(hi(in[1]), hi(in[2])));
  }
  if (op == "FloorDiv" && in[1].isConstant() && in[1].constant > 0) {
    auto floorDiv = [&](int64_t v) {
      int64_t q = v / in[1].constant;
      return (v % in[1].constant != 0 && v < 0) ? q - 1 : q;
    };
    return fresh(floorDiv(lo(in[0])), floorDiv(hi(in[0])));
  }
  return std::nullopt;
}

/// Forms of the output of an elementwise op on integer forms.
void elementwiseForms(TfNodeContext &ctx, Value out) {
  GraphBuilder &b = ctx.builder();
  if (!out || !ir::isInteger(out->shape().dtype()) ||
      out->shape().numElements() > DynamicShapes::kMaxFormElements)
    return;
  std::vector<Value> inputs = inputsOf(ctx);
  bool select = ctx.op() == "Select" || ctx.op() == "SelectV2";
  std::vector<Forms> in;
  for (Value input : inputs) {
    if (select && in.empty()) { // the predicate: data, not a size
      in.push_back(Forms(size_t(input->shape().numElements()), SizeForm::of(0)));
      continue;
    }
    std::optional<Forms> forms = formsOf(b, input);
    if (!forms)
      return; // tensor data: the output is data too
    in.push_back(std::move(*forms));
  }
  Forms result;
  for (int64_t e = 0; e < out->shape().numElements(); ++e) {
    std::vector<SizeForm> operands;
    for (size_t i = 0; i < inputs.size(); ++i)
      operands.push_back(
          in[i][size_t(broadcastIndex(inputs[i]->shape(), out->shape(), e))]);
    std::optional<SizeForm> form =
        elementForm(b.dynamic(), ctx.op(), operands, ctx.name());
    if (!form)
      return;
    result.push_back(*form);
  }
  b.dynamic().setForms(out, std::move(result));
}

/// Forms of a move's outputs: the op lowered again on iota inputs says which
/// input element each output element is.
void moveForms(TfNodeContext &ctx, const Relower &relower,
               const std::vector<Value> &outputs) {
  GraphBuilder &b = ctx.builder();
  std::vector<Value> inputs = inputsOf(ctx);
  std::vector<std::optional<SizeForm>> sources;
  bool anyForms = false;
  for (size_t i : movedInputs(ctx)) {
    Value input = inputs[i];
    if (!input || !ir::isInteger(input->shape().dtype()) ||
        input->shape().numElements() > DynamicShapes::kMaxFormElements)
      return;
    std::optional<Forms> forms = formsOf(b, input);
    anyForms |= b.dynamic().forms(input) != nullptr;
    std::vector<int64_t> indices;
    for (int64_t e = 0; e < input->shape().numElements(); ++e) {
      indices.push_back(int64_t(sources.size()));
      sources.push_back(forms ? std::optional<SizeForm>((*forms)[size_t(e)])
                              : std::nullopt);
    }
    inputs[i] = b.constant(literalFromInts(input->shape(), indices));
  }
  if (!anyForms)
    return;
  TfLowering plain = findTfLowering(ctx.op());
  std::vector<Value> traced = relower(plain, inputs);
  for (size_t k = 0; k < outputs.size() && k < traced.size(); ++k) {
    std::optional<std::vector<int64_t>> from =
        traced[k] ? GraphBuilder::constantInts(traced[k]) : std::nullopt;
    if (!from || !outputs[k])
      continue;
    Forms forms;
    for (int64_t index : *from) {
      if (index < 0 || size_t(index) >= sources.size() || !sources[size_t(index)])
        break;
      forms.push_back(*sources[size_t(index)]);
    }
    if (forms.size() == from->size())
      b.dynamic().setForms(outputs[k], std::move(forms));
  }
}

// --- Dynamic dims ------------------------------------------------------------

/// Where input dim `d` of the moved input lands in output `k`, or -1 when
/// it does not (an error for a dynamic dim).
using DimMap = std::function<int64_t(int64_t d, Value in, Value out)>;

std::optional<DimMap> moveDimMap(TfNodeContext &ctx) {
  const std::string &op = ctx.op();
  if (op == "Identity" || op == "StopGradient" || op == "Snapshot" ||
      op == "Split" || op == "SplitV" || op == "ConcatV2")
    return [](int64_t d, Value, Value) { return d; };
  if (op == "ExpandDims" || op == "Pack") {
    std::optional<std::vector<int64_t>> axis =
        op == "Pack" ? std::optional<std::vector<int64_t>>(
                           std::vector<int64_t>{ctx.attrInt("axis", 0)})
                     : GraphBuilder::constantInts(ctx.input(1));
    if (!axis || axis->size() != 1)
      return std::nullopt;
    int64_t a = axis->front();
    return [a](int64_t d, Value, Value out) {
      int64_t at = a < 0 ? a + int64_t(out->shape().rank()) : a;
      return d < at ? d : d + 1;
    };
  }
  if (op == "Unpack") {
    int64_t a = ctx.attrInt("axis", 0);
    return [a](int64_t d, Value in, Value) {
      int64_t at = a < 0 ? a + int64_t(in->shape().rank()) : a;
      return d == at ? -1 : d < at ? d : d - 1;
    };
  }
  if (op == "Transpose") {
    std::optional<std::vector<int64_t>> perm =
        GraphBuilder::constantInts(ctx.input(1));
    if (!perm)
      return std::nullopt;
    return [perm = *perm](int64_t d, Value, Value) {
      auto at = std::find(perm.begin(), perm.end(), d);
      return at == perm.end() ? -1 : int64_t(at - perm.begin());
    };
  }
  if (op == "Squeeze") {
    std::vector<int64_t> listed = ctx.hasAttr("squeeze_dims")
                                      ? ctx.attrInts("squeeze_dims")
                                      : ctx.attrInts("axis");
    return [listed](int64_t d, Value in, Value) {
      int64_t rank = int64_t(in->shape().rank());
      auto squeezed = [&](int64_t i) {
        if (listed.empty())
          return in->shape().dim(size_t(i)) == 1;
        return std::any_of(listed.begin(), listed.end(), [&](int64_t a) {
          return (a < 0 ? a + rank : a) == i;
        });
      };
      if (squeezed(d))
        return int64_t(-1);
      int64_t kept = 0;
      for (int64_t i = 0; i < d; ++i)
        kept += !squeezed(i);
      return kept;
    };
  }
  if (op == "StridedSlice") {
    // The dim is kept whole when its extent is unchanged and it is walked
    // forward (a reversal would move the padding to the front); masks that
    // add, drop or skip dims are not followed.
    std::optional<std::vector<int64_t>> strides =
        GraphBuilder::constantInts(ctx.input(3));
    bool plain = strides && !ctx.attrInt("ellipsis_mask", 0) &&
                 !ctx.attrInt("new_axis_mask", 0) &&
                 !ctx.attrInt("shrink_axis_mask", 0);
    return [plain, strides](int64_t d, Value in, Value out) {
      bool forward = plain && (size_t(d) >= strides->size() ||
                               (*strides)[size_t(d)] == 1);
      return forward && in->shape().rank() == out->shape().rank() &&
                     in->shape().dim(size_t(d)) == out->shape().dim(size_t(d))
                 ? d
                 : int64_t(-1);
    };
  }
  return std::nullopt;
}

/// GatherV2: params dims before the axis keep their place, the indices'
/// dims take the axis's place, params dims after it follow.
bool gatherDims(TfNodeContext &ctx, Value out) {
  GraphBuilder &b = ctx.builder();
  Value params = ctx.input(0), indices = ctx.input(1);
  std::optional<std::vector<int64_t>> axisValues =
      GraphBuilder::constantInts(ctx.input(2));
  if (!axisValues || axisValues->size() != 1 || ctx.attrInt("batch_dims", 0))
    return false;
  int64_t rank = int64_t(params->shape().rank());
  int64_t axis = axisValues->front() < 0 ? axisValues->front() + rank
                                         : axisValues->front();
  int64_t indexRank = int64_t(indices->shape().rank());
  for (int64_t d = 0; d < rank; ++d)
    if (const DynamicDim *dim = b.dynamic().dim(params, d); dim && d != axis)
      b.dynamic().setDim(out, d < axis ? d : d + indexRank - 1, *dim);
  for (int64_t d = 0; d < indexRank; ++d)
    if (const DynamicDim *dim = b.dynamic().dim(indices, d))
      b.dynamic().setDim(out, axis + d, *dim);
  return true;
}

/// Records the outputs' dims for a move; false when a dynamic dim of the
/// moved input has nowhere to go.
bool moveDims(TfNodeContext &ctx, const std::vector<Value> &outputs) {
  GraphBuilder &b = ctx.builder();
  if (ctx.op() == "GatherV2")
    return outputs.empty() || !outputs[0] || gatherDims(ctx, outputs[0]);
  std::optional<DimMap> map = moveDimMap(ctx);
  if (!map)
    return false;
  std::vector<Value> inputs = inputsOf(ctx);
  for (size_t i : movedInputs(ctx)) {
    Value in = inputs[i];
    Dims dims = in ? b.dynamic().dims(in) : Dims{};
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!dims[d])
        continue;
      for (Value out : outputs) {
        int64_t to = out ? (*map)(int64_t(d), in, out) : -1;
        if (to < 0)
          return false;
        if (!b.dynamic().dim(out, to))
          b.dynamic().setDim(out, to, *dims[d]);
      }
    }
  }
  return true;
}
} // namespace

bool lowerWithPropagation(TfNodeContext &ctx, TfLowering plain,
                          const Relower &relower) {
  bool elementwise = kElementwise.count(ctx.op()) > 0;
  if (!elementwise && !kMoves.count(ctx.op()))
    return false;
  GraphBuilder &b = ctx.builder();
  std::vector<Value> inputs = inputsOf(ctx);
  if (ctx.op() == "GatherV2" && inputs[1]) // padding may index past the end
    inputs[1] = maskPadding(b, inputs[1], b.scalar(inputs[1]->shape().dtype(), 0));
  std::vector<Value> outputs = relower(plain, inputs);
  if (!b.ok())
    return true;
  if (elementwise) {
    for (Value out : outputs) {
      broadcastDynamicDims(b, inputsOf(ctx), out, ctx.op() == "Select");
      elementwiseForms(ctx, out);
    }
  } else {
    if (!moveDims(ctx, outputs)) {
      ctx.fail(fmt::format("{} moves a run-time sized dimension (from node "
                           "'{}') in a way kiln does not support",
                           ctx.op(), b.dynamic().originOf(ctx.input(
                                         movedInputs(ctx).front()))));
      return true;
    }
    moveForms(ctx, relower, outputs);
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    ctx.setOutput(i, outputs[i]);
  return true;
}

} // namespace kiln::import::tf
