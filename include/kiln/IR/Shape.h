//===- Shape.h - Static tensor shapes ---------------------------*- C++ -*-===//
//
// A Shape is an element type plus static dimensions (row-major, no layouts),
// or a tuple of shapes. Every shape in kiln's IR is fully static.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IR_SHAPE_H
#define KILN_IR_SHAPE_H

#include "kiln/IR/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::ir {

class Shape {
public:
  Shape() = default;
  Shape(DType dtype, std::vector<int64_t> dims)
      : dtype_(dtype), dims_(std::move(dims)) {}
  static Shape scalar(DType dtype) { return Shape(dtype, {}); }
  static Shape tuple(std::vector<Shape> elements);

  DType dtype() const { return dtype_; }
  bool isTuple() const { return dtype_ == DType::Tuple; }
  const std::vector<int64_t> &dims() const { return dims_; }
  int64_t dim(size_t i) const { return dims_[i]; }
  int64_t rank() const { return int64_t(dims_.size()); }
  const std::vector<Shape> &tupleElements() const { return elements_; }

  /// Product of the dimensions (1 for a scalar). Array shapes only.
  int64_t numElements() const;
  /// Dense byte size of an array shape.
  int64_t byteSize() const;
  /// Row-major strides in elements.
  std::vector<int64_t> strides() const;

  Shape withDType(DType dtype) const { return Shape(dtype, dims_); }

  /// HLO text: "f32[2,3]", "pred[]", "(f32[2], s32[2])".
  std::string toString() const;

  bool operator==(const Shape &other) const {
    return dtype_ == other.dtype_ && dims_ == other.dims_ &&
           elements_ == other.elements_;
  }
  bool operator!=(const Shape &other) const { return !(*this == other); }

private:
  DType dtype_ = DType::F32;
  std::vector<int64_t> dims_;
  std::vector<Shape> elements_; // Tuple shapes only.
};

} // namespace kiln::ir

#endif // KILN_IR_SHAPE_H
