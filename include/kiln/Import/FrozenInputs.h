//===- FrozenInputs.h - --freeze: model inputs bound to constants -*- C++ -*-===//
//
// `--freeze NAME=FILE.npy` or `--freeze NAME=v0,v1,...` binds a model input
// to a value at import time. Every importer turns a frozen input into a
// constant where it would have made an entry parameter, before any node is
// lowered, so shape-setting inputs (Reshape's shape, Unsqueeze's axes, a
// Range's limits) are constants when their users need them and the input is
// not part of the compiled ABI.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IMPORT_FROZENINPUTS_H
#define KILN_IMPORT_FROZENINPUTS_H

#include "kiln/IR/Literal.h"
#include "kiln/Support/Error.h"
#include "kiln/Support/Npy.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::import {

/// One --freeze value as the user gave it: an .npy array, or a list of
/// numbers whose dtype and shape come from the declared input.
struct FrozenInput {
  std::string spec; ///< The flag's text, for messages.
  std::optional<NpyArray> array;
  std::vector<std::string> values;
};

/// Parses every --freeze spec into name -> value (reading .npy files);
/// errors name the bad spec.
Expected<std::map<std::string, FrozenInput>>
parseFrozenInputs(const std::vector<std::string> &specs);

/// The constant for input `name`, declared with `dtype` and `dims` (-1: an
/// unknown dimension; nullopt: no declared shape). An .npy value must have
/// the declared dtype and a shape that fits the declared dims; a value list
/// takes the declared dtype and a fully declared shape, or rank 1 (a single
/// value: rank 0) where the declaration leaves it open.
Expected<ir::Literal>
frozenLiteral(const std::string &name, const FrozenInput &frozen,
              ir::DType dtype, const std::optional<std::vector<int64_t>> &dims);

/// The error for --freeze names that are not inputs of the model.
Error unknownFrozenInputs(const std::map<std::string, FrozenInput> &frozen,
                          const std::vector<std::string> &usedNames,
                          const std::vector<std::string> &inputNames);

} // namespace kiln::import

#endif // KILN_IMPORT_FROZENINPUTS_H
