//===- OutputFusion.cpp - kOutput fusions through the kernels -------------===//
#include "Kernels.h"

namespace kiln::codegen::kernels {

using ir::Instruction;
using ir::Opcode;

Expected<bool> emitOutputFusionKernel(EmitterContext &ctx,
                                      const Instruction &fusion) {
  if (fusion.attrs().fusionKind != ir::FusionKind::Output)
    return false;
  const Instruction *contraction = nullptr;
  for (const Instruction *inner : fusion.calledComputation()->instructions()) {
    if (inner->opcode() != Opcode::Dot &&
        inner->opcode() != Opcode::Convolution)
      continue;
    if (contraction)
      return false; // one contraction per output fusion
    contraction = inner;
  }
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
