//===- ConvLowering.h - Convolutions and per-channel affine ops for importers -*- C++ -*-===//
//
// TensorFlow and ONNX spell convolutions differently (NHWC/HWIO vs NCHW/OIHW,
// SAME vs SAME_UPPER/SAME_LOWER, depthwise vs group, Conv2DBackpropInput vs
// ConvTranspose); both lower through these helpers to one HLO form: a
// channels-last `convolution` with dim_labels b01f_01io->b01f, which is the
// layout the code generator prefers. Channels-first callers get plain
// `transpose` instructions around the convolution (the kernel transpose folds
// at import when the weights are constant), so the algebraic simplifier can
// cancel them between consecutive ops.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_CONVLOWERING_H
#define KILN_LIB_IMPORT_COMMON_CONVLOWERING_H

#include "kiln/Import/GraphBuilder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::import {

/// How the padding of a window is chosen.
enum class AutoPad {
  Explicit,  ///< padLow/padHigh as given (ONNX NOTSET, TF EXPLICIT)
  Valid,     ///< no padding
  SameUpper, ///< output = ceil(in / stride), odd padding at the end (TF SAME)
  SameLower, ///< like SameUpper, odd padding at the start
};

/// Parses TF's "SAME"/"VALID"/"EXPLICIT" or ONNX's "NOTSET"/"SAME_UPPER"/
/// "SAME_LOWER"/"VALID"; nullopt for anything else.
std::optional<AutoPad> parseAutoPad(const std::string &text);

/// Fails on `b` unless every window size, stride or dilation in `values`
/// is at least 1 (a stride of 0 divides by zero in the padding rules);
/// `what` names the list in the error ("attribute 'strides'").
bool checkWindowEntries(GraphBuilder &b, std::string_view what,
                        const std::vector<int64_t> &values);

/// {low, high} padding that makes the output ceil(in / stride) long.
std::pair<int64_t, int64_t> samePadding(int64_t inputSize, int64_t kernelSize,
                                        int64_t stride, int64_t dilation,
                                        bool upper);

/// Window parameters per spatial dimension. Empty strides/dilations/pads mean
/// 1/1/0 everywhere.
struct ConvParams {
  std::vector<int64_t> strides, dilations;
  AutoPad autoPad = AutoPad::Explicit;
  std::vector<int64_t> padLow, padHigh; ///< only read for AutoPad::Explicit
  int64_t featureGroupCount = 1;

  int64_t stride(size_t i) const { return i < strides.size() ? strides[i] : 1; }
  int64_t dilation(size_t i) const {
    return i < dilations.size() ? dilations[i] : 1;
  }
};

/// The resolved {low, high} padding of spatial dimension `i` (SAME computed
/// from the input and kernel sizes).
std::pair<int64_t, int64_t> resolvePadding(const ConvParams &params, size_t i,
                                           int64_t inputSize,
                                           int64_t kernelSize);

/// Convolution of a channels-last input [N, S..., C] with a kernel
/// [K..., C / groups, O]; result [N, S'..., O].
Value convChannelsLast(GraphBuilder &b, Value input, Value kernel,
                       const ConvParams &params);

/// Convolution of a channels-first input [N, C, S...] with a kernel
/// [O, C / groups, K...] (ONNX); `bias` [O] may be nullptr. Transposes to
/// channels-last around the convolution; result [N, O, S'...].
Value convChannelsFirst(GraphBuilder &b, Value input, Value kernel, Value bias,
                        const ConvParams &params);

/// Transposed convolution (the input gradient of a convolution) on a
/// channels-last input [N, S..., Cin]. `forwardKernel` is the kernel of the
/// forward convolution, [K..., Cout / groups, Cin] (TF's Conv2DBackpropInput
/// filter, or ONNX's ConvTranspose weight transposed). `params` holds the
/// forward convolution's strides, dilations, groups and padding (SAME is
/// resolved against `outputSizes`); `outputSizes` are the result's spatial
/// sizes. Result [N, outputSizes..., Cout].
Value convTransposeChannelsLast(GraphBuilder &b, Value input,
                                Value forwardKernel, const ConvParams &params,
                                const std::vector<int64_t> &outputSizes);

/// Permutation that moves dimension 1 (channels) of a rank-`rank` tensor last.
std::vector<int64_t> channelsLastPermutation(int64_t rank);
/// The inverse: moves the last dimension to position 1.
std::vector<int64_t> channelsFirstPermutation(int64_t rank);

/// x + bias, `bias` [C] broadcast along dimension `channelDim` of x.
Value addChannelBias(GraphBuilder &b, Value x, Value bias, int64_t channelDim);

/// Fails (false, with the builder's error set) unless `channelDim` is a
/// dimension of x and each statistic is per channel: [C], a scalar, or x's
/// dimensions without the batch (ONNX's old spatial=0 form). The error
/// names the operand (scale, offset, mean, variance), its shape and C.
bool checkBatchNormOperands(GraphBuilder &b, Value x, int64_t channelDim,
                            Value scale, Value offset, Value mean,
                            Value variance);

/// Inference-mode batch normalization along `channelDim` (operands checked
/// with checkBatchNormOperands):
/// (x - mean) * rsqrt(variance + epsilon) * scale + offset, computed as
/// x * a + c with a = scale * rsqrt(variance + epsilon) and
/// c = offset - mean * a, so a and c fold to constants when the statistics
/// are constants. The per-channel operands are [C] (or, for ONNX's old
/// spatial=0 form, x's dimensions without the batch).
Value batchNormInference(GraphBuilder &b, Value x, Value scale, Value offset,
                         Value mean, Value variance, double epsilon,
                         int64_t channelDim);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_CONVLOWERING_H
