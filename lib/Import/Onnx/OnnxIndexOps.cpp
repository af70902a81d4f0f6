//===- OnnxIndexOps.cpp - ONNX gather, scatter, top-k and resize ops ------===//
//
// The indexing half of the tensor family (onnxTensorRules() includes these).
// ONNX indices may be negative (counted from the end). Scatters need
// constant indices and are resolved at import; Resize computes its taps and
// weights at import per the opset's coordinate rules.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"
#include "kiln/Support/CheckedArithmetic.h"

#include "Common/ArrayLowering.h"
#include "Common/ResizeLowering.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

#include <cmath>
#include <numeric>

namespace kiln::import::onnx {

using ir::DType;

std::span<const OnnxOpRule> onnxIndexRules();

namespace {
int64_t rankOf(Value x) { return x ? x->shape().rank() : 0; }

std::optional<int64_t> axisAttr(OnnxNodeContext &ctx, int64_t fallback,
                                int64_t rank) {
  int64_t axis = ctx.attrInt("axis", fallback);
  std::optional<int64_t> normalized = normalizeAxis(axis, rank);
  if (!normalized)
    ctx.fail(fmt::format("axis {} is out of range for rank {}", axis, rank));
  return normalized;
}

// --- Gather and scatter --------------------------------------------------------

void lowerGather(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  if (std::optional<int64_t> axis = axisAttr(ctx, 0, rankOf(x)))
    ctx.setOutput(0, gatherAxis(ctx.builder(), x, ctx.input(1), *axis, 0, true));
}

void lowerGatherElements(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  if (std::optional<int64_t> axis = axisAttr(ctx, 0, rankOf(x)))
    ctx.setOutput(0, gatherElements(ctx.builder(), x, ctx.input(1), *axis));
}

void lowerGatherNd(OnnxNodeContext &ctx) {
  ctx.setOutput(0, gatherNd(ctx.builder(), ctx.input(0), ctx.input(1),
                            ctx.attrInt("batch_dims", 0), true));
}

std::optional<ScatterReduction> reductionAttr(OnnxNodeContext &ctx) {
  static const std::pair<std::string_view, ScatterReduction> kReductions[] = {
      {"none", ScatterReduction::None}, {"add", ScatterReduction::Add},
      {"mul", ScatterReduction::Mul},   {"max", ScatterReduction::Max},
      {"min", ScatterReduction::Min}};
  std::string name = ctx.attrString("reduction", "none");
  for (const auto &[key, reduction] : kReductions)
    if (key == name)
      return reduction;
  ctx.fail(fmt::format("unsupported scatter reduction '{}'", name));
  return std::nullopt;
}

const ir::Literal *constantIndices(OnnxNodeContext &ctx) {
  const ir::Literal *literal = GraphBuilder::constantValue(ctx.input(1));
  if (!literal)
    ctx.fail("input 1 (indices) must be a compile-time constant: kiln "
             "resolves scatters at import");
  return literal;
}

void lowerScatterElements(OnnxNodeContext &ctx) {
  Value data = ctx.input(0);
  std::optional<int64_t> axis = axisAttr(ctx, 0, rankOf(data));
  std::optional<ScatterReduction> reduction = reductionAttr(ctx);
  const ir::Literal *indices = constantIndices(ctx);
  if (axis && reduction && indices)
    ctx.setOutput(0, scatterElements(ctx.builder(), data, *indices,
                                     ctx.input(2), *axis, *reduction));
}

void lowerScatterNd(OnnxNodeContext &ctx) {
  std::optional<ScatterReduction> reduction = reductionAttr(ctx);
  const ir::Literal *indices = constantIndices(ctx);
  if (reduction && indices)
    ctx.setOutput(0, scatterNd(ctx.builder(), ctx.input(0), *indices,
                               ctx.input(2), *reduction));
}

void lowerOneHot(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  std::optional<std::vector<double>> depth =
      GraphBuilder::constantDoubles(ctx.input(1));
  Value values = ctx.input(2);
  if (!depth || depth->size() != 1) {
    ctx.fail("input 1 (depth) must be a compile-time constant scalar");
    return;
  }
  if (product(dimsOf(values)) != 2) {
    ctx.fail("OneHot values must hold two elements: off, on");
    return;
  }
  Value flat = b.reshape(values, {2});
  Value off = b.sliceDim(flat, 0, 0, 1), on = b.sliceDim(flat, 0, 1, 2);
  ctx.setOutput(0, oneHot(b, ctx.input(0), int64_t(depth->front()), on, off,
                          ctx.attrInt("axis", -1), true));
}

void lowerTopK(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  std::optional<int64_t> axis = axisAttr(ctx, -1, rankOf(x));
  std::optional<int64_t> k;
  if (ctx.opset() < 10)
    k = ctx.attrInt("k", 0);
  else if (std::optional<std::vector<int64_t>> given = ctx.constantInts(1, "k"))
    k = given->size() == 1 ? std::optional(given->front()) : std::nullopt;
  if (!axis || !k) {
    ctx.fail("TopK needs a constant k of one element");
    return;
  }
  // sorted=0 leaves the order unspecified, so the sorted order is valid.
  auto [values, indices] = topK(ctx.builder(), x, *k, *axis,
                                ctx.attrInt("largest", 1) != 0, DType::S64);
  ctx.setOutput(0, values);
  ctx.setOutput(1, indices);
}

// --- Layout ------------------------------------------------------------------------

void lowerDepthToSpace(OnnxNodeContext &ctx) {
  std::string mode = ctx.attrString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") {
    ctx.fail(fmt::format("unsupported DepthToSpace mode '{}'", mode));
    return;
  }
  ctx.setOutput(0, depthToSpace(ctx.builder(), ctx.input(0),
                                ctx.attrInt("blocksize", 0), false,
                                mode == "CRD"));
}

void lowerSpaceToDepth(OnnxNodeContext &ctx) {
  ctx.setOutput(0, spaceToDepth(ctx.builder(), ctx.input(0),
                                ctx.attrInt("blocksize", 0), false));
}

void lowerTrilu(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    std::optional<std::vector<int64_t>> given = ctx.constantInts(1, "k");
    if (!given)
      return;
    k = given->empty() ? 0 : given->front();
  }
  std::vector<int64_t> d = dimsOf(x);
  if (d.size() < 2) {
    ctx.fail("Trilu expects a rank >= 2 input");
    return;
  }
  bool upper = ctx.attrInt("upper", 1) != 0;
  int64_t rows = d[d.size() - 2], cols = d.back();
  Value mask = diagonalMask(b, rows, cols,
                            upper ? ir::ComparisonDirection::GE
                                  : ir::ComparisonDirection::LE,
                            k);
  ctx.setOutput(0, b.select(mask, x, b.like(x, 0)));
}

/// ONNX TensorProto.DataType codes kiln supports.
std::optional<DType> onnxDType(int64_t code) {
  static const std::pair<int64_t, DType> kTypes[] = {
      {1, DType::F32},  {2, DType::U8},   {3, DType::S8},   {4, DType::U16},
      {5, DType::S16},  {6, DType::S32},  {7, DType::S64},  {9, DType::Pred},
      {10, DType::F16}, {11, DType::F64}, {12, DType::U32}, {13, DType::U64},
      {16, DType::BF16}};
  for (const auto &[key, type] : kTypes)
    if (key == code)
      return type;
  return std::nullopt;
}

void lowerEyeLike(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  std::vector<int64_t> d = dimsOf(x);
  std::optional<DType> type = x ? x->shape().dtype() : DType::F32;
  if (ctx.hasAttr("dtype"))
    type = onnxDType(ctx.attrInt("dtype", 1));
  if (d.size() != 2 || !type) {
    ctx.fail("EyeLike expects a matrix and a supported dtype");
    return;
  }
  int64_t k = ctx.attrInt("k", 0);
  GraphBuilder &b = ctx.builder();
  ctx.setOutput(0, b.convert(diagonalMask(b, d[0], d[1],
                                          ir::ComparisonDirection::EQ, k),
                             *type));
}

// --- Resize and Upsample --------------------------------------------------------------

/// A float input that may be absent or empty (Resize's "not given").
std::optional<std::vector<double>> optionalFloats(OnnxNodeContext &ctx,
                                                  size_t i, const char *what) {
  if (i >= ctx.inputCount() || !ctx.hasInput(i))
    return std::nullopt;
  std::optional<std::vector<double>> values =
      GraphBuilder::constantDoubles(ctx.input(i));
  if (!values)
    ctx.fail(fmt::format("input {} ({}) must be a compile-time constant", i,
                         what));
  if (values && values->empty())
    return std::nullopt;
  return values;
}

/// Output sizes and coordinate scales of every dimension.
/// A resized length from scales or sizes; -1 when it is NaN, infinite,
/// negative or beyond int64_t (where the conversion would be undefined).
int64_t resizedLength(double length) {
  std::optional<int64_t> value = checkedFloatToInt(length);
  return value && *value >= 0 ? *value : -1;
}

bool resizeTargets(OnnxNodeContext &ctx, const std::vector<int64_t> &in,
                   std::vector<int64_t> &out, std::vector<double> &scales) {
  int64_t rank = int64_t(in.size());
  std::vector<int64_t> axes(in.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (ctx.hasAttr("axes")) {
    auto normalized = normalizeAxes(ctx.builder(), ctx.attrInts("axes"), rank, "axis");
    if (!normalized)
      return false;
    axes = *normalized;
  }
  out = in;
  scales.assign(in.size(), 1.0);
  bool upsample = ctx.opType() == "Upsample";
  std::optional<std::vector<double>> given =
      upsample && ctx.opset() < 9 ? std::optional(ctx.attrFloats("scales"))
      : upsample                  ? optionalFloats(ctx, 1, "scales")
      : ctx.opset() < 11          ? optionalFloats(ctx, 1, "scales")
                                  : optionalFloats(ctx, 2, "scales");
  std::optional<std::vector<double>> sizes =
      !upsample && ctx.opset() >= 11 ? optionalFloats(ctx, 3, "sizes") : std::nullopt;
  if (!ctx.builder().ok())
    return false;
  const std::optional<std::vector<double>> &values = sizes ? sizes : given;
  if (!values || values->size() != axes.size()) {
    ctx.fail("Resize needs scales or sizes with one value per resized axis");
    return false;
  }
  std::string policy = ctx.attrString("keep_aspect_ratio_policy", "stretch");
  double common = policy == "not_larger" ? INFINITY : 0;
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t d = size_t(axes[i]);
    double ratio = sizes ? (*values)[i] / double(in[d]) : (*values)[i];
    common = policy == "not_larger" ? std::min(common, ratio)
                                    : std::max(common, ratio);
    scales[d] = ratio;
    out[d] = resizedLength(sizes ? (*values)[i]
                                 : std::floor(double(in[d]) * ratio));
  }
  if (sizes && policy != "stretch")
    for (int64_t axis : axes) {
      scales[size_t(axis)] = common;
      out[size_t(axis)] =
          resizedLength(std::round(common * double(in[size_t(axis)])));
    }
  for (size_t d = 0; d < out.size(); ++d)
    if (out[d] < 0) {
      ctx.fail(fmt::format("Resize of axis {} ({} elements) by scale {} gives "
                           "no valid length",
                           d, in[d], scales[d]));
      return false;
    }
  return true;
}

void lowerResize(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  std::vector<int64_t> in = dimsOf(x), out;
  std::vector<double> scales;
  if (!x || !resizeTargets(ctx, in, out, scales))
    return;
  OnnxResizeOptions options;
  options.mode = ctx.attrString("mode", "nearest");
  if (options.mode == "bilinear") // Upsample-7's spelling
    options.mode = "linear";
  bool legacy = ctx.opType() == "Upsample" || ctx.opset() < 11;
  // Opset 10 and Upsample: asymmetric coordinates; nearest truncates when
  // upsampling and rounds up when downsampling (ONNX Runtime's rule).
  options.coordinateMode = legacy ? "asymmetric"
                                  : ctx.attrString("coordinate_transformation_mode",
                                                   "half_pixel");
  options.nearestMode = legacy ? "" : ctx.attrString("nearest_mode",
                                                     "round_prefer_floor");
  options.cubicCoeffA = ctx.attrFloat("cubic_coeff_a", -0.75);
  options.excludeOutside = ctx.attrInt("exclude_outside", 0) != 0;
  options.extrapolationValue = ctx.attrFloat("extrapolation_value", 0);
  bool crop = options.coordinateMode == "tf_crop_and_resize";
  std::optional<std::vector<double>> roi =
      crop ? optionalFloats(ctx, 1, "roi") : std::nullopt;
  if (crop && (!roi || roi->size() != 2 * in.size())) {
    ctx.fail("tf_crop_and_resize needs a constant roi of 2 * rank values");
    return;
  }
  for (size_t d = 0; d < in.size(); ++d) {
    bool shifts = crop || options.coordinateMode == "tf_half_pixel_for_nn";
    if (in[d] == out[d] && scales[d] == 1.0 && !shifts)
      continue;
    if (ctx.attrInt("antialias", 0) != 0 && out[d] < in[d] &&
        options.mode != "nearest") {
      ctx.fail("antialiased downscaling is not supported");
      return;
    }
    OnnxResizeOptions axisOptions = options;
    if (legacy)
      axisOptions.nearestMode = scales[d] < 1 ? "ceil" : "floor";
    if (!checkResizeTables(b, out[d]))
      return;
    AxisResample plan = onnxResizeAxis(
        in[d], out[d], scales[d], crop ? (*roi)[d] : 0,
        crop ? (*roi)[d + in.size()] : 1, axisOptions);
    if (plan.taps.empty()) {
      ctx.fail(fmt::format("unsupported resize mode '{}' / '{}' / '{}'",
                           options.mode, options.coordinateMode,
                           options.nearestMode));
      return;
    }
    x = resampleAxis(b, x, int64_t(d), plan);
  }
  ctx.setOutput(0, x);
}

/// ReverseSequence (opset 10): along time_axis, the first
/// sequence_lens[b] elements of each batch entry b are reversed and the rest
/// kept; a gather with run-time indices t < len ? len - 1 - t : t.
void lowerReverseSequence(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0), lens = ctx.input(1);
  if (!x || !lens)
    return;
  int64_t timeAxis = ctx.attrInt("time_axis", 0);
  int64_t batchAxis = ctx.attrInt("batch_axis", 1);
  std::vector<int64_t> dims = x->shape().dims();
  if (dims.size() < 2 || timeAxis < 0 || timeAxis > 1 ||
      batchAxis != 1 - timeAxis)
    return void(ctx.fail(fmt::format(
        "expected input 0 of rank >= 2 and time_axis / batch_axis 0 and 1 "
        "(either way) but got {} with time_axis {}, batch_axis {}",
        x->shape().toString(), timeAxis, batchAxis)));
  if (lens->shape().rank() != 1 ||
      lens->shape().dim(0) != dims[size_t(batchAxis)] ||
      !ir::isInteger(lens->shape().dtype()))
    return void(ctx.fail(fmt::format("input 1 (sequence_lens) must be an "
                                     "integer vector of {} (the batch size) "
                                     "but is {}",
                                     dims[size_t(batchAxis)],
                                     lens->shape().toString())));
  Value time = iota(b, DType::S64, dims, timeAxis);
  Value length =
      b.broadcastInDim(b.convert(lens, DType::S64), dims, {batchAxis});
  Value reversed = b.binary(
      ir::Opcode::Subtract,
      b.binary(ir::Opcode::Subtract, length, b.scalar(DType::S64, 1)), time);
  Value source = b.select(b.compare(ir::ComparisonDirection::LT, time, length),
                          reversed, time);
  ctx.setOutput(0, gatherElements(b, x, source, timeAxis));
}

/// Output dimensions of MaxUnpool: output_shape (input 2) when given, else
/// (in - 1) * stride - pad_begin - pad_end + kernel per spatial dimension.
std::optional<std::vector<int64_t>> unpoolDims(OnnxNodeContext &ctx,
                                               const std::vector<int64_t> &in) {
  size_t spatial = in.size() - 2;
  if (ctx.inputCount() > 2 && ctx.hasInput(2)) {
    std::optional<std::vector<int64_t>> shape =
        ctx.constantInts(2, "output_shape");
    if (shape && shape->size() != in.size()) {
      ctx.fail(fmt::format("input 2 (output_shape) has {} entries but the "
                           "input has rank {}",
                           shape->size(), in.size()));
      return std::nullopt;
    }
    return shape;
  }
  std::vector<int64_t> kernel = ctx.attrInts("kernel_shape");
  std::vector<int64_t> strides = ctx.attrInts("strides");
  std::vector<int64_t> pads = ctx.attrInts("pads");
  if (kernel.size() != spatial ||
      (!strides.empty() && strides.size() != spatial) ||
      (!pads.empty() && pads.size() != 2 * spatial)) {
    ctx.fail(fmt::format("kernel_shape, strides and pads need {}, {} and {} "
                         "entries but have {}, {} and {}",
                         spatial, spatial, 2 * spatial, kernel.size(),
                         strides.size(), pads.size()));
    return std::nullopt;
  }
  std::vector<int64_t> out(in.begin(), in.begin() + 2);
  for (size_t d = 0; d < spatial; ++d)
    out.push_back((in[d + 2] - 1) * (strides.empty() ? 1 : strides[d]) -
                  (pads.empty() ? 0 : pads[d] + pads[d + spatial]) + kernel[d]);
  return out;
}

/// MaxUnpool (opsets 9, 11): y = zeros(output dims); y.flat[I[i]] = X[i]
/// (indices are flat over the whole output, as MaxPool's; the last write
/// wins). With no scatter opcode the write is a dense match of every input
/// index with every output position, so sizes are bounded.
void lowerMaxUnpool(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0), indices = ctx.input(1);
  if (!x || !indices)
    return;
  std::vector<int64_t> in = x->shape().dims();
  if (in.size() < 3 || indices->shape().dims() != in ||
      !ir::isInteger(indices->shape().dtype()))
    return void(ctx.fail(fmt::format("expected input 0 of rank >= 3 and "
                                     "integer indices of the same shape but "
                                     "got {} and {}",
                                     x->shape().toString(),
                                     indices->shape().toString())));
  std::optional<std::vector<int64_t>> out = unpoolDims(ctx, in);
  if (!out)
    return;
  int64_t inCount = product(in), outCount = product(*out);
  constexpr int64_t kMaxPairs = int64_t(1) << 24;
  if (outCount > 0 && inCount > kMaxPairs / outCount)
    return void(ctx.fail(fmt::format(
        "MaxUnpool of {} into {} would compare {} x {} index pairs; kiln has "
        "no scatter, so at most {} pairs are supported",
        x->shape().toString(), ir::Shape(x->shape().dtype(), *out).toString(),
        inCount, outCount, kMaxPairs)));
  // source[j] = the last i with I[i] == j, or -1.
  std::vector<int64_t> pairs = {inCount, outCount};
  Value flatIndices = b.convert(b.reshape(indices, {inCount}), DType::S64);
  Value match = b.compare(ir::ComparisonDirection::EQ,
                          b.broadcastInDim(flatIndices, pairs, {0}),
                          iota(b, DType::S64, pairs, 1));
  Value source = b.reduce(
      b.select(match, iota(b, DType::S64, pairs, 0), b.scalar(DType::S64, -1)),
      {0}, ir::ReducerKind::Max);
  Value hit =
      b.compare(ir::ComparisonDirection::GE, source, b.scalar(DType::S64, 0));
  Value values =
      gatherAxis(b, b.reshape(x, {inCount}),
                 b.select(hit, source, b.scalar(DType::S64, 0)), 0, 0, false);
  ctx.setOutput(
      0, b.reshape(b.select(hit, values, b.scalar(x->shape().dtype(), 0.0)),
                   *out));
}

const OnnxOpRule kRules[] = {
    {"Gather", lowerGather},
    {"GatherElements", lowerGatherElements},
    {"GatherND", lowerGatherNd},
    {"ScatterElements", lowerScatterElements},
    {"Scatter", lowerScatterElements},
    {"ScatterND", lowerScatterNd},
    {"OneHot", lowerOneHot},
    {"TopK", lowerTopK},
    {"DepthToSpace", lowerDepthToSpace},
    {"SpaceToDepth", lowerSpaceToDepth},
    {"Trilu", lowerTrilu},
    {"EyeLike", lowerEyeLike},
    {"Resize", lowerResize},
    {"Upsample", lowerResize},
    {"ReverseSequence", lowerReverseSequence},
    {"MaxUnpool", lowerMaxUnpool},
};
} // namespace

std::span<const OnnxOpRule> onnxIndexRules() { return kRules; }

} // namespace kiln::import::onnx
