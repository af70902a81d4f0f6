//===- TfNnOps.cpp - TensorFlow convolution, matmul, pooling, normalization ===//
//
// Convolutions and pools are lowered in channels-last form (the layout the
// code generator prefers); NCHW graphs get transposes around them. The
// fused ops of Grappler and the TF.js converter (_FusedConv2D,
// FusedDepthwiseConv2dNative, _FusedMatMul) become the plain op followed by
// each entry of `fused_ops` in order, applied while the channels are last.
//
//===----------------------------------------------------------------------===//
#include "Common/ConvLowering.h"
#include "Common/MatMulLowering.h"
#include "Common/PoolLowering.h"
#include "TensorFlow/TfOps.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

namespace kiln::import::tf {

using ir::Opcode;

namespace {

// --- Layout ------------------------------------------------------------------

/// Where the spatial dimensions of a `data_format` are, and whether the
/// channels come last.
struct Layout {
  bool channelsLast = true;
  int64_t rank = 4;
  /// Index of spatial dimension i in the data_format's order.
  int64_t spatialDim(int64_t i) const { return channelsLast ? i + 1 : i + 2; }
  int64_t channelDim() const { return channelsLast ? rank - 1 : 1; }
};

struct DataFormat {
  std::string_view name;
  bool channelsLast;
  int64_t rank;
};

constexpr DataFormat kDataFormats[] = {
    {"NHWC", true, 4},  {"NCHW", false, 4},  {"NDHWC", true, 5},
    {"NCDHW", false, 5}, {"NWC", true, 3},   {"NCW", false, 3},
};

std::optional<Layout> readLayout(TfNodeContext &ctx, int64_t rank) {
  std::string format =
      ctx.attrString("data_format", rank == 5 ? "NDHWC" : "NHWC");
  for (const DataFormat &f : kDataFormats)
    if (f.name == format && f.rank == rank)
      return Layout{f.channelsLast, rank};
  ctx.fail(fmt::format("unsupported data_format '{}' for a rank-{} input",
                       format, rank));
  return std::nullopt;
}

/// Reads a per-dimension list attribute (strides, dilations, ksize) in
/// data_format order, defaulting to all ones; every entry must be >= 1.
std::optional<std::vector<int64_t>> dimsAttr(TfNodeContext &ctx,
                                             std::string_view key,
                                             int64_t rank) {
  std::vector<int64_t> values = ctx.attrInts(key);
  if (values.empty())
    return std::vector<int64_t>(size_t(rank), 1);
  if (int64_t(values.size()) != rank) {
    ctx.fail(fmt::format("attribute '{}' has {} entries but the input has "
                         "rank {}",
                         key, values.size(), rank));
    return std::nullopt;
  }
  if (!checkWindowEntries(ctx.builder(), fmt::format("attribute '{}'", key),
                          values))
    return std::nullopt;
  return values;
}

/// Conv/pool window parameters of the spatial dimensions.
std::optional<ConvParams> readConvParams(TfNodeContext &ctx,
                                         const Layout &layout) {
  auto strides = dimsAttr(ctx, "strides", layout.rank);
  auto dilations = dimsAttr(ctx, "dilations", layout.rank);
  std::string padding = ctx.attrString("padding", "VALID");
  std::optional<AutoPad> mode = parseAutoPad(padding);
  if (!strides || !dilations)
    return std::nullopt;
  if (!mode || (padding != "SAME" && padding != "VALID" &&
                padding != "EXPLICIT")) {
    ctx.fail(fmt::format("unsupported padding '{}'", padding));
    return std::nullopt;
  }
  ConvParams params;
  params.autoPad = *mode;
  std::vector<int64_t> explicitPads = ctx.attrInts("explicit_paddings");
  if (*mode == AutoPad::Explicit &&
      int64_t(explicitPads.size()) != 2 * layout.rank) {
    ctx.fail(fmt::format("EXPLICIT padding needs {} explicit_paddings but "
                         "has {}",
                         2 * layout.rank, explicitPads.size()));
    return std::nullopt;
  }
  for (int64_t i = 0; i < layout.rank - 2; ++i) {
    size_t d = size_t(layout.spatialDim(i));
    params.strides.push_back((*strides)[d]);
    params.dilations.push_back((*dilations)[d]);
    if (*mode == AutoPad::Explicit) {
      params.padLow.push_back(explicitPads[2 * d]);
      params.padHigh.push_back(explicitPads[2 * d + 1]);
    }
  }
  return params;
}

Value toChannelsLast(GraphBuilder &b, Value x, const Layout &layout) {
  return layout.channelsLast
             ? x
             : b.transpose(x, channelsLastPermutation(layout.rank));
}

Value fromChannelsLast(GraphBuilder &b, Value x, const Layout &layout) {
  return layout.channelsLast
             ? x
             : b.transpose(x, channelsFirstPermutation(layout.rank));
}

// --- Fused ops -------------------------------------------------------------------

/// Applies `fused_ops` to `y` (channels last), consuming the extra inputs
/// from index `firstArg` on.
Value applyFusedOps(TfNodeContext &ctx, Value y, size_t firstArg,
                    const Layout &layout) {
  GraphBuilder &b = ctx.builder();
  size_t arg = firstArg;
  auto next = [&]() -> Value {
    if (arg >= ctx.inputCount())
      return ctx.fail(fmt::format("fused_ops need more than the node's {} "
                                  "inputs",
                                  ctx.inputCount()));
    return ctx.input(arg++);
  };
  for (const std::string &op : ctx.attrStrings("fused_ops")) {
    if (!y)
      return nullptr;
    int64_t channel = y->shape().rank() - 1;
    if (op == "BiasAdd") {
      y = addChannelBias(b, y, next(), channel);
    } else if (op == "FusedBatchNorm") {
      Value scale = next(), offset = next(), mean = next(), var = next();
      y = batchNormInference(b, y, scale, offset, mean, var,
                             ctx.attrFloat("epsilon", 1e-4), channel);
    } else if (op == "Add") {
      y = b.binary(Opcode::Add, y, toChannelsLast(b, next(), layout));
    } else if (op == "Relu") {
      y = b.binary(Opcode::Maximum, y, b.like(y, 0));
    } else if (op == "Relu6") {
      y = b.binary(Opcode::Minimum, b.binary(Opcode::Maximum, y, b.like(y, 0)),
                   b.like(y, 6));
    } else if (op == "Elu") {
      Value negative = b.binary(Opcode::Subtract, b.unary(Opcode::Exp, y),
                                b.like(y, 1));
      y = b.select(b.compare(ir::ComparisonDirection::GT, y, b.like(y, 0)), y,
                   negative);
    } else if (op == "LeakyRelu") {
      Value scaled = b.binary(Opcode::Multiply, y,
                              b.like(y, ctx.attrFloat("leakyrelu_alpha", 0.2)));
      y = b.select(b.compare(ir::ComparisonDirection::GE, y, b.like(y, 0)), y,
                   scaled);
    } else if (op == "Prelu") {
      Value alpha = b.convert(next(), y->shape().dtype());
      y = b.select(b.compare(ir::ComparisonDirection::GT, y, b.like(y, 0)), y,
                   b.binary(Opcode::Multiply, y, alpha));
    } else if (op == "Sigmoid") {
      y = b.unary(Opcode::Logistic, y);
    } else if (op == "Tanh") {
      y = b.unary(Opcode::Tanh, y);
    } else {
      return ctx.fail(fmt::format("unsupported fused op '{}'", op));
    }
  }
  return y;
}

// --- Convolutions -------------------------------------------------------------------

/// Conv2D/Conv3D/DepthwiseConv2dNative and their fused forms. `depthwise`
/// kernels are [K..., C, M] and become [K..., 1, C * M] with C groups.
void lowerConv(TfNodeContext &ctx, bool depthwise, bool fused) {
  GraphBuilder &b = ctx.builder();
  Value input = ctx.input(0), filter = ctx.input(1);
  if (!input || !filter)
    return;
  std::optional<Layout> layout = readLayout(ctx, input->shape().rank());
  if (!layout)
    return;
  std::optional<ConvParams> params = readConvParams(ctx, *layout);
  if (!params)
    return;
  Value x = toChannelsLast(b, input, *layout);
  int64_t channels = x->shape().dims().back();
  std::vector<int64_t> kdims = filter->shape().dims();
  if (int64_t(kdims.size()) != layout->rank)
    return (void)ctx.fail(fmt::format("filter has rank {} but the input has "
                                      "rank {}",
                                      kdims.size(), layout->rank));
  int64_t kernelIn = kdims[kdims.size() - 2];
  if (depthwise) {
    kdims[kdims.size() - 2] = 1;
    kdims.back() *= kernelIn;
    filter = b.reshape(filter, kdims);
    params->featureGroupCount = channels;
  } else if (kernelIn > 0 && channels % kernelIn == 0) {
    params->featureGroupCount = channels / kernelIn; // grouped Conv2D
  }
  Value y = convChannelsLast(b, x, filter, *params);
  if (fused)
    y = applyFusedOps(ctx, y, 2, *layout);
  ctx.setOutput(0, fromChannelsLast(b, y, *layout));
}

void lowerConv2D(TfNodeContext &ctx) { lowerConv(ctx, false, false); }
void lowerFusedConv2D(TfNodeContext &ctx) { lowerConv(ctx, false, true); }
void lowerDepthwise(TfNodeContext &ctx) { lowerConv(ctx, true, false); }
void lowerFusedDepthwise(TfNodeContext &ctx) { lowerConv(ctx, true, true); }

/// Conv2DBackpropInput / Conv3DBackpropInputV2: input_sizes (constant),
/// filter [K..., Cin, Cout], out_backprop [N, S..., Cout].
void lowerConvBackpropInput(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  std::optional<std::vector<int64_t>> sizes =
      ctx.constantInts(0, "input_sizes");
  Value filter = ctx.input(1), grad = ctx.input(2);
  if (!sizes || !filter || !grad)
    return;
  std::optional<Layout> layout = readLayout(ctx, grad->shape().rank());
  if (!layout)
    return;
  if (int64_t(sizes->size()) != layout->rank)
    return (void)ctx.fail(fmt::format("input_sizes has {} entries but "
                                      "out_backprop has rank {}",
                                      sizes->size(), layout->rank));
  if (filter->shape().rank() != layout->rank)
    return (void)ctx.fail(fmt::format(
        "filter must have rank {} ([spatial..., in channels, out channels]) "
        "but is {}",
        layout->rank, filter->shape().toString()));
  std::optional<ConvParams> params = readConvParams(ctx, *layout);
  if (!params)
    return;
  std::vector<int64_t> spatial;
  for (int64_t i = 0; i < layout->rank - 2; ++i)
    spatial.push_back((*sizes)[size_t(layout->spatialDim(i))]);
  int64_t channels = (*sizes)[size_t(layout->channelDim())];
  int64_t kernelIn = filter->shape().dim(size_t(layout->rank - 2));
  if (kernelIn > 0 && channels % kernelIn == 0)
    params->featureGroupCount = channels / kernelIn;
  Value y = convTransposeChannelsLast(b, toChannelsLast(b, grad, *layout),
                                      filter, *params, spatial);
  ctx.setOutput(0, fromChannelsLast(b, y, *layout));
}

// --- Matrix products ----------------------------------------------------------------

void lowerMatMul(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value y = matMul2d(b, ctx.input(0), ctx.input(1),
                     ctx.attrBool("transpose_a", false),
                     ctx.attrBool("transpose_b", false));
  if (ctx.op() == "_FusedMatMul")
    y = applyFusedOps(ctx, y, 2, Layout{true, 2});
  ctx.setOutput(0, y);
}

/// BatchMatMul (same batch dims), V2 (broadcasting), V3 (+ Tout).
void lowerBatchMatMul(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0), y = ctx.input(1);
  if (ctx.hasAttr("Tout")) {
    std::optional<ir::DType> out = ctx.attrType("Tout");
    if (!out)
      return;
    x = b.convert(x, *out);
    y = b.convert(y, *out);
  }
  ctx.setOutput(0, batchMatMul(b, x, y, ctx.attrBool("adj_x", false),
                               ctx.attrBool("adj_y", false)));
}

void lowerBiasAdd(TfNodeContext &ctx) {
  Value x = ctx.input(0);
  if (!x)
    return;
  int64_t rank = x->shape().rank();
  std::string format = ctx.attrString("data_format", "NHWC");
  bool channelsFirst = format.size() >= 2 && format[1] == 'C';
  int64_t channel = channelsFirst && rank >= 2 ? 1 : rank - 1;
  ctx.setOutput(0, addChannelBias(ctx.builder(), x, ctx.input(1), channel));
}

// --- Pooling ---------------------------------------------------------------------------

/// MaxPool/AvgPool(3D) and MaxPoolV2 (ksize and strides as inputs 1 and 2):
/// the window covers every dimension in data_format order.
void lowerPool(TfNodeContext &ctx, bool average) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  if (!x)
    return;
  int64_t rank = x->shape().rank();
  std::optional<std::vector<int64_t>> ksize, strides;
  if (ctx.op() == "MaxPoolV2") {
    ksize = ctx.constantInts(1, "ksize");
    strides = ctx.constantInts(2, "strides");
  } else {
    ksize = dimsAttr(ctx, "ksize", rank);
    strides = dimsAttr(ctx, "strides", rank);
  }
  if (!ksize || !strides || !readLayout(ctx, rank))
    return;
  if (int64_t(ksize->size()) != rank || int64_t(strides->size()) != rank)
    return (void)ctx.fail(fmt::format("ksize and strides need {} entries",
                                      rank));
  if (!checkWindowEntries(ctx.builder(), "ksize", *ksize) ||
      !checkWindowEntries(ctx.builder(), "strides", *strides))
    return;
  std::string padding = ctx.attrString("padding", "VALID");
  std::vector<int64_t> explicitPads = ctx.attrInts("explicit_paddings");
  PoolWindow w;
  w.sizes = *ksize;
  w.strides = *strides;
  w.dilations.assign(size_t(rank), 1);
  w.extraHigh.assign(size_t(rank), 0);
  for (int64_t d = 0; d < rank; ++d) {
    auto [low, high] = std::pair<int64_t, int64_t>{0, 0};
    if (padding == "SAME")
      std::tie(low, high) = samePadding(x->shape().dim(size_t(d)),
                                        w.sizes[size_t(d)],
                                        w.strides[size_t(d)], 1, true);
    else if (padding == "EXPLICIT" && int64_t(explicitPads.size()) == 2 * rank)
      std::tie(low, high) = std::pair{explicitPads[size_t(2 * d)],
                                      explicitPads[size_t(2 * d + 1)]};
    else if (padding != "VALID")
      return (void)ctx.fail(fmt::format("unsupported padding '{}'", padding));
    w.padLow.push_back(low);
    w.padHigh.push_back(high);
  }
  // TF leaves padding out of the average.
  ctx.setOutput(0, average ? avgPool(b, x, w, false) : maxPool(b, x, w));
}

void lowerMaxPool(TfNodeContext &ctx) { lowerPool(ctx, false); }
void lowerAvgPool(TfNodeContext &ctx) { lowerPool(ctx, true); }

// --- Batch normalization -------------------------------------------------------------

/// FusedBatchNorm/V2/V3. Inference (is_training=false) normalizes with the
/// given statistics and passes them through as outputs 1-4; training mode
/// normalizes with the batch statistics and returns them (variance output
/// with Bessel's correction, as TensorFlow does).
void lowerFusedBatchNorm(TfNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0), scale = ctx.input(1), offset = ctx.input(2);
  Value mean = ctx.input(3), var = ctx.input(4);
  if (!x || !scale || !offset)
    return;
  std::optional<Layout> layout = readLayout(ctx, x->shape().rank());
  if (!layout)
    return;
  double epsilon = ctx.attrFloat("epsilon", 1e-4);
  bool training = ctx.attrBool("is_training", true);
  if (!b.ok()) // an attribute of the wrong type
    return;
  int64_t channel = layout->channelDim();
  if (training) {
    std::vector<int64_t> dims;
    int64_t count = 1;
    for (int64_t d = 0; d < layout->rank; ++d)
      if (d != channel) {
        dims.push_back(d);
        count *= x->shape().dim(size_t(d));
      }
    ir::DType statType = scale->shape().dtype();
    Value xs = b.convert(x, statType);
    if (!xs)
      return;
    mean = b.binary(Opcode::Divide, b.reduce(xs, dims, ir::ReducerKind::Add),
                    b.scalar(statType, double(count)));
    Value centered = b.binary(
        Opcode::Subtract, xs,
        b.broadcastInDim(mean, xs->shape().dims(), {channel}));
    Value sumSq = b.reduce(b.binary(Opcode::Multiply, centered, centered),
                           dims, ir::ReducerKind::Add);
    var = b.binary(Opcode::Divide, sumSq, b.scalar(statType, double(count)));
    Value unbiased = b.binary(Opcode::Divide, sumSq,
                              b.scalar(statType, double(std::max<int64_t>(
                                                     1, count - 1))));
    ctx.setOutput(0, batchNormInference(b, x, scale, offset, mean, var,
                                        epsilon, channel));
    ctx.setOutput(1, mean);
    ctx.setOutput(2, unbiased);
  } else {
    ctx.setOutput(0, batchNormInference(b, x, scale, offset, mean, var,
                                        epsilon, channel));
    ctx.setOutput(1, mean);
    ctx.setOutput(2, var);
  }
  ctx.setOutput(3, mean);
  ctx.setOutput(4, var);
  // reserve_space_3 of V3 is an empty tensor on CPU.
  if (ctx.op() == "FusedBatchNormV3")
    ctx.setOutput(5, b.constant(literalFromDoubles(
                       ir::Shape(scale->shape().dtype(), {0}), {})));
}

const TfOpRule kRules[] = {
    {"Conv2D", lowerConv2D},
    {"Conv3D", lowerConv2D},
    {"_FusedConv2D", lowerFusedConv2D},
    {"DepthwiseConv2dNative", lowerDepthwise},
    {"FusedDepthwiseConv2dNative", lowerFusedDepthwise},
    {"Conv2DBackpropInput", lowerConvBackpropInput},
    {"Conv3DBackpropInputV2", lowerConvBackpropInput},
    {"MatMul", lowerMatMul},
    {"_FusedMatMul", lowerMatMul},
    {"BatchMatMul", lowerBatchMatMul},
    {"BatchMatMulV2", lowerBatchMatMul},
    {"BatchMatMulV3", lowerBatchMatMul},
    {"BiasAdd", lowerBiasAdd},
    {"BiasAddV1", lowerBiasAdd},
    {"MaxPool", lowerMaxPool},
    {"MaxPoolV2", lowerMaxPool},
    {"MaxPool3D", lowerMaxPool},
    {"AvgPool", lowerAvgPool},
    {"AvgPool3D", lowerAvgPool},
    {"FusedBatchNorm", lowerFusedBatchNorm},
    {"FusedBatchNormV2", lowerFusedBatchNorm},
    {"FusedBatchNormV3", lowerFusedBatchNorm},
};
} // namespace

std::span<const TfOpRule> tfNnRules() { return kRules; }

} // namespace kiln::import::tf
