//===- OnnxSamplingOps.cpp - ONNX GridSample and RoiAlign -----------------===//
//
// GridSample (opset 16) reads X [N, C, H, W] at the run-time locations of
// grid [N, Ho, Wo, 2] (x then y, normalized to [-1, 1]). The definition
// defers to PyTorch's grid_sample, whose rules this follows:
//  - unnormalize: align_corners ? (g + 1) / 2 * (size - 1)
//                               : ((g + 1) * size - 1) / 2;
//  - bilinear and nearest pad the coordinate first (border: clip to
//    [0, size - 1]; reflection: reflect about the borders -- the pixel
//    centres with align_corners, else the pixel edges -- then clip), and
//    taps outside the image read 0 (padding zeros);
//  - nearest rounds half to even;
//  - bicubic takes the 4x4 taps around floor(coordinate) with the cubic
//    convolution kernel (A = -0.75) and pads each tap's index instead.
// Every tap is a gather of X (as [N, H, W, C]) at clamped indices, masked
// to 0 when the tap is out of bounds, weighted, and summed.
//
// RoiAlign averages bilinear samples on a fixed grid in each output bin of
// each roi; since bilinear weights factor into a row and a column weight,
// it is two matrix products with per-roi interpolation matrices.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"

#include "Common/ArrayLowering.h"
#include "Common/ElementwiseLowering.h"
#include "Common/MatMulLowering.h"

#include <fmt/format.h>

namespace kiln::import::onnx {

namespace {
using ir::ComparisonDirection;
using ir::DType;
using ir::Opcode;

enum class Padding { Zeros, Border, Reflection };

struct Sampler {
  GraphBuilder &b;
  DType type; // the computation type (f32 for f16/bf16)
  bool alignCorners;
  Padding padding;

  Value c(double v) { return b.scalar(type, v); }
  Value add(Value x, Value y) { return b.binary(Opcode::Add, x, y); }
  Value sub(Value x, Value y) { return b.binary(Opcode::Subtract, x, y); }
  Value mul(Value x, Value y) { return b.binary(Opcode::Multiply, x, y); }
  Value div(Value x, Value y) { return b.binary(Opcode::Divide, x, y); }

  /// Normalized [-1, 1] grid values -> pixel coordinates along `size`.
  Value unnormalize(Value g, int64_t size) {
    double n = double(size);
    if (alignCorners)
      return mul(add(g, c(1)), c((n - 1) / 2));
    return div(sub(mul(add(g, c(1)), c(n)), c(1)), c(2));
  }

  Value clip(Value x, int64_t size) {
    return b.binary(Opcode::Minimum, b.binary(Opcode::Maximum, x, c(0)),
                    c(double(size - 1)));
  }

  /// Reflects x into [low, high] (given doubled, as PyTorch does, so that
  /// half-pixel borders stay exact).
  Value reflect(Value x, int64_t twiceLow, int64_t twiceHigh) {
    if (twiceLow == twiceHigh)
      return b.broadcastTo(c(0), dimsOf(x));
    double low = double(twiceLow) / 2, span = double(twiceHigh - twiceLow) / 2;
    Value d = b.unary(Opcode::Abs, sub(x, c(low)));
    Value extra = b.binary(Opcode::Remainder, d, c(span));
    Value flips = b.unary(Opcode::Floor, div(d, c(span)));
    Value even = b.compare(ComparisonDirection::EQ,
                           b.binary(Opcode::Remainder, flips, c(2)), c(0));
    return b.select(even, add(extra, c(low)), add(sub(c(span), extra), c(low)));
  }

  /// The padding mode applied to a coordinate (or tap index) along `size`.
  Value pad(Value x, int64_t size) {
    switch (padding) {
    case Padding::Zeros:
      return x;
    case Padding::Border:
      return clip(x, size);
    case Padding::Reflection:
      return clip(alignCorners ? reflect(x, 0, 2 * (size - 1))
                               : reflect(x, -1, 2 * size - 1),
                  size);
    }
    return x;
  }
};

/// One tap along one axis: an integral-valued float index and its weight.
struct Tap {
  Value index;
  Value weight;
};

/// PyTorch's cubic convolution weights for the 4 taps at floor(x) - 1 ..
/// floor(x) + 2, with t = x - floor(x).
std::vector<Value> cubicWeights(Sampler &s, Value t) {
  constexpr double A = -0.75;
  auto near = [&](Value v) { // |v| <= 1: ((A + 2) v - (A + 3)) v^2 + 1
    return s.add(s.mul(s.sub(s.mul(s.c(A + 2), v), s.c(A + 3)), s.mul(v, v)),
                 s.c(1));
  };
  auto far = [&](Value v) { // 1 < |v| < 2: ((A v - 5A) v + 8A) v - 4A
    return s.sub(
        s.mul(s.add(s.mul(s.sub(s.mul(s.c(A), v), s.c(5 * A)), v), s.c(8 * A)),
              v),
        s.c(4 * A));
  };
  return {far(s.add(t, s.c(1))), near(t), near(s.sub(s.c(1), t)),
          far(s.sub(s.c(2), t))};
}

/// The taps along one axis for coordinate `x` (already unnormalized).
std::vector<Tap> axisTaps(Sampler &s, Value x, int64_t size,
                          const std::string &mode) {
  GraphBuilder &b = s.b;
  if (mode == "nearest")
    return {{b.unary(Opcode::RoundNearestEven, s.pad(x, size)), nullptr}};
  if (mode == "bilinear") {
    Value padded = s.pad(x, size);
    Value x0 = b.unary(Opcode::Floor, padded);
    Value w1 = s.sub(padded, x0);
    return {{x0, s.sub(s.c(1), w1)}, {s.add(x0, s.c(1)), w1}};
  }
  Value x0 = b.unary(Opcode::Floor, x);
  std::vector<Value> weights = cubicWeights(s, s.sub(x, x0));
  std::vector<Tap> taps;
  for (int k = 0; k < 4; ++k)
    taps.push_back({s.pad(s.add(x0, s.c(k - 1)), size), weights[size_t(k)]});
  return taps;
}

/// A float index as s64 clamped into [0, size), and whether it was inside.
std::pair<Value, Value> boundedIndex(Sampler &s, Value index, int64_t size) {
  GraphBuilder &b = s.b;
  Value inside = b.binary(
      Opcode::And, b.compare(ComparisonDirection::GE, index, s.c(0)),
      b.compare(ComparisonDirection::LE, index, s.c(double(size - 1))));
  Value clamped = b.convert(s.clip(index, size), DType::S64);
  return {clamped, inside};
}

void lowerGridSample(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0), grid = ctx.input(1);
  if (!x || !grid)
    return;
  std::vector<int64_t> xd = dimsOf(x), gd = dimsOf(grid);
  if (xd.size() != 4 || gd.size() != 4 || gd[0] != xd[0] || gd[3] != 2 ||
      !ir::isFloat(x->shape().dtype()) || !ir::isFloat(grid->shape().dtype()))
    return void(ctx.fail(fmt::format(
        "expected a floating-point input [N, C, H, W] and grid [N, Ho, Wo, "
        "2] but got {} and {}",
        x->shape().toString(), grid->shape().toString())));
  std::string mode = ctx.attrString("mode", "bilinear");
  std::string paddingName = ctx.attrString("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return void(ctx.fail(fmt::format("attribute mode is '{}' but must be one "
                                     "of 'bilinear', 'nearest', 'bicubic'",
                                     mode)));
  Padding padding = Padding::Zeros;
  if (paddingName == "border")
    padding = Padding::Border;
  else if (paddingName == "reflection")
    padding = Padding::Reflection;
  else if (paddingName != "zeros")
    return void(ctx.fail(fmt::format("attribute padding_mode is '{}' but must "
                                     "be one of 'zeros', 'border', "
                                     "'reflection'",
                                     paddingName)));
  DType dtype = x->shape().dtype(), wide = computeType(dtype);
  Sampler s{b, wide, ctx.attrInt("align_corners", 0) != 0, padding};
  int64_t n = xd[0], channels = xd[1], height = xd[2], width = xd[3];
  int64_t outH = gd[1], outW = gd[2];
  std::vector<int64_t> points = {n, outH, outW};
  Value g = b.convert(grid, wide);
  auto component = [&](int64_t i) {
    return b.reshape(b.sliceDim(g, 3, i, i + 1), points);
  };
  std::vector<Tap> xTaps =
      axisTaps(s, s.unnormalize(component(0), width), width, mode);
  std::vector<Tap> yTaps =
      axisTaps(s, s.unnormalize(component(1), height), height, mode);
  Value image = b.transpose(b.convert(x, wide), {0, 2, 3, 1}); // N, H, W, C
  std::vector<int64_t> column = {n, outH, outW, 1};
  std::vector<int64_t> outDims = {n, outH, outW, channels};
  Value sum = nullptr;
  for (const Tap &ty : yTaps)
    for (const Tap &tx : xTaps) {
      auto [yi, yInside] = boundedIndex(s, ty.index, height);
      auto [xi, xInside] = boundedIndex(s, tx.index, width);
      Value at =
          b.concatenate({b.reshape(yi, column), b.reshape(xi, column)}, 3);
      Value term = gatherNd(b, image, at, /*batchDims=*/1, false);
      if (ty.weight) // nearest has none
        term = s.mul(term, b.broadcastInDim(s.mul(ty.weight, tx.weight),
                                            outDims, {0, 1, 2}));
      // Selected rather than weighted by 0, so inf and NaN outside stay out.
      Value inside = b.binary(Opcode::And, yInside, xInside);
      term =
          b.select(b.broadcastInDim(inside, outDims, {0, 1, 2}), term, s.c(0));
      sum = sum ? s.add(sum, term) : term;
    }
  ctx.setOutput(0, b.convert(b.transpose(sum, {0, 3, 1, 2}), dtype));
}

// --- RoiAlign
// -------------------------------------------------------------------

/// One axis of RoiAlign's sampling for every roi: the [R, P, size] matrix
/// whose row (r, p) holds the bilinear weights of the grid samples of bin p
/// of roi r along this axis (summed over the `grid` samples of the bin).
/// Per ONNX Runtime (and ONNX's reference): a sample outside [-1, size]
/// contributes nothing; one below 0 reads at 0; at or past size - 1 it
/// reads the last element only.
Value axisWeights(GraphBuilder &b, DType type, Value start, Value length,
                  int64_t bins, int64_t grid, int64_t size) {
  auto c = [&](double v) { return b.scalar(type, v); };
  int64_t rois = dimsOf(start)[0];
  std::vector<int64_t> samples = {rois, bins, grid};
  Value binSize = b.binary(Opcode::Divide, length, c(double(bins)));
  Value bin = b.broadcastInDim(binSize, samples, {0});
  // start + p * bin + (i + 0.5) * bin / grid
  Value p = b.convert(iota(b, DType::S64, samples, 1), type);
  Value i = b.convert(iota(b, DType::S64, samples, 2), type);
  Value at =
      b.binary(Opcode::Add,
               b.binary(Opcode::Add, b.broadcastInDim(start, samples, {0}),
                        b.binary(Opcode::Multiply, p, bin)),
               b.binary(Opcode::Divide,
                        b.binary(Opcode::Multiply,
                                 b.binary(Opcode::Add, i, c(0.5)), bin),
                        c(double(grid))));
  Value valid =
      b.binary(Opcode::And, b.compare(ComparisonDirection::GE, at, c(-1.0)),
               b.compare(ComparisonDirection::LE, at, c(double(size))));
  Value clamped = b.binary(Opcode::Maximum, at, c(0.0));
  Value low = b.unary(Opcode::Floor, clamped);
  Value last = c(double(size - 1));
  Value atEnd = b.compare(ComparisonDirection::GE, low, last);
  low = b.select(atEnd, last, low);
  Value high = b.select(atEnd, last, b.binary(Opcode::Add, low, c(1.0)));
  Value frac =
      b.select(atEnd, c(0.0), b.binary(Opcode::Subtract, clamped, low));
  std::vector<int64_t> wide = {rois, bins, grid, size};
  Value column = b.convert(iota(b, DType::S64, wide, 3), type);
  auto spread = [&](Value index, Value weight) { // onto the size axis
    Value hit =
        b.binary(Opcode::And,
                 b.compare(ComparisonDirection::EQ,
                           b.broadcastInDim(index, wide, {0, 1, 2}), column),
                 b.broadcastInDim(valid, wide, {0, 1, 2}));
    return b.select(hit, b.broadcastInDim(weight, wide, {0, 1, 2}), c(0.0));
  };
  Value weights = b.binary(
      Opcode::Add, spread(low, b.binary(Opcode::Subtract, c(1.0), frac)),
      spread(high, frac));
  return b.reduce(weights, {2}, ir::ReducerKind::Add);
}

/// RoiAlign (opsets 10, 16), mode avg: Y[r, c] = Wy[r] X[batch[r], c] Wx[r]^T
/// / samples, where W* are the per-axis sampling weights (bilinear
/// interpolation is separable, so the average of the samples is two
/// matrix products).
void lowerRoiAlign(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value x = ctx.input(0), rois = ctx.input(1), batch = ctx.input(2);
  if (!x || !rois || !batch)
    return;
  std::vector<int64_t> xd = dimsOf(x), rd = dimsOf(rois);
  if (xd.size() != 4 || rd.size() != 2 || rd[1] != 4 ||
      dimsOf(batch) != std::vector<int64_t>{rd[0]} ||
      !ir::isFloat(x->shape().dtype()) ||
      rois->shape().dtype() != x->shape().dtype())
    return void(ctx.fail(fmt::format(
        "expected X [N, C, H, W], rois [R, 4] of X's type and batch_indices "
        "[R] but got {}, {} and {}",
        x->shape().toString(), rois->shape().toString(),
        batch->shape().toString())));
  std::string mode = ctx.attrString("mode", "avg");
  if (mode != "avg")
    return void(ctx.fail(fmt::format("attribute mode '{}' is not supported "
                                     "(only 'avg')",
                                     mode)));
  std::string transform =
      ctx.attrString("coordinate_transformation_mode",
                     ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return void(ctx.fail(fmt::format(
        "attribute coordinate_transformation_mode is '{}' but must be "
        "'half_pixel' or 'output_half_pixel'",
        transform)));
  int64_t ratio = ctx.attrInt("sampling_ratio", 0);
  if (ratio <= 0)
    return void(ctx.fail(
        "sampling_ratio 0 (adaptive) makes the number of samples depend on "
        "the roi values; an ahead-of-time compiler needs sampling_ratio > 0"));
  int64_t outH = ctx.attrInt("output_height", 1);
  int64_t outW = ctx.attrInt("output_width", 1);
  double spatialScale = ctx.attrFloat("spatial_scale", 1.0);
  if (outH < 1 || outW < 1)
    return void(ctx.fail(fmt::format(
        "output_height and output_width must be positive but are {} and {}",
        outH, outW)));
  DType dtype = x->shape().dtype(), type = computeType(dtype);
  bool halfPixel = transform == "half_pixel";
  Value box =
      b.binary(Opcode::Subtract,
               b.binary(Opcode::Multiply, b.convert(rois, type),
                        b.scalar(type, spatialScale)),
               b.scalar(type, halfPixel ? 0.5 : 0.0));
  int64_t r = rd[0];
  auto coordinate = [&](int64_t i) {
    return b.reshape(b.sliceDim(box, 1, i, i + 1), {r});
  };
  auto length = [&](int64_t from, int64_t to) { // legacy mode: at least 1
    Value size = b.binary(Opcode::Subtract, coordinate(to), coordinate(from));
    return halfPixel ? size
                     : b.binary(Opcode::Maximum, size, b.scalar(type, 1.0));
  };
  Value wy =
      axisWeights(b, type, coordinate(1), length(1, 3), outH, ratio, xd[2]);
  Value wx =
      axisWeights(b, type, coordinate(0), length(0, 2), outW, ratio, xd[3]);
  Value images = gatherAxis(b, b.convert(x, type), batch, 0, 0, false);
  std::vector<int64_t> rows = {r, 1, outH, xd[2]}, cols = {r, 1, outW, xd[3]};
  Value y = batchMatMul(b, b.reshape(wy, rows), images); // R, C, oh, W
  y = batchMatMul(b, y, b.reshape(wx, cols), false, /*adjB=*/true); // oh, ow
  y = b.binary(Opcode::Divide, y, b.scalar(type, double(ratio * ratio)));
  ctx.setOutput(0, b.convert(y, dtype));
}

const OnnxOpRule kSamplingRules[] = {
    {"GridSample", &lowerGridSample},
    {"RoiAlign", &lowerRoiAlign},
};
} // namespace

std::span<const OnnxOpRule> onnxSamplingRules() { return kSamplingRules; }

} // namespace kiln::import::onnx
