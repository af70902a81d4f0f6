//===- OnnxControlFlowOps.cpp - ONNX If -----------------------------------===//
//
// An ahead-of-time compiled graph has one static shape per value, so If is
// lowered without HLO control flow:
// - a condition that is a constant after import (a shape test, a fixed
//   sample rate, ...) selects its branch, and only that branch is lowered;
// - a condition computed from graph inputs lowers both branches and picks
//   each output with `select`. ONNX subgraphs have no side effects, so
//   computing the branch not taken changes nothing but time; the branches
//   must then agree on every output's dtype and shape.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

#include <fmt/format.h>

namespace kiln::import::onnx {

namespace {

void setOutputs(OnnxNodeContext &ctx, const std::vector<Value> &values) {
  if (values.size() != ctx.outputCount()) {
    ctx.fail(fmt::format("the branch has {} outputs but the node has {}",
                         values.size(), ctx.outputCount()));
    return;
  }
  for (size_t i = 0; i < values.size(); ++i)
    ctx.setOutput(i, values[i]);
}

/// Both branches' outputs, picked elementwise by the scalar `condition`.
std::optional<std::vector<Value>> selectBranches(OnnxNodeContext &ctx,
                                                 Value condition) {
  std::optional<std::vector<Value>> onTrue = ctx.inlineSubgraph("then_branch");
  if (!onTrue)
    return std::nullopt;
  std::optional<std::vector<Value>> onFalse = ctx.inlineSubgraph("else_branch");
  if (!onFalse)
    return std::nullopt;
  if (onTrue->size() != onFalse->size()) {
    ctx.fail(fmt::format("then_branch has {} outputs but else_branch has {}",
                         onTrue->size(), onFalse->size()));
    return std::nullopt;
  }
  std::vector<Value> picked;
  for (size_t i = 0; i < onTrue->size(); ++i) {
    const ir::Shape &a = (*onTrue)[i]->shape(), &b = (*onFalse)[i]->shape();
    if (a != b) {
      ctx.fail(fmt::format(
          "the condition depends on graph inputs and output {} is {} in "
          "then_branch but {} in else_branch; an ahead-of-time compiler needs "
          "one static type per value (make the condition a constant, e.g. "
          "with --shape)",
          i, a.toString(), b.toString()));
      return std::nullopt;
    }
    picked.push_back(
        ctx.builder().select(condition, (*onTrue)[i], (*onFalse)[i]));
  }
  return picked;
}

void lowerIf(OnnxNodeContext &ctx) {
  if (!ctx.requireInputs(1))
    return;
  Value condition = ctx.input(0);
  const ir::Shape &shape = condition->shape();
  if (shape.dtype() != ir::DType::Pred || shape.numElements() != 1)
    return void(ctx.fail(fmt::format(
        "input 0 (cond) must be a single bool but is {}", shape.toString())));
  condition = ctx.builder().reshape(condition, {});
  if (std::optional<std::vector<int64_t>> known =
          GraphBuilder::constantInts(condition)) {
    std::optional<std::vector<Value>> taken =
        ctx.inlineSubgraph(known->front() ? "then_branch" : "else_branch");
    if (taken)
      setOutputs(ctx, *taken);
    return;
  }
  if (std::optional<std::vector<Value>> picked = selectBranches(ctx, condition))
    setOutputs(ctx, *picked);
}

const OnnxOpRule kRules[] = {
    {"If", lowerIf},
};
} // namespace

std::span<const OnnxOpRule> onnxControlFlowRules() { return kRules; }

} // namespace kiln::import::onnx
