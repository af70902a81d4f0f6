//===- TfPlan.cpp - Resolving feeds, fetches, variables; pruning; checks --===//
#include "TensorFlow/TfFunctionalize.h"
#include "TensorFlow/TfPlan.h"
#include "TensorFlow/TfTensor.h"

#include "kiln/IR/Verifier.h"
#include "kiln/Import/FrozenInputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kiln::import::tf {

namespace {
using ShapeOverrides = std::map<std::string, std::vector<int64_t>>;

// Ops that write the variable named by their first input.
constexpr std::string_view kUpdatePrefixes[] = {
    "Assign", "Apply", "ResourceApply", "ScatterUpdate", "ResourceScatter"};

// Ops with no outputs: never a default fetch.
constexpr std::string_view kNoOutputs[] = {"NoOp", "Assert", "SaveV2",
                                           "AssignVariableOp"};

bool startsWithAny(std::string_view text,
                   std::span<const std::string_view> prefixes) {
  for (std::string_view prefix : prefixes)
    if (text.substr(0, prefix.size()) == prefix)
      return true;
  return false;
}

bool isOneOf(std::string_view text, std::span<const std::string_view> list) {
  for (std::string_view item : list)
    if (text == item)
      return true;
  return false;
}

/// Whether a declared shape is fully known (-1: an unknown dimension).
bool allKnown(const std::optional<std::vector<int64_t>> &dims) {
  return dims && std::all_of(dims->begin(), dims->end(),
                             [](int64_t dim) { return dim >= 0; });
}

tensorflow::TensorShapeProto shapeProto(const std::vector<int64_t> &dims) {
  tensorflow::TensorShapeProto shape;
  for (int64_t dim : dims)
    shape.add_dim()->set_size(dim);
  return shape;
}

// Feeds and fetches when there is no --config: the TF.js signature's inputs
// and outputs where it lists them, else the Placeholders and the nodes
// nothing consumes (as TF.js does for a model without a signature).
tensorflow::tf2xla::Config defaultConfig(const TfModel &model,
                                         const TfGraph &graph) {
  tensorflow::tf2xla::Config config;
  for (const SignatureTensor &input : model.signatureInputs) {
    tensorflow::tf2xla::Feed *feed = config.add_feed();
    feed->mutable_id()->set_node_name(input.node);
    feed->mutable_id()->set_output_index(input.index);
    feed->set_name(parseTensorName(input.key).first);
    feed->set_type(input.type);
    if (input.dims)
      *feed->mutable_shape() = shapeProto(*input.dims);
  }
  for (const SignatureTensor &output : model.signatureOutputs) {
    tensorflow::tf2xla::Fetch *fetch = config.add_fetch();
    fetch->mutable_id()->set_node_name(output.node);
    fetch->mutable_id()->set_output_index(output.index);
    fetch->set_name(output.key);
  }
  bool defaultFeeds = config.feed_size() == 0, defaultFetches = config.fetch_size() == 0;
  for (size_t i = 0; i < graph.size(); ++i) {
    const tensorflow::NodeDef &node = graph.node(i);
    if (node.op() == "Placeholder") {
      if (!defaultFeeds)
        continue;
      tensorflow::tf2xla::Feed *feed = config.add_feed();
      feed->mutable_id()->set_node_name(node.name());
      feed->set_name(node.name());
    } else if (defaultFetches && !graph.hasConsumers(i) &&
               !isOneOf(node.op(), kNoOutputs)) {
      tensorflow::tf2xla::Fetch *fetch = config.add_fetch();
      fetch->mutable_id()->set_node_name(node.name());
      fetch->set_name(node.name());
    }
  }
  return config;
}

class Planner {
public:
  Planner(TfPlan &plan, ShapeOverrides shapes,
          std::map<std::string, FrozenInput> frozen, PlanPurpose purpose)
      : plan_(plan), shapes_(std::move(shapes)), frozen_(std::move(frozen)),
        purpose_(purpose) {}

  Error resolve(const tensorflow::tf2xla::Config &config);
  void prune();
  void summarize();

private:
  Expected<size_t> findNode(const std::string &name, std::string_view what);
  /// A feed's dtype and dims as the config or node declares them, with
  /// --shape applied (-1: unknown).
  struct DeclaredFeed {
    ir::DType dtype;
    std::optional<std::vector<int64_t>> dims;
  };
  Expected<DeclaredFeed> declaredFeed(const tensorflow::tf2xla::Feed &feed,
                                      const std::string &name, size_t node);
  Expected<ir::Shape> feedShape(const DeclaredFeed &declared,
                                const std::string &name);
  /// The shape of a feed's entry parameter: its frozen value's, else the
  /// static declared one (a summary takes unknown dimensions too).
  Expected<ir::Shape>
  parameterShape(const DeclaredFeed &declared, const std::string &name,
                 const std::optional<ir::Literal> &frozenValue);
  Error resolveFeed(const tensorflow::tf2xla::Feed &feed);
  Error resolveVariable(const tensorflow::tf2xla::Variable &variable);
  Error resolveFetch(const tensorflow::tf2xla::Fetch &fetch);
  Error checkShapesUsed() const;
  Error checkFrozenNames(const tensorflow::tf2xla::Config &config) const;
  bool dependsOnStep(size_t update) const;
  void noteUnsupported(const tensorflow::NodeDef &def, const std::string &label,
                       std::map<std::string, size_t> &unsupportedIndex);
  void summarizeFunctions(std::map<std::string, size_t> &unsupportedIndex);

  TfPlan &plan_;
  ShapeOverrides shapes_;
  std::map<std::string, FrozenInput> frozen_; ///< --freeze, by feed name
  PlanPurpose purpose_;
};

Expected<size_t> Planner::findNode(const std::string &name,
                                   std::string_view what) {
  int64_t node = plan_.graph->find(name);
  if (node >= 0)
    return size_t(node);
  return makeError("{}: error: {} names node '{}', which is not in the graph "
                   "{}",
                   plan_.configName, what, name, plan_.model.path);
}

/// The input name of a feed: its config name, else the tensor's name.
std::string feedName(const tensorflow::tf2xla::Feed &feed) {
  const std::string &nodeName = feed.id().node_name();
  int64_t index = feed.id().output_index();
  if (!feed.name().empty())
    return feed.name();
  return index == 0 ? nodeName : fmt::format("{}:{}", nodeName, index);
}

// A node's element type from its attributes, for feeds without `type`.
std::optional<tensorflow::DataType> nodeType(const tensorflow::NodeDef &node) {
  for (const char *key : {"dtype", "T"}) {
    auto it = node.attr().find(key);
    if (it != node.attr().end() &&
        it->second.value_case() == tensorflow::AttrValue::kType)
      return it->second.type();
  }
  return std::nullopt;
}

Expected<Planner::DeclaredFeed>
Planner::declaredFeed(const tensorflow::tf2xla::Feed &feed,
                      const std::string &name, size_t node) {
  const tensorflow::NodeDef &def = plan_.graph->node(node);
  std::optional<tensorflow::DataType> type =
      feed.type() != tensorflow::DT_INVALID ? feed.type() : nodeType(def);
  if (!type)
    return makeError("{}: error: input '{}': cannot tell the type of node "
                     "'{}' ({}); set `type` in its feed",
                     plan_.configName, name, def.name(), def.op());
  std::optional<ir::DType> dtype = dtypeFromTf(*type);
  if (!dtype)
    return makeError("{}: error: input '{}' has type {}, which kiln does not "
                     "support",
                     plan_.configName, name, tfDTypeName(*type));
  std::optional<std::vector<int64_t>> dims;
  auto shapeAttr = def.attr().find("shape");
  if (feed.has_shape())
    dims = dimsFromShape(feed.shape());
  else if (shapeAttr != def.attr().end() && shapeAttr->second.has_shape())
    dims = dimsFromShape(shapeAttr->second.shape());
  auto override = shapes_.find(name);
  if (override == shapes_.end())
    override = shapes_.find(def.name());
  if (override != shapes_.end()) {
    const std::vector<int64_t> &fixed = override->second;
    bool fits = !dims || dims->size() == fixed.size();
    for (size_t i = 0; dims && fits && i < fixed.size(); ++i)
      fits = (*dims)[i] < 0 || (*dims)[i] == fixed[i];
    if (!fits)
      return makeError("--shape {}={}: input '{}' has shape {}; --shape may "
                       "only fix its unknown (-1) dimensions",
                       override->first, fmt::join(fixed, ","), name,
                       describeDims(dims));
    dims = fixed;
    shapes_.erase(override);
  }
  return DeclaredFeed{*dtype, std::move(dims)};
}

Expected<ir::Shape> Planner::feedShape(const DeclaredFeed &declared,
                                       const std::string &name) {
  const std::optional<std::vector<int64_t>> &dims = declared.dims;
  if (!allKnown(dims))
    return makeError("{}: error: input '{}' has shape {} with unknown "
                     "dimensions; fix them with --shape {}=D0,D1,...",
                     plan_.model.path, name, describeDims(dims), name);
  ir::Shape shape(declared.dtype, *dims);
  // Here, not in the verifier after import: a config or --shape may declare
  // any dimensions, and the error must name the input, not an instruction.
  if (Error error = ir::verifyShape(shape, fmt::format("input '{}'", name)))
    return makeError("{}: error: {}", plan_.configName, error.message());
  return shape;
}

Expected<ir::Shape>
Planner::parameterShape(const DeclaredFeed &declared, const std::string &name,
                        const std::optional<ir::Literal> &frozenValue) {
  if (frozenValue)
    return frozenValue->shape();
  if (purpose_ == PlanPurpose::Summary && !allKnown(declared.dims)) {
    // A summary is never lowered: the feed needs a shape only to exist.
    plan_.staticShapes = false;
    return ir::Shape::scalar(declared.dtype);
  }
  return feedShape(declared, name);
}

Error Planner::resolveFeed(const tensorflow::tf2xla::Feed &feed) {
  const std::string &nodeName = feed.id().node_name();
  int64_t index = feed.id().output_index();
  if (index < 0)
    return makeError("{}: error: feed of node '{}' has a negative "
                     "output_index {}",
                     plan_.configName, nodeName, index);
  std::string name = feedName(feed);
  Expected<size_t> node = findNode(nodeName, fmt::format("feed '{}'", name));
  if (!node)
    return node.takeError();
  Expected<DeclaredFeed> declared = declaredFeed(feed, name, *node);
  if (!declared)
    return declared.takeError();
  // A frozen feed is still fed (pruning stops there), by a constant.
  std::optional<ir::Literal> frozenValue;
  auto frozen = frozen_.find(name);
  if (frozen != frozen_.end()) {
    Expected<ir::Literal> literal = frozenLiteral(
        name, frozen->second, declared->dtype, declared->dims);
    if (!literal)
      return makeError("{}: error: {}", plan_.model.path,
                       literal.errorMessage());
    frozenValue = std::move(*literal);
  }
  if (!frozenValue)
    plan_.declaredFeeds.push_back(
        declaredFromSizes(name, declared->dtype, declared->dims));
  Expected<ir::Shape> shape = parameterShape(*declared, name, frozenValue);
  if (!shape)
    return shape.takeError();
  if (!plan_.state->fed.emplace(std::pair(*node, index), nullptr).second)
    return makeError("{}: error: tensor '{}:{}' is fed twice",
                     plan_.configName, nodeName, index);
  plan_.feeds.push_back(
      {name, *node, index, std::move(*shape), nullptr, std::move(frozenValue)});
  return Error::success();
}

Error Planner::resolveVariable(const tensorflow::tf2xla::Variable &variable) {
  const std::string &nodeName = variable.node_name();
  std::string name = variable.name().empty() ? nodeName : variable.name();
  Expected<size_t> node = findNode(nodeName, fmt::format("variable '{}'", name));
  if (!node)
    return node.takeError();
  const tensorflow::NodeDef &def = plan_.graph->node(*node);
  std::optional<tensorflow::DataType> type =
      variable.type() != tensorflow::DT_INVALID ? variable.type() : nodeType(def);
  std::optional<ir::DType> dtype = type ? dtypeFromTf(*type) : std::nullopt;
  std::optional<std::vector<int64_t>> dims;
  auto shapeAttr = def.attr().find("shape");
  if (variable.has_shape())
    dims = dimsFromShape(variable.shape());
  else if (shapeAttr != def.attr().end() && shapeAttr->second.has_shape())
    dims = dimsFromShape(shapeAttr->second.shape());
  bool known = dims.has_value();
  for (size_t i = 0; known && i < dims->size(); ++i)
    known = (*dims)[i] >= 0;
  if (!dtype || !known)
    return makeError("{}: error: variable '{}': give its `type` and a fully "
                     "known `shape` in the config (found {} {})",
                     plan_.configName, name,
                     type ? tfDTypeName(*type) : "no type", describeDims(dims));
  if (plan_.state->byNode.count(*node))
    return makeError("{}: error: node '{}' is listed as a variable twice",
                     plan_.configName, nodeName);
  ir::Shape shape(*dtype, *dims);
  if (Error error = ir::verifyShape(shape, fmt::format("variable '{}'", name)))
    return makeError("{}: error: {}", plan_.configName, error.message());
  plan_.state->byNode[*node] = plan_.state->variables.size();
  plan_.state->variables.push_back(
      {name, *node, std::move(shape), variable.readonly(), nullptr});
  return Error::success();
}

Error Planner::resolveFetch(const tensorflow::tf2xla::Fetch &fetch) {
  const std::string &nodeName = fetch.id().node_name();
  int64_t index = fetch.id().output_index();
  if (index < 0)
    return makeError("{}: error: fetch of node '{}' has a negative "
                     "output_index {}",
                     plan_.configName, nodeName, index);
  std::string name = !fetch.name().empty()
                         ? fetch.name()
                         : fmt::format("{}:{}", nodeName, index);
  Expected<size_t> node = findNode(nodeName, fmt::format("fetch '{}'", name));
  if (!node)
    return node.takeError();
  FetchSpec spec{name, *node, index, std::nullopt, std::nullopt};
  if (fetch.type() != tensorflow::DT_INVALID)
    spec.type = dtypeFromTf(fetch.type());
  if (fetch.has_shape())
    spec.dims = dimsFromShape(fetch.shape());
  plan_.fetches.push_back(std::move(spec));
  return Error::success();
}

Error Planner::checkShapesUsed() const {
  if (shapes_.empty())
    return Error::success();
  std::vector<std::string> inputs;
  for (const FeedSpec &feed : plan_.feeds)
    inputs.push_back(feed.name);
  return makeError("--shape {}=...: the model has no input of that name "
                   "(inputs: {})",
                   shapes_.begin()->first,
                   inputs.empty() ? "none" : fmt::format("{}", fmt::join(inputs, ", ")));
}

// Checked before any feed is resolved, so a misspelt --freeze is reported
// rather than the unknown shape of the input it was meant for.
Error Planner::checkFrozenNames(
    const tensorflow::tf2xla::Config &config) const {
  std::vector<std::string> inputs;
  for (const tensorflow::tf2xla::Feed &feed : config.feed())
    inputs.push_back(feedName(feed));
  if (Error error = unknownFrozenInputs(frozen_, inputs, inputs))
    return makeError("{}: error: {}", plan_.configName, error.message());
  return Error::success();
}

Error Planner::resolve(const tensorflow::tf2xla::Config &config) {
  if (Error error = checkFrozenNames(config))
    return error;
  for (const tensorflow::tf2xla::Feed &feed : config.feed())
    if (Error error = resolveFeed(feed))
      return error;
  for (const tensorflow::tf2xla::Variable &variable : config.variable())
    if (Error error = resolveVariable(variable))
      return error;
  for (const tensorflow::tf2xla::Fetch &fetch : config.fetch())
    if (Error error = resolveFetch(fetch))
      return error;
  if (plan_.fetches.empty())
    return makeError("{}: error: nothing to compute: the model has no "
                     "outputs; give a --config with `fetch` entries",
                     plan_.configName);
  return checkShapesUsed();
}

// Whether the value that update node `update` writes depends on the step.
// Read-modify-write updates (AssignAdd, Apply*, ...) always do: they read
// the variable, like a `global_step` increment by a constant. A plain
// assignment does when its value depends on a fed tensor, a config variable
// or a Placeholder, through the data or control inputs after the variable
// (transitively). TF1 graphs also hold assignments that do not: each
// variable's initializer (`W/Assign` of `W/initial_value`) and the Saver's
// restores, which a step never runs.
bool Planner::dependsOnStep(size_t update) const {
  const TfGraph &graph = *plan_.graph;
  const VariableState &state = *plan_.state;
  const std::string &op = graph.node(update).op();
  if (op != "Assign" && op != "AssignVariableOp")
    return true;
  const std::vector<NodeInput> &inputs = graph.inputs(update);
  std::vector<NodeInput> stack(inputs.begin() + 1, inputs.end());
  std::set<size_t> seen;
  while (!stack.empty()) {
    NodeInput input = stack.back();
    stack.pop_back();
    if (state.fed.count({input.node, input.index}) ||
        state.byNode.count(input.node) ||
        graph.node(input.node).op() == "Placeholder")
      return true;
    if (seen.insert(input.node).second)
      stack.insert(stack.end(), graph.inputs(input.node).begin(),
                   graph.inputs(input.node).end());
  }
  return false;
}

void Planner::prune() {
  const TfGraph &graph = *plan_.graph;
  const VariableState &state = *plan_.state;
  std::vector<std::pair<size_t, std::string>> roots;
  for (const FetchSpec &fetch : plan_.fetches)
    if (!state.fed.count({fetch.node, fetch.index}))
      roots.emplace_back(fetch.node, fmt::format("fetch '{}'", fetch.name));
  // Nodes that write a writable config variable run even when no fetch
  // needs them, as in tfcompile: their results are the variable updates.
  // Initializers and restores (dependsOnStep) run only if a fetch needs them.
  for (size_t i = 0; i < graph.size(); ++i) {
    const tensorflow::NodeDef &node = graph.node(i);
    if (!startsWithAny(node.op(), kUpdatePrefixes) || graph.inputs(i).empty())
      continue;
    const NodeInput &target = graph.inputs(i).front();
    const VariableSpec *variable =
        target.control ? nullptr : state.variableAt(target.node, target.index);
    if (variable && !variable->readonly && dependsOnStep(i))
      roots.emplace_back(i, fmt::format("the update of variable '{}' by node "
                                        "'{}'",
                                        variable->name, node.name()));
  }
  plan_.needed = graph.prune(roots, [&](size_t node, int64_t index) {
    return state.fed.count({node, index}) != 0;
  });
}

void Planner::summarize() {
  SourceSummary &summary = plan_.summary;
  summary.format = plan_.model.format;
  std::map<std::string, size_t> unsupportedIndex;
  // Fed Placeholders are not in the pruned graph but are the model's
  // inputs, so they count; other fed nodes are cut away.
  for (const FeedSpec &feed : plan_.feeds) {
    const std::string &op = plan_.graph->node(feed.node).op();
    if (!plan_.needed.count(feed.node) && op.find("Placeholder") == 0)
      ++summary.opHistogram[op];
  }
  for (const auto &[node, root] : plan_.needed) {
    const tensorflow::NodeDef &def = plan_.graph->node(node);
    ++summary.opHistogram[def.op()];
    if (plan_.isTfJs()) {
      auto stored = plan_.model.storedWeightBytes.find(def.name());
      if (stored != plan_.model.storedWeightBytes.end())
        summary.weightBytes += stored->second;
    } else if (def.op() == "Const" && def.attr().count("value")) {
      summary.weightBytes += tensorByteSize(def.attr().at("value").tensor());
    }
    if (!plan_.state->byNode.count(node))
      noteUnsupported(def, def.name(), unsupportedIndex);
  }
  plan_.graphUnsupported = summary.unsupported;
  summarizeFunctions(unsupportedIndex);
}

void Planner::noteUnsupported(const tensorflow::NodeDef &def,
                              const std::string &label,
                              std::map<std::string, size_t> &unsupportedIndex) {
  if (findTfLowering(def.op()) || plan_.library->find(def.op()))
    return;
  SourceSummary &summary = plan_.summary;
  auto [it, added] =
      unsupportedIndex.emplace(def.op(), summary.unsupported.size());
  if (added)
    summary.unsupported.push_back(
        {def.op(), {}, std::string(tfUnsupportedReason(def.op()))});
  summary.unsupported[it->second].nodes.push_back(label);
}

// The ops of the library functions the pruned graph calls (transitively)
// count as the model's: their nodes, named "function/node", enter the
// histogram and the unsupported list. A function whose body is malformed
// is skipped here; lowering reports it at the node calling it.
void Planner::summarizeFunctions(
    std::map<std::string, size_t> &unsupportedIndex) {
  std::vector<std::string> pending;
  for (const auto &[node, root] : plan_.needed)
    for (std::string &name :
         calledFunctions(plan_.graph->node(node), *plan_.library))
      pending.push_back(std::move(name));
  std::set<std::string> seen;
  while (!pending.empty()) {
    std::string name = std::move(pending.back());
    pending.pop_back();
    if (!seen.insert(name).second)
      continue;
    Expected<const FunctionBody *> body = plan_.library->body(name);
    if (!body) {
      (void)body.takeError();
      continue;
    }
    for (size_t node : (*body)->order) {
      const tensorflow::NodeDef &def = (*body)->index->node(node);
      ++plan_.summary.opHistogram[def.op()];
      noteUnsupported(def, fmt::format("{}/{}", name, def.name()),
                      unsupportedIndex);
      for (std::string &called : calledFunctions(def, *plan_.library))
        pending.push_back(std::move(called));
    }
  }
}
} // namespace

Error TfPlan::check() {
  if (!graphUnsupported.empty())
    return Error::failure(formatUnsupported(model.path, graphUnsupported));
  for (const auto &[node, root] : needed) {
    const tensorflow::NodeDef &def = graph->node(node);
    if (def.op() == "Placeholder" && !state->byNode.count(node))
      return makeError("{}: error: {} depends on placeholder '{}', which is "
                       "not fed; add a feed for it to the config",
                       model.path, root, def.name());
  }
  std::set<size_t> subset;
  for (const auto &[node, root] : needed)
    subset.insert(node);
  Expected<std::vector<size_t>> sorted =
      graph->topologicalOrder(subset, [&](size_t node, int64_t index) {
        return state->fed.count({node, index}) != 0;
      });
  if (!sorted)
    return sorted.takeError();
  order = std::move(*sorted);
  return Error::success();
}

Expected<std::unique_ptr<TfPlan>> planImport(const std::string &path,
                                             const ImportOptions &options,
                                             PlanPurpose purpose) {
  auto plan = std::make_unique<TfPlan>();
  Expected<TfModel> model = readTfModel(path);
  if (!model)
    return model.takeError();
  plan->model = std::move(*model);
  if (hasV1ControlFlow(plan->model.graph))
    if (Error error = functionalizeControlFlow(plan->model.graph, path))
      return error;
  Expected<TfGraph> graph = TfGraph::build(plan->model.graph, path);
  if (!graph)
    return graph.takeError();
  plan->graph = std::make_unique<TfGraph>(std::move(*graph));
  plan->library = std::make_unique<FunctionLibrary>(
      plan->model.graph.library(), path);
  plan->state.reset(new VariableState{*plan->graph, {}, {}, {}, {}});

  Expected<ShapeOverrides> shapes = parseShapeOverrides(options.shapes);
  if (!shapes)
    return shapes.takeError();
  tensorflow::tf2xla::Config config;
  if (options.configPath.empty()) {
    plan->configName = path;
    config = defaultConfig(plan->model, *plan->graph);
  } else {
    plan->configName = options.configPath;
    Expected<tensorflow::tf2xla::Config> read = readTfConfig(options.configPath);
    if (!read)
      return read.takeError();
    config = std::move(*read);
  }
  Expected<std::map<std::string, FrozenInput>> frozen =
      parseFrozenInputs(options.freeze);
  if (!frozen)
    return frozen.takeError();
  Planner planner(*plan, std::move(*shapes), std::move(*frozen), purpose);
  if (Error error = planner.resolve(config))
    return error;
  planner.prune();
  planner.summarize();
  return plan;
}

} // namespace kiln::import::tf
