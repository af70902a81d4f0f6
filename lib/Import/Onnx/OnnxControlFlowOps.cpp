//===- OnnxControlFlowOps.cpp - ONNX If, Loop and Scan --------------------===//
//
// An ahead-of-time compiled graph has one static shape per value, so
// control flow is lowered without HLO control flow, by inlining subgraphs:
// - If: a condition that is a constant after import (a shape test, a fixed
//   sample rate, ...) selects its branch, and only that branch is lowered.
//   A condition computed from graph inputs lowers both branches and picks
//   each output with `select`. ONNX subgraphs have no side effects, so
//   computing the branch not taken changes nothing but time; the branches
//   must then agree on every output's dtype and shape.
// - Loop and Scan are unrolled: the trip count (Loop's M, Scan's sequence
//   length) is known at import. A Loop condition that stays constant ends
//   the unrolling where it turns false; one computed from graph inputs
//   masks the loop-carried values with `select` once it is false, which is
//   exact unless the loop has scan outputs (their length would then depend
//   on input values).
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

#include "Common/ArrayLowering.h"

#include <fmt/format.h>

#include <algorithm>

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
  std::optional<std::vector<Value>> onTrue = ctx.inlineSubgraph("then_branch", {});
  if (!onTrue)
    return std::nullopt;
  std::optional<std::vector<Value>> onFalse = ctx.inlineSubgraph("else_branch", {});
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
        ctx.inlineSubgraph(known->front() ? "then_branch" : "else_branch", {});
    if (taken)
      setOutputs(ctx, *taken);
    return;
  }
  if (std::optional<std::vector<Value>> picked = selectBranches(ctx, condition))
    setOutputs(ctx, *picked);
}

// --- Loop and Scan -------------------------------------------------------------

/// Unrolling beyond this many iterations would blow up the program; such
/// loops need HLO control flow, which kiln does not generate yet.
constexpr int64_t kMaxUnrolledIterations = 4096;

/// Per-iteration values stacked along a new dimension `axis`, in order.
Value stack(GraphBuilder &b, const std::vector<Value> &values, int64_t axis) {
  std::vector<Value> parts;
  for (Value value : values)
    parts.push_back(unsqueezeDims(b, value, {axis}));
  return b.concatenate(parts, axis);
}

/// What the unrolled Loop carries from one iteration to the next.
struct LoopState {
  Value condition;           ///< pred[], constant or computed
  bool masked = false;       ///< the condition is computed: select updates
  std::vector<Value> carried;
  std::vector<std::vector<Value>> scans; ///< per scan output, per iteration
};

/// Lowers one iteration of the body into `state`; false after an error.
bool unrollIteration(OnnxNodeContext &ctx, int64_t iteration, LoopState &state) {
  GraphBuilder &b = ctx.builder();
  std::vector<Value> inputs = {b.ints(ir::DType::S64, {iteration}),
                               state.condition};
  inputs[0] = b.reshape(inputs[0], {});
  inputs.insert(inputs.end(), state.carried.begin(), state.carried.end());
  std::optional<std::vector<Value>> outputs = ctx.inlineSubgraph("body", inputs);
  if (!outputs)
    return false;
  size_t carriedCount = state.carried.size();
  if (outputs->size() < 1 + carriedCount) {
    ctx.fail(fmt::format("the body has {} outputs but the loop carries {} "
                         "values besides the condition",
                         outputs->size(), carriedCount));
    return false;
  }
  Value next = b.reshape((*outputs)[0], {});
  for (size_t i = 0; i < carriedCount; ++i) {
    Value updated = (*outputs)[1 + i];
    state.carried[i] = state.masked
                           ? b.select(state.condition, updated, state.carried[i])
                           : updated;
  }
  state.scans.resize(outputs->size() - 1 - carriedCount);
  for (size_t k = 0; k < state.scans.size(); ++k)
    state.scans[k].push_back((*outputs)[1 + carriedCount + k]);
  state.condition = state.masked
                        ? b.select(state.condition, next,
                                   b.scalar(ir::DType::Pred, 0))
                        : next;
  return b.ok();
}

void lowerLoop(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  std::optional<int64_t> tripCount;
  if (ctx.hasInput(0)) {
    std::optional<std::vector<int64_t>> m =
        ctx.constantInts(0, "M, the trip count");
    if (!m)
      return;
    tripCount = m->empty() ? 0 : m->front();
  }
  LoopState state;
  state.condition = ctx.hasInput(1) ? b.reshape(ctx.input(1), {})
                                    : b.scalar(ir::DType::Pred, 1);
  for (size_t i = 2; i < ctx.inputCount(); ++i)
    state.carried.push_back(ctx.input(i));
  bool hasScanOutputs = ctx.outputCount() > state.carried.size();
  if (hasScanOutputs && !GraphBuilder::constantInts(state.condition))
    return void(ctx.fail(
        "input 1 (cond) must be a compile-time constant when the loop has scan "
        "outputs: their length would depend on input values"));
  for (int64_t iteration = 0; !tripCount || iteration < *tripCount;
       ++iteration) {
    std::optional<std::vector<int64_t>> known =
        GraphBuilder::constantInts(state.condition);
    if (known && known->front() == 0)
      break;
    state.masked |= !known;
    if (iteration == kMaxUnrolledIterations)
      return void(ctx.fail(fmt::format(
          "the loop runs more than {} iterations ({}); kiln unrolls loops "
          "and needs a constant trip count up to that",
          kMaxUnrolledIterations,
          tripCount ? fmt::format("M = {}", *tripCount)
                    : std::string("no M and the condition stays true"))));
    if (!unrollIteration(ctx, iteration, state))
      return;
    if (state.masked && !state.scans.empty() && !state.scans.front().empty())
      return void(ctx.fail(
          "the loop condition depends on graph inputs and the loop has scan "
          "outputs, whose length would depend on input values; an "
          "ahead-of-time compiler needs it constant"));
  }
  size_t carried = state.carried.size();
  if (ctx.outputCount() > carried && state.scans.empty())
    return void(ctx.fail("the loop has scan outputs but runs no iteration, so "
                         "their element shape is unknown"));
  for (size_t i = 0; i < carried; ++i)
    ctx.setOutput(i, state.carried[i]);
  for (size_t k = 0; k < state.scans.size(); ++k)
    ctx.setOutput(carried + k, stack(b, state.scans[k], 0));
}

/// Scan's per-input (or per-output) axes or directions attribute, defaulting
/// to 0 for each of `count`.
std::optional<std::vector<int64_t>>
scanAttr(OnnxNodeContext &ctx, std::string_view key, size_t count) {
  std::vector<int64_t> values = ctx.attrInts(key);
  if (values.empty())
    values.assign(count, 0);
  if (values.size() != count) {
    ctx.fail(fmt::format("'{}' has {} entries but there are {}", key,
                         values.size(), count));
    return std::nullopt;
  }
  return values;
}

void lowerScan(OnnxNodeContext &ctx) {
  if (ctx.opset() < 9)
    return void(ctx.fail("Scan before opset 9 (batched, with sequence_lens) "
                         "is not supported; convert the model to opset 9 or "
                         "later"));
  GraphBuilder &b = ctx.builder();
  int64_t scanCount = ctx.attrInt("num_scan_inputs", 0);
  size_t inputs = ctx.inputCount();
  if (scanCount < 1 || size_t(scanCount) > inputs)
    return void(ctx.fail(fmt::format(
        "num_scan_inputs is {} but the node has {} inputs", scanCount, inputs)));
  size_t stateCount = inputs - size_t(scanCount);
  size_t scanOutputs = ctx.outputCount() - std::min(ctx.outputCount(), stateCount);
  std::optional<std::vector<int64_t>> inAxes =
      scanAttr(ctx, "scan_input_axes", size_t(scanCount));
  std::optional<std::vector<int64_t>> inDirections =
      scanAttr(ctx, "scan_input_directions", size_t(scanCount));
  std::optional<std::vector<int64_t>> outAxes =
      scanAttr(ctx, "scan_output_axes", scanOutputs);
  std::optional<std::vector<int64_t>> outDirections =
      scanAttr(ctx, "scan_output_directions", scanOutputs);
  if (!inAxes || !inDirections || !outAxes || !outDirections ||
      !ctx.requireInputs(inputs))
    return;
  std::vector<Value> sequences;
  int64_t length = -1;
  for (size_t j = 0; j < size_t(scanCount); ++j) {
    Value x = ctx.input(stateCount + j);
    std::optional<int64_t> axis = normalizeAxis((*inAxes)[j], x->shape().rank());
    if (!axis)
      return void(ctx.fail(fmt::format("scan input {} has no axis {}", j,
                                       (*inAxes)[j])));
    (*inAxes)[j] = *axis;
    int64_t n = x->shape().dim(size_t(*axis));
    if (length >= 0 && n != length)
      return void(ctx.fail(fmt::format(
          "scan inputs have different sequence lengths ({} and {})", length, n)));
    length = n;
    sequences.push_back(x);
  }
  if (length > kMaxUnrolledIterations)
    return void(ctx.fail(fmt::format(
        "the scan runs {} iterations; kiln unrolls scans up to {}", length,
        kMaxUnrolledIterations)));
  std::vector<Value> states;
  for (size_t i = 0; i < stateCount; ++i)
    states.push_back(ctx.input(i));
  std::vector<std::vector<Value>> scans(scanOutputs);
  for (int64_t t = 0; t < length; ++t) {
    std::vector<Value> bodyInputs = states;
    for (size_t j = 0; j < sequences.size(); ++j) {
      int64_t at = (*inDirections)[j] ? length - 1 - t : t;
      Value slice = b.sliceDim(sequences[j], (*inAxes)[j], at, at + 1);
      bodyInputs.push_back(squeezeDims(b, slice, {(*inAxes)[j]}));
    }
    std::optional<std::vector<Value>> outputs =
        ctx.inlineSubgraph("body", bodyInputs);
    if (!outputs)
      return;
    if (outputs->size() != stateCount + scanOutputs)
      return void(ctx.fail(fmt::format(
          "the body has {} outputs but the node expects {} states and {} scan "
          "outputs",
          outputs->size(), stateCount, scanOutputs)));
    std::copy_n(outputs->begin(), stateCount, states.begin());
    for (size_t k = 0; k < scanOutputs; ++k)
      scans[k].push_back((*outputs)[stateCount + k]);
  }
  if (length == 0 && scanOutputs > 0)
    return void(ctx.fail("the scan has no iterations, so the element shape of "
                         "its scan outputs is unknown"));
  for (size_t i = 0; i < stateCount; ++i)
    ctx.setOutput(i, states[i]);
  for (size_t k = 0; k < scanOutputs; ++k) {
    if ((*outDirections)[k])
      std::reverse(scans[k].begin(), scans[k].end());
    int64_t rank = scans[k].front()->shape().rank() + 1;
    std::optional<int64_t> axis = normalizeAxis((*outAxes)[k], rank);
    if (!axis)
      return void(ctx.fail(fmt::format("scan output {} has no axis {}", k,
                                       (*outAxes)[k])));
    ctx.setOutput(stateCount + k, stack(b, scans[k], *axis));
  }
}

const OnnxOpRule kRules[] = {
    {"If", lowerIf},
    {"Loop", lowerLoop},
    {"Scan", lowerScan},
};
} // namespace

std::span<const OnnxOpRule> onnxControlFlowRules() { return kRules; }

} // namespace kiln::import::onnx
