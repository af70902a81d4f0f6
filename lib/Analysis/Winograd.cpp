//===- Winograd.cpp - Which convolutions run as Winograd F(4x4, 3x3) ------===//
#include "kiln/Analysis/Winograd.h"

#include <algorithm>

namespace kiln::analysis {

using ir::Instruction;

namespace {

/// Scratch per block: the transformed input (36 x tiles x Cin) and the
/// products (36 x tiles x Cout). Half of a 1-2 MiB L2, so the packed
/// weights of one position stream past it without evicting it.
constexpr int64_t kBlockBytes = 512 * 1024;
/// Rows per block: a multiple of the GEMM's MR on AVX2 and NEON (6) and a
/// 12-row AVX-512 tile, within [kMinBlockTiles, kMaxBlockTiles]. Fewer
/// rows re-read the transformed weights too often (each block streams all
/// 36 x Cin x Cout of them).
constexpr int64_t kBlockRowMultiple = 12, kMinBlockTiles = 12,
                  kMaxBlockTiles = 96;
/// Tasks a pool may run at once; each needs a scratch block of its own.
constexpr int64_t kMaxSlots = 8;
/// Weighted cost per tile and channel of the input transform (B^T d B:
/// about 240 adds and multiplies plus 36 loads and stores) and of the
/// output transform (A^T M A: about 160, plus 36 loads and 16 stores and
/// the epilogue), in flops of the direct kernel's FMA loop. The GEMMs run
/// with a shorter K and re-stream their weights per block: kGemmPenalty.
constexpr double kInputTransformCost = 300, kOutputTransformCost = 250,
                 kGemmPenalty = 1.3;

bool isEligibleWindow(const Instruction &conv) {
  const auto &attrs = conv.attrs();
  if (attrs.window.size() != 2 || attrs.featureGroupCount != 1 ||
      attrs.batchGroupCount != 1)
    return false;
  for (const ir::WindowDim &w : attrs.window)
    if (w.size != kWinogradKernel || w.stride != 1 || w.baseDilation != 1 ||
        w.windowDilation != 1 || w.padLow < 0 || w.padHigh < 0)
      return false;
  return true;
}

/// The layout the conv kernels read: features innermost on input and
/// output, output in batch, H, W, feature order, a 3x3 kernel.
bool isEligibleLayout(const Instruction &conv) {
  const auto &dn = conv.attrs().conv;
  const ir::Shape &in = conv.operand(0)->shape();
  const ir::Shape &out = conv.shape();
  if (dn.inputSpatial.size() != 2 || dn.outputSpatial.size() != 2 ||
      dn.kernelSpatial.size() != 2)
    return false;
  if (dn.outputBatch != 0 || dn.outputSpatial[0] != 1 ||
      dn.outputSpatial[1] != 2 || dn.outputFeature != 3 ||
      dn.inputFeature != in.rank() - 1 || out.rank() != 4)
    return false;
  const ir::Shape &kernel = conv.operand(1)->shape();
  return kernel.dim(size_t(dn.kernelSpatial[0])) == kWinogradKernel &&
         kernel.dim(size_t(dn.kernelSpatial[1])) == kWinogradKernel;
}

bool isF32(const Instruction &conv) {
  return conv.shape().dtype() == ir::DType::F32 &&
         conv.operand(0)->shape().dtype() == ir::DType::F32 &&
         conv.operand(1)->shape().dtype() == ir::DType::F32;
}

/// Direct flops over the Winograd estimate (tiles cover whole 4x4 blocks,
/// so ragged edges compute outputs that are thrown away).
double estimatedGain(const WinogradPlan &p, int64_t pixels) {
  double cin = double(p.inFeatures), cout = double(p.outFeatures);
  double direct = 2.0 * 9.0 * cin * cout * double(pixels);
  double perTile = 2.0 * double(kWinogradPositions) * cin * cout * kGemmPenalty +
                   kInputTransformCost * cin + kOutputTransformCost * cout;
  return direct / (perTile * double(p.tiles));
}

} // namespace

std::optional<WinogradPlan> winogradPlan(const Instruction &conv,
                                         const Instruction &weights) {
  if (conv.opcode() != ir::Opcode::Convolution ||
      weights.opcode() != ir::Opcode::Constant || !isF32(conv) ||
      !isEligibleWindow(conv) || !isEligibleLayout(conv))
    return std::nullopt;
  const auto &dn = conv.attrs().conv;
  const ir::Shape &out = conv.shape();
  WinogradPlan plan;
  plan.batch = out.dim(0);
  plan.inFeatures = conv.operand(1)->shape().dim(size_t(dn.kernelInputFeature));
  plan.outFeatures = out.dim(3);
  if (plan.inFeatures < kWinogradMinChannels ||
      plan.outFeatures < kWinogradMinChannels || plan.batch == 0 ||
      out.dim(1) == 0 || out.dim(2) == 0)
    return std::nullopt;
  plan.tilesH = (out.dim(1) + kWinogradTile - 1) / kWinogradTile;
  plan.tilesW = (out.dim(2) + kWinogradTile - 1) / kWinogradTile;
  plan.tiles = plan.batch * plan.tilesH * plan.tilesW;
  if (estimatedGain(plan, plan.batch * out.dim(1) * out.dim(2)) <
      kWinogradMinGain)
    return std::nullopt;

  int64_t bytesPerTile = kWinogradPositions *
                         (plan.inFeatures + plan.outFeatures) *
                         int64_t(sizeof(float));
  int64_t fit = kBlockBytes / bytesPerTile / kBlockRowMultiple *
                kBlockRowMultiple;
  int64_t needed = (plan.tiles + kBlockRowMultiple - 1) / kBlockRowMultiple *
                   kBlockRowMultiple;
  plan.blockTiles =
      std::min(std::clamp(fit, kMinBlockTiles, kMaxBlockTiles), needed);
  plan.blocks = (plan.tiles + plan.blockTiles - 1) / plan.blockTiles;
  plan.slots = std::min(plan.blocks, kMaxSlots);
  plan.slotBytes = (plan.blockTiles * bytesPerTile + 63) / 64 * 64;
  return plan;
}

} // namespace kiln::analysis
