//===- TfGraphLowering.h - Lowering the nodes of one TF graph ---*- C++ -*-===//
//
// One GraphLowering lowers the nodes of one graph into one GraphBuilder:
// the model's graph into the entry computation (TfImporter.cpp), or a
// library function's body (TfFunctions.h) into the computation a While,
// If or Case makes, or inline into its caller's for PartitionedCall. Each
// node's inputs are looked up (fed tensors first), its op's lowering runs
// through a TfContext, and its errors are prefixed with the node (and, in a
// function, the function's name). Function calls recurse through
// callFunction: a new GraphLowering over the body, its arguments fed with
// the caller's values.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFGRAPHLOWERING_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFGRAPHLOWERING_H

#include "TensorFlow/TfContext.h"
#include "TensorFlow/TfFunctions.h"
#include "TensorFlow/TfModel.h"

#include <set>

namespace kiln::import::tf {

/// HLO names allow [A-Za-z0-9_.-]; TensorFlow's '/' and ':' become '_'.
std::string hloName(std::string_view name);

/// What the nodes of a graph are lowered from and into.
struct GraphScope {
  const TfGraph &graph;
  VariableState &state;       ///< fed tensors (feeds, function arguments)
  const TfModel &model;       ///< path for messages, TF.js weights
  FunctionLibrary &library;
  /// "" for the model's graph; "function 'f'" in a body (its errors carry
  /// no path: the calling node's error adds it).
  std::string label;
  std::string namePrefix;     ///< of the values' names ("call/" in a body)
  std::vector<std::string> callStack; ///< functions being lowered, outermost first
  std::set<Value> &named;     ///< values already named (shared by nesting)
  /// What is known about TensorList values (shared by nesting).
  ListMarks &lists;
};

class GraphLowering : public FunctionCaller {
public:
  GraphLowering(GraphScope scope, GraphBuilder &builder, ir::Module &module);

  /// Lowers `node`, whose inputs are lowered or fed.
  Error lowerNode(size_t node);
  /// Output `index` of `node` (fed or lowered); `user` names the reader.
  Expected<Value> tensor(size_t node, int64_t index, const std::string &user);
  /// Gives `node` its outputs without lowering it (config variables).
  void define(size_t node, std::vector<Value> outputs);

  Expected<std::vector<Value>>
  callFunction(const std::string &function, const std::vector<Value> &arguments,
               GraphBuilder &into, const std::string &caller) override;

private:
  Expected<std::vector<Value>> dataInputs(size_t node,
                                          std::vector<NodeInput> &sources);
  void nameOutputs(size_t node, const std::vector<Value> &outputs);
  Error nodeError(size_t node, const std::string &message) const;
  Error checkArguments(const FunctionBody &body,
                       const std::vector<Value> &arguments) const;
  Error checkSupported(const FunctionBody &body) const;

  GraphScope scope_;
  GraphBuilder &builder_;
  ir::Module &module_;
  std::vector<std::vector<Value>> outputs_;
};

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFGRAPHLOWERING_H
