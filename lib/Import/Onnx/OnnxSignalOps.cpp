//===- OnnxSignalOps.cpp - ONNX window functions and Fourier transforms ---===//
//
// HannWindow, HammingWindow and BlackmanWindow (opset 17) are generalized
// cosine windows of a compile-time `size`:
//   w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N),  n = 0 .. size-1,
// with N = size (periodic = 1, the default) or size - 1 (symmetric). They
// are computed in double at import and stored as a constant of
// `output_datatype` (default FLOAT), converted as a C++ cast would.
//
// DFT and STFT (opset 17) have static lengths, so a transform is a product
// with constant cosine and sine matrices on the real and imaginary parts
// (ONNX's trailing [.., 2] dimension); STFT first gathers its frames with
// constant indices. MelWeightMatrix is a constant computed at import.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxOps.h"
#include "Onnx/OnnxTensor.h"
#include "kiln/Support/CheckedArithmetic.h"

#include "Common/ArrayLowering.h"
#include "Common/ElementwiseLowering.h"
#include "Common/MatMulLowering.h"

#include "kiln/Import/LiteralUtil.h"

#include <cmath>
#include <fmt/format.h>
#include <numbers>

namespace kiln::import::onnx {

namespace {
using ir::Opcode;

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
  if (!ctx.builder().hostTableFits(fmt::format("a window of {} values", count),
                                   count, sizeof(double)))
    return;
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

// --- Fourier transforms
// -------------------------------------------------------

/// One integer from constant input `i` (a scalar or a one-element tensor).
std::optional<int64_t> constantScalarInt(OnnxNodeContext &ctx, size_t i,
                                         std::string_view what) {
  std::optional<std::vector<int64_t>> values = ctx.constantInts(i, what);
  if (values && values->size() != 1) {
    ctx.fail(fmt::format("input {} ({}) must be one integer but has {} values",
                         i, what, values->size()));
    return std::nullopt;
  }
  return values ? std::optional((*values)[0]) : std::nullopt;
}

/// A complex tensor as its real and imaginary parts (`im` is nullptr for a
/// real signal).
struct Complex {
  Value re = nullptr, im = nullptr;
};

/// ONNX's signal layout: a trailing dimension of 1 (real) or 2 (real,
/// imaginary) split off.
std::optional<Complex> splitComplex(OnnxNodeContext &ctx, Value x) {
  GraphBuilder &b = ctx.builder();
  std::vector<int64_t> dims = dimsOf(x);
  if (dims.size() < 2 || (dims.back() != 1 && dims.back() != 2) ||
      !ir::isFloat(x->shape().dtype())) {
    ctx.fail(fmt::format("input 0 must be a floating-point signal [batch, "
                         "..., 1 or 2] (real or complex) but is {}",
                         x->shape().toString()));
    return std::nullopt;
  }
  int64_t last = int64_t(dims.size()) - 1;
  dims.pop_back();
  Value wide = b.convert(x, computeType(x->shape().dtype()));
  Complex parts{b.reshape(b.sliceDim(wide, last, 0, 1), dims)};
  if (x->shape().dims().back() == 2)
    parts.im = b.reshape(b.sliceDim(wide, last, 1, 2), dims);
  return parts;
}

/// The parts stacked back into ONNX's [..., 2] layout, in `dtype`.
Value joinComplex(GraphBuilder &b, Complex y, ir::DType dtype) {
  std::vector<int64_t> dims = dimsOf(y.re);
  dims.push_back(1);
  return b.convert(b.concatenate({b.reshape(y.re, dims), b.reshape(y.im, dims)},
                                 int64_t(dims.size()) - 1),
                   dtype);
}

/// The DFT of `x` along `axis`: the signal zero-padded or cut to `length`,
/// `bins` (<= length) outputs y[k] = sum_n x[n] e^(-+2 pi i k n / length),
/// divided by `length` when `inverse`. A product with constant cosine and
/// sine matrices (computed in double at import).
Complex dftAlong(GraphBuilder &b, Complex x, int64_t axis, int64_t length,
                 int64_t bins, bool inverse) {
  std::vector<int64_t> dims = dimsOf(x.re);
  int64_t rank = int64_t(dims.size()), have = dims[size_t(axis)];
  auto fit = [&](Value v) { // pad or cut to `length`
    if (!v || have == length)
      return v;
    if (have > length)
      return b.sliceDim(v, axis, 0, length);
    std::vector<ir::PadDim> pads(dims.size());
    pads[size_t(axis)].high = length - have;
    return b.pad(v, b.scalar(v->shape().dtype(), 0.0), pads);
  };
  std::vector<int64_t> perm; // `axis` last
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  std::vector<int64_t> back(perm.size());
  for (int64_t d = 0; d < rank; ++d)
    back[size_t(perm[size_t(d)])] = d;
  ir::DType type = x.re->shape().dtype();
  // length and bins come from the signal's declared size (or dft_length):
  // the two tables of doubles are checked before they are built.
  std::optional<int64_t> entries = checkedMul(length, bins);
  if (!b.hostTableFits("the DFT's cosine and sine tables",
                       entries ? checkedMul(*entries, 2) : std::nullopt,
                       int64_t(sizeof(double))))
    return {};
  std::vector<double> cosines, sines;
  for (int64_t n = 0; n < length; ++n)
    for (int64_t k = 0; k < bins; ++k) {
      // k * n mod length keeps the angle small and exact.
      double angle =
          2.0 * std::numbers::pi * double((k * n) % length) / double(length);
      cosines.push_back(std::cos(angle));
      sines.push_back(std::sin(angle));
    }
  ir::Shape matrix(type, {length, bins});
  Value c = b.constant(literalFromDoubles(matrix, cosines));
  Value s = b.constant(literalFromDoubles(matrix, sines));
  auto times = [&](Value v, Value m) {
    return batchMatMul(b, b.transpose(fit(v), perm), m);
  };
  // Forward: (re + i im)(cos - i sin) = re cos + im sin + i (im cos - re sin);
  // inverse: (re + i im)(cos + i sin) = re cos - im sin + i (im cos + re sin).
  Complex y;
  y.re = times(x.re, c);
  y.im = times(x.re, s);
  if (!inverse)
    y.im = b.unary(Opcode::Negate, y.im);
  if (x.im) {
    y.re = b.binary(inverse ? Opcode::Subtract : Opcode::Add, y.re,
                    times(x.im, s));
    y.im = b.binary(Opcode::Add, y.im, times(x.im, c));
  }
  if (inverse) {
    y.re = b.binary(Opcode::Divide, y.re, b.scalar(type, double(length)));
    y.im = b.binary(Opcode::Divide, y.im, b.scalar(type, double(length)));
  }
  return {b.transpose(y.re, back), b.transpose(y.im, back)};
}

/// DFT (opset 17): along `axis` (default 1, a signal dimension after the
/// batch), `inverse`, `onesided` (real input only: floor(n/2) + 1 bins),
/// optional constant dft_length.
void lowerDft(OnnxNodeContext &ctx) {
  Value x = ctx.input(0);
  if (!x)
    return;
  std::optional<Complex> parts = splitComplex(ctx, x);
  if (!parts)
    return;
  int64_t signalRank = x->shape().rank() - 1;
  int64_t axis = ctx.attrInt("axis", 1);
  if (axis < 0)
    axis += signalRank;
  if (axis < 1 || axis >= signalRank)
    return void(ctx.fail(fmt::format("attribute axis {} must name a signal "
                                     "dimension of {} (1 to {})",
                                     ctx.attrInt("axis", 1),
                                     x->shape().toString(), signalRank - 1)));
  int64_t length = x->shape().dim(size_t(axis));
  if (ctx.inputCount() > 1 && ctx.hasInput(1)) {
    std::optional<int64_t> given = constantScalarInt(ctx, 1, "dft_length");
    if (!given)
      return;
    if (*given < 1)
      return void(ctx.fail(fmt::format("input 1 (dft_length) must be "
                                       "positive but is {}",
                                       *given)));
    length = *given;
  }
  bool inverse = ctx.attrInt("inverse", 0) != 0;
  bool onesided = ctx.attrInt("onesided", 0) != 0;
  if (onesided && (parts->im || inverse))
    return void(ctx.fail("onesided=1 needs a real signal and a forward "
                         "transform"));
  int64_t bins = onesided ? length / 2 + 1 : length;
  ctx.setOutput(0, joinComplex(ctx.builder(),
                               dftAlong(ctx.builder(), *parts, axis, length,
                                        bins, inverse),
                               x->shape().dtype()));
}

/// STFT (opset 17): frames of frame_length (or the window's length) every
/// frame_step samples of signal [batch, length, 1 or 2], each multiplied by
/// the optional window and transformed; `onesided` (default 1, real
/// signals) keeps floor(frame_length / 2) + 1 bins. Output [batch, frames,
/// bins, 2].
void lowerStft(OnnxNodeContext &ctx) {
  GraphBuilder &b = ctx.builder();
  Value signal = ctx.input(0);
  if (!signal)
    return;
  std::optional<Complex> parts = splitComplex(ctx, signal);
  if (!parts)
    return;
  if (signal->shape().rank() != 3)
    return void(ctx.fail(fmt::format("input 0 (signal) must be [batch, "
                                     "length, 1 or 2] but is {}",
                                     signal->shape().toString())));
  std::optional<int64_t> step = constantScalarInt(ctx, 1, "frame_step");
  if (!step)
    return;
  Value window =
      ctx.inputCount() > 2 && ctx.hasInput(2) ? ctx.input(2) : nullptr;
  int64_t frameLength = -1;
  if (ctx.inputCount() > 3 && ctx.hasInput(3)) {
    std::optional<int64_t> given = constantScalarInt(ctx, 3, "frame_length");
    if (!given)
      return;
    frameLength = *given;
  }
  if (window && (window->shape().rank() != 1 ||
                 (frameLength >= 0 && window->shape().dim(0) != frameLength)))
    return void(ctx.fail(
        fmt::format("input 2 (window) must be 1-D{} but is "
                    "{}",
                    frameLength >= 0 ? fmt::format(" of {}", frameLength) : "",
                    window->shape().toString())));
  if (frameLength < 0 && window)
    frameLength = window->shape().dim(0);
  int64_t batch = signal->shape().dim(0), length = signal->shape().dim(1);
  if (frameLength < 1 || frameLength > length || *step < 1)
    return void(ctx.fail(fmt::format(
        "needs a frame_length (or window) of 1 to {} samples and a positive "
        "frame_step, but they are {} and {}",
        length, frameLength, *step)));
  bool onesided = ctx.attrInt("onesided", 1) != 0;
  if (onesided && parts->im)
    return void(ctx.fail("onesided=1 needs a real signal"));
  int64_t frames = (length - frameLength) / *step + 1;
  std::vector<int64_t> starts;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t n = 0; n < frameLength; ++n)
      starts.push_back(f * *step + n);
  Value at = b.constant(literalFromInts(
      ir::Shape(ir::DType::S64, {frames, frameLength}), starts));
  std::vector<int64_t> framed = {batch, frames, frameLength};
  Value w =
      window ? b.broadcastInDim(b.convert(window, parts->re->shape().dtype()),
                                framed, {2})
             : nullptr;
  auto frame = [&](Value v) {
    if (!v)
      return v;
    Value f = gatherAxis(b, v, at, 1, 0, false);
    return w ? b.binary(Opcode::Multiply, f, w) : f;
  };
  Complex x{frame(parts->re), frame(parts->im)};
  int64_t bins = onesided ? frameLength / 2 + 1 : frameLength;
  ctx.setOutput(0, joinComplex(b, dftAlong(b, x, 2, frameLength, bins, false),
                               signal->shape().dtype()));
}

/// MelWeightMatrix (opset 17): a constant [dft_length / 2 + 1, num_mel_bins]
/// of triangular filters, computed at import exactly as ONNX's reference
/// (the mel range split into num_mel_bins + 2 steps; band edges floor((
/// dft_length + 1) * hz / sample_rate); a band of zero rising width puts 1 at
/// its centre).
void lowerMelWeightMatrix(OnnxNodeContext &ctx) {
  std::optional<int64_t> mels = constantScalarInt(ctx, 0, "num_mel_bins");
  std::optional<int64_t> dft = constantScalarInt(ctx, 1, "dft_length");
  std::optional<int64_t> rate = constantScalarInt(ctx, 2, "sample_rate");
  if (!mels || !dft || !rate)
    return;
  std::optional<double> lowHz = ctx.constantScalar(3, "lower_edge_hertz");
  std::optional<double> highHz = ctx.constantScalar(4, "upper_edge_hertz");
  if (!lowHz || !highHz)
    return;
  if (*mels < 1 || *dft < 1 || *rate < 1)
    return void(ctx.fail("num_mel_bins, dft_length and sample_rate must be "
                         "positive"));
  Expected<ir::DType> dtype =
      dtypeFromOnnx(int32_t(ctx.attrInt("output_datatype", 1)));
  if (!dtype)
    return void(ctx.fail(
        fmt::format("attribute output_datatype: {}", dtype.errorMessage())));
  int64_t bins = *dft / 2 + 1;
  if (!ctx.builder().hostTableFits(
          fmt::format("a mel weight matrix of {} x {} values", bins, *mels),
          checkedProduct({bins, checkedAdd(*mels, 2).value_or(-1)}), sizeof(double)))
    return;
  auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  double low = mel(*lowHz), high = mel(*highHz);
  double step = (high - low) / double(*mels + 2);
  std::vector<int64_t> edge;
  for (int64_t i = 0; i < *mels + 2; ++i) {
    double hz = 700.0 * (std::pow(10.0, (double(i) * step + low) / 2595.0) - 1);
    std::optional<int64_t> bin =
        checkedFloatToInt(std::floor(double(*dft + 1) * hz / double(*rate)));
    if (!bin)
      return void(ctx.fail(fmt::format("mel band edge {} Hz has no bin "
                                       "(lower_edge_hertz {}, "
                                       "upper_edge_hertz {})",
                                       hz, *lowHz, *highHz)));
    edge.push_back(*bin);
  }
  std::vector<double> out(size_t(bins * *mels), 0.0);
  auto set = [&](int64_t j, int64_t i, double v) {
    if (j >= 0 && j < bins)
      out[size_t(j * *mels + i)] = v;
  };
  for (int64_t i = 0; i < *mels; ++i) {
    int64_t left = edge[size_t(i)], centre = edge[size_t(i + 1)],
            right = edge[size_t(i + 2)];
    if (centre == left)
      set(centre, i, 1.0);
    // Only bins inside [0, bins) are set; the loops skip the rest, so edges
    // far outside (a huge upper_edge_hertz) cost nothing.
    for (int64_t j = std::max<int64_t>(left, 0);
         centre > left && j <= std::min(centre, bins - 1); ++j)
      set(j, i, (double(j) - double(left)) / (double(centre) - double(left)));
    for (int64_t j = std::max<int64_t>(centre, 0);
         j < std::min(right, bins); ++j)
      set(j, i, (double(right) - double(j)) / (double(right) - double(centre)));
  }
  ctx.setOutput(0, ctx.builder().constant(literalFromDoubles(
                       ir::Shape(*dtype, {bins, *mels}), out)));
}

const OnnxOpRule kSignalRules[] = {
    {"DFT", &lowerDft},
    {"STFT", &lowerStft},
    {"MelWeightMatrix", &lowerMelWeightMatrix},
    {"HannWindow", &lowerWindow<kHann>},
    {"HammingWindow", &lowerWindow<kHamming>},
    {"BlackmanWindow", &lowerWindow<kBlackman>},
};
} // namespace

std::span<const OnnxOpRule> onnxSignalRules() { return kSignalRules; }

} // namespace kiln::import::onnx
