//===- Graphviz.h - HLO modules as Graphviz pictures ------------*- C++ -*-===//
//
// `kiln compile --emit dot` and `kiln inspect --dot` draw a module's entry
// computation as a Graphviz digraph:
//  - one node per instruction, labelled "%name", "opcode shape" and, when
//    the importer recorded it, "node: SOURCE" (the model's node name);
//  - parameters (inverted houses, blue) and constants (notes, grey) stand
//    out from computations (rounded boxes); the root has a double border;
//  - a fusion is a cluster (subgraph cluster_NAME) holding its fused
//    computation's instructions: the fusion's operands feed the fused
//    parameters inside, and the fusion's users read the fused root;
//  - edges run operand -> user, labelled with the operand number when the
//    user has more than one operand.
// The text depends only on the module (instruction order, names), so it is
// the same on every run and host.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_GRAPHVIZ_H
#define KILN_LIB_DRIVER_GRAPHVIZ_H

#include "kiln/IR/Module.h"
#include "kiln/Support/Error.h"

#include <string>

namespace kiln::driver {

/// The Graphviz text of `module`'s entry computation; `title` is the
/// graph's label (e.g. "mnist: imported HLO").
std::string moduleToDot(const ir::Module &module, const std::string &title);

/// Whether Graphviz's `dot` program is on PATH.
bool graphvizAvailable();

/// Runs `dot -Tsvg` on `dot` and returns the SVG; `what` names the graph in
/// errors (a file name). An error when `dot` is missing or fails.
Expected<std::string> renderSvg(const std::string &dot,
                                const std::string &what);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_GRAPHVIZ_H
