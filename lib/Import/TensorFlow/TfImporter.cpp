//===- TfImporter.cpp - TensorFlow GraphDef / TF.js model -> HLO module ---===//
//
// The import runs in two phases. Planning (TfPlan.cpp) reads the model and
// config, resolves feeds, fetches and variables, prunes the graph and
// checks it as a whole: every unsupported op at once, unfed placeholders,
// cycles. Lowering (here) creates the entry parameters and walks the pruned
// graph in topological order, calling each op's lowering through a
// TfContext and prefixing its errors with the file, node and op.
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/TensorFlow.h"

#include "TensorFlow/TfContext.h"
#include "TensorFlow/TfPlan.h"
#include "TensorFlow/TfTensor.h"

#include "kiln/IR/Module.h"
#include "kiln/IR/Verifier.h"

#include <fmt/format.h>

#include <filesystem>
#include <set>

namespace kiln::import {

namespace tf {
namespace {

/// HLO names allow [A-Za-z0-9_.-]; TensorFlow's '/' and ':' become '_'.
std::string hloName(std::string_view name) {
  std::string result;
  for (char c : name) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    result += keep ? c : '_';
  }
  return result.empty() ? "value" : result;
}

class Lowering {
public:
  Lowering(TfPlan &plan, ir::Module &module, ir::Computation &entry)
      : plan_(plan), module_(module), builder_(entry),
        outputs_(plan.graph->size()) {}

  Error createParameters();
  Error lowerNode(size_t node);
  Expected<std::vector<Value>> results();

private:
  Expected<std::vector<Value>> dataInputs(size_t node,
                                          std::vector<NodeInput> &sources);
  Expected<Value> tensor(size_t node, int64_t index, const std::string &user);
  Error checkFetch(const FetchSpec &fetch, const ir::Shape &shape) const;
  void nameOutputs(size_t node, const std::vector<Value> &outputs);
  Error nodeError(size_t node, const std::string &message) const;

  TfPlan &plan_;
  ir::Module &module_;
  GraphBuilder builder_;
  std::vector<std::vector<Value>> outputs_;
  std::set<Value> named_;
};

Error Lowering::nodeError(size_t node, const std::string &message) const {
  const tensorflow::NodeDef &def = plan_.graph->node(node);
  return makeError("{}: node '{}' ({}): error: {}", plan_.model.path,
                   def.name(), def.op(), message);
}

Error Lowering::createParameters() {
  int64_t number = 0;
  for (FeedSpec &feed : plan_.feeds) {
    if (feed.frozen) {
      feed.parameter = builder_.constant(*feed.frozen);
      if (feed.parameter)
        feed.parameter->setName(module_.uniqueName(hloName(feed.name)));
    } else {
      feed.parameter =
          builder_.parameter(number++, feed.shape, hloName(feed.name));
    }
    named_.insert(feed.parameter);
    plan_.state->fed[{feed.node, feed.index}] = feed.parameter;
  }
  for (VariableSpec &variable : plan_.state->variables) {
    variable.parameter =
        builder_.parameter(number++, variable.shape, hloName(variable.name));
    named_.insert(variable.parameter);
    outputs_[variable.node] = {variable.parameter};
  }
  if (Error error = builder_.takeError())
    return makeError("{}: error: {}", plan_.model.path, error.message());
  return Error::success();
}

Expected<Value> Lowering::tensor(size_t node, int64_t index,
                                 const std::string &user) {
  auto fed = plan_.state->fed.find({node, index});
  if (fed != plan_.state->fed.end())
    return fed->second;
  const std::vector<Value> &outputs = outputs_[node];
  if (index >= 0 && index < int64_t(outputs.size()) && outputs[size_t(index)])
    return outputs[size_t(index)];
  const tensorflow::NodeDef &def = plan_.graph->node(node);
  return makeError("{} uses output {} of node '{}' ({}), which produced {} "
                   "output{}",
                   user, index, def.name(), def.op(), outputs.size(),
                   outputs.size() == 1 ? "" : "s");
}

Expected<std::vector<Value>>
Lowering::dataInputs(size_t node, std::vector<NodeInput> &sources) {
  std::vector<Value> values;
  for (const NodeInput &input : plan_.graph->inputs(node)) {
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

void Lowering::nameOutputs(size_t node, const std::vector<Value> &outputs) {
  const std::string &name = plan_.graph->node(node).name();
  for (size_t i = 0; i < outputs.size(); ++i) {
    Value value = outputs[i];
    if (!value || named_.count(value))
      continue; // passed through (Identity) or named by its producer
    named_.insert(value);
    std::string base = hloName(i == 0 ? name : fmt::format("{}:{}", name, i));
    value->setName(module_.uniqueName(base));
  }
}

Error Lowering::lowerNode(size_t node) {
  if (plan_.state->byNode.count(node))
    return Error::success(); // a config variable: its parameter
  const tensorflow::NodeDef &def = plan_.graph->node(node);
  std::vector<NodeInput> sources;
  Expected<std::vector<Value>> inputs = dataInputs(node, sources);
  if (!inputs)
    return inputs.takeError();
  auto weight = plan_.model.weights.find(def.name());
  TfContext context(builder_, *plan_.state, node, std::move(*inputs),
                    std::move(sources),
                    weight == plan_.model.weights.end() ? nullptr : &weight->second,
                    plan_.isTfJs());
  TfLowering lower = findTfLowering(def.op());
  assert(lower && "planning rejects unsupported ops");
  builder_.setSourceNode(def.name());
  lower(context);
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

// The config's optional fetch type and shape (-1 matches any size).
Error Lowering::checkFetch(const FetchSpec &fetch, const ir::Shape &shape) const {
  bool fits = !fetch.type || *fetch.type == shape.dtype();
  if (fetch.dims) {
    fits = fits && fetch.dims->size() == shape.dims().size();
    for (size_t i = 0; fits && i < fetch.dims->size(); ++i)
      fits = (*fetch.dims)[i] < 0 || (*fetch.dims)[i] == shape.dim(i);
  }
  if (fits)
    return Error::success();
  return makeError("{}: error: fetch '{}' is {} but the config says {}{}",
                   plan_.configName, fetch.name, shape.toString(),
                   fetch.type ? ir::dtypeName(*fetch.type) : "",
                   fetch.dims ? describeDims(fetch.dims) : "");
}

Expected<std::vector<Value>> Lowering::results() {
  std::vector<Value> values;
  for (const FetchSpec &fetch : plan_.fetches) {
    Expected<Value> value =
        tensor(fetch.node, fetch.index, fmt::format("fetch '{}'", fetch.name));
    if (!value)
      return makeError("{}: error: {}", plan_.model.path, value.errorMessage());
    if (Error error = checkFetch(fetch, (*value)->shape()))
      return error;
    values.push_back(*value);
  }
  for (const auto &[variable, value] : plan_.state->updates)
    values.push_back(value);
  return values;
}

std::string moduleName(const std::string &path) {
  return hloName(std::filesystem::path(path).stem().string());
}

Expected<ImportedModel> lowerPlan(TfPlan &plan) {
  assert(plan.staticShapes && "summary plans are never lowered");
  auto module = std::make_unique<ir::Module>(moduleName(plan.model.path));
  ir::Computation *entry = module->addComputation("main");
  module->setEntry(entry);
  Lowering lowering(plan, *module, *entry);
  if (Error error = lowering.createParameters())
    return error;
  for (size_t node : plan.order)
    if (Error error = lowering.lowerNode(node))
      return error;
  Expected<std::vector<Value>> results = lowering.results();
  if (!results)
    return results.takeError();
  GraphBuilder builder(*entry);
  Value root = results->size() == 1
                   ? results->front()
                   : builder.add(ir::Opcode::Tuple, *results);
  if (Error error = builder.takeError())
    return makeError("{}: error: {}", plan.model.path, error.message());
  entry->setRoot(root);
  entry->removeDeadInstructions();
  if (Error error = ir::verifyModule(*module))
    return makeError("{}: internal error: the imported module does not "
                     "verify: {}",
                     plan.model.path, error.message());

  ImportedModel model;
  for (const FeedSpec &feed : plan.feeds)
    if (!feed.frozen)
      model.args.push_back({feed.name, false, true});
  size_t feedArgs = model.args.size();
  for (const VariableSpec &variable : plan.state->variables)
    model.args.push_back({variable.name, true, variable.readonly});
  for (const FetchSpec &fetch : plan.fetches)
    model.resultNames.push_back(fetch.name);
  for (const auto &[variable, value] : plan.state->updates) {
    model.variableUpdates.push_back(
        {model.resultNames.size(), feedArgs + variable});
    model.resultNames.push_back(plan.state->variables[variable].name);
  }
  model.summary = plan.summary;
  model.module = std::move(module);
  return model;
}
} // namespace
} // namespace tf

Expected<ImportedModel> importTensorFlow(const std::string &path,
                                         const ImportOptions &options) {
  Expected<std::unique_ptr<tf::TfPlan>> plan = tf::planImport(path, options);
  if (!plan)
    return plan.takeError();
  if (Error error = (*plan)->check())
    return error;
  return tf::lowerPlan(**plan);
}

namespace {
/// The fetches with the `type` and `shape` their config entries declare.
std::vector<DeclaredTensor> declaredFetches(const tf::TfPlan &plan) {
  std::vector<DeclaredTensor> outputs;
  for (const tf::FetchSpec &fetch : plan.fetches)
    outputs.push_back(declaredFromSizes(fetch.name, fetch.type, fetch.dims));
  return outputs;
}
} // namespace

Expected<SourceSummary> summarizeTensorFlow(const std::string &path,
                                            const ImportOptions &options) {
  Expected<std::unique_ptr<tf::TfPlan>> plan =
      tf::planImport(path, options, tf::PlanPurpose::Summary);
  if (!plan)
    return plan.takeError();
  SourceSummary summary = (*plan)->summary;
  // The feeds are all --shape may miss only when the plan passes the
  // import's checks (unsupported ops, unfed placeholders, cycles).
  if (Error error = (*plan)->check(); !error)
    summary.inputs = (*plan)->declaredFeeds;
  summary.outputs = declaredFetches(**plan);
  return summary;
}

} // namespace kiln::import
