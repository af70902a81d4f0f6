//===- ScatterIndexing.h - Where a scatter update element lands -*- C++ -*-===//
//
// XLA's scatter semantics as dimension roles, computed once from the
// attributes and shapes so the shape rule, the evaluator and the code
// generator read the same definition (docs/hlo.md, "scatter"). An update
// index U splits into scatter dims (which index vector, and so which start)
// and window dims (the offset inside the window). Operand index =
//   start (from the index vector, on scatter_dims_to_operand_dims)
// + batch position (input_batching_dims take U's matching scatter dim)
// + window offset (update_window_dims on the remaining operand dims).
// Only valid after the shape rule accepted the instruction.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_SCATTERINDEXING_H
#define KILN_IR_SCATTERINDEXING_H

#include "kiln/IR/Attributes.h"

#include <cstdint>
#include <vector>

namespace kiln::ir {

struct ScatterRoles {
  /// Update dims that are not window dims, ascending: scatter dim j of the
  /// update walks indices dim indicesDimOfScatterDim[j].
  std::vector<int64_t> updateScatterDims;
  std::vector<int64_t> indicesDimOfScatterDim;
  /// For update_window_dims[k], the operand dim it offsets.
  std::vector<int64_t> operandDimOfWindowDim;
  /// For input_batching_dims[i], the update dim holding its position.
  std::vector<int64_t> updateDimOfBatchingDim;
  /// Per operand dim: the window's extent (1 for inserted and batching
  /// dims), for the whole-window bounds check.
  std::vector<int64_t> windowExtent;
};

/// Roles of a scatter with operand rank `operandRank`, indices rank
/// `indicesRank`, and update dims `updateDims`.
inline ScatterRoles scatterRoles(const ScatterDimensionNumbers &s,
                                 int64_t operandRank, int64_t indicesRank,
                                 const std::vector<int64_t> &updateDims) {
  auto contains = [](const std::vector<int64_t> &list, int64_t v) {
    for (int64_t x : list)
      if (x == v)
        return true;
    return false;
  };
  ScatterRoles roles;
  for (int64_t d = 0; d < int64_t(updateDims.size()); ++d)
    if (!contains(s.updateWindowDims, d))
      roles.updateScatterDims.push_back(d);
  for (int64_t d = 0; d < indicesRank; ++d)
    if (d != s.indexVectorDim)
      roles.indicesDimOfScatterDim.push_back(d);
  for (int64_t d = 0; d < operandRank; ++d)
    if (!contains(s.insertedWindowDims, d) && !contains(s.inputBatchingDims, d))
      roles.operandDimOfWindowDim.push_back(d);
  for (int64_t indicesDim : s.scatterIndicesBatchingDims) {
    int64_t j = indicesDim < s.indexVectorDim ? indicesDim : indicesDim - 1;
    roles.updateDimOfBatchingDim.push_back(
        j >= 0 && j < int64_t(roles.updateScatterDims.size())
            ? roles.updateScatterDims[size_t(j)]
            : 0);
  }
  roles.windowExtent.assign(size_t(operandRank), 1);
  for (size_t k = 0;
       k < s.updateWindowDims.size() && k < roles.operandDimOfWindowDim.size();
       ++k) {
    int64_t u = s.updateWindowDims[k];
    if (u >= 0 && u < int64_t(updateDims.size()))
      roles.windowExtent[size_t(roles.operandDimOfWindowDim[k])] =
          updateDims[size_t(u)];
  }
  return roles;
}

} // namespace kiln::ir

#endif // KILN_IR_SCATTERINDEXING_H
