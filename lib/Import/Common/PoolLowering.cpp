//===- PoolLowering.cpp - Max, average and Lp pooling for importers -------===//
#include "Common/PoolLowering.h"

#include "kiln/Import/LiteralUtil.h"
#include "kiln/Support/CheckedArithmetic.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace kiln::import {

using ir::Opcode;

double lowestValue(ir::DType dtype) {
  if (ir::isFloat(dtype))
    return -std::numeric_limits<double>::infinity();
  if (dtype == ir::DType::Pred || !ir::isSignedInt(dtype))
    return 0;
  return -std::ldexp(1.0, int(ir::byteSize(dtype)) * 8 - 1);
}

PoolWindow spatialPoolWindow(const std::vector<int64_t> &inputDims,
                             bool channelsLast,
                             const std::vector<int64_t> &kernel,
                             const ConvParams &params, bool ceilMode) {
  size_t rank = inputDims.size();
  PoolWindow w;
  w.sizes.assign(rank, 1);
  w.strides.assign(rank, 1);
  w.dilations.assign(rank, 1);
  w.padLow.assign(rank, 0);
  w.padHigh.assign(rank, 0);
  w.extraHigh.assign(rank, 0);
  size_t first = channelsLast ? 1 : 2;
  for (size_t i = 0; i < kernel.size() && first + i < rank; ++i) {
    size_t d = first + i;
    int64_t in = inputDims[d], k = kernel[i];
    int64_t s = params.stride(i), dil = params.dilation(i);
    auto [low, high] = resolvePadding(params, i, in, k);
    w.sizes[d] = k;
    w.strides[d] = s;
    w.dilations[d] = dil;
    w.padLow[d] = low;
    w.padHigh[d] = high;
    // Sizes, strides and dilations come from the model: invalid ones are
    // left to shape inference, which rejects them with an error, and the
    // arithmetic is 128-bit (an extra padding past int64 is rejected too).
    if (!ceilMode || s < 1 || k < 1 || dil < 1)
      continue;
    using Wide = __int128;
    Wide effective = Wide(k - 1) * dil + 1;
    Wide span = Wide(in) + low + high - effective;
    if (span < 0)
      continue;
    Wide out = (span + s - 1) / s + 1;
    // A last window that would start in the high padding is dropped
    // (PyTorch's and ONNX's rule).
    if ((out - 1) * s >= Wide(in) + low)
      --out;
    Wide extra =
        std::max<Wide>(0, (out - 1) * s + effective - (Wide(in) + low + high));
    w.extraHigh[d] = saturateToInt64(extra);
  }
  return w;
}

namespace {

Value reduceWindow(GraphBuilder &b, Value x, const PoolWindow &window,
                   ir::ReducerKind reducer, double init) {
  if (!x)
    return b.fail("internal error: null operand");
  size_t rank = size_t(x->shape().rank());
  if (window.sizes.size() != rank)
    return b.fail(fmt::format("pooling window has {} dimensions but the input "
                              "has rank {}",
                              window.sizes.size(), rank));
  ir::Attributes attrs;
  for (size_t d = 0; d < rank; ++d) {
    ir::WindowDim dim;
    dim.size = window.sizes[d];
    dim.stride = window.strides[d];
    dim.windowDilation = window.dilations[d];
    dim.padLow = window.padLow[d];
    // Past int64 (extraHigh >= 0) is left for shape inference to reject.
    dim.padHigh = checkedAdd(window.padHigh[d], window.extraHigh[d])
                      .value_or(std::numeric_limits<int64_t>::max());
    attrs.window.push_back(dim);
  }
  attrs.reducer = reducer;
  return b.add(Opcode::ReduceWindow, {x, b.scalar(x->shape().dtype(), init)},
               std::move(attrs));
}

/// How many taps of each output position along dimension d count: the taps
/// t in [0, size) with lo <= start + t * dilation < hi, counted in closed
/// form (a window may have billions of taps).
std::vector<int64_t> tapCounts(const PoolWindow &w, size_t d, int64_t in,
                               int64_t outSize, bool includePad) {
  int64_t lo = includePad ? -w.padLow[d] : 0;
  int64_t hi = includePad ? in + w.padHigh[d] : in;
  // The readers reject dilations below 1.
  int64_t dilation = std::max<int64_t>(w.dilations[d], 1);
  int64_t last = w.sizes[d] - 1;
  std::vector<int64_t> counts;
  for (int64_t o = 0; o < outSize; ++o) {
    int64_t start = o * w.strides[d] - w.padLow[d];
    int64_t first = std::max<int64_t>(
        0, -floorDiv(-(lo - start), dilation)); // ceil
    int64_t end = std::min(last, floorDiv(hi - start - 1, dilation));
    counts.push_back(std::max<int64_t>(0, end - first + 1));
  }
  return counts;
}

/// The divisor of an average pool as a constant that broadcasts against the
/// pooled sum: dimensions whose count is the same everywhere have size 1.
Value divisor(GraphBuilder &b, Value x, Value sum, const PoolWindow &w,
              bool includePad) {
  size_t rank = size_t(x->shape().rank());
  std::vector<std::vector<int64_t>> counts(rank);
  std::vector<int64_t> dims(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    // A window of one tap and no padding (batch and channel dimensions)
    // counts one everywhere; no table, however large the dimension.
    if (w.sizes[d] == 1 && w.padLow[d] == 0 && w.padHigh[d] == 0) {
      counts[d] = {1};
      continue;
    }
    if (!b.hostTableFits("the average pool's tap counts",
                         sum->shape().dim(d), sizeof(int64_t)))
      return nullptr;
    counts[d] = tapCounts(w, d, x->shape().dim(d), sum->shape().dim(d),
                          includePad);
    bool uniform = true;
    for (int64_t c : counts[d])
      uniform = uniform && c == counts[d].front();
    if (counts[d].empty())
      counts[d] = {1};
    if (uniform)
      counts[d].resize(1);
    dims[d] = int64_t(counts[d].size());
  }
  if (!b.hostTableFits("the average pool's divisor", checkedProduct(dims),
                       sizeof(double)))
    return nullptr;
  ir::Shape shape(x->shape().dtype(), dims);
  std::vector<double> values(size_t(shape.numElements()));
  std::vector<int64_t> index(rank, 0);
  for (double &value : values) {
    value = 1;
    for (size_t d = 0; d < rank; ++d)
      value *= double(std::max<int64_t>(1, counts[d][size_t(index[d])]));
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d])
        break;
      index[d] = 0;
    }
  }
  return b.constant(literalFromDoubles(shape, values));
}

} // namespace

Value maxPool(GraphBuilder &b, Value x, const PoolWindow &window) {
  if (!x)
    return b.fail("internal error: null operand");
  return reduceWindow(b, x, window, ir::ReducerKind::Max,
                      lowestValue(x->shape().dtype()));
}

Value avgPool(GraphBuilder &b, Value x, const PoolWindow &window,
              bool countIncludePad) {
  Value sum = reduceWindow(b, x, window, ir::ReducerKind::Add, 0);
  if (!sum)
    return nullptr;
  return b.binary(Opcode::Divide, sum,
                  divisor(b, x, sum, window, countIncludePad));
}

namespace {
/// The int64 constant [1, 1, O...] of flat spatial input offsets that
/// window tap `tap` reads at each output position (0 where it reads
/// padding, which never wins).
Value tapOffsets(GraphBuilder &b, const std::vector<int64_t> &inDims,
                 const std::vector<int64_t> &outDims, const PoolWindow &w,
                 const std::vector<int64_t> &tap, bool columnMajor) {
  size_t rank = inDims.size();
  std::vector<int64_t> dims(rank, 1), index(rank, 0), values;
  for (size_t d = 2; d < rank; ++d)
    dims[d] = outDims[d];
  int64_t total = 1;
  for (size_t d = 2; d < rank; ++d)
    total *= dims[d];
  for (int64_t e = 0; e < total; ++e) {
    int64_t flat = 0, scale = 1;
    bool inside = true;
    for (size_t k = 2; k < rank; ++k) {
      size_t d = columnMajor ? k : rank + 1 - k; // fastest dimension first
      int64_t pos = index[d] * w.strides[d] + tap[d] * w.dilations[d] -
                    w.padLow[d];
      inside = inside && pos >= 0 && pos < inDims[d];
      flat += pos * scale;
      scale *= inDims[d];
    }
    values.push_back(inside ? flat : 0);
    for (size_t d = rank; d-- > 2;) {
      if (++index[d] < dims[d])
        break;
      index[d] = 0;
    }
  }
  return b.constant(literalFromInts(ir::Shape(ir::DType::S64, dims), values));
}
} // namespace

std::pair<Value, Value> maxPoolWithIndices(GraphBuilder &b, Value x,
                                           const PoolWindow &w,
                                           bool columnMajor) {
  Value pooled = maxPool(b, x, w);
  if (!pooled)
    return {nullptr, nullptr};
  const std::vector<int64_t> &in = x->shape().dims(),
                             &out = pooled->shape().dims();
  size_t rank = in.size();
  std::vector<ir::PadDim> pads;
  for (size_t d = 0; d < rank; ++d)
    pads.push_back({w.padLow[d],
                    checkedAdd(w.padHigh[d], w.extraHigh[d])
                        .value_or(std::numeric_limits<int64_t>::max()),
                    0});
  Value padded =
      b.pad(x, b.scalar(x->shape().dtype(), lowestValue(x->shape().dtype())),
            pads);
  // (n * C + c) * prod(spatial), as [N, C, 1...].
  std::vector<int64_t> baseDims(rank, 1), base;
  baseDims[0] = in[0];
  baseDims[1] = in[1];
  int64_t spatial = 1;
  for (size_t d = 2; d < rank; ++d)
    spatial *= in[d];
  for (int64_t i = 0; i < in[0] * in[1]; ++i)
    base.push_back(i * spatial);
  Value baseIndex =
      b.constant(literalFromInts(ir::Shape(ir::DType::S64, baseDims), base));
  Value best = nullptr, bestIndex = nullptr;
  std::vector<int64_t> tap(rank, 0);
  while (b.ok()) {
    std::vector<ir::SliceDim> dims;
    for (size_t d = 0; d < rank; ++d) {
      int64_t start = tap[d] * w.dilations[d];
      dims.push_back({start, start + (out[d] - 1) * w.strides[d] + 1,
                      w.strides[d]});
    }
    Value v = b.slice(padded, dims);
    Value idx = b.binary(Opcode::Add, baseIndex,
                         tapOffsets(b, in, out, w, tap, columnMajor));
    idx = b.broadcastTo(idx, out);
    if (!best) {
      best = v;
      bestIndex = idx;
    } else {
      Value better = b.compare(ir::ComparisonDirection::GT, v, best);
      best = b.select(better, v, best);
      bestIndex = b.select(better, idx, bestIndex);
    }
    size_t d = rank;
    while (d-- > 2 && ++tap[d] == w.sizes[d])
      tap[d] = 0;
    if (d < 2 || d == size_t(-1))
      break;
  }
  return {pooled, bestIndex};
}

Value lpPool(GraphBuilder &b, Value x, const PoolWindow &window, double p) {
  if (!x)
    return b.fail("internal error: null operand");
  Value magnitude = b.unary(Opcode::Abs, x);
  if (p == 1)
    return reduceWindow(b, magnitude, window, ir::ReducerKind::Add, 0);
  if (p == 2) {
    Value squares = b.binary(Opcode::Multiply, x, x);
    return b.unary(Opcode::Sqrt, reduceWindow(b, squares, window,
                                              ir::ReducerKind::Add, 0));
  }
  Value powered = b.binary(Opcode::Power, magnitude, b.like(x, p));
  Value sum = reduceWindow(b, powered, window, ir::ReducerKind::Add, 0);
  return b.binary(Opcode::Power, sum, b.like(x, 1.0 / p));
}

} // namespace kiln::import
