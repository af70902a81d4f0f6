//===- ScalarComputation.cpp - A scalar computation emitted inline --------===//
//
// Combiners (scatter's to_apply) are small computations of scalars. Calling
// a function per element would cost a call and block vectorization, so
// their instructions are emitted in place, in post order from the root
// (operands before users; dead values are never emitted), over compute
// values. Only
// what a scalar computation can hold is accepted: parameters, scalar
// constants, elementwise ops, shape-only ops of scalars and a root tuple.
//
//===----------------------------------------------------------------------===//
#include "Emitters.h"

#include <map>

namespace kiln::codegen {

using ir::Instruction;
using ir::Opcode;
using llvm::Value;

namespace {

Error notInlinable(const ir::Computation &computation, const Instruction &inst,
                   std::string_view why) {
  return makeError("codegen: scalar computation '{}': instruction '{}' ({}) "
                   "cannot be emitted inline: {}",
                   computation.name(), inst.name(),
                   ir::opcodeName(inst.opcode()), why);
}

/// The compute value of one non-root-tuple instruction.
Expected<Value *> emitOne(EmitterContext &ctx,
                          const ir::Computation &computation,
                          const Instruction &inst,
                          const std::map<const Instruction *, Value *> &values,
                          llvm::ArrayRef<Value *> arguments) {
  if (inst.shape().isTuple() || inst.shape().rank() != 0)
    return notInlinable(computation, inst, "its value is not a scalar");
  std::vector<Value *> operands;
  for (const Instruction *operand : inst.operands())
    operands.push_back(values.at(operand));
  switch (inst.opcode()) {
  case Opcode::Parameter: {
    int64_t number = inst.parameterNumber();
    if (number < 0 || number >= int64_t(arguments.size()))
      return notInlinable(computation, inst, "no argument for it");
    return arguments[size_t(number)];
  }
  case Opcode::Constant:
    return ctx.scalarConstant(inst);
  case Opcode::Reshape: // of a scalar to a scalar: the value itself
  case Opcode::Broadcast:
  case Opcode::Copy:
    return operands.at(0);
  default:
    break;
  }
  if (!ir::isElementwise(inst.opcode()))
    return notInlinable(computation, inst,
                        "only elementwise ops of scalars are supported");
  return emitElementwiseInstruction(ctx, inst, operands);
}

} // namespace

Expected<std::vector<Value *>>
emitScalarComputation(EmitterContext &ctx, const ir::Computation &computation,
                      llvm::ArrayRef<Value *> arguments) {
  std::map<const Instruction *, Value *> values;
  const Instruction *root = computation.root();
  for (const Instruction *inst : computation.postOrder()) {
    if (inst == root && inst->opcode() == Opcode::Tuple)
      continue; // its operands are the results
    Expected<Value *> value =
        emitOne(ctx, computation, *inst, values, arguments);
    if (!value)
      return value.takeError();
    values[inst] = *value;
  }
  if (root->opcode() != Opcode::Tuple)
    return std::vector<Value *>{values.at(root)};
  std::vector<Value *> results;
  for (const Instruction *operand : root->operands())
    results.push_back(values.at(operand));
  return results;
}

} // namespace kiln::codegen
