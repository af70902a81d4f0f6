//===- Pipeline.cpp - The default optimization pipeline --------------------===//
//
// What `kiln compile` and the JIT path of `kiln run` run on every imported
// module before buffer assignment (`kiln run --reference` does not, so the
// evaluator stays an independent oracle of the unoptimized module).
//
//===----------------------------------------------------------------------===//
#include "kiln/Transforms/Passes.h"

#include "kiln/IR/Verifier.h"

#include <functional>

namespace kiln {

namespace {
/// Runs its passes in order, again and again until a whole round changes
/// nothing or `maxRounds` rounds ran. Each pass enables the others (folding
/// makes identities visible, simplification makes duplicates and dead code,
/// CSE makes more folding possible), so one round is rarely enough.
class FixedPointPass final : public Pass {
public:
  FixedPointPass(std::string name, std::vector<std::unique_ptr<Pass>> passes,
                 int maxRounds)
      : name_(std::move(name)), passes_(std::move(passes)),
        maxRounds_(maxRounds) {}
  std::string_view name() const override { return name_; }
  Expected<bool> run(ir::Module &module) override {
    bool everChanged = false;
    for (int round = 0; round < maxRounds_; ++round) {
      bool changed = false;
      for (const std::unique_ptr<Pass> &pass : passes_) {
        Expected<bool> passChanged = pass->run(module);
        if (!passChanged)
          return makeError("pass '{}' failed: {}", pass->name(),
                           passChanged.errorMessage());
        if (!*passChanged)
          continue;
        // Pin a broken module on the inner pass that broke it.
        if (Error error = ir::verifyModule(module))
          return makeError("module is invalid after pass '{}': {}",
                           pass->name(), error.message());
        changed = true;
      }
      everChanged |= changed;
      if (!changed)
        break;
    }
    return everChanged;
  }

private:
  std::string name_;
  std::vector<std::unique_ptr<Pass>> passes_;
  int maxRounds_;
};

/// Enough for every model seen so far to reach the fixed point (most need
/// two or three rounds); the bound keeps compile time predictable.
constexpr int kMaxRounds = 8;

std::unique_ptr<Pass> createSimplificationLoop() {
  std::vector<std::unique_ptr<Pass>> passes;
  // Fold first: importers leave weight arithmetic (dequantization, kernel
  // transposes) that turns into plain constants the rules can match.
  passes.push_back(createConstantFoldingPass());
  // Identities, no-op data movement, and transpose sinking so NCHW<->NHWC
  // transpose pairs around convolutions cancel.
  passes.push_back(createAlgebraicSimplifierPass());
  // Importers repeat subgraphs (broadcast constants per use, shape
  // arithmetic); merging them exposes more folding and frees arena bytes.
  passes.push_back(createCommonSubexpressionEliminationPass());
  // Drop what the rewrites above left unused before the next round, so
  // use counts (which transpose sinking relies on) are exact.
  passes.push_back(createDeadCodeEliminationPass());
  // Loops, inside the fixed point: constants sunk into a body fold there,
  // folding can give a loop a trip count of 0 or 1, and a hoisted value may
  // fold to a constant the simplifier then sinks. After dce, so use counts
  // and the state elements' readers are exact.
  passes.push_back(createWhileLoopSimplifierPass());
  passes.push_back(createLoopInvariantCodeMotionPass());
  return std::make_unique<FixedPointPass>("simplify", std::move(passes),
                                          kMaxRounds);
}

/// A PassManager as one pass, reporting whether any of its passes changed
/// the module.
class PipelinePass final : public Pass {
public:
  PipelinePass(std::string name,
               const std::function<void(PassManager &)> &build)
      : name_(std::move(name)) {
    build(manager_);
    manager_.setAfterPassHook(
        [this](std::string_view, const ir::Module &, bool changed) {
          changed_ |= changed;
        });
  }
  std::string_view name() const override { return name_; }
  Expected<bool> run(ir::Module &module) override {
    changed_ = false;
    if (Error error = manager_.run(module))
      return error;
    return changed_;
  }

private:
  std::string name_;
  PassManager manager_;
  bool changed_ = false;
};

} // namespace

std::unique_ptr<Pass> createLowerCallsPass() {
  return std::make_unique<PipelinePass>("lower-calls", buildCallLowering);
}

void buildCallLowering(PassManager &manager) {
  // Calls first: the copies may share the computations they run.
  manager.addPass(createInlineCallsPass());
  manager.addPass(createFlattenCallGraphPass());
  // Last: rewrites before it may turn a root element into another state
  // element (x * 1 -> x).
  manager.addPass(createLoopStateCopiesPass());
}

Error runCallLowering(ir::Module &module) {
  PassManager manager;
  buildCallLowering(manager);
  return manager.run(module);
}

std::unique_ptr<Pass> createDefaultPipelinePass() {
  return std::make_unique<PipelinePass>(
      "default-pipeline", [](PassManager &manager) {
        buildDefaultPipeline(manager);
      });
}

void buildDefaultPipeline(PassManager &manager,
                          const PipelineOptions &options) {
  // Reject a broken input before any rewrite sees it.
  manager.addPass(createVerifyPass());
  manager.addPass(createSimplificationLoop());
  // After the fixed point, where transpose sinking cannot undo it.
  manager.addPass(createTransposeHoistingPass());
  // After the fixed point: the simplifier's rules match the consumers as
  // separate instructions (and would not look inside a fusion).
  if (options.fusion) {
    manager.addPass(createOutputFusionPass());
    // After output fusion, so contractions keep their epilogues; loop and
    // input fusions then take the element ops and reductions left.
    manager.addPass(createInstructionFusionPass());
    // Expensive values `fusion` would not duplicate, with their consumers.
    manager.addPass(createMultiOutputFusionPass());
  }
  buildCallLowering(manager);
  // Code generation relies on a verified module; cheap next to codegen.
  manager.addPass(createVerifyPass());
}

Error runDefaultPipeline(ir::Module &module, const PipelineOptions &options) {
  PassManager manager;
  buildDefaultPipeline(manager, options);
  return manager.run(module);
}

} // namespace kiln
