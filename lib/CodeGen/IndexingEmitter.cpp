//===- IndexingEmitter.cpp - gather, dynamic slices, top-k ----------------===//
//
// Start indices of gather and the dynamic slices are clamped so the slice
// stays in bounds (XLA's rule), which also keeps every generated load in
// bounds whatever the caller passes. gather and dynamic-slice are
// generators (one element at an index, fused or alone);
// dynamic-update-slice writes its window into its result's buffer. top-k keeps a sorted window of k
// candidates per row in its result buffers. (sort: SortEmitter.cpp.)
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

/// The vector width for rows of a window of `dims` (1 for pred, whose
/// elements are not moved as vectors).
unsigned windowRowLanes(EmitterContext &ctx, DType dtype,
                        ArrayRef<int64_t> dims) {
  if (dtype == DType::Pred)
    return 1;
  return std::max(ctx.rowLanes(BufferRef{nullptr, dtype, dims.vec(), 1}), 1u);
}

} // namespace

// A dynamic-slice is elemental: each output element reads the start
// indices (scalars, so one load each per run and hoisted out of the loop by
// LLVM when nothing stored aliases them), clamps them (XLA's rule: the
// window stays inside the operand) and reads one operand element. Fused, a
// scan's row is read straight from its input instead of copied first. A
// window row is contiguous in the operand: row runs read it in vectors.
Expected<Value *> generateDynamicSlice(EmitterContext &ctx,
                                       const Instruction &instruction,
                                       const ElementIndex &index) {
  const ir::Shape &in = instruction.operand(0)->shape();
  auto starts = clampedStarts(ctx, instruction, 1, in.dims(),
                              instruction.shape().dims());
  if (!starts)
    return starts.takeError();
  auto &b = ctx.builder();
  std::vector<Value *> source;
  for (size_t d = 0; d < starts->size(); ++d)
    source.push_back(b.CreateAdd((*starts)[d], index.indices[d]));
  return ctx.elementOf(*instruction.operand(0),
                       ElementIndex{std::move(source), nullptr, index.lanes});
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
          Expected<Value *> j =
              emitShiftLoop(ctx, start, ctx.i64(0), before, move);
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
