//===- Literal.h - A dense tensor value -------------------------*- C++ -*-===//
//
// A Literal is an array shape plus its elements, dense and row-major, in the
// element type's native little-endian representation (f16/bf16 as raw bits,
// pred as one byte 0/1). Constants, evaluator values and .npy files use it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_LITERAL_H
#define KILN_IR_LITERAL_H

#include "kiln/IR/Shape.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kiln::ir {

class Literal {
public:
  Literal() = default;
  /// A zero-filled literal of an array shape.
  explicit Literal(Shape shape)
      : shape_(std::move(shape)), bytes_(size_t(shape_.byteSize()), 0) {}
  Literal(Shape shape, std::vector<uint8_t> bytes)
      : shape_(std::move(shape)), bytes_(std::move(bytes)) {
    assert(int64_t(bytes_.size()) == shape_.byteSize() && "size mismatch");
  }

  /// A literal holding `values`, whose C++ type must match the shape's dtype
  /// in size (uint16_t raw bits for f16/bf16, uint8_t for pred).
  template <typename T>
  static Literal fromValues(Shape shape, const std::vector<T> &values) {
    assert(int64_t(values.size()) == shape.numElements() && "count mismatch");
    assert(sizeof(T) == ir::byteSize(shape.dtype()) && "element size mismatch");
    Literal literal(std::move(shape));
    if (!values.empty())
      std::memcpy(literal.bytes_.data(), values.data(), literal.bytes_.size());
    return literal;
  }

  const Shape &shape() const { return shape_; }
  int64_t numElements() const { return shape_.numElements(); }
  const std::vector<uint8_t> &bytes() const { return bytes_; }
  std::vector<uint8_t> &bytes() { return bytes_; }

  template <typename T> T *data() {
    assert(sizeof(T) == ir::byteSize(shape_.dtype()) && "element size mismatch");
    return reinterpret_cast<T *>(bytes_.data());
  }
  template <typename T> const T *data() const {
    assert(sizeof(T) == ir::byteSize(shape_.dtype()) && "element size mismatch");
    return reinterpret_cast<const T *>(bytes_.data());
  }

  bool operator==(const Literal &other) const {
    return shape_ == other.shape_ && bytes_ == other.bytes_;
  }
  bool operator!=(const Literal &other) const { return !(*this == other); }

private:
  Shape shape_;
  std::vector<uint8_t> bytes_;
};

} // namespace kiln::ir

#endif // KILN_IR_LITERAL_H
