//===- TfFunctionalizeGraph.h - Graph helpers of v1 functionalization -*- C++ -*-===//
//
// Internal to TfFunctionalize*.cpp: NodeDef input references, attribute
// reads, the op classes of v1 control flow, and a by-name index of a
// GraphDef with an order that ignores NextIteration -> Merge back edges.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFFUNCTIONALIZEGRAPH_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFFUNCTIONALIZEGRAPH_H

#include "kiln/Support/Error.h"

#include "tensorflow/graph.pb.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln::import::tf::functionalize {

using tensorflow::NodeDef;

inline bool isOp(const NodeDef &node, std::initializer_list<std::string_view> ops) {
  return std::find(ops.begin(), ops.end(), node.op()) != ops.end();
}
inline bool isEnter(const NodeDef &n) { return isOp(n, {"Enter", "RefEnter"}); }
inline bool isExit(const NodeDef &n) { return isOp(n, {"Exit", "RefExit"}); }
inline bool isMerge(const NodeDef &n) { return isOp(n, {"Merge", "RefMerge"}); }
inline bool isSwitch(const NodeDef &n) { return isOp(n, {"Switch", "RefSwitch"}); }
inline bool isNextIteration(const NodeDef &n) {
  return isOp(n, {"NextIteration", "RefNextIteration"});
}

/// One entry of NodeDef.input.
struct Ref {
  std::string node;
  int64_t port = 0;
  bool control = false;
};

inline Ref parseRef(const std::string &text) {
  Ref ref;
  std::string_view rest = text;
  if (!rest.empty() && rest.front() == '^') {
    ref.control = true;
    rest.remove_prefix(1);
  }
  size_t colon = rest.rfind(':');
  bool numeric = colon != std::string_view::npos && colon + 1 < rest.size() &&
                 rest.size() - colon < 10 &&
                 std::all_of(rest.begin() + long(colon) + 1, rest.end(),
                             [](char c) { return c >= '0' && c <= '9'; });
  if (numeric) {
    ref.port = std::stoll(std::string(rest.substr(colon + 1)));
    rest = rest.substr(0, colon);
  }
  ref.node = std::string(rest);
  return ref;
}

inline std::string refText(const std::string &node, int64_t port) {
  return port == 0 ? node : fmt::format("{}:{}", node, port);
}

inline std::string attrString(const NodeDef &node, const std::string &key) {
  auto it = node.attr().find(key);
  return it == node.attr().end() ? "" : it->second.s();
}
inline bool attrBool(const NodeDef &node, const std::string &key) {
  auto it = node.attr().find(key);
  return it != node.attr().end() && it->second.b();
}
inline tensorflow::DataType attrType(const NodeDef &node) {
  auto it = node.attr().find("T");
  return it == node.attr().end() ? tensorflow::DT_INVALID : it->second.type();
}

/// The graph's nodes by name, and an order that puts inputs first except
/// across NextIteration -> Merge back edges.
class Nodes {
public:
  Nodes(tensorflow::GraphDef &graph, const std::string &file)
      : graph_(graph), file_(file) {
    for (int i = 0; i < graph.node_size(); ++i)
      byName_[graph.node(i).name()] = i;
  }

  NodeDef *find(const std::string &name) {
    auto it = byName_.find(name);
    return it == byName_.end() ? nullptr : graph_.mutable_node(it->second);
  }
  bool isBackEdge(const Ref &ref) {
    NodeDef *source = find(ref.node);
    return source && isNextIteration(*source);
  }

  Expected<std::vector<NodeDef *>> order() {
    std::map<std::string, size_t> pending;
    std::map<std::string, std::vector<std::string>> users;
    for (const NodeDef &node : graph_.node()) {
      size_t &count = pending[node.name()];
      for (const std::string &input : node.input()) {
        Ref ref = parseRef(input);
        if (!find(ref.node))
          return makeError("{}: node '{}' ({}): error: input '{}' names no "
                           "node in the graph",
                           file_, node.name(), node.op(), input);
        if (isBackEdge(ref))
          continue;
        ++count;
        users[ref.node].push_back(node.name());
      }
    }
    std::deque<std::string> ready;
    for (const NodeDef &node : graph_.node())
      if (pending[node.name()] == 0)
        ready.push_back(node.name());
    std::vector<NodeDef *> result;
    while (!ready.empty()) {
      std::string name = ready.front();
      ready.pop_front();
      result.push_back(find(name));
      for (const std::string &user : users[name])
        if (--pending[user] == 0)
          ready.push_back(user);
    }
    if (result.size() != size_t(graph_.node_size()))
      return makeError("{}: error: the graph has a cycle that is not a loop "
                       "(NextIteration -> Merge)",
                       file_);
    return result;
  }

private:
  tensorflow::GraphDef &graph_;
  const std::string &file_;
  std::map<std::string, int> byName_;
};

/// `base`, or `base_K`, whichever no function of `graph`'s library has.
/// The type a function argument or result that carries `ref` gets: its
/// `declared` type, or DT_VARIANT for a TensorArray's handle or flow (a
/// DT_RESOURCE / DT_FLOAT in TensorFlow, possibly through Identity, loop
/// plumbing or an already functionalized loop or cond), which kiln lowers
/// to the array's buffer (TfTensorArrayOps.cpp) and passes as a TensorList.
tensorflow::DataType carriedType(Nodes &nodes, const Ref &ref,
                                 tensorflow::DataType declared);

std::string uniqueFunctionName(const tensorflow::GraphDef &graph,
                               const std::string &base);

/// Keeps the nodes of `graph` not in `removed`, dropping their inputs from
/// removed nodes (only control inputs are left to drop: callers check data
/// reads first).
void removeNodes(tensorflow::GraphDef &graph,
                 const std::set<std::string> &removed);

/// Adds to `closure` what `start` reads through data inputs, transitively:
/// `visit` says per input whether its producer joins (and is walked in
/// turn) or not; its error stops the walk. A work list, not recursion: a
/// chain may have any length.
Error gatherInputs(
    Nodes &nodes, const NodeDef &start, std::set<std::string> &closure,
    const std::function<Expected<bool>(const Ref &input, const NodeDef &user)>
        &visit);

/// A cond side: (predicate tensor, Switch output port: 1 true, 0 false).
using Side = std::pair<std::string, int64_t>;
using Sides = std::set<Side>;

/// A cond's Merge: its predicate (Identities followed to the source) and
/// the inputs from its true and false sides.
struct CondMerge {
  NodeDef *merge;
  std::string pred, onTrue, onFalse;
};

struct CondAnalysis {
  std::vector<CondMerge> merges;                  ///< in dataflow order
  std::map<std::string, std::string> switches;   ///< cond Switch -> predicate
  std::map<std::string, Sides> sides;            ///< sides a node's output is on
};

/// The conds of `graph` (Switch/Merge not on a LoopCond): which side of
/// which predicate each node is on, and each Merge's two sides. A Merge
/// whose inputs are not the opposite sides of one predicate is an error.
Expected<CondAnalysis> analyzeConds(tensorflow::GraphDef &graph, Nodes &nodes,
                                    const std::string &file);

/// Rewrites every cond, innermost first: a costly one (a matmul, a
/// convolution, a loop or call, or more than a few ops) as a StatelessIf
/// with then/else library functions, a cheap one as SelectV2 per Merge
/// (TfFunctionalizeIf.cpp).
Error rewriteConds(tensorflow::GraphDef &graph, const std::string &file);

/// Rewrites the innermost loop frame of `graph` as a StatelessWhile with
/// cond and body functions; `extracted` false when there is none
/// (TfFunctionalizeLoops.cpp).
Error extractInnermostLoop(tensorflow::GraphDef &graph, const std::string &file,
                           bool &extracted);

} // namespace kiln::import::tf::functionalize

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFFUNCTIONALIZEGRAPH_H
