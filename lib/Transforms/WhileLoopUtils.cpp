//===- WhileLoopUtils.cpp - Pieces shared by the loop passes --------------===//
#include "WhileLoopUtils.h"

#include "TransformUtils.h"

namespace kiln::transforms {

using ir::Instruction;
using ir::Opcode;

namespace {
/// How many instruction slots of the module call `callee`.
size_t callCount(const ir::Module &module, const ir::Computation &callee) {
  size_t count = 0;
  for (const ir::Computation *computation : module.computations())
    for (const Instruction *instruction : computation->instructions())
      for (const ir::Computation *called : instruction->calledComputations())
        count += called == &callee;
  return count;
}
} // namespace

bool ownsTupleLoop(const ir::Module &module, const Instruction &loop) {
  if (loop.opcode() != Opcode::While || loop.calledComputations().size() != 2 ||
      !loop.shape().isTuple())
    return false;
  const ir::Computation &condition = loopCondition(loop);
  const ir::Computation &body = loopBody(loop);
  if (&condition == &body || !condition.parameter(0) || !body.parameter(0) ||
      body.root()->opcode() != Opcode::Tuple)
    return false;
  return callCount(module, condition) == 1 && callCount(module, body) == 1;
}

bool readsState(const Instruction &value) {
  const ir::Computation *computation = value.parent();
  return computation && value.opcode() == Opcode::GetTupleElement &&
         value.operand(0) == computation->parameter(0);
}

bool isPassThrough(const ir::Computation &body, int64_t index) {
  const Instruction *root = body.root();
  if (root->opcode() != Opcode::Tuple || index < 0 ||
      size_t(index) >= root->operandCount())
    return false;
  const Instruction *element = root->operand(size_t(index));
  return readsState(*element) && element->attrs().index == index;
}

void setStateShape(Instruction &loop, const ir::Shape &state) {
  loop.setShape(state);
  loopCondition(loop).parameter(0)->setShape(state);
  loopBody(loop).parameter(0)->setShape(state);
}

Instruction *elementOf(ir::Computation &computation, Instruction *value,
                       int64_t index, const std::string &name) {
  if (value->opcode() == Opcode::Tuple)
    return value->operand(size_t(index));
  ir::Attributes attrs;
  attrs.index = index;
  return build(computation, Opcode::GetTupleElement, {value}, attrs, {}, name);
}

Instruction *tupleOfElements(ir::Computation &computation, Instruction *value,
                             const std::vector<int64_t> &indices) {
  std::vector<Instruction *> elements;
  for (int64_t index : indices)
    elements.push_back(
        elementOf(computation, value, index, value->name() + ".e"));
  return build(computation, Opcode::Tuple, std::move(elements), {}, {},
               value->name() + ".t");
}

void replaceLoop(Instruction *loop, Instruction *replacement) {
  ir::Computation &parent = *loop->parent();
  loop->replaceAllUsesWith(replacement);
  if (parent.root() == loop)
    parent.setRoot(replacement);
  parent.removeInstruction(loop);
}

std::vector<Instruction *> wholeComputationLoops(ir::Module &module) {
  std::vector<Instruction *> loops;
  for (ir::Computation *computation : runWholeComputations(module))
    for (Instruction *instruction : computation->instructions())
      if (instruction->opcode() == Opcode::While)
        loops.push_back(instruction);
  return loops;
}

} // namespace kiln::transforms
