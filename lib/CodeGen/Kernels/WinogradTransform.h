//===- WinogradTransform.h - The F(4x4, 3x3) transforms ---------*- C++ -*-===//
//
// Winograd F(4x4, 3x3) (Lavin & Gray, interpolation points 0, +-1, +-2 and
// infinity): a 4x4 output tile Y of the 3x3 correlation of a 6x6 input
// tile d with kernel g is
//   Y = A^T [(G g G^T) . (B^T d B)] A
// where . multiplies elementwise over the 6x6 transformed positions. The
// kernel transform U = G g G^T runs at compile time (in double, rounded
// once); the input transform V = B^T d B and the output transform
// A^T M A run in the kernel on vectors of channels, both as two passes of
// a 1-D transform (columns, then rows).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_WINOGRADTRANSFORM_H
#define KILN_LIB_CODEGEN_KERNELS_WINOGRADTRANSFORM_H

#include "../EmitterContext.h"

#include <array>
#include <vector>

namespace kiln::codegen::kernels::winograd {

constexpr int kTile = 4, kKernel = 3, kAlpha = 6, kPositions = 36;

/// U = G g G^T for one 3x3 kernel `g` (row-major): 36 values, row-major
/// over the 6x6 positions.
std::array<double, kPositions> transformKernel(const std::array<double, 9> &g);

/// V = B^T d B for a 6x6 tile `d` of channel vectors (row-major): 36
/// vectors, row-major over the positions.
std::vector<llvm::Value *> transformInput(EmitterContext &ctx,
                                          const std::vector<llvm::Value *> &d);

/// Y = A^T m A for 36 vectors of products `m` (row-major over positions):
/// the 4x4 output tile, row-major.
std::vector<llvm::Value *> transformOutput(EmitterContext &ctx,
                                           const std::vector<llvm::Value *> &m);

} // namespace kiln::codegen::kernels::winograd

#endif // KILN_LIB_CODEGEN_KERNELS_WINOGRADTRANSFORM_H
