//===- TfGraphLowering.cpp - Lowering the nodes of one TF graph -----------===//
#include "TensorFlow/TfGraphLowering.h"
#include "TensorFlow/TfDynamic.h"
#include "TensorFlow/TfTensor.h"

#include "kiln/IR/CallGraph.h"
#include "kiln/IR/Module.h"

#include <fmt/format.h>

#include <algorithm>

namespace kiln::import::tf {

std::string hloName(std::string_view name) {
  std::string result;
  for (char c : name) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    result += keep ? c : '_';
  }
  return result.empty() ? "value" : result;
}

GraphLowering::GraphLowering(GraphScope scope, GraphBuilder &builder,
                             ir::Module &module)
    : scope_(std::move(scope)), builder_(builder), module_(module),
      outputs_(scope_.graph.size()) {}

Error GraphLowering::nodeError(size_t node, const std::string &message) const {
  const tensorflow::NodeDef &def = scope_.graph.node(node);
  if (scope_.label.empty())
    return makeError("{}: node '{}' ({}): error: {}", scope_.model.path,
                     def.name(), def.op(), message);
  return makeError("{}, node '{}' ({}): {}", scope_.label, def.name(),
                   def.op(), message);
}

void GraphLowering::define(size_t node, std::vector<Value> outputs) {
  outputs_[node] = std::move(outputs);
}

Expected<Value> GraphLowering::tensor(size_t node, int64_t index,
                                      const std::string &user) {
  auto fed = scope_.state.fed.find({node, index});
  if (fed != scope_.state.fed.end())
    return fed->second;
  const std::vector<Value> &outputs = outputs_[node];
  if (index >= 0 && index < int64_t(outputs.size()) && outputs[size_t(index)])
    return outputs[size_t(index)];
  const tensorflow::NodeDef &def = scope_.graph.node(node);
  return makeError("{} uses output {} of node '{}' ({}), which produced {} "
                   "output{}",
                   user, index, def.name(), def.op(), outputs.size(),
                   outputs.size() == 1 ? "" : "s");
}

Expected<std::vector<Value>>
GraphLowering::dataInputs(size_t node, std::vector<NodeInput> &sources) {
  std::vector<Value> values;
  for (const NodeInput &input : scope_.graph.inputs(node)) {
    if (input.control)
      continue;
    Expected<Value> value = tensor(input.node, input.index, "the node");
    if (!value)
      return nodeError(node, value.errorMessage());
    values.push_back(*value);
    sources.push_back(input);
  }
  return values;
}

void GraphLowering::nameOutputs(size_t node, const std::vector<Value> &outputs) {
  const std::string &name = scope_.graph.node(node).name();
  for (size_t i = 0; i < outputs.size(); ++i) {
    Value value = outputs[i];
    if (!value || scope_.named.count(value))
      continue; // passed through (Identity) or named by its producer
    scope_.named.insert(value);
    std::string base = hloName(scope_.namePrefix +
                               (i == 0 ? name : fmt::format("{}:{}", name, i)));
    value->setName(module_.uniqueName(base));
  }
}

Error GraphLowering::lowerNode(size_t node) {
  if (scope_.state.byNode.count(node))
    return Error::success(); // a config variable: its parameter
  const tensorflow::NodeDef &def = scope_.graph.node(node);
  std::vector<NodeInput> sources;
  Expected<std::vector<Value>> inputs = dataInputs(node, sources);
  if (!inputs)
    return inputs.takeError();
  auto weight = scope_.model.weights.find(def.name());
  bool tfjs = scope_.model.format == "TensorFlow.js graph model";
  const ir::Literal *weightValue =
      weight == scope_.model.weights.end() ? nullptr : &weight->second;
  TfContext context(builder_, scope_.state, node, *inputs, sources,
                    weightValue, tfjs, *this, scope_.lists);
  TfLowering lower = findTfLowering(def.op());
  if (!lower && scope_.library.find(def.op()))
    lower = &lowerFunctionOp;
  assert(lower && "planning rejects unsupported ops");
  builder_.setSourceNode(def.name());
  if (hasDynamicInput(context)) {
    // The dynamic lowerings run the op's lowering again on other inputs.
    Relower relower = [&](TfLowering with, std::vector<Value> replaced) {
      TfContext again(builder_, scope_.state, node, std::move(replaced),
                      sources, weightValue, tfjs, *this, scope_.lists);
      with(again);
      if (!again.attributeError().empty())
        builder_.fail(again.attributeError());
      return again.takeOutputs();
    };
    lowerDynamicNode(context, lower, relower);
  } else {
    lower(context);
  }
  // An unreadable attribute is the cause of whatever else went wrong.
  if (!context.attributeError().empty()) {
    (void)builder_.takeError(); // a consequence of it
    return nodeError(node, context.attributeError());
  }
  if (Error error = builder_.takeError())
    return nodeError(node, error.message());
  outputs_[node] = context.takeOutputs();
  nameOutputs(node, outputs_[node]);
  return Error::success();
}

Error GraphLowering::checkArguments(const FunctionBody &body,
                                    const std::vector<Value> &arguments) const {
  const tensorflow::OpDef &signature = body.def->signature();
  if (arguments.size() != body.arguments.size())
    return makeError("function '{}' takes {} argument{} but is given {}",
                     signature.name(), body.arguments.size(),
                     body.arguments.size() == 1 ? "" : "s", arguments.size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    const tensorflow::OpDef::ArgDef &arg = signature.input_arg(int(i));
    if (arg.type() == tensorflow::DT_VARIANT)
      continue; // a TensorList: its buffer, of the element dtype
    std::optional<ir::DType> dtype = dtypeFromTf(arg.type());
    if (!dtype)
      return makeError("argument '{}' of function '{}' has type {}, which "
                       "kiln does not support",
                       arg.name(), signature.name(), tfDTypeName(arg.type()));
    if (arguments[i] && arguments[i]->shape().dtype() != *dtype)
      return makeError("argument '{}' of function '{}' is {} but is given {}",
                       arg.name(), signature.name(), ir::dtypeName(*dtype),
                       arguments[i]->shape().toString());
  }
  return Error::success();
}

Error GraphLowering::checkSupported(const FunctionBody &body) const {
  for (size_t node : body.order) {
    const tensorflow::NodeDef &def = body.index->node(node);
    if (findTfLowering(def.op()) || scope_.library.find(def.op()))
      continue;
    std::string_view reason = tfUnsupportedReason(def.op());
    return makeError("function '{}', node '{}': op {} is not supported{}{}",
                     body.def->signature().name(), def.name(), def.op(),
                     reason.empty() ? "" : ": ", reason);
  }
  return Error::success();
}

Expected<std::vector<Value>>
GraphLowering::callFunction(const std::string &function,
                            const std::vector<Value> &arguments,
                            GraphBuilder &into, const std::string &caller) {
  const std::vector<std::string> &stack = scope_.callStack;
  if (std::find(stack.begin(), stack.end(), function) != stack.end())
    return makeError("function '{}' calls itself ({} -> {}); kiln cannot "
                     "lower recursion",
                     function, fmt::join(stack, " -> "), function);
  if (int64_t(stack.size()) >= ir::kMaxCallDepth)
    return makeError("function '{}' is nested {} calls deep; kiln allows {}",
                     function, stack.size() + 1, ir::kMaxCallDepth);
  Expected<const FunctionBody *> found = scope_.library.body(function);
  if (!found)
    return found.takeError();
  const FunctionBody &body = **found;
  if (Error error = checkArguments(body, arguments))
    return error;
  if (Error error = checkSupported(body))
    return error;

  VariableState state{*body.index, {}, {}, {}, {}};
  for (size_t i = 0; i < arguments.size(); ++i)
    state.fed[{body.arguments[i], 0}] = arguments[i];
  std::vector<std::string> callStack = stack;
  callStack.push_back(function);
  GraphLowering inner({*body.index, state, scope_.model, scope_.library,
                       fmt::format("function '{}'", function),
                       scope_.namePrefix + caller + "/", std::move(callStack),
                       scope_.named, scope_.lists},
                      into, module_);
  // Instructions made for the body record its nodes; the caller's node is
  // restored for whatever the caller builds next.
  std::string callerNode = into.setSourceNode({});
  Error error = Error::success();
  for (size_t node : body.order)
    if ((error = inner.lowerNode(node)))
      break;
  into.setSourceNode(std::move(callerNode));
  if (error)
    return error;
  std::vector<Value> outputs;
  for (size_t i = 0; i < body.returns.size(); ++i) {
    const NodeInput &ret = body.returns[i];
    Expected<Value> value = inner.tensor(
        ret.node, ret.index,
        fmt::format("function '{}' output '{}'", function,
                    body.def->signature().output_arg(int(i)).name()));
    if (!value)
      return value.takeError();
    // A callee computation's results are static to its caller: a padded
    // run-time sized value would be read as data there. (An inlined body
    // shares the caller's builder, and with it the dynamic dims.)
    if (&into != &builder_ && into.dynamic().hasDynamicDims(*value))
      return makeError("function '{}' output '{}' has a run-time sized "
                       "dimension (from node '{}'), which kiln cannot return "
                       "from a loop body or a branch",
                       function, body.def->signature().output_arg(int(i)).name(),
                       into.dynamic().originOf(*value));
    outputs.push_back(*value);
  }
  return outputs;
}

} // namespace kiln::import::tf
