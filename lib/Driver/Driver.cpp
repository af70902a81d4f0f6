//===- Driver.cpp - Loading models and small helpers shared by subcommands ===//
#include "kiln/Driver/Driver.h"

#include "kiln/Import/CallerLayouts.h"
#include "kiln/Import/TensorFlow.h"
#include "kiln/IR/Parser.h"
#include "kiln/Import/Onnx.h"
#include "kiln/IR/Verifier.h"
#include "kiln/Support/FileUtils.h"

#include <filesystem>
#include <iostream>
#include <iterator>

namespace kiln::driver {

namespace {
using Loader = Expected<import::ImportedModel> (*)(
    const std::string &, const import::ImportOptions &);
/// Reads what a model declares without lowering it (SourceSummary).
using Summarizer = Expected<import::SourceSummary> (*)(
    const std::string &, const import::ImportOptions &);

struct ModelFormat {
  std::string_view extension;
  Loader load;
  Summarizer summarize; ///< nullptr: the format is its own summary (HLO)
};

Expected<import::ImportedModel> importHlo(const std::string &path,
                                          const import::ImportOptions &options) {
  if (!options.configPath.empty() || !options.shapes.empty() ||
      !options.freeze.empty())
    return makeError("{}: --config, --shape and --freeze apply to TensorFlow "
                     "and ONNX models; an HLO module's shapes are already "
                     "static",
                     path);
  Expected<std::unique_ptr<ir::Module>> module = loadModule(path);
  if (!module)
    return module.takeError();
  return importedFromModule(std::move(*module));
}

// One row per model format; each front end adds its extensions.
const ModelFormat kModelFormats[] = {
    {".hlo", &importHlo, nullptr},
    // TensorFlow: binary/text GraphDef; .json is a GraphDef as JSON or a
    // TF.js model.json, told apart by content.
    {".pb", &import::importTensorFlow, &import::summarizeTensorFlow},
    {".pbtxt", &import::importTensorFlow, &import::summarizeTensorFlow},
    {".json", &import::importTensorFlow, &import::summarizeTensorFlow},
    {".onnx", &import::importOnnx, &import::summarizeOnnx},
};

std::string modelExtension(const std::string &path) {
  if (path == "-")
    return ".hlo";
  return std::filesystem::path(path).extension().string();
}

Expected<std::string> readInput(const std::string &path) {
  if (path != "-")
    return readTextFile(path);
  std::string text{std::istreambuf_iterator<char>(std::cin),
                   std::istreambuf_iterator<char>()};
  if (std::cin.bad())
    return makeError("cannot read standard input");
  return text;
}
} // namespace

Expected<std::unique_ptr<ir::Module>> loadModule(const std::string &path) {
  Expected<std::string> text = readInput(path);
  if (!text)
    return text.takeError();
  std::string displayName = path == "-" ? "<stdin>" : path;
  Expected<std::unique_ptr<ir::Module>> module =
      ir::parseModule(*text, displayName);
  if (!module)
    return module.takeError();
  if (Error error = ir::verifyModule(**module))
    return makeError("{}: error: {}", displayName, error.message());
  return module;
}

import::ImportedModel importedFromModule(std::unique_ptr<ir::Module> module) {
  import::ImportedModel model;
  for (const ir::Instruction *parameter : module->entry()->parameters())
    model.args.push_back(import::ArgMetadata::feed(parameter->name()));
  model.resultNames = resultNames(*module);
  model.summary.format = "HLO text";
  model.module = std::move(module);
  return model;
}

Expected<std::unique_ptr<ir::Module>> loadModel(const std::string &path) {
  Expected<import::ImportedModel> model = importModel(path, {});
  if (!model)
    return model.takeError();
  return std::move(model->module);
}

Expected<import::ImportedModel>
importModel(const std::string &path, const import::ImportOptions &options) {
  std::string extension = modelExtension(path);
  std::string known;
  for (const ModelFormat &format : kModelFormats) {
    if (format.extension != extension) {
      known += known.empty() ? "" : ", ";
      known += format.extension;
      continue;
    }
    Expected<import::ImportedModel> model = format.load(path, options);
    if (!model)
      return model;
    if (Error error = import::applyCallerLayouts(*model, options, path))
      return error;
    return model;
  }
  return makeError("cannot tell the format of '{}' from its extension "
                   "(supported: {})",
                   path, known);
}

Expected<import::SourceSummary>
summarizeModel(const std::string &path, const import::ImportOptions &options) {
  std::string extension = modelExtension(path);
  for (const ModelFormat &format : kModelFormats)
    if (format.extension == extension && format.summarize)
      return format.summarize(path, options);
  return makeError("{}: no source summary for this format", path);
}

std::vector<std::string> splitList(std::string_view text) {
  std::vector<std::string> items;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    if (!item.empty())
      items.emplace_back(item);
    if (comma == std::string_view::npos)
      break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

std::string describeArrayType(std::string_view numpyDType,
                              const std::vector<int64_t> &dims) {
  return fmt::format("{}[{}]", numpyDType, fmt::join(dims, ","));
}

} // namespace kiln::driver
