//===- CallerLayouts.h - --input-layout / --output-layout -------*- C++ -*-===//
//
// A model fixes the order of each tensor's dimensions (ONNX images are
// N,C,H,W; TensorFlow's N,H,W,C), but the caller's buffers may be in
// another order. `--input-layout NAME=nhwc` compiles input NAME to take
// the caller's order: its argument gets the permuted shape and the entry
// reads it through a transpose. Layout sinking then cancels that transpose
// against the one a converted model starts with, so a tf2onnx model fed
// NHWC data runs with no transpose at its edge. `--output-layout` does the
// same for a result.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_CALLERLAYOUTS_H
#define KILN_IMPORT_CALLERLAYOUTS_H

#include "kiln/Import/Import.h"
#include "kiln/Support/Error.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::import {

/// The permutation a layout names for a tensor of `rank` dims: the caller's
/// dim i is the model's dim permutation[i].
///   "nhwc": the model is channels-first (N,C,spatial...), the caller
///           channels-last: {0, 2, ..., rank-1, 1}; rank >= 3.
///   "nchw": the model is channels-last, the caller channels-first:
///           {0, rank-1, 1, ..., rank-2}; rank >= 3.
///   "P0,P1,...": the permutation itself.
Expected<std::vector<int64_t>> layoutPermutation(std::string_view layout,
                                                 int64_t rank);

/// Parses "NAME=LAYOUT" specs of `flag` into name -> layout text; errors
/// name the flag and the bad spec (malformed, or NAME given twice).
Expected<std::map<std::string, std::string>>
parseLayoutSpecs(const std::vector<std::string> &specs, std::string_view flag);

/// Applies options.inputLayouts and options.outputLayouts to `model`, whose
/// file is `path` (for messages): each named feed takes the caller's order
/// and is transposed into the model's on entry; each named result is
/// transposed into the caller's order on exit. The layouts are recorded in
/// model.args[i].layout and model.resultLayouts for the manifest. A name
/// that is not a feed or result, a variable, a rank a layout does not fit
/// and a non-permutation are errors.
Error applyCallerLayouts(ImportedModel &model, const ImportOptions &options,
                         const std::string &path);

} // namespace kiln::import

#endif // KILN_IMPORT_CALLERLAYOUTS_H
