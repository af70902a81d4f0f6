//===- AlgebraicSimplifier.cpp - The `algebraic-simplifier` pass ----------===//
//
// Sweeps every computation in instruction order and replaces an
// instruction by what the first matching rule returns (rules live in
// SimplifierRules.h's tables), then drops what became dead and sweeps again
// until nothing changes, since one rewrite often enables the next (a sunk
// transpose meets the next one only after both moved).
//
// In fused computations the root is never replaced: a fusion whose root
// is a parameter or a constant is not something code generation expects,
// and simplifying its inner instructions already gets the benefit.
//
//===----------------------------------------------------------------------===//
#include "SimplifierRules.h"
#include "TransformUtils.h"

#include "kiln/Transforms/Passes.h"

namespace kiln {

namespace {
using ir::Instruction;
using transforms::RuleRow;

/// More sweeps than any chain of rewrites seen in practice needs; the
/// bound only guards against a rule pair undoing each other.
constexpr int kMaxSweeps = 64;

Instruction *applyRules(Instruction &instruction) {
  for (std::span<const RuleRow> table :
       {transforms::arithmeticRules(), transforms::layoutRules(),
        transforms::padFoldingRules(), transforms::transposeReshapeRules(),
        transforms::transposeReductionRules(), transforms::transposeGatherRules()})
    for (const RuleRow &row : table)
      if (row.opcode == instruction.opcode())
        if (Instruction *replacement = row.rule(instruction))
          return replacement;
  return transforms::sinkTranspose(instruction);
}

bool isLive(const Instruction &instruction) {
  return !instruction.users().empty() ||
         instruction.parent()->root() == &instruction;
}

bool sweep(ir::Computation &computation, bool isEntry) {
  bool changed = false;
  for (Instruction *instruction : computation.instructions()) {
    if (!isLive(*instruction))
      continue; // replaced earlier in this sweep
    if (!isEntry && computation.root() == instruction)
      continue;
    Instruction *replacement = applyRules(*instruction);
    if (!replacement || replacement == instruction)
      continue;
    assert(replacement->shape() == instruction->shape() &&
           "a rule changed the shape of a value");
    instruction->replaceAllUsesWith(replacement);
    changed = true;
  }
  if (changed) {
    // New instructions were appended after their users.
    computation.sortTopologically();
    computation.removeDeadInstructions();
  }
  return changed;
}

class AlgebraicSimplifierPass final : public Pass {
public:
  std::string_view name() const override { return "algebraic-simplifier"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (ir::Computation *computation : module.computations()) {
      bool isEntry = computation == module.entry();
      int sweeps = 0;
      while (sweep(*computation, isEntry)) {
        changed = true;
        if (++sweeps == kMaxSweeps)
          break;
      }
    }
    return changed;
  }
};
} // namespace

std::unique_ptr<Pass> createAlgebraicSimplifierPass() {
  return std::make_unique<AlgebraicSimplifierPass>();
}

} // namespace kiln
