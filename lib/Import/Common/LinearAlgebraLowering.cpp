//===- LinearAlgebraLowering.cpp - Matrix functions for the importers -----===//
#include "Common/LinearAlgebraLowering.h"

#include "Common/ArrayLowering.h"
#include "Common/ElementwiseLowering.h"
#include "Common/ReductionLowering.h"

#include <fmt/format.h>

namespace kiln::import {

using ir::ComparisonDirection;
using ir::DType;
using ir::Opcode;

Value determinant(GraphBuilder &b, Value x) {
  if (!x)
    return nullptr;
  std::vector<int64_t> dims = dimsOf(x);
  size_t rank = dims.size();
  if (rank < 2 || dims[rank - 1] != dims[rank - 2] ||
      !ir::isFloat(x->shape().dtype()))
    return b.fail(fmt::format("determinant needs floating-point square "
                              "matrices [..., M, M] but got {}",
                              x->shape().toString()));
  DType dtype = x->shape().dtype(), wide = computeType(dtype);
  std::vector<int64_t> batchDims(dims.begin(), dims.end() - 2);
  int64_t m = dims[rank - 1], batch = product(batchDims);
  std::vector<int64_t> cube = {batch, m, m};
  Value a = b.reshape(b.convert(x, wide), cube);
  Value zero = b.scalar(wide, 0.0);
  Value det = b.broadcastTo(b.scalar(wide, 1.0), {batch});
  Value row = iota(b, DType::S64, cube, 1); // the row index of each element
  auto rowOf = [&](Value v, int64_t r) {    // [B, M, M] -> row r as [B, M]
    return b.reshape(b.sliceDim(v, 1, r, r + 1), {batch, m});
  };
  auto columnOf = [&](Value v, int64_t c) { // [B, M, M] -> column c as [B, M]
    return b.reshape(b.sliceDim(v, 2, c, c + 1), {batch, m});
  };
  for (int64_t k = 0; k < m; ++k) {
    // The pivot row p >= k: the first largest |a[i, k]|.
    Value candidates = b.sliceDim(columnOf(a, k), 1, k, m);
    Value p = b.binary(Opcode::Add,
                       argMinMax(b, b.unary(Opcode::Abs, candidates), 1,
                                 /*isMax=*/true, DType::S64, false),
                       b.scalar(DType::S64, double(k)));
    Value isP =
        b.compare(ComparisonDirection::EQ, row, b.broadcastInDim(p, cube, {0}));
    Value isK = b.compare(ComparisonDirection::EQ, row,
                          b.scalar(DType::S64, double(k)));
    Value rowP = b.reduce(b.select(isP, a, zero), {1}, ir::ReducerKind::Add);
    Value rowK = rowOf(a, k);
    a = b.select(isK, b.broadcastInDim(rowP, cube, {0, 2}),
                 b.select(isP, b.broadcastInDim(rowK, cube, {0, 2}), a));
    Value swapped =
        b.compare(ComparisonDirection::NE, p, b.scalar(DType::S64, double(k)));
    Value pivot = b.reshape(b.sliceDim(rowP, 1, k, k + 1), {batch});
    det = b.binary(Opcode::Multiply,
                   b.select(swapped, b.unary(Opcode::Negate, det), det), pivot);
    if (k + 1 == m)
      break;
    // Rows below k lose factor * row k; a zero pivot leaves them alone
    // (the determinant is already 0).
    Value isZero = b.compare(ComparisonDirection::EQ, pivot, zero);
    Value safePivot = b.select(isZero, b.scalar(wide, 1.0), pivot);
    Value factor = b.binary(Opcode::Divide, columnOf(a, k),
                            b.broadcastInDim(safePivot, {batch, m}, {0}));
    Value below =
        b.compare(ComparisonDirection::GT, iota(b, DType::S64, {batch, m}, 1),
                  b.scalar(DType::S64, double(k)));
    factor = b.select(b.binary(Opcode::And, below,
                               b.broadcastInDim(b.unary(Opcode::Not, isZero),
                                                {batch, m}, {0})),
                      factor, zero);
    a = b.binary(Opcode::Subtract, a,
                 b.binary(Opcode::Multiply,
                          b.broadcastInDim(factor, cube, {0, 1}),
                          b.broadcastInDim(rowP, cube, {0, 2})));
  }
  return b.convert(b.reshape(det, batchDims), dtype);
}

} // namespace kiln::import
