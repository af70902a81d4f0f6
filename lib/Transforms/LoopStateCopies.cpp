//===- LoopStateCopies.cpp - Keep loop state updates order-free -----------===//
//
// A while's state lives in one slice per element, shared by the body's
// parameter: at the end of each iteration, code generation copies root
// element j of the body into slice j. A root element that is another state
// element i (a swap, a rotation) would then read slice i after an earlier
// copy overwrote it. Such elements get an explicit `copy` in the body,
// computed before any state slice is written. Every other root element is
// safe: a body value lives in the body's own arena block, and element j
// returned as it is needs no copy at all.
//
// A conditional's branch parameter reads its operand's slices directly, so
// an operand element that is a constant (which has no slice, only a global
// that code generation finds from the constant instruction itself) gets a
// `copy` into the arena before the conditional.
//
//===----------------------------------------------------------------------===//
#include "kiln/Transforms/Passes.h"

namespace kiln {

using ir::Instruction;
using ir::Opcode;

namespace {

/// The state element `value` forwards unchanged (the parameter itself for
/// an array state, get-tuple-element of it for a tuple), or -2 if none.
int64_t forwardedStateElement(const Instruction &value,
                              const Instruction &parameter) {
  if (&value == &parameter)
    return -1;
  if (value.opcode() == Opcode::GetTupleElement && value.operand(0) == &parameter)
    return value.attrs().index;
  return -2;
}

/// Copies the root elements of `body` that forward another state element.
bool copyMovedStateElements(ir::Computation &body) {
  Instruction *parameter = body.parameter(0);
  Instruction *root = body.root();
  if (!parameter || root->opcode() != Opcode::Tuple)
    return false;
  bool changed = false;
  for (size_t j = 0; j < root->operandCount(); ++j) {
    Instruction *element = root->operand(j);
    int64_t forwarded = forwardedStateElement(*element, *parameter);
    if (forwarded == -2 || forwarded == int64_t(j))
      continue;
    Instruction *copy =
        body.add(Opcode::Copy, element->shape(), {element}, {},
                 element->name() + ".state");
    root->setOperand(j, copy);
    changed = true;
  }
  if (changed)
    body.sortTopologically();
  return changed;
}

/// Copies the constant elements of `conditional`'s branch operands.
bool copyConstantBranchOperands(ir::Computation &computation,
                                Instruction &conditional) {
  auto copyOf = [&](Instruction *constant) {
    return computation.add(Opcode::Copy, constant->shape(), {constant}, {},
                           constant->name() + ".operand");
  };
  bool changed = false;
  for (size_t k = 1; k < conditional.operandCount(); ++k) {
    Instruction *operand = conditional.operand(k);
    if (operand->opcode() == Opcode::Constant) {
      conditional.setOperand(k, copyOf(operand));
      changed = true;
    } else if (operand->opcode() == Opcode::Tuple) {
      for (size_t i = 0; i < operand->operandCount(); ++i)
        if (operand->operand(i)->opcode() == Opcode::Constant) {
          operand->setOperand(i, copyOf(operand->operand(i)));
          changed = true;
        }
    }
  }
  return changed;
}

class LoopStateCopiesPass final : public Pass {
public:
  std::string_view name() const override { return "loop-state-copies"; }
  Expected<bool> run(ir::Module &module) override {
    bool changed = false;
    for (ir::Computation *computation : module.computations()) {
      bool added = false;
      for (Instruction *instruction : computation->instructions()) {
        if (instruction->opcode() == Opcode::While)
          changed |= copyMovedStateElements(*instruction->calledComputations()[1]);
        else if (instruction->opcode() == Opcode::Conditional)
          added |= copyConstantBranchOperands(*computation, *instruction);
      }
      if (added)
        computation->sortTopologically();
      changed |= added;
    }
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createLoopStateCopiesPass() {
  return std::make_unique<LoopStateCopiesPass>();
}

} // namespace kiln
