//===- SelectionLowering.h - Data-dependent selections for the importers -*- C++ -*-===//
//
// Non-max suppression and Where/NonZero select a data-dependent number of
// elements. Their results are stored at a compile-time bound: the selected
// rows first, zeros after them, and an s32[] count of the valid rows; the
// result's dim 0 is recorded dynamic in the builder's table with the count
// as its size and a fresh symbol as its form (docs/architecture.md,
// "Run-time sized values"). Both front ends lower through these.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_SELECTIONLOWERING_H
#define KILN_LIB_IMPORT_COMMON_SELECTIONLOWERING_H

#include "kiln/Import/GraphBuilder.h"

#include <optional>
#include <string>

namespace kiln::import {

/// How a box's 4 numbers are laid out.
enum class BoxEncoding {
  Corners,    ///< two diagonal corners (y1, x1, y2, x2), in any order
  CenterSize, ///< (x_center, y_center, width, height): ONNX center_point_box=1
};

/// What a non-max suppression selects.
struct NmsSpec {
  BoxEncoding encoding = BoxEncoding::Corners;
  /// Run-time maximum number of selections (an integer scalar) and its
  /// compile-time bound (see maxOutputBound).
  Value maxOutput = nullptr;
  int64_t maxOutputBound = 0;
  Value iouThreshold = nullptr; ///< scalar; suppresses when IoU > it
  /// Scalar or nullptr; a box is a candidate when its score is above it
  /// (nullptr: every score that is not NaN).
  Value scoreThreshold = nullptr;
  /// TensorFlow suppresses a candidate whose IoU is NaN (its weight is 0);
  /// ONNX Runtime keeps it (its `iou > threshold` test is false).
  bool nanIouSuppresses = true;
  std::string nodeName; ///< origin of the count's symbol
  /// False when the caller pads the result to a static size itself (TF's
  /// pad_to_max_output_size): only the count gets its form then.
  bool dynamicResult = true;
};

/// The rows an NMS selected, in selection order.
struct NmsResult {
  Value indices = nullptr; ///< s32[bound]: box indices, zeros after count
  Value scores = nullptr;  ///< f32[bound]: their scores, zeros after count
  Value count = nullptr;   ///< s32[]
};

/// The compile-time bound of a run-time maximum: its value when constant
/// (clamped at 0), else the upper bound of its size form; nullopt when it
/// has neither (the caller reports it).
std::optional<int64_t> maxOutputBound(const GraphBuilder &b, Value maxOutput);

/// Greedy non-max suppression exactly as TensorFlow's CPU kernel does it:
/// candidates are the boxes whose score is above the threshold (NaN never
/// is), taken in descending score order with ties to the lower index; a
/// candidate is selected unless its IoU with an already selected box is
/// above `iouThreshold`; a box of non-positive area has IoU 0 with every
/// box. Stops after maxOutput selections. boxes [N, 4] and scores [N] may
/// have a dynamic dim 0: boxes past its run-time size are not candidates.
/// The result's bound is min(spec.maxOutputBound, N); indices and scores
/// get dim 0 dynamic with `count` as size.
NmsResult nonMaxSuppression(GraphBuilder &b, Value boxes, Value scores,
                            const NmsSpec &spec);

/// The coordinates of the nonzero (true) elements of `x` in row-major
/// order as s64 [numel(x), rank] (`rowsFirst`, TF Where) or
/// [rank, numel(x)] (ONNX NonZero), zeros after `count`; the selected
/// dimension is dynamic with `count` as size. Elements past a dynamic
/// dimension's run-time size count as zero. `nodeName` names the symbol.
struct WhereResult {
  Value coordinates = nullptr;
  Value count = nullptr; ///< s32[]
};
WhereResult nonzeroCoordinates(GraphBuilder &b, Value x, bool rowsFirst,
                               const std::string &nodeName);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_SELECTIONLOWERING_H
