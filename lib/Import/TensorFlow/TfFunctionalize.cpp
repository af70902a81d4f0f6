//===- TfFunctionalize.cpp - v1 control flow to functional While ----------===//
#include "TensorFlow/TfFunctionalize.h"
#include "TensorFlow/TfFunctionalizeGraph.h"

#include <fmt/format.h>

#include <set>

namespace kiln::import::tf {

namespace {
using namespace functionalize;

// --- Conds ---------------------------------------------------------------

/// A cond side: (predicate tensor, Switch output port).
using Side = std::pair<std::string, int64_t>;
using Sides = std::set<Side>;

bool isLoopSwitch(Nodes &nodes, const NodeDef &node) {
  if (node.input_size() < 2)
    return false;
  NodeDef *pred = nodes.find(parseRef(node.input(1)).node);
  return pred && pred->op() == "LoopCond";
}

bool isLoopMerge(Nodes &nodes, const NodeDef &node) {
  for (const std::string &input : node.input()) {
    NodeDef *source = nodes.find(parseRef(input).node);
    if (source && (isEnter(*source) || isNextIteration(*source)))
      return true;
  }
  return false;
}

/// Rewrites every cond (Switch/Merge on a predicate that is not a
/// LoopCond) as SelectV2 over both sides.
Error rewriteConds(tensorflow::GraphDef &graph, const std::string &file) {
  Nodes nodes(graph, file);
  Expected<std::vector<NodeDef *>> order = nodes.order();
  if (!order)
    return order.takeError();
  std::map<std::string, Sides> sidesOf; // of a node's outputs
  std::set<std::string> condSwitches;
  // TF writes one cond's Switches on the predicate and on Identities of
  // it (pred_id): they are one predicate.
  auto predicateOf = [&](const NodeDef &condSwitch) {
    Ref ref = parseRef(condSwitch.input(1));
    for (int depth = 0; depth < 1000; ++depth) {
      NodeDef *source = nodes.find(ref.node);
      if (source->op() != "Identity" || source->input_size() == 0)
        break;
      Ref next = parseRef(source->input(0));
      if (next.control)
        break;
      ref = next;
    }
    return refText(ref.node, ref.port);
  };
  auto sidesOfInput = [&](const Ref &ref) {
    Sides sides = sidesOf[ref.node];
    if (condSwitches.count(ref.node) && !ref.control)
      sides.insert({predicateOf(*nodes.find(ref.node)), ref.port});
    return sides;
  };
  struct Select {
    NodeDef *merge;
    std::string pred, onTrue, onFalse;
  };
  std::vector<Select> selects;
  for (NodeDef *node : *order) {
    if (isSwitch(*node) && !isLoopSwitch(nodes, *node))
      condSwitches.insert(node->name());
    bool condMerge = isMerge(*node) && !isLoopMerge(nodes, *node);
    std::vector<Ref> data;
    Sides sides;
    for (const std::string &input : node->input()) {
      Ref ref = parseRef(input);
      if (nodes.isBackEdge(ref))
        continue;
      Sides in = sidesOfInput(ref);
      sides.insert(in.begin(), in.end());
      if (!ref.control)
        data.push_back(ref);
    }
    if (condMerge) {
      if (data.size() != 2)
        return makeError("{}: node '{}' ({}): error: cannot functionalize: a "
                         "cond's Merge joins 2 inputs, this one {}",
                         file, node->name(), node->op(), data.size());
      Sides a = sidesOfInput(data[0]), b = sidesOfInput(data[1]);
      std::vector<Select> found;
      for (const auto &[pred, port] : a) {
        bool opposite = b.count({pred, 1 - port}) && !b.count({pred, port}) &&
                        !a.count({pred, 1 - port});
        if (opposite)
          found.push_back(
              {node, pred, refText(data[port == 1 ? 0 : 1].node, data[port == 1 ? 0 : 1].port),
               refText(data[port == 1 ? 1 : 0].node, data[port == 1 ? 1 : 0].port)});
      }
      if (found.size() != 1)
        return makeError("{}: node '{}' ({}): error: cannot functionalize: "
                         "its inputs are not the two sides of one Switch "
                         "predicate (one must depend on the true output of "
                         "Switches on it, the other on the false output; {} "
                         "predicates qualify)",
                         file, node->name(), node->op(), found.size());
      sides.erase({found[0].pred, 0});
      sides.erase({found[0].pred, 1});
      selects.push_back(found[0]);
    }
    sidesOf[node->name()] = std::move(sides);
  }
  // Merge's value_index (output 1) says which side ran: select computes
  // both, so it has no value.
  for (NodeDef &node : *graph.mutable_node())
    for (std::string &input : *node.mutable_input()) {
      Ref ref = parseRef(input);
      for (const Select &select : selects)
        if (ref.node == select.merge->name() && ref.port == 1 && !ref.control)
          return makeError("{}: node '{}' ({}): error: cannot functionalize: "
                           "it reads the value_index of Merge '{}'",
                           file, node.name(), node.op(), ref.node);
      if (condSwitches.count(ref.node) && !ref.control)
        input = ref.node; // both sides are the switched value
    }
  for (const Select &select : selects) {
    NodeDef &merge = *select.merge;
    merge.set_op("SelectV2");
    merge.clear_input();
    merge.add_input(select.pred);
    merge.add_input(select.onTrue);
    merge.add_input(select.onFalse);
    merge.mutable_attr()->erase("N");
  }
  for (const std::string &name : condSwitches) {
    NodeDef &node = *nodes.find(name);
    std::string value = node.input(0);
    node.set_op("Identity");
    node.clear_input();
    node.add_input(value);
  }
  return Error::success();
}
} // namespace

bool hasV1ControlFlow(const tensorflow::GraphDef &graph) {
  for (const NodeDef &node : graph.node())
    if (isEnter(node) || isSwitch(node) || isMerge(node))
      return true;
  return false;
}

Error functionalizeControlFlow(tensorflow::GraphDef &graph,
                               const std::string &file) {
  if (Error error = rewriteConds(graph, file))
    return error;
  for (bool extracted = true; extracted;)
    if (Error error = functionalize::extractInnermostLoop(graph, file, extracted))
      return error;
  return Error::success();
}

} // namespace kiln::import::tf
