//===- TfJsModel.cpp - TensorFlow.js graph models: model.json + shards ----===//
//
// A TF.js graph model is a GraphDef as JSON (`modelTopology`) whose Const
// nodes have no values; the values live in binary shards listed by
// `weightsManifest` (groups of files read back to back, weights in manifest
// order), possibly quantized. Dequantization follows tfjs-core's
// io_utils.decodeWeight exactly: q * scale + min in double precision stored
// to float32 (Math.round for int32), float16 widened exactly.
//
//===----------------------------------------------------------------------===//
#include "TensorFlow/TfModel.h"
#include "TensorFlow/TfTensor.h"

#include "kiln/Import/LiteralUtil.h"
#include "kiln/Support/CheckedArithmetic.h"
#include "kiln/Support/FileUtils.h"
#include "kiln/Support/NestingDepth.h"
#include "kiln/Support/ResourceLimits.h"
#include "kiln/Support/Float16.h"

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>

namespace kiln::import::tf {

using Json = nlohmann::ordered_json;

namespace {
// Storage types of the manifest: bytes per element and the graph dtype.
struct WeightType {
  std::string_view name;
  int64_t bytes;
  tensorflow::DataType tf; // DT_INVALID: stored form only (quantization)
};

constexpr WeightType kWeightTypes[] = {
    {"float32", 4, tensorflow::DT_FLOAT}, {"int32", 4, tensorflow::DT_INT32},
    {"bool", 1, tensorflow::DT_BOOL},     {"uint8", 1, tensorflow::DT_INVALID},
    {"uint16", 2, tensorflow::DT_INVALID}, {"float16", 2, tensorflow::DT_INVALID},
};

const WeightType *findWeightType(std::string_view name) {
  for (const WeightType &type : kWeightTypes)
    if (type.name == name)
      return &type;
  return nullptr;
}

std::string stringOr(const Json &object, const char *key, std::string fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>()
                                               : fallback;
}

// The widest element a weight decodes to (float32, int32); widening to 64
// bits is checked again in checkAgainstGraph.
constexpr int64_t kWidestDecodedElement = 4;

struct WeightSpec {
  std::string name;
  std::vector<int64_t> dims;
  std::string dtype;
  std::string quantDType; // empty: not quantized
  double scale = 1, min = 0;
};

Expected<WeightSpec> parseSpec(const Json &spec, const std::string &path) {
  WeightSpec weight;
  weight.name = stringOr(spec, "name", "");
  weight.dtype = stringOr(spec, "dtype", "float32");
  auto shape = spec.find("shape");
  if (weight.name.empty() || shape == spec.end() || !shape->is_array())
    return makeError("{}: error: weightsManifest entry {} needs a `name` and "
                     "a `shape`",
                     path, spec.dump());
  for (const Json &dim : *shape) {
    if (!dim.is_number_integer() || dim.get<int64_t>() < 0)
      return makeError("{}: error: weight '{}' has a bad shape {}", path,
                       weight.name, shape->dump());
    weight.dims.push_back(dim.get<int64_t>());
  }
  if (Error error = checkConstantElements(
          fmt::format("weight '{}'", weight.name), checkedProduct(weight.dims),
          kWidestDecodedElement))
    return makeError("{}: error: {}", path, error.message());
  auto quant = spec.find("quantization");
  if (quant != spec.end() && quant->is_object()) {
    weight.quantDType = stringOr(*quant, "dtype", "");
    auto scale = quant->find("scale"), min = quant->find("min");
    bool affine = weight.quantDType == "uint8" || weight.quantDType == "uint16";
    if (affine && (scale == quant->end() || min == quant->end() ||
                   !scale->is_number() || !min->is_number()))
      return makeError("{}: error: weight '{}' is quantized to {} but has no "
                       "numeric `scale` and `min`",
                       path, weight.name, weight.quantDType);
    if (affine) {
      weight.scale = scale->get<double>();
      weight.min = min->get<double>();
    } else if (weight.quantDType != "float16") {
      return makeError("{}: error: weight '{}' has unknown quantization dtype "
                       "'{}' (TF.js knows uint8, uint16 and float16)",
                       path, weight.name, weight.quantDType);
    }
  }
  return weight;
}

// parseSpec has checked that the count fits the constant budget.
int64_t elementCount(const std::vector<int64_t> &dims) {
  return checkedProduct(dims).value_or(0);
}

// Decodes one weight's stored bytes into the literal TF.js would build.
Expected<ir::Literal> decodeWeight(const WeightSpec &weight, const uint8_t *data,
                                   const std::string &path) {
  int64_t count = elementCount(weight.dims);
  auto fail = [&](std::string_view why) {
    return makeError("{}: error: weight '{}': {}", path, weight.name, why);
  };
  if (weight.quantDType.empty()) {
    const WeightType *type = findWeightType(weight.dtype);
    std::optional<ir::DType> dtype =
        type ? dtypeFromTf(type->tf) : std::optional<ir::DType>();
    if (!dtype)
      return fail(fmt::format("unsupported weight dtype '{}'", weight.dtype));
    ir::Literal literal(ir::Shape(*dtype, weight.dims));
    if (!literal.bytes().empty()) // an empty weight may have no data at all
      std::memcpy(literal.bytes().data(), data, literal.bytes().size());
    if (*dtype == ir::DType::Pred)
      for (uint8_t &byte : literal.bytes())
        byte = byte != 0;
    return literal;
  }
  auto quantized = [&](int64_t i) -> double {
    if (weight.quantDType == "uint8")
      return data[i];
    uint16_t bits;
    std::memcpy(&bits, data + 2 * i, 2);
    return bits;
  };
  if (weight.dtype == "float32") {
    std::vector<float> values(size_t(count), 0.0f);
    for (int64_t i = 0; i < count; ++i)
      values[i] = weight.quantDType == "float16"
                      ? halfToFloat(uint16_t(quantized(i)))
                      : float(quantized(i) * weight.scale + weight.min);
    return ir::Literal::fromValues(ir::Shape(ir::DType::F32, weight.dims), values);
  }
  if (weight.dtype == "int32" && weight.quantDType != "float16") {
    // JavaScript's Math.round: halves round toward +infinity.
    std::vector<int32_t> values(size_t(count), 0);
    for (int64_t i = 0; i < count; ++i)
      values[i] = int32_t(std::floor(quantized(i) * weight.scale + weight.min + 0.5));
    return ir::Literal::fromValues(ir::Shape(ir::DType::S32, weight.dims), values);
  }
  return fail(fmt::format("quantization {} does not apply to dtype {}",
                          weight.quantDType, weight.dtype));
}

// Bytes a weight occupies in its shard.
Expected<int64_t> storedSize(const WeightSpec &weight, const uint8_t *data,
                             int64_t available, const std::string &path) {
  int64_t count = elementCount(weight.dims);
  if (weight.dtype == "string" && weight.quantDType.empty()) {
    // Each element: a uint32 length then the bytes. Walked only to skip it.
    int64_t offset = 0;
    for (int64_t i = 0; i < count; ++i) {
      uint32_t length = 0;
      if (offset + 4 > available)
        return available + 1;
      std::memcpy(&length, data + offset, 4);
      offset += 4 + int64_t(length);
    }
    return offset;
  }
  const WeightType *type =
      findWeightType(weight.quantDType.empty() ? weight.dtype : weight.quantDType);
  if (!type)
    return makeError("{}: error: weight '{}' has unsupported dtype '{}'", path,
                     weight.name, weight.dtype);
  return count * type->bytes;
}

// One weight group's shards read back to back, remembering where each
// shard starts so errors can name the file a weight falls in.
struct ShardGroup {
  std::vector<uint8_t> bytes;
  std::vector<std::pair<std::string, int64_t>> shards; // file, first byte
};

Expected<ShardGroup> readShards(const Json &paths, const std::string &path) {
  ShardGroup group;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!paths.is_array())
    return makeError("{}: error: a weightsManifest group has no `paths` list",
                     path);
  for (const Json &shard : paths) {
    if (!shard.is_string())
      return makeError("{}: error: weightsManifest path {} is not a string",
                       path, shard.dump());
    Expected<std::string> resolved = resolveInsideDirectory(
        dir.string(), shard.get<std::string>(), "weight shard path");
    if (!resolved)
      return makeError("{}: error: {}", path, resolved.errorMessage());
    std::string file = std::move(*resolved);
    Expected<std::vector<uint8_t>> bytes = readBinaryFile(file);
    if (!bytes)
      return makeError("{}: error: weight shard: {}", path,
                       bytes.errorMessage());
    group.shards.emplace_back(file, int64_t(group.bytes.size()));
    group.bytes.insert(group.bytes.end(), bytes->begin(), bytes->end());
  }
  return group;
}

std::string shardAt(const ShardGroup &group, int64_t offset) {
  std::string file = group.shards.empty() ? "" : group.shards.front().first;
  for (const auto &[name, start] : group.shards)
    if (start <= offset)
      file = name;
  return file;
}

// The graph's Const nodes by name, to check each weight's dtype against.
std::map<std::string, const tensorflow::NodeDef *>
constNodes(const tensorflow::GraphDef &graph) {
  std::map<std::string, const tensorflow::NodeDef *> nodes;
  for (const tensorflow::NodeDef &node : graph.node())
    nodes[node.name()] = &node;
  return nodes;
}

// TF.js has no 64-bit types: its converter stores DT_DOUBLE weights as
// float32 and DT_INT64 ones as int32. Such a weight is widened back to the
// graph's dtype (exactly) so the ops consuming it see the types their
// attributes declare.
struct Widening {
  ir::DType stored, graph;
};
constexpr Widening kTfJsWidenings[] = {{ir::DType::F32, ir::DType::F64},
                                       {ir::DType::S32, ir::DType::S64}};

Error checkAgainstGraph(const WeightSpec &weight, ir::Literal &value,
                        const tensorflow::NodeDef &node, const std::string &path) {
  auto dtype = node.attr().find("dtype");
  if (dtype == node.attr().end())
    return Error::success();
  tensorflow::DataType graphType = dtype->second.type();
  std::optional<ir::DType> wanted = dtypeFromTf(graphType);
  ir::DType stored = value.shape().dtype();
  if (wanted == stored)
    return Error::success();
  for (const Widening &widening : kTfJsWidenings) {
    if (widening.stored != stored || widening.graph != wanted)
      continue;
    ir::Shape shape = value.shape().withDType(*wanted);
    if (Error error = checkConstantBytes(
            fmt::format("weight '{}' widened to {}", weight.name,
                        shape.toString()),
            shape.byteSize()))
      return makeError("{}: error: {}", path, error.message());
    value = ir::isFloat(stored) ? literalFromDoubles(shape, literalToDoubles(value))
                                : literalFromInts(shape, literalToInts(value));
    return Error::success();
  }
  return makeError("{}: error: weight '{}': the manifest stores {} ({}) but "
                   "node '{}' ({}) has dtype {}",
                   path, weight.name, weight.dtype,
                   weight.quantDType.empty()
                       ? "unquantized"
                       : "quantized to " + weight.quantDType,
                   node.name(), node.op(), tfDTypeName(graphType));
}

Error readWeightGroup(const Json &group, TfModel &model) {
  const std::string &path = model.path;
  Expected<ShardGroup> shards =
      readShards(group.contains("paths") ? group["paths"] : Json(), path);
  if (!shards)
    return shards.takeError();
  auto nodes = constNodes(model.graph);
  int64_t offset = 0, total = int64_t(shards->bytes.size());
  if (!group.contains("weights") || !group["weights"].is_array())
    return makeError("{}: error: a weightsManifest group has no `weights` list",
                     path);
  for (const Json &entry : group["weights"]) {
    Expected<WeightSpec> weight = parseSpec(entry, path);
    if (!weight)
      return weight.takeError();
    const uint8_t *data = shards->bytes.data() + offset;
    Expected<int64_t> size = storedSize(*weight, data, total - offset, path);
    if (!size)
      return size.takeError();
    if (*size > total - offset)
      return makeError("{}: error: weight '{}' ({}[{}]) needs {} bytes at "
                       "offset {} of its shards but '{}' ends at byte {}: the "
                       "weight shard is too short",
                       path, weight->name,
                       weight->quantDType.empty() ? weight->dtype
                                                  : weight->quantDType,
                       fmt::join(weight->dims, ","), *size, offset,
                       shardAt(*shards, offset), total);
    offset += *size;
    if (weight->dtype == "string")
      continue; // never computed with; a Const using it fails when lowered
    Expected<ir::Literal> value = decodeWeight(*weight, data, path);
    if (!value)
      return value.takeError();
    auto node = nodes.find(weight->name);
    if (node != nodes.end())
      if (Error error = checkAgainstGraph(*weight, *value, *node->second, path))
        return error;
    model.storedWeightBytes[weight->name] = *size;
    model.weights[weight->name] = std::move(*value);
  }
  return Error::success();
}

std::optional<std::vector<int64_t>> signatureDims(const Json &info) {
  auto shape = info.find("tensorShape");
  if (shape == info.end() || !shape->is_object())
    return std::nullopt;
  auto unknownRank = shape->find("unknownRank");
  if (unknownRank != shape->end() && unknownRank->is_boolean() &&
      unknownRank->get<bool>())
    return std::nullopt;
  std::vector<int64_t> dims;
  auto dimList = shape->find("dim");
  if (dimList == shape->end() || !dimList->is_array())
    return dims;
  for (const Json &dim : *dimList) {
    auto size = dim.find("size");
    int64_t value = -1;
    if (size != dim.end() && size->is_string())
      value = std::strtoll(size->get<std::string>().c_str(), nullptr, 10);
    else if (size != dim.end() && size->is_number_integer())
      value = size->get<int64_t>();
    else if (size == dim.end())
      value = 0; // proto3 JSON omits zero
    dims.push_back(value < 0 ? -1 : value);
  }
  return dims;
}

std::vector<SignatureTensor> signatureTensors(const Json &list) {
  std::vector<SignatureTensor> tensors;
  if (!list.is_object())
    return tensors;
  for (const auto &[key, info] : list.items()) {
    SignatureTensor tensor;
    tensor.key = key;
    std::string name = info.is_object() ? stringOr(info, "name", key) : key;
    std::tie(tensor.node, tensor.index) = parseTensorName(name);
    tensorflow::DataType type = tensorflow::DT_INVALID;
    if (info.is_object() &&
        tensorflow::DataType_Parse(stringOr(info, "dtype", ""), &type))
      tensor.type = type;
    if (info.is_object())
      tensor.dims = signatureDims(info);
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}
} // namespace

namespace {
Expected<Json> parseJsonText(const std::string &text, const std::string &path) {
  if (Error error = checkNestingDepth(text, path, /*hashComments=*/false))
    return error;
  try {
    return Json::parse(text);
  } catch (const Json::exception &error) {
    // "[json.exception.parse_error.101] parse error at line 2, column 29: ..."
    std::string message = error.what();
    size_t bracket = message.find("] ");
    if (bracket != std::string::npos)
      message = message.substr(bracket + 2);
    return makeError("{}: error: not valid JSON: {}", path, message);
  }
}
} // namespace

Error checkJsonSyntax(const std::string &json, const std::string &displayName) {
  Expected<Json> doc = parseJsonText(json, displayName);
  return doc ? Error::success() : doc.takeError();
}

Expected<TfModel> readTfJsModel(const std::string &path, const std::string &text) {
  Expected<Json> parsed = parseJsonText(text, path);
  if (!parsed)
    return parsed.takeError();
  Json &doc = *parsed;
  if (!doc.is_object() || !doc.contains("modelTopology"))
    return makeError("{}: error: not a TensorFlow.js model (no `modelTopology`)",
                     path);
  std::string format = stringOr(doc, "format", "graph-model");
  const Json &topology = doc["modelTopology"];
  if (format == "layers-model" || topology.contains("model_config") ||
      topology.contains("class_name"))
    return makeError("{}: error: this is a TensorFlow.js layers model; kiln "
                     "reads graph models (convert it with "
                     "tensorflowjs_converter --output_format=tfjs_graph_model)",
                     path);
  TfModel model;
  model.path = path;
  model.format = "TensorFlow.js graph model";
  Expected<tensorflow::GraphDef> graph =
      parseGraphDefJson(topology.dump(), path + " (modelTopology)");
  if (!graph)
    return graph.takeError();
  model.graph = std::move(*graph);
  if (model.graph.node_size() == 0)
    return makeError("{}: error: modelTopology has no nodes", path);
  if (doc.contains("weightsManifest")) {
    const Json &manifest = doc["weightsManifest"];
    if (!manifest.is_array())
      return makeError("{}: error: `weightsManifest` is not a list", path);
    for (const Json &group : manifest) {
      if (!group.is_object())
        return makeError("{}: error: a weightsManifest group is not an object",
                         path);
      if (Error error = readWeightGroup(group, model))
        return error;
    }
  }
  if (doc.contains("signature") && doc["signature"].is_object()) {
    const Json &signature = doc["signature"];
    model.hasSignature = signature.contains("inputs") || signature.contains("outputs");
    if (signature.contains("inputs"))
      model.signatureInputs = signatureTensors(signature["inputs"]);
    if (signature.contains("outputs"))
      model.signatureOutputs = signatureTensors(signature["outputs"]);
  }
  return model;
}

} // namespace kiln::import::tf
