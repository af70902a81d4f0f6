//===- OnnxSignalOps.cpp - ONNX window functions
//---------------------------===//
//
// HannWindow, HammingWindow and BlackmanWindow (opset 17) are generalized
// cosine windows of a compile-time `size`:
//   w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N),  n = 0 .. size-1,
// with N = size (periodic = 1, the default) or size - 1 (symmetric). They
// are computed in double at import and stored as a constant of
// `output_datatype` (default FLOAT), converted as a C++ cast would.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"
#include "Onnx/OnnxTensor.h"

#include "kiln/Import/LiteralUtil.h"

#include <cmath>
#include <fmt/format.h>
#include <numbers>

namespace kiln::import::onnx {

namespace {
struct CosineWindow {
  double a0, a1, a2;
};

/// The spec's coefficients: Hamming's a0 is 25/46 and a1 = 1 - a0.
constexpr CosineWindow kHann{0.5, 0.5, 0.0};
constexpr CosineWindow kHamming{25.0 / 46.0, 21.0 / 46.0, 0.0};
constexpr CosineWindow kBlackman{0.42, 0.5, 0.08};

template <const CosineWindow &Window> void lowerWindow(OnnxNodeContext &ctx) {
  std::optional<std::vector<int64_t>> size = ctx.constantInts(0, "size");
  if (!size)
    return;
  if (size->size() != 1 || (*size)[0] < 0)
    return void(ctx.fail(fmt::format(
        "input 0 (size) must be one "
        "non-negative integer but has {} "
        "values{}",
        size->size(), size->size() == 1 ? " and is negative" : "")));
  int64_t count = (*size)[0];
  int64_t outputType = ctx.attrInt("output_datatype", 1);
  Expected<ir::DType> dtype = dtypeFromOnnx(int32_t(outputType));
  if (!dtype)
    return void(ctx.fail(fmt::format("attribute output_datatype {}: {}",
                                     outputType, dtype.errorMessage())));
  // A symmetric window of size 1 divides 0 by 0 (NaN), as the formula says.
  double period = double(ctx.attrInt("periodic", 1) != 0 ? count : count - 1);
  std::vector<double> values;
  for (int64_t n = 0; n < count; ++n) {
    double angle = 2.0 * std::numbers::pi * double(n) / period;
    values.push_back(Window.a0 - Window.a1 * std::cos(angle) +
                     Window.a2 * std::cos(2.0 * angle));
  }
  ctx.setOutput(0, ctx.builder().constant(
                       literalFromDoubles(ir::Shape(*dtype, {count}), values)));
}

const OnnxOpRule kSignalRules[] = {
    {"HannWindow", &lowerWindow<kHann>},
    {"HammingWindow", &lowerWindow<kHamming>},
    {"BlackmanWindow", &lowerWindow<kBlackman>},
};
} // namespace

std::span<const OnnxOpRule> onnxSignalRules() { return kSignalRules; }

} // namespace kiln::import::onnx
