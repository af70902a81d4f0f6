//===- TfFunctionalize.h - v1 control flow to functional While --*- C++ -*-===//
//
// TensorFlow 1.x (and the TF.js converter by default) write loops and
// branches as dataflow: Enter/Merge/Switch/NextIteration/Exit/LoopCond
// frames and Switch/Merge conds. Like tf2xla's functionalization, this
// rewrites a GraphDef into the functional form the importer lowers
// (TfControlFlowOps.cpp, TfWhileOps.cpp), before the graph is indexed:
//
// - conds: a Merge joining the two sides of Switches on one predicate
//   becomes SelectV2(pred, true side, false side), the Switches Identities
//   (both sides are computed; kiln code has no side effects to guard);
// - loops, innermost frame first (frames from Enter.frame_name): each
//   non-constant Enter -> Merge -> Switch -> Exit chain is one loop
//   variable (Identity chains between Switch and Exit allowed),
//   `is_constant` Enters are invariants passed through; the LoopCond's
//   input becomes a cond function, the NextIterations' inputs a body
//   function, and the frame a StatelessWhile whose outputs replace the
//   Exits.
//
// A graph that cannot be rewritten is an error naming the frame, the node
// and why.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFFUNCTIONALIZE_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFFUNCTIONALIZE_H

#include "kiln/Support/Error.h"

#include "tensorflow/graph.pb.h"

namespace kiln::import::tf {

/// Whether `graph` has v1 control flow nodes.
bool hasV1ControlFlow(const tensorflow::GraphDef &graph);

/// Rewrites v1 control flow in `graph` as described above; `file` prefixes
/// errors.
Error functionalizeControlFlow(tensorflow::GraphDef &graph,
                               const std::string &file);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFFUNCTIONALIZE_H
