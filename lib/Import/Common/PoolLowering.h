//===- PoolLowering.h - Max, average and Lp pooling for importers -*- C++ -*-===//
//
// Pools are `reduce-window` over every dimension of the operand (size 1 on
// batch and channels). Average pooling divides by a constant holding, per
// output position, the number of taps that count (TF's SAME and ONNX's
// count_include_pad=0 leave padding out); the divisor is computed here at
// import, per dimension, so no ones-tensor is reduced at run time.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_POOLLOWERING_H
#define KILN_LIB_IMPORT_COMMON_POOLLOWERING_H

#include "Common/ConvLowering.h"
#include "kiln/Import/GraphBuilder.h"

#include <cstdint>
#include <vector>

namespace kiln::import {

/// A pooling window over every dimension of the operand.
struct PoolWindow {
  std::vector<int64_t> sizes, strides, dilations;
  /// Padding that is part of the pool (counted when count_include_pad).
  std::vector<int64_t> padLow, padHigh;
  /// Extra high padding that only makes room for ceil_mode's last window;
  /// never counted.
  std::vector<int64_t> extraHigh;
};

/// Builds the window of a pool over the spatial dimensions of `inputDims`
/// (channels last when `channelsLast`, else channels first at dim 1).
/// `kernel`, `strides`, `dilations` (empty = 1) and explicit `padLow`/
/// `padHigh` (read for AutoPad::Explicit only) are per spatial dimension.
/// `ceilMode` rounds the output size up (ONNX), dropping a last window that
/// would start in the high padding.
PoolWindow spatialPoolWindow(const std::vector<int64_t> &inputDims,
                             bool channelsLast,
                             const std::vector<int64_t> &kernel,
                             const ConvParams &params, bool ceilMode);

/// reduce-window max; padding holds the lowest value of the dtype.
Value maxPool(GraphBuilder &b, Value x, const PoolWindow &window);
/// Average over the window; the divisor counts padding taps only when
/// `countIncludePad`.
Value avgPool(GraphBuilder &b, Value x, const PoolWindow &window,
              bool countIncludePad);
/// Max pooling of a channels-first [N, C, S...] input that also returns, per
/// output, the flat index of the maximum in the input (ONNX MaxPool's
/// Indices: (n * C + c) * prod(S) + the spatial offset, row-major, or
/// column-major over the spatial dimensions when `columnMajor`); the first
/// maximum in window order wins. Unrolled over the window taps.
std::pair<Value, Value> maxPoolWithIndices(GraphBuilder &b, Value x,
                                           const PoolWindow &window,
                                           bool columnMajor);
/// (sum |x|^p)^(1/p) over the window (ONNX LpPool).
Value lpPool(GraphBuilder &b, Value x, const PoolWindow &window, double p);

/// The lowest value of `dtype` (-inf for floats), the identity of max.
double lowestValue(ir::DType dtype);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_POOLLOWERING_H
