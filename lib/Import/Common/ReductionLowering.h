//===- ReductionLowering.h - Reductions and normalizations for the importers ===//
//
// The reductions both front ends expose (sum, mean, max, ..., log-sum-exp),
// arg-max/min with framework options, cumulative sums, and the
// normalizations built from reductions (layer, instance, mean-variance,
// Lp, local response). Axes passed in are already normalized (0 <= axis <
// rank); `normalizeAxes` does that for framework inputs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_REDUCTIONLOWERING_H
#define KILN_LIB_IMPORT_COMMON_REDUCTIONLOWERING_H

#include "kiln/Import/GraphBuilder.h"

#include <optional>
#include <string>

namespace kiln::import {

enum class ReduceKind {
  Sum,
  Mean, ///< integer mean truncates, like TensorFlow and ONNX Runtime
  Max,
  Min,
  Prod,
  All, ///< pred only
  Any, ///< pred only
  L1,
  L2,
  LogSum,
  LogSumExp, ///< max-shifted, so large inputs do not overflow
  SumSquare,
};

/// Normalizes possibly negative axes for a tensor of `rank`, dropping
/// duplicates and sorting; records an error and returns nullopt when an
/// axis is out of range.
std::optional<std::vector<int64_t>>
normalizeAxes(GraphBuilder &b, const std::vector<int64_t> &axes, int64_t rank);

/// Reduces `axes` of x. f16/bf16 sums accumulate in f32. With keepDims the
/// reduced dimensions stay as size 1.
Value reduceAxes(GraphBuilder &b, Value x, const std::vector<int64_t> &axes,
                 ReduceKind kind, bool keepDims);

/// Index of the first maximum (or minimum) along `axis`, or of the last one
/// when `selectLast` (ONNX select_last_index), as `indexType`.
Value argMinMax(GraphBuilder &b, Value x, int64_t axis, bool isMax,
                ir::DType indexType, bool keepDims, bool selectLast = false);

/// Running sum (or product with ReducerKind::Mul) along `axis`; `exclusive`
/// starts from the identity, `reverse` runs from the end.
Value cumulative(GraphBuilder &b, Value x, int64_t axis, bool exclusive,
                 bool reverse, ir::ReducerKind reducer = ir::ReducerKind::Add);

/// Outputs of layer normalization; mean and invStdDev keep the normalized
/// dimensions as size 1 and are in the computation dtype.
struct LayerNormResult {
  Value y = nullptr;
  Value mean = nullptr;
  Value invStdDev = nullptr;
};
/// Normalizes over dimensions [axis, rank): (x - mean) / sqrt(var + eps),
/// then * scale + bias (bias may be nullptr), computed in f32 for f16 input.
LayerNormResult layerNormalization(GraphBuilder &b, Value x, Value scale,
                                   Value bias, int64_t axis, double epsilon);
/// Per (batch, channel) normalization over the spatial dimensions of an
/// NC... tensor; scale and bias are [C].
Value instanceNormalization(GraphBuilder &b, Value x, Value scale, Value bias,
                            double epsilon);
/// (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes` (ONNX MVN).
Value meanVarianceNormalization(GraphBuilder &b, Value x,
                                const std::vector<int64_t> &axes);
/// x / ||x||_p along `axis`, p in {1, 2}.
Value lpNormalization(GraphBuilder &b, Value x, int64_t axis, int64_t p);
/// Local response normalization along `axis`:
/// x / (bias + alpha * sum(x^2 over [c - before, c + after]))^beta.
Value localResponseNormalization(GraphBuilder &b, Value x, int64_t axis,
                                 int64_t before, int64_t after, double alpha,
                                 double beta, double bias);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_REDUCTIONLOWERING_H
