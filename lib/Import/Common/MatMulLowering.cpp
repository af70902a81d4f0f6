//===- MatMulLowering.cpp - Matrix products for importers -----------------===//
#include "Common/MatMulLowering.h"

#include <fmt/format.h>

namespace kiln::import {

using ir::Opcode;

namespace {

/// Swaps the last two dimensions.
std::vector<int64_t> swapLastTwo(int64_t rank) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  std::swap(perm[size_t(rank - 1)], perm[size_t(rank - 2)]);
  return perm;
}

/// Transposes a constant now (it folds) so that weights arrive untransposed;
/// returns whether `x` still needs its last two dimensions swapped.
bool foldTranspose(GraphBuilder &b, Value &x, bool transposed) {
  if (!transposed || !GraphBuilder::constantValue(x))
    return transposed;
  x = b.transpose(x, swapLastTwo(x->shape().rank()));
  return false;
}

Value dotWithBatch(GraphBuilder &b, Value lhs, Value rhs, int64_t batchRank,
                   bool transA, bool transB) {
  ir::Attributes attrs;
  for (int64_t i = 0; i < batchRank; ++i) {
    attrs.dot.lhsBatch.push_back(i);
    attrs.dot.rhsBatch.push_back(i);
  }
  attrs.dot.lhsContracting = {batchRank + (transA ? 0 : 1)};
  attrs.dot.rhsContracting = {batchRank + (transB ? 1 : 0)};
  return b.add(Opcode::Dot, {lhs, rhs}, std::move(attrs));
}

int64_t product(const std::vector<int64_t> &dims, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i)
    n *= dims[i];
  return n;
}

} // namespace

Value matMul2d(GraphBuilder &b, Value lhs, Value rhs, bool transA,
               bool transB) {
  if (!b.ok() || !lhs || !rhs)
    return b.fail("internal error: null operand");
  if (lhs->shape().rank() != 2 || rhs->shape().rank() != 2)
    return b.fail(fmt::format("matrix product needs two matrices but got "
                              "shapes {} and {}",
                              lhs->shape().toString(),
                              rhs->shape().toString()));
  transA = foldTranspose(b, lhs, transA);
  transB = foldTranspose(b, rhs, transB);
  return dotWithBatch(b, lhs, rhs, 0, transA, transB);
}

Value batchMatMul(GraphBuilder &b, Value lhs, Value rhs, bool adjA,
                  bool adjB) {
  if (!b.ok() || !lhs || !rhs)
    return b.fail("internal error: null operand");
  if (lhs->shape().rank() == 0 || rhs->shape().rank() == 0)
    return b.fail("matrix product operands must have rank >= 1");
  bool vectorA = lhs->shape().rank() == 1, vectorB = rhs->shape().rank() == 1;
  if (vectorA)
    lhs = b.reshape(lhs, {1, lhs->shape().dim(0)});
  if (vectorB)
    rhs = b.reshape(rhs, {rhs->shape().dim(0), 1});
  adjA = adjA && !vectorA;
  adjB = foldTranspose(b, rhs, adjB && !vectorB);
  std::vector<int64_t> da = lhs->shape().dims(), db = rhs->shape().dims();
  size_t ra = da.size(), rb = db.size();
  std::vector<int64_t> batchA(da.begin(), da.end() - 2),
      batchB(db.begin(), db.end() - 2);
  Value result;
  std::vector<int64_t> resultDims;
  if (product(db, 0, rb - 2) == 1 && !adjA) {
    // A matrix (or batch of one) on the right: fold the left batch into M so
    // the dot is one plain matrix product.
    int64_t m = da[ra - 2], n = adjB ? db[rb - 2] : db[rb - 1];
    Value flat = b.reshape(lhs, {product(da, 0, ra - 1), da[ra - 1]});
    Value matrix = b.reshape(rhs, {db[rb - 2], db[rb - 1]});
    result = dotWithBatch(b, flat, matrix, 0, false, adjB);
    Expected<std::vector<int64_t>> batch =
        GraphBuilder::broadcastDims(batchA, batchB);
    if (!batch)
      return b.fail(batch.errorMessage());
    // The batch of ones on the right may add leading dimensions.
    std::vector<int64_t> lead(batch->size() - batchA.size(), 1);
    resultDims = lead;
    resultDims.insert(resultDims.end(), batchA.begin(), batchA.end());
    resultDims.insert(resultDims.end(), {m, n});
  } else {
    Expected<std::vector<int64_t>> batch =
        GraphBuilder::broadcastDims(batchA, batchB);
    if (!batch)
      return b.fail(fmt::format("matrix product batch dimensions: {}",
                                batch.errorMessage()));
    std::vector<int64_t> fullA = *batch, fullB = *batch;
    fullA.insert(fullA.end(), da.end() - 2, da.end());
    fullB.insert(fullB.end(), db.end() - 2, db.end());
    result = dotWithBatch(b, b.broadcastTo(lhs, fullA), b.broadcastTo(rhs, fullB),
                          int64_t(batch->size()), adjA, adjB);
    if (!result)
      return nullptr;
    resultDims = result->shape().dims();
  }
  if (!result)
    return nullptr;
  if (vectorA)
    resultDims.erase(resultDims.end() - 2);
  if (vectorB)
    resultDims.pop_back();
  return b.reshape(result, resultDims);
}

} // namespace kiln::import
