//===- ComputeHelpers.cpp - Shared pieces of the compute-op emitters ------===//
#include "ComputeHelpers.h"

#include <algorithm>

namespace kiln::codegen {

using llvm::Value;

llvm::AllocaInst *entryAlloca(EmitterContext &ctx, llvm::Type *type,
                              const llvm::Twine &name) {
  llvm::Function *function = ctx.builder().GetInsertBlock()->getParent();
  llvm::BasicBlock &entry = function->getEntryBlock();
  llvm::IRBuilder<> entryBuilder(&entry, entry.getFirstInsertionPt());
  return entryBuilder.CreateAlloca(type, nullptr, name);
}

Error emitAccumulation(EmitterContext &ctx, const ir::Instruction &instruction,
                       llvm::Value *initial, llvm::ArrayRef<int64_t> innerDims,
                       const char *innerName, AccumulateStep step,
                       const UnitRange *units) {
  const auto &outDims = instruction.shape().dims();
  BufferRef out = ctx.outputBuffer(instruction);
  llvm::AllocaInst *acc = entryAlloca(ctx, initial->getType());
  auto &b = ctx.builder();
  auto element = [&](llvm::ArrayRef<llvm::Value *> outIndex) -> Error {
    b.CreateStore(initial, acc);
    Error inner = ctx.emitLoopNest(
        innerDims,
        [&](llvm::ArrayRef<llvm::Value *> innerIndex) -> Error {
          Expected<llvm::Value *> next =
              step(outIndex, innerIndex,
                   b.CreateLoad(acc->getAllocatedType(), acc));
          if (!next)
            return next.takeError();
          b.CreateStore(*next, acc);
          return Error::success();
        },
        innerName);
    if (inner)
      return inner;
    ctx.storeElement(out, linearOrZero(ctx, outIndex, outDims),
                     b.CreateLoad(acc->getAllocatedType(), acc));
    return Error::success();
  };
  if (units)
    return ctx.emitRowsLoop(outDims, *units, element);
  return ctx.emitLoopNest(outDims, element);
}

Value *indexToI64(EmitterContext &ctx, ir::DType dtype, Value *value) {
  llvm::Type *i64 = ctx.builder().getInt64Ty();
  if (ir::isSignedInt(dtype))
    return ctx.builder().CreateSExtOrTrunc(value, i64);
  return ctx.builder().CreateZExtOrTrunc(value, i64);
}

Value *clampI64(EmitterContext &ctx, Value *value, int64_t lo, int64_t hi) {
  auto &b = ctx.builder();
  Value *low =
      b.CreateSelect(b.CreateICmpSLT(value, ctx.i64(lo)), ctx.i64(lo), value);
  return b.CreateSelect(b.CreateICmpSGT(low, ctx.i64(hi)), ctx.i64(hi), low);
}

Value *isNaN(EmitterContext &ctx, ir::DType dtype, Value *value) {
  if (!ir::isFloat(dtype))
    return ctx.builder().getFalse();
  return ctx.builder().CreateFCmpUNO(value, value);
}

Value *strictlyOrdered(EmitterContext &ctx, ir::DType dtype, Value *a, Value *b,
                       bool greater) {
  auto &builder = ctx.builder();
  if (ir::isFloat(dtype))
    return greater ? builder.CreateFCmpOGT(a, b) : builder.CreateFCmpOLT(a, b);
  if (ir::isSignedInt(dtype))
    return greater ? builder.CreateICmpSGT(a, b) : builder.CreateICmpSLT(a, b);
  return greater ? builder.CreateICmpUGT(a, b) : builder.CreateICmpULT(a, b);
}

Value *sortsBefore(EmitterContext &ctx, ir::DType dtype, Value *a, Value *b,
                   bool descending) {
  auto &builder = ctx.builder();
  Value *ordered = strictlyOrdered(ctx, dtype, a, b, descending);
  if (!ir::isFloat(dtype))
    return ordered;
  // Ascending: a first iff a is a number and (b is NaN or a < b).
  // Descending: a first iff b is a number and (a is NaN or a > b).
  Value *aNaN = isNaN(ctx, dtype, a), *bNaN = isNaN(ctx, dtype, b);
  if (descending)
    return builder.CreateAnd(builder.CreateNot(bNaN),
                             builder.CreateOr(aNaN, ordered));
  return builder.CreateAnd(builder.CreateNot(aNaN),
                           builder.CreateOr(bNaN, ordered));
}

// Only the element size is guaranteed at an arbitrary element (the
// buffer's own alignment holds at its start): a larger claim lets the
// vectorizer emit aligned vector moves that fault on other rows.
Value *loadRaw(EmitterContext &ctx, const BufferRef &buffer, Value *linear) {
  return ctx.builder().CreateAlignedLoad(
      ctx.storageType(buffer.dtype), ctx.elementPointer(buffer, linear),
      llvm::Align(ir::byteSize(buffer.dtype)));
}

void storeRaw(EmitterContext &ctx, const BufferRef &buffer, Value *linear,
              Value *raw) {
  ctx.builder().CreateAlignedStore(raw, ctx.elementPointer(buffer, linear),
                                   llvm::Align(ir::byteSize(buffer.dtype)));
}

Error copyOperand(EmitterContext &ctx, const ir::Instruction &inst,
                  size_t operand, const BufferRef &out) {
  bool inMemory = ctx.operandBuffer(inst, operand).has_value();
  return ctx.emitElementLoop(out, inMemory, [&](const ElementIndex &index) {
    return ctx.elementOf(*inst.operand(operand), index);
  });
}

Expected<Value *>
emitShiftLoop(EmitterContext &ctx, Value *start, Value *lowest,
              llvm::function_ref<Expected<Value *>(Value *)> before,
              llvm::function_ref<void(Value *, Value *)> move) {
  auto &b = ctx.builder();
  llvm::Function *function = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &context = ctx.context();
  llvm::BasicBlock *preheader = b.GetInsertBlock();
  auto *cond = llvm::BasicBlock::Create(context, "shift.cond", function);
  auto *check = llvm::BasicBlock::Create(context, "shift.check", function);
  auto *body = llvm::BasicBlock::Create(context, "shift.body", function);
  auto *exit = llvm::BasicBlock::Create(context, "shift.exit", function);
  b.CreateBr(cond);

  b.SetInsertPoint(cond);
  llvm::PHINode *j = b.CreatePHI(b.getInt64Ty(), 2, "j");
  j->addIncoming(start, preheader);
  b.CreateCondBr(b.CreateICmpSGT(j, lowest), check, exit);

  b.SetInsertPoint(check);
  Value *previous = b.CreateSub(j, ctx.i64(1));
  Expected<Value *> goesBefore = before(previous);
  if (!goesBefore)
    return goesBefore.takeError();
  b.CreateCondBr(*goesBefore, body, exit);

  b.SetInsertPoint(body);
  move(previous, j);
  j->addIncoming(previous, b.GetInsertBlock());
  b.CreateBr(cond);

  b.SetInsertPoint(exit);
  return j;
}

std::vector<Value *> mergeIndices(llvm::ArrayRef<Value *> free,
                                  llvm::ArrayRef<Value *> fixed,
                                  llvm::ArrayRef<int64_t> fixedDims,
                                  int64_t rank) {
  std::vector<Value *> full(size_t(rank), nullptr);
  for (size_t i = 0; i < fixedDims.size(); ++i)
    full[size_t(fixedDims[i])] = fixed[i];
  size_t next = 0;
  for (Value *&slot : full)
    if (!slot)
      slot = free[next++];
  return full;
}

Error emitVectorRow(EmitterContext &ctx, ir::DType dtype, int64_t n,
                    llvm::function_ref<Error(Value *, unsigned)> body) {
  unsigned lanes = std::max(1u, ctx.vectorLanes(dtype));
  int64_t vectorEnd = lanes > 1 ? n - n % int64_t(lanes) : 0;
  if (Error e = ctx.emitLoop(
          0, vectorEnd, lanes, [&](Value *j) { return body(j, lanes); }, "j"))
    return e;
  return ctx.emitLoop(
      vectorEnd, n, 1, [&](Value *j) { return body(j, 1); }, "jt");
}

Value *linearOrZero(EmitterContext &ctx, llvm::ArrayRef<Value *> indices,
                    llvm::ArrayRef<int64_t> dims) {
  if (indices.empty())
    return ctx.i64(0);
  return ctx.linearIndex(indices, dims);
}

WindowTap windowTap(EmitterContext &ctx, const ir::Instruction &instruction,
                    llvm::ArrayRef<Value *> outIndex,
                    llvm::ArrayRef<Value *> winIndex) {
  auto &b = ctx.builder();
  const ir::Shape &in = instruction.operand(0)->shape();
  WindowTap tap;
  tap.valid = b.getTrue();
  for (size_t d = 0; d < size_t(in.rank()); ++d) {
    const ir::WindowDim &w = instruction.attrs().window[d];
    int64_t dilatedSize = (in.dim(d) - 1) * w.baseDilation + 1;
    Value *pos = b.CreateSub(
        b.CreateAdd(b.CreateMul(outIndex[d], ctx.i64(w.stride)),
                    b.CreateMul(winIndex[d], ctx.i64(w.windowDilation))),
        ctx.i64(w.padLow));
    Value *inside = b.CreateAnd(b.CreateICmpSGE(pos, ctx.i64(0)),
                                b.CreateICmpSLT(pos, ctx.i64(dilatedSize)));
    Value *safe = clampI64(ctx, pos, 0, dilatedSize - 1);
    if (w.baseDilation != 1) {
      Value *onHole = b.CreateICmpNE(
          b.CreateURem(safe, ctx.i64(w.baseDilation)), ctx.i64(0));
      inside = b.CreateAnd(inside, b.CreateNot(onHole));
      safe = b.CreateUDiv(safe, ctx.i64(w.baseDilation));
    }
    tap.valid = b.CreateAnd(tap.valid, inside);
    tap.index.push_back(safe);
  }
  return tap;
}

} // namespace kiln::codegen
