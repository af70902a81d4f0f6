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

#include "Common/BoundedResults.h"
#include "TensorFlow/TfGraphLowering.h"
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

class Lowering {
public:
  Lowering(TfPlan &plan, ir::Module &module, ir::Computation &entry)
      : plan_(plan), module_(module), builder_(entry),
        graph_({*plan.graph, *plan.state, plan.model, *plan.library, "", "",
                {}, named_, lists_},
               builder_, module) {}

  Error createParameters();
  Error lowerNode(size_t node) { return graph_.lowerNode(node); }
  Expected<std::vector<Value>> results();
  const DynamicShapes &dynamic() const { return builder_.dynamic(); }

private:
  Error checkFetch(const FetchSpec &fetch, Value value) const;

  TfPlan &plan_;
  ir::Module &module_;
  GraphBuilder builder_;
  std::set<Value> named_;
  ListMarks lists_;
  GraphLowering graph_;
};

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
      // The name --freeze takes, for messages about values computed from
      // the feed (TfListBuffers.cpp); the HLO name is mangled.
      if (feed.parameter)
        feed.parameter->setSourceNode(feed.name);
    }
    named_.insert(feed.parameter);
    plan_.state->fed[{feed.node, feed.index}] = feed.parameter;
  }
  for (VariableSpec &variable : plan_.state->variables) {
    variable.parameter =
        builder_.parameter(number++, variable.shape, hloName(variable.name));
    named_.insert(variable.parameter);
    graph_.define(variable.node, {variable.parameter});
  }
  if (Error error = builder_.takeError())
    return makeError("{}: error: {}", plan_.model.path, error.message());
  return Error::success();
}

// The config's optional fetch type and shape (-1 matches any size; along a
// dimension of run-time size, any size up to the bound).
Error Lowering::checkFetch(const FetchSpec &fetch, Value value) const {
  const ir::Shape &shape = value->shape();
  bool fits = !fetch.type || *fetch.type == shape.dtype();
  if (fetch.dims) {
    fits = fits && fetch.dims->size() == shape.dims().size();
    for (size_t i = 0; fits && i < fetch.dims->size(); ++i)
      fits = (*fetch.dims)[i] < 0 || (*fetch.dims)[i] == shape.dim(i) ||
             (builder_.dynamic().dim(value, int64_t(i)) &&
              (*fetch.dims)[i] <= shape.dim(i));
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
    Expected<Value> value = graph_.tensor(fetch.node, fetch.index,
                                          fmt::format("fetch '{}'", fetch.name));
    if (!value)
      return makeError("{}: error: {}", plan_.model.path, value.errorMessage());
    if (Error error = checkFetch(fetch, *value))
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
  Expected<std::vector<Value>> values = lowering.results();
  if (!values)
    return values.takeError();
  ImportedModel model;
  ResultList results{std::move(*values), {}};
  for (const FetchSpec &fetch : plan.fetches)
    results.names.push_back(fetch.name);
  for (const auto &[variable, value] : plan.state->updates)
    results.names.push_back(plan.state->variables[variable].name);
  if (Error error =
          appendBoundedCounts(lowering.dynamic(), plan.model.path,
                              plan.fetches.size(), results,
                              model.boundedResults))
    return error;
  GraphBuilder builder(*entry);
  Value root = results.values.size() == 1
                   ? results.values.front()
                   : builder.add(ir::Opcode::Tuple, results.values);
  if (Error error = builder.takeError())
    return makeError("{}: error: {}", plan.model.path, error.message());
  entry->setRoot(root);
  entry->removeDeadInstructions();
  if (Error error = ir::verifyModule(*module))
    return makeError("{}: internal error: the imported module does not "
                     "verify: {}",
                     plan.model.path, error.message());

  for (const FeedSpec &feed : plan.feeds)
    if (!feed.frozen)
      model.args.push_back(ArgMetadata::feed(feed.name));
  size_t feedArgs = model.args.size();
  for (const VariableSpec &variable : plan.state->variables)
    model.args.push_back(ArgMetadata::variableArg(variable.name, variable.readonly));
  size_t result = plan.fetches.size();
  for (const auto &[variable, value] : plan.state->updates)
    model.variableUpdates.push_back({result++, feedArgs + variable});
  model.resultNames = std::move(results.names);
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
