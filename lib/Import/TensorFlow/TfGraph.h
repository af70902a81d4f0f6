//===- TfGraph.h - Indexing, pruning and ordering a GraphDef ----*- C++ -*-===//
//
// The graph algorithms of the TensorFlow importer, independent of lowering:
// name lookup and input parsing ("node", "node:1", "^node"), pruning to what
// the fetches need while cutting at fed tensors, and a deterministic
// topological order that reports the nodes of a cycle.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFGRAPH_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFGRAPH_H

#include "kiln/Support/Error.h"

#include "tensorflow/graph.pb.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln::import::tf {

/// One entry of NodeDef.input, resolved to a node index.
struct NodeInput {
  size_t node = 0;
  int64_t index = 0;    ///< output index; 0 for control inputs
  bool control = false; ///< "^node"
};

class TfGraph {
public:
  /// Indexes `graph` (which must outlive this object); errors name `file`
  /// and the node: duplicate names, inputs naming missing nodes.
  static Expected<TfGraph> build(const tensorflow::GraphDef &graph,
                                 const std::string &file);

  size_t size() const { return nodes_.size(); }
  const tensorflow::NodeDef &node(size_t i) const { return *nodes_[i]; }
  const std::vector<NodeInput> &inputs(size_t i) const { return inputs_[i]; }
  /// Index of the node called `name`, or -1.
  int64_t find(const std::string &name) const;
  /// Whether any node lists node `i` as an input (data or control).
  bool hasConsumers(size_t i) const { return consumed_[i]; }

  /// A node of the pruned graph and the root (fetch or variable update)
  /// that first needed it, for messages.
  using IsFed = std::function<bool(size_t node, int64_t index)>;
  /// Nodes needed to compute `roots` (node indices paired with a label
  /// naming why the node is a root), walking data and control inputs but
  /// not past fed tensors. Returns node index -> label of its root.
  std::map<size_t, std::string>
  prune(const std::vector<std::pair<size_t, std::string>> &roots,
        const IsFed &isFed) const;

  /// The nodes of `subset` in a topological order (inputs first, ties in
  /// file order), ignoring edges from fed tensors. A cycle is an error
  /// naming its nodes in order.
  Expected<std::vector<size_t>> topologicalOrder(const std::set<size_t> &subset,
                                                 const IsFed &isFed) const;

private:
  TfGraph() = default;
  std::vector<size_t> cycleAmong(const std::set<size_t> &remaining,
                                 const IsFed &isFed) const;

  std::string file_;
  std::vector<const tensorflow::NodeDef *> nodes_;
  std::vector<std::vector<NodeInput>> inputs_;
  std::vector<bool> consumed_;
  std::map<std::string, size_t, std::less<>> byName_;
};

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFGRAPH_H
