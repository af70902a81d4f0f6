//===- GatherLowering.cpp - Gather and import-time scatter helpers -------===//
//
// Framework gathers become one XLA gather whose index vectors carry an iota
// per shared batch dimension. Scatters need constant indices: the writes
// are resolved at import into "which update lands here" maps, applied as
// gathers and selects, one round per repeated destination.
//
//===----------------------------------------------------------------------===//
#include "Common/ArrayLowering.h"

#include "kiln/Import/LiteralUtil.h"
#include "kiln/Support/CheckedArithmetic.h"

#include <fmt/format.h>

namespace kiln::import {

using ir::DType;
using ir::Opcode;

namespace {
/// Checks constant indices against `bounds` (cycled over the elements, one
/// bound per index-vector component) and wraps negatives when allowed; a
/// run-time index tensor gets a select that wraps negatives instead.
Value normalizeIndices(GraphBuilder &b, Value indices,
                       const std::vector<int64_t> &bounds, bool wrapNegative) {
  if (!indices)
    return nullptr;
  DType type = indices->shape().dtype();
  if (!ir::isInteger(type))
    return b.fail(fmt::format("indices must be integers but have dtype {}",
                              ir::dtypeName(type)));
  if (std::optional<std::vector<int64_t>> values =
          GraphBuilder::constantInts(indices)) {
    for (size_t i = 0; i < values->size(); ++i) {
      int64_t bound = bounds[i % bounds.size()], &v = (*values)[i];
      if (wrapNegative && v < 0)
        v += bound;
      if (v < 0 || v >= bound)
        return b.fail(fmt::format("index {} is out of range [0, {})",
                                  (*values)[i], bound));
    }
    return b.constant(literalFromInts(indices->shape(), *values));
  }
  if (!wrapNegative || !ir::isSignedInt(type))
    return indices;
  Value bound = bounds.size() == 1 ? b.scalar(type, double(bounds[0]))
                                   : b.ints(type, bounds);
  Value negative =
      b.compare(ir::ComparisonDirection::LT, indices, b.scalar(type, 0));
  return b.select(negative, b.binary(Opcode::Add, indices, bound), indices);
}

/// `indices` with a trailing index-vector dimension of size 1.
Value asIndexVectors(GraphBuilder &b, Value indices) {
  std::vector<int64_t> dims = dimsOf(indices);
  dims.push_back(1);
  return b.reshape(indices, dims);
}

/// Prepends one iota per leading batch dimension to the index vectors of
/// `indices` (whose last dimension is the index vector).
Value withBatchIotas(GraphBuilder &b, Value indices, int64_t batchDims) {
  if (!indices || batchDims == 0)
    return indices;
  std::vector<int64_t> dims = dimsOf(indices);
  dims.back() = 1;
  std::vector<Value> parts;
  for (int64_t j = 0; j < batchDims; ++j)
    parts.push_back(iota(b, indices->shape().dtype(), dims, j));
  parts.push_back(indices);
  return b.concatenate(parts, int64_t(dims.size()) - 1);
}

Value combine(GraphBuilder &b, ScatterReduction reduction, Value old,
              Value update) {
  switch (reduction) {
  case ScatterReduction::None:
    return update;
  case ScatterReduction::Add:
    return b.binary(Opcode::Add, old, update);
  case ScatterReduction::Mul:
    return b.binary(Opcode::Multiply, old, update);
  case ScatterReduction::Max:
    return b.binary(Opcode::Maximum, old, update);
  case ScatterReduction::Min:
    return b.binary(Opcode::Minimum, old, update);
  }
  return nullptr;
}
} // namespace

Value gatherAxis(GraphBuilder &b, Value x, Value indices, int64_t axis,
                 int64_t batchDims, bool wrapNegative) {
  if (!x || !indices)
    return nullptr;
  std::vector<int64_t> xd = dimsOf(x), id = dimsOf(indices);
  int64_t r = int64_t(xd.size()), q = int64_t(id.size()), k = batchDims;
  if (k < 0 || k > q || axis < k || axis >= r)
    return b.fail(fmt::format("gather axis {} with batch_dims {} is invalid "
                              "for ranks {} and {}",
                              axis, k, r, q));
  for (int64_t j = 0; j < k; ++j)
    if (xd[size_t(j)] != id[size_t(j)])
      return b.fail(fmt::format("batch dimension {} differs: {} vs {}", j,
                                xd[size_t(j)], id[size_t(j)]));
  indices = normalizeIndices(b, indices, {xd[size_t(axis)]}, wrapNegative);
  Value full = withBatchIotas(b, asIndexVectors(b, indices), k);
  ir::Attributes attrs;
  ir::GatherDimensionNumbers &g = attrs.gather;
  attrs.sizes = xd;
  for (int64_t j = 0; j < k; ++j)
    g.startIndexMap.push_back(j);
  g.startIndexMap.push_back(axis);
  g.collapsedSliceDims = g.startIndexMap;
  for (int64_t j : g.startIndexMap)
    attrs.sizes[size_t(j)] = 1;
  // Result: batch dims, x[k:axis], the other index dims, x[axis+1:].
  for (int64_t j = k; j < r; ++j)
    if (j != axis)
      g.offsetDims.push_back(j < axis ? j : j - 1 + q - k);
  g.indexVectorDim = q;
  return b.add(Opcode::Gather, {x, full}, std::move(attrs));
}

Value gatherNd(GraphBuilder &b, Value x, Value indices, int64_t batchDims,
               bool wrapNegative) {
  if (!x || !indices)
    return nullptr;
  std::vector<int64_t> xd = dimsOf(x), id = dimsOf(indices);
  int64_t r = int64_t(xd.size()), q = int64_t(id.size()), k = batchDims;
  if (q < 1 || k < 0 || k >= q || k + id.back() > r)
    return b.fail(fmt::format("gather-nd indices [{}] with batch_dims {} do "
                              "not fit a rank-{} input",
                              fmt::join(id, ","), k, r));
  for (int64_t j = 0; j < k; ++j)
    if (xd[size_t(j)] != id[size_t(j)])
      return b.fail(fmt::format("batch dimension {} differs: {} vs {}", j,
                                xd[size_t(j)], id[size_t(j)]));
  int64_t m = id.back();
  if (m == 0) // every index vector selects all of x[k:]
    return b.fail("gather-nd with empty index vectors is not supported");
  std::vector<int64_t> bounds(xd.begin() + k, xd.begin() + k + m);
  indices = normalizeIndices(b, indices, bounds, wrapNegative);
  Value full = withBatchIotas(b, indices, k);
  ir::Attributes attrs;
  ir::GatherDimensionNumbers &g = attrs.gather;
  attrs.sizes = xd;
  for (int64_t j = 0; j < k + m; ++j) {
    g.startIndexMap.push_back(j);
    attrs.sizes[size_t(j)] = 1;
  }
  g.collapsedSliceDims = g.startIndexMap;
  for (int64_t j = k + m; j < r; ++j)
    g.offsetDims.push_back(q - 1 + j - (k + m));
  g.indexVectorDim = q - 1;
  return b.add(Opcode::Gather, {x, full}, std::move(attrs));
}

Value gatherElements(GraphBuilder &b, Value x, Value indices, int64_t axis) {
  if (!x || !indices)
    return nullptr;
  std::vector<int64_t> xd = dimsOf(x), id = dimsOf(indices);
  int64_t r = int64_t(xd.size());
  if (int64_t(id.size()) != r || axis < 0 || axis >= r)
    return b.fail("gather-elements needs indices of the data's rank");
  indices = normalizeIndices(b, indices, {xd[size_t(axis)]}, true);
  std::vector<int64_t> column = id;
  column.push_back(1);
  std::vector<Value> parts;
  for (int64_t d = 0; d < r; ++d)
    parts.push_back(d == axis ? asIndexVectors(b, indices)
                              : iota(b, indices ? indices->shape().dtype()
                                                : DType::S64,
                                     column, d));
  ir::Attributes attrs;
  ir::GatherDimensionNumbers &g = attrs.gather;
  for (int64_t d = 0; d < r; ++d)
    g.startIndexMap.push_back(d);
  g.collapsedSliceDims = g.startIndexMap;
  attrs.sizes.assign(size_t(r), 1);
  g.indexVectorDim = r;
  return b.add(Opcode::Gather, {x, b.concatenate(parts, r)}, std::move(attrs));
}

namespace {
/// scatterRows' host tables have one int64_t entry per data row, and the
/// row count is the model's declared data shape: each is checked against
/// the constant budget before it is built.
constexpr int64_t kScatterEntryBytes = sizeof(int64_t);

/// Whether `rounds` tables of `rows` entries fit the budget together.
bool roundFits(GraphBuilder &b, int64_t rows, int64_t rounds) {
  return b.hostTableFits(
      fmt::format("the scatter's table of {} rounds of writes per row", rounds),
      checkedMul(rows, rounds), kScatterEntryBytes);
}
} // namespace

Value scatterRows(GraphBuilder &b, Value data, Value updates,
                  const std::vector<int64_t> &rows, ScatterReduction reduction) {
  if (!data || !updates)
    return nullptr;
  int64_t p = data->shape().dim(0);
  if (!b.hostTableFits("the scatter's table of writes per row", p,
                       kScatterEntryBytes))
    return nullptr;
  // rounds[r][row] = the update that is the r-th write to that row.
  std::vector<std::vector<int64_t>> rounds;
  std::vector<int64_t> writes(size_t(p), 0);
  for (size_t u = 0; u < rows.size(); ++u) {
    if (rows[u] < 0 || rows[u] >= p)
      return b.fail(fmt::format("scatter index {} is out of range [0, {})",
                                rows[u], p));
    int64_t &n = writes[size_t(rows[u])];
    if (reduction == ScatterReduction::None && n > 0)
      rounds[0][size_t(rows[u])] = int64_t(u); // the last write wins
    else {
      if (size_t(n) == rounds.size()) {
        if (!roundFits(b, p, int64_t(rounds.size()) + 1))
          return nullptr;
        rounds.emplace_back(size_t(p), -1);
      }
      rounds[size_t(n++)][size_t(rows[u])] = int64_t(u);
    }
  }
  for (const std::vector<int64_t> &round : rounds) {
    std::vector<int64_t> source, mask;
    for (int64_t u : round) {
      source.push_back(u < 0 ? 0 : u);
      mask.push_back(u >= 0);
    }
    Value gathered =
        gatherAxis(b, updates, b.ints(DType::S32, source), 0, 0, false);
    Value where = b.constant(literalFromInts(ir::Shape(DType::Pred, {p, 1}), mask));
    data = b.select(where, combine(b, reduction, data, gathered), data);
  }
  return data;
}

Value scatterNd(GraphBuilder &b, Value data, const ir::Literal &indices,
                Value updates, ScatterReduction reduction) {
  if (!data || !updates)
    return nullptr;
  std::vector<int64_t> dd = dimsOf(data), id = indices.shape().dims();
  if (id.empty() || id.back() > int64_t(dd.size()))
    return b.fail("scatter-nd index vectors are longer than the data's rank");
  size_t k = size_t(id.back());
  std::vector<int64_t> values = literalToInts(indices), rows;
  int64_t count = k == 0 ? product(id) : int64_t(values.size()) / int64_t(k);
  for (int64_t u = 0; u < count; ++u) {
    int64_t row = 0;
    for (size_t c = 0; c < k; ++c) {
      int64_t v = values[size_t(u) * k + c];
      v = v < 0 ? v + dd[c] : v;
      if (v < 0 || v >= dd[c])
        return b.fail(fmt::format("scatter index {} is out of range [0, {})",
                                  values[size_t(u) * k + c], dd[c]));
      row = row * dd[c] + v;
    }
    rows.push_back(row);
  }
  int64_t slice = product(dd, k);
  Value flat = b.reshape(data, {product(dd, 0, k), slice});
  Value result = scatterRows(b, flat, b.reshape(updates, {count, slice}), rows,
                             reduction);
  return b.reshape(result, dd);
}

Value scatterElements(GraphBuilder &b, Value data, const ir::Literal &indices,
                      Value updates, int64_t axis, ScatterReduction reduction) {
  if (!data || !updates)
    return nullptr;
  std::vector<int64_t> dd = dimsOf(data), id = indices.shape().dims();
  if (id.size() != dd.size() || dimsOf(updates) != id)
    return b.fail("scatter-elements needs indices and updates of one shape "
                  "and the data's rank");
  std::vector<int64_t> values = literalToInts(indices), rows;
  std::vector<int64_t> istrides = indices.shape().strides();
  std::vector<int64_t> dstrides = ir::Shape(DType::S64, dd).strides();
  for (size_t e = 0; e < values.size(); ++e) {
    int64_t v = values[e], bound = dd[size_t(axis)];
    v = v < 0 ? v + bound : v;
    if (v < 0 || v >= bound)
      return b.fail(fmt::format("scatter index {} is out of range [0, {})",
                                values[e], bound));
    int64_t row = 0;
    for (size_t d = 0; d < dd.size(); ++d) {
      int64_t coordinate = (int64_t(e) / istrides[d]) % id[d];
      row += (d == size_t(axis) ? v : coordinate) * dstrides[d];
    }
    rows.push_back(row);
  }
  int64_t total = product(dd);
  Value result = scatterRows(b, b.reshape(data, {total, 1}),
                             b.reshape(updates, {int64_t(values.size()), 1}),
                             rows, reduction);
  return b.reshape(result, dd);
}

} // namespace kiln::import
