//===- OnnxGraph.cpp - Values and node contexts of one ONNX graph ---------===//
#include "Onnx/OnnxGraph.h"

#include <cctype>

#include "Common/DynamicLowering.h"
#include "Onnx/OnnxTensor.h"
#include "kiln/Support/ResourceLimits.h"

#include "kiln/IR/Module.h"

#include <fmt/format.h>

#include <set>

namespace kiln::import::onnx {

using AttrType = onnxpb::AttributeProto::AttributeType;

OnnxGraph::OnnxGraph(GraphBuilder &builder, const onnxpb::GraphProto &graph,
                     std::string baseDir, OnnxGraph *parent)
    : builder_(builder), baseDir_(std::move(baseDir)), parent_(parent) {
  for (const onnxpb::TensorProto &tensor : graph.initializer())
    initializers_[tensor.name()] = &tensor;
}

Value OnnxGraph::findLocal(const std::string &name) {
  auto found = values_.find(name);
  if (found != values_.end())
    return found->second;
  auto initializer = initializers_.find(name);
  if (initializer == initializers_.end())
    return nullptr;
  Expected<ir::Literal> literal =
      literalFromTensor(*initializer->second, baseDir_);
  if (!literal)
    return builder_.fail(
        fmt::format("initializer '{}': {}", name, literal.errorMessage()));
  Value value = builder_.constant(std::move(*literal));
  values_[name] = value;
  return value;
}

Value OnnxGraph::lookup(const std::string &name) {
  for (OnnxGraph *scope = this; scope; scope = scope->parent_)
    if (Value value = scope->findLocal(name))
      return value;
  if (!builder_.ok())
    return nullptr;
  return builder_.fail(fmt::format(
      "input '{}' is not a graph input, an initializer or the output of an "
      "earlier node",
      name));
}

bool OnnxGraph::countInlinedSubgraph() {
  OnnxGraph *root = this;
  while (root->parent_)
    root = root->parent_;
  return ++root->inlinedSubgraphs_ <= ResourceLimits::kMaxUnrolledIterations;
}

// A lowering that produced outputs 0..k-1 and nothing after them met a node
// listing more outputs than the op has (a malformed model); any other gap is a
// bug in the lowering.
static std::string missingOutputMessage(const OnnxContext &context,
                                        const onnxpb::NodeProto &node,
                                        int64_t missing) {
  int64_t lastSet = context.lastSetOutput();
  if (lastSet >= 0 && lastSet < missing)
    return fmt::format("the node lists {} outputs, but {} produces only {} "
                       "(output {} '{}' has no value)",
                       node.output_size(), node.op_type(), lastSet + 1,
                       missing, node.output(int(missing)));
  return fmt::format("internal error: the lowering did not produce output {} "
                     "('{}')",
                     missing, node.output(int(missing)));
}

namespace {
/// Ops that take a run-time sized input (NonZero's and NonMaxSuppression's
/// padded results) as they are: elementwise ops, whose padding only maps to
/// padding. Any other op would read the padding as data.
const std::set<std::string_view> kElementwiseOps = {
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less",
    "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Not",
    "Where", "Cast", "Identity", "Abs", "Neg", "Exp", "Log", "Sqrt",
    "Sigmoid", "Relu", "Tanh", "Floor", "Ceil", "Round", "Clip",
    "Reciprocal", "Sign"};

/// The node whose run-time size an input of `context` carries, or "".
std::string dynamicInputOrigin(OnnxContext &context) {
  GraphBuilder &b = context.builder();
  for (size_t i = 0; i < context.inputCount(); ++i)
    if (context.hasInput(i))
      if (Value input = context.input(i); input && b.dynamic().hasDynamicDims(input))
        return b.dynamic().originOf(input);
  return "";
}
} // namespace

void OnnxGraph::lowerNode(OnnxContext &context, const onnxpb::NodeProto &node) {
  std::string origin = dynamicInputOrigin(context);
  if (origin.empty())
    return findOnnxLowering(node.op_type())(context);
  if (!kElementwiseOps.count(node.op_type())) {
    builder_.fail(fmt::format(
        "{} cannot take a run-time sized input (its size comes from node "
        "'{}'); kiln passes such a value only through elementwise ops to a "
        "model output",
        node.op_type(), origin));
    return;
  }
  findOnnxLowering(node.op_type())(context);
  std::vector<Value> inputs;
  for (size_t i = 0; i < context.inputCount(); ++i)
    inputs.push_back(context.hasInput(i) ? context.input(i) : nullptr);
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty())
      broadcastDynamicDims(builder_, inputs, find(node.output(i)));
}

Error OnnxGraph::lowerNodes(
    const google::protobuf::RepeatedPtrField<onnxpb::NodeProto> &nodes,
    int64_t opset) {
  for (const onnxpb::NodeProto &node : nodes) {
    OnnxContext context(*this, node, opset);
    // Restored after: a subgraph's nodes lower inside their parent node.
    std::string outer = builder_.setSourceNode(context.name());
    lowerNode(context, node);
    builder_.setSourceNode(std::move(outer));
    // An unreadable attribute is the cause of whatever else went wrong.
    if (!context.attributeError().empty()) {
      (void)builder_.takeError(); // a consequence of it
      return makeError("node '{}' ({}): {}", context.name(), node.op_type(),
                       context.attributeError());
    }
    int64_t missing = builder_.ok() ? context.firstMissingOutput() : -1;
    if (missing >= 0)
      builder_.fail(missingOutputMessage(context, node, missing));
    if (Error error = builder_.takeError())
      return makeError("node '{}' ({}): {}", context.name(), node.op_type(),
                       error.message());
  }
  return Error::success();
}

OnnxContext::OnnxContext(OnnxGraph &graph, const onnxpb::NodeProto &node,
                         int64_t opset)
    : OnnxNodeContext(graph.builder()), graph_(graph), node_(node),
      opset_(opset), outputSet_(size_t(node.output_size()), false) {
  name_ = !node.name().empty()       ? node.name()
          : node.output_size() > 0 ? node.output(0)
                                   : node.op_type();
}

bool OnnxContext::hasInput(size_t i) const {
  return i < inputCount() && !node_.input(int(i)).empty();
}

Value OnnxContext::input(size_t i) const {
  if (!hasInput(i))
    return builder_.fail(
        fmt::format("expected input {} but it is missing", i));
  return graph_.lookup(node_.input(int(i)));
}

bool OnnxContext::hasAttr(std::string_view key) const {
  for (const onnxpb::AttributeProto &attribute : node_.attribute())
    if (attribute.name() == key)
      return true;
  return false;
}

const onnxpb::AttributeProto *OnnxContext::attr(std::string_view key,
                                                AttrType type) {
  for (const onnxpb::AttributeProto &attribute : node_.attribute()) {
    if (attribute.name() != key)
      continue;
    std::string error;
    if (!attribute.ref_attr_name().empty())
      error = fmt::format("attribute '{}' refers to a function attribute, "
                          "which is not supported",
                          key);
    // Very old exporters leave `type` unset; trust the caller then.
    else if (attribute.type() != type &&
             attribute.type() != onnxpb::AttributeProto::UNDEFINED)
      error = fmt::format(
          "attribute '{}' has type {} but {} was expected", key,
          onnxpb::AttributeProto::AttributeType_Name(attribute.type()),
          onnxpb::AttributeProto::AttributeType_Name(type));
    if (error.empty())
      return &attribute;
    if (attributeError_.empty())
      attributeError_ = std::move(error);
    return nullptr;
  }
  return nullptr;
}

int64_t OnnxContext::attrInt(std::string_view key, int64_t fallback) {
  const auto *a = attr(key, onnxpb::AttributeProto::INT);
  return a ? a->i() : fallback;
}

double OnnxContext::attrFloat(std::string_view key, double fallback) {
  const auto *a = attr(key, onnxpb::AttributeProto::FLOAT);
  return a ? double(a->f()) : fallback;
}

std::string OnnxContext::attrString(std::string_view key,
                                    std::string fallback) {
  const auto *a = attr(key, onnxpb::AttributeProto::STRING);
  return a ? a->s() : fallback;
}

std::vector<int64_t> OnnxContext::attrInts(std::string_view key) {
  const auto *a = attr(key, onnxpb::AttributeProto::INTS);
  if (!a)
    return {};
  return {a->ints().begin(), a->ints().end()};
}

std::vector<double> OnnxContext::attrFloats(std::string_view key) {
  const auto *a = attr(key, onnxpb::AttributeProto::FLOATS);
  if (!a)
    return {};
  return {a->floats().begin(), a->floats().end()};
}

std::vector<std::string> OnnxContext::attrStrings(std::string_view key) {
  const auto *a = attr(key, onnxpb::AttributeProto::STRINGS);
  if (!a)
    return {};
  return {a->strings().begin(), a->strings().end()};
}

std::optional<ir::Literal> OnnxContext::attrTensor(std::string_view key) {
  const auto *a = attr(key, onnxpb::AttributeProto::TENSOR);
  if (!a)
    return std::nullopt;
  Expected<ir::Literal> literal = literalFromTensor(a->t(), graph_.baseDir());
  if (!literal) {
    fail(fmt::format("attribute '{}': {}", key, literal.errorMessage()));
    return std::nullopt;
  }
  return std::move(*literal);
}

const onnxpb::GraphProto *
OnnxContext::subgraphAttribute(std::string_view key, size_t inputCount) {
  const auto *a = attr(key, onnxpb::AttributeProto::GRAPH);
  if (!a) {
    if (builder_.ok())
      fail(fmt::format("expected a graph attribute '{}'", key));
    return nullptr;
  }
  if (size_t(a->g().input_size()) != inputCount) {
    fail(fmt::format("subgraph '{}' declares {} inputs but the node passes {}",
                     key, a->g().input_size(), inputCount));
    return nullptr;
  }
  return &a->g();
}

std::optional<std::vector<Value>>
OnnxContext::inlineSubgraph(std::string_view key,
                            const std::vector<Value> &inputs) {
  const onnxpb::GraphProto *graph = subgraphAttribute(key, inputs.size());
  if (!graph)
    return std::nullopt;
  const onnxpb::GraphProto &body = *graph;
  if (!graph_.countInlinedSubgraph()) {
    fail(fmt::format("the model inlines more than {} If branches in total "
                     "(Ifs with a constant condition nested in each other "
                     "multiply)",
                     ResourceLimits::kMaxUnrolledIterations));
    return std::nullopt;
  }
  OnnxGraph scope(builder_, body, graph_.baseDir(), &graph_);
  for (size_t i = 0; i < inputs.size(); ++i)
    scope.define(body.input(int(i)).name(), inputs[i]);
  if (Error error = scope.lowerNodes(body.node(), opset_)) {
    fail(fmt::format("in subgraph '{}': {}", key, error.message()));
    return std::nullopt;
  }
  std::vector<Value> outputs;
  for (const onnxpb::ValueInfoProto &output : body.output()) {
    Value value = scope.lookup(output.name());
    if (!value) {
      fail(fmt::format("in subgraph '{}': output '{}': {}", key, output.name(),
                       builder_.takeError().message()));
      return std::nullopt;
    }
    outputs.push_back(value);
  }
  return outputs;
}

bool OnnxContext::wantsOutput(size_t i) const {
  return i < outputCount() && !node_.output(int(i)).empty();
}

void OnnxContext::setOutput(size_t i, Value value) {
  if (!wantsOutput(i) || !value)
    return;
  outputSet_[i] = true;
  graph_.define(node_.output(int(i)), value);
  graph_.nameAfterOutput(value, node_.output(int(i)));
}

void OnnxGraph::nameAfterOutput(Value value, const std::string &output) {
  if (parent_)
    return parent_->nameAfterOutput(value, output);
  if (value->opcode() == ir::Opcode::Parameter ||
      value->opcode() == ir::Opcode::Constant || !named_.insert(value).second)
    return;
  ir::Module *module = builder_.computation().parent();
  if (!module)
    return;
  std::string name;
  for (char c : output)
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                    c == '.' || c == '-'
                ? c
                : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "node_" + name;
  value->setName(module->uniqueName(name));
}

int64_t OnnxContext::lastSetOutput() const {
  for (size_t i = outputSet_.size(); i > 0; --i)
    if (outputSet_[i - 1])
      return int64_t(i - 1);
  return -1;
}

int64_t OnnxContext::firstMissingOutput() const {
  for (size_t i = 0; i < outputSet_.size(); ++i)
    if (wantsOutput(i) && !outputSet_[i])
      return int64_t(i);
  return -1;
}

} // namespace kiln::import::onnx
