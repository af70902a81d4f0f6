//===- TransposeGatherSinking.cpp - Transposes below gathers --------------===//
//
// Importers lower Resize to gathers along one axis at a time (constant
// start indices, then a lerp). A gather of transpose(x, P) is a gather of
// x with its operand-side dims renamed through P (collapsed dims, start
// index map, slice sizes); only the order of the offset dims in the result
// differs, which a transpose of the result restores. Indices and batch dims
// are untouched, so the same elements are read: the rewrite is exact.
//
// The transpose only moves when it would not move more bytes below the
// gather than above (a downsampling or same-size gather), or when it
// vanishes because the offset dims keep their order: below an upsampling
// resize it would transpose 4x the bytes if nothing cancelled it.
//
//===----------------------------------------------------------------------===//
#include "SimplifierRules.h"
#include "TransformUtils.h"

#include <algorithm>

namespace kiln::transforms {

namespace {
using ir::Instruction;
using ir::Opcode;

/// x's dims (through P) in `dims`, mapped and sorted.
std::vector<int64_t> mappedSorted(const std::vector<int64_t> &permutation,
                                  const std::vector<int64_t> &dims) {
  std::vector<int64_t> out;
  for (int64_t dim : dims)
    out.push_back(permutation[size_t(dim)]);
  std::sort(out.begin(), out.end());
  return out;
}

/// The dims of a rank-`rank` operand not in `collapsed` (sorted): the
/// operand dims the offset dims of the result walk, in order.
std::vector<int64_t> windowDims(int64_t rank,
                                const std::vector<int64_t> &collapsed) {
  std::vector<int64_t> out;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (std::find(collapsed.begin(), collapsed.end(), dim) == collapsed.end())
      out.push_back(dim);
  return out;
}

Instruction *sinkTransposeBelowGather(Instruction &gather) {
  Instruction *transpose = gather.operand(0);
  if (transpose->opcode() != Opcode::Transpose ||
      transpose->users().size() != 1 || gather.shape().isTuple())
    return nullptr;
  Opcode source = transpose->operand(0)->opcode();
  if (source == Opcode::Constant || source == Opcode::Broadcast)
    return nullptr;
  const std::vector<int64_t> &permutation = transpose->attrs().dimensions;
  const ir::GatherDimensionNumbers &numbers = gather.attrs().gather;
  Instruction *x = transpose->operand(0);
  int64_t rank = x->shape().rank();

  ir::Attributes attrs = gather.attrs();
  attrs.gather.collapsedSliceDims =
      mappedSorted(permutation, numbers.collapsedSliceDims);
  for (int64_t &dim : attrs.gather.startIndexMap)
    dim = permutation[size_t(dim)];
  for (size_t i = 0; i < permutation.size(); ++i)
    attrs.sizes[size_t(permutation[i])] = gather.attrs().sizes[i];

  // The k-th offset dim of the result walks the k-th window dim of the
  // operand: T's window dims before, x's after. Q puts each back.
  std::vector<int64_t> before = windowDims(rank, numbers.collapsedSliceDims);
  std::vector<int64_t> after =
      windowDims(rank, attrs.gather.collapsedSliceDims);
  const ir::Shape &shape = gather.shape();
  std::vector<int64_t> order(size_t(shape.rank()));
  for (int64_t dim = 0; dim < shape.rank(); ++dim)
    order[size_t(dim)] = dim;
  std::vector<int64_t> dims = shape.dims();
  const std::vector<int64_t> &offsets = numbers.offsetDims;
  for (size_t k = 0; k < offsets.size(); ++k) {
    int64_t source = permutation[size_t(before[k])];
    size_t moved = size_t(std::find(after.begin(), after.end(), source) -
                          after.begin());
    order[size_t(offsets[k])] = offsets[moved];
    dims[size_t(offsets[moved])] = shape.dim(offsets[k]);
  }
  bool vanishes = isIdentityPermutation(order);
  if (!vanishes && shape.numElements() > x->shape().numElements())
    return nullptr; // the transpose would move more bytes below

  Instruction *moved =
      build(*gather.parent(), Opcode::Gather, {x, gather.operand(1)}, attrs,
            ir::Shape(shape.dtype(), std::move(dims)), gather.name());
  if (!moved || vanishes)
    return moved;
  ir::Attributes transposeAttrs;
  transposeAttrs.dimensions = std::move(order);
  return build(*gather.parent(), Opcode::Transpose, {moved},
               std::move(transposeAttrs), {}, gather.name());
}

constexpr RuleRow kRules[] = {
    {Opcode::Gather, sinkTransposeBelowGather},
};
} // namespace

std::span<const RuleRow> transposeGatherRules() { return kRules; }

} // namespace kiln::transforms
