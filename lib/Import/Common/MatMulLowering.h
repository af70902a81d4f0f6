//===- MatMulLowering.h - Matrix products for importers ---------*- C++ -*-===//
//
// TF's MatMul/BatchMatMul* and ONNX's MatMul/Gemm all become one `dot`.
// Transposed constant operands are transposed at import (the transpose
// folds), so weights reach the code generator in [K, N] form; a transposed
// run-time operand is contracted along its other dimension instead of being
// copied.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_MATMULLOWERING_H
#define KILN_LIB_IMPORT_COMMON_MATMULLOWERING_H

#include "kiln/Import/GraphBuilder.h"

namespace kiln::import {

/// a [M, K] x b [K, N] -> [M, N]; `transA` means a is [K, M], `transB` that
/// b is [N, K].
Value matMul2d(GraphBuilder &b, Value lhs, Value rhs, bool transA, bool transB);

/// NumPy matmul: rank-1 operands are promoted to a matrix and the added
/// dimension removed again; batch dimensions (all but the last two)
/// broadcast. `adjA`/`adjB` transpose the last two dimensions of an operand
/// of rank >= 2 (TF's adj_x/adj_y; kiln has no complex numbers).
Value batchMatMul(GraphBuilder &b, Value lhs, Value rhs, bool adjA = false,
                  bool adjB = false);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_MATMULLOWERING_H
