//===- WhileUnroll.cpp - Unroll small counted loops -----------------------===//
//
// Importers emit every loop as a `while` (the object then does not grow
// with the trip count). For a short loop with a small body the loop's own
// overhead (the condition, a branch, state copies) can cost more than the
// body, so this pass replaces a while whose trip count is known
// (analysis::whileTripCount: every run runs the body that often) by that
// many calls of its body in a row, which inline-calls then flattens. The
// limits are XLA's WhileLoopUnroller defaults for full unrolling: at most
// 64 iterations, 800 body instructions and 10000 instructions in all.
//
// Opt-in (`kiln opt --passes=while-unroll`), not in the default pipeline:
// the default keeps every loop a loop, as the ONNX conformance runner
// checks.
//
//===----------------------------------------------------------------------===//
#include "TransformUtils.h"
#include "kiln/Analysis/TripCount.h"
#include "kiln/Transforms/Passes.h"

namespace kiln {

using ir::Instruction;
using ir::Opcode;

namespace {

constexpr int64_t kMaxTrips = 64;
constexpr int64_t kMaxBodyInstructions = 800;
constexpr int64_t kMaxUnrolledInstructions = 10000;

/// Whether `loop` is short and small enough to unroll fully.
std::optional<int64_t> unrollableTrips(const Instruction &loop) {
  std::optional<int64_t> trips = analysis::whileTripCount(loop);
  if (!trips || *trips > kMaxTrips)
    return std::nullopt;
  int64_t body = int64_t(loop.calledComputations().at(1)->instructionCount());
  if (body > kMaxBodyInstructions || body * *trips > kMaxUnrolledInstructions)
    return std::nullopt;
  return trips;
}

/// Replaces every small counted while of `computation` by calls of its
/// body; returns whether there was one.
bool unrollIn(ir::Computation &computation) {
  bool changed = false;
  for (Instruction *loop : computation.instructions()) {
    if (loop->opcode() != Opcode::While)
      continue;
    std::optional<int64_t> trips = unrollableTrips(*loop);
    if (!trips)
      continue;
    ir::Computation *body = loop->calledComputations()[1];
    Instruction *state = loop->operand(0);
    for (int64_t k = 0; k < *trips; ++k) {
      state = computation.add(Opcode::Call, loop->shape(), {state});
      state->setCalledComputation(body);
      state->setSourceNode(loop->sourceNode());
    }
    loop->replaceAllUsesWith(state);
    if (computation.root() == loop)
      computation.setRoot(state);
    computation.removeInstruction(loop);
    changed = true;
  }
  if (changed)
    computation.sortTopologically();
  return changed;
}

class WhileUnrollPass final : public Pass {
public:
  std::string_view name() const override { return "while-unroll"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (ir::Computation *computation : module.computations())
      changed |= unrollIn(*computation);
    if (changed)
      transforms::removeUncalledComputations(module);
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createWhileUnrollPass() {
  return std::make_unique<WhileUnrollPass>();
}

} // namespace kiln
