//===- TfFunctionalizeGraph.cpp - Graph edits of v1 functionalization -----===//
#include "TensorFlow/TfFunctionalizeGraph.h"

namespace kiln::import::tf::functionalize {

/// Whether `ref` is a TensorArray's handle or flow, or a value passed on
/// unchanged from one (through Identity and loop plumbing, or a loop or
/// cond already functionalized that types it DT_VARIANT).
namespace {
bool carriesTensorArray(Nodes &nodes, Ref ref) {
  for (int depth = 0; depth < 1000; ++depth) {
    const NodeDef *node = nodes.find(ref.node);
    if (!node)
      return false;
    const std::string &op = node->op();
    if (op == "TensorArrayV3")
      return true;
    if (op == "TensorArrayWriteV3" || op == "TensorArrayScatterV3" ||
        op == "TensorArraySplitV3")
      return ref.port == 0; // flow_out
    if (op == "StatelessWhile" || op == "StatelessIf") {
      auto types = node->attr().find(op == "StatelessIf" ? "Tout" : "T");
      return types != node->attr().end() && ref.port >= 0 &&
             ref.port < types->second.list().type_size() &&
             types->second.list().type(int(ref.port)) == tensorflow::DT_VARIANT;
    }
    bool passesOn = isEnter(*node) || isExit(*node) || isMerge(*node) ||
                    isSwitch(*node) || isNextIteration(*node) ||
                    op == "Identity";
    if (!passesOn || node->input_size() == 0)
      return false;
    ref = parseRef(node->input(0));
  }
  return false;
}
} // namespace

tensorflow::DataType carriedType(Nodes &nodes, const Ref &ref,
                                 tensorflow::DataType declared) {
  return carriesTensorArray(nodes, ref) ? tensorflow::DT_VARIANT : declared;
}

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
