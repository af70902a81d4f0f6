//===- Winograd.cpp - Which convolutions run as Winograd F(4x4, 3x3) ------===//
#include "kiln/Analysis/Winograd.h"

#include <algorithm>

namespace kiln::analysis {

using ir::Instruction;

namespace {

/// Scratch per block: the transformed input (36 x tiles x Cin) and the
/// products (36 x tiles x Cout), at most the L2 of a current x86 core, so
/// the block is still there when the output transform reads it back.
constexpr int64_t kBlockBytes = 2 * 1024 * 1024;
/// Rows per block. Fewer than kMinBlockTiles re-read the transformed weights
/// (all 36 x Cin x Cout of them stream past each block) too often; past
/// kMaxBlockTiles the GEMMs gain nothing more.
constexpr int64_t kMinBlockTiles = 8, kMaxBlockTiles = 128;
/// Tasks a pool may run at once; each needs a scratch block of its own.
constexpr int64_t kMaxSlots = 4;
/// Rows per block below which a layer is not cut into more blocks only to
/// give a pool tasks: 32 rows make 16 flops per byte of transformed weights.
constexpr int64_t kMinParallelTiles = 32;
/// Weighted cost per tile and channel of the input transform (B^T d B:
/// 168 adds and multiply-adds plus 36 loads and 36 stores, the loads
/// missing the cache more than the direct kernel's) and of the output
/// transform (A^T M A: 100, plus 36 loads, 16 stores and the epilogue), in
/// flops of the direct kernel's FMA loop. The GEMMs run
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
  int64_t most =
      std::clamp(kBlockBytes / bytesPerTile, kMinBlockTiles, kMaxBlockTiles);
  // Enough blocks for a pool's threads where each still has
  // kMinParallelTiles rows (each block streams all transformed weights), and
  // blocks of equal size: the last block's rows past the last tile are
  // zeros the GEMMs multiply all the same.
  plan.blocks = std::max((plan.tiles + most - 1) / most,
                         std::min(kMaxSlots, plan.tiles / kMinParallelTiles));
  plan.blockTiles = (plan.tiles + plan.blocks - 1) / plan.blocks;
  plan.slots = std::min(plan.blocks, kMaxSlots);
  plan.slotBytes = (plan.blockTiles * bytesPerTile + 63) / 64 * 64;
  return plan;
}

} // namespace kiln::analysis
