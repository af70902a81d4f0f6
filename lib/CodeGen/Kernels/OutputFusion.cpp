//===- OutputFusion.cpp - kOutput fusions through the kernels -------------===//
#include "KernelSupport.h"
#include "Kernels.h"

namespace kiln::codegen::kernels {

using ir::Instruction;
using ir::Opcode;

Expected<bool> emitOutputFusionKernel(EmitterContext &ctx,
                                      const Instruction &fusion) {
  const Instruction *contraction = soleContraction(fusion);
  if (!contraction)
    return false;
  ctx.bindFusion(fusion);
  Expected<bool> done = contraction->opcode() == Opcode::Dot
                            ? emitDotKernel(ctx, *contraction, &fusion)
                            : emitConvolutionKernel(ctx, *contraction, &fusion);
  ctx.unbindFusion(fusion);
  return done;
}

} // namespace kiln::codegen::kernels
