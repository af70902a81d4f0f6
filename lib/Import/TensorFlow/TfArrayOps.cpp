//===- TfArrayOps.cpp - TensorFlow shape, slicing, gather and padding ops ===//
//
// Inputs that fix a result shape (shape, axis, begin/end, paddings,
// multiples, sizes) must be compile-time constants; shape subgraphs reach
// here already folded because Shape/Size/Rank of a static tensor are
// constants. The heavy lifting is shared with ONNX in Common/.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfOps.h"

#include "Common/ArrayLowering.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

#include <cmath>

namespace kiln::import::tf {

using ir::DType;

namespace {
// --- Small helpers ---------------------------------------------------------

DType typeAttr(TfNodeContext &ctx, std::string_view key, DType fallback) {
  if (!ctx.hasAttr(key))
    return fallback;
  return ctx.attrType(key).value_or(fallback);
}

int64_t rankOf(Value x) { return x ? x->shape().rank() : 0; }

/// A constant scalar-or-one-element input as an axis normalized for `rank`.
std::optional<int64_t> axisInput(TfNodeContext &ctx, size_t i, int64_t rank) {
  std::optional<std::vector<int64_t>> values = ctx.constantInts(i, "axis");
  if (!values)
    return std::nullopt;
  if (values->size() != 1) {
    ctx.fail(fmt::format("axis must be a scalar but has {} elements",
                         values->size()));
    return std::nullopt;
  }
  std::optional<int64_t> axis = normalizeAxis(values->front(), rank);
  if (!axis)
    ctx.fail(fmt::format("axis {} is out of range for rank {}",
                         values->front(), rank));
  return axis;
}

/// Rows of a constant [rank, 2] paddings/crops input as (low, high).
bool pairsInput(TfNodeContext &ctx, size_t i, int64_t rows, const char *what,
                std::vector<int64_t> &low, std::vector<int64_t> &high) {
  std::optional<std::vector<int64_t>> values = ctx.constantInts(i, what);
  if (!values)
    return false;
  if (int64_t(values->size()) != 2 * rows) {
    ctx.fail(fmt::format("{} must have shape [{}, 2] but has {} elements", what,
                         rows, values->size()));
    return false;
  }
  for (int64_t r = 0; r < rows; ++r) {
    low.push_back((*values)[size_t(2 * r)]);
    high.push_back((*values)[size_t(2 * r + 1)]);
  }
  return true;
}

// --- Shapes ------------------------------------------------------------------

void lowerReshape(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  std::optional<std::vector<int64_t>> shape = ctx.constantInts(1, "shape");
  if (!shape)
    return;
  std::optional<std::vector<int64_t>> dims =
      resolveReshape(b, dimsOf(x), *shape, false);
  if (dims)
    ctx.setOutput(0, b.reshape(x, *dims));
}

void lowerSqueeze(TfNodeContext &ctx) {
  std::vector<int64_t> axes = ctx.hasAttr("squeeze_dims")
                                  ? ctx.attrInts("squeeze_dims")
                                  : ctx.attrInts("axis");
  ctx.setOutput(0, squeezeDims(ctx.builder(), ctx.input(0), axes));
}

void lowerExpandDims(TfNodeContext &ctx) {
  Value x = ctx.input(0);
  if (std::optional<int64_t> axis = axisInput(ctx, 1, rankOf(x) + 1))
    ctx.setOutput(0, unsqueezeDims(ctx.builder(), x, {*axis}));
}

void lowerTranspose(TfNodeContext &ctx) {
  if (std::optional<std::vector<int64_t>> perm = ctx.constantInts(1, "perm"))
    ctx.setOutput(0, ctx.builder().transpose(ctx.input(0), *perm));
}

void lowerShape(TfNodeContext &ctx) {
  DType type = typeAttr(ctx, "out_type", DType::S32);
  for (size_t i = 0; i < ctx.inputCount(); ++i)
    ctx.setOutput(i, ctx.builder().ints(type, dimsOf(ctx.input(i))));
}

void lowerSize(TfNodeContext &ctx) {
  DType type = typeAttr(ctx, "out_type", DType::S32);
  ctx.setOutput(0, ctx.builder().scalar(
                       type, double(product(dimsOf(ctx.input(0))))));
}

void lowerRank(TfNodeContext &ctx) {
  ctx.setOutput(0, ctx.builder().scalar(DType::S32, double(rankOf(ctx.input(0)))));
}

void lowerFill(TfNodeContext &ctx) {
  std::optional<std::vector<int64_t>> dims = ctx.constantInts(0, "dims");
  if (dims)
    ctx.setOutput(0, ctx.builder().broadcastInDim(
                         ctx.builder().reshape(ctx.input(1), {}), *dims, {}));
}

template <int Value_> void lowerConstantLike(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  ctx.setOutput(0, b.broadcastInDim(b.like(x, Value_), dimsOf(x), {}));
}

void lowerBroadcastTo(TfNodeContext &ctx) {
  if (std::optional<std::vector<int64_t>> dims = ctx.constantInts(1, "shape"))
    ctx.setOutput(0, ctx.builder().broadcastTo(ctx.input(0), *dims));
}

void lowerBroadcastArgs(TfNodeContext &ctx) {
  std::optional<std::vector<int64_t>> a = ctx.constantInts(0, "s0");
  std::optional<std::vector<int64_t>> b = ctx.constantInts(1, "s1");
  if (!a || !b)
    return;
  Expected<std::vector<int64_t>> dims = GraphBuilder::broadcastDims(*a, *b);
  if (!dims) {
    ctx.fail(dims.errorMessage());
    return;
  }
  ctx.setOutput(0, ctx.builder().ints(ctx.input(0)->shape().dtype(), *dims));
}

// --- Joining and splitting ---------------------------------------------------

void concatFrom(TfNodeContext &ctx, size_t first, size_t count, size_t axisAt) {
  std::vector<Value> parts;
  for (size_t i = first; i < first + count; ++i)
    parts.push_back(ctx.input(i));
  if (parts.empty()) {
    ctx.fail("concat needs at least one input");
    return;
  }
  if (std::optional<int64_t> axis = axisInput(ctx, axisAt, rankOf(parts[0])))
    ctx.setOutput(0, ctx.builder().concatenate(parts, *axis));
}

void lowerConcatV2(TfNodeContext &ctx) {
  size_t n = ctx.inputCount();
  concatFrom(ctx, 0, n ? n - 1 : 0, n ? n - 1 : 0);
}

void lowerConcat(TfNodeContext &ctx) {
  size_t n = ctx.inputCount();
  concatFrom(ctx, 1, n ? n - 1 : 0, 0);
}

void lowerPack(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  int64_t rank = rankOf(ctx.input(0)) + 1;
  std::optional<int64_t> axis = normalizeAxis(ctx.attrInt("axis", 0), rank);
  if (!axis) {
    ctx.fail(fmt::format("axis {} is out of range for rank {}",
                         ctx.attrInt("axis", 0), rank));
    return;
  }
  std::vector<Value> parts;
  for (size_t i = 0; i < ctx.inputCount(); ++i)
    parts.push_back(unsqueezeDims(b, ctx.input(i), {*axis}));
  ctx.setOutput(0, b.concatenate(parts, *axis));
}

void lowerUnpack(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  std::optional<int64_t> axis = normalizeAxis(ctx.attrInt("axis", 0), rankOf(x));
  if (!axis) {
    ctx.fail("unpack axis is out of range");
    return;
  }
  int64_t n = x->shape().dim(size_t(*axis));
  for (int64_t i = 0; i < n; ++i)
    ctx.setOutput(size_t(i),
                  squeezeDims(b, b.sliceDim(x, *axis, i, i + 1), {*axis}));
}

void setOutputs(TfNodeContext &ctx, const std::vector<Value> &parts) {
  for (size_t i = 0; i < parts.size(); ++i)
    ctx.setOutput(i, parts[i]);
}

void lowerSplit(TfNodeContext &ctx) {
  Value x = ctx.input(1);
  std::optional<int64_t> axis = axisInput(ctx, 0, rankOf(x));
  int64_t n = ctx.attrInt("num_split", 1);
  if (!axis)
    return;
  int64_t size = x->shape().dim(size_t(*axis));
  if (n <= 0 || size % n) {
    ctx.fail(fmt::format("dimension {} of size {} does not split into {}",
                         *axis, size, n));
    return;
  }
  setOutputs(ctx, splitSizes(ctx.builder(), x, *axis,
                             std::vector<int64_t>(size_t(n), size / n)));
}

void lowerSplitV(TfNodeContext &ctx) {
  Value x = ctx.input(0);
  std::optional<std::vector<int64_t>> sizes = ctx.constantInts(1, "size_splits");
  std::optional<int64_t> axis = axisInput(ctx, 2, rankOf(x));
  if (!sizes || !axis)
    return;
  int64_t known = 0, inferred = -1;
  for (size_t i = 0; i < sizes->size(); ++i)
    if ((*sizes)[i] < 0)
      inferred = int64_t(i);
    else
      known += (*sizes)[i];
  if (inferred >= 0)
    (*sizes)[size_t(inferred)] = x->shape().dim(size_t(*axis)) - known;
  setOutputs(ctx, splitSizes(ctx.builder(), x, *axis, *sizes));
}

// --- Slicing -----------------------------------------------------------------

void lowerSlice(TfNodeContext &ctx) {
  Value x = ctx.input(0);
  std::optional<std::vector<int64_t>> begin = ctx.constantInts(1, "begin");
  std::optional<std::vector<int64_t>> size = ctx.constantInts(2, "size");
  if (!begin || !size)
    return;
  std::vector<int64_t> dims = dimsOf(x);
  if (begin->size() != dims.size() || size->size() != dims.size()) {
    ctx.fail("begin and size must have one element per input dimension");
    return;
  }
  std::vector<SliceRange> ranges;
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t start = (*begin)[d], count = (*size)[d];
    count = count == -1 ? dims[d] - start : count;
    if (start < 0 || count < 0 || start + count > dims[d]) {
      ctx.fail(fmt::format("slice [{}, +{}) is out of range for dimension {} "
                           "of size {}",
                           start, count, d, dims[d]));
      return;
    }
    ranges.push_back({start, count, 1});
  }
  ctx.setOutput(0, sliceRanges(ctx.builder(), x, ranges));
}

/// One entry of StridedSlice's sparse spec expanded over the input dims.
struct DenseEntry {
  bool newAxis = false, shrink = false;
  std::optional<int64_t> begin, end;
  int64_t stride = 1;
  int64_t inputDim = -1; // -1 for a new axis
};

std::vector<DenseEntry> denseSpec(TfNodeContext &ctx, int64_t rank,
                                  const std::vector<int64_t> &begin,
                                  const std::vector<int64_t> &end,
                                  const std::vector<int64_t> &strides) {
  int64_t beginMask = ctx.attrInt("begin_mask", 0);
  int64_t endMask = ctx.attrInt("end_mask", 0);
  int64_t ellipsisMask = ctx.attrInt("ellipsis_mask", 0);
  int64_t newAxisMask = ctx.attrInt("new_axis_mask", 0);
  int64_t shrinkMask = ctx.attrInt("shrink_axis_mask", 0);
  auto bit = [](int64_t mask, size_t i) { return (mask >> i) & 1; };
  int64_t real = 0; // sparse entries that consume an input dimension
  for (size_t i = 0; i < begin.size(); ++i)
    real += !bit(newAxisMask, i) && !bit(ellipsisMask, i);
  std::vector<DenseEntry> dense;
  int64_t next = 0;
  bool sawEllipsis = false;
  for (size_t i = 0; i < begin.size(); ++i) {
    if (bit(ellipsisMask, i) && !sawEllipsis) {
      sawEllipsis = true;
      for (int64_t k = 0; k < rank - real; ++k)
        dense.push_back({false, false, std::nullopt, std::nullopt, 1, next++});
      continue;
    }
    if (bit(newAxisMask, i)) {
      dense.push_back({true, false, std::nullopt, std::nullopt, 1, -1});
      continue;
    }
    DenseEntry e;
    e.shrink = bit(shrinkMask, i);
    e.stride = strides[i];
    if (e.shrink || !bit(beginMask, i))
      e.begin = begin[i];
    if (!bit(endMask, i))
      e.end = end[i];
    e.inputDim = next++;
    dense.push_back(e);
  }
  while (next < rank) // an implicit trailing ellipsis
    dense.push_back({false, false, std::nullopt, std::nullopt, 1, next++});
  if (next != rank)
    ctx.fail(fmt::format("the slice spec indexes {} dimensions of a rank-{} "
                         "input",
                         next, rank));
  return dense;
}

void lowerStridedSlice(TfNodeContext &ctx) {
  Value x = ctx.input(0);
  std::optional<std::vector<int64_t>> begin = ctx.constantInts(1, "begin");
  std::optional<std::vector<int64_t>> end = ctx.constantInts(2, "end");
  std::optional<std::vector<int64_t>> strides = ctx.constantInts(3, "strides");
  if (!begin || !end || !strides)
    return;
  if (end->size() != begin->size() || strides->size() != begin->size()) {
    ctx.fail("begin, end and strides must have the same length");
    return;
  }
  std::vector<int64_t> dims = dimsOf(x), result;
  std::vector<DenseEntry> dense =
      denseSpec(ctx, int64_t(dims.size()), *begin, *end, *strides);
  if (!ctx.builder().ok())
    return;
  std::vector<SliceRange> ranges(dims.size());
  for (const DenseEntry &e : dense) {
    if (e.newAxis) {
      result.push_back(1);
      continue;
    }
    int64_t dim = dims[size_t(e.inputDim)];
    if (e.stride == 0) {
      ctx.fail("strided slice stride must be non-zero");
      return;
    }
    if (e.shrink) {
      int64_t index = *e.begin < 0 ? *e.begin + dim : *e.begin;
      if (index < 0 || index >= dim) {
        ctx.fail(fmt::format("slice index {} of dimension {} is out of "
                             "bounds (size {})",
                             *e.begin, e.inputDim, dim));
        return;
      }
      ranges[size_t(e.inputDim)] = {index, 1, 1};
      continue;
    }
    ranges[size_t(e.inputDim)] = canonicalSliceRange(dim, e.begin, e.end, e.stride);
    result.push_back(ranges[size_t(e.inputDim)].count);
  }
  GraphBuilder &b = ctx.builder();
  ctx.setOutput(0, b.reshape(sliceRanges(b, x, ranges), result));
}

void lowerReverseV2(TfNodeContext &ctx) {
  Value x = ctx.input(0);
  std::optional<std::vector<int64_t>> axes = ctx.constantInts(1, "axis");
  if (!axes)
    return;
  auto normalized = normalizeAxes(ctx.builder(), *axes, rankOf(x), "axis");
  if (normalized)
    ctx.setOutput(0, normalized->empty() ? x
                                         : ctx.builder().reverse(x, *normalized));
}

// --- Padding and tiling --------------------------------------------------------

void lowerPad(TfNodeContext &ctx) {
  Value x = ctx.input(0);
  std::vector<int64_t> low, high;
  if (!pairsInput(ctx, 1, rankOf(x), "paddings", low, high))
    return;
  Value value = ctx.inputCount() > 2 ? ctx.input(2) : nullptr;
  ctx.setOutput(0, padTensor(ctx.builder(), x, low, high, PadMode::Constant,
                             value));
}

void lowerMirrorPad(TfNodeContext &ctx) {
  Value x = ctx.input(0);
  std::vector<int64_t> low, high;
  if (!pairsInput(ctx, 1, rankOf(x), "paddings", low, high))
    return;
  std::string mode = ctx.attrString("mode", "REFLECT");
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    ctx.fail(fmt::format("unsupported mirror pad mode '{}'", mode));
    return;
  }
  ctx.setOutput(0, padTensor(ctx.builder(), x, low, high,
                             mode == "REFLECT" ? PadMode::Reflect
                                               : PadMode::Symmetric,
                             nullptr));
}

void lowerTile(TfNodeContext &ctx) {
  if (std::optional<std::vector<int64_t>> m = ctx.constantInts(1, "multiples"))
    ctx.setOutput(0, tile(ctx.builder(), ctx.input(0), *m));
}

void lowerRange(TfNodeContext &ctx) {
  std::optional<double> start = ctx.constantScalar(0, "start");
  std::optional<double> limit = ctx.constantScalar(1, "limit");
  std::optional<double> delta = ctx.constantScalar(2, "delta");
  if (!start || !limit || !delta)
    return;
  double s = *start, l = *limit, d = *delta;
  DType type = typeAttr(ctx, "Tidx", ctx.input(0)->shape().dtype());
  std::optional<int64_t> count =
      d == 0 || (d > 0 && s > l) || (d < 0 && s < l)
          ? std::nullopt
          : rangeLength(s, l, d);
  if (!count) {
    ctx.fail(fmt::format("range({}, {}, {}) is empty or infinite", s, l, d));
    return;
  }
  ctx.setOutput(0, rangeConstant(ctx.builder(), type, s, d, *count));
}

} // namespace

// The rest of the family (gather, scatter, one-hot, top-k, space/depth,
// resize), in TfIndexOps.cpp to keep files small.
std::span<const TfOpRule> tfIndexRules();

namespace {
const TfOpRule kRules[] = {
    {"Reshape", lowerReshape},
    {"Squeeze", lowerSqueeze},
    {"ExpandDims", lowerExpandDims},
    {"Transpose", lowerTranspose},
    {"Shape", lowerShape},
    {"ShapeN", lowerShape},
    {"Size", lowerSize},
    {"Rank", lowerRank},
    {"Fill", lowerFill},
    {"ZerosLike", lowerConstantLike<0>},
    {"OnesLike", lowerConstantLike<1>},
    {"BroadcastTo", lowerBroadcastTo},
    {"BroadcastArgs", lowerBroadcastArgs},
    {"ConcatV2", lowerConcatV2},
    {"Concat", lowerConcat},
    {"Pack", lowerPack},
    {"Unpack", lowerUnpack},
    {"Split", lowerSplit},
    {"SplitV", lowerSplitV},
    {"Slice", lowerSlice},
    {"StridedSlice", lowerStridedSlice},
    {"ReverseV2", lowerReverseV2},
    {"Pad", lowerPad},
    {"PadV2", lowerPad},
    {"MirrorPad", lowerMirrorPad},
    {"Tile", lowerTile},
    {"Range", lowerRange},
};
} // namespace

std::span<const TfOpRule> tfArrayRules() {
  static const std::vector<TfOpRule> all = [] {
    std::vector<TfOpRule> rules(std::begin(kRules), std::end(kRules));
    std::span<const TfOpRule> more = tfIndexRules();
    rules.insert(rules.end(), more.begin(), more.end());
    return rules;
  }();
  return all;
}

} // namespace kiln::import::tf
