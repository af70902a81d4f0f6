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

/// Sets the node's outputs to what the inlined subgraph(s) computed.
void setOutputs(OnnxNodeContext &ctx, const std::vector<Value> &values) {
  if (values.size() != ctx.outputCount()) {
    ctx.fail(fmt::format("the subgraph computes {} outputs but the node has {}",
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
  std::vector<Value> inputs = {b.scalar(ir::DType::S64, double(iteration)),
                               state.condition};
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

/// How one (unbatched) Scan runs: opset 9's attributes.
struct ScanSpec {
  size_t scanOutputs = 0;
  std::vector<int64_t> inAxes, inDirections, outAxes, outDirections;
};

/// Unrolls the body over `sequences` (the scan inputs) from `states`;
/// returns the final states, then each scan output stacked.
std::optional<std::vector<Value>> unrollScan(OnnxNodeContext &ctx,
                                             ScanSpec spec,
                                             std::vector<Value> states,
                                             const std::vector<Value> &sequences) {
  GraphBuilder &b = ctx.builder();
  int64_t length = -1;
  for (size_t j = 0; j < sequences.size(); ++j) {
    std::optional<int64_t> axis =
        normalizeAxis(spec.inAxes[j], sequences[j]->shape().rank());
    if (!axis) {
      ctx.fail(fmt::format("scan input {} has no axis {}", j, spec.inAxes[j]));
      return std::nullopt;
    }
    spec.inAxes[j] = *axis;
    int64_t n = sequences[j]->shape().dim(size_t(*axis));
    if (length >= 0 && n != length) {
      ctx.fail(fmt::format(
          "scan inputs have different sequence lengths ({} and {})", length, n));
      return std::nullopt;
    }
    length = n;
  }
  if (length > kMaxUnrolledIterations) {
    ctx.fail(fmt::format("the scan runs {} iterations; kiln unrolls scans up "
                         "to {}",
                         length, kMaxUnrolledIterations));
    return std::nullopt;
  }
  if (length == 0 && spec.scanOutputs > 0) {
    ctx.fail("the scan has no iterations, so the element shape of its scan "
             "outputs is unknown");
    return std::nullopt;
  }
  size_t stateCount = states.size();
  std::vector<std::vector<Value>> scans(spec.scanOutputs);
  for (int64_t t = 0; t < length; ++t) {
    std::vector<Value> bodyInputs = states;
    for (size_t j = 0; j < sequences.size(); ++j) {
      int64_t at = spec.inDirections[j] ? length - 1 - t : t;
      Value slice = b.sliceDim(sequences[j], spec.inAxes[j], at, at + 1);
      bodyInputs.push_back(squeezeDims(b, slice, {spec.inAxes[j]}));
    }
    std::optional<std::vector<Value>> outputs =
        ctx.inlineSubgraph("body", bodyInputs);
    if (!outputs)
      return std::nullopt;
    if (outputs->size() != stateCount + spec.scanOutputs) {
      ctx.fail(fmt::format("the body has {} outputs but the node expects {} "
                           "states and {} scan outputs",
                           outputs->size(), stateCount, spec.scanOutputs));
      return std::nullopt;
    }
    std::copy_n(outputs->begin(), stateCount, states.begin());
    for (size_t k = 0; k < spec.scanOutputs; ++k)
      scans[k].push_back((*outputs)[stateCount + k]);
  }
  std::vector<Value> results = states;
  for (size_t k = 0; k < spec.scanOutputs; ++k) {
    if (spec.outDirections[k])
      std::reverse(scans[k].begin(), scans[k].end());
    int64_t rank = scans[k].front()->shape().rank() + 1;
    std::optional<int64_t> axis = normalizeAxis(spec.outAxes[k], rank);
    if (!axis) {
      ctx.fail(fmt::format("scan output {} has no axis {}", k,
                           spec.outAxes[k]));
      return std::nullopt;
    }
    results.push_back(stack(b, scans[k], *axis));
  }
  return results;
}

/// Opset 9+: states and scan inputs without a batch dimension.
void lowerScan9(OnnxNodeContext &ctx, size_t stateCount, size_t scanCount) {
  ScanSpec spec;
  spec.scanOutputs = ctx.outputCount() - std::min(ctx.outputCount(), stateCount);
  std::optional<std::vector<int64_t>> inAxes =
      scanAttr(ctx, "scan_input_axes", scanCount);
  std::optional<std::vector<int64_t>> inDirections =
      scanAttr(ctx, "scan_input_directions", scanCount);
  std::optional<std::vector<int64_t>> outAxes =
      scanAttr(ctx, "scan_output_axes", spec.scanOutputs);
  std::optional<std::vector<int64_t>> outDirections =
      scanAttr(ctx, "scan_output_directions", spec.scanOutputs);
  if (!inAxes || !inDirections || !outAxes || !outDirections ||
      !ctx.requireInputs(stateCount + scanCount))
    return;
  spec.inAxes = *inAxes;
  spec.inDirections = *inDirections;
  spec.outAxes = *outAxes;
  spec.outDirections = *outDirections;
  std::vector<Value> states, sequences;
  for (size_t i = 0; i < stateCount + scanCount; ++i)
    (i < stateCount ? states : sequences).push_back(ctx.input(i));
  if (std::optional<std::vector<Value>> results =
          unrollScan(ctx, spec, states, sequences))
    setOutputs(ctx, *results);
}

/// Opset 8: input 0 is the optional sequence_lens, and states and scan
/// inputs carry a leading batch dimension (scan inputs scan along axis 1).
/// Each batch entry is an opset-9 scan; the results are stacked again.
void lowerScan8(OnnxNodeContext &ctx, size_t stateCount, size_t scanCount) {
  GraphBuilder &b = ctx.builder();
  // Input 0 (sequence_lens) may be absent; the others may not.
  for (size_t i = 1; i < 1 + stateCount + scanCount; ++i)
    if (!ctx.hasInput(i))
      return void(ctx.fail(fmt::format("expected input {} but it is missing", i)));
  ScanSpec spec;
  spec.scanOutputs = ctx.outputCount() - std::min(ctx.outputCount(), stateCount);
  std::optional<std::vector<int64_t>> directions =
      scanAttr(ctx, "directions", scanCount);
  if (!directions)
    return;
  spec.inAxes.assign(scanCount, 0);
  spec.inDirections = *directions;
  spec.outAxes.assign(spec.scanOutputs, 0);
  spec.outDirections.assign(spec.scanOutputs, 0);
  // States and scan inputs, each with the batch as dimension 0; scan inputs
  // also have the sequence as dimension 1.
  std::vector<Value> data;
  for (size_t i = 0; i < stateCount + scanCount; ++i) {
    Value x = ctx.input(1 + i);
    if (!x)
      return;
    size_t minRank = i < stateCount ? 1 : 2;
    if (size_t(x->shape().rank()) < minRank)
      return void(ctx.fail(fmt::format(
          "input {} ({}) must have rank >= {} (a batch dimension{}) but is {}",
          1 + i, i < stateCount ? "a state" : "a scan input", minRank,
          i < stateCount ? "" : ", then the sequence", x->shape().toString())));
    data.push_back(x);
  }
  int64_t batch = data.front()->shape().dim(0);
  for (size_t i = 0; i < data.size(); ++i)
    if (data[i]->shape().dim(0) != batch)
      return void(ctx.fail(fmt::format(
          "input {} has batch size {} but input 1 has {}", 1 + i,
          data[i]->shape().dim(0), batch)));
  if (ctx.hasInput(0)) {
    std::optional<std::vector<int64_t>> lengths =
        ctx.constantInts(0, "sequence_lens");
    if (!lengths)
      return;
    int64_t full = data[stateCount]->shape().dim(1);
    for (int64_t length : *lengths)
      if (length != full)
        return void(ctx.fail(fmt::format(
            "sequence_lens {} is shorter than the sequence ({}); kiln "
            "supports full-length sequences only",
            length, full)));
  }
  std::vector<std::vector<Value>> perBatch;
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<Value> states, sequences;
    for (size_t i = 0; i < stateCount + scanCount; ++i) {
      Value entry = squeezeDims(b, b.sliceDim(data[i], 0, n, n + 1), {0});
      (i < stateCount ? states : sequences).push_back(entry);
    }
    std::optional<std::vector<Value>> results =
        unrollScan(ctx, spec, states, sequences);
    if (!results)
      return;
    perBatch.push_back(std::move(*results));
  }
  if (perBatch.empty())
    return void(ctx.fail("the scan has an empty batch"));
  std::vector<Value> stacked;
  for (size_t k = 0; k < perBatch.front().size(); ++k) {
    std::vector<Value> entries;
    for (const std::vector<Value> &results : perBatch)
      entries.push_back(results[k]);
    stacked.push_back(stack(b, entries, 0));
  }
  setOutputs(ctx, stacked);
}

void lowerScan(OnnxNodeContext &ctx) {
  int64_t scanCount = ctx.attrInt("num_scan_inputs", 0);
  size_t dataInputs = ctx.inputCount() - (ctx.opset() < 9 ? 1 : 0);
  if (scanCount < 1 || ctx.inputCount() == 0 || size_t(scanCount) > dataInputs)
    return void(ctx.fail(fmt::format(
        "num_scan_inputs is {} but the node has {} inputs", scanCount,
        ctx.inputCount())));
  size_t stateCount = dataInputs - size_t(scanCount);
  if (ctx.opset() < 9)
    lowerScan8(ctx, stateCount, size_t(scanCount));
  else
    lowerScan9(ctx, stateCount, size_t(scanCount));
}

const OnnxOpRule kRules[] = {
    {"If", lowerIf},
    {"Loop", lowerLoop},
    {"Scan", lowerScan},
};
} // namespace

std::span<const OnnxOpRule> onnxControlFlowRules() { return kRules; }

} // namespace kiln::import::onnx
