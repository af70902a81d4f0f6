//===- ShapeInferenceLayout.cpp - Shape rules for data movement -----------===//
//
// broadcast, reshape, transpose, slice, dynamic-slice, dynamic-update-slice,
// concatenate, pad, reverse and gather, with XLA's semantics.
//
//===----------------------------------------------------------------------===//
#include "ShapeInferenceRules.h"

#include <algorithm>
#include <fmt/format.h>

namespace kiln::ir::detail {

namespace {

Error requireDeclaredArray(const InferenceInput &in) {
  if (in.declared.isTuple())
    return makeError("declared shape {} must be an array",
                     in.declared.toString());
  return Error::success();
}

/// Start indices (operands first..end) must be integer scalars of one dtype.
Error requireScalarIndices(const InferenceInput &in, size_t first) {
  for (size_t i = first; i < in.operands.size(); ++i) {
    if (Error e = requireScalar(in, i, "start index"))
      return e;
    DType type = in.operands[i].dtype();
    if (!isInteger(type))
      return makeError("start index (operand {}) must be an integer but has "
                       "dtype {}",
                       i, dtypeName(type));
    if (Error e = requireSameDType(in, first, i))
      return e;
  }
  return Error::success();
}

} // namespace

/// The result dims are the declared ones; operand dim i maps to result dim
/// dimensions[i] and must equal it (kiln has no degenerate-1 broadcasting).
Expected<Shape> inferBroadcast(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  if (Error e = requireDeclaredArray(in))
    return e;
  const Shape &operand = in.operands[0];
  const std::vector<int64_t> &dims = in.attrs.dimensions;
  if (int64_t(dims.size()) != operand.rank())
    return makeError("broadcast dimensions {} must have one entry per operand "
                     "dimension (operand rank {})",
                     formatDims(dims), operand.rank());
  int64_t resultRank = in.declared.rank();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (Error e = requireDimInRange(dims[i], resultRank, "broadcast dimension"))
      return e;
    if (i > 0 && dims[i] <= dims[i - 1])
      return makeError("broadcast dimensions {} must be strictly increasing",
                       formatDims(dims));
    if (operand.dim(i) != in.declared.dim(size_t(dims[i])))
      return makeError("operand dimension {} has size {} but result dimension "
                       "{} has size {}",
                       i, operand.dim(i), dims[i],
                       in.declared.dim(size_t(dims[i])));
  }
  return in.declared.withDType(operand.dtype());
}

Expected<Shape> inferReshape(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  if (Error e = requireDeclaredArray(in))
    return e;
  const Shape &operand = in.operands[0];
  // Both shapes passed verifyShape, so the counts cannot overflow.
  if (operand.numElements() != in.declared.numElements())
    return makeError("cannot reshape {} ({} elements) to {} ({} elements)",
                     operand.toString(), operand.numElements(),
                     in.declared.toString(), in.declared.numElements());
  return in.declared.withDType(operand.dtype());
}

Expected<Shape> inferTranspose(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  const Shape &operand = in.operands[0];
  const std::vector<int64_t> &perm = in.attrs.dimensions;
  if (int64_t(perm.size()) != operand.rank())
    return makeError("transpose dimensions {} must be a permutation of the "
                     "operand's {} dimensions",
                     formatDims(perm), operand.rank());
  if (Error e = requireUniqueDims(perm, operand.rank(), "transpose dimension"))
    return e;
  std::vector<int64_t> dims;
  for (int64_t d : perm)
    dims.push_back(operand.dim(size_t(d)));
  return Shape(operand.dtype(), std::move(dims));
}

Expected<Shape> inferSlice(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  const Shape &operand = in.operands[0];
  const std::vector<SliceDim> &slice = in.attrs.slice;
  if (int64_t(slice.size()) != operand.rank())
    return makeError("slice has {} dimension specs but the operand has rank "
                     "{}",
                     slice.size(), operand.rank());
  std::vector<int64_t> dims;
  for (size_t i = 0; i < slice.size(); ++i) {
    const SliceDim &s = slice[i];
    if (s.start < 0 || s.start > s.limit || s.limit > operand.dim(i))
      return makeError("slice dimension {} [{}:{}] must satisfy 0 <= start <= "
                       "limit <= {}",
                       i, s.start, s.limit, operand.dim(i));
    if (s.stride < 1)
      return makeError("slice dimension {} has stride {}; expected >= 1", i,
                       s.stride);
    // ceil(length / stride), written so a huge stride cannot overflow.
    int64_t length = s.limit - s.start;
    dims.push_back(length == 0 ? 0 : (length - 1) / s.stride + 1);
  }
  return Shape(operand.dtype(), std::move(dims));
}

Expected<Shape> inferDynamicSlice(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  const Shape &operand = in.operands[0];
  if (int64_t(in.operands.size()) - 1 != operand.rank())
    return makeError("expected {} start indices (one per operand dimension) "
                     "but found {}",
                     operand.rank(), in.operands.size() - 1);
  if (Error e = requireScalarIndices(in, 1))
    return e;
  const std::vector<int64_t> &sizes = in.attrs.sizes;
  if (int64_t(sizes.size()) != operand.rank())
    return makeError("dynamic_slice_sizes {} must have one entry per operand "
                     "dimension (operand rank {})",
                     formatDims(sizes), operand.rank());
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] < 0 || sizes[i] > operand.dim(i))
      return makeError("slice size {} of dimension {} must be in [0, {}]",
                       sizes[i], i, operand.dim(i));
  return Shape(operand.dtype(), sizes);
}

Expected<Shape> inferDynamicUpdateSlice(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  if (Error e = requireArray(in, 1))
    return e;
  const Shape &operand = in.operands[0], &update = in.operands[1];
  if (Error e = requireSameDType(in, 0, 1))
    return e;
  if (update.rank() != operand.rank())
    return makeError("update has rank {} but the operand has rank {}",
                     update.rank(), operand.rank());
  if (int64_t(in.operands.size()) - 2 != operand.rank())
    return makeError("expected {} start indices (one per operand dimension) "
                     "but found {}",
                     operand.rank(), in.operands.size() - 2);
  if (Error e = requireScalarIndices(in, 2))
    return e;
  for (size_t i = 0; i < size_t(operand.rank()); ++i)
    if (update.dim(i) > operand.dim(i))
      return makeError("update dimension {} has size {} but the operand's has "
                       "only {}",
                       i, update.dim(i), operand.dim(i));
  return operand;
}

Expected<Shape> inferConcatenate(const InferenceInput &in) {
  for (size_t i = 0; i < in.operands.size(); ++i)
    if (Error e = requireArray(in, i))
      return e;
  const Shape &first = in.operands[0];
  Expected<int64_t> dim = requireSingleDim(in.attrs.dimensions, first.rank(),
                                           "concatenate dimension");
  if (!dim)
    return dim.takeError();
  std::vector<int64_t> dims = first.dims();
  for (size_t i = 1; i < in.operands.size(); ++i) {
    const Shape &shape = in.operands[i];
    if (Error e = requireSameDType(in, 0, i))
      return e;
    if (shape.rank() != first.rank())
      return makeError("operand {} has rank {} but operand 0 has rank {}", i,
                       shape.rank(), first.rank());
    for (size_t d = 0; d < dims.size(); ++d)
      if (int64_t(d) != *dim && shape.dim(d) != first.dim(d))
        return makeError("operand {} has dimensions {} but operand 0 has {}; "
                         "only concatenate dimension {} may differ",
                         i, formatDims(shape.dims()), formatDims(first.dims()),
                         *dim);
    std::optional<int64_t> sum =
        checkedAdd(dims[size_t(*dim)], shape.dim(size_t(*dim)));
    if (!sum)
      return makeError("concatenated dimension size overflows int64");
    dims[size_t(*dim)] = *sum;
  }
  return Shape(first.dtype(), std::move(dims));
}

Expected<Shape> inferPad(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  if (Error e = requireScalar(in, 1, "padding value"))
    return e;
  if (Error e = requireSameDType(in, 0, 1))
    return e;
  const Shape &operand = in.operands[0];
  const std::vector<PadDim> &padding = in.attrs.padding;
  if (int64_t(padding.size()) != operand.rank())
    return makeError("padding has {} dimension specs but the operand has rank "
                     "{}",
                     padding.size(), operand.rank());
  std::vector<int64_t> dims;
  for (size_t i = 0; i < padding.size(); ++i) {
    const PadDim &p = padding[i];
    if (p.interior < 0)
      return makeError("interior padding {} of dimension {} must be >= 0",
                       p.interior, i);
    int64_t n = operand.dim(i);
    __int128 size = __int128(p.low) + p.high + n +
                    __int128(std::max<int64_t>(n - 1, 0)) * p.interior;
    if (size < 0)
      return makeError("padding ({}, {}, interior {}) of dimension {} (size "
                       "{}) gives a negative size",
                       p.low, p.high, p.interior, i, n);
    if (size > INT64_MAX)
      return makeError("padded dimension {} overflows int64", i);
    dims.push_back(int64_t(size));
  }
  return Shape(operand.dtype(), std::move(dims));
}

Expected<Shape> inferReverse(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  if (Error e = requireUniqueDims(in.attrs.dimensions, in.operands[0].rank(),
                                  "reverse dimension"))
    return e;
  return in.operands[0];
}

namespace {

/// Checks gather's attributes against the operand; `indexCount` is the
/// number of start indices per index vector.
Error checkGatherOperandDims(const GatherDimensionNumbers &g,
                             const std::vector<int64_t> &sliceSizes,
                             const Shape &operand, int64_t indexCount) {
  int64_t rank = operand.rank();
  if (int64_t(g.startIndexMap.size()) != indexCount)
    return makeError("start_index_map {} must have one entry per start index "
                     "({} in the index vector)",
                     formatDims(g.startIndexMap), indexCount);
  if (Error e = requireUniqueDims(g.startIndexMap, rank,
                                  "start_index_map "
                                  "entry"))
    return e;
  if (Error e = requireUniqueDims(g.collapsedSliceDims, rank,
                                  "collapsed_slice_dims entry"))
    return e;
  if (!std::is_sorted(g.collapsedSliceDims.begin(), g.collapsedSliceDims.end()))
    return makeError("collapsed_slice_dims {} must be sorted",
                     formatDims(g.collapsedSliceDims));
  if (int64_t(sliceSizes.size()) != rank)
    return makeError("slice_sizes {} must have one entry per operand "
                     "dimension (operand rank {})",
                     formatDims(sliceSizes), rank);
  for (size_t i = 0; i < sliceSizes.size(); ++i)
    if (sliceSizes[i] < 0 || sliceSizes[i] > operand.dim(i))
      return makeError("slice size {} of operand dimension {} must be in "
                       "[0, {}]",
                       sliceSizes[i], i, operand.dim(i));
  for (int64_t d : g.collapsedSliceDims)
    if (sliceSizes[size_t(d)] > 1)
      return makeError("collapsed slice dimension {} has slice size {}; "
                       "expected 0 or 1",
                       d, sliceSizes[size_t(d)]);
  if (int64_t(g.offsetDims.size() + g.collapsedSliceDims.size()) != rank)
    return makeError("offset_dims ({}) plus collapsed_slice_dims ({}) must "
                     "cover the operand rank {}",
                     g.offsetDims.size(), g.collapsedSliceDims.size(), rank);
  return Error::success();
}

} // namespace

Expected<Shape> inferGather(const InferenceInput &in) {
  if (Error e = requireArray(in, 0))
    return e;
  if (Error e = requireArray(in, 1))
    return e;
  const Shape &operand = in.operands[0], &indices = in.operands[1];
  const GatherDimensionNumbers &g = in.attrs.gather;
  if (!isInteger(indices.dtype()))
    return makeError("start indices must be integers but have dtype {}",
                     dtypeName(indices.dtype()));
  if (g.indexVectorDim < 0 || g.indexVectorDim > indices.rank())
    return makeError("index_vector_dim {} must be in [0, {}]", g.indexVectorDim,
                     indices.rank());
  // index_vector_dim == rank means an implicit trailing index vector of 1.
  std::vector<int64_t> expanded = indices.dims();
  if (g.indexVectorDim == indices.rank())
    expanded.push_back(1);
  int64_t indexCount = expanded[size_t(g.indexVectorDim)];
  if (Error e = checkGatherOperandDims(g, in.attrs.sizes, operand, indexCount))
    return e;
  int64_t outputRank =
      int64_t(expanded.size()) - 1 + int64_t(g.offsetDims.size());
  if (Error e =
          requireUniqueDims(g.offsetDims, outputRank, "offset_dims entry"))
    return e;
  if (!std::is_sorted(g.offsetDims.begin(), g.offsetDims.end()))
    return makeError("offset_dims {} must be sorted", formatDims(g.offsetDims));
  // Offset dims take the non-collapsed slice sizes in order; the others take
  // the index dimensions in order, skipping the index vector dimension.
  std::vector<int64_t> dims;
  size_t nextOffset = 0, nextBatch = 0;
  for (int64_t i = 0; i < outputRank; ++i) {
    bool isOffset =
        std::binary_search(g.offsetDims.begin(), g.offsetDims.end(), i);
    if (isOffset) {
      while (std::binary_search(g.collapsedSliceDims.begin(),
                                g.collapsedSliceDims.end(),
                                int64_t(nextOffset)))
        ++nextOffset;
      dims.push_back(in.attrs.sizes[nextOffset++]);
      continue;
    }
    if (int64_t(nextBatch) == g.indexVectorDim)
      ++nextBatch;
    dims.push_back(expanded[nextBatch++]);
  }
  return Shape(operand.dtype(), std::move(dims));
}

} // namespace kiln::ir::detail
