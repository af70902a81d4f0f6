//===- OnnxImporter.cpp - Reading an ONNX model into an HLO module --------===//
//
// The order of checks is the user's order of fixes: a file that does not
// parse, then opsets, then every unsupported op at once (so one run lists
// everything missing), then input/output types and shapes, then lowering
// node by node. Errors are "FILE: node 'NAME' (OpType): message".
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/Onnx.h"

#include "Common/BoundedResults.h"
#include "Onnx/OnnxGraph.h"
#include "Onnx/OnnxTensor.h"

#include "kiln/Import/FrozenInputs.h"
#include "kiln/IR/Verifier.h"
#include "kiln/Support/FileUtils.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

namespace kiln::import {

namespace {
using namespace onnx;

constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 18;

bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// Why nodes of a non-default domain cannot be compiled.
std::string domainReason(const std::string &domain) {
  if (domain == "ai.onnx.preview.training")
    return "training domain not supported: kiln compiles inference graphs";
  return fmt::format("domain '{}' is not supported; kiln reads the default "
                     "ONNX domain only",
                     domain);
}

/// Everything the model-level checks share.
struct ModelState {
  std::string file;
  std::string baseDir;
  const onnxpb::GraphProto *graph = nullptr;
  int64_t opset = 0;
  std::map<std::string, std::vector<int64_t>> shapes; // --shape
  std::map<std::string, FrozenInput> frozen;          // --freeze
};

Error checkOpsets(const onnxpb::ModelProto &model, ModelState &state) {
  for (const onnxpb::OperatorSetIdProto &entry : model.opset_import())
    if (isDefaultDomain(entry.domain()))
      state.opset = entry.version();
  bool usesDefault = false;
  for (const onnxpb::NodeProto &node : state.graph->node())
    usesDefault |= isDefaultDomain(node.domain());
  if (!usesDefault)
    return Error::success(); // other domains are reported as unsupported
  if (state.opset == 0)
    return makeError("{}: the model imports no opset of the default ONNX "
                     "domain",
                     state.file);
  if (state.opset > kMaxOpset)
    return makeError("{}: the model uses opset {} of the default ONNX domain, "
                     "but kiln supports opsets {} to {}",
                     state.file, state.opset, kMinOpset, kMaxOpset);
  if (state.opset >= kMinOpset)
    return Error::success();
  // Older models are fine when each op means what it means at opset 7.
  for (const onnxpb::NodeProto &node : state.graph->node())
    if (isDefaultDomain(node.domain()) &&
        !readsAsOpset7(node.op_type(), state.opset))
      return makeError("{}: the model uses opset {} of the default ONNX "
                       "domain, but kiln supports opsets {} to {} (and older "
                       "models whose ops are unchanged at opset {}, which "
                       "'{}' is not); convert it with onnx.version_converter",
                       state.file, state.opset, kMinOpset, kMaxOpset,
                       kMinOpset, node.op_type());
  return Error::success();
}

std::string histogramKey(const onnxpb::NodeProto &node) {
  if (isDefaultDomain(node.domain()))
    return node.op_type();
  return node.domain() + "." + node.op_type();
}

std::string nodeName(const onnxpb::NodeProto &node) {
  if (!node.name().empty())
    return node.name();
  return node.output_size() ? node.output(0) : node.op_type();
}

/// Fills the op histogram and collects every op kiln cannot lower, in
/// `graph` and in the subgraphs of its nodes (If branches, Loop and Scan
/// bodies).
void findUnsupported(const onnxpb::GraphProto &graph, SourceSummary &summary,
                     std::vector<UnsupportedOp> &unsupported,
                     std::map<std::string, size_t> &index) {
  for (const onnxpb::NodeProto &node : graph.node()) {
    for (const onnxpb::AttributeProto &attribute : node.attribute()) {
      if (attribute.has_g())
        findUnsupported(attribute.g(), summary, unsupported, index);
      for (const onnxpb::GraphProto &subgraph : attribute.graphs())
        findUnsupported(subgraph, summary, unsupported, index);
    }
    std::string key = histogramKey(node);
    ++summary.opHistogram[key];
    std::string reason;
    if (!isDefaultDomain(node.domain()))
      reason = domainReason(node.domain());
    else if (!findOnnxLowering(node.op_type()))
      reason = std::string(onnxUnsupportedReason(node.op_type()));
    else
      continue;
    auto [it, added] = index.try_emplace(key, unsupported.size());
    if (added)
      unsupported.push_back({key, {}, reason});
    unsupported[it->second].nodes.push_back(nodeName(node));
  }
}

std::vector<UnsupportedOp> findUnsupported(const onnxpb::GraphProto &graph,
                                           SourceSummary &summary) {
  std::vector<UnsupportedOp> unsupported;
  std::map<std::string, size_t> index;
  findUnsupported(graph, summary, unsupported, index);
  return unsupported;
}

/// The tensor type of a graph input or output, or an error that explains
/// why the value cannot cross an ahead-of-time compiled entry point.
Expected<const onnxpb::TypeProto::Tensor *>
tensorType(const onnxpb::ValueInfoProto &info, std::string_view role) {
  const onnxpb::TypeProto &type = info.type();
  if (type.has_sequence_type() || type.has_optional_type() ||
      type.has_map_type())
    return makeError("{} '{}' has a {} type; sequence, map and optional "
                     "types are not supported by an ahead-of-time compiler",
                     role, info.name(),
                     type.has_sequence_type() ? "sequence"
                     : type.has_map_type()    ? "map"
                                              : "optional");
  if (type.has_sparse_tensor_type())
    return makeError("{} '{}' is a sparse tensor, which is not supported",
                     role, info.name());
  if (!type.has_tensor_type())
    return makeError("{} '{}' has no tensor type", role, info.name());
  const onnxpb::TypeProto::Tensor &tensor = type.tensor_type();
  if (tensor.elem_type() == onnxpb::TensorProto::STRING)
    return makeError("{} '{}' is a string tensor; string tensors are not "
                     "supported by an ahead-of-time compiler",
                     role, info.name());
  return &tensor;
}

std::string describeDims(const onnxpb::TensorShapeProto &shape) {
  std::vector<std::string> dims;
  for (const auto &dim : shape.dim())
    dims.push_back(dim.has_dim_value()   ? std::to_string(dim.dim_value())
                   : dim.has_dim_param() ? dim.dim_param()
                                         : "?");
  return fmt::format("[{}]", fmt::join(dims, ","));
}

/// The dims of a declared shape, each a size or unknown (a negative size
/// is as unknown as a missing one), with its dim_param.
std::vector<DeclaredDim> symbolicDims(const onnxpb::TensorShapeProto &shape) {
  std::vector<DeclaredDim> dims;
  for (const auto &dim : shape.dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0)
      dims.push_back({dim.dim_value(), ""});
    else
      dims.push_back({std::nullopt, dim.dim_param()});
  }
  return dims;
}

/// Checks that --shape only fixes what the model leaves unknown.
Error checkShapeOverride(const onnxpb::ValueInfoProto &info,
                         const onnxpb::TensorShapeProto &shape,
                         const std::vector<int64_t> &override) {
  if (shape.dim_size() != int64_t(override.size()))
    return makeError("--shape {}: the model declares rank {} ({}) but "
                     "--shape gives rank {}",
                     info.name(), shape.dim_size(), describeDims(shape),
                     override.size());
  for (int i = 0; i < shape.dim_size(); ++i)
    if (shape.dim(i).has_dim_value() &&
        shape.dim(i).dim_value() != override[size_t(i)])
      return makeError("--shape {}: dimension {} is {} in the model but "
                       "--shape gives {}",
                       info.name(), i, shape.dim(i).dim_value(),
                       override[size_t(i)]);
  return Error::success();
}

/// Graph input `info` as declared, with --shape applied; its dimensions
/// may still be unknown.
Expected<DeclaredTensor> declaredInput(const onnxpb::ValueInfoProto &info,
                                       const ModelState &state) {
  Expected<const onnxpb::TypeProto::Tensor *> tensor =
      tensorType(info, "input");
  if (!tensor)
    return tensor.takeError();
  Expected<ir::DType> dtype = dtypeFromOnnx((*tensor)->elem_type());
  if (!dtype)
    return makeError("input '{}': {}", info.name(), dtype.errorMessage());
  DeclaredTensor declared{info.name(), *dtype, std::nullopt};
  bool hasShape = (*tensor)->has_shape();
  if (hasShape)
    declared.dims = symbolicDims((*tensor)->shape());
  auto override = state.shapes.find(info.name());
  if (override == state.shapes.end())
    return declared;
  if (hasShape)
    if (Error error =
            checkShapeOverride(info, (*tensor)->shape(), override->second))
      return error;
  declared.dims.emplace();
  for (int64_t dim : override->second)
    declared.dims->push_back({dim, ""});
  return declared;
}

/// The static shape of graph input `info`, with --shape applied.
Expected<ir::Shape> inputShape(const onnxpb::ValueInfoProto &info,
                               const ModelState &state) {
  Expected<DeclaredTensor> declared = declaredInput(info, state);
  if (!declared)
    return declared.takeError();
  if (!declared->dims)
    return makeError("input '{}' has no declared shape; give it with --shape "
                     "{}=D0,D1,...",
                     info.name(), info.name());
  std::vector<int64_t> dims;
  for (size_t i = 0; i < declared->dims->size(); ++i) {
    const DeclaredDim &dim = (*declared->dims)[i];
    if (!dim.size)
      return makeError("input '{}' has an unknown dimension {} in its shape "
                       "{}; fix it with --shape {}=D0,D1,...",
                       info.name(), i,
                       describeDims(info.type().tensor_type().shape()),
                       info.name());
    dims.push_back(*dim.size);
  }
  return ir::Shape(*declared->dtype, dims);
}

/// A name usable as an HLO instruction name ([A-Za-z0-9_.-], not empty).
std::string instructionName(const std::string &name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                   c == '.' || c == '-'
               ? c
               : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "arg_" + out;
  return out;
}

/// The declared dims of a graph input for --freeze: -1 where unknown,
/// nullopt without a declared shape.
std::optional<std::vector<int64_t>>
declaredDims(const onnxpb::TypeProto::Tensor &tensor) {
  if (!tensor.has_shape())
    return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto &dim : tensor.shape().dim())
    dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  return dims;
}

/// The --freeze value of graph input `info`, checked against its
/// declared type.
Expected<ir::Literal> frozenValue(const onnxpb::ValueInfoProto &info,
                                  const FrozenInput &frozen,
                                  const ModelState &state) {
  Expected<const onnxpb::TypeProto::Tensor *> tensor =
      tensorType(info, "input");
  if (!tensor)
    return makeError("{}: {}", state.file, tensor.errorMessage());
  Expected<ir::DType> dtype = dtypeFromOnnx((*tensor)->elem_type());
  if (!dtype)
    return makeError("{}: input '{}': {}", state.file, info.name(),
                     dtype.errorMessage());
  Expected<ir::Literal> literal =
      frozenLiteral(info.name(), frozen, *dtype, declaredDims(**tensor));
  if (!literal)
    return makeError("{}: {}", state.file, literal.errorMessage());
  return literal;
}

/// Binds graph input `info` to its --freeze value: a constant, so the
/// lowerings that need compile-time values (Reshape's shape, ...) see one.
Error defineFrozen(OnnxGraph &graph, const onnxpb::ValueInfoProto &info,
                   const FrozenInput &frozen, const ModelState &state) {
  Expected<ir::Literal> literal = frozenValue(info, frozen, state);
  if (!literal)
    return literal.takeError();
  Value value = graph.builder().constant(std::move(*literal));
  if (Error error = graph.builder().takeError())
    return makeError("{}: input '{}': {}", state.file, info.name(),
                     error.message());
  ir::Module *module = graph.builder().computation().parent();
  value->setName(module->uniqueName(instructionName(info.name())));
  graph.define(info.name(), value);
  return Error::success();
}

/// The graph inputs the caller feeds: those that are not initializers (an
/// initializer is a default value the caller cannot override: a constant).
std::vector<const onnxpb::ValueInfoProto *>
fedInputs(const onnxpb::GraphProto &graph) {
  std::set<std::string> initializers;
  for (const onnxpb::TensorProto &tensor : graph.initializer())
    initializers.insert(tensor.name());
  std::vector<const onnxpb::ValueInfoProto *> inputs;
  for (const onnxpb::ValueInfoProto &info : graph.input())
    if (!initializers.count(info.name()))
      inputs.push_back(&info);
  return inputs;
}

/// Every --shape and --freeze name must be a graph input that is not an
/// initializer, and no input may take both.
Error checkInputFlags(const ModelState &state) {
  std::vector<std::string> inputs;
  for (const onnxpb::ValueInfoProto *info : fedInputs(*state.graph))
    inputs.push_back(info->name());
  for (const auto &[name, dims] : state.shapes)
    if (std::find(inputs.begin(), inputs.end(), name) == inputs.end())
      return makeError("{}: --shape names '{}', which is not an input of the "
                       "model",
                       state.file, name);
  if (Error error = unknownFrozenInputs(state.frozen, inputs, inputs))
    return makeError("{}: {}", state.file, error.message());
  for (const auto &[name, frozen] : state.frozen)
    if (state.shapes.count(name))
      return makeError("{}: input '{}' is given both --freeze and --shape; "
                       "a frozen input takes its shape from its value",
                       state.file, name);
  return Error::success();
}

/// Entry parameters for the graph inputs that are not initializers.
Error addParameters(OnnxGraph &graph, const ModelState &state,
                    ImportedModel &model) {
  if (Error error = checkInputFlags(state))
    return error;
  int64_t number = 0;
  for (const onnxpb::ValueInfoProto *input : fedInputs(*state.graph)) {
    const onnxpb::ValueInfoProto &info = *input;
    if (auto frozen = state.frozen.find(info.name());
        frozen != state.frozen.end()) {
      if (Error error = defineFrozen(graph, info, frozen->second, state))
        return error;
      continue;
    }
    Expected<ir::Shape> shape = inputShape(info, state);
    if (!shape)
      return makeError("{}: {}", state.file, shape.errorMessage());
    graph.define(info.name(),
                 graph.builder().parameter(number++, *shape,
                                           instructionName(info.name())));
    model.args.push_back(ArgMetadata::feed(info.name()));
  }
  return Error::success();
}

Error lowerNodes(OnnxGraph &graph, const ModelState &state) {
  if (Error error = graph.lowerNodes(state.graph->node(), state.opset))
    return makeError("{}: {}", state.file, error.message());
  return Error::success();
}

/// Checks a computed output against the model's declared type: a mismatch
/// means a lowering is wrong, which must not reach the user as an answer.
/// Along a dimension of run-time size (`dynamic`) any declared extent up to
/// the bound fits: the count result says how many entries are valid.
Error checkOutput(const onnxpb::ValueInfoProto &info, Value value,
                  const DynamicShapes &dynamic, const ModelState &state) {
  Expected<const onnxpb::TypeProto::Tensor *> tensor =
      tensorType(info, "output");
  if (!tensor)
    return makeError("{}: {}", state.file, tensor.errorMessage());
  const ir::Shape &shape = value->shape();
  if ((*tensor)->elem_type() != 0) {
    Expected<ir::DType> dtype = dtypeFromOnnx((*tensor)->elem_type());
    if (!dtype)
      return makeError("{}: output '{}': {}", state.file, info.name(),
                       dtype.errorMessage());
    if (*dtype != shape.dtype())
      return makeError("{}: output '{}' is declared {} but the graph computes "
                       "{} (the declaration is wrong, or kiln lowered the graph wrongly)",
                       state.file, info.name(), ir::dtypeName(*dtype),
                       shape.toString());
  }
  if (!(*tensor)->has_shape())
    return Error::success();
  const onnxpb::TensorShapeProto &declared = (*tensor)->shape();
  bool matches = declared.dim_size() == shape.rank();
  for (int i = 0; matches && i < declared.dim_size(); ++i)
    matches = !declared.dim(i).has_dim_value() ||
              declared.dim(i).dim_value() == shape.dim(size_t(i)) ||
              (dynamic.dim(value, i) &&
               declared.dim(i).dim_value() <= shape.dim(size_t(i)));
  if (!matches)
    return makeError("{}: output '{}' is declared with shape {} but the graph "
                     "computes {} (the declaration is wrong, or kiln lowered the graph wrongly)",
                     state.file, info.name(), describeDims(declared),
                     shape.toString());
  return Error::success();
}

Error setResults(OnnxGraph &graph, const ModelState &state,
                 ImportedModel &model) {
  GraphBuilder &builder = graph.builder();
  ResultList results;
  for (const onnxpb::ValueInfoProto &info : state.graph->output()) {
    Value value = graph.lookup(info.name());
    if (!value)
      return makeError("{}: output '{}': {}", state.file, info.name(),
                       builder.takeError().message());
    if (value->shape().isTuple())
      return makeError("{}: output '{}' is a tuple", state.file, info.name());
    if (Error error = checkOutput(info, value, builder.dynamic(), state))
      return error;
    results.values.push_back(value);
    results.names.push_back(info.name());
  }
  if (results.values.empty())
    return makeError("{}: the graph has no outputs", state.file);
  if (Error error =
          appendBoundedCounts(builder.dynamic(), state.file,
                              results.values.size(), results,
                              model.boundedResults))
    return error;
  model.resultNames = results.names;
  Value root = results.values.size() == 1
                   ? results.values[0]
                   : builder.add(ir::Opcode::Tuple, results.values);
  if (Error error = builder.takeError())
    return makeError("{}: {}", state.file, error.message());
  builder.computation().setRoot(root);
  return Error::success();
}

Error checkValueTypes(const ModelState &state) {
  for (const onnxpb::ValueInfoProto &info : state.graph->input())
    if (Expected<const onnxpb::TypeProto::Tensor *> tensor =
            tensorType(info, "input");
        !tensor)
      return makeError("{}: {}", state.file, tensor.errorMessage());
  for (const onnxpb::ValueInfoProto &info : state.graph->output())
    if (Expected<const onnxpb::TypeProto::Tensor *> tensor =
            tensorType(info, "output");
        !tensor)
      return makeError("{}: {}", state.file, tensor.errorMessage());
  return Error::success();
}

std::string moduleName(const onnxpb::GraphProto &graph,
                       const std::string &file) {
  std::string name = graph.name().empty()
                         ? std::filesystem::path(file).stem().string()
                         : graph.name();
  return instructionName(name);
}

int64_t weightBytes(const onnxpb::GraphProto &graph) {
  int64_t bytes = 0;
  for (const onnxpb::TensorProto &tensor : graph.initializer())
    bytes += tensorStoredBytes(tensor);
  return bytes;
}

/// The --shape and --freeze flags in `state`, as the importer reads them.
Error readInputFlags(const ImportOptions &options, ModelState &state) {
  Expected<std::map<std::string, std::vector<int64_t>>> shapes =
      parseShapeOverrides(options.shapes);
  if (!shapes)
    return shapes.takeError();
  state.shapes = std::move(*shapes);
  Expected<std::map<std::string, FrozenInput>> frozen =
      parseFrozenInputs(options.freeze);
  if (!frozen)
    return frozen.takeError();
  state.frozen = std::move(*frozen);
  return Error::success();
}

/// The fed, unfrozen inputs as declared, after the checks the import makes
/// before it needs static shapes; an error is the one the import reports.
Expected<std::vector<DeclaredTensor>>
declaredInputs(const onnxpb::ModelProto &proto, const ImportOptions &options,
               ModelState &state) {
  if (Error error = checkOpsets(proto, state))
    return error;
  if (Error error = readInputFlags(options, state))
    return error;
  if (!options.configPath.empty())
    return makeError("{}: --config applies to TensorFlow models", state.file);
  if (Error error = checkValueTypes(state))
    return error;
  if (Error error = checkInputFlags(state))
    return error;
  std::vector<DeclaredTensor> inputs;
  for (const onnxpb::ValueInfoProto *info : fedInputs(*state.graph)) {
    if (auto frozen = state.frozen.find(info->name());
        frozen != state.frozen.end()) {
      // Not an input of the compiled model, but its value must fit.
      if (Expected<ir::Literal> value =
              frozenValue(*info, frozen->second, state);
          !value)
        return value.takeError();
      continue;
    }
    Expected<DeclaredTensor> input = declaredInput(*info, state);
    if (!input)
      return input.takeError();
    inputs.push_back(std::move(*input));
  }
  return inputs;
}

/// The graph outputs with the types the model declares for them.
std::vector<DeclaredTensor> declaredOutputs(const onnxpb::GraphProto &graph) {
  std::vector<DeclaredTensor> outputs;
  for (const onnxpb::ValueInfoProto &info : graph.output()) {
    DeclaredTensor output{info.name(), std::nullopt, std::nullopt};
    Expected<const onnxpb::TypeProto::Tensor *> tensor =
        tensorType(info, "output");
    if (!tensor) {
      (void)tensor.takeError(); // the import reports it
      outputs.push_back(std::move(output));
      continue;
    }
    if (Expected<ir::DType> dtype = dtypeFromOnnx((*tensor)->elem_type()))
      output.dtype = *dtype;
    else
      (void)dtype.takeError(); // 0: undeclared, else the import reports it
    if ((*tensor)->has_shape())
      output.dims = symbolicDims((*tensor)->shape());
    outputs.push_back(std::move(output));
  }
  return outputs;
}
} // namespace

Expected<ImportedModel> importOnnxBytes(std::string_view bytes,
                                        const std::string &displayName,
                                        const std::string &baseDir,
                                        const ImportOptions &options) {
  onnxpb::ModelProto proto;
  if (!proto.ParseFromArray(bytes.data(), int(bytes.size())))
    return makeError("{}: not a valid ONNX model: the protobuf does not "
                     "parse (is the file truncated or not an .onnx model?)",
                     displayName);
  if (!proto.has_graph())
    return makeError("{}: the ONNX model has no graph", displayName);
  ModelState state;
  state.file = displayName;
  state.baseDir = baseDir;
  state.graph = &proto.graph();
  if (Error error = checkOpsets(proto, state))
    return error;
  if (Error error = readInputFlags(options, state))
    return error;
  if (!options.configPath.empty())
    return makeError("{}: --config (tfcompile's feed/fetch config) applies to "
                     "TensorFlow models; an ONNX model's feeds and fetches are "
                     "its graph inputs and outputs",
                     displayName);

  ImportedModel model;
  model.summary.format = fmt::format("ONNX (opset {})", state.opset);
  model.summary.weightBytes = weightBytes(*state.graph);
  model.summary.unsupported = findUnsupported(*state.graph, model.summary);
  if (!model.summary.unsupported.empty())
    return Error::failure(
        formatUnsupported(displayName, model.summary.unsupported));
  if (Error error = checkValueTypes(state))
    return error;

  model.module = std::make_unique<ir::Module>(moduleName(*state.graph, displayName));
  ir::Computation *entry = model.module->addComputation("main");
  model.module->setEntry(entry);
  GraphBuilder builder(*entry);
  OnnxGraph graph(builder, *state.graph, baseDir);
  if (Error error = addParameters(graph, state, model))
    return error;
  if (Error error = lowerNodes(graph, state))
    return error;
  if (Error error = setResults(graph, state, model))
    return error;
  entry->removeDeadInstructions();
  if (Error error = ir::verifyModule(*model.module))
    return makeError("{}: internal error: the imported module does not "
                     "verify: {}",
                     displayName, error.message());
  return model;
}

namespace {
Expected<std::string> readModelFile(const std::string &path) {
  Expected<std::string> bytes = readTextFile(path);
  if (!bytes)
    return makeError("{}: the model file: {}", path, bytes.errorMessage());
  return bytes;
}
} // namespace

Expected<SourceSummary> summarizeOnnx(const std::string &path,
                                      const ImportOptions &options) {
  Expected<std::string> bytes = readModelFile(path);
  if (!bytes)
    return bytes.takeError();
  onnxpb::ModelProto proto;
  if (!proto.ParseFromString(*bytes) || !proto.has_graph())
    return makeError("{}: not a valid ONNX model", path);
  SourceSummary summary;
  int64_t opset = 0;
  for (const onnxpb::OperatorSetIdProto &entry : proto.opset_import())
    if (isDefaultDomain(entry.domain()))
      opset = entry.version();
  summary.format = fmt::format("ONNX (opset {})", opset);
  summary.weightBytes = weightBytes(proto.graph());
  summary.unsupported = findUnsupported(proto.graph(), summary);
  ModelState state;
  state.file = path;
  state.graph = &proto.graph();
  if (Expected<std::vector<DeclaredTensor>> inputs =
          declaredInputs(proto, options, state))
    summary.inputs = std::move(*inputs);
  else
    (void)inputs.takeError(); // the import reports it
  summary.outputs = declaredOutputs(proto.graph());
  return summary;
}

Expected<ImportedModel> importOnnx(const std::string &path,
                                   const ImportOptions &options) {
  Expected<std::string> bytes = readModelFile(path);
  if (!bytes)
    return bytes.takeError();
  std::string baseDir = std::filesystem::path(path).parent_path().string();
  return importOnnxBytes(*bytes, path, baseDir.empty() ? "." : baseDir,
                         options);
}

} // namespace kiln::import
