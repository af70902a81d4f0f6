//===- ConvKernel.cpp - convolution as an implicit GEMM -------------------===//
//
// Output pixels are the rows of a GEMM, output features its columns, and K
// runs over (kernel tap, input feature of the group). The weights are
// packed at compile time into the GEMM's panel layout. For each tile and
// tap the micro-kernel gets one row pointer per pixel, into the input or,
// where the tap falls into padding or a hole of lhs dilation (transposed
// convolution), into a row of zeros: padding costs a select per pixel and
// tap, never a branch in the inner loop. A 1x1, stride-1, unpadded
// convolution on dense NHWC data is a plain GEMM over pixels.
// Groups run one GEMM each; depthwise convolutions have their own kernel.
//
//===----------------------------------------------------------------------===//
#include "ConvGeometry.h"
#include "Gemm.h"
#include "KernelSupport.h"
#include "Kernels.h"
#include "PackedWeights.h"
#include "TaskPair.h"

#include <fmt/format.h>

#include <memory>

namespace kiln::codegen::kernels {

using ir::Instruction;
using llvm::Value;

namespace {

/// Rows of a tile inside the input (no padding tap, one output row): a
/// base pointer plus constant offsets per pixel and per tap.
class InteriorRows final : public RowSource {
public:
  InteriorRows(ir::DType dtype, const ConvGeometry &g, Value *base)
      : dtype_(dtype), g_(g), base_(base) {
    segments = g.taps;
    segmentLength = g.inPerGroup;
    kStride = 1;
  }

  std::vector<Value *> rows(EmitterContext &ctx, Value *, int64_t count,
                            Value *segment) const override {
    llvm::IRBuilder<> &b = ctx.builder();
    std::vector<Value *> tap = ctx.delinearize(segment, g_.kernelSizes);
    Value *offset = ctx.i64(0);
    for (size_t s = 0; s < tap.size(); ++s)
      offset = b.CreateAdd(
          offset, b.CreateMul(tap[s], ctx.i64(g_.window[s].windowDilation *
                                              g_.inStrides[s])));
    Value *first = b.CreateGEP(ctx.storageType(dtype_), base_, offset);
    int64_t step = g_.window.back().stride * g_.inStrides.back();
    std::vector<Value *> pointers;
    for (int64_t r = 0; r < count; ++r)
      pointers.push_back(offsetPointer(ctx, dtype_, first, ctx.i64(r * step)));
    return pointers;
  }

private:
  ir::DType dtype_;
  const ConvGeometry &g_;
  Value *base_;
};

/// Row pointers of output pixels for one kernel tap.
class ConvRows final : public RowSource {
public:
  ConvRows(ir::DType dtype, const ConvGeometry &g, Value *input, Value *zero)
      : dtype_(dtype), g_(g), input_(input), zero_(zero) {
    segments = g.taps;
    segmentLength = g.inPerGroup;
    kStride = 1;
    pixelSizes_.push_back(g.batch());
    pixelSizes_.insert(pixelSizes_.end(), g.outSizes.begin(), g.outSizes.end());
  }

  std::vector<Value *> rows(EmitterContext &ctx, Value *firstRow, int64_t count,
                            Value *segment) const override {
    llvm::IRBuilder<> &b = ctx.builder();
    std::vector<Value *> tap = ctx.delinearize(segment, g_.kernelSizes);
    std::vector<Value *> pointers;
    for (int64_t r = 0; r < count; ++r) {
      std::vector<Value *> pixel =
          ctx.delinearize(b.CreateNUWAdd(firstRow, ctx.i64(r)), pixelSizes_);
      Value *offset = b.CreateMul(pixel[0], ctx.i64(g_.inBatchStride));
      Value *valid = b.getTrue();
      for (size_t s = 0; s < g_.outSizes.size(); ++s) {
        InputPosition at = inputPosition(ctx, g_.window[s], g_.inSizes[s],
                                         pixel[s + 1], tap[s]);
        valid = b.CreateAnd(valid, at.valid);
        offset = b.CreateAdd(offset,
                             b.CreateMul(at.index, ctx.i64(g_.inStrides[s])));
      }
      // Not inbounds: the offset is garbage where the tap is invalid.
      Value *address = b.CreateGEP(ctx.storageType(dtype_), input_, offset);
      pointers.push_back(b.CreateSelect(valid, address, zero_));
    }
    return pointers;
  }

  /// Tiles whose pixels share one output row and whose taps all land in
  /// the input (no lhs dilation) read through InteriorRows.
  FastPath fastPath(EmitterContext &ctx, Value *firstRow,
                    int64_t count) const override {
    for (const ir::WindowDim &w : g_.window)
      if (w.baseDilation != 1)
        return {};
    llvm::IRBuilder<> &b = ctx.builder();
    std::vector<Value *> pixel = ctx.delinearize(firstRow, pixelSizes_);
    size_t last = g_.outSizes.size() - 1;
    Value *inside =
        b.CreateICmpSLE(b.CreateAdd(pixel[last + 1], ctx.i64(count)),
                        ctx.i64(g_.outSizes[last]));
    Value *offset = b.CreateMul(pixel[0], ctx.i64(g_.inBatchStride));
    for (size_t s = 0; s <= last; ++s) {
      const ir::WindowDim &w = g_.window[s];
      Value *low = b.CreateSub(b.CreateMul(pixel[s + 1], ctx.i64(w.stride)),
                               ctx.i64(w.padLow));
      int64_t span = (s == last ? (count - 1) * w.stride : 0) +
                     (g_.kernelSizes[s] - 1) * w.windowDilation;
      inside = b.CreateAnd(inside, b.CreateICmpSGE(low, ctx.i64(0)));
      inside =
          b.CreateAnd(inside, b.CreateICmpSLT(b.CreateAdd(low, ctx.i64(span)),
                                              ctx.i64(g_.inSizes[s])));
      offset = b.CreateAdd(offset, b.CreateMul(low, ctx.i64(g_.inStrides[s])));
    }
    interior_ = std::make_unique<InteriorRows>(
        dtype_, g_, b.CreateGEP(ctx.storageType(dtype_), input_, offset));
    return {inside, interior_.get()};
  }

private:
  ir::DType dtype_;
  const ConvGeometry &g_;
  Value *input_, *zero_;
  std::vector<int64_t> pixelSizes_;
  mutable std::unique_ptr<InteriorRows> interior_;
};

} // namespace

Expected<bool> emitConvolutionKernel(EmitterContext &ctx,
                                     const Instruction &conv,
                                     const Instruction *fusion) {
  if (!hasKernelDtype(conv))
    return false;
  std::optional<ConvGeometry> geometry = convGeometry(conv);
  if (!geometry || geometry->pixels == 0 || geometry->outFeatures == 0 ||
      geometry->inPerGroup == 0)
    return false;
  const ConvGeometry &g = *geometry;
  if (g.groups > 1 && g.inPerGroup == 1 && g.outPerGroup == 1)
    if (Expected<bool> done = emitDepthwiseKernel(ctx, conv, fusion);
        !done || *done)
      return done;
  if (ctx.options().winograd)
    if (Expected<bool> done = emitWinogradKernel(ctx, conv, fusion);
        !done || *done)
      return done;
  const Instruction *weights = constantSource(ctx, *conv.operand(1));
  std::optional<BufferRef> input = ctx.operandBuffer(conv, 0);
  // Computed in a concatenate's channels: rows of the output features
  // stored further apart (GemmShape::cStride); other layouts are left to
  // the generic emitter.
  auto strided = stridedOutput(ctx, fusion ? *fusion : conv);
  if (!weights || !input ||
      (strided && strided->first != g.outFeatures))
    return false;
  std::optional<Epilogue> epilogue =
      fusion ? Epilogue::analyze(*fusion, conv) : Epilogue();
  if (!epilogue)
    return false;

  ir::DType dtype = conv.shape().dtype();
  const auto &dn = conv.attrs().conv;
  const ir::Shape &kernelShape = conv.operand(1)->shape();
  int64_t k = g.taps * g.inPerGroup;
  GemmShape shape;
  shape.dtype = dtype;
  shape.m = g.pixels;
  shape.n = g.outPerGroup;
  shape.ldc = g.outFeatures;
  shape.cStride = strided ? strided->second : 0;
  shape.packedB = true;
  shape.tile = gemmTileFor(ctx, dtype, g.pixels, g.outPerGroup, k);
  const GemmTile &tile = shape.tile;
  int64_t groupStride = (g.outPerGroup + tile.nr - 1) / tile.nr * tile.nr * k;

  // Packed [group][panel][tap, ci][nr]: K runs over taps, then features.
  std::vector<int64_t> kDims(dn.kernelSpatial.begin(), dn.kernelSpatial.end());
  kDims.push_back(dn.kernelInputFeature);
  std::vector<int64_t> outOffsets =
      dimOffsets(kernelShape, {dn.kernelOutputFeature});
  std::vector<int64_t> groupOffsets,
      columnOffsets(outOffsets.begin(), outOffsets.begin() + g.outPerGroup);
  for (int64_t group = 0; group < g.groups; ++group)
    groupOffsets.push_back(outOffsets[size_t(group * g.outPerGroup)]);
  Value *packed =
      packPanels(ctx, *weights, groupOffsets, dimOffsets(kernelShape, kDims),
                 columnOffsets, tile.nr, tile.interleavedPanels);
  bool pointwise = isPointwise(g) && isDenseNhwc(conv);
  Value *zero = zeroRow(ctx, dtype, g.inPerGroup);

  std::vector<Value *> args{ctx.outputBuffer(fusion ? *fusion : conv).address,
                            input->address, packed};
  for (Value *leaf : epilogue->leafPointers(ctx))
    args.push_back(leaf);
  const Instruction &computed = fusion ? *fusion : conv;
  TaskPair *pair = pointwise && g.groups == 1 && !strided
                       ? pointwiseOfPair(ctx, computed)
                       : nullptr;
  TaskSplit split = pair ? pair->split : splitGemm(shape, k, g.groups);
  std::string key = fmt::format(
      "conv {} px{} g{} ci{} co{} bs{} cs{} {} {} tile{}x{}/{} tasks{}x{}{} | "
      "{}",
      ir::dtypeName(dtype), g.pixels, g.groups, g.inPerGroup, g.outPerGroup,
      g.inBatchStride, shape.cStride, windowKey(g),
      pointwise ? "pointwise" : "taps", tile.mr, tile.nr, tile.mc, split.tasks,
      split.unitsPerTask, pair ? " paired" : "", epilogue->key());
  Expected<llvm::Function *> function = kernelFunction(
      ctx, key, args.size(),
      [&](llvm::Function &f) -> Error {
        std::vector<Value *> leaves;
        for (size_t i = 3; i < args.size(); ++i)
          leaves.push_back(f.getArg(unsigned(i)));
        Value *firstTask = f.getArg(unsigned(args.size()));
        GemmRows taskRows =
            pair ? pairedGemmRows(ctx, *pair, tile.mr, firstTask)
                 : gemmTaskRows(ctx, shape, split, firstTask,
                                f.getArg(unsigned(args.size() + 1)));
        auto perGroup = [&](Value *group) -> Error {
          llvm::IRBuilder<> &b = ctx.builder();
          Value *firstFeature = b.CreateNUWMul(group, ctx.i64(g.outPerGroup));
          Value *in =
              offsetPointer(ctx, dtype, f.getArg(1),
                            b.CreateNUWMul(group, ctx.i64(g.inPerGroup)));
          StridedRows dense(dtype, in, g.inPerGroup * g.groups, k, 1);
          ConvRows taps(dtype, g, in, zero);
          GemmOperands operands;
          operands.rows = taskRows;
          operands.a =
              pointwise ? static_cast<const RowSource *>(&dense) : &taps;
          operands.b =
              offsetPointer(ctx, dtype, f.getArg(2),
                            b.CreateNUWMul(group, ctx.i64(groupStride)));
          operands.c = offsetPointer(ctx, dtype, f.getArg(0), firstFeature);
          operands.linearBase = firstFeature;
          operands.featureBase = firstFeature;
          operands.leaves = leaves;
          return emitGemm(ctx, shape, operands, *epilogue);
        };
        if (g.groups == 1)
          return perGroup(ctx.i64(0));
        return emitRangeLoop(ctx, ctx.i64(0), ctx.i64(g.groups), 1, perGroup,
                             "conv.group");
      },
      /*writtenArgs=*/1, /*taskRange=*/true);
  if (!function)
    return function.takeError();
  if (pair)
    emitPairCall(ctx, *pair, {*function, args});
  else
    emitKernelCall(ctx, **function, args, split);

  KernelRecord record;
  record.kernel = pointwise ? "conv-pointwise" : "conv-implicit-gemm";
  record.m = g.pixels;
  record.n = g.outFeatures;
  record.k = k;
  record.mr = tile.mr;
  record.nr = tile.nr;
  record.kc = tile.kc;
  record.mc = tile.mc;
  record.packedWeights = true;
  record.tasks = split.tasks;
  record.epilogue = epilogue->describe();
  recordKernel(ctx, std::move(record), computed, **function);
  return true;
}

} // namespace kiln::codegen::kernels
