//===- InOrderDepthwise.h - The A53 depthwise channel step in asm -*- C++
//-*-===//
//
// One channel vector of 8 output columns of the depthwise kernel as one
// inline-assembly block, for the Cortex-A53 (DepthwiseKernel.cpp runs it on
// the tiles whose window lies inside the input; the others, and the partial
// channel vector, stay in IR).
//
// Why assembly: on the in-order A53 a load issued right after an FMA waits
// until it would complete no earlier than that FMA (in-order write back, ~6
// cycles in LLVM 19's model), and LLVM's scheduler leaves the 39 loads of a
// step spread between the FMAs (278 cycles per 72 FMAs in llvm-mca). The
// block loads each kernel row's weights and inputs in one group, then runs
// that row's FMAs, so the wait comes once per row:
//
//   v16-v23  the 8 accumulators (output column c in v16 + c), zeroed here
//   v0..     the kernel row's kw weight vectors
//   v(kw)..  its 8 + kw - 1 input pixels: column c, tap k reads v(kw + c + k)
//
// Addresses are a base register per kernel row (the row's first input pixel
// at this channel) and the weights at this channel, with immediate offsets:
// no address arithmetic in the block.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_INORDERDEPTHWISE_H
#define KILN_LIB_CODEGEN_KERNELS_INORDERDEPTHWISE_H

#include "../EmitterContext.h"

#include "kiln/CodeGen/TargetInfo.h"

#include <optional>
#include <vector>

namespace kiln::codegen::kernels {

/// Output columns of the block's tile.
inline constexpr int64_t kInOrderDepthwiseColumns = 8;

/// What the block is built for: `rows` kernel rows of `columns` taps,
/// input pixels `pixelBytes` apart, tap t's weights at t * tapBytes.
struct InOrderDepthwiseShape {
  int64_t rows = 0, columns = 0, pixelBytes = 0, tapBytes = 0;
};

/// The block's shape for a depthwise kernel on `target`, or nothing: only
/// the Cortex-A53, f32, little endian (lane i of `ldr q` is element i) and
/// not under +strict-align (the loads read any 4-byte offset); a stride-1,
/// undilated innermost window of at most 4 taps (the registers of a row's
/// weights and inputs), at most 8 kernel rows, and offsets `ldr q` encodes
/// (multiples of 16 up to 65520).
std::optional<InOrderDepthwiseShape>
inOrderDepthwiseShape(const TargetInfo &target, ir::DType dtype,
                      int64_t kernelRows, int64_t kernelColumns,
                      const ir::WindowDim &innermost, int64_t pixelElements,
                      int64_t tapElements);

/// The 8 accumulators (<4 x float>) of one channel vector: the sums over
/// every tap of weight x input, from `rows` (each kernel row's first input
/// pixel at this channel) and `weights` (tap 0's weights at this channel).
std::vector<llvm::Value *>
emitInOrderDepthwise(EmitterContext &ctx, const InOrderDepthwiseShape &shape,
                     const std::vector<llvm::Value *> &rows,
                     llvm::Value *weights);

} // namespace kiln::codegen::kernels

#endif // KILN_LIB_CODEGEN_KERNELS_INORDERDEPTHWISE_H
