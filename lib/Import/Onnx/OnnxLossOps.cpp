//===- OnnxLossOps.cpp - ONNX NLL and softmax cross-entropy losses --------===//
//
// Both losses pick, for every sample (n, d1..dk), the log-probability of its
// target class c = target[n, d1..dk] out of input[n, :, d1..dk]. kiln has no
// scatter and gathers with run-time indices clamp, so the pick is a one-hot
// mask (target == iota over the class dimension) that selects one element
// per sample before a sum over C: exact (one term plus zeros), and a target
// outside [0, C) selects nothing, which is what ignore_index needs.
//
// Per ONNX (opsets 12 and 13; the reference implementation in onnx's
// backend test cases fixes the details the prose leaves open):
//   loss[n, d..] = -input[n, c, d..] * weight[c], or 0 where c == ignore_index
//   none: loss; sum: sum(loss);
//   mean: sum(loss) / sum(weight[c] over samples not ignored) when there is a
//         weight or an ignore_index (the unweighted count of kept samples),
//         otherwise sum(loss) / (number of samples).
// SoftmaxCrossEntropyLoss is the same on log(softmax(scores, axis 1)), which
// it can also return as its second output (log_prob).
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

#include "Common/ArrayLowering.h"
#include "Common/ElementwiseLowering.h"

#include <fmt/format.h>

namespace kiln::import::onnx {

namespace {
using ir::ComparisonDirection;
using ir::DType;
using ir::Opcode;
using ir::ReducerKind;

enum class Reduction { None, Sum, Mean };

std::optional<Reduction> readReduction(OnnxNodeContext &ctx) {
  std::string text = ctx.attrString("reduction", "mean");
  if (text == "none")
    return Reduction::None;
  if (text == "sum")
    return Reduction::Sum;
  if (text == "mean")
    return Reduction::Mean;
  ctx.fail(fmt::format("attribute reduction is '{}' but must be one of "
                       "'none', 'sum', 'mean'",
                       text));
  return std::nullopt;
}

/// Checks input (N, C, d1..dk), target (N, d1..dk) of an integer type and
/// weight (C) of the input's type; records an error naming what differs.
bool checkOperands(OnnxNodeContext &ctx, Value input, Value target,
                   Value weight) {
  const ir::Shape &x = input->shape(), &t = target->shape();
  if (x.rank() < 2 || !ir::isFloat(x.dtype())) {
    ctx.fail(fmt::format("input 0 must be a floating-point tensor of rank >= "
                         "2 (N, C, d1..dk) but is {}",
                         x.toString()));
    return false;
  }
  std::vector<int64_t> expected = x.dims();
  expected.erase(expected.begin() + 1);
  if (!ir::isInteger(t.dtype()) || t.dims() != expected) {
    ctx.fail(fmt::format("input 1 (target) must be an integer tensor of "
                         "shape {} (input 0 without dimension 1) but is {}",
                         ir::Shape(DType::S64, expected).toString(),
                         t.toString()));
    return false;
  }
  if (weight && (weight->shape().dtype() != x.dtype() ||
                 weight->shape().dims() != std::vector<int64_t>{x.dim(1)})) {
    ctx.fail(fmt::format("input 2 (weight) must be {} but is {}",
                         ir::Shape(x.dtype(), {x.dim(1)}).toString(),
                         weight->shape().toString()));
    return false;
  }
  return true;
}

/// The negative log-likelihood of `logProb` (N, C, d..) at `target`
/// (N, d..), reduced as the node says. Computes in f32 for f16/bf16.
Value negativeLogLikelihood(OnnxNodeContext &ctx, Value logProb, Value target,
                            Value weight) {
  GraphBuilder &b = ctx.builder();
  if (!logProb || !target || (ctx.hasInput(2) && !weight))
    return nullptr; // an operand failed; its error is recorded
  std::optional<Reduction> reduction = readReduction(ctx);
  if (!reduction || !checkOperands(ctx, logProb, target, weight))
    return nullptr;
  DType dtype = logProb->shape().dtype(), wide = computeType(dtype);
  DType indexType = target->shape().dtype();
  std::vector<int64_t> dims = logProb->shape().dims();
  std::vector<int64_t> sampleDims; // target's dims inside the (N, C, d..) shape
  for (int64_t i = 0; i < int64_t(dims.size()); ++i)
    if (i != 1)
      sampleDims.push_back(i);

  // match[n, c, d..] = target[n, d..] == c, and false for ignored samples.
  Value match = b.compare(ComparisonDirection::EQ,
                          b.broadcastInDim(target, dims, sampleDims),
                          iota(b, indexType, dims, 1));
  Value kept = nullptr; // per sample: target != ignore_index
  if (ctx.hasAttr("ignore_index")) {
    kept =
        b.compare(ComparisonDirection::NE, target,
                  b.scalar(indexType, double(ctx.attrInt("ignore_index", 0))));
    match =
        b.binary(Opcode::And, match, b.broadcastInDim(kept, dims, sampleDims));
  }
  Value zero = b.scalar(wide, 0.0);
  auto pick = [&](Value perClass) { // (N, C, d..) -> (N, d..) at the target
    return b.reduce(b.select(match, perClass, zero), {1}, ReducerKind::Add);
  };
  Value loss = b.unary(Opcode::Negate, pick(b.convert(logProb, wide)));
  // The weight of each sample; nullptr means every sample weighs 1.
  Value sampleWeight = nullptr;
  if (weight) {
    sampleWeight = pick(b.broadcastInDim(b.convert(weight, wide), dims, {1}));
    loss = b.binary(Opcode::Multiply, loss, sampleWeight);
  } else if (kept) {
    sampleWeight = b.convert(kept, wide);
  }

  std::vector<int64_t> all;
  for (int64_t i = 0; i < int64_t(sampleDims.size()); ++i)
    all.push_back(i);
  Value result = loss;
  if (*reduction != Reduction::None)
    result = b.reduce(loss, all, ReducerKind::Add);
  if (*reduction == Reduction::Mean) {
    Value denominator = sampleWeight
                            ? b.reduce(sampleWeight, all, ReducerKind::Add)
                            : b.scalar(wide, double(product(dimsOf(loss))));
    result = b.binary(Opcode::Divide, result, denominator);
  }
  return b.convert(result, dtype);
}

Value optionalWeight(OnnxNodeContext &ctx) {
  return ctx.inputCount() > 2 && ctx.hasInput(2) ? ctx.input(2) : nullptr;
}

/// NegativeLogLikelihoodLoss(input, target[, weight]).
void lowerNegativeLogLikelihoodLoss(OnnxNodeContext &ctx) {
  if (!ctx.requireInputs(2))
    return;
  ctx.setOutput(0, negativeLogLikelihood(ctx, ctx.input(0), ctx.input(1),
                                         optionalWeight(ctx)));
}

/// SoftmaxCrossEntropyLoss(scores, labels[, weights]) -> output[, log_prob].
void lowerSoftmaxCrossEntropyLoss(OnnxNodeContext &ctx) {
  if (!ctx.requireInputs(2))
    return;
  Value scores = ctx.input(0);
  if (!scores)
    return;
  // Checked before the softmax, which has no meaning for integers.
  if (scores->shape().rank() < 2 || !ir::isFloat(scores->shape().dtype()))
    return void(ctx.fail(fmt::format("input 0 (scores) must be a "
                                     "floating-point tensor of rank >= 2 "
                                     "(N, C, d1..dk) but is {}",
                                     scores->shape().toString())));
  Value logProb = logSoftmax(ctx.builder(), scores, 1);
  ctx.setOutput(0, negativeLogLikelihood(ctx, logProb, ctx.input(1),
                                         optionalWeight(ctx)));
  if (ctx.outputCount() > 1 && ctx.wantsOutput(1))
    ctx.setOutput(1, logProb);
}

const OnnxOpRule kLossRules[] = {
    {"NegativeLogLikelihoodLoss", &lowerNegativeLogLikelihoodLoss},
    {"SoftmaxCrossEntropyLoss", &lowerSoftmaxCrossEntropyLoss},
};
} // namespace

std::span<const OnnxOpRule> onnxLossRules() { return kLossRules; }

} // namespace kiln::import::onnx
