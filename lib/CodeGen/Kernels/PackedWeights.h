//===- PackedWeights.h - Operand geometry, compile-time packing -*- C++ -*-===//
//
// Kernels see an operand as roles (batch, rows or contracted, columns), each
// a list of element offsets. Roles whose offsets form an arithmetic
// progression are read in place with one stride; a constant right operand is
// instead packed at compile time into the panel layout the micro-kernel
// reads, [batch][panel][k][nr] with zero-padded columns, and stored as
// read-only data in place of the original weights.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_PACKEDWEIGHTS_H
#define KILN_LIB_CODEGEN_KERNELS_PACKEDWEIGHTS_H

#include "../EmitterContext.h"

#include <llvm/ADT/STLFunctionalExtras.h>

#include <optional>
#include <string>
#include <vector>

namespace kiln::codegen::kernels {

/// Element offsets in `shape` (row-major) of every index of `dims`, the
/// first of `dims` varying slowest. Empty `dims` give {0}.
std::vector<int64_t> dimOffsets(const ir::Shape &shape,
                                llvm::ArrayRef<int64_t> dims);

/// How many offsets dimOffsets(shape, dims) lists, and their common
/// difference when they are an arithmetic progression (0 for fewer than
/// two), worked out from the dimensions alone: a dot's operand may be a
/// model input of any declared size, whose offsets cannot all be listed.
struct DimProgression {
  int64_t count = 1;
  std::optional<int64_t> stride;
};
DimProgression dimProgression(const ir::Shape &shape,
                              llvm::ArrayRef<int64_t> dims);

/// The constant feeding `value` (through fusion parameters), or nullptr.
const ir::Instruction *constantSource(EmitterContext &ctx,
                                      const ir::Instruction &value);

/// Where column `column` of a panel row is stored: in place, or with
/// `interleaved` (GemmTile::interleavedPanels) each 16-column block
/// transposed as 4 x 4, column 4q + j at 4j + q, so AArch64's LD4 gives
/// vector q of the block. Panels of interleaved layout are multiples of 16.
inline int64_t packedColumn(int64_t column, bool interleaved) {
  if (!interleaved)
    return column;
  int64_t inBlock = column % 16;
  return column - inBlock + inBlock % 4 * 4 + inBlock / 4;
}

/// packedColumn for a column computed at run time (packing in the kernel).
llvm::Value *packedColumnValue(EmitterContext &ctx, llvm::Value *column,
                               bool interleaved);

/// The panel layout of constant `constant`: element (b, k, n) of the
/// contraction sits at batches[b] + ks[k] + ns[n] in the constant; the
/// result holds, per batch and per panel of `nr` columns, K rows of `nr`
/// elements (columns past the end are zero), each row's columns placed by
/// packedColumn. Cached per constant and layout, counted in the weights
/// bytes.
llvm::GlobalVariable *packPanels(EmitterContext &ctx,
                                 const ir::Instruction &constant,
                                 const std::vector<int64_t> &batches,
                                 const std::vector<int64_t> &ks,
                                 const std::vector<int64_t> &ns, int64_t nr,
                                 bool interleaved = false);

/// The panel layout of weights computed at compile time: `compute` returns
/// them as [batch][k][n] (row-major, in double) and runs only when `key`
/// is not packed yet; each is rounded once to `dtype`. Otherwise as
/// packPanels.
llvm::GlobalVariable *
packComputedPanels(EmitterContext &ctx, const std::string &key,
                   const std::string &name, ir::DType dtype, int64_t batches,
                   int64_t k, int64_t n, int64_t nr, bool interleaved,
                   llvm::function_ref<std::vector<double>()> compute);

} // namespace kiln::codegen::kernels

#endif // KILN_LIB_CODEGEN_KERNELS_PACKEDWEIGHTS_H
