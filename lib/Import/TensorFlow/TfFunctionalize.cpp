//===- TfFunctionalize.cpp - v1 control flow to functional While ----------===//
#include "TensorFlow/TfFunctionalize.h"
#include "TensorFlow/TfFunctionalizeGraph.h"

#include <fmt/format.h>

#include <set>

namespace kiln::import::tf {

namespace {
using namespace functionalize;

// --- Conds ---------------------------------------------------------------

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

} // namespace

Expected<CondAnalysis> functionalize::analyzeConds(tensorflow::GraphDef &,
                                                   Nodes &nodes,
                                                   const std::string &file) {
  Expected<std::vector<NodeDef *>> order = nodes.order();
  if (!order)
    return order.takeError();
  CondAnalysis result;
  std::map<std::string, Sides> &sidesOf = result.sides;
  // TF writes one cond's Switches on the predicate and on Identities of
  // it (pred_id): they are one predicate.
  auto predicateOf = [&](const NodeDef &condSwitch) {
    Ref ref = parseRef(condSwitch.input(1));
    for (int depth = 0; depth < 1000; ++depth) {
      NodeDef *source = nodes.find(ref.node);
      if (!source || source->op() != "Identity" || source->input_size() == 0)
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
    auto condSwitch = result.switches.find(ref.node);
    if (condSwitch != result.switches.end() && !ref.control)
      sides.insert({condSwitch->second, ref.port});
    return sides;
  };
  for (NodeDef *node : *order) {
    if (isSwitch(*node) && node->input_size() < 2)
      return makeError("{}: node '{}' ({}): error: cannot functionalize: a "
                       "Switch takes 2 inputs (data, predicate), this one {}",
                       file, node->name(), node->op(), node->input_size());
    if (isSwitch(*node) && !isLoopSwitch(nodes, *node))
      result.switches[node->name()] = predicateOf(*node);
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
      std::vector<CondMerge> found;
      for (const auto &[pred, port] : a) {
        bool opposite = b.count({pred, 1 - port}) && !b.count({pred, port}) &&
                        !a.count({pred, 1 - port});
        const Ref &onTrue = data[port == 1 ? 0 : 1];
        const Ref &onFalse = data[port == 1 ? 1 : 0];
        if (opposite)
          found.push_back({node, pred, refText(onTrue.node, onTrue.port),
                           refText(onFalse.node, onFalse.port)});
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
      result.merges.push_back(found[0]);
    }
    sidesOf[node->name()] = std::move(sides);
  }
  return result;
}


bool hasV1ControlFlow(const tensorflow::GraphDef &graph) {
  for (const NodeDef &node : graph.node())
    if (isEnter(node) || isSwitch(node) || isMerge(node))
      return true;
  return false;
}

Error functionalizeControlFlow(tensorflow::GraphDef &graph,
                               const std::string &file) {
  if (Error error = functionalize::rewriteConds(graph, file))
    return error;
  for (bool extracted = true; extracted;)
    if (Error error = functionalize::extractInnermostLoop(graph, file, extracted))
      return error;
  return Error::success();
}

} // namespace kiln::import::tf
