//===- CalleeBuilder.h - New computations for loops, branches, calls -*- C++ -*-===//
//
// Both front ends lower loop bodies, conditions and branches into callee
// computations of the module they import into (ONNX Loop/Scan/If and the
// recurrent ops; TensorFlow While/If/Case). These helpers create them,
// named after the source node and placed before their caller (callees are
// printed first), and install the root or pass a callee's error up.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_COMMON_CALLEEBUILDER_H
#define KILN_LIB_IMPORT_COMMON_CALLEEBUILDER_H

#include "kiln/Import/GraphBuilder.h"

#include <string>

namespace kiln::import {

/// `text` (a node's name and a role) made a valid HLO computation name: the
/// characters names allow, starting with a letter or '_'.
std::string computationName(const std::string &text);

/// A new, empty computation of the module, placed before the one `b` builds
/// (callees are printed first).
ir::Computation *newComputation(GraphBuilder &b, const std::string &name);

/// Sets `computation`'s root, or records the error of `callee` on `b`.
bool finish(GraphBuilder &b, GraphBuilder &callee, ir::Computation &computation,
            Value root);

} // namespace kiln::import

#endif // KILN_LIB_IMPORT_COMMON_CALLEEBUILDER_H
