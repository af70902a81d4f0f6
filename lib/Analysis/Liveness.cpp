//===- Liveness.cpp - Array values, aliases and last uses -----------------===//
#include "kiln/Analysis/Liveness.h"

#include <algorithm>

namespace kiln::analysis {

using ir::Instruction;
using ir::Opcode;

ValueRef resolveValue(ValueRef value) {
  const Instruction *instruction = value.instruction;
  if (value.tupleIndex >= 0 && instruction->opcode() == Opcode::Tuple)
    return resolveValue({instruction->operand(size_t(value.tupleIndex)), -1});
  if (instruction->opcode() != Opcode::GetTupleElement)
    return value;
  const Instruction *tuple = instruction->operand(0);
  int64_t index = instruction->attrs().index;
  if (value.tupleIndex < 0)
    return resolveValue({tuple, index});
  // A tuple element that is itself a tuple: only literal tuples nest.
  ValueRef inner = resolveValue({tuple, index});
  if (inner.tupleIndex < 0 && inner.instruction->opcode() == Opcode::Tuple)
    return resolveValue({inner.instruction, value.tupleIndex});
  return value;
}

/// The array values `instruction` makes available to its users.
void containedValues(const Instruction *instruction,
                     std::vector<ValueRef> &out) {
  const ir::Shape &shape = instruction->shape();
  if (!shape.isTuple()) {
    out.push_back(resolveValue({instruction, -1}));
    return;
  }
  if (instruction->opcode() == Opcode::Tuple) {
    for (const Instruction *operand : instruction->operands())
      containedValues(operand, out);
    return;
  }
  for (size_t i = 0; i < shape.tupleElements().size(); ++i)
    out.push_back(resolveValue({instruction, int64_t(i)}));
}

std::map<ValueRef, int64_t>
computeLastUses(const std::vector<const Instruction *> &schedule) {
  std::map<ValueRef, int64_t> lastUse;
  std::vector<ValueRef> used;
  for (size_t position = 0; position < schedule.size(); ++position) {
    // tuple and get-tuple-element only alias: their users count instead.
    Opcode opcode = schedule[position]->opcode();
    if (opcode == Opcode::Tuple || opcode == Opcode::GetTupleElement)
      continue;
    used.clear();
    for (const Instruction *operand : schedule[position]->operands())
      containedValues(operand, used);
    for (ValueRef value : used) {
      int64_t &last = lastUse.try_emplace(value, int64_t(position)).first->second;
      last = std::max(last, int64_t(position));
    }
  }
  return lastUse;
}

} // namespace kiln::analysis
