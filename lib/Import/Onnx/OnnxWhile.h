//===- OnnxWhile.h - Building blocks of the whiles ONNX lowerings make -*- C++ -*-===//
//
// Loop, Scan (OnnxControlFlowOps.cpp) and RNN/GRU/LSTM
// (OnnxRecurrentOps.cpp) become counted `while` loops over a flat state
// tuple whose element 0 is the s64 counter; this helper builds their
// condition (the row reads and writes are Common/LoopBuffers.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_ONNX_ONNXWHILE_H
#define KILN_LIB_IMPORT_ONNX_ONNXWHILE_H

#include "Common/CalleeBuilder.h"
#include "Common/LoopBuffers.h"
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

} // namespace kiln::import::onnx

#endif // KILN_LIB_IMPORT_ONNX_ONNXWHILE_H
