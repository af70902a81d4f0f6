//===- DeadCodeElimination.cpp - The `dce` pass ----------------------------===//
//
// Removes every instruction the root of its computation does not need, and
// every fused computation no fusion calls any more. Parameters stay even
// when unused: they are the model's arguments (the C ABI), and a fused
// computation's parameters match its fusion's operands.
//
//===----------------------------------------------------------------------===//
#include "TransformUtils.h"

#include "kiln/Transforms/Passes.h"

namespace kiln {

namespace {
class DeadCodeEliminationPass final : public Pass {
public:
  std::string_view name() const override { return "dce"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    // Verified computations keep users after their operands, which is
    // what the backward removal walk relies on.
    for (ir::Computation *computation : module.computations())
      changed |= computation->removeDeadInstructions();
    changed |= transforms::removeUncalledComputations(module);
    return changed;
  }
};
} // namespace

std::unique_ptr<Pass> createDeadCodeEliminationPass() {
  return std::make_unique<DeadCodeEliminationPass>();
}

} // namespace kiln
