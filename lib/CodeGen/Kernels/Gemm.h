//===- Gemm.h - The register-blocked GEMM ----------------------*- C++ -*-===//
//
// C[i, j] = epilogue(sum_k A[i, k] * B[k, j]) for one batch (or group): an
// MR x NR tile of C is held in MR * NR / lanes vector accumulators while K
// runs, each step broadcasting MR elements of A and loading NR / lanes
// vectors of B. The loops around the tile follow BLIS: blocks of MC rows
// (so they stay in L2), then NR-column panels of B, then MR-row tiles.
// K is not split: the whole K x NR panel streams from L1/L2 and the
// epilogue runs once, on registers. Rows that do not fill a tile (M % MR)
// use a shorter tile spanning up to four panels, so there are still enough
// independent accumulators to hide the FMA latency; skinny GEMMs (M = 1..4,
// batch-1 fully connected layers) get a tile of all M rows and up to eight
// vectors from TargetInfo, so the packed weights stream once, in order.
//
// Where A's rows come from is a RowSource: strided rows for dot, and for
// an implicit-GEMM convolution, one row pointer per output pixel and
// kernel tap (pointing at a zero row where the tap falls into padding).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CODEGEN_KERNELS_GEMM_H
#define KILN_LIB_CODEGEN_KERNELS_GEMM_H

#include "../Parallel.h"
#include "Epilogue.h"

#include "kiln/CodeGen/TargetInfo.h"

namespace kiln::codegen::kernels {

/// The left operand, as rows of K elements split into equal segments (one
/// for dot, one per kernel tap for convolution).
class RowSource {
public:
  virtual ~RowSource() = default;
  int64_t segments = 1; ///< K = segments * segmentLength
  int64_t segmentLength = 0;
  int64_t kStride = 1; ///< elements between consecutive k in a segment
  /// Pointers to element 0 of segment `segment` of rows firstRow ..
  /// firstRow + count - 1.
  virtual std::vector<llvm::Value *> rows(EmitterContext &ctx,
                                          llvm::Value *firstRow, int64_t count,
                                          llvm::Value *segment) const = 0;
  /// A cheaper source for tiles where `condition` holds (e.g. convolution
  /// tiles away from the padding, whose rows are one base pointer plus
  /// constant offsets): emitGemm then branches once per tile. Null when
  /// there is none.
  struct FastPath {
    llvm::Value *condition = nullptr;
    const RowSource *rows = nullptr;
  };
  virtual FastPath fastPath(EmitterContext &, llvm::Value * /*firstRow*/,
                            int64_t /*count*/) const {
    return {};
  }
};

/// Rows at a fixed stride: row i starts at base + i * rowStride.
class StridedRows final : public RowSource {
public:
  StridedRows(ir::DType dtype, llvm::Value *base, int64_t rowStride, int64_t k,
              int64_t kStride);
  std::vector<llvm::Value *> rows(EmitterContext &ctx, llvm::Value *firstRow,
                                  int64_t count,
                                  llvm::Value *segment) const override;

private:
  ir::DType dtype_;
  llvm::Value *base_;
  int64_t rowStride_;
};

/// The static shape of one GEMM.
struct GemmShape {
  ir::DType dtype = ir::DType::F32;
  int64_t m = 0, n = 0;
  int64_t ldc = 0;      ///< elements between rows of C (its element index)
  /// Elements between rows of C in memory when C is a part of a wider
  /// buffer (a concatenate's channels); 0: ldc.
  int64_t cStride = 0;
  bool packedB = false; ///< B is [panel][k][nr] (zero-padded); else rows
  int64_t ldb = 0;      ///< unpacked B: elements between k rows (unit columns)
  GemmTile tile;
};

/// The rows one call computes when the GEMM is split into tasks of whole
/// MR-row tiles: the full tiles of rows [first, end) (multiples of MR) and,
/// where `withTail` (i1) holds, the M % MR rows after every full tile.
/// Null values: every row. A task of a paired job (TaskPair.h) starts at
/// any row and ends on a short tile of its own: `tailRows` rows from
/// `tailFirst` (0: the M % MR rows after every full tile).
struct GemmRows {
  llvm::Value *first = nullptr, *end = nullptr, *withTail = nullptr;
  llvm::Value *tailFirst = nullptr;
  int64_t tailRows = 0;
};

/// Where one GEMM reads and writes, as values inside the kernel function.
struct GemmOperands {
  GemmRows rows;
  const RowSource *a = nullptr;
  llvm::Value *b = nullptr, *c = nullptr;
  llvm::Value *linearBase = nullptr;  ///< output element index of C[0, 0]
  llvm::Value *featureBase = nullptr; ///< output feature index of column 0
  std::vector<llvm::Value *> leaves;  ///< the epilogue's leaf pointers
};

/// Emits the whole GEMM into the current function.
Error emitGemm(EmitterContext &ctx, const GemmShape &shape,
               const GemmOperands &operands, const Epilogue &epilogue);

/// The split of `batches` GEMMs of `shape` with contraction length `k` into
/// tasks of whole MR-row tiles, each covering its rows in every batch (the
/// M % MR tail rows go with the last task).
TaskSplit splitGemm(const GemmShape &shape, int64_t k, int64_t batches);

/// The rows tasks [firstTask, lastTask) of `split` compute.
GemmRows gemmTaskRows(EmitterContext &ctx, const GemmShape &shape,
                      const TaskSplit &split, llvm::Value *firstTask,
                      llvm::Value *lastTask);

/// The tile for `dtype`, an m x n output and contraction length k.
GemmTile gemmTileFor(EmitterContext &ctx, ir::DType dtype, int64_t m, int64_t n,
                     int64_t k);

} // namespace kiln::codegen::kernels

#endif // KILN_LIB_CODEGEN_KERNELS_GEMM_H
