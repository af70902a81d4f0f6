//===- SelectAndScatterEmitter.cpp - select-and-scatter -------------------===//
//
// XLA's select-and-scatter (the gradient of max-pool) in the evaluator's
// order, so results agree bit for bit: the result is filled with init; then
// for every source position in row-major order, the window's taps are
// walked in row-major order, padding skipped; the first element is
// selected and a later one replaces the selection when select(selected,
// element) is false; finally result[selected] = scatter(result[selected],
// source). Both computations are emitted inline (AppliedComputation.h).
// The selection is kept branch-free in entry-block slots; a window of
// padding only selects nothing, and its read-modify-write then writes back
// the old value at a clamped position instead of branching. Windows
// overlap, so one thread runs the whole scatter in order.
//
//===----------------------------------------------------------------------===//
#include "AppliedComputation.h"
#include "ComputeHelpers.h"
#include "Emitters.h"

#include <llvm/IR/Constants.h>

namespace kiln::codegen {

using llvm::Value;

namespace {

/// The slots of one window's selection: the operand position (-1 before
/// the first element) and its value.
struct Selection {
  llvm::AllocaInst *position = nullptr;
  llvm::AllocaInst *value = nullptr;
};

/// Walks the window of source position `at` and leaves the selection in
/// `selection`.
Error emitSelect(EmitterContext &ctx, const ir::Instruction &inst,
                 llvm::ArrayRef<Value *> at, const Selection &selection) {
  const ir::Shape &operand = inst.operand(0)->shape();
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Type *valueType = selection.value->getAllocatedType();
  b.CreateStore(ctx.i64(-1), selection.position);
  b.CreateStore(llvm::Constant::getNullValue(valueType), selection.value);
  std::vector<int64_t> windowSizes;
  for (const ir::WindowDim &w : inst.attrs().window)
    windowSizes.push_back(w.size);
  return ctx.emitLoopNest(
      windowSizes,
      [&](llvm::ArrayRef<Value *> winIndex) -> Error {
        WindowTap tap = windowTap(ctx, inst, at, winIndex);
        Expected<Value *> element = ctx.operandElement(inst, 0, tap.index);
        if (!element)
          return element.takeError();
        Value *position = b.CreateLoad(b.getInt64Ty(), selection.position);
        Value *value = b.CreateLoad(valueType, selection.value);
        Expected<std::vector<Value *>> keep = emitAppliedComputation(
            ctx, *inst.calledComputations()[0], {value, *element});
        if (!keep)
          return keep.takeError();
        Value *first = b.CreateICmpSLT(position, ctx.i64(0));
        Value *take = b.CreateAnd(
            tap.valid, b.CreateOr(first, b.CreateNot(keep->front())));
        Value *here = linearOrZero(ctx, tap.index, operand.dims());
        b.CreateStore(b.CreateSelect(take, here, position), selection.position);
        b.CreateStore(b.CreateSelect(take, *element, value), selection.value);
        return Error::success();
      },
      "w");
}

} // namespace

Error emitSelectAndScatter(EmitterContext &ctx, const ir::Instruction &inst) {
  const ir::Shape &operand = inst.operand(0)->shape();
  const ir::Shape &source = inst.operand(1)->shape();
  BufferRef out = ctx.outputBuffer(inst);
  llvm::IRBuilder<> &b = ctx.builder();
  Expected<Value *> init = ctx.operandElement(inst, 2, {});
  if (!init)
    return init.takeError();
  if (Error e = ctx.emitLoopNest(
          operand.dims(), [&](llvm::ArrayRef<Value *> index) -> Error {
            ctx.storeElement(out, linearOrZero(ctx, index, operand.dims()),
                             *init);
            return Error::success();
          }))
    return e;
  if (operand.numElements() == 0)
    return Error::success(); // every window is padding
  Selection selection{entryAlloca(ctx, b.getInt64Ty(), "selected"),
                      entryAlloca(ctx, ctx.computeType(operand.dtype()),
                                  "selectedValue")};
  return ctx.emitLoopNest(
      source.dims(), [&](llvm::ArrayRef<Value *> at) -> Error {
        if (Error e = emitSelect(ctx, inst, at, selection))
          return e;
        Value *position = b.CreateLoad(b.getInt64Ty(), selection.position);
        Value *found = b.CreateICmpSGE(position, ctx.i64(0));
        Value *slot = b.CreateSelect(found, position, ctx.i64(0));
        Expected<Value *> update = ctx.operandElement(inst, 1, at);
        if (!update)
          return update.takeError();
        Value *old = ctx.loadElement(out, slot);
        Expected<std::vector<Value *>> combined = emitAppliedComputation(
            ctx, *inst.calledComputations()[1], {old, *update});
        if (!combined)
          return combined.takeError();
        ctx.storeElement(out, slot,
                         b.CreateSelect(found, combined->front(), old));
        return Error::success();
      });
}

} // namespace kiln::codegen
