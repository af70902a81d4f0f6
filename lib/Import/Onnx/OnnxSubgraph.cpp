//===- OnnxSubgraph.cpp - ONNX subgraphs as computations of their own -----===//
//
// Loop, Scan and a computed If lower their graph attributes into callee
// computations that a `while`, `call` or `conditional` runs, so the program
// does not grow with the trip count. One helper does it for all of them:
// the computation takes one tuple parameter (the subgraph's inputs, then
// every outer value it reads) and returns the tuple of its outputs.
//
// ONNX subgraphs read names of enclosing graphs directly. A computation can
// only read its parameter, so those names are found before lowering (a
// syntactic scan of the subgraph, nested subgraphs included) and passed in
// as extra tuple elements ("captures"); outer constants are cloned into the
// callee instead, so shape computations still fold and weights stay
// constants there.
//
//===----------------------------------------------------------------------===//
#include "Onnx/OnnxGraph.h"
#include "Onnx/OnnxWhile.h"

#include "kiln/IR/Module.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

namespace kiln::import::onnx {

namespace {

/// Names used and defined anywhere in `graph`, nested subgraphs included.
void collectNames(const onnxpb::GraphProto &graph, std::set<std::string> &used,
                  std::set<std::string> &defined) {
  for (const onnxpb::ValueInfoProto &input : graph.input())
    defined.insert(input.name());
  for (const onnxpb::TensorProto &tensor : graph.initializer())
    defined.insert(tensor.name());
  for (const onnxpb::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input())
      if (!input.empty())
        used.insert(input);
    for (const std::string &output : node.output())
      defined.insert(output);
    for (const onnxpb::AttributeProto &attribute : node.attribute()) {
      if (attribute.has_g())
        collectNames(attribute.g(), used, defined);
      for (const onnxpb::GraphProto &nested : attribute.graphs())
        collectNames(nested, used, defined);
    }
  }
  for (const onnxpb::ValueInfoProto &output : graph.output())
    used.insert(output.name());
}

/// The names `graph` reads from enclosing scopes, sorted (deterministic).
/// A name a nested subgraph defines counts as defined everywhere: an
/// approximation that only matters for a model reusing one name at two
/// depths, which ONNX forbids (names are SSA across a model).
std::vector<std::string> outerNames(const onnxpb::GraphProto &graph) {
  std::set<std::string> used, defined;
  collectNames(graph, used, defined);
  std::vector<std::string> names;
  for (const std::string &name : used)
    if (!defined.count(name))
      names.push_back(name);
  return names;
}

} // namespace

Value OnnxGraph::find(const std::string &name) {
  for (OnnxGraph *scope = this; scope; scope = scope->parent_)
    if (Value value = scope->findLocal(name))
      return value;
  return nullptr;
}

std::optional<OnnxNodeContext::Subgraph>
OnnxContext::buildSubgraph(std::string_view key,
                           const std::vector<ir::Shape> &inputShapes,
                           std::string_view role) {
  const onnxpb::GraphProto *graph = subgraphAttribute(key, inputShapes.size());
  if (!graph)
    return std::nullopt;
  const onnxpb::GraphProto &body = *graph;
  ir::Module *module = builder_.computation().parent();
  if (!module) {
    fail("internal error: the graph's computation is not in a module");
    return std::nullopt;
  }
  Subgraph result;
  std::vector<std::pair<std::string, Value>> constants, captured;
  for (const std::string &name : outerNames(body)) {
    Value outer = graph_.find(name);
    if (!builder_.ok())
      return std::nullopt;
    if (!outer) // unknown anywhere: lowering the subgraph reports it
      continue;
    if (outer->opcode() == ir::Opcode::Constant)
      constants.emplace_back(name, outer);
    else
      captured.emplace_back(name, outer);
  }
  std::vector<ir::Shape> elements = inputShapes;
  for (const auto &[name, outer] : captured) {
    elements.push_back(outer->shape());
    result.captures.push_back(outer);
  }

  std::string calleeName =
      module->uniqueName(computationName(fmt::format("{}.{}", name_, role)));
  result.computation = module->addComputationBefore(
      std::make_unique<ir::Computation>(calleeName), &builder_.computation());
  GraphBuilder callee(*result.computation);
  callee.setSourceNode(name_);
  Value parameter = callee.parameter(0, ir::Shape::tuple(elements),
                                     module->uniqueName(calleeName + ".state"));
  std::vector<Value> values = callee.tupleElements(parameter);
  OnnxGraph scope(callee, body, graph_.baseDir());
  for (size_t i = 0; i < inputShapes.size(); ++i)
    scope.define(body.input(int(i)).name(), values[i]);
  for (size_t i = 0; i < captured.size(); ++i)
    scope.define(captured[i].first, values[inputShapes.size() + i]);
  for (const auto &[name, outer] : constants)
    scope.define(name, callee.constant(outer->literal()));
  Error error = scope.lowerNodes(body.node(), opset_);
  std::vector<Value> outputs;
  for (const onnxpb::ValueInfoProto &output : body.output()) {
    if (error)
      break;
    Value value = scope.lookup(output.name());
    if (!value)
      error = makeError("output '{}': {}", output.name(),
                        callee.takeError().message());
    else if (value->shape().isTuple())
      error = makeError("output '{}' is a tuple", output.name());
    else
      outputs.push_back(value);
  }
  if (!error) {
    Value root = callee.tuple(outputs);
    error = callee.takeError();
    if (!error)
      result.computation->setRoot(root);
  }
  if (error) {
    fail(fmt::format("in subgraph '{}': {}", key, error.message()));
    // Nothing calls it yet; a half-built computation must not reach the
    // verifier or a dump.
    module->removeComputation(result.computation);
    return std::nullopt;
  }
  for (Value output : outputs)
    result.outputShapes.push_back(output->shape());
  return result;
}

} // namespace kiln::import::onnx
