//===- ArrayLowering.cpp - Shape, slicing, padding and reordering helpers ===//
#include "Common/ArrayLowering.h"

#include "kiln/Import/LiteralUtil.h"
#include "kiln/Support/CheckedArithmetic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace kiln::import {

using ir::DType;
using ir::Opcode;

std::vector<int64_t> dimsOf(Value x) {
  return x ? x->shape().dims() : std::vector<int64_t>{};
}

int64_t product(const std::vector<int64_t> &dims, size_t from, size_t to) {
  int64_t result = 1;
  for (size_t i = from; i < std::min(to, dims.size()); ++i)
    result *= dims[i];
  return result;
}

std::optional<std::vector<int64_t>>
resolveReshape(GraphBuilder &b, const std::vector<int64_t> &inDims,
               std::vector<int64_t> target, bool copyZeros) {
  int64_t inferred = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (copyZeros && target[i] == 0) {
      if (i >= inDims.size()) {
        b.fail(fmt::format("reshape dimension {} is 0 (copy) but the input "
                           "has rank {}",
                           i, inDims.size()));
        return std::nullopt;
      }
      target[i] = inDims[i];
    }
    if (target[i] == -1 && inferred < 0) {
      inferred = int64_t(i);
      continue;
    }
    if (target[i] < 0) {
      b.fail(fmt::format("invalid reshape target [{}]", fmt::join(target, ",")));
      return std::nullopt;
    }
    std::optional<int64_t> product = checkedMul(known, target[i]);
    if (!product) {
      b.fail(fmt::format("reshape target [{}] has more elements than fit in "
                         "64 bits",
                         fmt::join(target, ",")));
      return std::nullopt;
    }
    known = *product;
  }
  int64_t total = product(inDims);
  if (inferred >= 0) {
    // A -1 beside a 0 is ambiguous; TensorFlow and ONNX Runtime make it 0.
    target[size_t(inferred)] = known == 0 ? 0 : total / known;
    known *= target[size_t(inferred)];
  }
  if (known != total) {
    b.fail(fmt::format("cannot reshape [{}] ({} elements) to [{}]",
                       fmt::join(inDims, ","), total, fmt::join(target, ",")));
    return std::nullopt;
  }
  return target;
}

std::optional<std::vector<int64_t>>
normalizeAxes(GraphBuilder &b, const std::vector<int64_t> &axes, int64_t rank,
              const char *what) {
  std::vector<int64_t> result;
  for (int64_t axis : axes) {
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized) {
      b.fail(fmt::format("{} {} is out of range for rank {}", what, axis, rank));
      return std::nullopt;
    }
    result.push_back(*normalized);
  }
  return result;
}

Value squeezeDims(GraphBuilder &b, Value x, std::vector<int64_t> axes) {
  if (!x)
    return nullptr;
  std::vector<int64_t> dims = dimsOf(x);
  auto normalized = normalizeAxes(b, axes, int64_t(dims.size()), "squeeze axis");
  if (!normalized)
    return nullptr;
  std::set<int64_t> drop(normalized->begin(), normalized->end());
  std::vector<int64_t> kept;
  for (size_t i = 0; i < dims.size(); ++i) {
    bool listed = drop.count(int64_t(i)) > 0;
    if (listed && dims[i] != 1)
      return b.fail(fmt::format("cannot squeeze dimension {} of size {}", i,
                                dims[i]));
    if (listed || (drop.empty() && dims[i] == 1))
      continue;
    kept.push_back(dims[i]);
  }
  return b.reshape(x, kept);
}

Value unsqueezeDims(GraphBuilder &b, Value x, std::vector<int64_t> axes) {
  if (!x)
    return nullptr;
  std::vector<int64_t> dims = dimsOf(x);
  int64_t rank = int64_t(dims.size() + axes.size());
  auto normalized = normalizeAxes(b, axes, rank, "unsqueeze axis");
  if (!normalized)
    return nullptr;
  std::set<int64_t> insert(normalized->begin(), normalized->end());
  if (insert.size() != normalized->size())
    return b.fail("unsqueeze axes must be unique");
  std::vector<int64_t> result;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    result.push_back(insert.count(i) ? 1 : dims[next++]);
  return b.reshape(x, result);
}

SliceRange canonicalSliceRange(int64_t dim, std::optional<int64_t> begin,
                               std::optional<int64_t> end, int64_t step) {
  // TensorFlow's canonical(): masked ends start at the first element in the
  // direction of travel; others wrap once and clamp like Python slices.
  int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
  auto canonical = [&](std::optional<int64_t> x, bool isBegin) {
    if (!x)
      return (step > 0) == isBegin ? lo : hi;
    int64_t forward = *x < 0 ? dim + *x : *x;
    return std::clamp(forward, lo, hi);
  };
  int64_t start = canonical(begin, true), stop = canonical(end, false);
  SliceRange range{start, 0, step};
  if (step > 0 && stop > start)
    range.count = (stop - start + step - 1) / step;
  else if (step < 0 && start > stop)
    range.count = (start - stop - step - 1) / -step;
  return range;
}

Value sliceRanges(GraphBuilder &b, Value x,
                  const std::vector<SliceRange> &ranges) {
  if (!x)
    return nullptr;
  std::vector<int64_t> dims = dimsOf(x);
  if (ranges.size() != dims.size())
    return b.fail("internal error: slice ranges do not match the rank");
  std::vector<int64_t> reversed;
  std::vector<ir::SliceDim> slice;
  for (size_t d = 0; d < dims.size(); ++d) {
    SliceRange r = ranges[d];
    if (r.count <= 0) {
      slice.push_back({0, 0, 1});
      continue;
    }
    if (r.count == 1)
      r.step = 1;
    if (r.step < 0) {
      // Reverse, then walk forward from the mirrored start.
      reversed.push_back(int64_t(d));
      r.start = dims[d] - 1 - r.start;
      r.step = -r.step;
    }
    slice.push_back({r.start, r.start + (r.count - 1) * r.step + 1, r.step});
  }
  Value source = reversed.empty() ? x : b.reverse(x, reversed);
  bool whole = true;
  for (size_t d = 0; d < dims.size(); ++d)
    whole = whole && slice[d] == ir::SliceDim{0, dims[d], 1};
  return whole ? source : b.slice(source, slice);
}

std::vector<Value> splitSizes(GraphBuilder &b, Value x, int64_t axis,
                              const std::vector<int64_t> &sizes) {
  std::vector<Value> parts;
  if (!x)
    return parts;
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  if (total != x->shape().dim(size_t(axis))) {
    b.fail(fmt::format("split sizes [{}] do not add up to dimension {} of "
                       "size {}",
                       fmt::join(sizes, ","), axis,
                       x->shape().dim(size_t(axis))));
    return parts;
  }
  int64_t start = 0;
  for (int64_t size : sizes) {
    parts.push_back(b.sliceDim(x, axis, start, start + size));
    start += size;
  }
  return parts;
}

Value padTensor(GraphBuilder &b, Value x, const std::vector<int64_t> &low,
                const std::vector<int64_t> &high, PadMode mode, Value value) {
  if (!x)
    return nullptr;
  std::vector<int64_t> dims = dimsOf(x);
  if (low.size() != dims.size() || high.size() != dims.size())
    return b.fail(fmt::format("expected {} pads per side for a rank-{} input "
                              "but got {} and {}",
                              dims.size(), dims.size(), low.size(), high.size()));
  if (mode == PadMode::Constant) {
    std::vector<ir::PadDim> pads;
    bool none = true;
    for (size_t d = 0; d < dims.size(); ++d) {
      pads.push_back({low[d], high[d], 0});
      none = none && low[d] == 0 && high[d] == 0;
    }
    if (none)
      return x;
    Value padValue = value ? b.convert(b.reshape(value, {}), x->shape().dtype())
                           : b.like(x, 0);
    return b.pad(x, padValue, pads);
  }
  // Mirror and edge modes: a gather per padded dimension with import-time
  // source indices, which also covers pads wider than the dimension.
  for (size_t d = 0; d < dims.size(); ++d) {
    if (low[d] == 0 && high[d] == 0)
      continue;
    int64_t n = dims[d];
    std::optional<int64_t> padded = checkedAdd(n, low[d]);
    padded = padded ? checkedAdd(*padded, high[d]) : std::nullopt;
    if (n == 0 || !padded || *padded < 0)
      return b.fail(fmt::format("cannot pad dimension {} of size {} by {} and "
                                "{} in this mode",
                                d, n, low[d], high[d]));
    int64_t out = *padded;
    // One source index per output position, and the dimension is the
    // model's declared size: checked before the table is built.
    if (!b.hostTableFits("the pad's table of source indices", out,
                         int64_t(sizeof(int64_t))))
      return nullptr;
    if ((mode == PadMode::Reflect) && (low[d] >= n || high[d] >= n))
      return b.fail(fmt::format("reflect padding of dimension {} by {} and {} "
                                "must be smaller than its size {}",
                                d, low[d], high[d], n));
    std::vector<int64_t> source(static_cast<size_t>(out));
    for (int64_t i = 0; i < out; ++i) {
      int64_t j = i - low[d];
      switch (mode) {
      case PadMode::Reflect: {
        int64_t period = 2 * (n - 1);
        j = period == 0 ? 0 : ((j % period) + period) % period;
        j = j >= n ? period - j : j;
        break;
      }
      case PadMode::Symmetric:
        j = ((j % (2 * n)) + 2 * n) % (2 * n);
        j = j >= n ? 2 * n - 1 - j : j;
        break;
      case PadMode::Edge:
        j = std::clamp<int64_t>(j, 0, n - 1);
        break;
      default:
        j = ((j % n) + n) % n;
        break;
      }
      source[size_t(i)] = j;
    }
    x = gatherAxis(b, x, b.ints(DType::S32, source), int64_t(d), 0, false);
  }
  return x;
}

Value tile(GraphBuilder &b, Value x, const std::vector<int64_t> &multiples) {
  if (!x)
    return nullptr;
  std::vector<int64_t> dims = dimsOf(x);
  if (multiples.size() != dims.size())
    return b.fail(fmt::format("expected {} multiples but got {}", dims.size(),
                              multiples.size()));
  std::vector<int64_t> expanded, mapping, result;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (multiples[d] < 0)
      return b.fail(fmt::format("multiple {} is negative", multiples[d]));
    expanded.push_back(multiples[d]);
    expanded.push_back(dims[d]);
    mapping.push_back(int64_t(2 * d + 1));
    result.push_back(multiples[d] * dims[d]);
  }
  if (result == dims)
    return x;
  return b.reshape(b.broadcastInDim(x, expanded, mapping), result);
}

std::pair<Value, Value> topK(GraphBuilder &b, Value x, int64_t k, int64_t axis,
                             bool largest, DType indexType) {
  if (!x)
    return {nullptr, nullptr};
  int64_t rank = x->shape().rank();
  if (axis < 0 || axis >= rank) {
    b.fail(fmt::format("top-k along dimension {} of {}: there is no such "
                       "dimension",
                       axis, x->shape().toString()));
    return {nullptr, nullptr};
  }
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[size_t(axis)], perm.back()); // its own inverse
  ir::Attributes attrs;
  attrs.k = k;
  attrs.largest = largest;
  Value sorted = b.add(Opcode::TopK, {b.transpose(x, perm)}, attrs);
  Value values = b.transpose(tupleElement(b, sorted, 0), perm);
  Value indices = b.transpose(tupleElement(b, sorted, 1), perm);
  return {values, b.convert(indices, indexType)};
}

Value depthToSpace(GraphBuilder &b, Value x, int64_t block, bool channelsLast,
                   bool crd) {
  std::vector<int64_t> d = dimsOf(x);
  if (!x || d.size() != 4 || block < 1)
    return b.fail("depth-to-space expects a rank-4 input and a block >= 1");
  int64_t c = channelsLast ? d[3] : d[1];
  // block * block must not wrap (2^32 squared is 0 in int64_t), and the
  // result's spatial sizes grow by block.
  std::optional<int64_t> area = checkedMul(block, block);
  if (!area || !checkedProduct({d[0], d[1], d[2], d[3], block, block}))
    return b.fail(fmt::format("block size {} is too large for input shape "
                              "[{}]",
                              block, fmt::join(d, ",")));
  if (c % *area)
    return b.fail(fmt::format("depth {} is not divisible by block {} squared",
                              c, block));
  int64_t depth = c / *area;
  if (channelsLast) { // [N,H,W,b,b,C'] -> [N,H,b,W,b,C']
    Value r = b.reshape(x, {d[0], d[1], d[2], block, block, depth});
    return b.reshape(b.transpose(r, {0, 1, 3, 2, 4, 5}),
                     {d[0], d[1] * block, d[2] * block, depth});
  }
  Value r = crd ? b.reshape(x, {d[0], depth, block, block, d[2], d[3]})
                : b.reshape(x, {d[0], block, block, depth, d[2], d[3]});
  std::vector<int64_t> perm = crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3}
                                  : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
  return b.reshape(b.transpose(r, perm),
                   {d[0], depth, d[2] * block, d[3] * block});
}

Value spaceToDepth(GraphBuilder &b, Value x, int64_t block, bool channelsLast) {
  std::vector<int64_t> d = dimsOf(x);
  if (!x || d.size() != 4 || block < 1)
    return b.fail("space-to-depth expects a rank-4 input and a block >= 1");
  int64_t h = channelsLast ? d[1] : d[2], w = channelsLast ? d[2] : d[3];
  // The result's depth grows by block squared.
  if (!checkedProduct({d[0], d[1], d[2], d[3], block, block}))
    return b.fail(fmt::format("block size {} is too large for input shape "
                              "[{}]",
                              block, fmt::join(d, ",")));
  if (h % block || w % block)
    return b.fail(fmt::format("spatial size {}x{} is not divisible by block {}",
                              h, w, block));
  if (channelsLast) { // [N,H',b,W',b,C] -> [N,H',W',b,b,C]
    Value r = b.reshape(x, {d[0], h / block, block, w / block, block, d[3]});
    return b.reshape(b.transpose(r, {0, 1, 3, 2, 4, 5}),
                     {d[0], h / block, w / block, block * block * d[3]});
  }
  Value r = b.reshape(x, {d[0], d[1], h / block, block, w / block, block});
  return b.reshape(b.transpose(r, {0, 3, 5, 1, 2, 4}),
                   {d[0], d[1] * block * block, h / block, w / block});
}

Value oneHot(GraphBuilder &b, Value indices, int64_t depth, Value on,
             Value off, int64_t axis, bool wrapNegative) {
  if (!indices || !on || !off)
    return nullptr;
  std::vector<int64_t> dims = dimsOf(indices);
  int64_t rank = int64_t(dims.size()) + 1;
  std::optional<int64_t> where = normalizeAxis(axis, rank);
  if (!where || depth < 0)
    return b.fail(fmt::format("one-hot axis {} (rank {}) or depth {} is "
                              "invalid",
                              axis, rank, depth));
  DType type = indices->shape().dtype();
  if (!ir::isInteger(type)) { // ONNX allows float indices
    indices = b.convert(indices, DType::S64);
    type = DType::S64;
  }
  if (wrapNegative && ir::isSignedInt(type))
    indices = b.select(b.compare(ir::ComparisonDirection::LT, indices,
                                 b.scalar(type, 0)),
                       b.binary(Opcode::Add, indices, b.scalar(type, double(depth))),
                       indices);
  std::vector<int64_t> out = dims, mapping;
  out.insert(out.begin() + *where, depth);
  for (int64_t i = 0; i < rank; ++i)
    if (i != *where)
      mapping.push_back(i);
  Value matches = b.compare(ir::ComparisonDirection::EQ,
                            b.broadcastInDim(indices, out, mapping),
                            iota(b, type, out, *where));
  return b.select(matches, b.reshape(on, {}), b.reshape(off, {}));
}

std::optional<int64_t> rangeLength(double start, double limit, double delta) {
  double count = std::ceil((limit - start) / delta);
  if (std::isnan(count))
    return std::nullopt;
  return count <= 0 ? 0 : checkedFloatToInt(count);
}

Value rangeConstant(GraphBuilder &b, DType dtype, double start, double delta,
                    int64_t count) {
  // The values are built as doubles first: 8 bytes each.
  if (!b.hostTableFits(fmt::format("range of {} values", count), count, 8))
    return nullptr;
  std::vector<double> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(start + double(i) * delta);
  return b.constant(literalFromDoubles(ir::Shape(dtype, {count}), values));
}

Value bandPart(GraphBuilder &b, Value x, int64_t lower, int64_t upper) {
  std::vector<int64_t> d = dimsOf(x);
  if (!x || d.size() < 2)
    return b.fail("band part expects a matrix or a batch of matrices");
  int64_t rows = d[d.size() - 2], cols = d.back();
  Value keep = b.scalar(DType::Pred, 1);
  if (lower >= 0) // i - j <= lower
    keep = b.binary(Opcode::And, keep,
                    diagonalMask(b, rows, cols, ir::ComparisonDirection::GE,
                                 -lower));
  if (upper >= 0) // j - i <= upper
    keep = b.binary(Opcode::And, keep,
                    diagonalMask(b, rows, cols, ir::ComparisonDirection::LE,
                                 upper));
  return b.select(keep, x, b.like(x, 0));
}

Value diagonalMask(GraphBuilder &b, int64_t rows, int64_t cols,
                   ir::ComparisonDirection direction, int64_t k) {
  Value offsets =
      b.binary(Opcode::Subtract, iota(b, DType::S64, {rows, cols}, 1),
               iota(b, DType::S64, {rows, cols}, 0));
  Value diagonal =
      b.constant(literalFromInts(ir::Shape::scalar(DType::S64), {k}));
  return b.compare(direction, offsets, diagonal);
}

Value iota(GraphBuilder &b, DType dtype, std::vector<int64_t> dims,
           int64_t dim) {
  ir::Shape shape(dtype, std::move(dims));
  // Small iotas are constants so that index arithmetic on constants folds.
  if (shape.numElements() <= 4096) {
    std::vector<int64_t> strides = shape.strides(), values;
    for (int64_t i = 0; i < shape.numElements(); ++i)
      values.push_back((i / strides[size_t(dim)]) % shape.dim(size_t(dim)));
    return b.constant(literalFromInts(shape, values));
  }
  ir::Attributes attrs;
  attrs.dimensions = {dim};
  return b.add(Opcode::Iota, {}, std::move(attrs), std::move(shape));
}

Value tupleElement(GraphBuilder &b, Value tuple, int64_t index) {
  ir::Attributes attrs;
  attrs.index = index;
  return b.add(Opcode::GetTupleElement, {tuple}, std::move(attrs));
}

} // namespace kiln::import
