//===- ResizeLowering.cpp - TF and ONNX resize coordinate rules -----------===//
#include "Common/ResizeLowering.h"

#include "Common/ArrayLowering.h"
#include "kiln/Import/LiteralUtil.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace kiln::import {

using ir::DType;
using ir::Opcode;

namespace {
AxisResample nearestPlan(int64_t inSize, int64_t outSize) {
  AxisResample plan;
  plan.inSize = inSize;
  plan.outSize = outSize;
  plan.taps.assign(1, std::vector<int64_t>(size_t(outSize)));
  plan.weights.assign(1, std::vector<double>(size_t(outSize), 1.0));
  return plan;
}

AxisResample linearPlan(int64_t inSize, int64_t outSize) {
  AxisResample plan;
  plan.inSize = inSize;
  plan.outSize = outSize;
  plan.taps.assign(2, std::vector<int64_t>(size_t(outSize)));
  plan.weights.assign(2, std::vector<double>(size_t(outSize)));
  return plan;
}

// ONNX's source coordinate of output position x for one axis. As in ONNX's
// reference (and its test data) the resized length is in * scale, which is
// fractional when scales rather than sizes are given.
double onnxSourceCoordinate(double x, int64_t inSize, double scale,
                            double roiStart, double roiEnd,
                            const std::string &mode, bool &known) {
  known = true;
  double outLength = double(inSize) * scale;
  if (mode == "half_pixel")
    return (x + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel")
    return outLength > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners")
    return outLength == 1 ? 0.0 : x * double(inSize - 1) / (outLength - 1);
  if (mode == "asymmetric")
    return x / scale;
  if (mode == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  if (mode == "tf_crop_and_resize")
    return outLength > 1 ? roiStart * double(inSize - 1) +
                               x * (roiEnd - roiStart) * double(inSize - 1) /
                                   (outLength - 1)
                         : 0.5 * (roiStart + roiEnd) * double(inSize - 1);
  known = false;
  return 0;
}

// ONNX's nearest rounding; nullopt for an unknown mode.
std::optional<int64_t> onnxNearest(double x, const std::string &mode) {
  double floor = std::floor(x);
  bool tie = x - floor == 0.5;
  if (mode == "round_prefer_floor")
    return int64_t(tie ? floor : std::round(x));
  if (mode == "round_prefer_ceil")
    return int64_t(tie ? floor + 1 : std::round(x));
  if (mode == "floor")
    return int64_t(floor);
  if (mode == "ceil")
    return int64_t(std::ceil(x));
  return std::nullopt;
}

std::array<double, 4> cubicCoefficients(double ratio, double a) {
  double r1 = ratio + 1, s = 1 - ratio, s1 = s + 1;
  return {((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a,
          ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
          ((a + 2) * s - (a + 3)) * s * s + 1,
          ((a * s1 - 5 * a) * s1 + 8 * a) * s1 - 4 * a};
}
} // namespace

AxisResample tfResizeAxis(int64_t inSize, int64_t outSize, bool bilinear,
                          bool alignCorners, bool halfPixelCenters) {
  // TF.js CPU kernels (ResizeBilinear.ts / ResizeNearestNeighbor.ts).
  bool corners = alignCorners && outSize > 1;
  double ratio = double(corners ? inSize - 1 : inSize) /
                 double(corners ? outSize - 1 : outSize);
  if (!bilinear) {
    AxisResample plan = nearestPlan(inSize, outSize);
    for (int64_t o = 0; o < outSize; ++o) {
      double source = halfPixelCenters ? ratio * (double(o) + 0.5)
                                       : ratio * double(o);
      // Math.round is floor(x + 0.5); sources are never negative here.
      int64_t nearest = int64_t(alignCorners ? std::floor(source + 0.5)
                                             : std::floor(source));
      nearest = std::min(inSize - 1, nearest);
      plan.taps[0][size_t(o)] = halfPixelCenters ? std::max<int64_t>(0, nearest)
                                                 : nearest;
    }
    return plan;
  }
  AxisResample plan = linearPlan(inSize, outSize);
  plan.lerp = true;
  for (int64_t o = 0; o < outSize; ++o) {
    double source = halfPixelCenters ? ratio * (double(o) + 0.5) - 0.5
                                     : ratio * double(o);
    double low = std::max(0.0, std::floor(source));
    plan.taps[0][size_t(o)] = int64_t(low);
    plan.taps[1][size_t(o)] =
        std::min(inSize - 1, int64_t(std::ceil(source)));
    plan.weights[0][size_t(o)] = 1 - (source - low);
    plan.weights[1][size_t(o)] = source - low;
  }
  return plan;
}

AxisResample onnxResizeAxis(int64_t inSize, int64_t outSize, double scale,
                            double roiStart, double roiEnd,
                            const OnnxResizeOptions &options) {
  bool crop = options.coordinateMode == "tf_crop_and_resize";
  bool cubic = options.mode == "cubic", linear = options.mode == "linear";
  AxisResample plan = nearestPlan(inSize, outSize);
  if (linear)
    plan = linearPlan(inSize, outSize);
  if (cubic) {
    plan.taps.assign(4, std::vector<int64_t>(size_t(outSize)));
    plan.weights.assign(4, std::vector<double>(size_t(outSize)));
  }
  if (!cubic && !linear && options.mode != "nearest")
    return AxisResample{};
  plan.outside.assign(size_t(outSize), false);
  plan.extrapolation = options.extrapolationValue;
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i, 0, inSize - 1);
  };
  for (int64_t o = 0; o < outSize; ++o) {
    bool known = true;
    double x = onnxSourceCoordinate(double(o), inSize, scale, roiStart, roiEnd,
                                    options.coordinateMode, known);
    if (!known)
      return AxisResample{};
    size_t i = size_t(o);
    plan.outside[i] = crop && (x < 0 || x > double(inSize - 1));
    if (!linear && !cubic) {
      std::optional<int64_t> nearest = onnxNearest(x, options.nearestMode);
      if (!nearest)
        return AxisResample{};
      plan.taps[0][i] = clampIndex(*nearest);
      continue;
    }
    if (linear) {
      if (!crop) // ONNX Runtime clamps; the reference pads with the edge
        x = std::clamp(x, 0.0, double(inSize - 1));
      double low = std::floor(x);
      plan.taps[0][i] = clampIndex(int64_t(low));
      plan.taps[1][i] = clampIndex(int64_t(low) + 1);
      plan.weights[0][i] = 1 - (x - low);
      plan.weights[1][i] = x - low;
      continue;
    }
    double low = std::floor(x);
    std::array<double, 4> c = cubicCoefficients(x - low, options.cubicCoeffA);
    double sum = 0;
    for (size_t t = 0; t < 4; ++t) {
      int64_t tap = int64_t(low) - 1 + int64_t(t);
      if (options.excludeOutside && (tap < 0 || tap >= inSize))
        c[t] = 0;
      sum += c[t];
      plan.taps[t][i] = clampIndex(tap);
    }
    for (size_t t = 0; t < 4; ++t)
      plan.weights[t][i] = options.excludeOutside && sum != 0 ? c[t] / sum : c[t];
  }
  return plan;
}

bool checkResizeTables(GraphBuilder &b, int64_t outSize) {
  if (outSize < 0) {
    b.fail(fmt::format("resize to a negative length {}", outSize));
    return false;
  }
  // Up to four taps, each an index and a weight per output position.
  constexpr int64_t kTableBytesPerPosition = 4 * (8 + 8);
  return b.hostTableFits(
      fmt::format("a resized axis of {} output positions", outSize), outSize,
      kTableBytesPerPosition);
}

Value resampleAxis(GraphBuilder &b, Value x, int64_t axis,
                   const AxisResample &plan) {
  if (!x)
    return nullptr;
  bool identity = plan.taps.size() == 1 && plan.inSize == plan.outSize;
  for (int64_t o = 0; identity && o < plan.outSize; ++o)
    identity = plan.taps[0][size_t(o)] == o;
  bool anyOutside = std::find(plan.outside.begin(), plan.outside.end(), true) !=
                    plan.outside.end();
  if (identity && !anyOutside)
    return x;
  DType type = x->shape().dtype();
  if (plan.taps.size() > 1 && !ir::isFloat(type))
    return b.fail(fmt::format("linear and cubic resize need a floating-point "
                              "input, not {}",
                              ir::dtypeName(type)));
  std::vector<int64_t> weightDims(size_t(x->shape().rank()), 1);
  weightDims[size_t(axis)] = plan.outSize;
  auto weight = [&](size_t t) {
    return b.constant(literalFromDoubles(ir::Shape(type, weightDims),
                                         plan.weights[t]));
  };
  auto tap = [&](size_t t) {
    return gatherAxis(b, x, b.ints(DType::S32, plan.taps[t]), axis, 0, false);
  };
  Value result = tap(0);
  if (plan.lerp) {
    Value high = tap(1);
    result = b.binary(Opcode::Add, result,
                      b.binary(Opcode::Multiply,
                               b.binary(Opcode::Subtract, high, result),
                               weight(1)));
  } else if (plan.taps.size() > 1) {
    result = b.binary(Opcode::Multiply, result, weight(0));
    for (size_t t = 1; t < plan.taps.size(); ++t)
      result = b.binary(Opcode::Add, result,
                        b.binary(Opcode::Multiply, tap(t), weight(t)));
  }
  if (!anyOutside)
    return result;
  std::vector<int64_t> mask(plan.outside.begin(), plan.outside.end());
  Value where = b.constant(literalFromInts(ir::Shape(DType::Pred, weightDims), mask));
  return b.select(where, b.like(result, plan.extrapolation), result);
}

} // namespace kiln::import
