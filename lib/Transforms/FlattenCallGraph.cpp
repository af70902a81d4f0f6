//===- FlattenCallGraph.cpp - One call site per run-whole computation -----===//
//
// Text may run one computation from several places (two loops sharing a
// condition, one branch for several indices). Buffer assignment gives each
// such computation's values slices inside its caller's arena block, so
// every computation run by while or conditional needs exactly one call
// site: each extra site gets a clone. Fused computations may stay shared
// (each fusion's kernel is generated on its own).
//
//===----------------------------------------------------------------------===//
#include "kiln/IR/CallGraph.h"
#include "kiln/Transforms/Passes.h"

#include <unordered_map>

namespace kiln {

using ir::Instruction;

namespace {

/// A copy of `original` added to `module` just before it, with fresh names.
ir::Computation *cloneComputation(ir::Module &module,
                                  const ir::Computation &original) {
  auto clone =
      std::make_unique<ir::Computation>(module.uniqueName(original.name()));
  std::unordered_map<const Instruction *, Instruction *> copies;
  for (Instruction *instruction : original.instructions()) {
    std::vector<Instruction *> operands;
    for (Instruction *operand : instruction->operands())
      operands.push_back(copies.at(operand));
    Instruction *copy = clone->add(instruction->opcode(), instruction->shape(),
                                   std::move(operands), instruction->attrs(),
                                   instruction->name());
    copy->setLiteral(instruction->literal());
    copy->setSourceNode(instruction->sourceNode());
    copy->setCalledComputations(instruction->calledComputations());
    copies[instruction] = copy;
  }
  clone->setRoot(copies.at(original.root()));
  return module.addComputationBefore(std::move(clone), &original);
}

class FlattenCallGraphPass final : public Pass {
public:
  std::string_view name() const override { return "flatten-call-graph"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    // Cloning a caller shares its callees anew, so repeat until every
    // run-whole computation has one site (bounded by the call depth).
    for (bool again = true; again;) {
      again = false;
      Expected<ir::CallGraph> graph = ir::CallGraph::build(module);
      if (!graph)
        return graph.takeError();
      for (ir::Computation *computation : module.computations()) {
        if (graph->context(*computation) != ir::CallContext::Sequential)
          continue;
        const std::vector<ir::CallSite> &sites = graph->callSites(*computation);
        for (size_t i = 1; i < sites.size(); ++i) {
          auto *caller = const_cast<Instruction *>(sites[i].caller);
          std::vector<ir::Computation *> callees = caller->calledComputations();
          callees[sites[i].slot] = cloneComputation(module, *computation);
          caller->setCalledComputations(std::move(callees));
          again = changed = true;
        }
      }
    }
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createFlattenCallGraphPass() {
  return std::make_unique<FlattenCallGraphPass>();
}

} // namespace kiln
