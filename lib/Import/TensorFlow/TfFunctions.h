//===- TfFunctions.h - The FunctionDef library of a GraphDef ----*- C++ -*-===//
//
// One reader for the functions that While, If, Case and (Stateful)
// PartitionedCall call: GraphDef's `library` and TF.js's
// `modelTopology.library` parse into the same FunctionDefLibrary (JSON
// accepts TF.js's camelCase names). A function body is turned into a
// graph the importer walks like the model's own: one `_Arg` node per input
// argument (named as the argument, fed with the caller's value), the
// function's nodes with every "node:out_arg:i" input rewritten to the flat
// "node:k" (TfOpDefs.h), and the tensors its `ret` map returns.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFFUNCTIONS_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFFUNCTIONS_H

#include "TensorFlow/TfGraph.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::import::tf {

/// A function body as a graph, ready to lower.
struct FunctionBody {
  const tensorflow::FunctionDef *def = nullptr;
  tensorflow::GraphDef graph;       ///< _Arg nodes, then the function's nodes
  std::unique_ptr<TfGraph> index;   ///< of `graph`
  std::vector<size_t> arguments;    ///< the _Arg node of each input argument
  std::vector<NodeInput> returns;   ///< the tensor of each output argument
  std::vector<size_t> order;        ///< the nodes `returns` need, inputs first
};

class FunctionLibrary {
public:
  /// `file` names the model in errors.
  FunctionLibrary(const tensorflow::FunctionDefLibrary &library,
                  std::string file);

  /// The function called `name`, or null.
  const tensorflow::FunctionDef *find(std::string_view name) const;
  /// Its body as a graph (built once). Errors name the function and the
  /// node: an input naming nothing, an unknown output argument, a
  /// returned tensor missing, a cycle.
  Expected<const FunctionBody *> body(std::string_view name);

private:
  Expected<std::unique_ptr<FunctionBody>>
  build(const tensorflow::FunctionDef &function) const;
  using NodesByName =
      std::map<std::string, const tensorflow::NodeDef *, std::less<>>;
  /// A body node's input with "node:out_arg:i" made "node:k".
  Expected<std::string> flatInput(const NodesByName &nodes,
                                  const std::string &input) const;

  std::string file_;
  std::map<std::string, const tensorflow::FunctionDef *, std::less<>> byName_;
  std::map<std::string, std::unique_ptr<FunctionBody>, std::less<>> bodies_;
};

/// The op of an input argument's node in a function body graph.
inline constexpr std::string_view kArgOp = "_Arg";

/// The functions `node` calls: its `func` attributes (While's cond and
/// body, If's branches, Case's branch list, PartitionedCall's f), and its
/// op when that names a library function.
std::vector<std::string> calledFunctions(const tensorflow::NodeDef &node,
                                         const FunctionLibrary &library);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFFUNCTIONS_H
