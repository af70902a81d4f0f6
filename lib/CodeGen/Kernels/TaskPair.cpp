//===- TaskPair.cpp - A depthwise and a pointwise convolution as one job --===//
#include "TaskPair.h"
#include "ConvGeometry.h"
#include "KernelSupport.h"
#include "PackedWeights.h"

namespace kiln::codegen::kernels {

using ir::Instruction;
using llvm::Value;

namespace {

/// The convolution `top` computes: itself, or the one contraction of an
/// output fusion (the fusion's chain becomes the kernel's epilogue).
const Instruction *convolutionOf(const Instruction &top) {
  const Instruction *conv =
      top.opcode() == ir::Opcode::Convolution ? &top : soleContraction(top);
  return conv && conv->opcode() == ir::Opcode::Convolution ? conv : nullptr;
}

/// What the kernel computing `conv` reads, as the kernel sees it (through
/// the parameters of `top` when it is the fusion around `conv`): the
/// top-level value of its input, and whether its weights are a constant.
struct ConvolutionReads {
  const Instruction *input = nullptr;
  bool constantWeights = false;
};
ConvolutionReads readsOf(EmitterContext &ctx, const Instruction &top,
                         const Instruction &conv) {
  bool fused = &conv != &top;
  if (fused)
    ctx.bindFusion(top);
  ConvolutionReads reads{&ctx.underlying(*conv.operand(0)),
                         constantSource(ctx, *conv.operand(1)) != nullptr};
  if (fused)
    ctx.unbindFusion(top);
  return reads;
}

/// Whether `value` has bytes of its own in one block (not a part of a
/// concatenate's rows).
bool contiguous(EmitterContext &ctx, const Instruction &value) {
  analysis::ValueRef ref{&value, -1};
  return ctx.buffers().hasSlice(ref) && !ctx.buffers().slice(ref).strided();
}

/// Whether `writer`'s output (contiguous) is apart from every operand of
/// `reader`.
bool writesApart(EmitterContext &ctx, const Instruction &writer,
                 const Instruction &reader) {
  const analysis::BufferAssignment &buffers = ctx.buffers();
  analysis::ValueRef written{&writer, -1};
  for (const Instruction *operand : reader.operands()) {
    analysis::ValueRef read{operand, -1};
    if (buffers.hasSlice(read)) {
      if (buffers.bytesOverlap(written, read))
        return false;
    } else if (analysis::BufferAssignment::resolve(read)
                   .instruction->opcode() != ir::Opcode::Constant) {
      return false; // only a constant, read-only, may have no bytes here
    }
  }
  return true;
}

/// Tasks over `rows` rows of `flopsPerRow`: the split the kernels would
/// choose for the pair's work, reduced to a count that divides the rows,
/// so every task has as many pixels (and the same short GEMM tile).
TaskSplit equalRowSplit(int64_t rows, int64_t flopsPerRow,
                        int64_t minRowsPerTask) {
  TaskSplit wanted = splitUnits(rows, flopsPerRow, minRowsPerTask);
  for (int64_t tasks = wanted.tasks; tasks >= 2; --tasks)
    if (rows % tasks == 0 && tasks % 2 == 0)
      return splitInto(rows, tasks);
  return {};
}

} // namespace

std::optional<TaskPair> findTaskPair(EmitterContext &ctx,
                                     const Instruction &first,
                                     const Instruction &second) {
  const Instruction *dwConv = convolutionOf(first);
  const Instruction *pwConv = convolutionOf(second);
  if (!dwConv || !pwConv || !hasKernelDtype(*dwConv) ||
      !hasKernelDtype(*pwConv))
    return std::nullopt;
  ConvolutionReads dwReads = readsOf(ctx, first, *dwConv);
  ConvolutionReads pwReads = readsOf(ctx, second, *pwConv);
  if (pwReads.input != &first || !dwReads.constantWeights ||
      !pwReads.constantWeights)
    return std::nullopt;
  std::optional<ConvGeometry> dw = convGeometry(*dwConv);
  std::optional<ConvGeometry> pw = convGeometry(*pwConv);
  if (!dw || !pw || dw->pixels == 0 || dw->groups < 2 || dw->inPerGroup != 1 ||
      dw->outPerGroup != 1 || pw->groups != 1 || !isPointwise(*pw) ||
      !isDenseNhwc(*pwConv) || pw->pixels != dw->pixels)
    return std::nullopt;
  // The depthwise reads rows around its own (the window's halo), which
  // other tasks' pointwise outputs must not overwrite. Both kernels split
  // by pixel, so both outputs must be one block.
  if (!contiguous(ctx, first) || !contiguous(ctx, second) ||
      !writesApart(ctx, second, first))
    return std::nullopt;

  TaskPair pair;
  pair.depthwise = &first;
  pair.pointwise = &second;
  pair.width = dw->outSizes.back();
  pair.rows = dw->pixels / pair.width;
  int64_t flopsPerRow =
      2 * pair.width *
      (dw->groups * dw->taps + pw->inPerGroup * pw->outFeatures);
  // As for a GEMM split alone (Gemm.cpp): a task's rows should be worth
  // streaming the pointwise's weights for.
  constexpr int64_t kMinPixelsPerTask = 24;
  pair.split = equalRowSplit(pair.rows, flopsPerRow,
                             (kMinPixelsPerTask + pair.width - 1) / pair.width);
  if (!pair.split.split())
    return std::nullopt;
  return pair;
}

TaskPair *depthwiseOfPair(EmitterContext &ctx, const Instruction &computed) {
  TaskPair *pair = ctx.taskPair();
  return pair && pair->depthwise == &computed ? pair : nullptr;
}

TaskPair *pointwiseOfPair(EmitterContext &ctx, const Instruction &computed) {
  TaskPair *pair = ctx.taskPair();
  return pair && pair->pointwise == &computed && pair->depthwiseCall ? pair
                                                                     : nullptr;
}

void deferDepthwiseCall(EmitterContext &ctx, TaskPair &pair, KernelCall call) {
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::Function *function = b.GetInsertBlock()->getParent();
  pair.callSite =
      llvm::BasicBlock::Create(ctx.context(), "pair.depthwise", function);
  pair.afterCall =
      llvm::BasicBlock::Create(ctx.context(), "pair.after", function);
  b.CreateBr(pair.callSite);
  b.SetInsertPoint(pair.afterCall);
  pair.depthwiseCall = std::move(call);
}

void emitPairCall(EmitterContext &ctx, TaskPair &pair, KernelCall pointwise) {
  emitKernelCalls(ctx, {*pair.depthwiseCall, std::move(pointwise)}, pair.split);
  llvm::BranchInst::Create(pair.afterCall, pair.callSite);
  pair.depthwiseCall.reset();
}

void finishTaskPair(EmitterContext &ctx, TaskPair &pair) {
  if (!pair.depthwiseCall)
    return;
  llvm::IRBuilder<> &b = ctx.builder();
  llvm::IRBuilderBase::InsertPointGuard guard(b);
  b.SetInsertPoint(pair.callSite);
  emitKernelCalls(ctx, {*pair.depthwiseCall}, pair.split);
  b.CreateBr(pair.afterCall);
  pair.depthwiseCall.reset();
}

GemmRows pairedGemmRows(EmitterContext &ctx, const TaskPair &pair, int64_t mr,
                        Value *task) {
  llvm::IRBuilder<> &b = ctx.builder();
  int64_t pixels = pair.pixelsPerTask();
  GemmRows rows;
  rows.first = b.CreateNUWMul(task, ctx.i64(pixels));
  rows.end = b.CreateNUWAdd(rows.first, ctx.i64(pixels / mr * mr));
  rows.withTail = b.getTrue();
  rows.tailFirst = rows.end;
  rows.tailRows = pixels % mr;
  return rows;
}

} // namespace kiln::codegen::kernels
