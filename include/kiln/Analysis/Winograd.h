//===- Winograd.h - Which convolutions run as Winograd F(4x4, 3x3) -*- C++ -*-===//
//
// The per-layer choice between the direct (implicit-GEMM) convolution
// kernel and Winograd F(4x4, 3x3), and the shape of the Winograd kernel's
// work: shared by buffer assignment (which reserves the kernel's scratch)
// and code generation (which emits the kernel), so both see one rule.
//
// F(4x4, 3x3) computes each 4x4 output tile from a 6x6 input tile with 36
// products per (input, output) channel pair instead of 144: the 36
// transformed positions are 36 independent GEMMs of [tiles x Cin] by
// [Cin x Cout]. The transforms around them cost a few hundred flops per
// tile and channel, so Winograd wins only with enough channels and tiles
// (docs/performance.md gives the rule and the error bound).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ANALYSIS_WINOGRAD_H
#define KILN_ANALYSIS_WINOGRAD_H

#include "kiln/IR/Instruction.h"

#include <cstdint>
#include <optional>

namespace kiln::analysis {

/// Output tile edge (m), kernel edge (r) and input tile edge (m + r - 1).
constexpr int64_t kWinogradTile = 4, kWinogradKernel = 3;
constexpr int64_t kWinogradAlpha = kWinogradTile + kWinogradKernel - 1;
constexpr int64_t kWinogradPositions = kWinogradAlpha * kWinogradAlpha;

struct WinogradPlan {
  int64_t batch = 0, inFeatures = 0, outFeatures = 0;
  int64_t tilesH = 0, tilesW = 0; ///< tiles per image along H and W
  int64_t tiles = 0;              ///< batch * tilesH * tilesW
  /// Tiles transformed, multiplied and transformed back together: the
  /// rows of the 36 GEMMs. Their scratch (transformed input and products)
  /// stays in L2.
  int64_t blockTiles = 0;
  int64_t blocks = 0;
  /// Independent scratch blocks: the kernel is split into at most this
  /// many tasks, each working in its own block.
  int64_t slots = 0;
  int64_t slotBytes = 0; ///< scratch per slot (64-byte multiple)
  int64_t scratchBytes() const { return slots * slotBytes; }
};

/// The plan for convolution `conv` whose weights are `weights` (the value
/// itself; for a fused convolution, the fusion's operand), or nullopt when
/// the direct kernel is expected to be faster or Winograd does not apply:
/// f32, two spatial dimensions, a 3x3 window with stride 1, no dilation,
/// non-negative padding, one feature group, constant weights, the feature
/// dimensions innermost (NHWC input and output, as the conv kernels need),
/// at least kWinogradMinChannels input and output features, and an
/// estimated cost at least kWinogradMinGain times below the direct one's.
std::optional<WinogradPlan> winogradPlan(const ir::Instruction &conv,
                                         const ir::Instruction &weights);

constexpr int64_t kWinogradMinChannels = 16;
constexpr double kWinogradMinGain = 1.5;

} // namespace kiln::analysis

#endif // KILN_ANALYSIS_WINOGRAD_H
