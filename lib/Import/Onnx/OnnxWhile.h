//===- OnnxWhile.h - Building blocks of the whiles ONNX lowerings make -*- C++ -*-===//
//
// Loop, Scan (OnnxControlFlowOps.cpp) and RNN/GRU/LSTM
// (OnnxRecurrentOps.cpp) become counted `while` loops over a flat state
// tuple whose element 0 is the s64 counter; these helpers build the
// computations and the row reads and writes they share.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_ONNX_ONNXWHILE_H
#define KILN_LIB_IMPORT_ONNX_ONNXWHILE_H

#include "Common/CalleeBuilder.h"
#include "Onnx/OnnxOps.h"

#include <optional>
#include <string>

namespace kiln::import::onnx {

/// The condition computation of a counted while: element 0 of the state is
/// below `limit` (an element index, or nullopt for the constant `bound`),
/// and element `flag`, if any, is true.
ir::Computation *buildCondition(OnnxNodeContext &ctx, const ir::Shape &state,
                                std::optional<int64_t> limitElement,
                                int64_t bound, std::optional<int64_t> flag);

/// `update` written into `buffer` as entry `at` of dimension `axis` (the
/// update lacks that dimension).
Value writeEntry(GraphBuilder &b, Value buffer, Value update, int64_t axis,
                 Value at);

/// Entry `at` of dimension `axis` of `x`, without that dimension.
Value readEntry(GraphBuilder &b, Value x, int64_t axis, Value at);

/// `count` entries of `element`'s shape stacked along a new `axis`, zeros
/// until the loop writes them (a broadcast, not a constant).
Value zeroBuffer(GraphBuilder &b, const ir::Shape &element, int64_t count,
                 int64_t axis);

} // namespace kiln::import::onnx

#endif // KILN_LIB_IMPORT_ONNX_ONNXWHILE_H
