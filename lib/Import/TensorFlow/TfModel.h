//===- TfModel.h - Reading TensorFlow models and tfcompile configs -*- C++ -*-===//
//
// The readers turn a file into a GraphDef plus what came with it: TF.js
// weights (by Const node name), the TF.js signature, a format name for
// `kiln inspect`. They know nothing about feeds, pruning or lowering
// (TfImporter.cpp does that). Every error names the file.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_TENSORFLOW_TFMODEL_H
#define KILN_LIB_IMPORT_TENSORFLOW_TFMODEL_H

#include "kiln/IR/Literal.h"
#include "kiln/Support/Error.h"

#include "tensorflow/graph.pb.h"
#include "tensorflow/tf2xla.pb.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::import::tf {

/// One input or output of a TF.js model's signature.
struct SignatureTensor {
  std::string key;        ///< the signature's key ("input_1", "Identity:0")
  std::string node;       ///< node name of the tensor
  int64_t index = 0;      ///< output index of the tensor
  tensorflow::DataType type = tensorflow::DT_INVALID;
  std::optional<std::vector<int64_t>> dims; ///< nullopt: not given
};

struct TfModel {
  std::string path;
  std::string format; ///< "TensorFlow GraphDef (binary)", ...
  tensorflow::GraphDef graph;
  /// TF.js weights by Const node name, dequantized.
  std::map<std::string, ir::Literal> weights;
  /// Bytes each weight occupies in its shard (quantized size).
  std::map<std::string, int64_t> storedWeightBytes;
  bool hasSignature = false;
  std::vector<SignatureTensor> signatureInputs;
  std::vector<SignatureTensor> signatureOutputs;
};

/// Reads `path` by extension and content: .pb binary GraphDef, .pbtxt text
/// GraphDef, .json a TF.js model.json (when it has `modelTopology`) or a
/// GraphDef as JSON. Unknown fields are ignored.
Expected<TfModel> readTfModel(const std::string &path);

/// Parses GraphDef bytes in one encoding; `displayName` prefixes errors.
Expected<tensorflow::GraphDef> parseGraphDefBinary(const std::string &bytes,
                                                   const std::string &displayName);
Expected<tensorflow::GraphDef> parseGraphDefText(const std::string &text,
                                                 const std::string &displayName);
Expected<tensorflow::GraphDef> parseGraphDefJson(const std::string &json,
                                                 const std::string &displayName);

/// An error naming `displayName` and the line and column when `json` is not
/// syntactically valid JSON.
Error checkJsonSyntax(const std::string &json, const std::string &displayName);

/// Reads a TF.js graph model: `json` is the model.json text at `path`;
/// the weight shards are read from beside it.
Expected<TfModel> readTfJsModel(const std::string &path, const std::string &json);

/// Reads a tfcompile config (tf2xla.Config) as text proto, or as JSON when
/// the file ends in .json or starts with '{'.
Expected<tensorflow::tf2xla::Config> readTfConfig(const std::string &path);

/// "node" -> {node, 0}; "node:2" -> {node, 2} (TensorFlow tensor names).
std::pair<std::string, int64_t> parseTensorName(const std::string &name);

} // namespace kiln::import::tf

#endif // KILN_LIB_IMPORT_TENSORFLOW_TFMODEL_H
