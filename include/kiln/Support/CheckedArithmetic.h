//===- CheckedArithmetic.h - Sizes and indices that cannot wrap -*- C++ -*-===//
//
// Lowerings and readers compute sizes, strides and indices from attributes
// and file headers, which are untrusted: a block size of 2^32 squared wraps
// to 0, a negative index reads before a vector. These helpers return nullopt
// instead of wrapping, so every such computation is written as a check.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_CHECKEDARITHMETIC_H
#define KILN_SUPPORT_CHECKEDARITHMETIC_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

namespace kiln {

/// a + b, or nullopt when it overflows int64_t.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

/// a * b, or nullopt when it overflows int64_t.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

/// a + b for counts (a, b >= 0), saturating at INT64_MAX: a cost that large
/// only has to compare as "too much".
inline int64_t saturatingAdd(int64_t a, int64_t b) {
  return checkedAdd(a, b).value_or(std::numeric_limits<int64_t>::max());
}

/// a * b for counts (a, b >= 0), saturating at INT64_MAX.
inline int64_t saturatingMul(int64_t a, int64_t b) {
  return checkedMul(a, b).value_or(std::numeric_limits<int64_t>::max());
}

/// The product of sizes, or nullopt when one is negative or it overflows.
template <typename Sizes>
std::optional<int64_t> checkedProduct(const Sizes &sizes) {
  int64_t product = 1;
  for (int64_t size : sizes) {
    if (size < 0)
      return std::nullopt;
    std::optional<int64_t> next = checkedMul(product, size);
    if (!next)
      return std::nullopt;
    product = *next;
  }
  return product;
}
inline std::optional<int64_t>
checkedProduct(std::initializer_list<int64_t> sizes) {
  return checkedProduct<std::initializer_list<int64_t>>(sizes);
}

/// `index` as a position in a container of `size` elements, or nullopt
/// when it is negative or past the end.
inline std::optional<size_t> checkedIndex(int64_t index, size_t size) {
  if (index < 0 || uint64_t(index) >= size)
    return std::nullopt;
  return size_t(index);
}

/// A double converted to int64_t, or nullopt when it is NaN or outside the
/// range of int64_t (where the C++ conversion is undefined).
inline std::optional<int64_t> checkedFloatToInt(double value) {
  // 2^63 is exactly representable; every double below it converts.
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0))
    return std::nullopt;
  return int64_t(value);
}

/// A double converted to the integer type I as kiln's `convert` does it:
/// truncated toward zero, clamped to I's range, NaN to 0 (the C++ conversion
/// of a value outside the range is undefined).
template <typename I> I saturatingCast(double value) {
  if (std::isnan(value))
    return I(0);
  const double lowest = double(std::numeric_limits<I>::min()); // exact
  // One past the largest value: 2^digits, exact in double.
  const double pastMax = std::ldexp(1.0, std::numeric_limits<I>::digits);
  if (value <= lowest)
    return std::numeric_limits<I>::min();
  if (value >= pastMax)
    return std::numeric_limits<I>::max();
  return I(value);
}

/// A 128-bit intermediate (window arithmetic on model-given sizes) as
/// int64_t, clamped to its range: out-of-range sizes are left for shape
/// inference to reject instead of wrapping.
inline int64_t saturateToInt64(__int128 value) {
  if (value > std::numeric_limits<int64_t>::max())
    return std::numeric_limits<int64_t>::max();
  if (value < std::numeric_limits<int64_t>::min())
    return std::numeric_limits<int64_t>::min();
  return int64_t(value);
}

/// floor(a / b), rounding toward negative infinity as Python's // does
/// (C++'s / rounds toward zero). b must not be 0, and a / b must not
/// overflow (INT64_MIN / -1).
inline int64_t floorDiv(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

} // namespace kiln

#endif // KILN_SUPPORT_CHECKEDARITHMETIC_H
