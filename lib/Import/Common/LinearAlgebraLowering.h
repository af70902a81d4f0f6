//===- LinearAlgebraLowering.h - Matrix functions ---------------*- C++ -*-===//
//
// Matrix functions beyond products, for both front ends. They are unrolled
// at import over the (static) matrix size and vectorized over the batch.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_LINEARALGEBRALOWERING_H
#define KILN_LIB_IMPORT_COMMON_LINEARALGEBRALOWERING_H

#include "kiln/Import/GraphBuilder.h"

namespace kiln::import {

/// Determinant of each [M, M] matrix of x ([..., M, M], floating point):
/// Gaussian elimination with partial pivoting (the first row with the
/// largest |pivot|, as LAPACK's getrf), the product of the pivots with the
/// sign of the row swaps. f16/bf16 compute in f32. A zero pivot column makes
/// the determinant 0 without dividing by it.
Value determinant(GraphBuilder &b, Value x);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_LINEARALGEBRALOWERING_H
