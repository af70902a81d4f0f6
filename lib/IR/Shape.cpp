//===- Shape.cpp - Static tensor shapes -----------------------------------===//
#include "kiln/IR/Shape.h"

#include <cassert>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kiln::ir {

Shape Shape::tuple(std::vector<Shape> elements) {
  Shape result;
  result.dtype_ = DType::Tuple;
  result.elements_ = std::move(elements);
  return result;
}

int64_t Shape::numElements() const {
  assert(!isTuple() && "numElements of a tuple shape");
  int64_t count = 1;
  for (int64_t d : dims_)
    count *= d;
  return count;
}

int64_t Shape::byteSize() const {
  return numElements() * int64_t(ir::byteSize(dtype_));
}

std::vector<int64_t> Shape::strides() const {
  std::vector<int64_t> result(dims_.size(), 1);
  for (size_t i = dims_.size(); i-- > 1;)
    result[i - 1] = result[i] * dims_[i];
  return result;
}

std::string Shape::toString() const {
  if (!isTuple())
    return fmt::format("{}[{}]", dtypeName(dtype_), fmt::join(dims_, ","));
  std::string text = "(";
  for (size_t i = 0; i < elements_.size(); ++i) {
    if (i)
      text += ", ";
    text += elements_[i].toString();
  }
  return text + ")";
}

} // namespace kiln::ir
