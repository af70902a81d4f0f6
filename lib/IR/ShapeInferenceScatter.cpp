//===- ShapeInferenceScatter.cpp - Shape rule of scatter ------------------===//
//
// scatter(operands[N], indices, updates[N]) with XLA's dimension numbers
// and batching dims. Every rule XLA states is checked here, before any
// later stage reads an attribute, so evaluator and code generator may
// index with them freely (kiln/IR/ScatterIndexing.h).
//
//===----------------------------------------------------------------------===//
#include "ShapeInferenceRules.h"
#include "kiln/IR/ScatterIndexing.h"

#include <algorithm>
#include <fmt/format.h>

namespace kiln::ir::detail {

namespace {

Error requireSortedUnique(const std::vector<int64_t> &dims, int64_t rank,
                          std::string_view what) {
  if (Error e = requireUniqueDims(dims, rank, fmt::format("{} entry", what)))
    return e;
  if (!std::is_sorted(dims.begin(), dims.end()))
    return makeError("{} {} must be sorted", what, formatDims(dims));
  return Error::success();
}

bool shareAny(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  for (int64_t x : a)
    if (std::find(b.begin(), b.end(), x) != b.end())
      return true;
  return false;
}

/// Operands 0..N-1 agree in dims, updates N+1..2N agree in dims, and
/// update i has operand i's dtype.
Error checkValueShapes(const InferenceInput &in, size_t n) {
  for (size_t i = 0; i < in.operands.size(); ++i)
    if (Error e = requireArray(in, i))
      return e;
  for (size_t i = 0; i < n; ++i) {
    const Shape &operand = in.operands[i], &update = in.operands[n + 1 + i];
    if (operand.dims() != in.operands[0].dims())
      return makeError("operand {} has shape {} but operand 0 has {}; every "
                       "scattered operand has the same dimensions",
                       i, operand.toString(), in.operands[0].toString());
    if (update.dims() != in.operands[n + 1].dims())
      return makeError("update {} (operand {}) has shape {} but update 0 has "
                       "{}",
                       i, n + 1 + i, update.toString(),
                       in.operands[n + 1].toString());
    if (update.dtype() != operand.dtype())
      return makeError("update {} has dtype {} but operand {} has {}", i,
                       dtypeName(update.dtype()), i,
                       dtypeName(operand.dtype()));
  }
  return Error::success();
}

/// The dimension-number lists: ranges, order, disjointness and counts.
Error checkDimensionNumbers(const ScatterDimensionNumbers &s,
                            const Shape &operand, const Shape &indices,
                            const Shape &updates) {
  int64_t rank = operand.rank();
  if (s.indexVectorDim < 0 || s.indexVectorDim > indices.rank())
    return makeError("index_vector_dim {} must be in [0, {}]", s.indexVectorDim,
                     indices.rank());
  if (Error e = requireSortedUnique(s.updateWindowDims, updates.rank(),
                                    "update_window_dims"))
    return e;
  if (Error e = requireSortedUnique(s.insertedWindowDims, rank,
                                    "inserted_window_dims"))
    return e;
  if (Error e =
          requireSortedUnique(s.inputBatchingDims, rank, "input_batching_dims"))
    return e;
  if (shareAny(s.insertedWindowDims, s.inputBatchingDims))
    return makeError("inserted_window_dims {} and input_batching_dims {} must "
                     "be disjoint",
                     formatDims(s.insertedWindowDims),
                     formatDims(s.inputBatchingDims));
  size_t covered = s.updateWindowDims.size() + s.insertedWindowDims.size() +
                   s.inputBatchingDims.size();
  if (int64_t(covered) != rank)
    return makeError("update_window_dims ({}) plus inserted_window_dims ({}) "
                     "plus input_batching_dims ({}) must cover the operand "
                     "rank {}",
                     s.updateWindowDims.size(), s.insertedWindowDims.size(),
                     s.inputBatchingDims.size(), rank);
  int64_t indexCount = s.indexVectorDim == indices.rank()
                           ? 1
                           : indices.dim(size_t(s.indexVectorDim));
  if (int64_t(s.scatterDimsToOperandDims.size()) != indexCount)
    return makeError("scatter_dims_to_operand_dims {} must have one entry per "
                     "index ({} in the index vector)",
                     formatDims(s.scatterDimsToOperandDims), indexCount);
  if (Error e = requireUniqueDims(s.scatterDimsToOperandDims, rank,
                                  "scatter_dims_to_operand_dims entry"))
    return e;
  if (shareAny(s.scatterDimsToOperandDims, s.inputBatchingDims))
    return makeError("scatter_dims_to_operand_dims {} must not name an input "
                     "batching dimension ({})",
                     formatDims(s.scatterDimsToOperandDims),
                     formatDims(s.inputBatchingDims));
  if (s.scatterIndicesBatchingDims.size() != s.inputBatchingDims.size())
    return makeError("scatter_indices_batching_dims {} must pair with "
                     "input_batching_dims {} one to one",
                     formatDims(s.scatterIndicesBatchingDims),
                     formatDims(s.inputBatchingDims));
  if (Error e = requireUniqueDims(s.scatterIndicesBatchingDims, indices.rank(),
                                  "scatter_indices_batching_dims entry"))
    return e;
  if (std::find(s.scatterIndicesBatchingDims.begin(),
                s.scatterIndicesBatchingDims.end(),
                s.indexVectorDim) != s.scatterIndicesBatchingDims.end())
    return makeError("scatter_indices_batching_dims {} must not contain "
                     "index_vector_dim {}",
                     formatDims(s.scatterIndicesBatchingDims),
                     s.indexVectorDim);
  return Error::success();
}

/// Update dims against the indices (scatter dims) and operand (windows).
Error checkUpdateDims(const ScatterDimensionNumbers &s, const Shape &operand,
                      const Shape &indices, const Shape &updates) {
  ScatterRoles roles =
      scatterRoles(s, operand.rank(), indices.rank(), updates.dims());
  size_t scatterDims = roles.indicesDimOfScatterDim.size();
  if (roles.updateScatterDims.size() != scatterDims)
    return makeError("updates {} have {} scatter dimension{} (not in "
                     "update_window_dims {}) but the indices {} give {}",
                     updates.toString(), roles.updateScatterDims.size(),
                     roles.updateScatterDims.size() == 1 ? "" : "s",
                     formatDims(s.updateWindowDims), indices.toString(),
                     scatterDims);
  for (size_t j = 0; j < scatterDims; ++j) {
    int64_t u = roles.updateScatterDims[j];
    int64_t d = roles.indicesDimOfScatterDim[j];
    if (updates.dim(size_t(u)) != indices.dim(size_t(d)))
      return makeError("update dimension {} has size {} but indices "
                       "dimension {} has size {}",
                       u, updates.dim(size_t(u)), d, indices.dim(size_t(d)));
  }
  for (size_t k = 0; k < s.updateWindowDims.size(); ++k) {
    int64_t u = s.updateWindowDims[k];
    int64_t d = roles.operandDimOfWindowDim[k];
    if (updates.dim(size_t(u)) > operand.dim(size_t(d)))
      return makeError("update window dimension {} has size {} but operand "
                       "dimension {} has only {}",
                       u, updates.dim(size_t(u)), d, operand.dim(size_t(d)));
  }
  for (size_t i = 0; i < s.inputBatchingDims.size(); ++i) {
    int64_t od = s.inputBatchingDims[i], id = s.scatterIndicesBatchingDims[i];
    if (operand.dim(size_t(od)) != indices.dim(size_t(id)))
      return makeError("input batching dimension {} has size {} but indices "
                       "batching dimension {} has size {}",
                       od, operand.dim(size_t(od)), id,
                       indices.dim(size_t(id)));
  }
  return Error::success();
}

/// to_apply takes (current values..., update values...) as 2N scalars and
/// returns the new values: a scalar for N = 1, else an N-tuple of scalars.
Error checkCombiner(const InferenceInput &in, size_t n) {
  if (in.called.size() != 1 || !in.called[0])
    return makeError("scatter needs exactly one to_apply computation (the "
                     "combiner) but has {}",
                     in.called.size());
  const Computation &combiner = *in.called[0];
  if (!combiner.root())
    return makeError("combiner '{}' has no root", combiner.name());
  if (combiner.parameters().size() != 2 * n)
    return makeError("combiner '{}' has {} parameters but a scatter of {} "
                     "operand{} needs {} (current values, then updates)",
                     combiner.name(), combiner.parameters().size(), n,
                     n == 1 ? "" : "s", 2 * n);
  for (size_t p = 0; p < 2 * n; ++p) {
    Shape want(in.operands[p % n].dtype(), {});
    const Instruction *param = combiner.parameter(int64_t(p));
    if (!param)
      return makeError("combiner '{}' has no parameter {}", combiner.name(), p);
    if (param->shape() != want)
      return makeError("combiner '{}' parameter {} has shape {} but must be "
                       "{} (operand {}'s element)",
                       combiner.name(), p, param->shape().toString(),
                       want.toString(), p % n);
  }
  std::vector<Shape> results;
  for (size_t i = 0; i < n; ++i)
    results.push_back(Shape(in.operands[i].dtype(), {}));
  Shape want = n == 1 ? results[0] : Shape::tuple(results);
  if (combiner.root()->shape() != want)
    return makeError("combiner '{}' returns {} but must return {}",
                     combiner.name(), combiner.root()->shape().toString(),
                     want.toString());
  return Error::success();
}

} // namespace

Expected<Shape> inferScatter(const InferenceInput &in) {
  size_t count = in.operands.size();
  if (count < 3 || count % 2 == 0)
    return makeError("expected N operands, the indices and N updates (an odd "
                     "count of at least 3) but found {} operands",
                     count);
  size_t n = (count - 1) / 2;
  if (Error e = checkValueShapes(in, n))
    return e;
  const Shape &operand = in.operands[0], &indices = in.operands[n],
              &updates = in.operands[n + 1];
  if (!isInteger(indices.dtype()))
    return makeError("scatter indices (operand {}) must be integers but have "
                     "dtype {}",
                     n, dtypeName(indices.dtype()));
  const ScatterDimensionNumbers &s = in.attrs.scatter;
  if (Error e = checkDimensionNumbers(s, operand, indices, updates))
    return e;
  if (Error e = checkUpdateDims(s, operand, indices, updates))
    return e;
  if (Error e = checkCombiner(in, n))
    return e;
  if (n == 1)
    return operand;
  std::vector<Shape> results(in.operands.begin(), in.operands.begin() + n);
  return Shape::tuple(results);
}

} // namespace kiln::ir::detail
