//===- LoopBuffers.cpp - Rows of the buffers loops read and write ---------===//
#include "Common/LoopBuffers.h"

#include "Common/ArrayLowering.h"

namespace kiln::import {

/// `update` written into `buffer` as entry `at` of dimension `axis` (the
/// update lacks that dimension).
Value writeEntry(GraphBuilder &b, Value buffer, Value update, int64_t axis,
                 Value at) {
  Value zero = b.scalar(at->shape().dtype(), 0);
  std::vector<Value> operands = {buffer, unsqueezeDims(b, update, {axis})};
  for (int64_t d = 0; d < buffer->shape().rank(); ++d)
    operands.push_back(d == axis ? at : zero);
  return b.add(ir::Opcode::DynamicUpdateSlice, std::move(operands));
}

/// Entry `at` of dimension `axis` of `x`, without that dimension.
Value readEntry(GraphBuilder &b, Value x, int64_t axis, Value at) {
  Value zero = b.scalar(at->shape().dtype(), 0);
  std::vector<Value> operands = {x};
  ir::Attributes attrs;
  attrs.sizes = x->shape().dims();
  attrs.sizes[size_t(axis)] = 1;
  for (int64_t d = 0; d < x->shape().rank(); ++d)
    operands.push_back(d == axis ? at : zero);
  Value slice = b.add(ir::Opcode::DynamicSlice, std::move(operands),
                      std::move(attrs));
  return squeezeDims(b, slice, {axis});
}

/// `count` entries of `element`'s shape stacked along a new `axis`, zeros
/// until the loop writes them. Left a broadcast (not folded into a
/// constant), so the object does not grow with the trip count.
Value zeroBuffer(GraphBuilder &b, const ir::Shape &element, int64_t count,
                 int64_t axis) {
  std::vector<int64_t> dims = element.dims();
  dims.insert(dims.begin() + axis, count);
  Value zero = b.scalar(element.dtype(), 0);
  b.setFolding(false);
  Value buffer = b.broadcastTo(zero, dims);
  b.setFolding(true);
  return buffer;
}

} // namespace kiln::import
