//===- AppliedComputation.cpp - A scalar computation inlined in a loop ----===//
//
// reduce's to_apply (and later map and sort's comparator) is a computation
// of scalars that the verifier limited to parameters, constants and
// elementwise operations (ShapeInferenceApplied.cpp). Rather than calling a
// function per element, its instructions are emitted at the builder's
// position with the element generators every elementwise op already has:
// each parameter and each computed instruction is made an override of
// elementOf, so a generator reading its operands finds the values just
// computed. LLVM then sees the whole loop body and can optimize across it.
//
//===----------------------------------------------------------------------===//
#include "AppliedComputation.h"

#include "Emitters.h"

namespace kiln::codegen {

Expected<std::vector<llvm::Value *>>
emitAppliedComputation(EmitterContext &ctx, const ir::Computation &callee,
                       llvm::ArrayRef<llvm::Value *> args) {
  std::vector<ir::Instruction *> order = callee.postOrder();
  // The overrides name the callee's instructions only; dropping them on
  // every exit keeps them from leaking into the caller's later elements.
  auto forget = [&] {
    for (const ir::Instruction *inst : order)
      ctx.clearOverride(*inst);
  };
  ElementIndex scalar{{}, nullptr, 1};
  for (const ir::Instruction *inst : order) {
    switch (inst->opcode()) {
    case ir::Opcode::Parameter: {
      size_t number = size_t(inst->parameterNumber());
      if (number >= args.size()) {
        forget();
        return makeError("codegen: to_apply computation '{}' parameter {} "
                         "has no argument",
                         callee.name(), number);
      }
      ctx.setOverride(*inst, args[number]);
      break;
    }
    case ir::Opcode::Constant:
      ctx.setOverride(*inst, ctx.scalarConstant(*inst));
      break;
    case ir::Opcode::Tuple: // the root: its operands are the results
      break;
    default: {
      Expected<llvm::Value *> value = generateElement(ctx, *inst, scalar);
      if (!value) {
        forget();
        return value.takeError();
      }
      ctx.setOverride(*inst, *value);
    }
    }
  }
  const ir::Instruction &root = *callee.root();
  std::vector<llvm::Value *> results;
  ElementIndex none{{}, nullptr, 1};
  auto valueOf = [&](const ir::Instruction &inst) -> Expected<llvm::Value *> {
    return ctx.elementOf(inst, none);
  };
  if (root.opcode() == ir::Opcode::Tuple) {
    for (const ir::Instruction *element : root.operands()) {
      Expected<llvm::Value *> value = valueOf(*element);
      if (!value) {
        forget();
        return value.takeError();
      }
      results.push_back(*value);
    }
  } else {
    Expected<llvm::Value *> value = valueOf(root);
    if (!value) {
      forget();
      return value.takeError();
    }
    results.push_back(*value);
  }
  forget();
  return results;
}

Expected<llvm::Value *> generateMap(EmitterContext &ctx,
                                    const ir::Instruction &map,
                                    const ElementIndex &index) {
  if (index.lanes != 1) // rowVectorizable and isLinear never ask for more
    return EmitterContext::unsupported(map, "vectorized map");
  std::vector<llvm::Value *> args;
  for (const ir::Instruction *operand : map.operands()) {
    Expected<llvm::Value *> element = ctx.elementOf(*operand, index);
    if (!element)
      return element.takeError();
    args.push_back(*element);
  }
  Expected<std::vector<llvm::Value *>> results =
      emitAppliedComputation(ctx, *map.calledComputation(), args);
  if (!results)
    return results.takeError();
  return results->front();
}

} // namespace kiln::codegen
