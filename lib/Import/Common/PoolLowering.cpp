//===- PoolLowering.cpp - Max, average and Lp pooling for importers -------===//
#include "Common/PoolLowering.h"

#include "kiln/Import/LiteralUtil.h"

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
    if (!ceilMode)
      continue;
    int64_t effective = (k - 1) * dil + 1;
    int64_t span = in + low + high - effective;
    if (span < 0)
      continue;
    int64_t out = (span + s - 1) / s + 1;
    // A last window that would start in the high padding is dropped
    // (PyTorch's and ONNX's rule).
    if ((out - 1) * s >= in + low)
      --out;
    w.extraHigh[d] =
        std::max<int64_t>(0, (out - 1) * s + effective - (in + low + high));
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
    dim.padHigh = window.padHigh[d] + window.extraHigh[d];
    attrs.window.push_back(dim);
  }
  attrs.reducer = reducer;
  return b.add(Opcode::ReduceWindow, {x, b.scalar(x->shape().dtype(), init)},
               std::move(attrs));
}

/// How many taps of each output position along dimension d count.
std::vector<int64_t> tapCounts(const PoolWindow &w, size_t d, int64_t in,
                               int64_t outSize, bool includePad) {
  int64_t lo = includePad ? -w.padLow[d] : 0;
  int64_t hi = includePad ? in + w.padHigh[d] : in;
  std::vector<int64_t> counts;
  for (int64_t o = 0; o < outSize; ++o) {
    int64_t start = o * w.strides[d] - w.padLow[d], n = 0;
    for (int64_t t = 0; t < w.sizes[d]; ++t) {
      int64_t pos = start + t * w.dilations[d];
      n += pos >= lo && pos < hi;
    }
    counts.push_back(n);
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
