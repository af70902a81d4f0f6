//===- AppliedAccumulators.cpp - Accumulators of a variadic reduction -----===//
#include "AppliedAccumulators.h"

#include "AppliedComputation.h"
#include "ComputeHelpers.h"

namespace kiln::codegen {

using llvm::Value;

AppliedAccumulators::AppliedAccumulators(EmitterContext &ctx,
                                         const ir::Instruction &reduction)
    : ctx_(ctx), reduction_(reduction) {
  size_t n = reduction.operandCount() / 2;
  for (size_t i = 0; i < n; ++i) {
    outs_.push_back(ctx.outputBuffer(reduction, n == 1 ? -1 : int64_t(i)));
    ir::DType dtype = reduction.operand(i)->shape().dtype();
    slots_.push_back(entryAlloca(ctx, ctx.computeType(dtype), "acc"));
  }
}

std::vector<Value *> AppliedAccumulators::load() {
  std::vector<Value *> values;
  for (llvm::AllocaInst *slot : slots_)
    values.push_back(
        ctx_.builder().CreateLoad(slot->getAllocatedType(), slot));
  return values;
}

Expected<std::vector<Value *>> AppliedAccumulators::start() {
  std::vector<Value *> inits;
  for (size_t i = 0; i < slots_.size(); ++i) {
    Expected<Value *> init =
        ctx_.operandElement(reduction_, slots_.size() + i, {});
    if (!init)
      return init.takeError();
    ctx_.builder().CreateStore(*init, slots_[i]);
    inits.push_back(*init);
  }
  return inits;
}

Error AppliedAccumulators::fold(llvm::ArrayRef<Value *> elements) {
  std::vector<Value *> args = load();
  args.insert(args.end(), elements.begin(), elements.end());
  Expected<std::vector<Value *>> next =
      emitAppliedComputation(ctx_, *reduction_.calledComputation(), args);
  if (!next)
    return next.takeError();
  for (size_t i = 0; i < slots_.size(); ++i)
    ctx_.builder().CreateStore((*next)[i], slots_[i]);
  return Error::success();
}

void AppliedAccumulators::finish(llvm::ArrayRef<Value *> outIndex) {
  std::vector<Value *> results = load();
  for (size_t i = 0; i < slots_.size(); ++i)
    ctx_.storeElement(outs_[i], linearOrZero(ctx_, outIndex, outDims()),
                      results[i]);
}

} // namespace kiln::codegen
