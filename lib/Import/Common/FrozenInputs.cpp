//===- FrozenInputs.cpp - --freeze: parsing values and fitting them -------===//
#include "kiln/Import/FrozenInputs.h"

#include "kiln/Import/LiteralUtil.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

namespace kiln::import {

namespace {

std::string describe(std::string_view dtype,
                     const std::optional<std::vector<int64_t>> &dims) {
  if (!dims)
    return fmt::format("{} (shape not declared)", dtype);
  std::vector<std::string> items;
  for (int64_t dim : *dims)
    items.push_back(dim < 0 ? "?" : std::to_string(dim));
  return fmt::format("{}[{}]", dtype, fmt::join(items, ","));
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.substr(text.size() - suffix.size()) == suffix;
}

std::vector<std::string> splitValues(std::string_view text) {
  std::vector<std::string> items;
  while (true) {
    size_t comma = text.find(',');
    items.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos)
      return items;
    text.remove_prefix(comma + 1);
  }
}

/// The inclusive range of an integer dtype, as int64 (u64 above 2^63-1 is
/// not reachable from a value list, which is fine for shape-like inputs).
std::pair<int64_t, int64_t> integerRange(ir::DType dtype) {
  switch (dtype) {
  case ir::DType::S8: return {INT8_MIN, INT8_MAX};
  case ir::DType::S16: return {INT16_MIN, INT16_MAX};
  case ir::DType::S32: return {INT32_MIN, INT32_MAX};
  case ir::DType::U8: return {0, UINT8_MAX};
  case ir::DType::U16: return {0, UINT16_MAX};
  case ir::DType::U32: return {0, UINT32_MAX};
  case ir::DType::U64: return {0, std::numeric_limits<int64_t>::max()};
  default: return {std::numeric_limits<int64_t>::min(),
                   std::numeric_limits<int64_t>::max()};
  }
}

/// Parses the value list as `dtype`; the error names the first bad item.
Expected<ir::Literal> parseValues(const std::string &name,
                                  const FrozenInput &frozen,
                                  const ir::Shape &shape) {
  ir::DType dtype = shape.dtype();
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  for (const std::string &item : frozen.values) {
    auto bad = [&](std::string_view why) {
      return makeError("--freeze '{}': value '{}' is not {} (input '{}' is {})",
                       frozen.spec, item, why, name, ir::numpyName(dtype));
    };
    if (ir::isFloat(dtype)) {
      char *end = nullptr;
      double value = std::strtod(item.c_str(), &end);
      if (item.empty() || end != item.c_str() + item.size())
        return bad("a number");
      doubles.push_back(value);
      continue;
    }
    if (dtype == ir::DType::Pred && (item == "true" || item == "false")) {
      ints.push_back(item == "true");
      continue;
    }
    int64_t value = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(),
                                     value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size())
      return bad(dtype == ir::DType::Pred ? "true, false, 0 or 1"
                                          : "an integer");
    auto [low, high] = dtype == ir::DType::Pred ? std::pair<int64_t, int64_t>{0, 1}
                                                : integerRange(dtype);
    if (value < low || value > high)
      return bad(fmt::format("in the range of {} [{}, {}]",
                             ir::numpyName(dtype), low, high));
    ints.push_back(value);
  }
  return ir::isFloat(dtype) ? literalFromDoubles(shape, doubles)
                            : literalFromInts(shape, ints);
}

/// The shape a value list of `count` items takes for the declaration.
Expected<std::vector<int64_t>>
valueListDims(const std::string &name, const FrozenInput &frozen,
              ir::DType dtype, const std::optional<std::vector<int64_t>> &dims) {
  int64_t count = int64_t(frozen.values.size());
  if (!dims)
    return std::vector<int64_t>{count};
  bool known = true;
  int64_t declaredCount = 1;
  for (int64_t dim : *dims) {
    known = known && dim >= 0;
    declaredCount *= dim < 0 ? 1 : dim;
  }
  if (known && declaredCount == count)
    return *dims;
  if (dims->size() == 1 && (*dims)[0] < 0)
    return std::vector<int64_t>{count};
  if (known)
    return makeError("--freeze '{}': input '{}' is {}, which holds {} "
                     "value{}, but {} {} given",
                     frozen.spec, name, describe(ir::numpyName(dtype), dims),
                     declaredCount, declaredCount == 1 ? "" : "s", count,
                     count == 1 ? "is" : "are");
  return makeError("--freeze '{}': input '{}' is {}; a value list cannot "
                   "tell its unknown dimensions, give the value as an .npy "
                   "file",
                   frozen.spec, name, describe(ir::numpyName(dtype), dims));
}

Expected<ir::Literal> literalFromArray(const std::string &name,
                                       const FrozenInput &frozen,
                                       ir::DType dtype,
                                       const std::optional<std::vector<int64_t>> &dims) {
  const NpyArray &array = *frozen.array;
  bool fits = array.dtype == ir::numpyName(dtype);
  fits = fits && (!dims || dims->size() == array.shape.size());
  for (size_t i = 0; fits && dims && i < dims->size(); ++i)
    fits = (*dims)[i] < 0 || (*dims)[i] == array.shape[i];
  if (!fits)
    return makeError(
        "--freeze '{}': input '{}' is declared {} but the file holds {}",
        frozen.spec, name, describe(ir::numpyName(dtype), dims),
        describe(array.dtype, array.shape));
  ir::Shape shape(dtype, array.shape);
  if (int64_t(array.data.size()) != shape.byteSize())
    return makeError("--freeze '{}': the file's {} needs {} bytes of data "
                     "but has {}",
                     frozen.spec, describe(array.dtype, array.shape),
                     shape.byteSize(), array.data.size());
  std::vector<uint8_t> bytes = array.data;
  if (dtype == ir::DType::Pred)
    for (uint8_t &byte : bytes)
      byte = byte != 0;
  return ir::Literal(std::move(shape), std::move(bytes));
}

} // namespace

Expected<std::map<std::string, FrozenInput>>
parseFrozenInputs(const std::vector<std::string> &specs) {
  std::map<std::string, FrozenInput> frozen;
  for (const std::string &spec : specs) {
    size_t equals = spec.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size())
      return makeError("--freeze '{}': expected NAME=FILE.npy or "
                       "NAME=V0,V1,... (for example --freeze shape=1,-1)",
                       spec);
    std::string name = spec.substr(0, equals);
    std::string value = spec.substr(equals + 1);
    FrozenInput input;
    input.spec = spec;
    if (endsWith(value, ".npy")) {
      Expected<NpyArray> array = readNpyFile(value);
      if (!array)
        return makeError("--freeze '{}': {}", spec, array.errorMessage());
      input.array = std::move(*array);
    } else {
      input.values = splitValues(value);
      for (const std::string &item : input.values)
        if (item.empty())
          return makeError("--freeze '{}': the value list has an empty item",
                           spec);
    }
    if (!frozen.emplace(name, std::move(input)).second)
      return makeError("--freeze gives '{}' twice", name);
  }
  return frozen;
}

Expected<ir::Literal>
frozenLiteral(const std::string &name, const FrozenInput &frozen,
              ir::DType dtype, const std::optional<std::vector<int64_t>> &dims) {
  if (frozen.array)
    return literalFromArray(name, frozen, dtype, dims);
  Expected<std::vector<int64_t>> shapeDims =
      valueListDims(name, frozen, dtype, dims);
  if (!shapeDims)
    return shapeDims.takeError();
  return parseValues(name, frozen, ir::Shape(dtype, *shapeDims));
}

Error unknownFrozenInputs(const std::map<std::string, FrozenInput> &frozen,
                          const std::vector<std::string> &usedNames,
                          const std::vector<std::string> &inputNames) {
  for (const auto &[name, input] : frozen) {
    bool used = false;
    for (const std::string &usedName : usedNames)
      used = used || usedName == name;
    if (!used)
      return makeError("--freeze '{}': the model has no input named '{}' "
                       "(its inputs: {})",
                       input.spec, name,
                       inputNames.empty()
                           ? std::string("none")
                           : fmt::format("{}", fmt::join(inputNames, ", ")));
  }
  return Error::success();
}

} // namespace kiln::import
