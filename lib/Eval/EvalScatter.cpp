//===- EvalScatter.cpp - scatter ------------------------------------------===//
//
// XLA's definition taken literally, one update element at a time in
// row-major update order: the element's operand index comes from
// ScatterRoles (kiln/IR/ScatterIndexing.h); a start whose whole window does
// not fit in the operand skips every element of that window; otherwise the
// combiner maps (current values, update values) to the new values. The
// combiner is passed in, so this file needs no computation evaluator.
//
//===----------------------------------------------------------------------===//
#include "EvalInternal.h"
#include "kiln/IR/ScatterIndexing.h"

namespace kiln::eval::detail {

namespace {

using Index = std::vector<int64_t>;

/// The operand index update element `u` writes, or nullopt when its window
/// lies partly outside the operand.
Expected<std::optional<Index>>
scatterTarget(const Instruction &inst, const ir::ScatterRoles &roles,
              const Shape &operand, const Literal &indices, const Index &u) {
  const ir::ScatterDimensionNumbers &s = inst.attrs().scatter;
  const Shape &indicesShape = indices.shape();
  Index at(size_t(indicesShape.rank()), 0);
  for (size_t j = 0; j < roles.updateScatterDims.size(); ++j)
    at[size_t(roles.indicesDimOfScatterDim[j])] =
        u[size_t(roles.updateScatterDims[j])];
  Index start(size_t(operand.rank()), 0);
  for (size_t k = 0; k < s.scatterDimsToOperandDims.size(); ++k) {
    if (s.indexVectorDim < indicesShape.rank())
      at[size_t(s.indexVectorDim)] = int64_t(k);
    Expected<int64_t> value =
        loadIndex(indices, linearIndex(at, indicesShape.dims()));
    if (!value)
      return instructionError(inst, value.errorMessage());
    start[size_t(s.scatterDimsToOperandDims[k])] = *value;
  }
  for (size_t i = 0; i < s.inputBatchingDims.size(); ++i)
    start[size_t(s.inputBatchingDims[i])] =
        u[size_t(roles.updateDimOfBatchingDim[i])];
  for (size_t d = 0; d < start.size(); ++d)
    if (start[d] < 0 || start[d] > operand.dim(d) - roles.windowExtent[d])
      return std::optional<Index>();
  for (size_t k = 0; k < s.updateWindowDims.size(); ++k)
    start[size_t(roles.operandDimOfWindowDim[k])] +=
        u[size_t(s.updateWindowDims[k])];
  return std::optional<Index>(std::move(start));
}

Literal scalarOf(const Literal &array, int64_t i) {
  Literal scalar(Shape(array.shape().dtype(), {}));
  copyElement(scalar, 0, array, i);
  return scalar;
}

} // namespace

Expected<std::vector<Literal>> evalScatter(const Instruction &inst,
                                           const Operands &ops,
                                           const ScatterCombiner &combine) {
  size_t n = (ops.size() - 1) / 2;
  const Literal &indices = *ops[n];
  const Shape &operand = ops[0]->shape();
  const Shape &updates = ops[n + 1]->shape();
  ir::ScatterRoles roles =
      ir::scatterRoles(inst.attrs().scatter, operand.rank(),
                       indices.shape().rank(), updates.dims());
  std::vector<Literal> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(*ops[i]);
  Error error = Error::success();
  int64_t from = 0;
  forEachIndex(updates.dims(), [&](const Index &u) {
    int64_t source = from++;
    if (error)
      return;
    Expected<std::optional<Index>> target =
        scatterTarget(inst, roles, operand, indices, u);
    if (!target) {
      error = target.takeError();
      return;
    }
    if (!*target)
      return; // out of bounds: skipped
    int64_t to = linearIndex(**target, operand.dims());
    std::vector<Literal> args;
    for (size_t i = 0; i < n; ++i)
      args.push_back(scalarOf(out[i], to));
    for (size_t i = 0; i < n; ++i)
      args.push_back(scalarOf(*ops[n + 1 + i], source));
    Expected<std::vector<Literal>> combined = combine(std::move(args));
    if (!combined) {
      error = combined.takeError();
      return;
    }
    for (size_t i = 0; i < n; ++i)
      copyElement(out[i], to, (*combined)[i], 0);
  });
  if (error)
    return error;
  return out;
}

} // namespace kiln::eval::detail
