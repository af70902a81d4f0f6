//===- SortEmitter.cpp - sort: insertion runs joined by merge passes ------===//
//
// sort works in its result buffers: operands are copied in, then each row
// is sorted stably, moving the raw element bits of every operand alongside
// the key. A row of at most kSortInsertionRun elements is insertion-sorted
// in place. A longer row is copied into the sort's arena scratch (two rows
// per operand: BufferAssignment.h, sortScratchOffset), insertion-sorted
// there in runs of kSortInsertionRun, and the runs are merged bottom-up,
// each pass from one scratch row into the other, then copied back: O(n log
// n) comparisons and moves instead of insertion sort's O(n^2). A merge
// takes the right run's element only when it sorts strictly before the
// left run's, so equal elements keep their input order (XLA's is_stable;
// kiln is always stable). The key test is kiln's key order on operand 0
// (descending=) or the to_apply comparator, emitted inline
// (AppliedComputation.h) on the lhs and rhs elements of every operand.
//
//===----------------------------------------------------------------------===//
#include "AppliedComputation.h"
#include "ComputeHelpers.h"
#include "Emitters.h"

#include "kiln/Analysis/BufferAssignment.h"

#include <llvm/IR/Constants.h>

namespace kiln::codegen {

using analysis::kSortInsertionRun;
using ir::DType;
using ir::Instruction;
using llvm::ArrayRef;
using llvm::Value;

namespace {

/// One row of a sort in a set of buffers (one per operand): element k is
/// at linear index base + k * stride of each buffer.
struct SortRow {
  std::vector<BufferRef> buffers;
  Value *base = nullptr;
  int64_t stride = 1;

  Value *at(EmitterContext &ctx, Value *k) const {
    auto &b = ctx.builder();
    return b.CreateAdd(base, b.CreateMul(k, ctx.i64(stride)));
  }
  /// The raw bits of element k of every operand.
  std::vector<Value *> load(EmitterContext &ctx, Value *k) const {
    std::vector<Value *> raw;
    for (const BufferRef &buffer : buffers)
      raw.push_back(loadRaw(ctx, buffer, at(ctx, k)));
    return raw;
  }
  void store(EmitterContext &ctx, Value *k, ArrayRef<Value *> raw) const {
    for (size_t q = 0; q < buffers.size(); ++q)
      storeRaw(ctx, buffers[q], at(ctx, k), raw[q]);
  }
  SortRow withBase(Value *newBase) const { return {buffers, newBase, stride}; }
};

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

/// Whether elements `lhs` (raw bits of every operand) go strictly before
/// elements `rhs`: kiln's key order on operand 0, or the comparator on
/// (lhs_0, rhs_0, lhs_1, rhs_1, ...).
Expected<Value *> sortsBeforeRaw(EmitterContext &ctx, const Instruction &sort,
                                 ArrayRef<Value *> lhs, ArrayRef<Value *> rhs) {
  const ir::Computation *comparator = sort.calledComputation();
  if (!comparator) {
    DType keyType = sort.operand(0)->shape().dtype();
    return sortsBefore(ctx, keyType, ctx.toCompute(keyType, lhs[0]),
                       ctx.toCompute(keyType, rhs[0]),
                       sort.attrs().descending);
  }
  std::vector<Value *> args;
  for (size_t q = 0; q < lhs.size(); ++q) {
    DType type = sort.operand(q)->shape().dtype();
    args.push_back(ctx.toCompute(type, lhs[q]));
    args.push_back(ctx.toCompute(type, rhs[q]));
  }
  Expected<std::vector<Value *>> result =
      emitAppliedComputation(ctx, *comparator, args);
  if (!result)
    return result.takeError();
  return result->front();
}

/// Insertion-sorts `row` (of `length` elements) in runs of
/// kSortInsertionRun: element i moves down no further than the start of
/// its run (all of the row when it is no longer than a run).
Error insertionSortRuns(EmitterContext &ctx, const Instruction &sort,
                        const SortRow &row, int64_t length) {
  auto &b = ctx.builder();
  return ctx.emitLoop(
      1, length, 1,
      [&](Value *i) -> Error {
        Value *runStart = b.CreateAnd(i, ctx.i64(~(kSortInsertionRun - 1)));
        std::vector<Value *> held = row.load(ctx, i);
        auto before = [&](Value *previous) -> Expected<Value *> {
          return sortsBeforeRaw(ctx, sort, held, row.load(ctx, previous));
        };
        auto move = [&](Value *from, Value *to) {
          row.store(ctx, to, row.load(ctx, from));
        };
        Expected<Value *> j = emitShiftLoop(ctx, i, runStart, before, move);
        if (!j)
          return j.takeError();
        row.store(ctx, *j, held);
        return Error::success();
      },
      "s");
}

/// Merges [lo, mid) and [mid, hi) of `from` into [lo, hi) of `to`. Both
/// runs are loaded at clamped positions every step, so the loop has no
/// branch inside; an exhausted run never wins.
Error mergeRuns(EmitterContext &ctx, const Instruction &sort,
                const SortRow &from, const SortRow &to, Value *lo, Value *mid,
                Value *hi) {
  auto &b = ctx.builder();
  llvm::AllocaInst *leftSlot = entryAlloca(ctx, b.getInt64Ty(), "merge.left");
  llvm::AllocaInst *rightSlot =
      entryAlloca(ctx, b.getInt64Ty(), "merge.right");
  b.CreateStore(lo, leftSlot);
  b.CreateStore(mid, rightSlot);
  Value *lastLeft = b.CreateSub(mid, ctx.i64(1));
  Value *lastRight = b.CreateSub(hi, ctx.i64(1));
  return ctx.emitLoop(
      lo, hi, 1,
      [&](Value *k) -> Error {
        Value *left = b.CreateLoad(b.getInt64Ty(), leftSlot);
        Value *right = b.CreateLoad(b.getInt64Ty(), rightSlot);
        Value *leftLive = b.CreateICmpSLT(left, mid);
        Value *rightLive = b.CreateICmpSLT(right, hi);
        // With no right run (mid == hi) lastRight is in the left run:
        // still a real element, and rightLive is false.
        std::vector<Value *> leftRaw = from.load(
            ctx, b.CreateSelect(leftLive, left, lastLeft));
        std::vector<Value *> rightRaw = from.load(
            ctx, b.CreateSelect(rightLive, right, lastRight));
        Expected<Value *> rightBefore =
            sortsBeforeRaw(ctx, sort, rightRaw, leftRaw);
        if (!rightBefore)
          return rightBefore.takeError();
        Value *takeRight = b.CreateAnd(
            rightLive, b.CreateOr(b.CreateNot(leftLive), *rightBefore));
        std::vector<Value *> chosen;
        for (size_t q = 0; q < leftRaw.size(); ++q)
          chosen.push_back(b.CreateSelect(takeRight, rightRaw[q], leftRaw[q]));
        to.store(ctx, k, chosen);
        Value *step = b.CreateZExt(takeRight, b.getInt64Ty());
        b.CreateStore(b.CreateAdd(right, step), rightSlot);
        b.CreateStore(b.CreateAdd(left, b.CreateSub(ctx.i64(1), step)),
                      leftSlot);
        return Error::success();
      },
      "m");
}

/// Merge passes over `scratch` rows A (base 0) and B (base `length`):
/// pass p joins runs of kSortInsertionRun << p pairwise, from A into B
/// when p is even, else from B into A. Returns the base of the row that
/// holds the sorted result.
Expected<int64_t> emitMergePasses(EmitterContext &ctx, const Instruction &sort,
                                  const SortRow &scratch, int64_t length) {
  auto &b = ctx.builder();
  int64_t passes = 0;
  for (int64_t width = kSortInsertionRun; width < length; width *= 2)
    ++passes;
  Error error = ctx.emitLoop(
      0, passes, 1,
      [&](Value *pass) -> Error {
        Value *width = b.CreateShl(ctx.i64(kSortInsertionRun), pass);
        Value *odd = b.CreateTrunc(pass, b.getInt1Ty());
        Value *fromBase = b.CreateSelect(odd, ctx.i64(length), ctx.i64(0));
        Value *toBase = b.CreateSub(ctx.i64(length), fromBase);
        SortRow from = scratch.withBase(fromBase);
        SortRow to = scratch.withBase(toBase);
        Value *pairWidth = b.CreateShl(width, ctx.i64(1));
        Value *pairs = b.CreateUDiv(
            b.CreateAdd(ctx.i64(length), b.CreateSub(pairWidth, ctx.i64(1))),
            pairWidth);
        auto clampToRow = [&](Value *position) {
          return b.CreateSelect(b.CreateICmpSLT(position, ctx.i64(length)),
                                position, ctx.i64(length));
        };
        return ctx.emitLoop(
            ctx.i64(0), pairs, 1,
            [&](Value *pair) -> Error {
              Value *lo = b.CreateMul(pair, pairWidth);
              Value *mid = clampToRow(b.CreateAdd(lo, width));
              Value *hi = clampToRow(b.CreateAdd(lo, pairWidth));
              return mergeRuns(ctx, sort, from, to, lo, mid, hi);
            },
            "pair");
      },
      "pass");
  if (error)
    return error;
  return passes % 2 == 0 ? 0 : length;
}

/// The sort's scratch rows (two of `length` elements per operand).
SortRow scratchRows(EmitterContext &ctx, const Instruction &sort,
                    Value *scratch, int64_t length) {
  auto &b = ctx.builder();
  SortRow row;
  row.base = ctx.i64(0);
  for (size_t q = 0; q < sort.operandCount(); ++q) {
    DType type = sort.operand(q)->shape().dtype();
    Value *address = b.CreateConstInBoundsGEP1_64(
        b.getInt8Ty(), scratch, uint64_t(analysis::sortScratchOffset(sort, q)));
    row.buffers.push_back(
        BufferRef{address, type, {2 * length}, ir::byteSize(type)});
  }
  return row;
}

/// Copies elements [0, length) of `from` to `to`.
Error copyRow(EmitterContext &ctx, const SortRow &from, const SortRow &to,
              int64_t length) {
  return ctx.emitLoop(
      0, length, 1,
      [&](Value *k) -> Error {
        to.store(ctx, k, from.load(ctx, k));
        return Error::success();
      },
      "c");
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
  std::vector<int64_t> rowDims = keys.dims();
  rowDims.erase(rowDims.begin() + axis);
  Value *scratch = nullptr;
  if (length > kSortInsertionRun) {
    scratch = ctx.packingScratch(instruction);
    if (!scratch)
      return makeError("sort '{}': buffer assignment gave no scratch for its "
                       "merge passes",
                       instruction.name());
  }

  return ctx.emitLoopNest(rowDims, [&](ArrayRef<Value *> rowIndex) -> Error {
    SortRow row{outs,
                linearOrZero(ctx,
                             mergeIndices(rowIndex, {ctx.i64(0)}, {axis},
                                          keys.rank()),
                             keys.dims()),
                keys.strides()[size_t(axis)]};
    if (!scratch)
      return insertionSortRuns(ctx, instruction, row, length);
    SortRow rows = scratchRows(ctx, instruction, scratch, length);
    if (Error e = copyRow(ctx, row, rows, length))
      return e;
    if (Error e = insertionSortRuns(ctx, instruction, rows, length))
      return e;
    Expected<int64_t> sortedBase =
        emitMergePasses(ctx, instruction, rows, length);
    if (!sortedBase)
      return sortedBase.takeError();
    return copyRow(ctx, rows.withBase(ctx.i64(*sortedBase)), row, length);
  });
}

} // namespace kiln::codegen
