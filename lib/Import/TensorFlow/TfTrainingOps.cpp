//===- TfTrainingOps.cpp - TensorFlow variables, gradient and optimizer ops ===//
//
// What a compiled training step needs beyond the forward ops: variable
// updates (Assign*, Apply*), the fused loss ops with their gradients
// (SoftmaxCrossEntropyWithLogits and its sparse form), the activation
// gradients the gradient graph contains, and BroadcastGradientArgs, which
// reduces to constants because every shape is static.
//
// Variable updates go through TfNodeContext::updateVariable: the importer
// returns the new value and the generated code writes it into the
// variable's buffer at the end of the step. Read-modify-write updates start
// from TfNodeContext::currentValue, the variable's latest value in the step,
// so every update of a step lands, as TensorFlow's in-place updates do.
// (Variable nodes and ReadVariableOp are graph plumbing: TfGraphOps.cpp.)
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace kiln::import::tf {

namespace {

using ir::ComparisonDirection;
using ir::Opcode;
using ir::ReducerKind;

/// The config variable behind input `i`, or an error naming the input.
std::optional<std::string> variableInput(TfNodeContext &c, size_t i) {
  std::optional<std::string> variable = c.variableOf(i);
  if (!variable)
    c.fail(fmt::format("input {} must be a variable listed in the config "
                       "(variable {{ node_name: ... readonly: false }})",
                       i));
  return variable;
}

/// Records `value` as the new value of `variable`; ops with a ref output
/// (Assign, AssignAdd, ApplyGradientDescent) also return it.
void update(TfNodeContext &c, const std::string &variable, Value value,
            bool refOutput) {
  if (!value || !c.builder().ok())
    return;
  Value old = c.currentValue(variable);
  if (old && value->shape().dtype() != old->shape().dtype()) {
    c.fail(fmt::format("the new value is {} but the variable is {}",
                       value->shape().toString(), old->shape().toString()));
    return;
  }
  c.updateVariable(variable, value);
  if (refOutput)
    c.setOutput(0, value);
}

// --- Variable updates -------------------------------------------------------

void lowerAssign(TfNodeContext &c) {
  if (std::optional<std::string> variable = variableInput(c, 0))
    update(c, *variable, c.input(1), true);
}

void lowerAssignVariableOp(TfNodeContext &c) {
  if (std::optional<std::string> variable = variableInput(c, 0))
    update(c, *variable, c.input(1), false);
}

template <Opcode Op, bool RefOutput>
void lowerAssignArithmetic(TfNodeContext &c) {
  std::optional<std::string> variable = variableInput(c, 0);
  if (!variable)
    return;
  Value current = c.currentValue(*variable);
  update(c, *variable, c.builder().binary(Op, current, c.input(1)), RefOutput);
}

/// var - alpha * delta; alpha is a scalar.
template <bool RefOutput> void lowerGradientDescent(TfNodeContext &c) {
  GraphBuilder &b = c.builder();
  std::optional<std::string> variable = variableInput(c, 0);
  Value alpha = c.input(1);
  if (!variable || !alpha)
    return;
  if (alpha->shape().rank() != 0) {
    c.fail(fmt::format("alpha must be a scalar but is {}",
                       alpha->shape().toString()));
    return;
  }
  Value step = b.binary(Opcode::Multiply, alpha, c.input(2));
  update(c, *variable,
         b.binary(Opcode::Subtract, c.currentValue(*variable), step),
         RefOutput);
}

// --- Losses -------------------------------------------------------------------

struct LossAndBackprop {
  Value loss = nullptr, backprop = nullptr;
};

/// Softmax cross entropy of [batch, classes] logits against label
/// probabilities, as TensorFlow's kernel computes it: with
/// shifted = logits - max(logits), loss = sum(labels * (log(sum(exp(shifted)))
/// - shifted)) and backprop = exp(shifted) / sum(exp(shifted)) - labels.
LossAndBackprop softmaxCrossEntropy(TfNodeContext &c, Value logits,
                                    Value labels) {
  GraphBuilder &b = c.builder();
  if (!logits || !labels)
    return {};
  if (logits->shape().rank() != 2 || !ir::isFloat(logits->shape().dtype())) {
    c.fail(fmt::format("logits must be 2-D floating point [batch, classes] "
                       "but are {}",
                       logits->shape().toString()));
    return {};
  }
  Value max = b.reduce(logits, {1}, ReducerKind::Max, true);
  Value shifted = b.binary(Opcode::Subtract, logits, max);
  Value exp = b.unary(Opcode::Exp, shifted);
  Value sum = b.reduce(exp, {1}, ReducerKind::Add, true);
  Value logSum = b.unary(Opcode::Log, sum);
  Value perClass = b.binary(Opcode::Multiply, labels,
                            b.binary(Opcode::Subtract, logSum, shifted));
  Value backprop = b.binary(Opcode::Subtract,
                            b.binary(Opcode::Divide, exp, sum), labels);
  if (backprop && backprop->shape().dims() != logits->shape().dims()) {
    c.fail(fmt::format("labels {} do not broadcast to the logits {}",
                       labels->shape().toString(), logits->shape().toString()));
    return {};
  }
  return {b.reduce(perClass, {1}, ReducerKind::Add), backprop};
}

void lowerSoftmaxCrossEntropyWithLogits(TfNodeContext &c) {
  Value logits = c.input(0), labels = c.input(1);
  if (!logits || !labels)
    return;
  if (labels->shape().dtype() != logits->shape().dtype()) {
    c.fail(fmt::format("logits {} and labels {} must have one dtype",
                       logits->shape().toString(), labels->shape().toString()));
    return;
  }
  LossAndBackprop result = softmaxCrossEntropy(c, logits, labels);
  c.setOutput(0, result.loss);
  c.setOutput(1, result.backprop);
}

/// Integer class labels become one-hot rows. A label outside [0, classes)
/// gives a NaN loss and backprop row: TensorFlow's CPU kernel fails the
/// step, which compiled code cannot do, so it poisons the row as tf2xla does.
void lowerSparseSoftmaxCrossEntropyWithLogits(TfNodeContext &c) {
  GraphBuilder &b = c.builder();
  Value logits = c.input(0), labels = c.input(1);
  if (!logits || !labels)
    return;
  const ir::Shape &shape = logits->shape();
  if (shape.rank() != 2 || labels->shape().rank() != 1 ||
      labels->shape().dim(0) != shape.dim(0)) {
    c.fail(fmt::format("expected logits [batch, classes] and labels [batch] "
                       "but got {} and {}",
                       shape.toString(), labels->shape().toString()));
    return;
  }
  if (!ir::isFloat(shape.dtype()) || !ir::isInteger(labels->shape().dtype())) {
    c.fail(fmt::format("expected floating-point logits and integer labels "
                       "but got {} and {}",
                       shape.toString(), labels->shape().toString()));
    return;
  }
  int64_t batch = shape.dim(0), classes = shape.dim(1);
  ir::DType index = labels->shape().dtype();
  ir::Attributes iota;
  iota.dimensions = {1};
  Value column = b.reshape(labels, {batch, 1});
  Value onehot = b.convert(
      b.compare(ComparisonDirection::EQ,
                b.add(Opcode::Iota, {}, iota, ir::Shape(index, shape.dims())),
                column),
      shape.dtype());
  LossAndBackprop result = softmaxCrossEntropy(c, logits, onehot);
  Value valid = b.binary(
      Opcode::And,
      b.compare(ComparisonDirection::GE, column, b.scalar(index, 0)),
      b.compare(ComparisonDirection::LT, column,
                b.scalar(index, double(classes))));
  Value nan = b.scalar(shape.dtype(), std::numeric_limits<double>::quiet_NaN());
  c.setOutput(0, b.select(b.reshape(valid, {batch}), result.loss, nan));
  c.setOutput(1, b.select(valid, result.backprop, nan));
}

// --- Gradients ----------------------------------------------------------------

/// The reduction indices of TensorFlow's BCast for two shapes: for each
/// input, every (right-aligned) dimension where it is 1 or missing.
/// Returns an error message for incompatible shapes.
std::string broadcastReductions(const std::vector<int64_t> &s0,
                                const std::vector<int64_t> &s1,
                                std::vector<int64_t> &r0,
                                std::vector<int64_t> &r1) {
  size_t rank = std::max(s0.size(), s1.size());
  for (size_t d = 0; d < rank; ++d) {
    // Dimension d of the output, counted from the left.
    size_t fromRight = rank - 1 - d;
    int64_t x = fromRight < s0.size() ? s0[s0.size() - 1 - fromRight] : 1;
    int64_t y = fromRight < s1.size() ? s1[s1.size() - 1 - fromRight] : 1;
    if (x != y && x != 1 && y != 1)
      return fmt::format("shapes [{}] and [{}] are not broadcast-compatible",
                         fmt::join(s0, ","), fmt::join(s1, ","));
    if (x == 1)
      r0.push_back(int64_t(d));
    if (y == 1)
      r1.push_back(int64_t(d));
  }
  return {};
}

void lowerBroadcastGradientArgs(TfNodeContext &c) {
  std::optional<std::vector<int64_t>> s0 = c.constantInts(0, "s0");
  std::optional<std::vector<int64_t>> s1 = c.constantInts(1, "s1");
  if (!s0 || !s1)
    return;
  std::vector<int64_t> r0, r1;
  if (std::string error = broadcastReductions(*s0, *s1, r0, r1);
      !error.empty()) {
    c.fail(error);
    return;
  }
  ir::DType type = c.input(0)->shape().dtype();
  c.setOutput(0, c.builder().ints(type, r0));
  c.setOutput(1, c.builder().ints(type, r1));
}

/// gradients where `keep` holds, 0 elsewhere.
Value maskGradient(GraphBuilder &b, Value keep, Value gradients) {
  return b.select(keep, gradients, b.like(gradients, 0));
}

// ReluGrad(gradients, features): gradients where features > 0.
void lowerReluGrad(TfNodeContext &c) {
  GraphBuilder &b = c.builder();
  Value features = c.input(1);
  c.setOutput(0, maskGradient(b,
                              b.compare(ComparisonDirection::GT, features,
                                        b.like(features, 0)),
                              c.input(0)));
}

// Relu6Grad(gradients, features): gradients where 0 < features < 6.
void lowerRelu6Grad(TfNodeContext &c) {
  GraphBuilder &b = c.builder();
  Value features = c.input(1);
  Value inside = b.binary(
      Opcode::And,
      b.compare(ComparisonDirection::GT, features, b.like(features, 0)),
      b.compare(ComparisonDirection::LT, features, b.like(features, 6)));
  c.setOutput(0, maskGradient(b, inside, c.input(0)));
}

// SigmoidGrad(y, dy) = dy * y * (1 - y).
void lowerSigmoidGrad(TfNodeContext &c) {
  GraphBuilder &b = c.builder();
  Value y = c.input(0);
  Value slope =
      b.binary(Opcode::Multiply, y, b.binary(Opcode::Subtract, b.like(y, 1), y));
  c.setOutput(0, b.binary(Opcode::Multiply, c.input(1), slope));
}

// TanhGrad(y, dy) = dy * (1 - y * y).
void lowerTanhGrad(TfNodeContext &c) {
  GraphBuilder &b = c.builder();
  Value y = c.input(0);
  Value slope = b.binary(Opcode::Subtract, b.like(y, 1),
                         b.binary(Opcode::Multiply, y, y));
  c.setOutput(0, b.binary(Opcode::Multiply, c.input(1), slope));
}

// BiasAddGrad(out_backprop): the sum over every dimension but the channel
// one (last for NHWC, 1 for NCHW when the rank is at least 3).
void lowerBiasAddGrad(TfNodeContext &c) {
  Value grad = c.input(0);
  std::string format = c.attrString("data_format", "NHWC");
  if (!grad)
    return;
  int64_t rank = grad->shape().rank();
  if (rank < 2) {
    c.fail(fmt::format("out_backprop must be at least 2-D but is {}",
                       grad->shape().toString()));
    return;
  }
  if (format != "NHWC" && format != "NCHW") {
    c.fail(fmt::format("unsupported data_format '{}' (expected NHWC or NCHW)",
                       format));
    return;
  }
  int64_t channel = format == "NCHW" && rank >= 3 ? 1 : rank - 1;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (d != channel)
      dims.push_back(d);
  c.setOutput(0, c.builder().reduce(grad, dims, ReducerKind::Add));
}

const TfOpRule kRules[] = {
    // Ref variables: the output is the variable after the update.
    {"Assign", &lowerAssign},
    {"AssignAdd", &lowerAssignArithmetic<Opcode::Add, true>},
    {"AssignSub", &lowerAssignArithmetic<Opcode::Subtract, true>},
    {"ApplyGradientDescent", &lowerGradientDescent<true>},
    // Resource variables: no outputs.
    {"AssignVariableOp", &lowerAssignVariableOp},
    {"AssignAddVariableOp", &lowerAssignArithmetic<Opcode::Add, false>},
    {"AssignSubVariableOp", &lowerAssignArithmetic<Opcode::Subtract, false>},
    {"ResourceApplyGradientDescent", &lowerGradientDescent<false>},
    {"SoftmaxCrossEntropyWithLogits", &lowerSoftmaxCrossEntropyWithLogits},
    {"SparseSoftmaxCrossEntropyWithLogits",
     &lowerSparseSoftmaxCrossEntropyWithLogits},
    {"BroadcastGradientArgs", &lowerBroadcastGradientArgs},
    {"ReluGrad", &lowerReluGrad},
    {"Relu6Grad", &lowerRelu6Grad},
    {"SigmoidGrad", &lowerSigmoidGrad},
    {"TanhGrad", &lowerTanhGrad},
    {"BiasAddGrad", &lowerBiasAddGrad},
};

} // namespace

std::span<const TfOpRule> tfTrainingRules() { return kRules; }

} // namespace kiln::import::tf
