//===- Kernels.h - Fast kernels for dot and convolution --------*- C++ -*-===//
//
// Entry points the dot/convolution emitters and the fusion emitter call.
// Each returns true after emitting a call to a kernel function that
// computes `contraction` (and, when `fusion` is an output fusion around it,
// the fusion's elementwise chain in registers) into the output buffer, or
// false when no kernel applies (dtype, layout, non-constant weights the
// kernel cannot read in place, ...): the caller then emits its generic code.
// Kernel families, one per file:
//   DotKernel.cpp        dot (batched, any dimension order with uniform
//                        strides): packed GEMM, skinny rows included
//   ConvKernel.cpp       convolution as implicit GEMM over (taps, Cin) on
//                        feature-last data: 1x1, KxK, strides, dilations,
//                        groups, transposed (lhs-dilated) convolutions
//   WinogradKernel.cpp   3x3 stride-1 convolution as Winograd F(4x4, 3x3)
//                        where kiln/Analysis/Winograd.h picks it
//   DepthwiseKernel.cpp  depthwise convolution: vectors along channels, a
//                        register tile over output columns, taps unrolled
//   TransposeKernel.cpp  layout changes (NCHW <-> NHWC): tiles transposed
//                        in registers
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_KERNELS_H
#define KILN_LIB_CODEGEN_KERNELS_KERNELS_H

#include "../EmitterContext.h"

namespace kiln::codegen::kernels {

Expected<bool> emitDotKernel(EmitterContext &ctx, const ir::Instruction &dot,
                             const ir::Instruction *fusion);
Expected<bool> emitConvolutionKernel(EmitterContext &ctx,
                                     const ir::Instruction &convolution,
                                     const ir::Instruction *fusion);
Expected<bool> emitWinogradKernel(EmitterContext &ctx,
                                  const ir::Instruction &convolution,
                                  const ir::Instruction *fusion);
Expected<bool> emitDepthwiseKernel(EmitterContext &ctx,
                                   const ir::Instruction &convolution,
                                   const ir::Instruction *fusion);

/// A transpose that swaps two blocks of dimensions ([batch, rows, cols] ->
/// [batch, cols, rows] once size-1 dimensions are dropped and dimensions
/// that stay together merged), as tiles transposed in registers.
Expected<bool> emitTransposeKernel(EmitterContext &ctx,
                                   const ir::Instruction &transpose);

/// The output fusion's kernel: the contraction inside `fusion` through the
/// kernels above with the chain as epilogue (false when none applies).
Expected<bool> emitOutputFusionKernel(EmitterContext &ctx,
                                      const ir::Instruction &fusion);

} // namespace kiln::codegen::kernels

#endif // KILN_LIB_CODEGEN_KERNELS_KERNELS_H
