//===- InOrderMicroKernel.h - The A53 GEMM K loop in assembly --*- C++ -*-===//
//
// The K loop of a full 4 x 16 f32 GEMM tile as one inline-assembly block
// with a fixed, software-pipelined schedule, for in-order AArch64 cores
// (TargetInfo::gemmTile sets GemmTile::asmKSteps for the Cortex-A53).
//
// Why assembly: on an in-order core a load issued after an FMA waits until
// it would complete no earlier than that FMA (in order write-back), so the
// loads must come in few groups, ahead of the FMAs that use them, into a
// second register set. LLVM's scheduler does not produce that from IR
// (docs/performance.md, issue 26 point 5); this block does:
//
//   v16-v31  the 16 accumulators (row r, vector q in v16 + 4r + q)
//   v0-v3, v4-v7    B for even / odd K steps: one LD4 per step loads the
//                   next step's 16 columns into the other set (the panel's
//                   rows are interleaved, GemmTile::interleavedPanels)
//   v8-v11, v12-v15 A for K steps 0-3 / 4-7 of an iteration: row r's four
//                   K values in one 128-bit load; FMAs take them by lane
//   x9-x16   one B pointer per K step of the iteration (LD4 takes no offset)
//   x17      A's byte offset for the next A group; x8 the iteration count
//
// Each iteration runs 8 K steps (128 FMAs). The A loads for steps 4-7 go
// right after step 1's LD4 and the next iteration's A loads with the
// pointer updates at the end, so the loop has two groups of non-FMA work.
// The last iteration is a copy without the loads for the next one, so
// nothing is read past the operands.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_INORDERMICROKERNEL_H
#define KILN_LIB_CODEGEN_KERNELS_INORDERMICROKERNEL_H

#include "../EmitterContext.h"

#include "kiln/CodeGen/TargetInfo.h"

#include <vector>

namespace kiln::codegen::kernels {

/// Rows and columns of the micro-kernel's tile, and K steps per iteration.
inline constexpr int64_t kInOrderRows = 4, kInOrderColumns = 16;

/// K steps of a segment of `length` that the micro-kernel runs for a tile
/// of `rows` x `columns` (whole iterations; 0 when it does not apply: no
/// micro-kernel for this tile, a partial tile, unpacked B, or strided A).
int64_t inOrderMicroKernelSteps(const GemmTile &tile, int64_t rows,
                                int64_t columns, bool packedB, int64_t kStride,
                                int64_t length);

/// Runs `steps` K steps (from inOrderMicroKernelSteps) on the 16
/// accumulators `acc` (row-major, <4 x float>): `rows` point at each row's
/// first A element, `b` at the first packed (interleaved) B row of the
/// panel. Returns the new accumulators.
std::vector<llvm::Value *> emitInOrderMicroKernel(
    EmitterContext &ctx, const std::vector<llvm::Value *> &rows,
    llvm::Value *b, int64_t steps, const std::vector<llvm::Value *> &acc);

} // namespace kiln::codegen::kernels

#endif // KILN_LIB_CODEGEN_KERNELS_INORDERMICROKERNEL_H
