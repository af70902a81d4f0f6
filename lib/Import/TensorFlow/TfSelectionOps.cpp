//===- TfSelectionOps.cpp - NonMaxSuppression and Where --------------------===//
//
// Ops whose output length depends on the data. They lower through
// Common/SelectionLowering.h to a result padded at a compile-time bound
// with a run-time count (docs/architecture.md, "Run-time sized values"):
// NonMaxSuppressionV2..V5 at max_output_size's bound (V4/V5 with
// pad_to_max_output_size give the static padded array TensorFlow gives),
// Where (one input) at the input's element count.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include "Common/ArrayLowering.h"
#include "Common/SelectionLowering.h"

#include <fmt/format.h>

#include <limits>

namespace kiln::import::tf {

namespace {
using ir::DType;

constexpr size_t kMaxOutputInput = 2;

/// TensorFlow's `lowest()` of a score dtype: V2 has no score threshold and
/// takes every score above it (so not -inf, not NaN).
double lowestFinite(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return -65504.0;
  case DType::BF16:
    return -3.3895313892515355e38;
  case DType::F64:
    return -std::numeric_limits<double>::max();
  default:
    return -double(std::numeric_limits<float>::max());
  }
}

/// max_output_size's compile-time bound, or nullopt after recording why.
std::optional<int64_t> boundOfMaxOutput(TfNodeContext &ctx) {
  Value maxOutput = ctx.input(kMaxOutputInput);
  if (!maxOutput)
    return std::nullopt;
  if (maxOutput->shape().isTuple() || maxOutput->shape().numElements() != 1)
    return ctx.fail(fmt::format("max_output_size must be a scalar, but it is {}",
                                maxOutput->shape().toString())),
           std::nullopt;
  if (auto value = GraphBuilder::constantInts(maxOutput); value && (*value)[0] < 0)
    return ctx.fail(fmt::format("max_output_size must be non-negative, but it "
                                "is {}",
                                (*value)[0])),
           std::nullopt;
  std::optional<int64_t> bound = maxOutputBound(ctx.builder(), maxOutput);
  if (!bound) // neither a constant nor a bounded size: say how to freeze it
    ctx.constantInts(kMaxOutputInput, "max_output_size");
  return bound;
}

/// Rejects a constant IoU threshold outside [0, 1], as TensorFlow does.
bool checkIouThreshold(TfNodeContext &ctx, Value threshold) {
  if (!threshold)
    return false;
  if (auto value = GraphBuilder::constantDoubles(threshold);
      value && value->size() == 1 && !((*value)[0] >= 0 && (*value)[0] <= 1))
    return ctx.fail(fmt::format("iou_threshold must be in [0, 1], but it is {}",
                                (*value)[0])),
           false;
  return true;
}

/// Only hard NMS: soft_nms_sigma (V5's input 5) must be the constant 0.
bool checkHardNms(TfNodeContext &ctx) {
  std::optional<double> sigma = ctx.constantScalar(5, "soft_nms_sigma");
  if (!sigma)
    return false;
  if (*sigma != 0)
    return ctx.fail(fmt::format("soft_nms_sigma is {}; kiln supports only hard "
                                "non-max suppression (soft_nms_sigma = 0)",
                                *sigma)),
           false;
  return true;
}

/// NonMaxSuppressionV2..V5 by their inputs: V2 has no score threshold, V3+
/// has it as input 4, V5 adds soft_nms_sigma. `hasScores`, `hasCount`:
/// whether the node has the selected_scores and valid_outputs outputs.
void lowerNms(TfNodeContext &ctx, bool hasScoreThreshold, bool hasScores,
              bool hasCount) {
  size_t inputs = hasScoreThreshold ? 5 : 4;
  if (!ctx.requireInputs(hasScores ? 6 : inputs))
    return;
  if (hasScores && !checkHardNms(ctx))
    return;
  std::optional<int64_t> bound = boundOfMaxOutput(ctx);
  if (!bound || !checkIouThreshold(ctx, ctx.input(3)))
    return;
  GraphBuilder &b = ctx.builder();
  Value scores = ctx.input(1);
  bool padToMax = hasCount && ctx.attrBool("pad_to_max_output_size", false);
  NmsSpec spec;
  spec.maxOutput = ctx.input(kMaxOutputInput);
  spec.maxOutputBound = *bound;
  spec.iouThreshold = ctx.input(3);
  spec.scoreThreshold =
      hasScoreThreshold ? ctx.input(4)
      : scores          ? b.scalar(scores->shape().dtype(),
                                   lowestFinite(scores->shape().dtype()))
                        : nullptr;
  spec.nodeName = ctx.name();
  spec.dynamicResult = !padToMax;
  NmsResult r = nonMaxSuppression(b, ctx.input(0), scores, spec);
  if (!r.indices)
    return;
  if (padToMax) {
    // TensorFlow's padded output: [max_output_size], zeros after the count.
    if (!GraphBuilder::constantInts(spec.maxOutput))
      return void(ctx.constantInts(kMaxOutputInput, "max_output_size"));
    int64_t extra = *bound - r.indices->shape().dim(0);
    r.indices = padTensor(b, r.indices, {0}, {extra}, PadMode::Constant, nullptr);
    r.scores = padTensor(b, r.scores, {0}, {extra}, PadMode::Constant, nullptr);
  }
  size_t out = 0;
  ctx.setOutput(out++, r.indices);
  if (hasScores)
    ctx.setOutput(out++, r.scores);
  if (hasCount)
    ctx.setOutput(out++, r.count);
}

void lowerNmsV2(TfNodeContext &ctx) { lowerNms(ctx, false, false, false); }
void lowerNmsV3(TfNodeContext &ctx) { lowerNms(ctx, true, false, false); }
void lowerNmsV4(TfNodeContext &ctx) { lowerNms(ctx, true, false, true); }
void lowerNmsV5(TfNodeContext &ctx) { lowerNms(ctx, true, true, true); }

/// Where with one input: the coordinates of its true (nonzero) elements.
/// (Where with three inputs is TF 1's Select, a different op.)
void lowerWhere(TfNodeContext &ctx) {
  if (ctx.inputCount() != 1)
    return void(ctx.fail(fmt::format("Where takes one input (the condition), "
                                     "but the node has {}; the three-input "
                                     "form is the op Select",
                                     ctx.inputCount())));
  WhereResult r =
      nonzeroCoordinates(ctx.builder(), ctx.input(0), true, ctx.name());
  if (r.coordinates)
    ctx.setOutput(0, r.coordinates);
}

const TfOpRule kRules[] = {
    {"NonMaxSuppressionV2", &lowerNmsV2}, {"NonMaxSuppressionV3", &lowerNmsV3},
    {"NonMaxSuppressionV4", &lowerNmsV4}, {"NonMaxSuppressionV5", &lowerNmsV5},
    {"Where", &lowerWhere},
};
} // namespace

std::span<const TfOpRule> tfSelectionRules() { return kRules; }

} // namespace kiln::import::tf
