//===- ConvLowering.cpp - Convolutions and per-channel affine ops for importers ===//
#include "Common/ConvLowering.h"

#include "kiln/Support/CheckedArithmetic.h"

#include <fmt/format.h>

namespace kiln::import {

using ir::Opcode;

namespace {

struct AutoPadName {
  std::string_view text;
  AutoPad mode;
};

// TF and ONNX spellings side by side; TF's SAME pads like ONNX's SAME_UPPER.
constexpr AutoPadName kAutoPadNames[] = {
    {"SAME", AutoPad::SameUpper},       {"VALID", AutoPad::Valid},
    {"EXPLICIT", AutoPad::Explicit},    {"NOTSET", AutoPad::Explicit},
    {"SAME_UPPER", AutoPad::SameUpper}, {"SAME_LOWER", AutoPad::SameLower},
    {"", AutoPad::Explicit},
};

/// dim_labels b01f_01io->b01f for `spatial` spatial dimensions.
ir::ConvolutionDimensionNumbers channelsLastDims(int64_t spatial) {
  ir::ConvolutionDimensionNumbers dims;
  dims.inputBatch = dims.outputBatch = 0;
  dims.inputFeature = dims.outputFeature = spatial + 1;
  dims.kernelInputFeature = spatial;
  dims.kernelOutputFeature = spatial + 1;
  for (int64_t i = 0; i < spatial; ++i) {
    dims.inputSpatial.push_back(i + 1);
    dims.outputSpatial.push_back(i + 1);
    dims.kernelSpatial.push_back(i);
  }
  return dims;
}

/// Checks ranks and returns the number of spatial dimensions, or -1.
int64_t spatialRank(GraphBuilder &b, Value input, Value kernel,
                    std::string_view what) {
  if (!b.ok() || !input || !kernel) {
    b.fail("internal error: null operand");
    return -1;
  }
  int64_t rank = input->shape().rank();
  if (rank < 3 || kernel->shape().rank() != rank) {
    b.fail(fmt::format("{} needs an input of rank >= 3 and a kernel of the "
                       "same rank but got ranks {} and {}",
                       what, rank, kernel->shape().rank()));
    return -1;
  }
  return rank - 2;
}

} // namespace

std::optional<AutoPad> parseAutoPad(const std::string &text) {
  for (const AutoPadName &name : kAutoPadNames)
    if (name.text == text)
      return name.mode;
  return std::nullopt;
}

bool checkWindowEntries(GraphBuilder &b, std::string_view what,
                        const std::vector<int64_t> &values) {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] < 1) {
      b.fail(fmt::format("{} entry {} is {}; it must be at least 1", what, i,
                         values[i]));
      return false;
    }
  return true;
}

std::pair<int64_t, int64_t> samePadding(int64_t inputSize, int64_t kernelSize,
                                        int64_t stride, int64_t dilation,
                                        bool upper) {
  // Window sizes, strides and dilations come from the model: compute in
  // 128 bits, and leave a stride below 1 or a total past int64 to shape
  // inference, which rejects both with an error.
  using Wide = __int128;
  if (stride < 1)
    return {0, 0};
  Wide effective = Wide(kernelSize - 1) * dilation + 1;
  Wide output = (Wide(inputSize) + stride - 1) / stride;
  Wide wide = std::max<Wide>(0, (output - 1) * stride + effective - inputSize);
  int64_t total = saturateToInt64(wide);
  int64_t small = total / 2;
  return upper ? std::pair{small, total - small}
               : std::pair{total - small, small};
}

std::pair<int64_t, int64_t> resolvePadding(const ConvParams &params, size_t i,
                                           int64_t inputSize,
                                           int64_t kernelSize) {
  switch (params.autoPad) {
  case AutoPad::Valid:
    return {0, 0};
  case AutoPad::SameUpper:
  case AutoPad::SameLower:
    return samePadding(inputSize, kernelSize, params.stride(i),
                       params.dilation(i),
                       params.autoPad == AutoPad::SameUpper);
  case AutoPad::Explicit:
    break;
  }
  return {i < params.padLow.size() ? params.padLow[i] : 0,
          i < params.padHigh.size() ? params.padHigh[i] : 0};
}

Value convChannelsLast(GraphBuilder &b, Value input, Value kernel,
                       const ConvParams &params) {
  int64_t spatial = spatialRank(b, input, kernel, "convolution");
  if (spatial < 0)
    return nullptr;
  ir::Attributes attrs;
  attrs.conv = channelsLastDims(spatial);
  attrs.featureGroupCount = params.featureGroupCount;
  for (int64_t i = 0; i < spatial; ++i) {
    ir::WindowDim dim;
    dim.size = kernel->shape().dim(size_t(i));
    dim.stride = params.stride(size_t(i));
    dim.windowDilation = params.dilation(size_t(i));
    std::tie(dim.padLow, dim.padHigh) = resolvePadding(
        params, size_t(i), input->shape().dim(size_t(i + 1)), dim.size);
    attrs.window.push_back(dim);
  }
  return b.add(Opcode::Convolution, {input, b.convert(kernel, input->shape().dtype())},
               std::move(attrs));
}

std::vector<int64_t> channelsLastPermutation(int64_t rank) {
  std::vector<int64_t> perm = {0};
  for (int64_t i = 2; i < rank; ++i)
    perm.push_back(i);
  perm.push_back(1);
  return perm;
}

std::vector<int64_t> channelsFirstPermutation(int64_t rank) {
  std::vector<int64_t> perm = {0, rank - 1};
  for (int64_t i = 1; i + 1 < rank; ++i)
    perm.push_back(i);
  return perm;
}

Value convChannelsFirst(GraphBuilder &b, Value input, Value kernel, Value bias,
                        const ConvParams &params) {
  int64_t spatial = spatialRank(b, input, kernel, "convolution");
  if (spatial < 0)
    return nullptr;
  int64_t rank = spatial + 2;
  // OI01 -> 01IO: spatial dims first, then input and output features.
  std::vector<int64_t> kernelPerm;
  for (int64_t i = 2; i < rank; ++i)
    kernelPerm.push_back(i);
  kernelPerm.push_back(1);
  kernelPerm.push_back(0);
  Value x = b.transpose(input, channelsLastPermutation(rank));
  Value y = convChannelsLast(b, x, b.transpose(kernel, kernelPerm), params);
  if (bias)
    y = addChannelBias(b, y, bias, rank - 1);
  return b.transpose(y, channelsFirstPermutation(rank));
}

Value convTransposeChannelsLast(GraphBuilder &b, Value input,
                                Value forwardKernel, const ConvParams &params,
                                const std::vector<int64_t> &outputSizes) {
  int64_t spatial = spatialRank(b, input, forwardKernel, "transposed convolution");
  if (spatial < 0)
    return nullptr;
  if (int64_t(outputSizes.size()) != spatial)
    return b.fail(fmt::format("transposed convolution needs {} output sizes "
                              "but got {}",
                              spatial, outputSizes.size()));
  const std::vector<int64_t> &kdims = forwardKernel->shape().dims();
  int64_t groups = params.featureGroupCount;
  int64_t outPerGroup = kdims[size_t(spatial)], in = kdims[size_t(spatial + 1)];
  if (groups < 1 || in % groups != 0)
    return b.fail(fmt::format("kernel input channels {} are not divisible by "
                              "group {}",
                              in, groups));
  // The gradient convolves with the spatially flipped kernel whose feature
  // roles are swapped; per group: [K..., Cout/g, g, Cin/g] ->
  // [K..., Cin/g, g * Cout/g].
  std::vector<int64_t> spatialDims, grouped(kdims.begin(), kdims.end() - 1),
      perm;
  for (int64_t i = 0; i < spatial; ++i) {
    spatialDims.push_back(i);
    perm.push_back(i);
  }
  grouped.push_back(groups);
  grouped.push_back(in / groups);
  perm.insert(perm.end(), {spatial + 2, spatial + 1, spatial});
  std::vector<int64_t> finalDims(kdims.begin(), kdims.end() - 2);
  finalDims.push_back(in / groups);
  finalDims.push_back(groups * outPerGroup);
  Value kernel = b.reverse(forwardKernel, spatialDims);
  kernel = b.reshape(b.transpose(b.reshape(kernel, grouped), perm), finalDims);

  ir::Attributes attrs;
  attrs.conv = channelsLastDims(spatial);
  attrs.featureGroupCount = groups;
  for (int64_t i = 0; i < spatial; ++i) {
    ir::WindowDim dim;
    dim.size = kdims[size_t(i)];
    dim.baseDilation = params.stride(size_t(i));
    dim.windowDilation = params.dilation(size_t(i));
    int64_t effective = (dim.size - 1) * dim.windowDilation;
    int64_t forwardLow =
        resolvePadding(params, size_t(i), outputSizes[size_t(i)], dim.size)
            .first;
    int64_t dilatedIn =
        (input->shape().dim(size_t(i + 1)) - 1) * dim.baseDilation + 1;
    dim.padLow = effective - forwardLow;
    dim.padHigh = outputSizes[size_t(i)] - dilatedIn - dim.padLow + effective;
    attrs.window.push_back(dim);
  }
  return b.add(Opcode::Convolution,
               {input, b.convert(kernel, input->shape().dtype())},
               std::move(attrs));
}

Value addChannelBias(GraphBuilder &b, Value x, Value bias, int64_t channelDim) {
  if (!x || !bias)
    return b.fail("internal error: null operand");
  if (channelDim < 0 || channelDim >= x->shape().rank())
    return b.fail(fmt::format("a bias needs an input with a channel "
                              "dimension, but the input is {}",
                              x->shape().toString()));
  if (bias->shape().rank() != 1 ||
      bias->shape().dim(0) != x->shape().dim(size_t(channelDim)))
    return b.fail(fmt::format("bias of shape {} does not match {} channels",
                              bias->shape().toString(),
                              x->shape().dim(size_t(channelDim))));
  Value wide = b.broadcastInDim(b.convert(bias, x->shape().dtype()),
                                x->shape().dims(), {channelDim});
  return b.binary(Opcode::Add, x, wide);
}

namespace {
/// Broadcasts a per-channel operand ([C], or x's dims without the batch) to
/// x's dimensions.
Value perChannel(GraphBuilder &b, Value v, Value x, int64_t channelDim) {
  if (!v)
    return nullptr;
  std::vector<int64_t> mapping;
  if (v->shape().rank() <= 1)
    mapping = {channelDim};
  else
    for (int64_t i = 1; i <= v->shape().rank(); ++i)
      mapping.push_back(i);
  if (v->shape().rank() == 0)
    return b.broadcastInDim(v, x->shape().dims(), {});
  return b.broadcastInDim(v, x->shape().dims(), mapping);
}

/// Fails unless `v`, the batch normalization operand `what`, is one value
/// per channel of x ([C], or a scalar for all) or, ONNX's old spatial=0
/// form, shaped like x without the batch dimension.
bool checkPerChannel(GraphBuilder &b, std::string_view what, Value v, Value x,
                     int64_t channelDim) {
  const ir::Shape &shape = v->shape();
  int64_t channels = x->shape().dim(size_t(channelDim));
  if (shape.rank() == 0 || (shape.rank() == 1 && shape.dim(0) == channels))
    return true;
  const std::vector<int64_t> &xDims = x->shape().dims();
  if (shape.rank() > 1 &&
      shape.dims() == std::vector<int64_t>(xDims.begin() + 1, xDims.end()))
    return true;
  b.fail(fmt::format("batch normalization {} is {} but the input {} has {} "
                     "channels (dimension {}); it must be [{}]",
                     what, shape.toString(), x->shape().toString(), channels,
                     channelDim, channels));
  return false;
}
} // namespace

bool checkBatchNormOperands(GraphBuilder &b, Value x, int64_t channelDim,
                            Value scale, Value offset, Value mean,
                            Value variance) {
  if (!x || !scale || !offset || !mean || !variance) {
    b.fail("internal error: null operand");
    return false;
  }
  if (channelDim < 0 || channelDim >= x->shape().rank()) {
    b.fail(fmt::format("batch normalization needs an input with a channel "
                       "dimension, but the input is {}",
                       x->shape().toString()));
    return false;
  }
  return checkPerChannel(b, "scale", scale, x, channelDim) &&
         checkPerChannel(b, "offset", offset, x, channelDim) &&
         checkPerChannel(b, "mean", mean, x, channelDim) &&
         checkPerChannel(b, "variance", variance, x, channelDim);
}

Value batchNormInference(GraphBuilder &b, Value x, Value scale, Value offset,
                         Value mean, Value variance, double epsilon,
                         int64_t channelDim) {
  if (!checkBatchNormOperands(b, x, channelDim, scale, offset, mean, variance))
    return nullptr;
  ir::DType statType = scale->shape().dtype();
  offset = b.convert(offset, statType);
  mean = b.convert(mean, statType);
  variance = b.convert(variance, statType);
  Value inv = b.unary(Opcode::Rsqrt, b.binary(Opcode::Add, variance,
                                              b.scalar(statType, epsilon)));
  Value a = b.binary(Opcode::Multiply, scale, inv);
  Value c = b.binary(Opcode::Subtract, offset, b.binary(Opcode::Multiply, mean, a));
  ir::DType type = x->shape().dtype();
  Value scaled = b.binary(Opcode::Multiply, x,
                          perChannel(b, b.convert(a, type), x, channelDim));
  return b.binary(Opcode::Add, scaled,
                  perChannel(b, b.convert(c, type), x, channelDim));
}

} // namespace kiln::import
