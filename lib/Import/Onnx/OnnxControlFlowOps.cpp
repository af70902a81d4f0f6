//===- OnnxControlFlowOps.cpp - ONNX If, Loop and Scan --------------------===//
//
// Control flow becomes HLO control flow, with each subgraph lowered once
// into a computation of its own (OnnxSubgraph.cpp), so the program does not
// grow with trip counts:
// - If: a condition that is a constant after import (a shape test, a fixed
//   sample rate, ...) selects its branch, and only that branch is lowered
//   inline. A computed condition becomes a `conditional`; the branches must
//   agree on every output's dtype and shape (one static type per value).
// - Loop becomes a `while` over the state (iteration, M, condition,
//   loop-carried values, scan-output buffers, outer values the body reads).
//   The body is called, and each scan output is written as row `iteration`
//   of a [M, ...] buffer with dynamic-update-slice, so scan outputs need a
//   constant M and a condition that cannot stop the loop early; M and the
//   condition may otherwise be computed at run time.
// - Scan becomes a `while` whose body reads row t of each scan input with
//   dynamic-slice (from the end when reversed) and writes row t of each
//   scan output; opset 8's batched form runs the same loop per batch entry.
// Nothing is unrolled here: a later pass may unroll small loops.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

#include "Common/ArrayLowering.h"
#include "Onnx/OnnxWhile.h"

#include "kiln/IR/Module.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>

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

/// A computed condition: both branches become computations and a
/// `conditional` runs the one taken. Each branch's operand is the tuple of
/// the outer values it reads.
std::optional<std::vector<Value>> conditionalBranches(OnnxNodeContext &ctx,
                                                      Value condition) {
  GraphBuilder &b = ctx.builder();
  std::optional<OnnxNodeContext::Subgraph> onTrue =
      ctx.buildSubgraph("then_branch", {}, "then");
  if (!onTrue)
    return std::nullopt;
  std::optional<OnnxNodeContext::Subgraph> onFalse =
      ctx.buildSubgraph("else_branch", {}, "else");
  if (!onFalse)
    return std::nullopt;
  const std::vector<ir::Shape> &a = onTrue->outputShapes,
                               &c = onFalse->outputShapes;
  if (a.size() != c.size()) {
    ctx.fail(fmt::format("then_branch has {} outputs but else_branch has {}",
                         a.size(), c.size()));
    return std::nullopt;
  }
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != c[i]) {
      ctx.fail(fmt::format(
          "the condition depends on graph inputs and output {} is {} in "
          "then_branch but {} in else_branch; an ahead-of-time compiler needs "
          "one static type per value (make the condition a constant, e.g. "
          "with --shape)",
          i, a[i].toString(), c[i].toString()));
      return std::nullopt;
    }
  Value result = b.addCalling(
      ir::Opcode::Conditional,
      {condition, b.tuple(onTrue->captures), b.tuple(onFalse->captures)},
      {onTrue->computation, onFalse->computation});
  if (!result)
    return std::nullopt;
  return b.tupleElements(result);
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
  if (std::optional<std::vector<Value>> taken =
          conditionalBranches(ctx, condition))
    setOutputs(ctx, *taken);
}

// --- Loop and Scan -------------------------------------------------------------

/// Runs `callee` (a buildSubgraph computation) on `inputs` then its
/// captures, all values of the computation `b` builds; its outputs.
std::vector<Value> callSubgraph(GraphBuilder &b,
                                const OnnxNodeContext::Subgraph &callee,
                                std::vector<Value> inputs,
                                const std::vector<Value> &captures) {
  inputs.insert(inputs.end(), captures.begin(), captures.end());
  Value result = b.addCalling(ir::Opcode::Call, {b.tuple(std::move(inputs))},
                              {callee.computation});
  return b.tupleElements(result);
}

/// The elements [first, first + count) of `values`.
std::vector<Value> range(const std::vector<Value> &values, size_t first,
                         size_t count) {
  return {values.begin() + long(first), values.begin() + long(first + count)};
}

/// True when the body's condition output is the condition it was given
/// (Identity(cond_in)) or constant true: the loop then runs all M
/// iterations when it starts.
bool conditionStaysTrue(const OnnxNodeContext::Subgraph &body) {
  Value out = body.computation->root()->operand(0);
  while (out->opcode() == ir::Opcode::Reshape)
    out = out->operand(0);
  if (std::optional<std::vector<int64_t>> known = GraphBuilder::constantInts(out))
    return !known->empty() && known->front() != 0;
  return out->opcode() == ir::Opcode::GetTupleElement &&
         out->attrs().index == 1 &&
         out->operand(0)->opcode() == ir::Opcode::Parameter;
}

/// Loop's while state: iteration, trip count, condition, carried values,
/// scan-output buffers, captures.
struct LoopLayout {
  size_t carried = 0, scans = 0, captures = 0;
  /// Without a cond input ONNX ignores the condition the body computes.
  bool bodyCondition = true;
  size_t carriedAt() const { return 3; }
  size_t scansAt() const { return 3 + carried; }
  size_t capturesAt() const { return 3 + carried + scans; }
};

/// The while body of a Loop: calls the ONNX body, writes the scan outputs
/// at the iteration's row, counts.
ir::Computation *buildLoopBody(OnnxNodeContext &ctx,
                               const OnnxNodeContext::Subgraph &body,
                               const ir::Shape &state, LoopLayout layout) {
  GraphBuilder &b = ctx.builder();
  ir::Computation *computation = newComputation(b, ctx.name() + ".loop");
  GraphBuilder c(*computation);
  c.setSourceNode(ctx.name());
  std::vector<Value> s =
      c.tupleElements(c.parameter(0, state, computation->name() + ".state"));
  std::vector<Value> inputs = {s[0], s[2]};
  for (Value v : range(s, layout.carriedAt(), layout.carried))
    inputs.push_back(v);
  std::vector<Value> out = callSubgraph(
      c, body, inputs, range(s, layout.capturesAt(), layout.captures));
  std::vector<Value> next = {
      c.binary(ir::Opcode::Add, s[0], c.scalar(ir::DType::S64, 1)), s[1],
      layout.bodyCondition ? c.reshape(out[0], {}) : s[2]};
  for (size_t i = 0; i < layout.carried; ++i)
    next.push_back(out[1 + i]);
  for (size_t k = 0; k < layout.scans; ++k)
    next.push_back(writeEntry(c, s[layout.scansAt() + k],
                              out[1 + layout.carried + k], 0, s[0]));
  for (Value v : range(s, layout.capturesAt(), layout.captures))
    next.push_back(v);
  return finish(b, c, *computation, c.tuple(next)) ? computation : nullptr;
}

void lowerLoop(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value condition = ctx.hasInput(1) ? b.reshape(ctx.input(1), {})
                                    : b.scalar(ir::DType::Pred, 1);
  LoopLayout layout;
  std::vector<Value> carried;
  std::vector<ir::Shape> inputShapes = {ir::Shape::scalar(ir::DType::S64),
                                        ir::Shape::scalar(ir::DType::Pred)};
  for (size_t i = 2; i < ctx.inputCount(); ++i) {
    carried.push_back(ctx.input(i));
    if (!carried.back())
      return;
    inputShapes.push_back(carried.back()->shape());
  }
  layout.carried = carried.size();
  layout.bodyCondition = ctx.hasInput(1);
  std::optional<OnnxNodeContext::Subgraph> body =
      ctx.buildSubgraph("body", inputShapes, "body");
  if (!body)
    return;
  if (body->outputShapes.size() < 1 + layout.carried)
    return void(ctx.fail(fmt::format(
        "the body has {} outputs but the loop carries {} values besides the "
        "condition",
        body->outputShapes.size(), layout.carried)));
  for (size_t i = 0; i < layout.carried; ++i)
    if (body->outputShapes[1 + i] != inputShapes[2 + i])
      return void(ctx.fail(fmt::format(
          "loop-carried value {} enters the body as {} but leaves it as {}; "
          "a compiled loop keeps one static type per value",
          i, inputShapes[2 + i].toString(),
          body->outputShapes[1 + i].toString())));
  layout.scans = body->outputShapes.size() - 1 - layout.carried;
  layout.captures = body->captures.size();

  // Scan outputs have one row per iteration: a static shape needs M known
  // and a condition that cannot stop the loop early.
  Value tripCount = ctx.hasInput(0) ? b.reshape(ctx.input(0), {})
                                    : b.scalar(ir::DType::S64, double(INT64_MAX));
  std::optional<int64_t> rows;
  if (layout.scans > 0) {
    std::optional<std::vector<int64_t>> m =
        ctx.hasInput(0)
            ? ctx.constantInts(0, "M, the trip count: the loop has scan "
                                  "outputs, whose length is M")
            : std::nullopt;
    if (!m) {
      if (!ctx.hasInput(0))
        ctx.fail("the loop has scan outputs but no trip count M: their "
                 "length would depend on input values");
      return;
    }
    if (!GraphBuilder::constantInts(condition) &&
        !ctx.constantInts(1, "cond: the loop has scan outputs, whose length "
                             "would depend on it"))
      return;
    if (layout.bodyCondition && !conditionStaysTrue(*body))
      return void(ctx.fail(
          "the loop has scan outputs and the body computes its condition "
          "from data, so their length would depend on input values; an "
          "ahead-of-time compiler needs one static shape per value"));
    rows = m->empty() ? 0 : std::max<int64_t>(0, m->front());
    if (GraphBuilder::constantInts(condition)->front() == 0)
      rows = 0;
  }
  std::optional<std::vector<int64_t>> knownTrips =
      GraphBuilder::constantInts(tripCount);
  std::optional<std::vector<int64_t>> knownCondition =
      GraphBuilder::constantInts(condition);
  if ((knownTrips && knownTrips->front() <= 0) ||
      (knownCondition && knownCondition->front() == 0) || rows == 0) {
    // Runs no iteration: the carried values as given, empty scan outputs.
    for (size_t i = 0; i < layout.carried; ++i)
      ctx.setOutput(i, carried[i]);
    for (size_t k = 0; k < layout.scans; ++k)
      ctx.setOutput(layout.carried + k,
                    zeroBuffer(b, body->outputShapes[1 + layout.carried + k],
                               0, 0));
    return;
  }

  std::vector<Value> init = {b.scalar(ir::DType::S64, 0),
                             b.convert(tripCount, ir::DType::S64), condition};
  init.insert(init.end(), carried.begin(), carried.end());
  for (size_t k = 0; k < layout.scans; ++k)
    init.push_back(zeroBuffer(b, body->outputShapes[1 + layout.carried + k],
                              *rows, 0));
  init.insert(init.end(), body->captures.begin(), body->captures.end());
  Value start = b.tuple(init);
  if (!start)
    return;
  ir::Computation *cond =
      buildCondition(ctx, start->shape(), 1, 0, int64_t(2));
  ir::Computation *step =
      cond ? buildLoopBody(ctx, *body, start->shape(), layout) : nullptr;
  if (!step)
    return;
  std::vector<Value> final =
      b.tupleElements(b.addCalling(ir::Opcode::While, {start}, {cond, step}));
  if (!b.ok())
    return;
  for (size_t i = 0; i < layout.carried + layout.scans; ++i)
    ctx.setOutput(i, final[layout.carriedAt() + i]);
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

/// A Scan compiled once and run per batch entry (opset 8) or once: the
/// ONNX body, the while's condition and body computations.
struct ScanLoop {
  ScanSpec spec;
  int64_t length = 0;
  size_t states = 0, sequences = 0;
  std::optional<OnnxNodeContext::Subgraph> body;
  ir::Computation *condition = nullptr, *step = nullptr;
};

/// The while body of a Scan: reads row t of each scan input (from the end
/// when reversed), calls the ONNX body, writes row t of each scan output.
/// State: t, states..., scan-output buffers..., scan inputs..., captures.
ir::Computation *buildScanBody(OnnxNodeContext &ctx, const ScanLoop &loop,
                               const ir::Shape &state) {
  GraphBuilder &b = ctx.builder();
  ir::Computation *computation = newComputation(b, ctx.name() + ".scan");
  GraphBuilder c(*computation);
  c.setSourceNode(ctx.name());
  std::vector<Value> s =
      c.tupleElements(c.parameter(0, state, computation->name() + ".state"));
  Value t = s[0];
  Value back = c.binary(ir::Opcode::Subtract,
                        c.scalar(ir::DType::S64, double(loop.length - 1)), t);
  size_t outputs = loop.spec.scanOutputs;
  size_t sequencesAt = 1 + loop.states + outputs;
  size_t capturesAt = sequencesAt + loop.sequences;
  std::vector<Value> inputs = range(s, 1, loop.states);
  for (size_t j = 0; j < loop.sequences; ++j)
    inputs.push_back(readEntry(c, s[sequencesAt + j], loop.spec.inAxes[j],
                               loop.spec.inDirections[j] ? back : t));
  std::vector<Value> out = callSubgraph(
      c, *loop.body, inputs, range(s, capturesAt, s.size() - capturesAt));
  std::vector<Value> next = {
      c.binary(ir::Opcode::Add, t, c.scalar(ir::DType::S64, 1))};
  for (size_t i = 0; i < loop.states; ++i)
    next.push_back(out[i]);
  for (size_t k = 0; k < outputs; ++k)
    next.push_back(writeEntry(c, s[1 + loop.states + k], out[loop.states + k],
                              loop.spec.outAxes[k],
                              loop.spec.outDirections[k] ? back : t));
  for (size_t i = sequencesAt; i < s.size(); ++i)
    next.push_back(s[i]);
  return finish(b, c, *computation, c.tuple(next)) ? computation : nullptr;
}

/// Checks the scan inputs' axes and common length and lowers the body;
/// the while computations are built on first run (they need the state).
bool prepareScan(OnnxNodeContext &ctx, ScanLoop &loop,
                 const std::vector<Value> &states,
                 const std::vector<Value> &sequences) {
  loop.states = states.size();
  loop.sequences = sequences.size();
  loop.length = -1;
  std::vector<ir::Shape> inputShapes;
  for (Value state : states)
    inputShapes.push_back(state->shape());
  for (size_t j = 0; j < sequences.size(); ++j) {
    const ir::Shape &shape = sequences[j]->shape();
    std::optional<int64_t> axis = normalizeAxis(loop.spec.inAxes[j], shape.rank());
    if (!axis) {
      ctx.fail(fmt::format("scan input {} has no axis {}", j,
                           loop.spec.inAxes[j]));
      return false;
    }
    loop.spec.inAxes[j] = *axis;
    int64_t n = shape.dim(size_t(*axis));
    if (loop.length >= 0 && n != loop.length) {
      ctx.fail(fmt::format(
          "scan inputs have different sequence lengths ({} and {})",
          loop.length, n));
      return false;
    }
    loop.length = n;
    std::vector<int64_t> dims = shape.dims();
    dims.erase(dims.begin() + *axis);
    inputShapes.push_back(ir::Shape(shape.dtype(), dims));
  }
  loop.body = ctx.buildSubgraph("body", inputShapes, "body");
  if (!loop.body)
    return false;
  if (loop.body->outputShapes.size() != loop.states + loop.spec.scanOutputs) {
    ctx.fail(fmt::format("the body has {} outputs but the node expects {} "
                         "states and {} scan outputs",
                         loop.body->outputShapes.size(), loop.states,
                         loop.spec.scanOutputs));
    return false;
  }
  for (size_t i = 0; i < loop.states; ++i)
    if (loop.body->outputShapes[i] != inputShapes[i]) {
      ctx.fail(fmt::format("state {} enters the body as {} but leaves it as "
                           "{}; a compiled loop keeps one static type per "
                           "value",
                           i, inputShapes[i].toString(),
                           loop.body->outputShapes[i].toString()));
      return false;
    }
  for (size_t k = 0; k < loop.spec.scanOutputs; ++k) {
    int64_t rank = loop.body->outputShapes[loop.states + k].rank() + 1;
    std::optional<int64_t> axis = normalizeAxis(loop.spec.outAxes[k], rank);
    if (!axis) {
      ctx.fail(fmt::format("scan output {} has no axis {}", k,
                           loop.spec.outAxes[k]));
      return false;
    }
    loop.spec.outAxes[k] = *axis;
  }
  return true;
}

/// One run of a prepared scan: the final states, then each scan output.
std::optional<std::vector<Value>> runScan(OnnxNodeContext &ctx, ScanLoop &loop,
                                          const std::vector<Value> &states,
                                          const std::vector<Value> &sequences) {
  GraphBuilder &b = ctx.builder();
  size_t outputs = loop.spec.scanOutputs;
  std::vector<Value> buffers;
  for (size_t k = 0; k < outputs; ++k)
    buffers.push_back(zeroBuffer(b, loop.body->outputShapes[loop.states + k],
                                 loop.length, loop.spec.outAxes[k]));
  if (loop.length == 0) {
    std::vector<Value> results = states;
    results.insert(results.end(), buffers.begin(), buffers.end());
    return results;
  }
  std::vector<Value> init = {b.scalar(ir::DType::S64, 0)};
  init.insert(init.end(), states.begin(), states.end());
  init.insert(init.end(), buffers.begin(), buffers.end());
  init.insert(init.end(), sequences.begin(), sequences.end());
  init.insert(init.end(), loop.body->captures.begin(),
              loop.body->captures.end());
  Value start = b.tuple(init);
  if (!start)
    return std::nullopt;
  if (!loop.step) {
    loop.condition = buildCondition(ctx, start->shape(), std::nullopt,
                                    loop.length, std::nullopt);
    loop.step = loop.condition ? buildScanBody(ctx, loop, start->shape())
                               : nullptr;
    if (!loop.step)
      return std::nullopt;
  }
  std::vector<Value> final = b.tupleElements(
      b.addCalling(ir::Opcode::While, {start}, {loop.condition, loop.step}));
  if (!b.ok())
    return std::nullopt;
  return range(final, 1, loop.states + outputs);
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
  if (!ctx.builder().ok())
    return;
  ScanLoop loop;
  loop.spec = spec;
  if (!prepareScan(ctx, loop, states, sequences))
    return;
  if (std::optional<std::vector<Value>> results =
          runScan(ctx, loop, states, sequences))
    setOutputs(ctx, *results);
}

/// Opset 8: input 0 is the optional sequence_lens, and states and scan
/// inputs carry a leading batch dimension (scan inputs scan along axis 1).
/// Each batch entry runs the same compiled loop; the results are stacked.
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
  if (batch == 0)
    return void(ctx.fail("the scan has an empty batch"));
  ScanLoop loop;
  loop.spec = spec;
  std::vector<std::vector<Value>> perBatch;
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<Value> states, sequences;
    for (size_t i = 0; i < stateCount + scanCount; ++i) {
      Value entry = squeezeDims(b, b.sliceDim(data[i], 0, n, n + 1), {0});
      (i < stateCount ? states : sequences).push_back(entry);
    }
    if (n == 0 && !prepareScan(ctx, loop, states, sequences))
      return;
    std::optional<std::vector<Value>> results =
        runScan(ctx, loop, states, sequences);
    if (!results)
      return;
    perBatch.push_back(std::move(*results));
  }
  std::vector<Value> stacked;
  for (size_t k = 0; k < perBatch.front().size(); ++k) {
    std::vector<Value> entries;
    for (const std::vector<Value> &results : perBatch)
      entries.push_back(unsqueezeDims(b, results[k], {0}));
    stacked.push_back(b.concatenate(entries, 0));
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
