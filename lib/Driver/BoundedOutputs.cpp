//===- BoundedOutputs.cpp - The valid entries of padded results -----------===//
#include "BoundedOutputs.h"

#include <cassert>
#include <cstring>

namespace kiln::driver {

ir::Literal leadingEntries(const ir::Literal &padded, int64_t dim,
                           int64_t count) {
  const ir::Shape &shape = padded.shape();
  assert(dim >= 0 && dim < shape.rank() && count >= 0 &&
         count <= shape.dim(size_t(dim)) && "entries within the bound");
  // Row-major: `outer` blocks of `bound` slices of `inner` bytes each; the
  // first `count` slices of every block are kept.
  int64_t outer = 1, inner = ir::byteSize(shape.dtype());
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape.dim(size_t(d));
  for (int64_t d = dim + 1; d < shape.rank(); ++d)
    inner *= shape.dim(size_t(d));
  int64_t bound = shape.dim(size_t(dim));
  std::vector<int64_t> dims = shape.dims();
  dims[size_t(dim)] = count;
  ir::Literal valid(ir::Shape(shape.dtype(), dims));
  for (int64_t block = 0; block < outer && count * inner > 0; ++block)
    std::memcpy(valid.bytes().data() + block * count * inner,
                padded.bytes().data() + block * bound * inner,
                size_t(count * inner));
  return valid;
}

Expected<int64_t> validCount(const ir::Literal &count, const ir::Shape &padded,
                             int64_t dim, const std::string &name) {
  if (count.shape().isTuple() || count.shape().dtype() != ir::DType::S32 ||
      count.numElements() != 1)
    return makeError("internal error: the count of result '{}' is {}, not "
                     "s32[]",
                     name, count.shape().toString());
  int64_t value = *count.data<int32_t>();
  int64_t bound = padded.dim(size_t(dim));
  if (value < 0 || value > bound)
    return makeError("result '{}' has {} valid entries along dimension {} by "
                     "its count, outside its bound [0, {}]",
                     name, value, dim, bound);
  return value;
}

Error trimBoundedResults(const std::vector<import::BoundedResult> &bounded,
                   const std::vector<std::string> &names,
                   std::vector<ir::Literal> &results) {
  for (const import::BoundedResult &entry : bounded) {
    ir::Literal &padded = results.at(entry.result);
    Expected<int64_t> count =
        validCount(results.at(entry.countResult), padded.shape(), entry.dim,
                   names.at(entry.result));
    if (!count)
      return count.takeError();
    padded = leadingEntries(padded, entry.dim, *count);
  }
  return Error::success();
}

} // namespace kiln::driver
