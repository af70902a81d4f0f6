//===- ConvGeometry.cpp - Convolutions as the kernels see them ------------===//
#include "ConvGeometry.h"

#include <fmt/format.h>

namespace kiln::codegen::kernels {

using llvm::Value;

std::optional<ConvGeometry> convGeometry(const ir::Instruction &conv) {
  const auto &attrs = conv.attrs();
  const auto &dn = attrs.conv;
  const ir::Shape &in = conv.operand(0)->shape();
  const ir::Shape &kernel = conv.operand(1)->shape();
  const ir::Shape &out = conv.shape();
  size_t spatial = dn.inputSpatial.size();
  if (attrs.batchGroupCount != 1 || attrs.window.size() != spatial)
    return std::nullopt;
  if (dn.outputBatch != 0 || dn.outputFeature != out.rank() - 1 ||
      dn.inputFeature != in.rank() - 1)
    return std::nullopt;
  for (size_t s = 0; s < spatial; ++s)
    if (dn.outputSpatial[s] != int64_t(s) + 1)
      return std::nullopt;
  std::vector<int64_t> strides(size_t(in.rank()), 1);
  for (int64_t d = in.rank() - 1; d > 0; --d)
    strides[size_t(d - 1)] = strides[size_t(d)] * in.dim(size_t(d));
  ConvGeometry g;
  g.groups = attrs.featureGroupCount;
  g.inPerGroup = kernel.dim(size_t(dn.kernelInputFeature));
  g.outFeatures = out.dim(size_t(dn.outputFeature));
  g.outPerGroup = g.outFeatures / g.groups;
  g.inBatchStride = strides[size_t(dn.inputBatch)];
  g.window = attrs.window;
  g.pixels = out.dim(0);
  for (size_t s = 0; s < spatial; ++s) {
    g.inSizes.push_back(in.dim(size_t(dn.inputSpatial[s])));
    g.inStrides.push_back(strides[size_t(dn.inputSpatial[s])]);
    g.outSizes.push_back(out.dim(s + 1));
    g.kernelSizes.push_back(kernel.dim(size_t(dn.kernelSpatial[s])));
    g.taps *= g.kernelSizes.back();
    g.pixels *= g.outSizes.back();
  }
  return g;
}

std::string windowKey(const ConvGeometry &g) {
  std::string key;
  for (size_t s = 0; s < g.window.size(); ++s) {
    const ir::WindowDim &w = g.window[s];
    key += fmt::format("[{}->{} k{} s{} p{} d{},{} is{}]", g.inSizes[s],
                       g.outSizes[s], w.size, w.stride, w.padLow,
                       w.baseDilation, w.windowDilation, g.inStrides[s]);
  }
  return key;
}

InputPosition inputPosition(EmitterContext &ctx, const ir::WindowDim &window,
                            int64_t inSize, Value *out, Value *tap) {
  llvm::IRBuilder<> &b = ctx.builder();
  Value *pos =
      b.CreateSub(b.CreateAdd(b.CreateMul(out, ctx.i64(window.stride)),
                              b.CreateMul(tap, ctx.i64(window.windowDilation))),
                  ctx.i64(window.padLow));
  int64_t dilatedSize = (inSize - 1) * window.baseDilation + 1;
  Value *valid = b.CreateAnd(b.CreateICmpSGE(pos, ctx.i64(0)),
                             b.CreateICmpSLT(pos, ctx.i64(dilatedSize)));
  if (window.baseDilation == 1)
    return {pos, valid};
  Value *step = ctx.i64(window.baseDilation);
  valid =
      b.CreateAnd(valid, b.CreateICmpEQ(b.CreateSRem(pos, step), ctx.i64(0)));
  return {b.CreateSDiv(pos, step), valid};
}

bool isPointwise(const ConvGeometry &g) {
  for (const ir::WindowDim &w : g.window)
    if (w.size != 1 || w.stride != 1 || w.padLow != 0 || w.padHigh != 0 ||
        w.baseDilation != 1 || w.windowDilation != 1)
      return false;
  return true;
}

bool isDenseNhwc(const ir::Instruction &conv) {
  const auto &dn = conv.attrs().conv;
  if (dn.inputBatch != 0)
    return false;
  for (size_t s = 0; s < dn.inputSpatial.size(); ++s)
    if (dn.inputSpatial[s] != int64_t(s) + 1)
      return false;
  return true;
}

} // namespace kiln::codegen::kernels
