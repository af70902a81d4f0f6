//===- BoundedResults.cpp - Model outputs of run-time size ----------------===//
#include "Common/BoundedResults.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace kiln::import {

namespace {

/// The dynamic dimension of `value` and its index, if it has exactly one;
/// an error naming `what` if it has more.
Expected<std::optional<std::pair<int64_t, DynamicDim>>>
singleDynamicDim(const DynamicShapes &dynamic, Value value,
                 const std::string &what) {
  std::vector<int64_t> indices;
  std::optional<DynamicDim> found;
  std::vector<std::optional<DynamicDim>> dims = dynamic.dims(value);
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d]) {
      indices.push_back(int64_t(d));
      found = *dims[d];
    }
  if (indices.empty())
    return std::optional<std::pair<int64_t, DynamicDim>>();
  if (indices.size() > 1)
    return makeError("{} has {} dimensions of run-time size ({}, from node "
                     "'{}'); kiln returns at most one per output, with its "
                     "count",
                     what, indices.size(), fmt::join(indices, " and "),
                     dynamic.originOf(value));
  return std::optional(std::make_pair(indices[0], *found));
}

bool isScalarS32(const ir::Shape &shape) {
  return !shape.isTuple() && shape.dtype() == ir::DType::S32 &&
         shape.rank() == 0;
}

} // namespace

Error appendBoundedCounts(const DynamicShapes &dynamic, const std::string &file,
                          size_t outputs, ResultList &results,
                          std::vector<BoundedResult> &bounded) {
  size_t count = results.values.size();
  for (size_t i = 0; i < count; ++i) {
    const std::string name = results.names[i];
    bool output = i < outputs;
    auto dim = singleDynamicDim(dynamic, results.values[i],
                                fmt::format("{}: {} '{}'", file,
                                            output ? "output" : "variable",
                                            name));
    if (!dim)
      return dim.takeError();
    if (!*dim)
      continue;
    const auto &[index, dynamicDim] = **dim;
    if (!output)
      return makeError("{}: variable '{}' is assigned a value whose dimension "
                       "{} has a run-time size (from node '{}'); variables "
                       "keep a static shape",
                       file, name, index, dynamic.origin(dynamicDim.form));
    if (!dynamicDim.size || !isScalarS32(dynamicDim.size->shape()))
      return makeError("{}: internal error: the run-time size of output '{}' "
                       "is not an s32[] value",
                       file, name);
    std::string countName = name + "_count";
    if (std::find(results.names.begin(), results.names.end(), countName) !=
        results.names.end())
      return makeError("{}: output '{}' has a run-time size along dimension "
                       "{}; its count would be the result '{}', but the model "
                       "already has a result with that name",
                       file, name, index, countName);
    bounded.push_back({i, index, results.values.size()});
    results.values.push_back(dynamicDim.size);
    results.names.push_back(std::move(countName));
  }
  return Error::success();
}

} // namespace kiln::import
