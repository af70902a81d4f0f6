//===- WinogradKernel.cpp - 3x3 convolution as Winograd F(4x4, 3x3) -------===//
//
// The output is cut into 4x4 tiles, and blocks of tiles (WinogradPlan) go
// through three steps that share one scratch block in the arena, so the
// transformed data never leaves L2 and no buffer spans the whole image:
//   1. input transform: each tile's 6x6 input window (zeros in padding and
//      past the image), B^T d B on vectors of input channels, into
//      V[position][tile][Cin];
//   2. 36 GEMMs on the register-blocked micro-kernel (Gemm.h):
//      M[position] = V[position] x U[position], U being the kernel
//      transform G g G^T packed into panels at compile time;
//   3. output transform: A^T M A on vectors of output channels, through the
//      output fusion's epilogue, stored for the pixels inside the output.
// Blocks are independent: a pool runs them as tasks, each in its own
// scratch slot (at most plan.slots tasks).
//
//===----------------------------------------------------------------------===//
#include "ConvGeometry.h"
#include "Gemm.h"
#include "KernelSupport.h"
#include "Kernels.h"
#include "PackedWeights.h"
#include "WinogradTransform.h"

#include "kiln/Analysis/Winograd.h"

#include <fmt/format.h>

#include <cstring>

namespace kiln::codegen::kernels {

using ir::Instruction;
using llvm::Value;
namespace wg = winograd;

namespace {

constexpr ir::DType kDtype = ir::DType::F32;

/// Everything the kernel body needs, fixed at compile time.
struct WinogradLayout {
  analysis::WinogradPlan plan;
  ConvGeometry geometry;
  int64_t lanes = 0;
  int64_t outH = 0, outW = 0;
  int64_t vOffset = 0;  ///< elements from the slot to M (after V)
  int64_t uStride = 0;  ///< elements between positions in the packed U
};

/// U = G g G^T of every (input, output) channel pair as [36][Cin][Cout].
std::vector<double> transformedWeights(const Instruction &conv,
                                       const Instruction &weights,
                                       int64_t cin, int64_t cout) {
  const auto &dn = conv.attrs().conv;
  const ir::Shape &shape = conv.operand(1)->shape();
  std::vector<int64_t> rows = dimOffsets(shape, {dn.kernelSpatial[0]});
  std::vector<int64_t> cols = dimOffsets(shape, {dn.kernelSpatial[1]});
  std::vector<int64_t> ins = dimOffsets(shape, {dn.kernelInputFeature});
  std::vector<int64_t> outs = dimOffsets(shape, {dn.kernelOutputFeature});
  const std::vector<uint8_t> &bytes = weights.literal().bytes();
  std::vector<double> u(size_t(wg::kPositions * cin * cout));
  for (int64_t ci = 0; ci < cin; ++ci)
    for (int64_t co = 0; co < cout; ++co) {
      std::array<double, 9> g;
      for (int64_t r = 0; r < wg::kKernel; ++r)
        for (int64_t c = 0; c < wg::kKernel; ++c) {
          float value;
          size_t at = size_t(rows[size_t(r)] + cols[size_t(c)] +
                             ins[size_t(ci)] + outs[size_t(co)]);
          std::memcpy(&value, &bytes[at * sizeof value], sizeof value);
          g[size_t(r * wg::kKernel + c)] = value;
        }
      std::array<double, wg::kPositions> t = wg::transformKernel(g);
      for (int64_t p = 0; p < wg::kPositions; ++p)
        u[size_t((p * cin + ci) * cout + co)] = t[size_t(p)];
    }
  return u;
}

/// The tile's (batch, tile row, tile column) for linear tile index `tile`.
std::vector<Value *> tileCoordinates(EmitterContext &ctx,
                                     const WinogradLayout &l, Value *tile) {
  int64_t perImage = l.plan.tilesH * l.plan.tilesW;
  int64_t batch = perImage > 0 ? l.plan.tiles / perImage : 0;
  return ctx.delinearize(tile, {batch, l.plan.tilesH, l.plan.tilesW});
}

/// Step 1 for tile `i` of the block starting at tile `tile0`.
Error emitInputTransform(EmitterContext &ctx, const WinogradLayout &l,
                         Value *input, Value *zero, Value *v, Value *tile0,
                         Value *i) {
  llvm::IRBuilder<> &b = ctx.builder();
  const ConvGeometry &g = l.geometry;
  Value *tile = b.CreateNUWAdd(tile0, i);
  Value *exists = b.CreateICmpULT(tile, ctx.i64(l.plan.tiles));
  std::vector<Value *> at = tileCoordinates(ctx, l, tile);
  Value *y0 = b.CreateSub(b.CreateMul(at[1], ctx.i64(wg::kTile)),
                          ctx.i64(g.window[0].padLow));
  Value *x0 = b.CreateSub(b.CreateMul(at[2], ctx.i64(wg::kTile)),
                          ctx.i64(g.window[1].padLow));
  Value *base = b.CreateMul(at[0], ctx.i64(g.inBatchStride));
  // One pointer per input pixel of the 6x6 window, or the zero row where
  // it falls outside the input (or the tile past the last one).
  std::vector<Value *> pixels;
  for (int64_t r = 0; r < wg::kAlpha; ++r) {
    Value *y = b.CreateAdd(y0, ctx.i64(r));
    Value *rowOk = b.CreateAnd(
        exists, b.CreateICmpULT(y, ctx.i64(g.inSizes[0]))); // y >= 0 too
    for (int64_t c = 0; c < wg::kAlpha; ++c) {
      Value *x = b.CreateAdd(x0, ctx.i64(c));
      Value *ok = b.CreateAnd(rowOk, b.CreateICmpULT(x, ctx.i64(g.inSizes[1])));
      Value *offset = b.CreateAdd(
          base, b.CreateAdd(b.CreateMul(y, ctx.i64(g.inStrides[0])),
                            b.CreateMul(x, ctx.i64(g.inStrides[1]))));
      // Not inbounds: the offset is garbage where the pixel is outside.
      Value *address = b.CreateGEP(ctx.storageType(kDtype), input, offset);
      pixels.push_back(b.CreateSelect(ok, address, zero));
    }
  }
  int64_t cin = l.plan.inFeatures, rows = l.plan.blockTiles;
  auto channels = [&](Value *c0, int64_t valid) -> Error {
    std::vector<Value *> d;
    for (Value *pixel : pixels)
      d.push_back(loadLanes(ctx, kDtype, offsetPointer(ctx, kDtype, pixel, c0),
                            l.lanes, valid, 4));
    std::vector<Value *> t = wg::transformInput(ctx, d);
    for (int64_t p = 0; p < wg::kPositions; ++p) {
      Value *row = b.CreateNUWAdd(ctx.i64(p * rows), i);
      Value *offset = b.CreateNUWAdd(b.CreateNUWMul(row, ctx.i64(cin)), c0);
      storeLanes(ctx, kDtype, offsetPointer(ctx, kDtype, v, offset),
                 t[size_t(p)], valid, 4);
    }
    return Error::success();
  };
  int64_t full = cin / l.lanes * l.lanes;
  if (full > 0)
    if (Error e = emitRangeLoop(
            ctx, ctx.i64(0), ctx.i64(full), l.lanes,
            [&](Value *c0) { return channels(c0, l.lanes); }, "wino.ci"))
      return e;
  if (cin % l.lanes)
    return channels(ctx.i64(full), cin % l.lanes);
  return Error::success();
}

/// Step 2: the 36 GEMMs of one block.
Error emitPositionGemms(EmitterContext &ctx, const WinogradLayout &l,
                        const GemmShape &shape, Value *v, Value *m,
                        Value *packed) {
  llvm::IRBuilder<> &b = ctx.builder();
  int64_t cin = l.plan.inFeatures, rows = l.plan.blockTiles;
  Epilogue none;
  return emitRangeLoop(
      ctx, ctx.i64(0), ctx.i64(wg::kPositions), 1,
      [&](Value *p) -> Error {
        StridedRows a(kDtype,
                      offsetPointer(ctx, kDtype, v,
                                    b.CreateNUWMul(p, ctx.i64(rows * cin))),
                      cin, cin, 1);
        GemmOperands operands;
        operands.a = &a;
        operands.b = offsetPointer(ctx, kDtype, packed,
                                   b.CreateNUWMul(p, ctx.i64(l.uStride)));
        operands.c = offsetPointer(
            ctx, kDtype, m, b.CreateNUWMul(p, ctx.i64(rows * shape.ldc)));
        operands.linearBase = ctx.i64(0);
        operands.featureBase = ctx.i64(0);
        return emitGemm(ctx, shape, operands, none);
      },
      "wino.position");
}

/// Step 3 for tile `i` of the block starting at `tile0`.
Error emitOutputTransform(EmitterContext &ctx, const WinogradLayout &l,
                          const Epilogue &epilogue, Value *out, Value *m,
                          Value *tile0, Value *i,
                          const std::vector<Value *> &leaves) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *tile = b.CreateNUWAdd(tile0, i);
  std::vector<Value *> at = tileCoordinates(ctx, l, tile);
  int64_t cout = l.plan.outFeatures, rows = l.plan.blockTiles;
  // Output pixels past the bottom or right edge exist only in the last
  // tile row or column, and only when the size is not a multiple of 4.
  Value *lastRow = b.CreateICmpEQ(at[1], ctx.i64(l.plan.tilesH - 1));
  Value *lastCol = b.CreateICmpEQ(at[2], ctx.i64(l.plan.tilesW - 1));
  int64_t rowsLeft = l.outH % wg::kTile, colsLeft = l.outW % wg::kTile;
  Value *y0 = b.CreateNUWMul(at[1], ctx.i64(wg::kTile));
  Value *x0 = b.CreateNUWMul(at[2], ctx.i64(wg::kTile));
  Value *pixel0 = b.CreateNUWAdd(
      b.CreateNUWMul(b.CreateNUWAdd(b.CreateNUWMul(at[0], ctx.i64(l.outH)), y0),
                     ctx.i64(l.outW)),
      x0);
  auto channels = [&](Value *c0, int64_t valid) -> Error {
    std::vector<Value *> products;
    for (int64_t p = 0; p < wg::kPositions; ++p) {
      Value *row = b.CreateNUWAdd(ctx.i64(p * rows), i);
      Value *offset = b.CreateNUWAdd(b.CreateNUWMul(row, ctx.i64(cout)), c0);
      products.push_back(loadLanes(
          ctx, kDtype, offsetPointer(ctx, kDtype, m, offset), l.lanes, valid,
          4));
    }
    std::vector<Value *> y = wg::transformOutput(ctx, products);
    for (int64_t r = 0; r < wg::kTile; ++r)
      for (int64_t c = 0; c < wg::kTile; ++c) {
        auto store = [&]() -> Error {
          Value *pixel = b.CreateNUWAdd(pixel0, ctx.i64(r * l.outW + c));
          Value *linear =
              b.CreateNUWAdd(b.CreateNUWMul(pixel, ctx.i64(cout)), c0);
          Expected<Value *> value =
              epilogue.apply(ctx, y[size_t(r * wg::kTile + c)], linear, c0,
                             l.lanes, valid, leaves);
          if (!value)
            return value.takeError();
          storeLanes(ctx, kDtype, offsetPointer(ctx, kDtype, out, linear),
                     *value, valid, 4);
          return Error::success();
        };
        Value *outside = nullptr;
        if (rowsLeft && r >= rowsLeft)
          outside = lastRow;
        if (colsLeft && c >= colsLeft)
          outside = outside ? b.CreateOr(outside, lastCol) : lastCol;
        if (!outside) {
          if (Error e = store())
            return e;
        } else if (Error e = emitIf(ctx, b.CreateNot(outside), store,
                                    "wino.inside")) {
          return e;
        }
      }
    return Error::success();
  };
  int64_t full = cout / l.lanes * l.lanes;
  if (full > 0)
    if (Error e = emitRangeLoop(
            ctx, ctx.i64(0), ctx.i64(full), l.lanes,
            [&](Value *c0) { return channels(c0, l.lanes); }, "wino.co"))
      return e;
  if (cout % l.lanes)
    return channels(ctx.i64(full), cout % l.lanes);
  return Error::success();
}

/// At most plan.slots tasks of whole blocks, so each has its own scratch.
TaskSplit winogradSplit(const analysis::WinogradPlan &plan, int64_t k,
                        int64_t n) {
  int64_t directFlopsPerBlock = 2 * plan.blockTiles * wg::kTile * wg::kTile *
                                k * n;
  TaskSplit split = splitUnits(plan.blocks, directFlopsPerBlock);
  if (split.tasks > plan.slots)
    split = splitInto(plan.blocks, roundTaskCount(plan.slots));
  return split;
}

} // namespace

Expected<bool> emitWinogradKernel(EmitterContext &ctx, const Instruction &conv,
                                  const Instruction *fusion) {
  const Instruction *weights = constantSource(ctx, *conv.operand(1));
  if (!weights || stridedOutput(ctx, fusion ? *fusion : conv))
    return false;
  std::optional<analysis::WinogradPlan> plan =
      analysis::winogradPlan(conv, *weights);
  std::optional<ConvGeometry> geometry = convGeometry(conv);
  std::optional<BufferRef> input = ctx.operandBuffer(conv, 0);
  // The scratch is buffer assignment's: without it (the plan saw other
  // weights), the direct kernel runs.
  const analysis::BufferSlice *scratchSlice =
      ctx.buffers().packingScratch(&conv);
  if (!plan || !geometry || !input || !scratchSlice ||
      scratchSlice->bytes < plan->scratchBytes())
    return false;
  std::optional<Epilogue> epilogue =
      fusion ? Epilogue::analyze(*fusion, conv) : Epilogue();
  if (!epilogue)
    return false;

  WinogradLayout l;
  l.plan = *plan;
  l.geometry = *geometry;
  l.outH = conv.shape().dim(1);
  l.outW = conv.shape().dim(2);
  int64_t cin = plan->inFeatures, cout = plan->outFeatures;
  GemmShape shape;
  shape.dtype = kDtype;
  shape.m = plan->blockTiles;
  shape.n = cout;
  shape.ldc = cout;
  shape.packedB = true;
  shape.tile = gemmTileFor(ctx, kDtype, shape.m, cout, cin);
  l.lanes = shape.tile.lanes;
  int64_t nr = shape.tile.nr;
  l.uStride = (cout + nr - 1) / nr * nr * cin;
  l.vOffset = wg::kPositions * plan->blockTiles * cin;

  bool interleaved = shape.tile.interleavedPanels;
  std::string packKey =
      fmt::format("winograd/{}/{}/{}x{}{}", weights->name(), nr, cin, cout,
                  interleaved ? "/interleaved" : "");
  Value *packed = packComputedPanels(
      ctx, packKey, "winograd." + weights->name(), kDtype, wg::kPositions, cin,
      cout, nr, interleaved,
      [&] { return transformedWeights(conv, *weights, cin, cout); });
  Value *zero = zeroRow(ctx, kDtype, (cin + l.lanes - 1) / l.lanes * l.lanes);

  std::vector<Value *> args{ctx.outputBuffer(fusion ? *fusion : conv).address,
                            ctx.packingScratch(conv), input->address, packed};
  for (Value *leaf : epilogue->leafPointers(ctx))
    args.push_back(leaf);
  TaskSplit split = winogradSplit(*plan, 9 * cin, cout);
  std::string key = fmt::format(
      "conv-winograd f4x4 n{} ci{} co{} bs{} {} block{}x{} slot{} tile{}x{} "
      "tasks{}x{} | {}",
      plan->batch, cin, cout, geometry->inBatchStride, windowKey(*geometry),
      plan->blockTiles, plan->blocks, plan->slotBytes, shape.tile.mr, nr,
      split.tasks, split.unitsPerTask, epilogue->key());
  constexpr size_t kFixedArgs = 4;
  Expected<llvm::Function *> function = kernelFunction(
      ctx, key, args.size(),
      [&](llvm::Function &f) -> Error {
        llvm::IRBuilder<> &b = ctx.builder();
        std::vector<Value *> leaves;
        for (size_t i = kFixedArgs; i < args.size(); ++i)
          leaves.push_back(f.getArg(unsigned(i)));
        Value *firstTask = f.getArg(unsigned(args.size()));
        Value *lastTask = f.getArg(unsigned(args.size() + 1));
        UnitRange blocks =
            taskUnits(ctx, split, plan->blocks, firstTask, lastTask);
        // Tasks [first, last) run one after another in the first's slot.
        Value *v = b.CreateInBoundsGEP(
            b.getInt8Ty(), f.getArg(1),
            b.CreateNUWMul(firstTask, ctx.i64(plan->slotBytes)));
        Value *m = offsetPointer(ctx, kDtype, v, ctx.i64(l.vOffset));
        auto perBlock = [&](Value *block) -> Error {
          Value *tile0 = b.CreateNUWMul(block, ctx.i64(plan->blockTiles));
          if (Error e = emitRangeLoop(
                  ctx, ctx.i64(0), ctx.i64(plan->blockTiles), 1,
                  [&](Value *i) {
                    return emitInputTransform(ctx, l, f.getArg(2), zero, v,
                                              tile0, i);
                  },
                  "wino.in"))
            return e;
          if (Error e = emitPositionGemms(ctx, l, shape, v, m, f.getArg(3)))
            return e;
          // The last block's tiles past the end are zeros: skip them.
          Value *left = b.CreateSub(ctx.i64(plan->tiles), tile0);
          Value *count = b.CreateSelect(
              b.CreateICmpULT(left, ctx.i64(plan->blockTiles)), left,
              ctx.i64(plan->blockTiles));
          return emitRangeLoop(
              ctx, ctx.i64(0), count, 1,
              [&](Value *i) {
                return emitOutputTransform(ctx, l, *epilogue, f.getArg(0), m,
                                           tile0, i, leaves);
              },
              "wino.out");
        };
        return emitIf(
            ctx, b.CreateICmpULT(blocks.begin, blocks.end),
            [&] {
              return emitRangeLoop(ctx, blocks.begin, blocks.end, 1, perBlock,
                                   "wino.block");
            },
            "wino.blocks");
      },
      /*writtenArgs=*/2, /*taskRange=*/true);
  if (!function)
    return function.takeError();
  emitKernelCall(ctx, **function, args, split);

  KernelRecord record;
  record.kernel = "conv-winograd-f4x4";
  record.m = conv.shape().dim(0) * l.outH * l.outW;
  record.n = cout;
  record.k = 9 * cin;
  record.mr = shape.tile.mr;
  record.nr = nr;
  record.kc = shape.tile.kc;
  record.mc = shape.tile.mc;
  record.packedWeights = true;
  record.tasks = split.tasks;
  record.epilogue = epilogue->describe();
  recordKernel(ctx, std::move(record), fusion ? *fusion : conv, **function);
  return true;
}

} // namespace kiln::codegen::kernels
