//===- Import.cpp - Shared importer helpers: messages and --shape ---------===//
#include "kiln/Import/Import.h"

#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kiln::import {

std::string formatUnsupported(const std::string &file,
                              const std::vector<UnsupportedOp> &ops) {
  size_t nodeCount = 0;
  for (const UnsupportedOp &op : ops)
    nodeCount += op.nodes.size();
  std::string text = fmt::format(
      "{}: {} unsupported op{} ({} node{}) in the graph:", file, ops.size(),
      ops.size() == 1 ? "" : "s", nodeCount, nodeCount == 1 ? "" : "s");
  for (const UnsupportedOp &op : ops) {
    text += fmt::format("\n  {}", op.op);
    if (!op.reason.empty())
      text += fmt::format(" ({})", op.reason);
    text += fmt::format(": node{} {}", op.nodes.size() == 1 ? "" : "s",
                        fmt::join(op.nodes, ", "));
  }
  return text;
}

bool DeclaredTensor::isStatic() const {
  if (!dims)
    return false;
  for (const DeclaredDim &dim : *dims)
    if (!dim.size)
      return false;
  return true;
}

DeclaredTensor
declaredFromSizes(std::string name, std::optional<ir::DType> dtype,
                  const std::optional<std::vector<int64_t>> &dims) {
  DeclaredTensor tensor{std::move(name), dtype, std::nullopt};
  if (!dims)
    return tensor;
  tensor.dims.emplace();
  for (int64_t dim : *dims)
    tensor.dims->push_back(
        {dim < 0 ? std::nullopt : std::optional<int64_t>(dim), ""});
  return tensor;
}

std::string describeDeclared(const DeclaredTensor &tensor) {
  std::string dtype = tensor.dtype ? std::string(ir::numpyName(*tensor.dtype))
                                   : std::string("?");
  if (!tensor.dims)
    return dtype + "[...]";
  std::vector<std::string> dims;
  for (const DeclaredDim &dim : *tensor.dims)
    dims.push_back(dim.size             ? std::to_string(*dim.size)
                   : dim.symbol.empty() ? std::string("?")
                                        : dim.symbol);
  return fmt::format("{}[{}]", dtype, fmt::join(dims, ","));
}

namespace {
Expected<std::vector<int64_t>> parseDims(std::string_view text,
                                         std::string_view spec) {
  std::vector<int64_t> dims;
  if (text.empty() || text == "[]" || text == "scalar")
    return dims;
  if (text.front() == '[' && text.back() == ']')
    text = text.substr(1, text.size() - 2);
  while (true) {
    size_t comma = text.find_first_of(",x");
    std::string_view item = text.substr(0, comma);
    int64_t value = -1;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (ec != std::errc() || end != item.data() + item.size() || value < 0)
      return makeError("--shape '{}': expected NAME=D0,D1,... with "
                       "non-negative integer dimensions, but found '{}'",
                       spec, item);
    dims.push_back(value);
    if (comma == std::string_view::npos)
      break;
    text.remove_prefix(comma + 1);
  }
  return dims;
}
} // namespace

Expected<std::map<std::string, std::vector<int64_t>>>
parseShapeOverrides(const std::vector<std::string> &specs) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string &spec : specs) {
    size_t equals = spec.rfind('=');
    if (equals == std::string::npos || equals == 0)
      return makeError("--shape '{}': expected NAME=D0,D1,... (for example "
                       "--shape input=1,224,224,3)",
                       spec);
    Expected<std::vector<int64_t>> dims =
        parseDims(std::string_view(spec).substr(equals + 1), spec);
    if (!dims)
      return dims.takeError();
    std::string name = spec.substr(0, equals);
    if (shapes.count(name))
      return makeError("--shape gives '{}' twice", name);
    shapes[name] = std::move(*dims);
  }
  return shapes;
}

} // namespace kiln::import
