//===- TfFunctionalizeGraph.cpp - Graph edits of v1 functionalization -----===//
#include "TensorFlow/TfFunctionalizeGraph.h"

namespace kiln::import::tf::functionalize {

std::string uniqueFunctionName(const tensorflow::GraphDef &graph,
                               const std::string &base) {
  std::set<std::string> taken;
  for (const tensorflow::FunctionDef &function : graph.library().function())
    taken.insert(function.signature().name());
  std::string name = base;
  for (int k = 1; taken.count(name); ++k)
    name = fmt::format("{}_{}", base, k);
  return name;
}

void removeNodes(tensorflow::GraphDef &graph,
                 const std::set<std::string> &removed) {
  tensorflow::GraphDef kept;
  for (const NodeDef &node : graph.node()) {
    if (removed.count(node.name()))
      continue;
    NodeDef *copy = kept.add_node();
    *copy = node;
    auto *inputs = copy->mutable_input();
    inputs->erase(std::remove_if(inputs->begin(), inputs->end(),
                                 [&](const std::string &input) {
                                   return removed.count(parseRef(input).node);
                                 }),
                  inputs->end());
  }
  *kept.mutable_library() = graph.library();
  *kept.mutable_versions() = graph.versions();
  kept.set_version(graph.version());
  graph = std::move(kept);
}

Error gatherInputs(
    Nodes &nodes, const NodeDef &start, std::set<std::string> &closure,
    const std::function<Expected<bool>(const Ref &input, const NodeDef &user)>
        &visit) {
  std::vector<const NodeDef *> pending = {&start};
  while (!pending.empty()) {
    const NodeDef *node = pending.back();
    pending.pop_back();
    for (const std::string &input : node->input()) {
      Ref ref = parseRef(input);
      if (ref.control)
        continue;
      Expected<bool> joins = visit(ref, *node);
      if (!joins)
        return joins.takeError();
      if (*joins && closure.insert(ref.node).second)
        pending.push_back(nodes.find(ref.node));
    }
  }
  return Error::success();
}

} // namespace kiln::import::tf::functionalize
