//===- OnnxNnOps.cpp - ONNX convolution, gemm, pooling, batch normalization ===//
//
// ONNX tensors are channels-first (NCHW); convolutions and pools are
// lowered in channels-last form between plain `transpose` instructions so
// that the code generator gets the layout it prefers and the algebraic
// simplifier can cancel the transposes between consecutive ops. Weights
// are transposed at import (the transposes fold).
//
//===----------------------------------------------------------------------===//
#include "Common/ConvLowering.h"
#include "Common/LinearAlgebraLowering.h"
#include "Common/MatMulLowering.h"
#include "Common/PoolLowering.h"
#include "Onnx/OnnxOps.h"
#include "kiln/Support/CheckedArithmetic.h"

#include <cmath>
#include <fmt/format.h>

namespace kiln::import::onnx {

using ir::Opcode;

namespace {

/// Reads auto_pad, strides, dilations and pads for `spatial` dimensions.
std::optional<ConvParams> readWindowAttrs(OnnxNodeContext &ctx,
                                          int64_t spatial) {
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  std::optional<AutoPad> mode = parseAutoPad(autoPad);
  if (!mode || autoPad == "SAME" || autoPad == "EXPLICIT") {
    ctx.fail(fmt::format("unsupported auto_pad '{}'", autoPad));
    return std::nullopt;
  }
  ConvParams params;
  params.autoPad = *mode;
  params.strides = ctx.attrInts("strides");
  params.dilations = ctx.attrInts("dilations");
  std::vector<int64_t> pads = ctx.attrInts("pads");
  if (!pads.empty() && int64_t(pads.size()) != 2 * spatial) {
    ctx.fail(fmt::format("pads has {} entries but {} are needed", pads.size(),
                         2 * spatial));
    return std::nullopt;
  }
  if ((!params.strides.empty() && int64_t(params.strides.size()) != spatial) ||
      (!params.dilations.empty() &&
       int64_t(params.dilations.size()) != spatial)) {
    ctx.fail(fmt::format("strides and dilations need {} entries", spatial));
    return std::nullopt;
  }
  if (!checkWindowEntries(ctx.builder(), "attribute 'strides'",
                          params.strides) ||
      !checkWindowEntries(ctx.builder(), "attribute 'dilations'",
                          params.dilations))
    return std::nullopt;
  if (!pads.empty()) {
    params.padLow.assign(pads.begin(), pads.begin() + spatial);
    params.padHigh.assign(pads.begin() + spatial, pads.end());
  }
  return params;
}

/// Input 0 with rank >= 3, or nullptr after recording an error.
Value spatialInput(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  if (x && x->shape().rank() < 3)
    return ctx.fail(fmt::format("expected an input of rank >= 3 (N, C, "
                                "spatial...) but got {}",
                                x->shape().toString()));
  return x;
}

// --- Convolution ---------------------------------------------------------------

void lowerConv(OnnxNodeContext &ctx) {
  Value x = spatialInput(ctx), w = ctx.input(1);
  if (!x || !w)
    return;
  std::optional<ConvParams> params =
      readWindowAttrs(ctx, x->shape().rank() - 2);
  if (!params)
    return;
  params->featureGroupCount = ctx.attrInt("group", 1);
  Value bias = ctx.hasInput(2) ? ctx.input(2) : nullptr;
  ctx.setOutput(0, convChannelsFirst(ctx.builder(), x, w, bias, *params));
}

/// ConvTranspose: W is [Cin, Cout / group, K...]. The padding and output
/// size follow the operator's definition (and ONNX's reference): explicit
/// pads, or SAME_* splitting the total padding that output_shape (default
/// input * stride) implies.
void lowerConvTranspose(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = spatialInput(ctx), w = ctx.input(1);
  if (!x || !w)
    return;
  int64_t rank = x->shape().rank(), spatial = rank - 2;
  if (w->shape().rank() != rank)
    return (void)ctx.fail(fmt::format(
        "input 1 (W) must have rank {} like input 0 (X): [C_in, "
        "C_out/group, K...], but is {}",
        rank, w->shape().toString()));
  std::optional<ConvParams> params = readWindowAttrs(ctx, spatial);
  if (!params)
    return;
  params->featureGroupCount = ctx.attrInt("group", 1);
  std::vector<int64_t> outputPadding = ctx.attrInts("output_padding");
  std::vector<int64_t> outputShape = ctx.attrInts("output_shape");
  if (int64_t(outputShape.size()) == rank) // some exporters give N and C too
    outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
  if (!outputShape.empty() && int64_t(outputShape.size()) != spatial)
    return (void)ctx.fail(fmt::format("output_shape has {} entries but {} "
                                      "are needed",
                                      outputShape.size(), spatial));
  ConvParams resolved = *params;
  resolved.autoPad = AutoPad::Explicit;
  resolved.padLow.assign(size_t(spatial), 0);
  resolved.padHigh.assign(size_t(spatial), 0);
  std::vector<int64_t> outSizes;
  for (int64_t i = 0; i < spatial; ++i) {
    size_t si = size_t(i);
    int64_t in = x->shape().dim(size_t(i + 2));
    int64_t k = w->shape().dim(size_t(i + 2));
    int64_t s = params->stride(si), d = params->dilation(si);
    int64_t op = si < outputPadding.size() ? outputPadding[si] : 0;
    int64_t natural = s * (in - 1) + op + (k - 1) * d + 1;
    bool same = params->autoPad == AutoPad::SameUpper ||
                params->autoPad == AutoPad::SameLower;
    if (same) {
      int64_t out = outputShape.empty() ? in * s : outputShape[si];
      int64_t total = natural - out;
      int64_t half = floorDiv(total, 2);
      bool upper = params->autoPad == AutoPad::SameUpper;
      resolved.padLow[si] = upper ? half : total - half;
      resolved.padHigh[si] = upper ? total - half : half;
      outSizes.push_back(out);
      continue;
    }
    if (params->autoPad == AutoPad::Explicit && si < params->padLow.size()) {
      resolved.padLow[si] = params->padLow[si];
      resolved.padHigh[si] = params->padHigh[si];
    }
    outSizes.push_back(outputShape.empty()
                           ? natural - resolved.padLow[si] - resolved.padHigh[si]
                           : outputShape[si]);
  }
  // [Cin, Cout/g, K...] -> the forward kernel [K..., Cout/g, Cin].
  std::vector<int64_t> perm;
  for (int64_t i = 2; i < rank; ++i)
    perm.push_back(i);
  perm.insert(perm.end(), {1, 0});
  Value y = convTransposeChannelsLast(
      b, b.transpose(x, channelsLastPermutation(rank)), b.transpose(w, perm),
      resolved, outSizes);
  if (ctx.hasInput(2))
    y = addChannelBias(b, y, ctx.input(2), rank - 1);
  ctx.setOutput(0, b.transpose(y, channelsFirstPermutation(rank)));
}

// --- Matrix products ------------------------------------------------------------

/// alpha * A' B' + beta * C with C broadcast to [M, N].
void lowerGemm(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value y = matMul2d(b, ctx.input(0), ctx.input(1),
                     ctx.attrInt("transA", 0) != 0,
                     ctx.attrInt("transB", 0) != 0);
  if (!y)
    return;
  double alpha = ctx.attrFloat("alpha", 1.0), beta = ctx.attrFloat("beta", 1.0);
  if (alpha != 1.0)
    y = b.binary(Opcode::Multiply, y, b.like(y, alpha));
  if (ctx.hasInput(2) && beta != 0.0) {
    Value c = ctx.input(2);
    if (beta != 1.0)
      c = b.binary(Opcode::Multiply, c, b.like(c, beta));
    y = b.binary(Opcode::Add, y, c);
  }
  ctx.setOutput(0, y);
}

void lowerMatMul(OnnxNodeContext &ctx) {
  ctx.setOutput(0, batchMatMul(ctx.builder(), ctx.input(0), ctx.input(1)));
}

/// Det (opset 11): the determinant of each [M, M] matrix of [..., M, M].
void lowerDet(OnnxNodeContext &ctx) {
  ctx.setOutput(0, determinant(ctx.builder(), ctx.input(0)));
}

/// Input `i` minus its zero point (input `zeroIndex`, scalar or per row /
/// per channel along `axis`), widened to s32 as ONNX's integer ops do.
Value minusZeroPoint(OnnxNodeContext &ctx, size_t i, size_t zeroIndex,
                     int64_t axis) {
  GraphBuilder &b = ctx.builder();
  Value x = b.convert(ctx.input(i), ir::DType::S32);
  if (!x || !ctx.hasInput(zeroIndex))
    return x;
  Value zero = b.convert(ctx.input(zeroIndex), ir::DType::S32);
  if (zero && zero->shape().numElements() > 1)
    zero = b.broadcastInDim(b.reshape(zero, {zero->shape().numElements()}),
                            x->shape().dims(), {axis});
  return b.binary(Opcode::Subtract, x, zero);
}

/// MatMulInteger: (A - a_zero_point) x (B - b_zero_point) in s32; a vector
/// a_zero_point is per row of A, b_zero_point per column of B.
void lowerMatMulInteger(OnnxNodeContext &ctx) {
  Value a = ctx.input(0), bm = ctx.input(1);
  if (!a || !bm)
    return;
  Value lhs = minusZeroPoint(ctx, 0, 2, std::max<int64_t>(0, a->shape().rank() - 2));
  Value rhs = minusZeroPoint(ctx, 1, 3, bm->shape().rank() - 1);
  ctx.setOutput(0, batchMatMul(ctx.builder(), lhs, rhs));
}

/// ConvInteger: Conv on (x - x_zero_point) and (w - w_zero_point, per output
/// channel when a vector) in s32.
void lowerConvInteger(OnnxNodeContext &ctx) {
  Value x = spatialInput(ctx), w = ctx.input(1);
  if (!x || !w)
    return;
  std::optional<ConvParams> params =
      readWindowAttrs(ctx, x->shape().rank() - 2);
  if (!params)
    return;
  params->featureGroupCount = ctx.attrInt("group", 1);
  ctx.setOutput(0, convChannelsFirst(ctx.builder(), minusZeroPoint(ctx, 0, 2, 1),
                                     minusZeroPoint(ctx, 1, 3, 0), nullptr,
                                     *params));
}

/// Scale input `i` as f32 broadcast to `dims`: a scalar, or a vector along
/// `axis`.
Value scaleAlong(OnnxNodeContext &ctx, size_t i,
                 const std::vector<int64_t> &dims, int64_t axis) {
  GraphBuilder &b = ctx.builder();
  Value scale = b.convert(ctx.input(i), ir::DType::F32);
  if (!scale)
    return nullptr;
  if (scale->shape().numElements() == 1)
    return b.broadcastTo(b.reshape(scale, {}), dims);
  return b.broadcastInDim(b.reshape(scale, {scale->shape().numElements()}),
                          dims, {axis});
}

/// saturate(round_half_even(y) + zero) converted to the integer `type`:
/// ONNX's quantization rule. `y` and `zero` are f32 of the same shape.
Value saturatingQuantize(GraphBuilder &b, Value y, Value zero, ir::DType type) {
  y = b.binary(Opcode::Add, b.unary(Opcode::RoundNearestEven, y), zero);
  if (!y)
    return nullptr;
  bool isSigned = ir::isSignedInt(type);
  double bits = double(ir::byteSize(type) * 8);
  double lo = isSigned ? -std::pow(2.0, bits - 1) : 0;
  double hi = isSigned ? std::pow(2.0, bits - 1) - 1 : std::pow(2.0, bits) - 1;
  y = b.binary(Opcode::Minimum, b.binary(Opcode::Maximum, y, b.like(y, lo)),
               b.like(y, hi));
  return b.convert(y, type);
}

/// saturate(round_half_even(acc * aScale * bScale / yScale) + y_zero_point)
/// in the dtype of y_zero_point (ONNX's QLinear* output rule).
Value requantize(OnnxNodeContext &ctx, Value acc, Value aScale, Value bScale,
                 size_t yScale, size_t yZero) {
  GraphBuilder &b = ctx.builder();
  if (!acc)
    return nullptr;
  const std::vector<int64_t> &dims = acc->shape().dims();
  Value y = b.binary(Opcode::Multiply, b.convert(acc, ir::DType::F32),
                     b.binary(Opcode::Multiply, aScale, bScale));
  y = b.binary(Opcode::Divide, y, scaleAlong(ctx, yScale, dims, 0));
  Value zero = ctx.input(yZero);
  if (!zero)
    return nullptr;
  return saturatingQuantize(b, y, scaleAlong(ctx, yZero, dims, 0),
                            zero->shape().dtype());
}

// --- Quantization
// -----------------------------------------------------------------

/// The axis that a 1-D scale (input 1) runs along: the `axis` attribute
/// from opset 13 (default 1). A one-element scale is per tensor, whatever
/// `axis` says (0 is returned and unused).
std::optional<int64_t> quantizationAxis(OnnxNodeContext &ctx, Value x) {
  if (ctx.input(1)->shape().numElements() == 1)
    return 0;
  int64_t rank = x->shape().rank();
  int64_t axis = ctx.opset() >= 13 ? ctx.attrInt("axis", 1) : 0;
  std::optional<int64_t> normalized = normalizeAxis(axis, rank);
  if (!normalized)
    ctx.fail(fmt::format("axis {} is out of range for rank {}", axis, rank));
  return normalized;
}

/// Checks that the scale (input 1) and zero point (input 2, if present) are
/// scalars or 1-D along `axis` (opset 13's per-axis form).
bool checkQuantParams(OnnxNodeContext &ctx, Value x, int64_t axis) {
  for (size_t i : {size_t(1), size_t(2)}) {
    if (i == 2 && !ctx.hasInput(2))
      continue;
    Value param = ctx.input(i);
    if (!param)
      return false; // an unknown input name: input() recorded the error
    const ir::Shape &shape = param->shape();
    int64_t axisSize = x->shape().rank() > 0 ? x->shape().dim(size_t(axis)) : 1;
    bool scalar = shape.numElements() == 1 && shape.rank() <= 1;
    bool perAxis =
        ctx.opset() >= 13 && shape.rank() == 1 && shape.dim(0) == axisSize;
    if (!scalar && !perAxis) {
      ctx.fail(fmt::format(
          "input {} ({}) must be a scalar{} but is {}", i,
          i == 1 ? "scale" : "zero point",
          ctx.opset() >= 13
              ? fmt::format(" or 1-D of size {} (axis {})", axisSize, axis)
              : "",
          shape.toString()));
      return false;
    }
  }
  return true;
}

/// Quantize/DequantizeLinear's common checks: x (input 0) and scale
/// (input 1) present, scale and zero point laid out along one axis. That
/// axis, or nullopt after recording why not.
std::optional<int64_t> quantizationOperands(OnnxNodeContext &ctx) {
  if (!ctx.requireInputs(2))
    return std::nullopt;
  Value x = ctx.input(0);
  std::optional<int64_t> axis = quantizationAxis(ctx, x);
  if (!axis || !checkQuantParams(ctx, x, *axis))
    return std::nullopt;
  return axis;
}

/// QuantizeLinear (opsets 10, 13): y = saturate(round_half_even(x / scale)
/// + zero_point) in zero_point's type (uint8 when absent).
void lowerQuantizeLinear(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  std::optional<int64_t> axis = quantizationOperands(ctx);
  if (!axis)
    return;
  Value x = ctx.input(0);
  const std::vector<int64_t> &dims = x->shape().dims();
  ir::DType type =
      ctx.hasInput(2) ? ctx.input(2)->shape().dtype() : ir::DType::U8;
  if (!ir::isInteger(type) || ir::byteSize(type) != 1)
    return void(ctx.fail(fmt::format("input 2 (zero point) must be int8 or "
                                     "uint8 but is {}",
                                     ir::dtypeName(type))));
  Value y = b.binary(Opcode::Divide, b.convert(x, ir::DType::F32),
                     scaleAlong(ctx, 1, dims, *axis));
  Value zero = ctx.hasInput(2) ? scaleAlong(ctx, 2, dims, *axis)
                               : b.scalar(ir::DType::F32, 0.0);
  ctx.setOutput(0, saturatingQuantize(b, y, b.broadcastTo(zero, dims), type));
}

/// DequantizeLinear (opsets 10, 13): y = (x - zero_point) * scale in f32.
void lowerDequantizeLinear(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  std::optional<int64_t> axis = quantizationOperands(ctx);
  if (!axis)
    return;
  Value x = ctx.input(0);
  const std::vector<int64_t> &dims = x->shape().dims();
  Value y = b.convert(x, ir::DType::F32);
  if (ctx.hasInput(2))
    y = b.binary(Opcode::Subtract, y, scaleAlong(ctx, 2, dims, *axis));
  ctx.setOutput(0,
                b.binary(Opcode::Multiply, y, scaleAlong(ctx, 1, dims, *axis)));
}

/// DynamicQuantizeLinear (opset 11): uint8 quantization of x over the range
/// [min(0, min x), max(0, max x)]: scale = range / 255, zero point =
/// saturate(round_half_even(-min / scale)), y as QuantizeLinear. An
/// all-zero x gives scale 0 and undefined y, as the formula does.
void lowerDynamicQuantizeLinear(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  if (!x)
    return;
  if (x->shape().dtype() != ir::DType::F32)
    return void(ctx.fail(fmt::format("input 0 must be float32 but is {}",
                                     x->shape().toString())));
  std::vector<int64_t> all;
  for (int64_t i = 0; i < x->shape().rank(); ++i)
    all.push_back(i);
  Value zeroF = b.scalar(ir::DType::F32, 0.0);
  Value lo =
      b.binary(Opcode::Minimum, b.reduce(x, all, ir::ReducerKind::Min), zeroF);
  Value hi =
      b.binary(Opcode::Maximum, b.reduce(x, all, ir::ReducerKind::Max), zeroF);
  Value scale = b.binary(Opcode::Divide, b.binary(Opcode::Subtract, hi, lo),
                         b.scalar(ir::DType::F32, 255.0));
  Value zero = saturatingQuantize(
      b, b.binary(Opcode::Divide, b.unary(Opcode::Negate, lo), scale), zeroF,
      ir::DType::U8);
  const std::vector<int64_t> &dims = x->shape().dims();
  Value y = saturatingQuantize(
      b, b.binary(Opcode::Divide, x, b.broadcastTo(scale, dims)),
      b.broadcastTo(b.convert(zero, ir::DType::F32), dims), ir::DType::U8);
  ctx.setOutput(0, y);
  if (ctx.outputCount() > 1 && ctx.wantsOutput(1))
    ctx.setOutput(1, scale);
  if (ctx.outputCount() > 2 && ctx.wantsOutput(2))
    ctx.setOutput(2, zero);
}

/// QLinearMatMul: inputs a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp.
void lowerQLinearMatMul(OnnxNodeContext &ctx) {
  Value a = ctx.input(0), bm = ctx.input(3);
  if (!a || !bm)
    return;
  Value lhs = minusZeroPoint(ctx, 0, 2, std::max<int64_t>(0, a->shape().rank() - 2));
  Value rhs = minusZeroPoint(ctx, 3, 5, bm->shape().rank() - 1);
  Value acc = batchMatMul(ctx.builder(), lhs, rhs);
  if (!acc)
    return;
  const std::vector<int64_t> &dims = acc->shape().dims();
  int64_t rank = int64_t(dims.size());
  ctx.setOutput(0, requantize(ctx, acc,
                              scaleAlong(ctx, 1, dims, std::max<int64_t>(0, rank - 2)),
                              scaleAlong(ctx, 4, dims, rank - 1), 6, 7));
}

/// QLinearConv: inputs x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp,
/// optional int32 bias B (in units of x_scale * w_scale).
void lowerQLinearConv(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = spatialInput(ctx), w = ctx.input(3);
  if (!x || !w)
    return;
  std::optional<ConvParams> params =
      readWindowAttrs(ctx, x->shape().rank() - 2);
  if (!params)
    return;
  params->featureGroupCount = ctx.attrInt("group", 1);
  Value bias = ctx.hasInput(8) ? b.convert(ctx.input(8), ir::DType::S32) : nullptr;
  Value acc = convChannelsFirst(b, minusZeroPoint(ctx, 0, 2, 1),
                                minusZeroPoint(ctx, 3, 5, 0), bias, *params);
  if (!acc)
    return;
  const std::vector<int64_t> &dims = acc->shape().dims();
  ctx.setOutput(0, requantize(ctx, acc, scaleAlong(ctx, 1, dims, 1),
                              scaleAlong(ctx, 4, dims, 1), 6, 7));
}

// --- Pooling ----------------------------------------------------------------------

enum class PoolKind { Max, Average, Lp };

void lowerPool(OnnxNodeContext &ctx, PoolKind kind) {
  GraphBuilder &b = ctx.builder();
  Value x = spatialInput(ctx);
  if (!x)
    return;
  int64_t rank = x->shape().rank();
  std::optional<ConvParams> params = readWindowAttrs(ctx, rank - 2);
  if (!params)
    return;
  std::vector<int64_t> kernel = ctx.attrInts("kernel_shape");
  if (int64_t(kernel.size()) != rank - 2)
    return (void)ctx.fail(fmt::format("kernel_shape needs {} entries but "
                                      "has {}",
                                      rank - 2, kernel.size()));
  if (!checkWindowEntries(b, "attribute 'kernel_shape'", kernel))
    return;
  bool ceilMode = ctx.attrInt("ceil_mode", 0) != 0;
  if (kind == PoolKind::Max && ctx.outputCount() > 1 && ctx.wantsOutput(1)) {
    // Indices are flat channels-first offsets, so this form stays NCHW.
    PoolWindow w = spatialPoolWindow(x->shape().dims(), false, kernel,
                                     *params, ceilMode);
    auto [y, indices] = maxPoolWithIndices(
        b, x, w, ctx.attrInt("storage_order", 0) != 0);
    ctx.setOutput(0, y);
    ctx.setOutput(1, indices);
    return;
  }
  Value xl = b.transpose(x, channelsLastPermutation(rank));
  PoolWindow w =
      spatialPoolWindow(xl->shape().dims(), true, kernel, *params, ceilMode);
  Value y;
  if (kind == PoolKind::Max)
    y = maxPool(b, xl, w);
  else if (kind == PoolKind::Average)
    y = avgPool(b, xl, w, ctx.attrInt("count_include_pad", 0) != 0);
  else
    y = lpPool(b, xl, w, double(ctx.attrInt("p", 2)));
  ctx.setOutput(0, b.transpose(y, channelsFirstPermutation(rank)));
}

void lowerMaxPool(OnnxNodeContext &ctx) { lowerPool(ctx, PoolKind::Max); }
void lowerAveragePool(OnnxNodeContext &ctx) {
  lowerPool(ctx, PoolKind::Average);
}
void lowerLpPool(OnnxNodeContext &ctx) { lowerPool(ctx, PoolKind::Lp); }

/// Global pools reduce every spatial dimension to 1.
void lowerGlobalPool(OnnxNodeContext &ctx, PoolKind kind) {
  GraphBuilder &b = ctx.builder();
  Value x = spatialInput(ctx);
  if (!x)
    return;
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (int64_t d = 2; d < x->shape().rank(); ++d) {
    dims.push_back(d);
    count *= x->shape().dim(size_t(d));
  }
  if (kind == PoolKind::Max)
    return ctx.setOutput(0, b.reduce(x, dims, ir::ReducerKind::Max, true));
  if (kind == PoolKind::Average)
    return ctx.setOutput(
        0, b.binary(Opcode::Divide, b.reduce(x, dims, ir::ReducerKind::Add, true),
                    b.like(x, double(count))));
  double p = double(ctx.attrInt("p", 2));
  Value powered = b.binary(Opcode::Power, b.unary(Opcode::Abs, x), b.like(x, p));
  Value sum = b.reduce(powered, dims, ir::ReducerKind::Add, true);
  ctx.setOutput(0, b.binary(Opcode::Power, sum, b.like(x, 1.0 / p)));
}

void lowerGlobalMaxPool(OnnxNodeContext &ctx) {
  lowerGlobalPool(ctx, PoolKind::Max);
}
void lowerGlobalAveragePool(OnnxNodeContext &ctx) {
  lowerGlobalPool(ctx, PoolKind::Average);
}
void lowerGlobalLpPool(OnnxNodeContext &ctx) {
  lowerGlobalPool(ctx, PoolKind::Lp);
}

// --- Normalization -----------------------------------------------------------------

/// Opsets before 9 have `spatial` (0: statistics per activation, shaped like
/// x without the batch). training_mode=1 (opset 14+) normalizes with the
/// batch statistics and returns the running statistics updated with
/// `momentum`, as ONNX defines them (population variance).
void lowerBatchNormalization(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0);
  if (!x)
    return;
  Value mean = ctx.input(3), var = ctx.input(4);
  int64_t channel = x->shape().rank() >= 2 ? 1 : 0;
  // Up front: training mode reduces along `channel` and blends the running
  // statistics before batchNormInference would check them.
  if (!checkBatchNormOperands(b, x, channel, ctx.input(1), ctx.input(2), mean,
                              var))
    return;
  double epsilon = ctx.attrFloat("epsilon", 1e-5);
  if (ctx.attrInt("training_mode", 0) == 0) {
    ctx.setOutput(0, batchNormInference(b, x, ctx.input(1), ctx.input(2),
                                        mean, var, epsilon, channel));
    return;
  }
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (int64_t d = 0; d < x->shape().rank(); ++d)
    if (d != channel) {
      dims.push_back(d);
      count *= x->shape().dim(size_t(d));
    }
  Value n = b.like(x, double(count));
  Value batchMean =
      b.binary(Opcode::Divide, b.reduce(x, dims, ir::ReducerKind::Add), n);
  Value centered = b.binary(
      Opcode::Subtract, x,
      b.broadcastInDim(batchMean, x->shape().dims(), {channel}));
  Value batchVar = b.binary(
      Opcode::Divide,
      b.reduce(b.binary(Opcode::Multiply, centered, centered), dims,
               ir::ReducerKind::Add),
      n);
  ctx.setOutput(0, batchNormInference(b, x, ctx.input(1), ctx.input(2),
                                      batchMean, batchVar, epsilon, channel));
  double momentum = ctx.attrFloat("momentum", 0.9);
  auto running = [&](Value old, Value current) {
    return b.binary(Opcode::Add,
                    b.binary(Opcode::Multiply, old, b.like(old, momentum)),
                    b.binary(Opcode::Multiply, current,
                             b.like(current, 1 - momentum)));
  };
  if (ctx.outputCount() > 1 && ctx.wantsOutput(1))
    ctx.setOutput(1, running(mean, batchMean));
  if (ctx.outputCount() > 2 && ctx.wantsOutput(2))
    ctx.setOutput(2, running(var, batchVar));
}

const OnnxOpRule kRules[] = {
    {"", nullptr}, // keeps the table non-empty; skipped below
    {"Conv", lowerConv},
    {"ConvTranspose", lowerConvTranspose},
    {"ConvInteger", lowerConvInteger},
    {"QLinearConv", lowerQLinearConv},
    {"Gemm", lowerGemm},
    {"MatMul", lowerMatMul},
    {"Det", lowerDet},
    {"MatMulInteger", lowerMatMulInteger},
    {"QLinearMatMul", lowerQLinearMatMul},
    {"QuantizeLinear", lowerQuantizeLinear},
    {"DequantizeLinear", lowerDequantizeLinear},
    {"DynamicQuantizeLinear", lowerDynamicQuantizeLinear},
    {"MaxPool", lowerMaxPool},
    {"AveragePool", lowerAveragePool},
    {"LpPool", lowerLpPool},
    {"GlobalMaxPool", lowerGlobalMaxPool},
    {"GlobalAveragePool", lowerGlobalAveragePool},
    {"GlobalLpPool", lowerGlobalLpPool},
    {"BatchNormalization", lowerBatchNormalization},
};
} // namespace

std::span<const OnnxOpRule> onnxNnRules() {
  return std::span<const OnnxOpRule>(kRules).subspan(1);
}

} // namespace kiln::import::onnx
