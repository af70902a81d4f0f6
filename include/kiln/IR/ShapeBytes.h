//===- ShapeBytes.h - A shape's bytes without trusting it -------*- C++ -*-===//
//
// Shape::byteSize assumes a verified array shape. Budgets look at shapes a
// model declares, tuples included, before anything relies on them, so
// they count with overflow checks.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_SHAPEBYTES_H
#define KILN_IR_SHAPEBYTES_H

#include "kiln/IR/Shape.h"
#include "kiln/Support/CheckedArithmetic.h"

#include <optional>

namespace kiln::ir {

/// The bytes a value of `shape` holds (a tuple: its elements together), or
/// nullopt when the count is negative or overflows int64_t.
inline std::optional<int64_t> checkedValueBytes(const Shape &shape) {
  if (!shape.isTuple()) {
    std::optional<int64_t> count = checkedProduct(shape.dims());
    return count ? checkedMul(*count, int64_t(byteSize(shape.dtype())))
                 : std::nullopt;
  }
  std::optional<int64_t> total = 0;
  for (const Shape &element : shape.tupleElements()) {
    std::optional<int64_t> bytes = checkedValueBytes(element);
    total = total && bytes ? checkedAdd(*total, *bytes) : std::nullopt;
  }
  return total;
}

} // namespace kiln::ir

#endif // KILN_IR_SHAPEBYTES_H
