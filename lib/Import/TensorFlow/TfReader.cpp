//===- TfReader.cpp - GraphDef (binary, text, JSON) and tfcompile configs -===//
#include "TensorFlow/TfModel.h"

#include "kiln/Support/CheckedArithmetic.h"
#include "kiln/Support/FileUtils.h"
#include "kiln/Support/NestingDepth.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

namespace kiln::import::tf {

namespace pb = google::protobuf;

namespace {
// Keeps the first text-format error with its position; warnings (unknown
// fields, which are skipped on purpose) are dropped.
class FirstErrorCollector : public pb::io::ErrorCollector {
public:
  void AddError(int line, pb::io::ColumnNumber column,
                const std::string &message) override {
    if (!message_.empty())
      return;
    line_ = line;
    column_ = column;
    message_ = message;
  }
  void AddWarning(int, pb::io::ColumnNumber, const std::string &) override {}

  /// "FILE:LINE:COL: error: MESSAGE" (1-based like every other kiln error).
  std::string describe(const std::string &file, std::string_view what) const {
    if (message_.empty())
      return fmt::format("{}: error: not a valid {}", file, what);
    return fmt::format("{}:{}:{}: error: {} (while reading a {})", file,
                       line_ + 1, column_ + 1, message_, what);
  }

private:
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

Error parseText(const std::string &text, pb::Message &message,
                const std::string &displayName, std::string_view what) {
  if (Error error = checkNestingDepth(text, displayName, /*hashComments=*/true))
    return error;
  pb::TextFormat::Parser parser;
  parser.SetRecursionLimit(kMaxNestingDepth);
  FirstErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(true);
  parser.AllowUnknownExtension(true);
  if (!parser.ParseFromString(text, &message))
    return Error::failure(errors.describe(displayName, what));
  return Error::success();
}

Error parseJson(const std::string &json, pb::Message &message,
                const std::string &displayName, std::string_view what) {
  // nlohmann reports syntax errors with a line and column; protobuf then
  // checks the schema.
  if (Error error = checkJsonSyntax(json, displayName))
    return error;
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  pb::util::Status status = pb::util::JsonStringToMessage(json, &message, options);
  if (!status.ok()) {
    // protobuf appends the offending text and a caret on further lines.
    std::string message = status.message().ToString();
    message = message.substr(0, message.find('\n'));
    return makeError("{}: error: not a valid {} in JSON: {}", displayName, what,
                     message);
  }
  return Error::success();
}

bool looksLikeJson(const std::string &text) {
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)))
      continue;
    return c == '{';
  }
  return false;
}

// TF.js model.json files carry the graph under "modelTopology"; a plain
// GraphDef as JSON has "node" at the top. A cheap textual probe decides
// before any JSON parser runs (readTfJsModel parses properly).
bool isTfJsModel(const std::string &text) {
  return text.find("\"modelTopology\"") != std::string::npos;
}

Error checkNotEmpty(const tensorflow::GraphDef &graph, const std::string &path) {
  if (graph.node_size() == 0)
    return makeError("{}: error: the graph has no nodes (is this a "
                     "TensorFlow GraphDef?)",
                     path);
  return Error::success();
}

std::string extensionOf(const std::string &path) {
  return std::filesystem::path(path).extension().string();
}
} // namespace

Expected<tensorflow::GraphDef>
parseGraphDefBinary(const std::string &bytes, const std::string &displayName) {
  tensorflow::GraphDef graph;
  if (!graph.ParseFromString(bytes))
    return makeError("{}: error: not a valid binary GraphDef (the protobuf "
                     "data is truncated or corrupt)",
                     displayName);
  return graph;
}

Expected<tensorflow::GraphDef>
parseGraphDefText(const std::string &text, const std::string &displayName) {
  tensorflow::GraphDef graph;
  if (Error error = parseText(text, graph, displayName, "text GraphDef"))
    return error;
  return graph;
}

Expected<tensorflow::GraphDef>
parseGraphDefJson(const std::string &json, const std::string &displayName) {
  tensorflow::GraphDef graph;
  if (Error error = parseJson(json, graph, displayName, "GraphDef"))
    return error;
  return graph;
}

Expected<TfModel> readTfModel(const std::string &path) {
  Expected<std::string> text = readTextFile(path);
  if (!text)
    return text.takeError();
  std::string extension = extensionOf(path);
  if (extension == ".json" && isTfJsModel(*text))
    return readTfJsModel(path, *text);

  TfModel model;
  model.path = path;
  bool json = extension == ".json", binary = extension == ".pb";
  model.format = json     ? "TensorFlow GraphDef (JSON)"
                 : binary ? "TensorFlow GraphDef (binary)"
                          : "TensorFlow GraphDef (text)";
  Expected<tensorflow::GraphDef> graph =
      json     ? parseGraphDefJson(*text, path)
      : binary ? parseGraphDefBinary(*text, path)
               : parseGraphDefText(*text, path);
  if (!graph)
    return graph.takeError();
  if (Error error = checkNotEmpty(*graph, path))
    return error;
  model.graph = std::move(*graph);
  return model;
}

Expected<tensorflow::tf2xla::Config> readTfConfig(const std::string &path) {
  Expected<std::string> text = readTextFile(path);
  if (!text)
    return text.takeError();
  tensorflow::tf2xla::Config config;
  if (extensionOf(path) == ".json" || looksLikeJson(*text)) {
    if (Error error = parseJson(*text, config, path, "tfcompile config"))
      return error;
  } else if (Error error = parseText(*text, config, path, "tfcompile config")) {
    return error;
  }
  if (config.fetch_size() == 0)
    return makeError("{}: error: the config has no `fetch`; list the "
                     "outputs to compute as fetch {{ id {{ node_name: \"...\" "
                     "}} }}",
                     path);
  return config;
}

std::pair<std::string, int64_t> parseTensorName(const std::string &name) {
  size_t colon = name.rfind(':');
  if (colon == std::string::npos || colon + 1 == name.size())
    return {name, 0};
  int64_t index = 0;
  for (size_t i = colon + 1; i < name.size(); ++i) {
    std::optional<int64_t> next = checkedMul(index, 10);
    if (next)
      next = checkedAdd(*next, name[i] - '0');
    // Not an output index: a name that merely contains a colon.
    if (!std::isdigit(static_cast<unsigned char>(name[i])) || !next)
      return {name, 0};
    index = *next;
  }
  return {name.substr(0, colon), index};
}

} // namespace kiln::import::tf
