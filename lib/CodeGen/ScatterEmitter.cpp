//===- ScatterEmitter.cpp - scatter ---------------------------------------===//
//
// The result buffers start as copies of the operands; then one loop nest
// walks the updates in row-major order (XLA leaves the order of colliding
// updates unspecified; kiln fixes it to the evaluator's). Each update
// element finds its operand index from the same roles the evaluator uses
// (kiln/IR/ScatterIndexing.h), skips itself when its window does not fit
// (one unsigned compare per dimension also rejects negative starts), and
// otherwise stores combiner(current values, update values), the combiner
// emitted inline.
//
//===----------------------------------------------------------------------===//
#include "ComputeHelpers.h"
#include "AppliedComputation.h"
#include "Emitters.h"

#include "kiln/IR/ScatterIndexing.h"

namespace kiln::codegen {

using ir::Instruction;
using llvm::ArrayRef;
using llvm::Value;

namespace {

/// The window start of update element `u` on every operand dimension.
Expected<std::vector<Value *>> windowStart(EmitterContext &ctx,
                                           const Instruction &inst,
                                           const ir::ScatterRoles &roles,
                                           size_t n, ArrayRef<Value *> u) {
  const ir::ScatterDimensionNumbers &s = inst.attrs().scatter;
  const ir::Shape &indices = inst.operand(n)->shape();
  std::vector<Value *> at(size_t(indices.rank()), ctx.i64(0));
  for (size_t j = 0; j < roles.updateScatterDims.size(); ++j)
    at[size_t(roles.indicesDimOfScatterDim[j])] =
        u[size_t(roles.updateScatterDims[j])];
  std::vector<Value *> start(size_t(inst.operand(0)->shape().rank()),
                             ctx.i64(0));
  for (size_t k = 0; k < s.scatterDimsToOperandDims.size(); ++k) {
    if (s.indexVectorDim < indices.rank())
      at[size_t(s.indexVectorDim)] = ctx.i64(int64_t(k));
    Expected<Value *> value = ctx.operandElement(inst, n, at);
    if (!value)
      return value.takeError();
    start[size_t(s.scatterDimsToOperandDims[k])] =
        indexToI64(ctx, indices.dtype(), *value);
  }
  for (size_t i = 0; i < s.inputBatchingDims.size(); ++i)
    start[size_t(s.inputBatchingDims[i])] =
        u[size_t(roles.updateDimOfBatchingDim[i])];
  return start;
}

/// Whether the whole window from `start` lies inside the operand.
Value *windowFits(EmitterContext &ctx, const ir::ScatterRoles &roles,
                  ArrayRef<int64_t> dims, ArrayRef<Value *> start) {
  auto &b = ctx.builder();
  Value *fits = b.getTrue();
  for (size_t d = 0; d < dims.size(); ++d)
    fits = b.CreateAnd(
        fits,
        b.CreateICmpULE(start[d], ctx.i64(dims[d] - roles.windowExtent[d])));
  return fits;
}

/// Combines update element `u` into the results at operand index `target`.
Error combineAt(EmitterContext &ctx, const Instruction &inst,
                ArrayRef<BufferRef> outs, ArrayRef<Value *> u, Value *linear) {
  size_t n = outs.size();
  std::vector<Value *> arguments;
  for (const BufferRef &out : outs)
    arguments.push_back(ctx.loadElement(out, linear));
  for (size_t i = 0; i < n; ++i) {
    Expected<Value *> update = ctx.operandElement(inst, n + 1 + i, u);
    if (!update)
      return update.takeError();
    arguments.push_back(*update);
  }
  Expected<std::vector<Value *>> results =
      emitAppliedComputation(ctx, *inst.calledComputations().at(0), arguments);
  if (!results)
    return results.takeError();
  for (size_t i = 0; i < n; ++i)
    ctx.storeElement(outs[i], linear, (*results)[i]);
  return Error::success();
}

} // namespace

Error emitScatter(EmitterContext &ctx, const Instruction &instruction) {
  size_t n = (instruction.operandCount() - 1) / 2;
  const ir::ScatterDimensionNumbers &s = instruction.attrs().scatter;
  const std::vector<int64_t> &dims = instruction.operand(0)->shape().dims();
  const std::vector<int64_t> &updateDims =
      instruction.operand(n + 1)->shape().dims();
  ir::ScatterRoles roles =
      ir::scatterRoles(s, int64_t(dims.size()),
                       instruction.operand(n)->shape().rank(), updateDims);
  std::vector<BufferRef> outs;
  for (size_t i = 0; i < n; ++i) {
    outs.push_back(ctx.outputBuffer(instruction, n == 1 ? -1 : int64_t(i)));
    bool inMemory = ctx.operandBuffer(instruction, i).has_value();
    if (Error e = ctx.emitElementLoop(
            outs.back(), inMemory, [&](const ElementIndex &index) {
              return ctx.elementOf(*instruction.operand(i), index);
            }))
      return e;
  }
  auto &b = ctx.builder();
  return ctx.emitLoopNest(updateDims, [&](ArrayRef<Value *> u) -> Error {
    Expected<std::vector<Value *>> start =
        windowStart(ctx, instruction, roles, n, u);
    if (!start)
      return start.takeError();
    llvm::Function *function = b.GetInsertBlock()->getParent();
    auto *apply =
        llvm::BasicBlock::Create(ctx.context(), "scatter.apply", function);
    auto *next =
        llvm::BasicBlock::Create(ctx.context(), "scatter.next", function);
    b.CreateCondBr(windowFits(ctx, roles, dims, *start), apply, next);
    b.SetInsertPoint(apply);
    std::vector<Value *> target = *start;
    for (size_t k = 0; k < s.updateWindowDims.size(); ++k) {
      size_t d = size_t(roles.operandDimOfWindowDim[k]);
      target[d] = b.CreateAdd(target[d], u[size_t(s.updateWindowDims[k])]);
    }
    if (Error e = combineAt(ctx, instruction, outs, u,
                            linearOrZero(ctx, target, dims)))
      return e;
    b.CreateBr(next);
    b.SetInsertPoint(next);
    ctx.clearGenerated(); // values made in `apply` do not dominate `next`
    return Error::success();
  });
}

} // namespace kiln::codegen
