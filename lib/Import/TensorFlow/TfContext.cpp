//===- TfContext.cpp - The TfNodeContext the importer lowers through ------===//
#include "TensorFlow/TfContext.h"
#include "TensorFlow/TfTensor.h"

#include "kiln/IR/Computation.h"

#include <fmt/format.h>

namespace kiln::import::tf {

using Kind = tensorflow::AttrValue::ValueCase;

namespace {
std::string_view kindName(Kind kind) {
  switch (kind) {
  case tensorflow::AttrValue::kList: return "a list";
  case tensorflow::AttrValue::kS: return "a string";
  case tensorflow::AttrValue::kI: return "an int";
  case tensorflow::AttrValue::kF: return "a float";
  case tensorflow::AttrValue::kB: return "a bool";
  case tensorflow::AttrValue::kType: return "a type";
  case tensorflow::AttrValue::kShape: return "a shape";
  case tensorflow::AttrValue::kTensor: return "a tensor";
  case tensorflow::AttrValue::kPlaceholder: return "a placeholder";
  case tensorflow::AttrValue::kFunc: return "a function";
  case tensorflow::AttrValue::VALUE_NOT_SET: break;
  }
  return "empty";
}

// Nodes that pass a variable reference through unchanged.
bool forwardsReference(const std::string &op) {
  return op == "Identity" || op == "RefIdentity" || op == "Snapshot";
}
} // namespace

const VariableSpec *VariableState::variableAt(size_t node, int64_t index) const {
  for (int depth = 0; depth < 64; ++depth) {
    if (fed.count({node, index}))
      return nullptr;
    auto variable = byNode.find(node);
    if (variable != byNode.end())
      return &variables[variable->second];
    if (!forwardsReference(graph.node(node).op()))
      return nullptr;
    const NodeInput *source = nullptr;
    for (const NodeInput &input : graph.inputs(node))
      if (!input.control) {
        source = &input;
        break;
      }
    if (!source)
      return nullptr;
    node = source->node;
    index = source->index;
  }
  return nullptr;
}

TfContext::TfContext(GraphBuilder &builder, VariableState &state, size_t node,
                     std::vector<Value> inputs, std::vector<NodeInput> dataInputs,
                     const ir::Literal *weight, bool requireWeight,
                     FunctionCaller &functions,
                     ListMarks &lists)
    : TfNodeContext(builder), state_(state), def_(state.graph.node(node)),
      inputs_(std::move(inputs)), dataInputs_(std::move(dataInputs)),
      weight_(weight), requireWeight_(requireWeight), functions_(functions),
      lists_(lists) {}

std::optional<int64_t> TfContext::unshapedListBound(Value list) const {
  auto it = lists_.unshaped.find(list);
  if (it == lists_.unshaped.end())
    return std::nullopt;
  return it->second;
}

void TfContext::markUnshapedList(Value list, int64_t bound) {
  if (list)
    lists_.unshaped[list] = bound;
}

Value TfContext::listLength(Value list) const {
  auto it = lists_.lengths.find(list);
  return it == lists_.lengths.end() ? nullptr : it->second;
}

void TfContext::setListLength(Value list, Value length) {
  if (list && length)
    lists_.lengths[list] = length;
}

void TfContext::forgetLists(const ir::Computation &computation) {
  for (Value value : computation.instructions()) {
    lists_.unshaped.erase(value);
    lists_.lengths.erase(value);
  }
}

Value TfContext::input(size_t i) const {
  if (i < inputs_.size())
    return inputs_[i];
  builder_.fail(fmt::format("expected at least {} inputs but the node has {}",
                            i + 1, inputs_.size()));
  return nullptr;
}

bool TfContext::hasAttr(std::string_view key) const {
  return def_.attr().count(std::string(key)) != 0;
}

const tensorflow::AttrValue *TfContext::attr(std::string_view key, Kind kind) {
  auto it = def_.attr().find(std::string(key));
  if (it == def_.attr().end())
    return nullptr;
  if (it->second.value_case() == kind)
    return &it->second;
  // An empty list is stored without a value in some writers.
  if (kind == tensorflow::AttrValue::kList &&
      it->second.value_case() == tensorflow::AttrValue::VALUE_NOT_SET)
    return nullptr;
  if (attributeError_.empty())
    attributeError_ =
        fmt::format("attribute '{}' should be {} but is {}", key,
                    kindName(kind), kindName(it->second.value_case()));
  return nullptr;
}

int64_t TfContext::attrInt(std::string_view key, int64_t fallback) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kI);
  return value ? value->i() : fallback;
}

double TfContext::attrFloat(std::string_view key, double fallback) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kF);
  return value ? value->f() : fallback;
}

bool TfContext::attrBool(std::string_view key, bool fallback) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kB);
  return value ? value->b() : fallback;
}

std::string TfContext::attrString(std::string_view key, std::string fallback) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kS);
  return value ? value->s() : fallback;
}

std::vector<int64_t> TfContext::attrInts(std::string_view key) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kList);
  if (!value)
    return {};
  return {value->list().i().begin(), value->list().i().end()};
}

std::vector<double> TfContext::attrFloats(std::string_view key) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kList);
  if (!value)
    return {};
  return {value->list().f().begin(), value->list().f().end()};
}

std::vector<std::string> TfContext::attrStrings(std::string_view key) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kList);
  if (!value)
    return {};
  return {value->list().s().begin(), value->list().s().end()};
}

std::optional<ir::DType> TfContext::attrType(std::string_view key) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kType);
  if (!value)
    return std::nullopt;
  std::optional<ir::DType> dtype = dtypeFromTf(value->type());
  if (!dtype)
    fail(fmt::format("attribute '{}': type {} is not supported", key,
                     tfDTypeName(value->type())));
  return dtype;
}

std::optional<std::vector<int64_t>> TfContext::attrShape(std::string_view key) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kShape);
  if (!value)
    return std::nullopt;
  return dimsFromShape(value->shape());
}

std::optional<ir::Literal> TfContext::attrTensor(std::string_view key) {
  if (weight_ && key == "value")
    return *weight_;
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kTensor);
  if (!value) {
    if (builder_.ok())
      fail(fmt::format("missing tensor attribute '{}'", key));
    return std::nullopt;
  }
  const tensorflow::TensorProto &tensor = value->tensor();
  Expected<ir::Literal> literal = literalFromTensor(tensor);
  if (!literal) {
    fail(fmt::format("attribute '{}': {}", key, literal.errorMessage()));
    return std::nullopt;
  }
  bool stored = !tensor.tensor_content().empty() || tensor.float_val_size() ||
                tensor.double_val_size() || tensor.int_val_size() ||
                tensor.int64_val_size() || tensor.bool_val_size() ||
                tensor.half_val_size() || tensor.uint32_val_size() ||
                tensor.uint64_val_size();
  if (requireWeight_ && key == "value" && !stored && literal->numElements() > 0) {
    fail("the model's weightsManifest has no weight for this Const");
    return std::nullopt;
  }
  return std::move(*literal);
}

std::optional<std::string> TfContext::attrFunction(std::string_view key) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kFunc);
  if (!value) {
    if (builder_.ok())
      fail(fmt::format("missing function attribute '{}'", key));
    return std::nullopt;
  }
  return value->func().name();
}

std::vector<std::string> TfContext::attrFunctions(std::string_view key) {
  const tensorflow::AttrValue *value = attr(key, tensorflow::AttrValue::kList);
  std::vector<std::string> names;
  if (value)
    for (const tensorflow::NameAttrList &function : value->list().func())
      names.push_back(function.name());
  return names;
}

std::optional<std::vector<Value>>
TfContext::callFunction(const std::string &function,
                        const std::vector<Value> &arguments, GraphBuilder &into) {
  Expected<std::vector<Value>> outputs =
      functions_.callFunction(function, arguments, into, name());
  if (!outputs) {
    fail(outputs.errorMessage());
    return std::nullopt;
  }
  return std::move(*outputs);
}

std::optional<std::string> TfContext::variableOf(size_t i) const {
  if (i >= dataInputs_.size())
    return std::nullopt;
  const VariableSpec *variable =
      state_.variableAt(dataInputs_[i].node, dataInputs_[i].index);
  if (!variable)
    return std::nullopt;
  return variable->name;
}

void TfContext::updateVariable(const std::string &variable, Value value) {
  if (!value)
    return;
  for (size_t i = 0; i < state_.variables.size(); ++i) {
    const VariableSpec &spec = state_.variables[i];
    if (spec.name != variable)
      continue;
    if (spec.readonly) {
      fail(fmt::format("updates variable '{}', which the config marks "
                       "readonly; set `readonly: false` for it",
                       variable));
      return;
    }
    if (value->shape() != spec.shape) {
      fail(fmt::format("updates variable '{}' of shape {} with a value of "
                       "shape {}",
                       variable, spec.shape.toString(),
                       value->shape().toString()));
      return;
    }
    state_.updates[i] = value;
    return;
  }
  fail(fmt::format("updates '{}', which is not a variable of the config",
                   variable));
}

Value TfContext::currentValue(const std::string &variable) {
  for (size_t i = 0; i < state_.variables.size(); ++i) {
    if (state_.variables[i].name != variable)
      continue;
    auto update = state_.updates.find(i);
    return update != state_.updates.end() ? update->second
                                          : state_.variables[i].parameter;
  }
  return fail(fmt::format("'{}' is not a variable of the config", variable));
}

void TfContext::setOutput(size_t index, Value value) {
  if (outputs_.size() <= index)
    outputs_.resize(index + 1, nullptr);
  outputs_[index] = value;
}

} // namespace kiln::import::tf
