//===- DotKernel.cpp - dot through the packed GEMM ------------------------===//
//
// Any dot_general whose batch, row (lhs free), contracted and column (rhs
// free) dimensions each collapse to one uniform stride maps onto emitGemm
// without copies: row-major, transposed-lhs and the importers' batched
// forms alike. A constant rhs (weights) is packed at compile time, in any
// dimension order; a run-time rhs is read in place when its columns are
// contiguous, and otherwise (x * y^T) packed by the kernel into the arena
// scratch buffer assignment reserved for it (packingScratchBytes). Anything
// else stays on the generic emitter.
//
//===----------------------------------------------------------------------===//
#include "Gemm.h"
#include "KernelSupport.h"
#include "Kernels.h"
#include "PackedWeights.h"

#include <llvm/IR/Constants.h>

#include <fmt/format.h>

#include <algorithm>

namespace kiln::codegen::kernels {

using ir::Instruction;
using llvm::Value;

namespace {

std::vector<int64_t> freeDims(int64_t rank, const std::vector<int64_t> &batch,
                              const std::vector<int64_t> &contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) ==
            contracting.end())
      free.push_back(d);
  return free;
}

/// A dot as a batch of GEMMs: sizes and the strides of every role.
struct DotGeometry {
  int64_t batches = 0, m = 0, n = 0, k = 0;
  int64_t aBatch = 0, aRow = 0, aK = 0;    // lhs strides
  int64_t bBatch = 0, bK = 0, bN = 0;      // rhs strides (when uniform)
  bool bUniform = false;                   // every rhs role has one stride
  bool bInPlace = false;                   // ... and its columns are contiguous
};

std::optional<DotGeometry> dotGeometry(const Instruction &dot) {
  const auto &dn = dot.attrs().dot;
  const ir::Shape &lhs = dot.operand(0)->shape();
  const ir::Shape &rhs = dot.operand(1)->shape();
  DotGeometry g;
  DimProgression aB = dimProgression(lhs, dn.lhsBatch);
  DimProgression aM =
      dimProgression(lhs, freeDims(lhs.rank(), dn.lhsBatch, dn.lhsContracting));
  DimProgression aK = dimProgression(lhs, dn.lhsContracting);
  DimProgression bB = dimProgression(rhs, dn.rhsBatch);
  DimProgression bK = dimProgression(rhs, dn.rhsContracting);
  DimProgression bN =
      dimProgression(rhs, freeDims(rhs.rank(), dn.rhsBatch, dn.rhsContracting));
  g.batches = aB.count;
  g.m = aM.count;
  g.k = aK.count;
  g.n = bN.count;
  if (!aB.stride || !aM.stride || !aK.stride)
    return std::nullopt;
  g.aBatch = *aB.stride;
  g.aRow = *aM.stride;
  g.aK = *aK.stride;
  g.bUniform = bB.stride && bK.stride && bN.stride;
  g.bInPlace = g.bUniform && (*bN.stride == 1 || g.n == 1);
  g.bBatch = bB.stride.value_or(0);
  g.bK = bK.stride.value_or(0);
  g.bN = bN.stride.value_or(0);
  return g;
}

} // namespace

namespace {

/// How the kernel reads the rhs.
enum class RhsMode {
  Constant, ///< packed at compile time (weights)
  InPlace,  ///< run-time rhs with contiguous columns, read as rows
  Packed,   ///< run-time rhs packed into arena scratch first
};

/// Packs the run-time rhs `source` into `target` in the layout packPanels
/// gives constants, inside the kernel: one pass over the rhs per call.
Error emitRuntimePacking(EmitterContext &ctx, ir::DType dtype,
                         const DotGeometry &g, int64_t nr, bool interleaved,
                         Value *source, Value *target) {
  llvm::IRBuilder<> &b = ctx.builder();
  int64_t panels = (g.n + nr - 1) / nr;
  auto i64 = [&](int64_t v) { return ctx.i64(v); };
  return emitRangeLoop(
      ctx, i64(0), i64(g.batches * panels * g.k), 1,
      [&](Value *row) -> Error {
        // row = (batch * panels + panel) * k + kk: one packed row of nr.
        Value *kk = b.CreateURem(row, i64(g.k));
        Value *batchPanel = b.CreateUDiv(row, i64(g.k));
        Value *panel = b.CreateURem(batchPanel, i64(panels));
        Value *batch = b.CreateUDiv(batchPanel, i64(panels));
        Value *from = b.CreateAdd(b.CreateMul(batch, i64(g.bBatch)),
                                  b.CreateMul(kk, i64(g.bK)));
        Value *to =
            offsetPointer(ctx, dtype, target, b.CreateMul(row, i64(nr)));
        return emitRangeLoop(
            ctx, i64(0), i64(nr), 1,
            [&](Value *c) -> Error {
              Value *column = b.CreateAdd(b.CreateMul(panel, i64(nr)), c);
              Value *inside = b.CreateICmpSLT(column, i64(g.n));
              Value *safe = b.CreateSelect(inside, column, i64(0));
              Value *value = b.CreateAlignedLoad(
                  ctx.storageType(dtype),
                  offsetPointer(
                      ctx, dtype, source,
                      b.CreateAdd(from, b.CreateMul(safe, i64(g.bN)))),
                  llvm::Align(ir::byteSize(dtype)));
              value = b.CreateSelect(
                  inside, value,
                  llvm::Constant::getNullValue(value->getType()));
              b.CreateAlignedStore(
                  value,
                  offsetPointer(ctx, dtype, to,
                                packedColumnValue(ctx, c, interleaved)),
                  llvm::Align(ir::byteSize(dtype)));
              return Error::success();
            },
            "pack.c");
      },
      "pack.row");
}

/// The constant rhs `weights` packed in panels of `nr` columns. Its offsets
/// are listed one by one, which a constant's size (--max-constant-bytes)
/// keeps affordable.
Value *packConstantRhs(EmitterContext &ctx, const Instruction &dot,
                       const Instruction &weights, int64_t nr,
                       bool interleaved) {
  const auto &dn = dot.attrs().dot;
  const ir::Shape &rhs = dot.operand(1)->shape();
  return packPanels(
      ctx, weights, dimOffsets(rhs, dn.rhsBatch),
      dimOffsets(rhs, dn.rhsContracting),
      dimOffsets(rhs, freeDims(rhs.rank(), dn.rhsBatch, dn.rhsContracting)),
      nr, interleaved);
}

const char *modeName(RhsMode mode) {
  switch (mode) {
  case RhsMode::Constant:
    return "constant";
  case RhsMode::InPlace:
    return "rows";
  case RhsMode::Packed:
    return "runtime-packed";
  }
  return "";
}

} // namespace

Expected<bool> emitDotKernel(EmitterContext &ctx, const Instruction &dot,
                             const Instruction *fusion) {
  if (!hasKernelDtype(dot) || stridedOutput(ctx, fusion ? *fusion : dot))
    return false;
  std::optional<DotGeometry> g = dotGeometry(dot);
  if (!g || g->m == 0 || g->n == 0 || g->k == 0 || g->batches == 0)
    return false;
  // Only touch the rhs buffer when it is read at run time: asking for a
  // constant's buffer would emit its unpacked copy as well.
  std::optional<BufferRef> lhs = ctx.operandBuffer(dot, 0);
  if (!lhs || !ctx.isMaterialized({dot.operand(1), -1}))
    return false;
  const Instruction *weights = constantSource(ctx, *dot.operand(1));
  RhsMode mode = weights       ? RhsMode::Constant
                 : g->bInPlace ? RhsMode::InPlace
                               : RhsMode::Packed;
  std::optional<Epilogue> epilogue =
      fusion ? Epilogue::analyze(*fusion, dot) : Epilogue();
  if (!epilogue)
    return false;

  ir::DType dtype = dot.shape().dtype();
  GemmShape shape;
  shape.dtype = dtype;
  shape.m = g->m;
  shape.n = g->n;
  shape.ldc = g->n;
  shape.packedB = mode != RhsMode::InPlace;
  shape.ldb = g->bK;
  shape.tile = gemmTileFor(ctx, dtype, g->m, g->n, g->k);
  const GemmTile &tile = shape.tile;
  int64_t packedBatch = (g->n + tile.nr - 1) / tile.nr * tile.nr * g->k;
  int64_t bBatchStride = shape.packedB ? packedBatch : g->bBatch;

  // Arguments: the written buffers (output, packing scratch), lhs, rhs,
  // then the epilogue's leaves.
  std::vector<Value *> args{ctx.outputBuffer(fusion ? *fusion : dot).address};
  if (mode == RhsMode::Packed) {
    const analysis::BufferSlice *slice = ctx.buffers().packingScratch(&dot);
    int64_t needed = g->batches * packedBatch * int64_t(ir::byteSize(dtype));
    if (!g->bUniform || !slice || slice->bytes < needed)
      return false;
    args.push_back(ctx.packingScratch(dot));
  }
  size_t written = args.size();
  args.push_back(lhs->address);
  args.push_back(mode == RhsMode::Constant
                     ? packConstantRhs(ctx, dot, *weights, tile.nr,
                                       tile.interleavedPanels)
                     : ctx.operandBuffer(dot, 1)->address);
  size_t leafStart = args.size();
  for (Value *leaf : epilogue->leafPointers(ctx))
    args.push_back(leaf);

  // A run-time rhs packed inside the kernel is packed once per call, so
  // such a kernel is never split into tasks.
  TaskSplit split = mode == RhsMode::Packed
                        ? TaskSplit()
                        : splitGemm(shape, g->k, g->batches);
  std::string key = fmt::format(
      "dot {} b{} m{} n{} k{} a{},{},{} b{}:{},{},{} tile{}x{}/{} tasks{}x{} "
      "| {}",
      ir::dtypeName(dtype), g->batches, g->m, g->n, g->k, g->aBatch, g->aRow,
      g->aK, modeName(mode), g->bBatch, g->bK, g->bN, tile.mr, tile.nr, tile.mc,
      split.tasks, split.unitsPerTask, epilogue->key());
  Expected<llvm::Function *> function = kernelFunction(
      ctx, key, args.size(),
      [&](llvm::Function &f) -> Error {
        Value *lhsArg = f.getArg(unsigned(written));
        Value *rhsArg = f.getArg(unsigned(written + 1));
        if (mode == RhsMode::Packed) {
          if (Error e = emitRuntimePacking(ctx, dtype, *g, tile.nr,
                                             tile.interleavedPanels, rhsArg,
                                           f.getArg(1)))
            return e;
          rhsArg = f.getArg(1);
        }
        std::vector<Value *> leaves;
        for (size_t i = leafStart; i < args.size(); ++i)
          leaves.push_back(f.getArg(unsigned(i)));
        GemmRows taskRows =
            gemmTaskRows(ctx, shape, split, f.getArg(unsigned(args.size())),
                         f.getArg(unsigned(args.size() + 1)));
        auto perBatch = [&](Value *batch) -> Error {
          llvm::IRBuilder<> &b = ctx.builder();
          auto at = [&](Value *base, int64_t stride) {
            return offsetPointer(ctx, dtype, base,
                                 b.CreateNUWMul(batch, ctx.i64(stride)));
          };
          StridedRows rows(dtype, at(lhsArg, g->aBatch), g->aRow, g->k, g->aK);
          GemmOperands operands;
          operands.rows = taskRows;
          operands.a = &rows;
          operands.b = at(rhsArg, bBatchStride);
          operands.c = at(f.getArg(0), g->m * g->n);
          operands.linearBase = b.CreateNUWMul(batch, ctx.i64(g->m * g->n));
          operands.featureBase = ctx.i64(0);
          operands.leaves = leaves;
          return emitGemm(ctx, shape, operands, *epilogue);
        };
        if (g->batches == 1)
          return perBatch(ctx.i64(0));
        return emitRangeLoop(ctx, ctx.i64(0), ctx.i64(g->batches), 1, perBatch,
                             "gemm.batch");
      },
      written, /*taskRange=*/true);
  if (!function)
    return function.takeError();
  emitKernelCall(ctx, **function, args, split);

  KernelRecord record;
  record.kernel = g->m <= 4 ? "gemm-skinny" : "gemm";
  record.m = g->batches * g->m;
  record.n = g->n;
  record.k = g->k;
  record.mr = tile.mr;
  record.nr = tile.nr;
  record.kc = tile.kc;
  record.mc = tile.mc;
  record.packedWeights = mode == RhsMode::Constant;
  record.tasks = split.tasks;
  record.epilogue = epilogue->describe();
  recordKernel(ctx, std::move(record), fusion ? *fusion : dot, **function);
  return true;
}

} // namespace kiln::codegen::kernels
