//===- Driver.cpp - Loading models and small helpers shared by subcommands ===//
#include "kiln/Driver/Driver.h"

#include "kiln/IR/Parser.h"
#include "kiln/IR/Verifier.h"
#include "kiln/Support/FileUtils.h"

#include <filesystem>
#include <iostream>
#include <iterator>

namespace kiln::driver {

namespace {
using Loader = Expected<std::unique_ptr<ir::Module>> (*)(const std::string &);

struct ModelFormat {
  std::string_view extension;
  Loader load;
};

// One row per model format; importers for .pb/.pbtxt/.json/.onnx add theirs.
const ModelFormat kModelFormats[] = {
    {".hlo", &loadModule},
};

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

Expected<std::unique_ptr<ir::Module>> loadModel(const std::string &path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::string known;
  for (const ModelFormat &format : kModelFormats) {
    if (format.extension == extension)
      return format.load(path);
    known += known.empty() ? "" : ", ";
    known += format.extension;
  }
  return makeError("cannot tell the format of '{}' from its extension "
                   "(supported: {})",
                   path, known);
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
