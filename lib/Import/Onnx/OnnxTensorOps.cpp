//===- OnnxTensorOps.cpp - ONNX shape, slicing, gather and padding ops ===//
//
// Inputs that fix a result shape (shape, axes, starts/ends, pads, repeats)
// must be constants after import-time folding; attributes that moved to
// inputs between opsets are read from wherever the node's opset puts them.
// The indexing half of the family lives in OnnxIndexOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

#include "Common/ArrayLowering.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln::import::onnx {

using ir::DType;

std::span<const OnnxOpRule> onnxIndexRules();

namespace {
int64_t rankOf(Value x) { return x ? x->shape().rank() : 0; }

/// Integers from attribute `key` before opset `inputSince`, from input `i`
/// from then on; nullopt (without error) when neither is given.
std::optional<std::vector<int64_t>>
attrOrInput(OnnxNodeContext &ctx, std::string_view key, size_t i,
            int64_t inputSince, std::string_view what) {
  if (ctx.opset() < inputSince)
    return ctx.hasAttr(key) ? std::optional(ctx.attrInts(key)) : std::nullopt;
  if (!ctx.hasInput(i))
    return std::nullopt;
  return ctx.constantInts(i, what);
}

std::optional<int64_t> axisAttr(OnnxNodeContext &ctx, int64_t fallback,
                                int64_t rank) {
  int64_t axis = ctx.attrInt("axis", fallback);
  std::optional<int64_t> normalized = normalizeAxis(axis, rank);
  if (!normalized)
    ctx.fail(fmt::format("axis {} is out of range for rank {}", axis, rank));
  return normalized;
}

// --- Shapes ------------------------------------------------------------------

void lowerReshape(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  std::optional<std::vector<int64_t>> shape =
      ctx.opset() < 5 ? std::optional(ctx.attrInts("shape"))
                      : ctx.constantInts(1, "shape");
  if (!shape)
    return;
  bool copyZeros = ctx.attrInt("allowzero", 0) == 0;
  std::optional<std::vector<int64_t>> dims =
      resolveReshape(ctx.builder(), dimsOf(x), *shape, copyZeros);
  if (dims)
    ctx.setOutput(0, ctx.builder().reshape(x, *dims));
}

void lowerFlatten(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  std::vector<int64_t> dims = dimsOf(x);
  int64_t axis = ctx.attrInt("axis", 1);
  axis = axis < 0 ? axis + int64_t(dims.size()) : axis;
  if (axis < 0 || axis > int64_t(dims.size())) {
    ctx.fail(fmt::format("flatten axis {} is out of range", axis));
    return;
  }
  ctx.setOutput(0, ctx.builder().reshape(
                       x, {product(dims, 0, size_t(axis)),
                           product(dims, size_t(axis))}));
}

void lowerSqueeze(OnnxNodeContext &ctx) {
  std::vector<int64_t> axes =
      attrOrInput(ctx, "axes", 1, 13, "axes").value_or(std::vector<int64_t>{});
  if (ctx.builder().ok())
    ctx.setOutput(0, squeezeDims(ctx.builder(), ctx.input(0), axes));
}

void lowerUnsqueeze(OnnxNodeContext &ctx) {
  std::optional<std::vector<int64_t>> axes =
      attrOrInput(ctx, "axes", 1, 13, "axes");
  if (!axes) {
    ctx.fail("Unsqueeze needs axes");
    return;
  }
  ctx.setOutput(0, unsqueezeDims(ctx.builder(), ctx.input(0), *axes));
}

void lowerTranspose(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  std::vector<int64_t> perm = ctx.attrInts("perm");
  if (!ctx.hasAttr("perm")) {
    perm.resize(size_t(rankOf(x)));
    std::iota(perm.rbegin(), perm.rend(), 0);
  }
  ctx.setOutput(0, ctx.builder().transpose(x, perm));
}

void lowerShape(OnnxNodeContext &ctx) {
  std::vector<int64_t> dims = dimsOf(ctx.input(0));
  int64_t rank = int64_t(dims.size());
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
  };
  int64_t start = clampIndex(ctx.attrInt("start", 0));
  int64_t end = clampIndex(ctx.attrInt("end", rank));
  std::vector<int64_t> kept;
  for (int64_t i = start; i < end; ++i)
    kept.push_back(dims[size_t(i)]);
  ctx.setOutput(0, ctx.builder().ints(DType::S64, kept));
}

void lowerSize(OnnxNodeContext &ctx) {
  ctx.setOutput(0, ctx.builder().scalar(DType::S64,
                                        double(product(dimsOf(ctx.input(0))))));
}

void lowerConstantOfShape(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  std::optional<std::vector<int64_t>> dims = ctx.constantInts(0, "shape");
  if (!dims)
    return;
  std::optional<ir::Literal> value = ctx.attrTensor("value");
  Value scalar = value ? b.reshape(b.constant(*value), {})
                       : b.scalar(DType::F32, 0);
  ctx.setOutput(0, b.broadcastInDim(scalar, *dims, {}));
}

void lowerExpand(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  std::optional<std::vector<int64_t>> shape = ctx.constantInts(1, "shape");
  if (!shape)
    return;
  // Expand broadcasts both ways: the result may keep x's larger dims.
  Expected<std::vector<int64_t>> dims = GraphBuilder::broadcastDims(dimsOf(x), *shape);
  if (!dims) {
    ctx.fail(dims.errorMessage());
    return;
  }
  ctx.setOutput(0, b.broadcastTo(x, *dims));
}

// --- Joining, splitting, slicing ------------------------------------------------

void lowerConcat(OnnxNodeContext &ctx) {
  std::vector<Value> parts;
  for (size_t i = 0; i < ctx.inputCount(); ++i)
    if (ctx.hasInput(i))
      parts.push_back(ctx.input(i));
  if (parts.empty()) {
    ctx.fail("Concat needs at least one input");
    return;
  }
  if (std::optional<int64_t> axis = axisAttr(ctx, 0, rankOf(parts[0])))
    ctx.setOutput(0, ctx.builder().concatenate(parts, *axis));
}

void lowerSplit(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  std::optional<int64_t> axis = axisAttr(ctx, 0, rankOf(x));
  if (!axis)
    return;
  int64_t size = x->shape().dim(size_t(*axis));
  std::optional<std::vector<int64_t>> sizes =
      attrOrInput(ctx, "split", 1, 13, "split");
  if (!ctx.builder().ok())
    return;
  if (sizes && sizes->empty())
    sizes.reset();
  if (!sizes) {
    // Equal parts; opset 18's num_outputs makes the last part smaller.
    int64_t n = ctx.attrInt("num_outputs", int64_t(ctx.outputCount()));
    int64_t part = n > 0 ? (size + n - 1) / n : 0;
    if (n <= 0 || (!ctx.hasAttr("num_outputs") && size % n)) {
      ctx.fail(fmt::format("dimension of size {} does not split into {}",
                           size, n));
      return;
    }
    sizes.emplace();
    for (int64_t i = 0, left = size; i < n; ++i, left -= part)
      sizes->push_back(std::min(part, left));
  }
  std::vector<Value> parts = splitSizes(ctx.builder(), x, *axis, *sizes);
  for (size_t i = 0; i < parts.size(); ++i)
    ctx.setOutput(i, parts[i]);
}

/// ONNX clamps starts into [0, dim] ([0, dim-1] stepping backwards) and
/// ends into [0, dim] ([-1, dim-1]), after wrapping negatives once.
SliceRange onnxSliceRange(int64_t dim, int64_t start, int64_t end,
                          int64_t step) {
  start = start < 0 ? start + dim : start;
  end = end < 0 ? end + dim : end;
  SliceRange r{0, 0, step};
  if (step > 0) {
    r.start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    r.count = end > r.start ? (end - r.start + step - 1) / step : 0;
  } else {
    r.start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    r.count = r.start > end ? (r.start - end - step - 1) / -step : 0;
  }
  return r;
}

/// `x` without reshapes and converts (a scalar index unsqueezed to [1]).
Value stripLayout(Value x) {
  while (x && (x->opcode() == ir::Opcode::Reshape ||
               x->opcode() == ir::Opcode::Convert ||
               x->opcode() == ir::Opcode::Broadcast))
    x = x->operand(0);
  return x;
}

/// k when `end` is computed as `start + k` for a constant k, else nullopt.
std::optional<int64_t> constantDistance(Value start, Value end) {
  Value sum = stripLayout(end);
  if (!sum || sum->opcode() != ir::Opcode::Add)
    return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    Value other = stripLayout(sum->operand(1 - i));
    if (stripLayout(sum->operand(i)) != stripLayout(start))
      continue;
    std::optional<std::vector<int64_t>> k = GraphBuilder::constantInts(other);
    if (k && k->size() == 1)
      return k->front();
  }
  return std::nullopt;
}

/// Slice with a start computed at run time, as a loop body's x[i:i+k]
/// (i the iteration number): the window's size k must be a constant for a
/// static shape, so only one axis, `ends` = `starts` + k and step 1 are
/// supported. A negative start counts from the end, as in ONNX; a window
/// that would run past the end is moved back inside (dynamic-slice clamps),
/// where ONNX would shorten it: the one case whose shape is not static.
/// Returns false (no error) when the node is not of that form.
bool lowerDynamicSlice(OnnxNodeContext &ctx, Value x) {
  if (ctx.opset() < 10 || !ctx.hasInput(1) || !ctx.hasInput(2) ||
      GraphBuilder::constantInts(ctx.input(1)))
    return false;
  Value start = ctx.input(1), end = ctx.input(2);
  if (!start || start->shape().numElements() != 1)
    return false;
  std::optional<int64_t> size = constantDistance(start, end);
  std::optional<std::vector<int64_t>> axes =
      ctx.hasInput(3) ? GraphBuilder::constantInts(ctx.input(3))
                      : std::optional(std::vector<int64_t>{0});
  std::optional<std::vector<int64_t>> steps =
      ctx.hasInput(4) ? GraphBuilder::constantInts(ctx.input(4))
                      : std::optional(std::vector<int64_t>{1});
  if (!size || !axes || axes->size() != 1 || !steps || steps->size() != 1 ||
      steps->front() != 1)
    return false;
  std::optional<int64_t> axis = normalizeAxis(axes->front(), rankOf(x));
  int64_t dim = axis ? x->shape().dim(size_t(*axis)) : 0;
  if (!axis || *size < 0 || *size > dim)
    return false;
  GraphBuilder &b = ctx.builder();
  Value at = b.convert(b.reshape(start, {}), DType::S64);
  Value wrapped = b.binary(ir::Opcode::Add, at, b.scalar(DType::S64, double(dim)));
  at = b.select(b.compare(ir::ComparisonDirection::LT, at,
                          b.scalar(DType::S64, 0)),
                wrapped, at);
  Value zero = b.scalar(DType::S64, 0);
  std::vector<Value> operands = {x};
  ir::Attributes attrs;
  attrs.sizes = x->shape().dims();
  attrs.sizes[size_t(*axis)] = *size;
  for (int64_t d = 0; d < rankOf(x); ++d)
    operands.push_back(d == *axis ? at : zero);
  ctx.setOutput(0, b.add(ir::Opcode::DynamicSlice, std::move(operands),
                         std::move(attrs)));
  return true;
}

void lowerSlice(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  if (x && lowerDynamicSlice(ctx, x))
    return;
  bool fromAttrs = ctx.opset() < 10;
  std::optional<std::vector<int64_t>> starts =
      fromAttrs ? std::optional(ctx.attrInts("starts")) : ctx.constantInts(1, "starts");
  std::optional<std::vector<int64_t>> ends =
      fromAttrs ? std::optional(ctx.attrInts("ends")) : ctx.constantInts(2, "ends");
  std::optional<std::vector<int64_t>> axes =
      fromAttrs ? (ctx.hasAttr("axes") ? std::optional(ctx.attrInts("axes"))
                                       : std::nullopt)
                : (ctx.hasInput(3) ? ctx.constantInts(3, "axes") : std::nullopt);
  std::optional<std::vector<int64_t>> steps =
      !fromAttrs && ctx.hasInput(4) ? ctx.constantInts(4, "steps") : std::nullopt;
  if (!starts || !ends || !ctx.builder().ok())
    return;
  std::vector<int64_t> dims = dimsOf(x);
  if (!axes) {
    axes.emplace(starts->size());
    std::iota(axes->begin(), axes->end(), 0);
  }
  if (!steps)
    steps.emplace(starts->size(), 1);
  if (ends->size() != starts->size() || axes->size() != starts->size() ||
      steps->size() != starts->size()) {
    ctx.fail("starts, ends, axes and steps must have the same length");
    return;
  }
  auto normalized = normalizeAxes(ctx.builder(), *axes, int64_t(dims.size()), "axis");
  if (!normalized)
    return;
  std::vector<SliceRange> ranges;
  for (int64_t d : dims)
    ranges.push_back({0, d, 1});
  for (size_t i = 0; i < starts->size(); ++i) {
    if ((*steps)[i] == 0) {
      ctx.fail("slice step must be non-zero");
      return;
    }
    size_t d = size_t((*normalized)[i]);
    ranges[d] = onnxSliceRange(dims[d], (*starts)[i], (*ends)[i], (*steps)[i]);
  }
  ctx.setOutput(0, sliceRanges(ctx.builder(), x, ranges));
}

// --- Padding, tiling, ranges ------------------------------------------------------

void lowerPad(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  int64_t rank = rankOf(x);
  bool fromAttrs = ctx.opset() < 11;
  std::optional<std::vector<int64_t>> pads =
      fromAttrs ? std::optional(ctx.attrInts(ctx.opset() < 2 ? "paddings" : "pads"))
                : ctx.constantInts(1, "pads");
  if (!pads)
    return;
  std::vector<int64_t> axes(static_cast<size_t>(rank));
  std::iota(axes.begin(), axes.end(), 0);
  if (!fromAttrs && ctx.hasInput(3)) {
    std::optional<std::vector<int64_t>> given = ctx.constantInts(3, "axes");
    auto normalized = given ? normalizeAxes(b, *given, rank, "axis") : std::nullopt;
    if (!normalized)
      return;
    axes = *normalized;
  }
  if (pads->size() != 2 * axes.size()) {
    ctx.fail(fmt::format("expected {} pads but got {}", 2 * axes.size(),
                         pads->size()));
    return;
  }
  std::vector<int64_t> low(size_t(rank), 0), high(size_t(rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    low[size_t(axes[i])] = (*pads)[i];
    high[size_t(axes[i])] = (*pads)[i + axes.size()];
  }
  std::string mode = ctx.attrString("mode", "constant");
  static const std::pair<std::string_view, PadMode> kModes[] = {
      {"constant", PadMode::Constant}, {"reflect", PadMode::Reflect},
      {"edge", PadMode::Edge}, {"wrap", PadMode::Wrap}};
  auto found = std::find_if(std::begin(kModes), std::end(kModes),
                            [&](const auto &m) { return m.first == mode; });
  if (found == std::end(kModes)) {
    ctx.fail(fmt::format("unsupported pad mode '{}'", mode));
    return;
  }
  Value value = nullptr;
  if (fromAttrs)
    value = b.like(x, ctx.attrFloat("value", 0));
  else if (ctx.hasInput(2))
    value = ctx.input(2);
  ctx.setOutput(0, padTensor(b, x, low, high, found->second, value));
}

void lowerTile(OnnxNodeContext &ctx) {
  if (std::optional<std::vector<int64_t>> m = ctx.constantInts(1, "repeats"))
    ctx.setOutput(0, tile(ctx.builder(), ctx.input(0), *m));
}

void lowerRange(OnnxNodeContext &ctx) {
  std::optional<double> start = ctx.constantScalar(0, "start");
  std::optional<double> limit = ctx.constantScalar(1, "limit");
  std::optional<double> delta = ctx.constantScalar(2, "delta");
  if (!start || !limit || !delta)
    return;
  if (*delta == 0) {
    ctx.fail("Range delta must not be 0");
    return;
  }
  std::optional<int64_t> count = rangeLength(*start, *limit, *delta);
  if (!count) {
    ctx.fail(fmt::format("Range({}, {}, {}) has no finite length", *start,
                         *limit, *delta));
    return;
  }
  ctx.setOutput(0, rangeConstant(ctx.builder(), ctx.input(0)->shape().dtype(),
                                 *start, *delta, *count));
}

const OnnxOpRule kRules[] = {
    {"Reshape", lowerReshape},
    {"Flatten", lowerFlatten},
    {"Squeeze", lowerSqueeze},
    {"Unsqueeze", lowerUnsqueeze},
    {"Transpose", lowerTranspose},
    {"Shape", lowerShape},
    {"Size", lowerSize},
    {"ConstantOfShape", lowerConstantOfShape},
    {"Expand", lowerExpand},
    {"Concat", lowerConcat},
    {"Split", lowerSplit},
    {"Slice", lowerSlice},
    {"Pad", lowerPad},
    {"Tile", lowerTile},
    {"Range", lowerRange},
};
} // namespace

std::span<const OnnxOpRule> onnxTensorRules() {
  static const std::vector<OnnxOpRule> all = [] {
    std::vector<OnnxOpRule> rules(std::begin(kRules), std::end(kRules));
    std::span<const OnnxOpRule> more = onnxIndexRules();
    rules.insert(rules.end(), more.begin(), more.end());
    return rules;
  }();
  return all;
}

} // namespace kiln::import::onnx
