//===- IndexingEmitter.cpp - gather, dynamic slices, sort, top-k ----------===//
//
// Start indices of gather and the dynamic slices are clamped so the slice
// stays in bounds (XLA's rule), which also keeps every generated load in
// bounds whatever the caller passes. sort works in place in its result
// buffers (there is no allocator and it needs no scratch): operands are
// copied in, then each row is insertion-sorted, moving the raw element bits
// of every operand alongside the key. Insertion sort is stable and O(n^2);
// it is meant for the modest sort lengths models use. With a to_apply
// comparator the key test is the comparator, emitted inline
// (AppliedComputation.h) on the lhs and rhs elements of every operand. top-k keeps a sorted
// window of k candidates per row in its result buffers.
//
//===----------------------------------------------------------------------===//
#include "AppliedComputation.h"
#include "ComputeHelpers.h"
#include "Emitters.h"

#include <llvm/IR/Constants.h>

#include <algorithm>

namespace kiln::codegen {

using ir::DType;
using ir::Instruction;
using llvm::ArrayRef;
using llvm::Value;

namespace {

/// Start index `d` of a dynamic-slice / dynamic-update-slice as i64, before
/// clamping: one scalar operand per dimension from `firstStart` on.
Expected<Value *> startIndex(EmitterContext &ctx, const Instruction &inst,
                             size_t firstStart, size_t d) {
  const Instruction &operand = *inst.operand(firstStart + d);
  Expected<Value *> value = ctx.operandElement(inst, firstStart + d, {});
  if (!value)
    return value.takeError();
  return indexToI64(ctx, operand.shape().dtype(), *value);
}

/// Clamped start indices so that [start, start + sizes) lies in `dims`.
Expected<std::vector<Value *>>
clampedStarts(EmitterContext &ctx, const Instruction &inst, size_t firstStart,
              ArrayRef<int64_t> dims, ArrayRef<int64_t> sizes) {
  std::vector<Value *> starts;
  for (size_t d = 0; d < dims.size(); ++d) {
    Expected<Value *> start = startIndex(ctx, inst, firstStart, d);
    if (!start)
      return start.takeError();
    starts.push_back(clampI64(ctx, *start, 0, dims[d] - sizes[d]));
  }
  return starts;
}

Value *elementPointer(EmitterContext &ctx, const BufferRef &buffer,
                      Value *linear) {
  return ctx.builder().CreateGEP(ctx.storageType(buffer.dtype), buffer.address,
                                 linear);
}

/// Raw element bits: moving elements this way never rounds or canonicalizes.
Value *loadRaw(EmitterContext &ctx, const BufferRef &buffer, Value *linear) {
  return ctx.builder().CreateAlignedLoad(ctx.storageType(buffer.dtype),
                                         elementPointer(ctx, buffer, linear),
                                         llvm::Align(buffer.align));
}

void storeRaw(EmitterContext &ctx, const BufferRef &buffer, Value *linear,
              Value *raw) {
  ctx.builder().CreateAlignedStore(raw, elementPointer(ctx, buffer, linear),
                                   llvm::Align(buffer.align));
}

/// Copies operand `operand` of `inst` (materialized or fused) into `out`.
Error copyOperand(EmitterContext &ctx, const Instruction &inst, size_t operand,
                  const BufferRef &out) {
  bool inMemory = ctx.operandBuffer(inst, operand).has_value();
  return ctx.emitElementLoop(out, inMemory, [&](const ElementIndex &index) {
    return ctx.elementOf(*inst.operand(operand), index);
  });
}

/// Emits `j = start; while (j > 0 && before(j - 1)) { move(j - 1, j); --j; }`
/// and returns the final j. `before` only runs when j > 0, so it may load
/// element j - 1.
Expected<Value *>
emitShiftLoop(EmitterContext &ctx, Value *start,
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
  b.CreateCondBr(b.CreateICmpSGT(j, ctx.i64(0)), check, exit);

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

/// The sort's result buffers, one per operand.
std::vector<BufferRef> sortOutputs(EmitterContext &ctx,
                                   const Instruction &inst) {
  if (inst.operandCount() == 1)
    return {ctx.outputBuffer(inst)};
  std::vector<BufferRef> outs;
  for (size_t i = 0; i < inst.operandCount(); ++i)
    outs.push_back(ctx.outputBuffer(inst, int64_t(i)));
  return outs;
}

/// The vector width for rows of a window of `dims` (1 for pred, whose
/// elements are not moved as vectors).
unsigned windowRowLanes(EmitterContext &ctx, DType dtype,
                        ArrayRef<int64_t> dims) {
  if (dtype == DType::Pred)
    return 1;
  return std::max(ctx.rowLanes(BufferRef{nullptr, dtype, dims.vec(), 1}), 1u);
}

} // namespace

Error emitDynamicSlice(EmitterContext &ctx, const Instruction &instruction) {
  const ir::Shape &in = instruction.operand(0)->shape();
  const auto &sizes = instruction.shape().dims();
  BufferRef out = ctx.outputBuffer(instruction);
  auto starts = clampedStarts(ctx, instruction, 1, in.dims(), sizes);
  if (!starts)
    return starts.takeError();
  auto &b = ctx.builder();
  auto element = [&](const ElementIndex &index) -> Expected<Value *> {
    std::vector<Value *> source;
    for (size_t d = 0; d < sizes.size(); ++d)
      source.push_back(b.CreateAdd((*starts)[d], index.indices[d]));
    return ctx.elementOf(*instruction.operand(0),
                         ElementIndex{source, nullptr, index.lanes});
  };
  if (sizes.empty())
    return ctx.emitElementLoop(out, false, element);
  // A window row is contiguous in the operand: vectors along it (a scan
  // reading row t of its input).
  return ctx.emitRowLoop(out, windowRowLanes(ctx, out.dtype, sizes), element);
}

Error emitDynamicUpdateSlice(EmitterContext &ctx,
                             const Instruction &instruction) {
  const ir::Shape &in = instruction.operand(0)->shape();
  const auto &updateDims = instruction.operand(1)->shape().dims();
  BufferRef out = ctx.outputBuffer(instruction);
  auto starts = clampedStarts(ctx, instruction, 2, in.dims(), updateDims);
  if (!starts)
    return starts.takeError();
  // A loop state update in place (buffer assignment) already holds the
  // operand: only the window is written.
  bool inPlace =
      ctx.buffers().sameSlice({instruction.operand(0), -1}, {&instruction, -1});
  if (!inPlace)
    if (Error e = copyOperand(ctx, instruction, 0, out))
      return e;
  auto &b = ctx.builder();
  // One update element, or a run of `lanes` along the innermost dimension
  // (contiguous in the update and in the target): index `u`.
  auto store = [&](ArrayRef<Value *> u, unsigned lanes) -> Error {
    Expected<Value *> value = ctx.elementOf(
        *instruction.operand(1),
        ElementIndex{{u.begin(), u.end()}, nullptr, lanes});
    if (!value)
      return value.takeError();
    std::vector<Value *> target;
    for (size_t d = 0; d < updateDims.size(); ++d)
      target.push_back(b.CreateAdd((*starts)[d], u[d]));
    ctx.storeElement(out, linearOrZero(ctx, target, in.dims()), *value);
    return Error::success();
  };
  if (updateDims.empty())
    return ctx.emitLoopNest(updateDims, [&](ArrayRef<Value *> u) {
      return store(u, 1);
    });
  unsigned lanes = windowRowLanes(ctx, out.dtype, updateDims);
  ArrayRef<int64_t> outer = ArrayRef<int64_t>(updateDims).drop_back();
  return ctx.emitLoopNest(outer, [&](ArrayRef<Value *> prefix) -> Error {
    return ctx.emitRowRuns(
        updateDims.back(), lanes, [&](Value *j, unsigned width) -> Error {
          std::vector<Value *> u(prefix.begin(), prefix.end());
          u.push_back(j);
          return store(u, width);
        });
  });
}

namespace {
/// The gather's dimension roles: output dims that index the batch of start
/// indices, and the operand dims its offset dims walk (in order).
struct GatherDims {
  std::vector<int64_t> batch, offsetOperand;
};

GatherDims gatherDims(const Instruction &instruction) {
  const auto &g = instruction.attrs().gather;
  auto contains = [](ArrayRef<int64_t> list, int64_t v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  GatherDims dims;
  for (int64_t d = 0; d < instruction.shape().rank(); ++d)
    if (!contains(g.offsetDims, d))
      dims.batch.push_back(d);
  for (int64_t d = 0; d < instruction.operand(0)->shape().rank(); ++d)
    if (!contains(g.collapsedSliceDims, d))
      dims.offsetOperand.push_back(d);
  return dims;
}
} // namespace

// A gather is elemental: each output element reads its start indices (one
// scalar per mapped dimension, at the element's batch position) and then
// one operand element. Fused, a resize's gathers read straight from the
// image instead of materializing a copy per tap (bilinear: four).
Expected<Value *> generateGather(EmitterContext &ctx,
                                 const Instruction &instruction,
                                 const ElementIndex &index) {
  const auto &g = instruction.attrs().gather;
  const auto &sliceSizes = instruction.attrs().sizes;
  const ir::Shape &in = instruction.operand(0)->shape();
  const ir::Shape &indices = instruction.operand(1)->shape();
  GatherDims dims = gatherDims(instruction);
  auto &b = ctx.builder();
  std::vector<Value *> batch;
  for (int64_t d : dims.batch)
    batch.push_back(index.indices[size_t(d)]);
  std::vector<Value *> source(size_t(in.rank()), ctx.i64(0));
  for (size_t k = 0; k < g.startIndexMap.size(); ++k) {
    std::vector<Value *> at = batch;
    if (g.indexVectorDim < indices.rank())
      at.insert(at.begin() + g.indexVectorDim, ctx.i64(int64_t(k)));
    // Start indices depend on batch dims only: one scalar for a row run.
    Expected<Value *> start = ctx.operandElement(instruction, 1, at);
    if (!start)
      return start.takeError();
    int64_t d = g.startIndexMap[k];
    source[size_t(d)] =
        clampI64(ctx, indexToI64(ctx, indices.dtype(), *start), 0,
                 in.dim(size_t(d)) - sliceSizes[size_t(d)]);
  }
  for (size_t j = 0; j < dims.offsetOperand.size(); ++j) {
    size_t d = size_t(dims.offsetOperand[j]);
    source[d] = b.CreateAdd(source[d], index.indices[size_t(g.offsetDims[j])]);
  }
  return ctx.elementOf(*instruction.operand(0),
                       ElementIndex{std::move(source), nullptr, index.lanes});
}

bool gatherKeepsRows(const Instruction &instruction) {
  const auto &g = instruction.attrs().gather;
  int64_t last = instruction.shape().rank() - 1;
  int64_t operandLast = instruction.operand(0)->shape().rank() - 1;
  GatherDims dims = gatherDims(instruction);
  // The output's innermost dim walks the operand's innermost dim: a run of
  // output elements is a run of operand elements from one start.
  return last >= 0 && !g.offsetDims.empty() && g.offsetDims.back() == last &&
         !dims.offsetOperand.empty() &&
         dims.offsetOperand.back() == operandLast;
}

namespace {

/// Whether the element being inserted (`held`, raw bits of every operand)
/// goes before the one at `previous`: kiln's key order on operand 0, or the
/// comparator on (lhs_0, rhs_0, lhs_1, rhs_1, ...).
Expected<Value *> sortsBeforeSlot(EmitterContext &ctx,
                                  const Instruction &instruction,
                                  ArrayRef<BufferRef> outs,
                                  ArrayRef<Value *> held, Value *previous) {
  const ir::Computation *comparator = instruction.calledComputation();
  if (!comparator) {
    DType keyType = instruction.operand(0)->shape().dtype();
    return sortsBefore(ctx, keyType, ctx.toCompute(keyType, held[0]),
                       ctx.toCompute(keyType, loadRaw(ctx, outs[0], previous)),
                       instruction.attrs().descending);
  }
  std::vector<Value *> args;
  for (size_t q = 0; q < outs.size(); ++q) {
    DType type = instruction.operand(q)->shape().dtype();
    args.push_back(ctx.toCompute(type, held[q]));
    args.push_back(ctx.toCompute(type, loadRaw(ctx, outs[q], previous)));
  }
  Expected<std::vector<Value *>> result =
      emitAppliedComputation(ctx, *comparator, args);
  if (!result)
    return result.takeError();
  return result->front();
}

} // namespace

Error emitSort(EmitterContext &ctx, const Instruction &instruction) {
  const ir::Shape &keys = instruction.operand(0)->shape();
  int64_t axis = instruction.attrs().dimensions.at(0);
  std::vector<BufferRef> outs = sortOutputs(ctx, instruction);
  for (size_t i = 0; i < outs.size(); ++i)
    if (Error e = copyOperand(ctx, instruction, i, outs[i]))
      return e;
  int64_t length = keys.dim(size_t(axis));
  int64_t stride = keys.strides()[size_t(axis)];
  std::vector<int64_t> rowDims = keys.dims();
  rowDims.erase(rowDims.begin() + axis);
  auto &b = ctx.builder();

  return ctx.emitLoopNest(rowDims, [&](ArrayRef<Value *> row) -> Error {
    Value *base = linearOrZero(
        ctx, mergeIndices(row, {ctx.i64(0)}, {axis}, keys.rank()), keys.dims());
    auto at = [&](Value *position) {
      return b.CreateAdd(base, b.CreateMul(position, ctx.i64(stride)));
    };
    return ctx.emitLoop(
        1, length, 1,
        [&](Value *i) -> Error {
          std::vector<Value *> held;
          for (const BufferRef &out : outs)
            held.push_back(loadRaw(ctx, out, at(i)));
          auto before = [&](Value *previous) -> Expected<Value *> {
            return sortsBeforeSlot(ctx, instruction, outs, held, at(previous));
          };
          auto move = [&](Value *from, Value *to) {
            for (const BufferRef &out : outs)
              storeRaw(ctx, out, at(to), loadRaw(ctx, out, at(from)));
          };
          Expected<Value *> j = emitShiftLoop(ctx, i, before, move);
          if (!j)
            return j.takeError();
          for (size_t q = 0; q < outs.size(); ++q)
            storeRaw(ctx, outs[q], at(*j), held[q]);
          return Error::success();
        },
        "s");
  });
}

Error emitTopK(EmitterContext &ctx, const Instruction &instruction) {
  const ir::Shape &in = instruction.operand(0)->shape();
  int64_t k = instruction.attrs().k;
  int64_t length = in.dims().back();
  bool largest = instruction.attrs().largest;
  BufferRef values = ctx.outputBuffer(instruction, 0);
  BufferRef positions = ctx.outputBuffer(instruction, 1);
  std::vector<int64_t> rowDims(in.dims().begin(), in.dims().end() - 1);
  DType dtype = in.dtype();
  auto &b = ctx.builder();
  if (k == 0)
    return Error::success();

  return ctx.emitLoopNest(rowDims, [&](ArrayRef<Value *> row) -> Error {
    std::vector<Value *> first(row.begin(), row.end());
    first.push_back(ctx.i64(0));
    Value *base = ctx.linearIndex(first, values.dims);
    auto slot = [&](Value *j) { return b.CreateAdd(base, j); };
    return ctx.emitLoop(
        0, length, 1,
        [&](Value *i) -> Error {
          std::vector<Value *> source(row.begin(), row.end());
          source.push_back(i);
          Expected<Value *> x = ctx.operandElement(instruction, 0, source);
          if (!x)
            return x.takeError();
          // Position k is "outside the window": candidates shifted there drop
          // out (clamping the write to k-1 makes that move a self-copy).
          Value *start =
              b.CreateSelect(b.CreateICmpSLT(i, ctx.i64(k)), i, ctx.i64(k));
          auto clampSlot = [&](Value *j) {
            return slot(b.CreateSelect(b.CreateICmpSLT(j, ctx.i64(k)), j,
                                       ctx.i64(k - 1)));
          };
          auto before = [&](Value *previous) -> Expected<Value *> {
            Value *other = ctx.loadElement(values, slot(previous));
            return sortsBefore(ctx, dtype, *x, other, /*descending=*/largest);
          };
          auto move = [&](Value *from, Value *to) {
            storeRaw(ctx, values, clampSlot(to),
                     loadRaw(ctx, values, slot(from)));
            storeRaw(ctx, positions, clampSlot(to),
                     loadRaw(ctx, positions, slot(from)));
          };
          Expected<Value *> j = emitShiftLoop(ctx, start, before, move);
          if (!j)
            return j.takeError();
          Value *inserted = b.CreateICmpSLT(*j, ctx.i64(k));
          Value *target = clampSlot(*j);
          Value *oldValue = loadRaw(ctx, values, target);
          Value *oldPosition = loadRaw(ctx, positions, target);
          Value *newValue = ctx.toStorage(dtype, *x);
          Value *newPosition =
              b.CreateTrunc(i, ctx.storageType(positions.dtype));
          storeRaw(ctx, values, target,
                   b.CreateSelect(inserted, newValue, oldValue));
          storeRaw(ctx, positions, target,
                   b.CreateSelect(inserted, newPosition, oldPosition));
          return Error::success();
        },
        "tk");
  });
}

} // namespace kiln::codegen
