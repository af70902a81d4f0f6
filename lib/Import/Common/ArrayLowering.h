//===- ArrayLowering.h - Data-movement lowerings shared by TF and ONNX ---===//
//
// Shape, slicing, gather, scatter, padding, tiling and reordering helpers
// that both front ends build on. Every helper takes the GraphBuilder (whose
// errors are sticky) and returns nullptr after recording an error, so the
// op lowerings stay straight-line code. Indices that are compile-time
// constants are validated and normalized at import; scatter-like ops need
// constant indices because kiln has no scatter opcode: their writes are
// resolved at import into gathers and selects.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_ARRAYLOWERING_H
#define KILN_LIB_IMPORT_COMMON_ARRAYLOWERING_H

#include "kiln/Import/GraphBuilder.h"

#include <optional>
#include <vector>

namespace kiln::import {

/// Dimensions of `x` (empty for nullptr, so callers can chain on failure).
std::vector<int64_t> dimsOf(Value x);
/// Product of `dims` (1 for none).
int64_t product(const std::vector<int64_t> &dims, size_t from = 0,
                size_t to = SIZE_MAX);

/// Resolves a reshape target: one -1 is inferred; with `copyZeros` (ONNX
/// Reshape without allowzero) a 0 copies the input dimension. Records an
/// error and returns nullopt when the element counts disagree.
std::optional<std::vector<int64_t>>
resolveReshape(GraphBuilder &b, const std::vector<int64_t> &inDims,
               std::vector<int64_t> target, bool copyZeros);

/// Normalizes each axis of `axes` for `rank` (negative counts from the end);
/// records an error naming `what` on an out-of-range axis.
std::optional<std::vector<int64_t>>
normalizeAxes(GraphBuilder &b, const std::vector<int64_t> &axes, int64_t rank,
              const char *what);

/// Removes the size-1 dimensions in `axes` (all size-1 dims when empty).
Value squeezeDims(GraphBuilder &b, Value x, std::vector<int64_t> axes);
/// Inserts size-1 dimensions at `axes`, which index the result.
Value unsqueezeDims(GraphBuilder &b, Value x, std::vector<int64_t> axes);

/// The elements of one dimension a strided slice selects: the first index
/// and the element count. nullopt begin/end mean "from the start"/"to the
/// end" in the direction of `step` (TF's begin/end masks, ONNX defaults);
/// others are clamped like Python slices (TF's canonical rule).
struct SliceRange {
  int64_t start = 0;
  int64_t count = 0;
  int64_t step = 1;
};
SliceRange canonicalSliceRange(int64_t dim, std::optional<int64_t> begin,
                               std::optional<int64_t> end, int64_t step);
/// Slices every dimension by its range; negative steps reverse.
Value sliceRanges(GraphBuilder &b, Value x,
                  const std::vector<SliceRange> &ranges);

/// Splits `x` along `axis` into consecutive pieces of `sizes`.
std::vector<Value> splitSizes(GraphBuilder &b, Value x, int64_t axis,
                              const std::vector<int64_t> &sizes);

/// x.take(indices, axis) with the first `batchDims` dimensions of `x` and
/// `indices` shared (TF GatherV2, ONNX Gather). With `wrapNegative`
/// negative indices count from the end (ONNX); otherwise a negative
/// constant index is an error. Out-of-range run-time indices are clamped.
Value gatherAxis(GraphBuilder &b, Value x, Value indices, int64_t axis,
                 int64_t batchDims, bool wrapNegative);
/// TF GatherNd / ONNX GatherND: the last dimension of `indices` indexes the
/// leading dimensions of `x` after `batchDims` shared batch dimensions.
Value gatherNd(GraphBuilder &b, Value x, Value indices, int64_t batchDims,
               bool wrapNegative);
/// ONNX GatherElements: out[i] = x[i with dimension `axis` replaced by
/// indices[i]].
Value gatherElements(GraphBuilder &b, Value x, Value indices, int64_t axis);

/// How scatter combines an update with the value already there.
enum class ScatterReduction { None, Add, Mul, Max, Min };
/// Writes row u of `updates` ([U, S]) into row rows[u] of `data` ([P, S]),
/// in order (the last write wins for None). `rows` are import-time values.
Value scatterRows(GraphBuilder &b, Value data, Value updates,
                  const std::vector<int64_t> &rows, ScatterReduction reduction);
/// ONNX ScatterND / TF ScatterNd with constant `indices` ([..., K]).
Value scatterNd(GraphBuilder &b, Value data, const ir::Literal &indices,
                Value updates, ScatterReduction reduction);
/// ONNX ScatterElements with constant `indices` (the shape of `updates`).
Value scatterElements(GraphBuilder &b, Value data, const ir::Literal &indices,
                      Value updates, int64_t axis, ScatterReduction reduction);

/// Padding modes: constant value, mirror without the edge (REFLECT),
/// mirror with the edge (SYMMETRIC), repeat the edge (ONNX edge), wrap.
enum class PadMode { Constant, Reflect, Symmetric, Edge, Wrap };
/// Pads dimension d by low[d]/high[d] (negative crops). `value` is the
/// scalar pad value for Constant mode (zero when nullptr).
Value padTensor(GraphBuilder &b, Value x, const std::vector<int64_t> &low,
                const std::vector<int64_t> &high, PadMode mode, Value value);

/// Repeats `x` multiples[d] times along each dimension d.
Value tile(GraphBuilder &b, Value x, const std::vector<int64_t> &multiples);

/// The k largest (or smallest) along `axis`, ties to the lower index:
/// {values, indices of `indexType`}.
std::pair<Value, Value> topK(GraphBuilder &b, Value x, int64_t k, int64_t axis,
                             bool largest, ir::DType indexType);

/// DepthToSpace / SpaceToDepth. `channelsLast` is TF's NHWC; `crd` is
/// ONNX's column-row-depth channel order (DCR otherwise).
Value depthToSpace(GraphBuilder &b, Value x, int64_t block, bool channelsLast,
                   bool crd);
Value spaceToDepth(GraphBuilder &b, Value x, int64_t block, bool channelsLast);

/// One-hot along `axis` of the result (-1: last): depth entries equal to
/// `on` where the index matches and `off` elsewhere. With `wrapNegative`
/// negative indices count from `depth` (ONNX); otherwise they match nothing.
Value oneHot(GraphBuilder &b, Value indices, int64_t depth, Value on,
             Value off, int64_t axis, bool wrapNegative);

/// Values start, start + delta, ... below limit (above it for delta < 0)
/// as a constant of `dtype`; `count` elements (computed by the caller's
/// framework rule).
Value rangeConstant(GraphBuilder &b, ir::DType dtype, double start,
                    double delta, int64_t count);
/// ceil((limit - start) / delta), at least 0; nullopt when it is NaN (a NaN
/// or infinite operand) or does not fit int64_t.
std::optional<int64_t> rangeLength(double start, double limit, double delta);

/// A [rows, cols] pred mask: true at (i, j) when `j - i direction k`, i.e.
/// by the diagonal the element is on. Built from iotas, so a large one costs
/// no host memory (and a small one folds to a constant).
Value diagonalMask(GraphBuilder &b, int64_t rows, int64_t cols,
                   ir::ComparisonDirection direction, int64_t k);

/// Keeps the band of the last two dimensions: lower/upper diagonals to keep
/// (negative keeps all). TF MatrixBandPart; ONNX Trilu builds on it.
Value bandPart(GraphBuilder &b, Value x, int64_t lower, int64_t upper);

/// An iota of `dtype` and `dims` counting along `dim`.
Value iota(GraphBuilder &b, ir::DType dtype, std::vector<int64_t> dims,
           int64_t dim);
/// get-tuple-element `index` of a tuple value.
Value tupleElement(GraphBuilder &b, Value tuple, int64_t index);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_ARRAYLOWERING_H
