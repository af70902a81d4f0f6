//===- ReductionEmitter.cpp - reduce, reduce-window, arg-max, arg-min -----===//
//
// Each output element keeps its accumulator in a register (an entry-block
// alloca that mem2reg promotes) and folds the reduced elements into it in
// row-major order, starting from the init value (max, min, and, or along
// the innermost dimension keep one accumulator per vector lane: their
// result does not depend on the order). f16/bf16 accumulate in f32 and
// round once on store. The reducer is applied through the elementwise
// emitter, so `max`/`min` treat NaN exactly like `maximum`/`minimum`.
//
//===----------------------------------------------------------------------===//
#include "ComputeHelpers.h"
#include "Emitters.h"
#include "Parallel.h"

#include <algorithm>

namespace kiln::codegen {

using ir::DType;
using ir::Instruction;
using llvm::ArrayRef;
using llvm::Value;

namespace {

/// The elementwise opcode each reducer kind combines with.
constexpr std::pair<ir::ReducerKind, ir::Opcode> kReducerOps[] = {
    {ir::ReducerKind::Add, ir::Opcode::Add},
    {ir::ReducerKind::Mul, ir::Opcode::Multiply},
    {ir::ReducerKind::Max, ir::Opcode::Maximum},
    {ir::ReducerKind::Min, ir::Opcode::Minimum},
    {ir::ReducerKind::And, ir::Opcode::And},
    {ir::ReducerKind::Or, ir::Opcode::Or},
};

Expected<Value *> combine(EmitterContext &ctx, const Instruction &instruction,
                          Value *acc, Value *element) {
  ir::Opcode opcode = ir::Opcode::Add;
  for (auto [kind, op] : kReducerOps)
    if (kind == instruction.attrs().reducer)
      opcode = op;
  DType dtype = instruction.operand(0)->shape().dtype();
  Value *result = emitElementwiseOp(ctx, opcode, dtype, {acc, element});
  if (!result)
    return EmitterContext::unsupported(instruction, "reducer for this dtype");
  return result;
}

/// Dimensions of `dims` not listed in `removed`, in order.
std::vector<int64_t> keptDims(ArrayRef<int64_t> dims,
                              ArrayRef<int64_t> removed) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < int64_t(dims.size()); ++d)
    if (std::find(removed.begin(), removed.end(), d) == removed.end())
      kept.push_back(dims[size_t(d)]);
  return kept;
}

/// Whether the row path applies: the last dimension is kept (so rows of
/// the operand map onto contiguous output rows), the operand is in memory
/// or fused and generated in row runs (an input fusion), and partial
/// results are exact in the output's storage (not f16/bf16, which would
/// round every step, nor pred).
bool rowReduceApplies(EmitterContext &ctx, const Instruction &instruction,
                      ArrayRef<int64_t> reduced) {
  const ir::Shape &in = instruction.operand(0)->shape();
  DType dtype = in.dtype();
  if (dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::Pred)
    return false;
  if (reduced.empty() || in.rank() == 0 || in.numElements() == 0 ||
      std::find(reduced.begin(), reduced.end(), in.rank() - 1) != reduced.end())
    return false;
  return rowVectorizable(ctx, *instruction.operand(0));
}

/// Fills the output with init, then walks the operand row by row and folds
/// each row into its output row with target-width vectors. Every output
/// element still folds its inputs in row-major order from init, exactly as
/// the scalar path, so the results are identical; only the loop order (and
/// contiguity) differs.
Error emitRowReduce(EmitterContext &ctx, const Instruction &instruction,
                    ArrayRef<int64_t> reduced, Value *init) {
  const ir::Shape &inShape = instruction.operand(0)->shape();
  DType dtype = inShape.dtype();
  const Instruction &operand = *instruction.operand(0);
  BufferRef out = ctx.outputBuffer(instruction);
  auto &b = ctx.builder();
  if (Error e = emitVectorRow(
          ctx, dtype, out.numElements(), [&](Value *j, unsigned lanes) {
            ctx.storeElement(
                out, j, lanes > 1 ? b.CreateVectorSplat(lanes, init) : init);
            return Error::success();
          }))
    return e;
  std::vector<int64_t> rowDims(inShape.dims().begin(),
                               inShape.dims().end() - 1);
  int64_t n = inShape.dims().back();
  return ctx.emitLoopNest(rowDims, [&](ArrayRef<Value *> row) -> Error {
    std::vector<Value *> inIndex(row.begin(), row.end()), outIndex;
    inIndex.push_back(ctx.i64(0));
    for (int64_t d = 0; d < int64_t(inIndex.size()); ++d)
      if (std::find(reduced.begin(), reduced.end(), d) == reduced.end())
        outIndex.push_back(inIndex[size_t(d)]);
    Value *inBase = ctx.linearIndex(inIndex, inShape.dims());
    Value *outBase = ctx.linearIndex(outIndex, out.dims);
    return emitVectorRow(ctx, dtype, n, [&](Value *j, unsigned lanes) -> Error {
      Value *at = b.CreateAdd(outBase, j);
      inIndex.back() = j;
      ctx.clearGenerated();
      Expected<Value *> x = ctx.elementOf(
          operand, ElementIndex{inIndex, b.CreateAdd(inBase, j), lanes});
      if (!x)
        return x.takeError();
      Expected<Value *> next =
          combine(ctx, instruction, ctx.loadElement(out, at, lanes), *x);
      if (!next)
        return next.takeError();
      ctx.storeElement(out, at, *next);
      return Error::success();
    });
  });
}

/// The row path over the output rows `rows` only (a split task): each
/// output row is filled with init and then folds its operand rows in
/// row-major order of the reduced dimensions, which is the order the
/// whole-operand walk of emitRowReduce folds them in, with the same vector
/// runs; so every element gets the same result.
Error emitRowReduceRows(EmitterContext &ctx, const Instruction &instruction,
                        ArrayRef<int64_t> reduced, Value *init,
                        const UnitRange &rows) {
  const ir::Shape &inShape = instruction.operand(0)->shape();
  DType dtype = inShape.dtype();
  const Instruction &operand = *instruction.operand(0);
  BufferRef out = ctx.outputBuffer(instruction);
  auto &b = ctx.builder();
  int64_t n = inShape.dims().back();
  std::vector<int64_t> outOuter(out.dims.begin(), out.dims.end() - 1);
  std::vector<int64_t> reducedSizes;
  for (int64_t d : reduced)
    reducedSizes.push_back(inShape.dim(size_t(d)));
  return ctx.emitLoop(
      rows.begin, rows.end, 1,
      [&](Value *row) -> Error {
        std::vector<Value *> kept = ctx.delinearize(row, outOuter);
        kept.push_back(ctx.i64(0));
        Value *outBase = b.CreateNUWMul(row, ctx.i64(n));
        if (Error e =
                emitVectorRow(ctx, dtype, n, [&](Value *j, unsigned lanes) {
                  ctx.storeElement(out, b.CreateAdd(outBase, j),
                                   lanes > 1 ? b.CreateVectorSplat(lanes, init)
                                             : init);
                  return Error::success();
                }))
          return e;
        return ctx.emitLoopNest(
            reducedSizes,
            [&](ArrayRef<Value *> red) -> Error {
              std::vector<Value *> inIndex =
                  mergeIndices(kept, red, reduced, inShape.rank());
              Value *inBase = ctx.linearIndex(inIndex, inShape.dims());
              return emitVectorRow(
                  ctx, dtype, n, [&](Value *j, unsigned lanes) -> Error {
                    Value *at = b.CreateAdd(outBase, j);
                    inIndex.back() = j;
                    ctx.clearGenerated();
                    Expected<Value *> x = ctx.elementOf(
                        operand,
                        ElementIndex{inIndex, b.CreateAdd(inBase, j), lanes});
                    if (!x)
                      return x.takeError();
                    Expected<Value *> next = combine(
                        ctx, instruction, ctx.loadElement(out, at, lanes), *x);
                    if (!next)
                      return next.takeError();
                    ctx.storeElement(out, at, *next);
                    return Error::success();
                  });
            },
            "r");
      },
      "u");
}

/// Whether `kind` gives the same result in any folding order and is
/// idempotent on its init (so each vector lane may start from it): max and
/// min (NaN wins, and max(-0, +0) = +0 either way, see math::fmaximum),
/// and/or. Sums and products round (floats) or would count init per lane.
bool orderFreeIdempotent(ir::ReducerKind kind) {
  return kind == ir::ReducerKind::Max || kind == ir::ReducerKind::Min ||
         kind == ir::ReducerKind::And || kind == ir::ReducerKind::Or;
}

/// The lane path: a reduction over the innermost dimension alone with an
/// order-free reducer keeps one accumulator per vector lane along the row
/// (the row path needs the innermost dimension kept). A max over 12804
/// scores went from 30 us (scalar, one dependent compare-select chain) to
/// a few.
unsigned laneReduceLanes(EmitterContext &ctx, const Instruction &instruction,
                         ArrayRef<int64_t> reduced) {
  const ir::Shape &in = instruction.operand(0)->shape();
  DType dtype = in.dtype();
  if (dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::Pred ||
      !orderFreeIdempotent(instruction.attrs().reducer))
    return 1;
  if (in.rank() == 0 || reduced.size() != 1 ||
      reduced[0] != int64_t(in.rank()) - 1)
    return 1;
  int64_t n = in.dims().back();
  unsigned lanes = ctx.rowLanes(BufferRef{nullptr, dtype, {n}, 1});
  if (lanes < 2 || n < 2 * int64_t(lanes) ||
      !rowVectorizable(ctx, *instruction.operand(0)))
    return 1;
  return lanes;
}

/// Each output element: `lanes` accumulators from init fold the row's
/// whole vectors, then fold into one, then the row's tail.
Error emitLaneReduce(EmitterContext &ctx, const Instruction &instruction,
                     Value *init, unsigned lanes, const UnitRange *units) {
  const Instruction &operand = *instruction.operand(0);
  const ir::Shape &inShape = operand.shape();
  const std::vector<int64_t> &outDims = instruction.shape().dims();
  BufferRef out = ctx.outputBuffer(instruction);
  int64_t n = inShape.dims().back();
  int64_t vectorEnd = n - n % int64_t(lanes);
  auto &b = ctx.builder();
  llvm::AllocaInst *acc =
      entryAlloca(ctx, llvm::FixedVectorType::get(init->getType(), lanes), "lanes");
  auto element = [&](ArrayRef<Value *> outIndex) -> Error {
    std::vector<Value *> inIndex(outIndex.begin(), outIndex.end());
    inIndex.push_back(ctx.i64(0));
    Value *inBase = ctx.linearIndex(inIndex, inShape.dims());
    auto read = [&](Value *j, unsigned width) -> Expected<Value *> {
      inIndex.back() = j;
      ctx.clearGenerated();
      return ctx.elementOf(operand,
                           ElementIndex{inIndex, b.CreateAdd(inBase, j), width});
    };
    b.CreateStore(b.CreateVectorSplat(lanes, init), acc);
    if (Error e = ctx.emitLoop(0, vectorEnd, lanes, [&](Value *j) -> Error {
          Expected<Value *> x = read(j, lanes);
          if (!x)
            return x.takeError();
          Expected<Value *> next = combine(
              ctx, instruction, b.CreateLoad(acc->getAllocatedType(), acc), *x);
          if (!next)
            return next.takeError();
          b.CreateStore(*next, acc);
          return Error::success();
        }, "v"))
      return e;
    Value *vector = b.CreateLoad(acc->getAllocatedType(), acc);
    Value *result = b.CreateExtractElement(vector, uint64_t(0));
    for (unsigned l = 1; l < lanes; ++l) {
      Expected<Value *> next = combine(ctx, instruction, result,
                                       b.CreateExtractElement(vector, uint64_t(l)));
      if (!next)
        return next.takeError();
      result = *next;
    }
    for (int64_t j = vectorEnd; j < n; ++j) {
      Expected<Value *> x = read(ctx.i64(j), 1);
      if (!x)
        return x.takeError();
      Expected<Value *> next = combine(ctx, instruction, result, *x);
      if (!next)
        return next.takeError();
      result = *next;
    }
    ctx.storeElement(out, linearOrZero(ctx, outIndex, outDims), result);
    return Error::success();
  };
  if (units)
    return ctx.emitRowsLoop(outDims, *units, element);
  return ctx.emitLoopNest(outDims, element);
}

} // namespace

Error emitReduce(EmitterContext &ctx, const Instruction &instruction) {
  if (instruction.calledComputation())
    return emitAppliedReduce(ctx, instruction);
  const ir::Shape &in = instruction.operand(0)->shape();
  const ir::Shape &out = instruction.shape();
  std::vector<int64_t> reduced = instruction.attrs().dimensions;
  std::sort(reduced.begin(), reduced.end());
  // Split over kept dimensions only: each result element is folded by one
  // task, in the order the whole kernel folds it.
  if (rowReduceApplies(ctx, instruction, reduced)) {
    int64_t rows = out.numElements() / out.dims().back();
    return emitSplitOrWhole(
        ctx, instruction, rows, 0, [&](const UnitRange *units) -> Error {
          Expected<Value *> init = ctx.operandElement(instruction, 1, {});
          if (!init)
            return init.takeError();
          if (units)
            return emitRowReduceRows(ctx, instruction, reduced, *init, *units);
          return emitRowReduce(ctx, instruction, reduced, *init);
        });
  }
  if (unsigned lanes = laneReduceLanes(ctx, instruction, reduced); lanes > 1)
    return emitSplitOrWhole(
        ctx, instruction, EmitterContext::rowUnits(out.dims()), in.numElements(),
        [&](const UnitRange *units) -> Error {
          Expected<Value *> init = ctx.operandElement(instruction, 1, {});
          if (!init)
            return init.takeError();
          return emitLaneReduce(ctx, instruction, *init, lanes, units);
        });
  std::vector<int64_t> reducedSizes;
  for (int64_t d : reduced)
    reducedSizes.push_back(in.dim(size_t(d)));
  return emitSplitOrWhole(
      ctx, instruction, EmitterContext::rowUnits(out.dims()), in.numElements(),
      [&](const UnitRange *units) -> Error {
        Expected<Value *> init = ctx.operandElement(instruction, 1, {});
        if (!init)
          return init.takeError();
        return emitAccumulation(
            ctx, instruction, *init, reducedSizes, "r",
            [&](ArrayRef<Value *> outIndex, ArrayRef<Value *> redIndex,
                Value *acc) -> Expected<Value *> {
              auto full = mergeIndices(outIndex, redIndex, reduced, in.rank());
              Expected<Value *> element =
                  ctx.operandElement(instruction, 0, full);
              if (!element)
                return element.takeError();
              return combine(ctx, instruction, acc, *element);
            },
            units);
      });
}

namespace {

/// Whether the window leaves the innermost dimension alone (size 1,
/// stride 1, no padding or dilation: a pool over NHWC's H and W), so each
/// output row is its operand rows' taps folded lane by lane, and the
/// operand gives rows as vectors. f16/bf16 and pred stay scalar.
bool channelWindowApplies(EmitterContext &ctx, const Instruction &instruction) {
  const ir::Shape &in = instruction.operand(0)->shape();
  DType dtype = in.dtype();
  if (dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::Pred)
    return false;
  if (in.rank() < 2 || in.numElements() == 0)
    return false;
  const ir::WindowDim &last = instruction.attrs().window.back();
  if (!(last == ir::WindowDim{}))
    return false;
  const ir::Shape &out = instruction.shape();
  BufferRef layout{nullptr, out.dtype(), out.dims(), 1};
  return ctx.rowLanes(layout) > 1 &&
         rowVectorizable(ctx, *instruction.operand(0));
}

/// reduce-window in row runs along the untouched innermost dimension: per
/// output row, vectors of `lanes` elements (then narrower ones) start at
/// init and fold the window's taps in row-major order, as the scalar path
/// folds each element (a tap in padding adds init), so the results are the
/// same. `units`: only those output rows.
Error emitChannelReduceWindow(EmitterContext &ctx,
                              const Instruction &instruction,
                              ArrayRef<int64_t> windowSizes,
                              const UnitRange *units) {
  const Instruction &operand = *instruction.operand(0);
  BufferRef out = ctx.outputBuffer(instruction);
  auto &b = ctx.builder();
  Expected<Value *> init = ctx.operandElement(instruction, 1, {});
  if (!init)
    return init.takeError();
  unsigned lanes = ctx.rowLanes(out);
  int64_t row = out.dims.back();
  int64_t vectorEnd = row - row % int64_t(lanes);
  std::vector<int64_t> outer(out.dims.begin(), out.dims.end() - 1);
  auto run = [&](ArrayRef<Value *> prefix, Value *j, unsigned width) -> Error {
    std::vector<Value *> outIndex(prefix.begin(), prefix.end());
    outIndex.push_back(j);
    Value *start = ctx.splat(*init, width);
    llvm::AllocaInst *acc = entryAlloca(ctx, start->getType());
    b.CreateStore(start, acc);
    Error taps = ctx.emitLoopNest(
        windowSizes,
        [&](ArrayRef<Value *> winIndex) -> Error {
          WindowTap tap = windowTap(ctx, instruction, outIndex, winIndex);
          ctx.clearGenerated();
          Expected<Value *> element =
              ctx.elementOf(operand, ElementIndex{tap.index, nullptr, width});
          if (!element)
            return element.takeError();
          Value *x = b.CreateSelect(tap.valid, *element, start);
          Expected<Value *> next =
              combine(ctx, instruction, b.CreateLoad(start->getType(), acc), x);
          if (!next)
            return next.takeError();
          b.CreateStore(*next, acc);
          return Error::success();
        },
        "w");
    if (taps)
      return taps;
    ctx.storeElement(out, ctx.linearIndex(outIndex, out.dims),
                     b.CreateLoad(start->getType(), acc));
    return Error::success();
  };
  // Full vectors, then the rest in halving widths (24 channels on 16
  // lanes: 16 + 8), each element in exactly one run.
  auto rowBody = [&](ArrayRef<Value *> prefix) -> Error {
    if (Error e = ctx.emitLoop(
            0, vectorEnd, lanes,
            [&](Value *j) { return run(prefix, j, lanes); }, "v"))
      return e;
    int64_t at = vectorEnd;
    for (unsigned width = lanes / 2; width >= 1; width /= 2)
      if (row - at >= int64_t(width)) {
        if (Error e = run(prefix, ctx.i64(at), width))
          return e;
        at += width;
      }
    return Error::success();
  };
  if (!units)
    return ctx.emitLoopNest(outer, rowBody);
  return ctx.emitLoop(
      units->begin, units->end, 1,
      [&](Value *r) { return rowBody(ctx.delinearize(r, outer)); }, "u");
}

} // namespace

Error emitReduceWindow(EmitterContext &ctx, const Instruction &instruction) {
  if (instruction.calledComputation())
    return emitAppliedReduceWindow(ctx, instruction);
  const ir::Shape &in = instruction.operand(0)->shape();
  const auto &window = instruction.attrs().window;
  if (int64_t(window.size()) != in.rank())
    return EmitterContext::unsupported(instruction, "window rank mismatch");
  std::vector<int64_t> windowSizes;
  for (const ir::WindowDim &w : window)
    windowSizes.push_back(w.size);
  // An empty operand has nothing to read: every tap is padding.
  bool empty = in.numElements() == 0;
  auto emit = [&](const UnitRange *units) -> Error {
    Expected<Value *> init = ctx.operandElement(instruction, 1, {});
    if (!init)
      return init.takeError();
    return emitAccumulation(
        ctx, instruction, *init, windowSizes, "w",
        [&](ArrayRef<Value *> outIndex, ArrayRef<Value *> winIndex,
            Value *acc) -> Expected<Value *> {
          Value *x = *init;
          if (!empty) {
            WindowTap tap = windowTap(ctx, instruction, outIndex, winIndex);
            Expected<Value *> element =
                ctx.operandElement(instruction, 0, tap.index);
            if (!element)
              return element.takeError();
            // Padding and dilation holes hold the init value (XLA's rule).
            x = ctx.builder().CreateSelect(tap.valid, *element, *init);
          }
          return combine(ctx, instruction, acc, x);
        },
        units);
  };
  int64_t taps = instruction.shape().numElements();
  for (int64_t size : windowSizes)
    taps *= size;
  const std::vector<int64_t> &outDims = instruction.shape().dims();
  if (channelWindowApplies(ctx, instruction)) {
    int64_t rows = instruction.shape().numElements() / outDims.back();
    return emitSplitOrWhole(ctx, instruction, rows, taps / outDims.back(),
                            [&](const UnitRange *units) {
                              return emitChannelReduceWindow(
                                  ctx, instruction, windowSizes, units);
                            });
  }
  return emitSplitOrWhole(ctx, instruction, EmitterContext::rowUnits(outDims),
                          taps, emit);
}

namespace {

/// arg-max (greater=true) / arg-min: the first index of the extreme value;
/// a NaN is more extreme than any number and the first NaN wins (numpy).
Error emitArgExtreme(EmitterContext &ctx, const Instruction &instruction,
                     bool greater) {
  const ir::Shape &in = instruction.operand(0)->shape();
  DType dtype = in.dtype();
  int64_t axis = instruction.attrs().dimensions.at(0);
  int64_t length = in.dim(size_t(axis));
  std::vector<int64_t> outDims = keptDims(in.dims(), {axis});
  BufferRef out = ctx.outputBuffer(instruction);
  DType indexType = instruction.shape().dtype();
  llvm::AllocaInst *best = entryAlloca(ctx, ctx.computeType(dtype), "best");
  llvm::AllocaInst *bestAt = entryAlloca(ctx, ctx.builder().getInt64Ty(), "at");
  auto &b = ctx.builder();
  if (length == 0)
    return Error::success();

  return ctx.emitLoopNest(outDims, [&](ArrayRef<Value *> outIndex) -> Error {
    auto first = mergeIndices(outIndex, {ctx.i64(0)}, {axis}, in.rank());
    Expected<Value *> start = ctx.operandElement(instruction, 0, first);
    if (!start)
      return start.takeError();
    b.CreateStore(*start, best);
    b.CreateStore(ctx.i64(0), bestAt);
    Error inner = ctx.emitLoop(
        1, length, 1,
        [&](Value *at) -> Error {
          auto full = mergeIndices(outIndex, {at}, {axis}, in.rank());
          Expected<Value *> x = ctx.operandElement(instruction, 0, full);
          if (!x)
            return x.takeError();
          Value *current = b.CreateLoad(best->getAllocatedType(), best);
          Value *better = strictlyOrdered(ctx, dtype, *x, current, greater);
          if (ir::isFloat(dtype))
            better = b.CreateAnd(b.CreateNot(isNaN(ctx, dtype, current)),
                                 b.CreateOr(isNaN(ctx, dtype, *x), better));
          b.CreateStore(b.CreateSelect(better, *x, current), best);
          Value *currentAt = b.CreateLoad(b.getInt64Ty(), bestAt);
          b.CreateStore(b.CreateSelect(better, at, currentAt), bestAt);
          return Error::success();
        },
        "k");
    if (inner)
      return inner;
    Value *index = b.CreateTrunc(b.CreateLoad(b.getInt64Ty(), bestAt),
                                 ctx.computeType(indexType));
    ctx.storeElement(out, linearOrZero(ctx, outIndex, outDims), index);
    return Error::success();
  });
}

} // namespace

Error emitArgMax(EmitterContext &ctx, const Instruction &instruction) {
  return emitArgExtreme(ctx, instruction, /*greater=*/true);
}

Error emitArgMin(EmitterContext &ctx, const Instruction &instruction) {
  return emitArgExtreme(ctx, instruction, /*greater=*/false);
}

} // namespace kiln::codegen
