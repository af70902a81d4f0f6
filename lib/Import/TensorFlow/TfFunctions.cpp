//===- TfFunctions.cpp - The FunctionDef library of a GraphDef ------------===//
#include "TensorFlow/TfFunctions.h"
#include "TensorFlow/TfModel.h"
#include "TensorFlow/TfOpDefs.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace kiln::import::tf {

namespace {
/// "a:b:c" split at its colons.
std::vector<std::string> splitColons(const std::string &text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string::npos)
      return parts;
    start = colon + 1;
  }
}

/// The value of a decimal output index, or nullopt (not one, too large).
std::optional<int64_t> parseIndex(const std::string &text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      value < 0)
    return std::nullopt;
  return value;
}

std::string functionLabel(const tensorflow::FunctionDef &function) {
  return fmt::format("function '{}'", function.signature().name());
}
} // namespace

FunctionLibrary::FunctionLibrary(const tensorflow::FunctionDefLibrary &library,
                                 std::string file)
    : file_(std::move(file)) {
  // A repeated name keeps its first definition; TensorFlow rejects such a
  // library, and the body used is then at least deterministic.
  for (const tensorflow::FunctionDef &function : library.function())
    byName_.emplace(function.signature().name(), &function);
}

const tensorflow::FunctionDef *
FunctionLibrary::find(std::string_view name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : it->second;
}

Expected<std::string>
FunctionLibrary::flatInput(const NodesByName &nodes,
                           const std::string &input) const {
  if (!input.empty() && input.front() == '^')
    return input; // a control input names a node or an argument
  std::vector<std::string> parts = splitColons(input);
  if (parts.size() == 1 || (parts.size() == 2 && parseIndex(parts[1])))
    return input; // an argument, or a GraphDef-style "node:k"
  std::optional<int64_t> index =
      parts.size() == 3 ? parseIndex(parts[2]) : std::nullopt;
  if (!index)
    return makeError("input '{}' is neither an argument nor "
                     "\"node:out_arg:index\"",
                     input);
  auto found = nodes.find(parts[0]);
  if (found == nodes.end())
    return makeError("input '{}' names no node of the function", input);
  const tensorflow::NodeDef *producer = found->second;
  const tensorflow::FunctionDef *called = find(producer->op());
  Expected<int64_t> flat = flatOutputIndex(
      *producer, called ? &called->signature() : nullptr, parts[1], *index);
  if (!flat)
    return makeError("input '{}': {}", input, flat.errorMessage());
  return fmt::format("{}:{}", parts[0], *flat);
}

Expected<std::unique_ptr<FunctionBody>>
FunctionLibrary::build(const tensorflow::FunctionDef &function) const {
  auto body = std::make_unique<FunctionBody>();
  body->def = &function;
  std::string label = functionLabel(function);
  const tensorflow::OpDef &signature = function.signature();
  NodesByName nodes;
  for (const tensorflow::NodeDef &node : function.node_def())
    nodes.emplace(node.name(), &node);
  for (int i = 0; i < signature.input_arg_size(); ++i) {
    tensorflow::NodeDef *arg = body->graph.add_node();
    arg->set_name(signature.input_arg(i).name());
    arg->set_op(std::string(kArgOp));
    (*arg->mutable_attr())["T"].set_type(signature.input_arg(i).type());
    (*arg->mutable_attr())["index"].set_i(i);
  }
  for (const tensorflow::NodeDef &node : function.node_def()) {
    tensorflow::NodeDef *copy = body->graph.add_node();
    *copy = node;
    for (std::string &input : *copy->mutable_input()) {
      Expected<std::string> flat = flatInput(nodes, input);
      if (!flat)
        return makeError("{}, node '{}' ({}): {}", label, node.name(),
                         node.op(), flat.errorMessage());
      input = std::move(*flat);
    }
  }
  Expected<TfGraph> index = TfGraph::build(body->graph, label);
  if (!index)
    return index.takeError();
  body->index = std::make_unique<TfGraph>(std::move(*index));
  for (int i = 0; i < signature.input_arg_size(); ++i)
    body->arguments.push_back(size_t(i)); // the _Arg nodes come first

  std::vector<std::pair<size_t, std::string>> roots;
  for (const tensorflow::OpDef::ArgDef &output : signature.output_arg()) {
    auto ret = function.ret().find(output.name());
    if (ret == function.ret().end())
      return makeError("{}: output argument '{}' has no `ret` entry",
                       label, output.name());
    Expected<std::string> flat = flatInput(nodes, ret->second);
    if (!flat)
      return makeError("{}: output argument '{}': {}", label,
                       output.name(), flat.errorMessage());
    auto [name, outputIndex] = parseTensorName(*flat);
    int64_t node = body->index->find(name);
    if (node < 0)
      return makeError("{}: output argument '{}' returns '{}', which "
                       "names no node of the function",
                       label, output.name(), ret->second);
    body->returns.push_back({size_t(node), outputIndex, false});
    roots.emplace_back(size_t(node), fmt::format("output '{}'", output.name()));
  }
  size_t arguments = body->arguments.size();
  auto isArgument = [&](size_t node, int64_t) { return node < arguments; };
  std::set<size_t> needed;
  for (const auto &[node, root] : body->index->prune(roots, isArgument))
    if (!isArgument(node, 0))
      needed.insert(node);
  Expected<std::vector<size_t>> order =
      body->index->topologicalOrder(needed, isArgument);
  if (!order)
    return order.takeError();
  body->order = std::move(*order);
  return body;
}

Expected<const FunctionBody *> FunctionLibrary::body(std::string_view name) {
  auto cached = bodies_.find(name);
  if (cached != bodies_.end())
    return cached->second.get();
  const tensorflow::FunctionDef *function = find(name);
  if (!function)
    return makeError("function '{}' is not in the graph's function library{}",
                     name, byName_.empty() ? " (the graph has none)" : "");
  Expected<std::unique_ptr<FunctionBody>> built = build(*function);
  if (!built)
    return built.takeError();
  const FunctionBody *result = built->get();
  bodies_.emplace(std::string(name), std::move(*built));
  return result;
}

std::vector<std::string> calledFunctions(const tensorflow::NodeDef &node,
                                         const FunctionLibrary &library) {
  std::vector<std::string> names;
  std::vector<std::string> keys;
  for (const auto &[key, value] : node.attr())
    keys.push_back(key);
  std::sort(keys.begin(), keys.end()); // protobuf maps have no order
  for (const std::string &key : keys) {
    const tensorflow::AttrValue &value = node.attr().at(key);
    if (value.value_case() == tensorflow::AttrValue::kFunc)
      names.push_back(value.func().name());
    else if (value.value_case() == tensorflow::AttrValue::kList)
      for (const tensorflow::NameAttrList &function : value.list().func())
        names.push_back(function.name());
  }
  if (library.find(node.op()))
    names.push_back(node.op());
  return names;
}

} // namespace kiln::import::tf
