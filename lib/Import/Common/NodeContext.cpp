//===- NodeContext.cpp - Input checks shared by both front ends -----------===//
#include "Common/NodeContext.h"

#include <fmt/format.h>

namespace kiln::import {

bool NodeContext::requireInputs(size_t n) {
  if (inputCount() < n) {
    fail(fmt::format("expected {} inputs but the node has {}", n,
                     inputCount()));
    return false;
  }
  for (size_t i = 0; i < n; ++i)
    if (!hasInput(i) || !input(i)) {
      fail(fmt::format("expected input {} but it is missing", i));
      return false;
    }
  return true;
}

std::optional<std::vector<int64_t>>
NodeContext::constantInts(size_t i, std::string_view what) {
  if (i >= inputCount()) {
    fail(fmt::format("expected an input {} ({}) but the node has {} inputs", i,
                     what, inputCount()));
    return std::nullopt;
  }
  if (!hasInput(i)) {
    fail(fmt::format("expected input {} ({}) but it is missing", i, what));
    return std::nullopt;
  }
  Value x = input(i);
  if (x && x->shape().numElements() > kMaxConstantInts) {
    fail(fmt::format("input {} ({}) has {} values; kiln reads at most {} "
                     "values of such an input",
                     i, what, x->shape().numElements(), kMaxConstantInts));
    return std::nullopt;
  }
  std::optional<std::vector<int64_t>> values = GraphBuilder::constantInts(x);
  if (!values && builder_.ok())
    fail(fmt::format("input {} ({}) must be a compile-time constant, but it {}",
                     i, what, notConstantHint()));
  return values;
}

std::optional<double> NodeContext::constantScalar(size_t i,
                                                  std::string_view what) {
  if (!requireInputs(i + 1))
    return std::nullopt;
  std::optional<std::vector<double>> values =
      GraphBuilder::constantDoubles(input(i));
  if (!values || values->size() != 1) {
    fail(fmt::format("input {} ({}) must be a compile-time constant scalar", i,
                     what));
    return std::nullopt;
  }
  return values->front();
}

} // namespace kiln::import
