//===- LiteralUtil.cpp - Element-wise literal conversion ------------------===//
#include "kiln/Import/LiteralUtil.h"

#include "kiln/Support/CheckedArithmetic.h"
#include "kiln/Support/Float16.h"

#include <cassert>
#include <cstring>
#include <type_traits>

namespace kiln::import {

using ir::DType;

namespace {
template <typename T> T loadAs(const ir::Literal &literal, int64_t index) {
  T value;
  std::memcpy(&value, literal.bytes().data() + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void storeAs(ir::Literal &literal, int64_t index, T value) {
  std::memcpy(literal.bytes().data() + index * sizeof(T), &value, sizeof(T));
}

// Calls fn(T{}) with the C++ storage type of an integer or f32/f64 dtype.
template <typename F> auto withPlainType(DType dtype, F &&fn) {
  switch (dtype) {
  case DType::Pred: return fn(uint8_t{});
  case DType::S8: return fn(int8_t{});
  case DType::S16: return fn(int16_t{});
  case DType::S32: return fn(int32_t{});
  case DType::S64: return fn(int64_t{});
  case DType::U8: return fn(uint8_t{});
  case DType::U16: return fn(uint16_t{});
  case DType::U32: return fn(uint32_t{});
  case DType::U64: return fn(uint64_t{});
  case DType::F32: return fn(float{});
  default: return fn(double{});
  }
}
} // namespace

double elementAsDouble(const ir::Literal &literal, int64_t index) {
  DType dtype = literal.shape().dtype();
  if (dtype == DType::F16)
    return halfToFloat(loadAs<uint16_t>(literal, index));
  if (dtype == DType::BF16)
    return bfloat16ToFloat(loadAs<uint16_t>(literal, index));
  return withPlainType(dtype, [&](auto tag) {
    return double(loadAs<decltype(tag)>(literal, index));
  });
}

int64_t elementAsInt(const ir::Literal &literal, int64_t index) {
  DType dtype = literal.shape().dtype();
  if (ir::isFloat(dtype)) // as `convert`: past int64's range saturates
    return saturatingCast<int64_t>(elementAsDouble(literal, index));
  return withPlainType(dtype, [&](auto tag) {
    return int64_t(loadAs<decltype(tag)>(literal, index));
  });
}

std::vector<double> literalToDoubles(const ir::Literal &literal) {
  std::vector<double> values(size_t(literal.numElements()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = elementAsDouble(literal, int64_t(i));
  return values;
}

std::vector<int64_t> literalToInts(const ir::Literal &literal) {
  std::vector<int64_t> values(size_t(literal.numElements()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = elementAsInt(literal, int64_t(i));
  return values;
}

ir::Literal literalFromDoubles(const ir::Shape &shape,
                               const std::vector<double> &values) {
  assert(int64_t(values.size()) == shape.numElements() && "count mismatch");
  ir::Literal literal(shape);
  DType dtype = shape.dtype();
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::F16)
      storeAs(literal, int64_t(i), floatToHalf(float(values[i])));
    else if (dtype == DType::BF16)
      storeAs(literal, int64_t(i), floatToBfloat16(float(values[i])));
    else if (dtype == DType::Pred)
      storeAs(literal, int64_t(i), uint8_t(values[i] != 0));
    else
      withPlainType(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T>)
          storeAs(literal, int64_t(i), saturatingCast<T>(values[i]));
        else
          storeAs(literal, int64_t(i), T(values[i]));
      });
  }
  return literal;
}

ir::Literal literalFromInts(const ir::Shape &shape,
                            const std::vector<int64_t> &values) {
  assert(int64_t(values.size()) == shape.numElements() && "count mismatch");
  if (ir::isFloat(shape.dtype()))
    return literalFromDoubles(shape,
                              std::vector<double>(values.begin(), values.end()));
  ir::Literal literal(shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (shape.dtype() == DType::Pred)
      storeAs(literal, int64_t(i), uint8_t(values[i] != 0));
    else
      withPlainType(shape.dtype(), [&](auto tag) {
        storeAs(literal, int64_t(i), static_cast<decltype(tag)>(values[i]));
      });
  }
  return literal;
}

} // namespace kiln::import
