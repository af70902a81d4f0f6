//===- ResizeLowering.h - Image resize as import-time gathers and weights -===//
//
// Resizing is separable: each resized axis maps every output position to a
// few input positions ("taps") with weights. Shapes are static, so the
// taps and weights are computed at import exactly as TensorFlow (TF.js
// CPU) or ONNX compute them, and the run-time work is a gather per tap plus
// a weighted sum. Keeping the framework's arithmetic order (TF's
// top + (bottom - top) * lerp) keeps results bit-close to the reference.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_RESIZELOWERING_H
#define KILN_LIB_IMPORT_COMMON_RESIZELOWERING_H

#include "kiln/Import/GraphBuilder.h"

#include <string>
#include <vector>

namespace kiln::import {

/// How one axis is resampled: output o reads input taps[t][o] with weight
/// weights[t][o]. `lerp` (two taps) evaluates a + (b - a) * weights[1]
/// like TensorFlow; otherwise the weighted sum. Outputs flagged in
/// `outside` (ONNX tf_crop_and_resize) take `extrapolation` instead.
struct AxisResample {
  int64_t inSize = 0;
  int64_t outSize = 0;
  std::vector<std::vector<int64_t>> taps;
  std::vector<std::vector<double>> weights;
  bool lerp = false;
  std::vector<bool> outside;
  double extrapolation = 0;
};

/// TensorFlow ResizeNearestNeighbor / ResizeBilinear for one axis.
AxisResample tfResizeAxis(int64_t inSize, int64_t outSize, bool bilinear,
                          bool alignCorners, bool halfPixelCenters);

/// ONNX Resize / Upsample options (strings as in the spec).
struct OnnxResizeOptions {
  std::string mode = "nearest"; // nearest, linear, cubic
  std::string coordinateMode = "half_pixel";
  std::string nearestMode = "round_prefer_floor";
  double cubicCoeffA = -0.75;
  bool excludeOutside = false;
  double extrapolationValue = 0;
};
/// One axis of ONNX Resize: `scale` is the scale used for coordinates
/// (given, or out/in when sizes are given); roiStart/roiEnd are used by
/// tf_crop_and_resize only. Records nothing: an empty `taps` means an
/// unknown mode, which the caller reports.
AxisResample onnxResizeAxis(int64_t inSize, int64_t outSize, double scale,
                            double roiStart, double roiEnd,
                            const OnnxResizeOptions &options);

/// Resamples dimension `axis` of `x`; an identity mapping returns x.
/// False (with the error recorded) unless `outSize` is a valid length whose
/// tap and weight tables fit the constant budget.
bool checkResizeTables(GraphBuilder &b, int64_t outSize);

Value resampleAxis(GraphBuilder &b, Value x, int64_t axis,
                   const AxisResample &plan);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_RESIZELOWERING_H
