//===- InlineCalls.cpp - Replace each call by a copy of its callee --------===//
//
// `call` exists in text (XLA prints it) but not in code generation: each
// one becomes a copy of its callee's instructions in the caller, the
// callee's parameters replaced by the call's operands. The copy of the
// callee's root takes the call's name, so values keep the names users know.
// Callees are copied as they are, calls inside them included, so the pass
// repeats until no call is left (the call graph is acyclic and bounded in
// depth, so this ends).
//
//===----------------------------------------------------------------------===//
#include "TransformUtils.h"
#include "kiln/Transforms/Passes.h"

#include <algorithm>

namespace kiln {

using ir::Instruction;
using ir::Opcode;

namespace {

/// Inlines every call of `computation`; returns whether there was one.
bool inlineCallsIn(ir::Computation &computation) {
  bool changed = false;
  for (Instruction *call : computation.instructions()) {
    if (call->opcode() != Opcode::Call)
      continue;
    std::vector<Instruction *> arguments = call->operands();
    Instruction *result =
        transforms::copyComputationInto(computation, *call->calledComputation(),
                                      arguments);
    call->replaceAllUsesWith(result);
    if (computation.root() == call)
      computation.setRoot(result);
    std::string name = call->name();
    computation.removeInstruction(call);
    // An argument returned as it is keeps its own name.
    if (std::find(arguments.begin(), arguments.end(), result) ==
        arguments.end())
      result->setName(name);
    changed = true;
  }
  if (changed)
    computation.sortTopologically();
  return changed;
}

class InlineCallsPass final : public Pass {
public:
  std::string_view name() const override { return "inline-calls"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (bool again = true; again;) {
      again = false;
      for (ir::Computation *computation : module.computations())
        again |= inlineCallsIn(*computation);
      changed |= again;
    }
    if (changed)
      transforms::removeUncalledComputations(module);
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createInlineCallsPass() {
  return std::make_unique<InlineCallsPass>();
}

} // namespace kiln
